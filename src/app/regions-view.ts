// Region boxes over the page view, coloured by class; each is a focusable button.
import type { RegionResult } from '../engine/types';
import type { RegionClass } from '../markdown/types';

export const CLASS_COLORS: Record<RegionClass, string> = {
  title: '#d6336c',
  section_heading: '#ae3ec9',
  text: '#3b5bdb',
  list_item: '#1098ad',
  table: '#37b24d',
  formula: '#f08c00',
  figure: '#868e96',
  caption: '#74b816',
  page_header: '#adb5bd',
  page_footer: '#adb5bd',
  page_number: '#adb5bd',
  footnote: '#5c7cfa',
};

export function drawRegions(host: HTMLElement, regions: RegionResult[], scale: number, selected: number | null, onSelect: (id: number) => void): void {
  host.replaceChildren();
  for (const r of regions) {
    const [x0, y0, x1, y1] = r.box;
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'region';
    b.dataset.cls = r.cls;
    b.dataset.id = String(r.id);
    b.setAttribute('aria-label', `${r.cls.replace('_', ' ')} region ${r.order + 1}`);
    if (selected === r.id) b.setAttribute('aria-pressed', 'true');
    b.style.cssText = `left:${x0 * scale}px;top:${y0 * scale}px;width:${(x1 - x0) * scale}px;height:${(y1 - y0) * scale}px;--c:${CLASS_COLORS[r.cls]}`;
    const tag = document.createElement('span');
    tag.className = 'tag';
    tag.textContent = `${r.order + 1} ${r.cls.replace('_', ' ')}`;
    b.append(tag);
    b.addEventListener('click', () => onSelect(r.id));
    host.append(b);
  }
}
