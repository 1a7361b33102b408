// Builds the engine's LayoutModel from the shipped layout detector (public/models/<layout>/).
import type { AssetFetcher, LayoutModel, ModelIndex } from './engine';
import type { OrtModuleLike } from '../recognizer/vision';

export async function makeLayoutModel(fetcher: AssetFetcher, _ort: OrtModuleLike, index: ModelIndex): Promise<LayoutModel> {
  // Fails loudly until the detector is exported (issue 6); the engine reports the message.
  await fetcher.fetch(`${index.layout}/config.json`);
  throw new Error(`layout model ${index.layout} is not wired yet`);
}
