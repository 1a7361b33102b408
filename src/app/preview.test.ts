import { describe, expect, it } from 'vitest';
import { liftMath } from './preview';

describe('liftMath', () => {
  it('lifts display and inline math, keeps prices and escaped dollars', () => {
    const { text, math } = liftMath('Energy $E=mc^2$ costs $5 and \\$3.\n\n$$\n\\frac{a}{b}\n$$');
    expect(math).toEqual([
      { tex: '\\frac{a}{b}', display: true },
      { tex: 'E=mc^2', display: false },
    ]);
    expect(text).not.toContain('mc^2');
    expect(text).toContain('$5');
    expect(text).toContain('\\$3');
  });
});
