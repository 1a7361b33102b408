/**
 * Read crops with the FULL PP-OCRv4 recognizer, strip by strip (diagnostic for the splitter and
 * the strip preprocessing: if PP-OCR reads the strips, the frozen features carry the text).
 *   node --import tsx tools/vision/ppocr_read.ts <png>... [--task text] [--padY 0.2]
 */
import * as ort from 'onnxruntime-node';
import { readPng } from './png.ts';
import { splitStrips, type Task } from '../../src/recognizer/strips.ts';
import { crop } from '../../src/recognizer/image.ts';
import { prepareStrip } from '../../src/recognizer/vision.ts';
import { ctcGreedy, loadPpocrLabels, PPOCR_REC } from './ctc.ts';

const files: string[] = [];
let task: Task = 'text';
let padY = 0.2;
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--task') task = argv[++i] as Task;
  else if (argv[i] === '--padY') padY = Number(argv[++i]);
  else files.push(argv[i]);
}
const full = await ort.InferenceSession.create(PPOCR_REC, { intraOpNumThreads: 2, interOpNumThreads: 1 });
const labels = loadPpocrLabels();
for (const f of files) {
  const im = readPng(f);
  console.log(`${f} (${im.width}x${im.height})`);
  for (const b of splitStrips(im, task, { padYFrac: padY })) {
    const p = prepareStrip(crop(im, b));
    const y = (await full.run({ x: new ort.Tensor('float32', p.data, [1, 3, 48, p.width]) }))[full.outputNames[0]];
    console.log(`  ${JSON.stringify(b)} W=${p.width}: ${ctcGreedy(y.data as Float32Array, y.dims[1], y.dims[2], labels)}`);
  }
}
