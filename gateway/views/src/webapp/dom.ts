// el builds an element; text and numbers become text nodes, never HTML.
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number | boolean | undefined> = {},
  ...kids: (Node | string | number | null | undefined)[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const k of kids) {
    if (k === null || k === undefined) continue;
    e.append(typeof k === "object" ? k : String(k));
  }
  return e;
}
