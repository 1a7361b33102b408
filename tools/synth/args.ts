/** Tiny `--flag value` parser shared by the synth CLIs. */
export function parseArgs(argv: string[], spec: Record<string, 'string' | 'number' | 'boolean'>): Record<string, string | number | boolean | undefined> {
  const out: Record<string, string | number | boolean | undefined> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) throw new Error(`unexpected argument ${a}`);
    let [name, val] = a.slice(2).split('=', 2) as [string, string | undefined];
    const kind = spec[name];
    if (!kind) throw new Error(`unknown option --${name} (known: ${Object.keys(spec).map((k) => '--' + k).join(' ')})`);
    if (kind === 'boolean') {
      out[name] = val === undefined ? true : val !== 'false' && val !== '0';
      continue;
    }
    if (val === undefined) {
      val = argv[++i];
      if (val === undefined) throw new Error(`--${name} needs a value`);
    }
    if (kind === 'number') {
      const n = Number(val);
      if (!Number.isFinite(n)) throw new Error(`--${name}: not a number: ${val}`);
      out[name] = n;
    } else out[name] = val;
  }
  return out;
}
