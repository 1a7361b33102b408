// config.json of an exported model (field names identical to training/gocr/model.py and
// docs/ARCHITECTURE.md). `parseConfig` validates it and says how to fix a bad export.

export interface ModelConfig {
  vocab_size: number;
  d_model: number;
  n_layers: number;
  n_heads: number;
  head_dim: number;
  ffn_dim: number;
  rope_theta: number;
  rms_eps: number;
  vision_dim: number;
  max_positions: number;
  block_size: number;
  pad_id: number;
  bos_id: number;
  eos_id: number;
  mask_id: number;
  sep_id: number;
  task_ids: { text: number; table: number; formula: number };
}

export type TaskKind = keyof ModelConfig['task_ids'];

const FIX = 're-run training/export.py';
const POSITIVE_INTS = ['vocab_size', 'd_model', 'n_layers', 'n_heads', 'head_dim', 'ffn_dim', 'vision_dim', 'max_positions', 'block_size'] as const;
const TOKEN_IDS = ['pad_id', 'bos_id', 'eos_id', 'mask_id', 'sep_id'] as const;

export class ConfigError extends Error {
  constructor(msg: string) {
    super(`config.json: ${msg}; ${FIX}`);
    this.name = 'ConfigError';
  }
}

/** Validates a parsed config.json (extra fields are ignored). Throws ConfigError. */
export function parseConfig(raw: unknown): ModelConfig {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ConfigError('not a JSON object');
  const o = raw as Record<string, unknown>;
  const missing = [...POSITIVE_INTS, ...TOKEN_IDS, 'rope_theta', 'rms_eps', 'task_ids'].filter((k) => !(k in o));
  if (missing.length) throw new ConfigError(`missing field(s) ${missing.join(', ')}`);
  const int = (k: string, v: unknown, min: number): number => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min) throw new ConfigError(`${k} must be an integer >= ${min}, got ${JSON.stringify(v)}`);
    return v;
  };
  const cfg = {} as Record<string, unknown>;
  for (const k of POSITIVE_INTS) cfg[k] = int(k, o[k], 1);
  const V = cfg.vocab_size as number;
  const id = (k: string, v: unknown): number => {
    const n = int(k, v, 0);
    if (n >= V) throw new ConfigError(`${k} = ${n} is outside vocab_size ${V}`);
    return n;
  };
  for (const k of TOKEN_IDS) cfg[k] = id(k, o[k]);
  for (const k of ['rope_theta', 'rms_eps'] as const) {
    const v = o[k];
    if (typeof v !== 'number' || !(v > 0) || !Number.isFinite(v)) throw new ConfigError(`${k} must be a positive number, got ${JSON.stringify(v)}`);
    cfg[k] = v;
  }
  const t = o.task_ids;
  if (typeof t !== 'object' || t === null) throw new ConfigError('task_ids must be an object {text, table, formula}');
  const tr = t as Record<string, unknown>;
  cfg.task_ids = { text: id('task_ids.text', tr.text), table: id('task_ids.table', tr.table), formula: id('task_ids.formula', tr.formula) };
  if ((cfg.head_dim as number) % 2 !== 0) throw new ConfigError(`head_dim ${cfg.head_dim} must be even (RoPE rotates pairs)`);
  return cfg as unknown as ModelConfig;
}
