import { describe, expect, it } from 'vitest';
import { parseConfig } from './config.ts';
import { tinyConfig } from '../reference/tiny-model.ts';

describe('config.json validation', () => {
  it('accepts a valid config and ignores extra fields', () => {
    const c = parseConfig({ ...tinyConfig(), note: 'x' });
    expect(c.d_model).toBe(24);
    expect(c.task_ids.table).toBe(7);
  });
  it('says what is wrong and how to fix it', () => {
    const { d_model: _, ...noD } = tinyConfig();
    expect(() => parseConfig(noD)).toThrow(/missing field\(s\) d_model.*re-run training\/export.py/);
    expect(() => parseConfig({ ...tinyConfig(), eos_id: 99 })).toThrow(/eos_id = 99 is outside vocab_size 37/);
    expect(() => parseConfig({ ...tinyConfig(), head_dim: 7 })).toThrow(/head_dim 7 must be even/);
    expect(() => parseConfig({ ...tinyConfig(), n_layers: 1.5 })).toThrow(/n_layers must be an integer/);
    expect(() => parseConfig({ ...tinyConfig(), task_ids: { text: 6 } })).toThrow(/task_ids.table/);
    expect(() => parseConfig([])).toThrow(/not a JSON object/);
  });
});
