/** Loads the offline English corpus written by `npm run corpus` (tools/corpus/extract.py). */
import { existsSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';

export interface Corpus {
  sentences: string[];
  words: string[];
  /** short hash of the corpus files (recorded in page JSON) */
  hash: string;
}

export const DEFAULT_CORPUS_DIR = 'data/corpus';

export function loadCorpus(dir = DEFAULT_CORPUS_DIR): Corpus {
  const sp = join(dir, 'sentences.txt');
  const wp = join(dir, 'words.txt');
  if (!existsSync(sp) || !existsSync(wp)) {
    throw new Error(
      `synth: corpus not found at ${sp} / ${wp}.\n` +
        `Run \`npm run corpus\` first (extracts English sentences from Debian docs into data/corpus/), ` +
        `or pass --corpus DIR.`,
    );
  }
  const sraw = readFileSync(sp, 'utf8');
  const wraw = readFileSync(wp, 'utf8');
  const sentences = sraw.split('\n').filter((l) => l.length > 0);
  const words = wraw.split('\n').filter((l) => l.length > 0);
  if (sentences.length < 20 || words.length < 20) throw new Error(`synth: corpus at ${dir} is too small (${sentences.length} sentences, ${words.length} words)`);
  const hash = createHash('sha256').update(sraw).update(wraw).digest('hex').slice(0, 12);
  return { sentences, words, hash };
}
