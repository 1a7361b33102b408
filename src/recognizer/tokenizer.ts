// Tokenizer twin of training/gocr/tokenizer.py: loads the same vocab.json (no DOM, no I/O here).
// Rules (docs/ARCHITECTURE.md): ids 0..8 are the specials in a fixed order; multi-character tokens
// (HTML table pieces, LaTeX commands) match longest-first; everything else is one Unicode code
// point; unknown code points become <unk>. Specials are never produced from text.
// decode() skips specials except <unk>, which renders as U+FFFD.

export const SPECIALS = [
  '<pad>', '<bos>', '<eos>', '<mask>', '<unk>', '<sep>',
  '<task_text>', '<task_table>', '<task_formula>',
] as const;

export type Task = 'text' | 'table' | 'formula';

export interface VocabJson {
  tokens: string[];
  specials: Record<string, number>;
}

export class Tokenizer {
  readonly tokens: string[];
  readonly nSpecials = SPECIALS.length;
  readonly padId = 0;
  readonly bosId = 1;
  readonly eosId = 2;
  readonly maskId = 3;
  readonly unkId = 4;
  readonly sepId = 5;
  readonly taskIds: Record<Task, number> = { text: 6, table: 7, formula: 8 };
  private readonly idOf = new Map<string, number>();
  // multi-code-point tokens keyed by their first code point, longest first
  private readonly multi = new Map<string, { tok: string; id: number }[]>();

  constructor(vocab: VocabJson) {
    const tokens = vocab.tokens;
    SPECIALS.forEach((s, i) => {
      if (tokens[i] !== s) {
        throw new Error(`vocab.json: token ${i} must be ${s} (got ${tokens[i]}); re-run training/build_vocab.py and the export`);
      }
    });
    this.tokens = tokens.slice();
    for (let i = this.nSpecials; i < tokens.length; i++) {
      const t = tokens[i];
      if (this.idOf.has(t)) throw new Error(`vocab.json: duplicate token ${JSON.stringify(t)}`);
      this.idOf.set(t, i);
      const cps = Array.from(t);
      if (cps.length > 1) {
        const list = this.multi.get(cps[0]) ?? [];
        list.push({ tok: t, id: i });
        this.multi.set(cps[0], list);
      }
    }
    for (const list of this.multi.values()) {
      list.sort((a, b) => Array.from(b.tok).length - Array.from(a.tok).length || a.id - b.id);
    }
  }

  get vocabSize(): number {
    return this.tokens.length;
  }

  encode(text: string): number[] {
    const ids: number[] = [];
    let i = 0; // UTF-16 index
    while (i < text.length) {
      const cp = text.codePointAt(i)!;
      const c = String.fromCodePoint(cp);
      let matched = false;
      const cands = this.multi.get(c);
      if (cands) {
        for (const { tok, id } of cands) {
          if (text.startsWith(tok, i)) {
            ids.push(id);
            i += tok.length;
            matched = true;
            break;
          }
        }
      }
      if (!matched) {
        ids.push(this.idOf.get(c) ?? this.unkId);
        i += c.length;
      }
    }
    return ids;
  }

  decode(ids: ArrayLike<number>): string {
    let out = '';
    for (let k = 0; k < ids.length; k++) {
      const i = ids[k];
      if (i === this.unkId) out += '\ufffd';
      else if (i >= this.nSpecials && i < this.tokens.length) out += this.tokens[i];
    }
    return out;
  }

  tokenText(id: number): string {
    return this.tokens[id] ?? '';
  }
}
