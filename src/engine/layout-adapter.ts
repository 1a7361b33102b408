// Builds the engine's LayoutModel from the shipped layout detector (public/models/<layout>/:
// layout.onnx + config.json), run on the same onnxruntime module as the vision encoder.
import type { AssetFetcher, LayoutModel, ModelIndex } from './engine';
import type { OrtModuleLike } from '../recognizer/vision';
import { loadLayoutDetector } from '../layout/detector';

export async function makeLayoutModel(fetcher: AssetFetcher, ort: OrtModuleLike, index: ModelIndex, sessionOptions?: unknown): Promise<LayoutModel> {
  const det = await loadLayoutDetector((p) => fetcher.fetch(p), ort, index.layout, sessionOptions);
  return {
    name: `${index.layout} (${det.config.input_w}×${det.config.input_h})`,
    detect: (page) => det.detect(page),
    release: () => det.release(),
  };
}
