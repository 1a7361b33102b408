// The typed protocol between the page and the OCR worker (comlink). The engine behind it is
// DOM-free and also runs in-thread (Node tests, CLI).
import type { DecodeSettings, LoadProgress, PageEvent, PageResult } from '../engine/types';
import type { InkBox } from '../reference/inkbbox';

export interface EngineInfo {
  /** 'webgpu' when the decoder runs on WGSL, else 'cpu'. */
  kind: 'webgpu' | 'cpu';
  /** Human-readable backend, e.g. the WebGPU adapter description. */
  adapter: string;
  /** Recognizer model id and its manifest metrics; null when the models failed to load. */
  model: string | null;
  layout: string | null;
  metrics?: Record<string, unknown>;
  /** Why the models are unavailable (the app still renders and inspects documents). */
  error?: string;
}

export interface BitmapDetail {
  render(box: [number, number, number, number], scale: number): Promise<ImageBitmap>;
}

export interface PageAnalysis {
  pageIndex: number;
  width: number;
  height: number;
  contentBox: InkBox | null;
}

export interface OcrWorkerApi {
  init(onProgress?: (p: LoadProgress) => void): Promise<EngineInfo>;
  /** Page size and ink content box (WGSL inkbbox kernel, CPU twin without WebGPU). Needs no model. */
  analyzePage(pageIndex: number, bitmap: ImageBitmap): Promise<PageAnalysis & { backend: 'webgpu' | 'cpu'; ms: number }>;
  /**
   * Reads one page. Events stream live through `onEvent`. Throws CancelledError on cancel().
   * `detail` (PDF pages): renders a page rectangle sharper, for task encoders that read at a
   * higher resolution (engine PageDetail; `box` in pixels of `bitmap`, result `scale` times larger).
   * `cancelFlag` (a SharedArrayBuffer-backed Int32Array, where the page is cross-origin isolated):
   * the caller stores 1 in it to cancel. The worker reads it at every round without waiting for a
   * message, which a worker busy in a synchronous decode (the CPU decoder) would only see at the end.
   */
  recognizePage(pageIndex: number, bitmap: ImageBitmap, settings: DecodeSettings, onEvent?: (e: PageEvent) => void, detail?: BitmapDetail, cancelFlag?: Int32Array): Promise<PageResult>;
  /** Stops the running recognizePage at its next round boundary (once the worker takes the message; see `cancelFlag`). */
  cancel(): void;
}
