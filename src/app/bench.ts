// Entry of bench.html: the benchmark page driven by `npm run bench` (bench/run.ts). The code lives
// in bench/browser/main.ts; this file only pulls it into the Vite multi-page build.
import '../../bench/browser/main.ts';
