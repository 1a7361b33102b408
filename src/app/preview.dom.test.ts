// @vitest-environment jsdom
// The preview in a DOM: sanitizing, math placeholders across neighbouring text nodes, figure images.
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from './preview';

function render(md: string, resolve?: (src: string) => string | undefined): HTMLElement {
  const target = document.createElement('div');
  renderMarkdown(md, target, resolve);
  return target;
}

describe('renderMarkdown', () => {
  it('renders math in every cell, neighbours included (no raw placeholders left)', () => {
    const t = render('<table><tr><td>$a$</td><td>$b$</td><td>$c$</td></tr></table>\n\n**$x$** $y$ and $$\nz^2\n$$');
    expect(t.querySelectorAll('td .math-inline .katex')).toHaveLength(3);
    expect(t.querySelectorAll('.math-inline')).toHaveLength(5);
    expect(t.querySelectorAll('.math-display')).toHaveLength(1);
    expect(t.textContent).not.toContain('\u2063');
    expect(t.textContent).not.toMatch(/MATH\d/);
  });

  it('drops scripts, handlers and the ids/names model HTML could use to shadow app elements', () => {
    const t = render('<table id="md-text" onclick="alert(1)"><tr><td name="x">1<script>alert(2)</script></td></tr></table>');
    expect(t.querySelector('table')).not.toBeNull();
    expect(t.querySelector('script')).toBeNull();
    expect(t.querySelector('[onclick],[id],[name]')).toBeNull();
    expect(t.querySelector('td')!.textContent).toBe('1');
  });

  it('shows figure crops through the resolver and never loads any other image', () => {
    const t = render('![Figure](page1-figure2.png)\n\n![logo](https://example.com/x.png) <img src="/etc/y.png">', (src) =>
      src === 'page1-figure2.png' ? 'blob:local/abc' : undefined,
    );
    const imgs = t.querySelectorAll('img');
    expect(imgs).toHaveLength(1);
    expect(imgs[0].getAttribute('src')).toBe('blob:local/abc');
    expect([...t.querySelectorAll('.image-missing')].map((e) => e.textContent)).toEqual(['[logo]', '[image]']);
  });

  it('keeps no other element or attribute that could load something', () => {
    const t = render(
      '<table background="/b.png" style="background:url(/c.png)"><tr><td><video poster="/p.png" src="/v.mp4"></video><audio src="/a.mp3"></audio>' +
        '<picture><source srcset="/s.png"><img src="page1-figure1.png" srcset="/t.png 2x"></picture></td></tr></table>',
      (src) => (src === 'page1-figure1.png' ? 'blob:local/f' : undefined),
    );
    expect(t.querySelector('video,audio,source,picture,[background],[style],[poster],[srcset]')).toBeNull();
    expect([...t.querySelectorAll('img')].map((i) => i.getAttribute('src'))).toEqual(['blob:local/f']);
  });
});
