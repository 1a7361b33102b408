// In-browser kernel self-test: the same seeded parity cases the Node tests run, executed on this
// browser's WebGPU adapter. The e2e suite opens this page in Chromium; a user can open it to check
// their GPU. The result is also published on window.__selftest for automation.
import { runInkParity } from '../gpu/kernels/inkbbox.cases';

interface SelfTestReport {
  adapter: string | null;
  kernels: Record<string, { ok: boolean; cases: number; failures: string[] }>;
  ok: boolean;
  error?: string;
}

async function run(): Promise<SelfTestReport> {
  const gpu = (navigator as Navigator & { gpu?: GPU }).gpu;
  const adapter = gpu ? await gpu.requestAdapter() : null;
  if (!adapter) return { adapter: null, kernels: {}, ok: false, error: 'no WebGPU adapter' };
  const device = await adapter.requestDevice();
  const report: SelfTestReport = { adapter: `${adapter.info.vendor}/${adapter.info.architecture}`, kernels: {}, ok: true };
  const ink = await runInkParity(device);
  report.kernels.inkbbox = { ok: ink.every((r) => r.ok), cases: ink.length, failures: ink.filter((r) => !r.ok).map((r) => `${r.name}: gpu ${JSON.stringify(r.gpu)} cpu ${JSON.stringify(r.cpu)}`) };
  report.ok = Object.values(report.kernels).every((k) => k.ok);
  return report;
}

run()
  .catch((e: unknown): SelfTestReport => ({ adapter: null, kernels: {}, ok: false, error: String(e) }))
  .then((r) => {
    (window as unknown as { __selftest: SelfTestReport }).__selftest = r;
    document.getElementById('result')!.textContent = JSON.stringify(r, null, 2);
    document.body.dataset.done = 'true';
  });
