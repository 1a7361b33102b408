// Two tiny DOM helpers; the app has no framework.
export function $(selector: string): HTMLElement {
  const e = document.querySelector(selector);
  if (!e) throw new Error(`missing element ${selector}`);
  return e as HTMLElement;
}

export function el(tag: string, attrs: Record<string, string> = {}, text?: string): HTMLElement {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}
