// Markdown preview: marked (GFM) → DOMPurify → KaTeX for `$$…$$` and `$…$`.
// Model output is untrusted: raw HTML (tables) passes through DOMPurify; math is lifted out before
// parsing and rendered by KaTeX (trust: false) into text-node placeholders *after* sanitizing, so
// nothing the model writes can become an attribute, a script or an event handler.
import DOMPurify from 'dompurify';
import katex from 'katex';
import 'katex/dist/katex.min.css';
import { marked } from 'marked';

const PH = (i: number) => `\u2063MATH${i}\u2063`;
const PH_RE = /\u2063MATH(\d+)\u2063/g;
const PH_MARK = '\u2063MATH';

interface MathPiece {
  tex: string;
  display: boolean;
}

/** Lifts display ($$…$$) and inline ($…$) math out of Markdown, leaving placeholders. */
export function liftMath(md: string): { text: string; math: MathPiece[] } {
  const math: MathPiece[] = [];
  let text = md.replace(/\$\$([\s\S]+?)\$\$/g, (_m, tex: string) => {
    math.push({ tex: tex.trim(), display: true });
    return PH(math.length - 1);
  });
  text = text.replace(/(^|[^\\$])\$([^\s$](?:[^$\n]*?[^\s\\$])?)\$(?!\d)/g, (_m, pre: string, tex: string) => {
    math.push({ tex, display: false });
    return pre + PH(math.length - 1);
  });
  return { text, math };
}

/**
 * Renders `md` into `target`. Images are shown only where `resolveImage` maps their source (a figure
 * crop's file name) to a local object URL; any other image, one the model wrote included, becomes
 * its alt text, so the preview never fetches anything. `id`/`name` attributes are dropped so model
 * HTML cannot shadow the app's own elements.
 */
export function renderMarkdown(md: string, target: HTMLElement, resolveImage: (src: string) => string | undefined = () => undefined): void {
  const { text, math } = liftMath(md);
  const html = marked.parse(text, { gfm: true, async: false }) as string;
  const clean = DOMPurify.sanitize(html, { USE_PROFILES: { html: true }, FORBID_TAGS: ['style', 'form', 'input', 'picture', 'source', 'video', 'audio', 'track'], FORBID_ATTR: ['id', 'name', 'style', 'background', 'poster', 'srcset'] });
  // a <template> parses inertly: no image starts loading before its source is rewritten
  const tpl = document.createElement('template');
  tpl.innerHTML = clean;
  for (const img of tpl.content.querySelectorAll('img')) {
    const url = resolveImage(img.getAttribute('src') ?? '');
    if (url) {
      img.setAttribute('src', url);
      img.removeAttribute('srcset');
      img.classList.add('figure');
    } else {
      const alt = document.createElement('span');
      alt.className = 'image-missing';
      alt.textContent = `[${img.getAttribute('alt') || 'image'}]`;
      img.replaceWith(alt);
    }
  }
  target.replaceChildren(tpl.content);
  const walker = document.createTreeWalker(target, NodeFilter.SHOW_TEXT);
  const nodes: Text[] = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) if ((n as Text).data.includes(PH_MARK)) nodes.push(n as Text);
  for (const node of nodes) {
    const frag = document.createDocumentFragment();
    let last = 0;
    const data = node.data;
    for (const m of data.matchAll(PH_RE)) {
      frag.append(data.slice(last, m.index));
      const piece = math[Number(m[1])];
      const span = document.createElement(piece?.display ? 'div' : 'span');
      span.className = piece?.display ? 'math-display' : 'math-inline';
      if (piece) katex.render(piece.tex, span, { displayMode: piece.display, throwOnError: false, trust: false, strict: 'ignore', output: 'htmlAndMathml' });
      frag.append(span);
      last = (m.index ?? 0) + m[0].length;
    }
    frag.append(data.slice(last));
    node.replaceWith(frag);
  }
}
