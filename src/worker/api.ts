// The typed protocol between the page and the OCR worker (comlink). The same interface is
// implemented in-thread for Node tests and the CLI, so nothing here may touch the DOM.
import type { InkBox } from '../reference/inkbbox';

export interface BackendInfo {
  /** 'webgpu' when a WebGPU adapter was found, else 'cpu'. */
  kind: 'webgpu' | 'cpu';
  /** Human-readable adapter description, e.g. "google/swiftshader". */
  adapter: string;
}

export interface PageAnalysis {
  pageIndex: number;
  width: number;
  height: number;
  /** Bounding box of the page's ink (pixels darker than the threshold); null for a blank page. */
  contentBox: InkBox | null;
  backend: BackendInfo['kind'];
  ms: number;
}

export interface OcrWorkerApi {
  init(): Promise<BackendInfo>;
  analyzePage(pageIndex: number, bitmap: ImageBitmap): Promise<PageAnalysis>;
}
