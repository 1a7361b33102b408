/**
 * npm run synth -- --pages N --seed S --out DIR [--split train|val|test] [--dpi 150] [--pdf]
 *                  [--degrade] [--tabs 2] [--corpus data/corpus] [--boost table=4,formula=4]
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from './args.ts';
import { loadCorpus, DEFAULT_CORPUS_DIR } from './corpus.ts';
import { parseBoost } from './content.ts';
import { generate } from './generate.ts';
import { SPLITS, type Split } from './splits.ts';

async function main() {
  const a = parseArgs(process.argv.slice(2), { pages: 'number', seed: 'number', out: 'string', split: 'string', dpi: 'number', pdf: 'boolean', degrade: 'boolean', tabs: 'number', corpus: 'string', boost: 'string', help: 'boolean' });
  if (a.help) {
    console.log('usage: npm run synth -- --pages N --seed S --out DIR [--split train|val|test] [--dpi 150] [--pdf] [--degrade] [--tabs 2] [--corpus DIR] [--boost table=4,formula=4]');
    return;
  }
  const split = (a.split as string | undefined) ?? 'train';
  if (!(split in SPLITS)) throw new Error(`--split must be one of ${Object.keys(SPLITS).join(', ')}`);
  if (!a.out) throw new Error('--out DIR is required');
  const corpus = loadCorpus((a.corpus as string | undefined) ?? DEFAULT_CORPUS_DIR);
  const summary = await generate({
    pages: (a.pages as number | undefined) ?? 10,
    seed: (a.seed as number | undefined) ?? 0,
    split: split as Split,
    out: a.out as string,
    dpi: (a.dpi as number | undefined) ?? 150,
    pdf: Boolean(a.pdf),
    degrade: Boolean(a.degrade),
    tabs: (a.tabs as number | undefined) ?? 2,
    corpus,
    boost: parseBoost(a.boost as string | undefined),
    log: (s) => console.error(s),
  });
  writeFileSync(join(a.out as string, 'summary.json'), JSON.stringify(summary, null, 1) + '\n');
  console.log(JSON.stringify(summary));
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
