// A DecoderBackend wrapper that separates prefill time from decode time. Prefill on WebGPU only
// queues work, so after it the wrapper waits for the queue to drain (when it has the device);
// every forward reads its argmaxes back, so forward time is complete on return.
import type { DecoderBackend, PrefillOptions, PrefixInput, WindowInput, WindowOutput } from '../../src/recognizer/model.ts';

export class TimedBackend implements DecoderBackend {
  prefillMs = 0;
  forwardMs = 0;
  forwards = 0;
  /** Rows run in forward windows (Σ window lengths). */
  rows = 0;

  constructor(
    readonly inner: DecoderBackend,
    private readonly device?: GPUDevice,
  ) {}

  get kind() {
    return this.inner.kind;
  }
  get config() {
    return this.inner.config;
  }
  get capacity() {
    return this.inner.capacity;
  }

  reset(): void {
    this.prefillMs = this.forwardMs = this.forwards = this.rows = 0;
  }

  async prefill(prefixes: PrefixInput[], opts?: PrefillOptions): Promise<void> {
    const t = now();
    await this.inner.prefill(prefixes, opts);
    if (this.device && this.inner.kind !== 'cpu') await this.device.queue.onSubmittedWorkDone();
    this.prefillMs += now() - t;
  }

  async forward(windows: WindowInput[], opts?: { logits?: boolean }): Promise<WindowOutput[]> {
    const t = now();
    const out = await this.inner.forward(windows, opts);
    this.forwardMs += now() - t;
    this.forwards++;
    for (const w of windows) this.rows += w.ids.length;
    return out;
  }

  truncate(seq: number, length: number): void {
    this.inner.truncate(seq, length);
  }

  cachedLength(seq: number): number {
    return this.inner.cachedLength(seq);
  }

  dispose(): void {
    this.inner.dispose();
  }
}

export function now(): number {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}
