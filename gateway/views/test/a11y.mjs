// What the views' and the web app's browser tests share to judge
// accessibility: axe-core (the accessibility engine) run in a page or a
// view's frame over WCAG 2.0-2.2 A and AA, and the contrast of named text
// measured from the colours the browser computed.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const axeSource = await readFile(require.resolve("axe-core/axe.min.js"), "utf8");

export const axeTags = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"];

// axe runs every rule of those tags over the whole document: none is
// disabled and no element excluded. Returns each violation with its rule,
// impact and the elements it names, labelled with where it was found.
export async function axe(frame, where) {
  if (!(await frame.evaluate(() => typeof window.axe === "object"))) await frame.evaluate(axeSource);
  const found = await frame.evaluate(async (tags) => {
    const r = await window.axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] });
    return r.violations.map((v) => ({ rule: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(" ")), help: v.help }));
  }, axeTags);
  return found.map((v) => ({ ...v, where }));
}

// contrasts measures, for each name's selector, the contrast ratio of every
// matched element's text colour with what lies behind it: the backgrounds
// stacked under three points of its box (left, middle, right), composited
// as the browser paints them, so that a label over a bar's fill is judged
// against the fill where they overlap. Returns per name the count, the
// lowest ratio and the colours of the worst.
export function contrasts(frame, selectors) {
  return frame.evaluate((selectors) => {
    const ctx = Object.assign(document.createElement("canvas"), { width: 1, height: 1 }).getContext("2d", { willReadFrequently: true });
    // Any CSS colour (rgb(), color(srgb ...), color-mix results) as 0-255
    // channels and an alpha of 0-1, read back from a painted pixel.
    const rgba = (css) => {
      ctx.clearRect(0, 0, 1, 1);
      ctx.fillStyle = "rgba(0,0,0,0)";
      ctx.fillStyle = css;
      ctx.fillRect(0, 0, 1, 1);
      const [r, g, b, a] = ctx.getImageData(0, 0, 1, 1).data;
      return [r, g, b, a / 255];
    };
    const over = (top, under) => top.slice(0, 3).map((c, i) => c * top[3] + under[i] * (1 - top[3])).concat(1);
    const lum = ([r, g, b]) => {
      const l = (c) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
      return 0.2126 * l(r) + 0.7152 * l(g) + 0.0722 * l(b);
    };
    const ratio = (a, b) => {
      const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
      return (x + 0.05) / (y + 0.05);
    };
    const hex = (c) => "#" + c.slice(0, 3).map((v) => Math.round(v).toString(16).padStart(2, "0")).join("");
    const out = {};
    for (const [name, sel] of Object.entries(selectors)) {
      const res = { n: 0, min: null, worst: null };
      for (const e of document.querySelectorAll(sel)) {
        e.scrollIntoView({ block: "nearest", inline: "nearest" });
        const box = e.getBoundingClientRect();
        if (!box.width || !box.height) continue;
        res.n++;
        for (const fx of [0.15, 0.5, 0.85]) {
          const stack = document.elementsFromPoint(box.left + box.width * fx, box.top + box.height / 2);
          const from = stack.indexOf(e);
          // What paints under the text: the element itself and everything
          // below it at that point, bottom first, on the page's white.
          let bg = [255, 255, 255, 1];
          for (const s of stack.slice(Math.max(0, from)).reverse()) bg = over(rgba(getComputedStyle(s).backgroundColor), bg);
          const fg = over(rgba(getComputedStyle(e).color), bg);
          const r = ratio(fg, bg);
          if (res.min === null || r < res.min) {
            res.min = Math.round(r * 100) / 100;
            res.worst = { text: e.textContent.trim().slice(0, 40), fg: hex(fg), bg: hex(bg) };
          }
        }
      }
      out[name] = res;
    }
    return out;
  }, selectors);
}
