// Results the engine hands to the UI, the CLI and the benchmarks. Plain data (structured-clone
// safe) so it crosses the worker boundary unchanged.
import type { RoundTrace, Method, ForwardCounts } from '../decoding/trace';
import type { RegionClass } from '../markdown/types';
import type { Image } from '../recognizer/image';

export type Box = [number, number, number, number];

export interface DecodeSettings {
  method: Method;
  /** Self-spec: masks per draft window (B). Diffusion: block size. */
  blockSize: number;
  /** Direct diffusion: confidence threshold. */
  threshold: number;
  /** Cap on generated tokens per decode unit (a text line, a table, a formula). */
  maxNewTokens: number;
}

export const DEFAULT_SETTINGS: DecodeSettings = { method: 'selfspec', blockSize: 32, threshold: 0.9, maxNewTokens: 768 };

export interface TokenView {
  /** Text of the token as it appears in the output. */
  text: string;
  /** Round that committed it. */
  round: number;
  /** True for the token the verifier supplied at the end of its round (correction or bonus). */
  verifierToken: boolean;
  /** Decode unit within the region (a text region is read line by line; 0 otherwise). */
  unit?: number;
}

export interface RoundView extends Omit<RoundTrace, 'drafted' | 'committed' | 'rejected' | 'a0'> {
  /** Decode unit (line) of the region this round belongs to. */
  unit?: number;
  drafted: string[];
  committed: string[];
  a0: string | null;
  rejected: { index: number; draft: string; replacement: string } | null;
}

/** Print resolution pages are rendered at for the engine (app and CLI): what the models were trained on. */
export const OCR_DPI = 150;

export interface RegionResult {
  id: number;
  cls: RegionClass;
  box: Box;
  score: number;
  order: number;
  task: 'text' | 'table' | 'formula' | null;
  /** Recognized content (text: its lines joined by spaces; table HTML; LaTeX); '' for figures. */
  text: string;
  tokens: TokenView[];
  rounds: RoundView[];
  forwards: ForwardCounts;
  tpf: number;
  strips: number;
  /**
   * Resolution the region was read at, relative to the page image: 1 = cropped from the page,
   * s > 1 = re-rendered at s times the page's dpi for a task encoder of input scale s (PDF pages).
   */
  detail?: number;
  stop: string;
}

export interface PageStats {
  regions: number;
  tokens: number;
  rounds: number;
  forwards: number;
  tpf: number;
  layoutMs: number;
  visionMs: number;
  decodeMs: number;
  totalMs: number;
  tokPerS: number;
}

/** A figure region's pixels, named as the page Markdown links it (`![Figure](name)`). */
export interface FigureImage {
  name: string;
  regionId: number;
  image: Image;
}

/** File name of a figure crop: page and region numbers from 1. */
export function figureName(pageIndex: number, regionId: number): string {
  return `page${pageIndex + 1}-figure${regionId + 1}.png`;
}

export interface PageResult {
  pageIndex: number;
  width: number;
  height: number;
  regions: RegionResult[];
  markdown: string;
  /** Crops of the page's figure regions, in region order. */
  figures: FigureImage[];
  stats: PageStats;
  method: Method;
  backend: string;
}

export interface LoadProgress {
  file: string;
  loaded: number;
  total: number;
}

export type PageEvent =
  | { type: 'layout'; pageIndex: number; regions: Array<Pick<RegionResult, 'id' | 'cls' | 'box' | 'score' | 'order' | 'task'>> }
  | { type: 'round'; pageIndex: number; regionId: number; round: RoundView; text: string }
  | { type: 'region-done'; pageIndex: number; region: RegionResult };
