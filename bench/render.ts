/** Re-renders a REPORT.md from a report.json: node --import tsx bench/render.ts [bench/report.json] [bench/REPORT.md] */
import { readFileSync, writeFileSync } from 'node:fs';
import { renderMarkdown, type Report } from './report.ts';

const src = process.argv[2] ?? 'bench/report.json';
const dst = process.argv[3] ?? src.replace(/report\.json$/, 'REPORT.md');
writeFileSync(dst, renderMarkdown(JSON.parse(readFileSync(src, 'utf8')) as Report));
console.log(`wrote ${dst}`);
