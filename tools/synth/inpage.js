// In-page half of the synthetic page renderer (plain JS: it is loaded by shell.html, never bundled).
/* eslint-disable */
(function () {
  const raf2 = () => new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res)));

  /** load every KaTeX @font-face once so later pages never wait for a web font */
  window.synthWarm = async function () {
    await Promise.all([...document.fonts].map((f) => f.load().catch(() => null)));
    await document.fonts.ready;
    return [...document.fonts].filter((f) => f.status === 'loaded').length;
  };

  /** a family is real when its text width does not depend on the generic fallback */
  window.synthCheckFonts = function (families) {
    const ctx = document.createElement('canvas').getContext('2d');
    const sample = 'The quick brown fox jumps over the lazy dog 0123456789 WMQ@&';
    const out = {};
    for (const fam of families) {
      const w = (fallback) => {
        ctx.font = `16px '${fam}', ${fallback}`;
        return ctx.measureText(sample).width;
      };
      const a = w('monospace'), b = w('serif'), c = w('sans-serif');
      out[fam] = { ok: Math.abs(a - b) < 0.01 && Math.abs(a - c) < 0.01, width: a };
    }
    return out;
  };

  function rectOf(el, o) {
    const r = el.getBoundingClientRect();
    return [r.left - o.left, r.top - o.top, r.right - o.left, r.bottom - o.top];
  }

  function union(a, b) {
    return a ? [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[2], b[2]), Math.max(a[3], b[3])] : b.slice();
  }

  function textLines(el, o) {
    const lines = [];
    let cur = null;
    let prevRight = -1e9, prevTop = -1e9;
    for (const s of el.querySelectorAll('.w')) {
      const b = rectOf(s, o);
      if (b[2] - b[0] <= 0) continue;
      const t = s.dataset.t !== undefined ? s.dataset.t : s.textContent;
      const newLine = !cur || b[0] < prevRight - 0.5 || b[1] >= cur.box[3] - 1;
      if (newLine) {
        cur = { box: b, words: [t] };
        lines.push(cur);
      } else {
        cur.box = union(cur.box, b);
        cur.words.push(t);
      }
      prevRight = b[2];
      prevTop = b[1];
    }
    return lines.map((l) => ({ box: l.box, text: l.words.join(' ') }));
  }

  function outerH(el) {
    const r = el.getBoundingClientRect();
    let m = 0;
    const first = el.firstElementChild, last = el.lastElementChild;
    if (first) m += parseFloat(getComputedStyle(first).marginTop) || 0;
    if (last) m += parseFloat(getComputedStyle(last).marginBottom) || 0;
    const cs = getComputedStyle(el);
    m += (parseFloat(cs.marginTop) || 0) + (parseFloat(cs.marginBottom) || 0);
    return r.height + m;
  }

  function prune(pg) {
    const cols = pg.querySelector('.cols');
    if (!cols) return 0;
    const cs = getComputedStyle(cols);
    const n = parseInt(cs.columnCount) || 1;
    const gap = parseFloat(cs.columnGap) || 0;
    let removed = 0;
    let cr = cols.getBoundingClientRect();
    const colW = (cr.width - gap * (n - 1)) / n;
    const lastLeft = cr.left + (n - 1) * (colW + gap);
    // 1. content wider than a column (wide tables/formulas/figures)
    for (const blk of [...cols.children]) {
      for (const el of blk.querySelectorAll('table, .eq, svg, .R')) {
        if (el.getBoundingClientRect().width > colW + 0.5) {
          blk.remove();
          removed++;
          break;
        }
      }
    }
    // 1b. text paragraphs are 1-8 lines (recognizer target lengths): drop longer ones
    for (const el of cols.querySelectorAll('.pb > .text')) {
      const lh = parseFloat(getComputedStyle(el).lineHeight) || 1;
      if (el.getBoundingClientRect().height > lh * 8.5) {
        el.parentElement.remove();
        removed++;
      }
    }
    // 2. overflow: keep blocks in order; after the first one that does not fit, keep only later
    //    blocks that fit into the space left at the end of the last column (reading order = DOM order)
    for (let iter = 0; iter < 20; iter++) {
      cr = cols.getBoundingClientRect();
      const blocks = [...cols.children];
      let bad = -1;
      for (let i = 0; i < blocks.length; i++) {
        const r = blocks[i].getBoundingClientRect();
        if (r.bottom > cr.bottom + 0.5 || r.right > cr.right + 0.5 || r.height === 0) {
          bad = i;
          break;
        }
      }
      if (bad < 0) break;
      let bottom = cr.top;
      for (let i = 0; i < bad; i++) {
        const r = blocks[i].getBoundingClientRect();
        if (r.left >= lastLeft - 1) bottom = Math.max(bottom, r.bottom);
      }
      let free = cr.bottom - bottom - 2;
      const heights = blocks.map((b, i) => (i > bad ? outerH(b) : 0));
      blocks[bad].remove();
      removed++;
      for (let j = bad + 1; j < blocks.length; j++) {
        if (heights[j] <= free) free -= heights[j];
        else {
          blocks[j].remove();
          removed++;
        }
      }
    }
    // 3. a heading must be followed by content in the same column
    for (let iter = 0; iter < 10; iter++) {
      const blocks = [...cols.children];
      const hs = blocks.filter((b, i) => {
        if (!b.classList.contains('hb')) return false;
        const nx = blocks[i + 1];
        if (!nx) return true;
        return nx.getBoundingClientRect().left > b.getBoundingClientRect().left + 1;
      });
      if (hs.length === 0) break;
      hs[0].remove();
      removed++;
    }
    // 4. safety: anything still outside is dropped with everything after it
    cr = cols.getBoundingClientRect();
    const blocks = [...cols.children];
    for (let i = 0; i < blocks.length; i++) {
      const r = blocks[i].getBoundingClientRect();
      if (r.bottom > cr.bottom + 0.5 || r.right > cr.right + 0.5) {
        for (let j = i; j < blocks.length; j++) blocks[j].remove();
        removed += blocks.length - i;
        break;
      }
    }
    return removed;
  }

  /** set page HTML, lay out, prune overflow, measure all regions (CSS px relative to #page) */
  window.synthRender = async function (html) {
    const root = document.getElementById('root');
    root.innerHTML = html;
    await document.fonts.ready;
    const pg = document.getElementById('page');
    const removed = prune(pg);
    const o = pg.getBoundingClientRect();
    const regions = [];
    for (const el of pg.querySelectorAll('.R')) {
      const cls = el.dataset.cls;
      const k = parseInt(el.dataset.k);
      let box, lines = [];
      if (cls === 'table') {
        const t = el.querySelector('table');
        box = rectOf(t, o);
        for (const tr of t.querySelectorAll('tr')) {
          // row box = union of its cells (a tr's own box ignores rowspan overflow)
          let rb = null;
          for (const td of tr.children) rb = union(rb, rectOf(td, o));
          lines.push({ box: rb || rectOf(tr, o), text: null });
        }
      } else if (cls === 'formula') {
        box = rectOf(el.querySelector('.katex') || el, o);
      } else if (cls === 'figure') {
        box = rectOf(el.querySelector('svg') || el, o);
      } else {
        lines = textLines(el, o);
        box = null;
        for (const l of lines) box = union(box, l.box);
        if (!box) continue;
      }
      regions.push({ k, cls, box, lines });
    }
    await raf2();
    return { regions, removed, width: o.width, height: o.height };
  };

  // ---- scan-like degradation: operate on a PNG (base64), return PNG (base64)
  function mulberry32(a) {
    return function () {
      a |= 0; a = (a + 0x6d2b79f5) | 0;
      let t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  async function toB64(blob) {
    const buf = new Uint8Array(await blob.arrayBuffer());
    let s = '';
    for (let i = 0; i < buf.length; i += 0x8000) s += String.fromCharCode.apply(null, buf.subarray(i, i + 0x8000));
    return btoa(s);
  }
  window.synthDegrade = async function (b64, p) {
    const bin = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const bmp = await createImageBitmap(new Blob([bin], { type: 'image/png' }));
    const W = bmp.width, H = bmp.height;
    const cv = new OffscreenCanvas(W, H);
    const ctx = cv.getContext('2d', { willReadFrequently: true });
    ctx.fillStyle = p.paper || '#fff';
    ctx.fillRect(0, 0, W, H);
    ctx.save();
    ctx.translate(W / 2, H / 2);
    ctx.rotate((p.angleDeg * Math.PI) / 180);
    ctx.translate(-W / 2, -H / 2);
    if (p.blur > 0) ctx.filter = `blur(${p.blur}px)`;
    ctx.drawImage(bmp, 0, 0);
    ctx.restore();
    if (p.noise > 0) {
      const img = ctx.getImageData(0, 0, W, H);
      const d = img.data;
      const rnd = mulberry32(p.seed >>> 0);
      for (let i = 0; i < d.length; i += 4) {
        // approx. gaussian from 3 uniforms, same offset on R,G,B (sensor noise on gray paper)
        const n = (rnd() + rnd() + rnd() - 1.5) * 2 * p.noise;
        d[i] = d[i] + n; d[i + 1] = d[i + 1] + n; d[i + 2] = d[i + 2] + n;
      }
      ctx.putImageData(img, 0, 0);
    }
    let out = cv;
    if (p.jpeg > 0) {
      const jb = await cv.convertToBlob({ type: 'image/jpeg', quality: p.jpeg });
      const jbmp = await createImageBitmap(jb);
      const cv2 = new OffscreenCanvas(W, H);
      cv2.getContext('2d').drawImage(jbmp, 0, 0);
      out = cv2;
    }
    return toB64(await out.convertToBlob({ type: 'image/png' }));
  };
})();
