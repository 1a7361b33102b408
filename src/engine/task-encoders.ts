// Task encoders (default.json `visionTasks`): what their manifest entries say. No imports, so
// Node tooling outside Vite (Playwright specs) can read it too.

/**
 * Input scale of a task encoder (vision.ts): the `input_scale` of the recognizer manifest's
 * `vision_tasks` entry whose file is `path`, 1 when no entry names it (an encoder of the base
 * backbone's shape). A present but invalid value is an error, not a silent 1.
 */
export function taskEncoderScale(manifest: Record<string, unknown>, rec: string, path: string): number {
  const entries = (manifest.vision_tasks ?? {}) as Record<string, { file?: unknown; input_scale?: unknown }>;
  for (const e of Object.values(entries)) {
    if (!e || `${rec}/${String(e.file)}` !== path) continue;
    if (e.input_scale === undefined) return 1;
    const s = e.input_scale;
    if (typeof s !== 'number' || !Number.isInteger(s) || s < 1 || s > 4) {
      throw new Error(`${rec}/manifest.json: vision_tasks entry for ${path} has input_scale ${JSON.stringify(s)} (an integer 1..4)`);
    }
    return s;
  }
  return 1;
}
