import { describe, expect, it } from 'vitest';
import { buildPrefix, createDecoder, loadModel } from './model.ts';
import { encodeSafetensors } from './safetensors.ts';
import { tinyConfig, tinyTensors, tinyWeights } from '../reference/tiny-model.ts';

describe('model loader', () => {
  const c = tinyConfig();
  const w = tinyWeights(c, 1);

  it('loads model.safetensors + config.json into decoder weights', () => {
    const { weights, config } = loadModel(encodeSafetensors(tinyTensors(c, w)), JSON.stringify(c));
    expect(config.n_layers).toBe(2);
    expect(Array.from(weights.layers[1].w_down)).toEqual(Array.from(w.layers[1].w_down));
    expect(Array.from(weights.lm_head)).toEqual(Array.from(w.lm_head));
  });

  it('names the missing or misshapen tensor', () => {
    const t = tinyTensors(c, w);
    const { ['layers.1.attn.wk.weight']: _, ...missing } = t;
    expect(() => loadModel(encodeSafetensors(missing), c)).toThrow(/lacks layers\.1\.attn\.wk\.weight; re-run training\/export.py/);
    const bad = { ...t, 'norm.weight': { shape: [23], data: new Float32Array(23) } };
    expect(() => loadModel(encodeSafetensors(bad), c)).toThrow(/norm\.weight has shape \[23\] but config\.json implies \[24\]/);
  });

  it('builds the prefix layout [strip0][sep][strip1]…[prompt]', () => {
    const p = buildPrefix(new Float32Array(5 * c.vision_dim), [2, 3], [c.task_ids.text], c);
    expect(Array.from(p.ids)).toEqual([-1, -1, c.sep_id, -1, -1, -1, c.task_ids.text]);
    expect(() => buildPrefix(new Float32Array(4 * c.vision_dim), [2, 3], [6], c)).toThrow(/vision has/);
  });

  it('createDecoder falls back to the CPU reference', async () => {
    const d = await createDecoder(w, c, { prefer: 'cpu' });
    expect(d.kind).toBe('cpu');
  });
});
