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

// helpers installs, in a page or frame, the colour arithmetic both
// measures below use: any CSS colour (rgb(), color(srgb ...), color-mix
// results) as 0-255 channels and an alpha of 0-1, read back from a painted
// pixel; a colour over another; WCAG's contrast ratio.
function helpers() {
  if (window.nsipA11y) return;
  const ctx = Object.assign(document.createElement("canvas"), { width: 1, height: 1 }).getContext("2d", { willReadFrequently: true });
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
    return Math.round(((x + 0.05) / (y + 0.05)) * 100) / 100;
  };
  const hex = (c) => "#" + c.slice(0, 3).map((v) => Math.round(v).toString(16).padStart(2, "0")).join("");
  // What paints under a point of element e: e and everything below it
  // there, bottom first, on white.
  const behind = (e, x, y) => {
    const stack = document.elementsFromPoint(x, y);
    let bg = [255, 255, 255, 1];
    for (const s of stack.slice(Math.max(0, stack.indexOf(e))).reverse()) bg = over(rgba(getComputedStyle(s).backgroundColor), bg);
    return bg;
  };
  window.nsipA11y = { rgba, over, ratio, hex, behind };
}

// contrasts measures, for each name's selector, the contrast ratio of every
// matched element's text colour with what lies behind it at three points
// of its box (left, middle, right), so that a label over a bar's fill is
// judged against the fill where they overlap. Returns per name the count,
// the lowest ratio and the colours of the worst.
export async function contrasts(frame, selectors) {
  await frame.evaluate(helpers);
  return frame.evaluate((selectors) => {
    const { rgba, over, ratio, hex, behind } = window.nsipA11y;
    const out = {};
    for (const [name, sel] of Object.entries(selectors)) {
      const res = { n: 0, min: null, worst: null };
      for (const e of document.querySelectorAll(sel)) {
        e.scrollIntoView({ block: "nearest", inline: "nearest" });
        const box = e.getBoundingClientRect();
        if (!box.width || !box.height) continue;
        res.n++;
        for (const fx of [0.15, 0.5, 0.85]) {
          const bg = behind(e, box.left + box.width * fx, box.top + box.height / 2);
          const fg = over(rgba(getComputedStyle(e).color), bg);
          const r = ratio(fg, bg);
          if (res.min === null || r < res.min) {
            res.min = r;
            res.worst = { text: e.textContent.trim().slice(0, 40), fg: hex(fg), bg: hex(bg) };
          }
        }
      }
      out[name] = res;
    }
    return out;
  }, selectors);
}

// focusWalk presses Tab from the top of the frame's document until the
// focus leaves it or comes back to where it has been, and reports each element it stops at: what it is, its
// name, whether it shows a focus ring (:focus-visible with an outline) and
// the ring's contrast with what is behind it. Beside the stops, it counts
// what a keyboard should reach: every enabled control and every element
// put in the tab order.
export async function focusWalk(page, frame, from = "main", max = 80) {
  await frame.evaluate(helpers);
  // The walk starts where the view's content begins: focusing it (out of
  // the tab order) sets where the next Tab goes from.
  await frame.evaluate((from) => {
    const start = document.querySelector(from) ?? document.body;
    start.setAttribute("tabindex", "-1");
    start.setAttribute("data-walk-start", "");
    start.focus();
  }, from);
  const stops = [];
  for (let i = 0; i < max; i++) {
    await page.keyboard.press("Tab");
    const stop = await frame.evaluate(() => {
      const e = document.activeElement;
      // Done when the focus leaves the document or comes round again.
      if (!e || e === document.body || e.hasAttribute("data-walk-start") || e.hasAttribute("data-walked") || !document.hasFocus()) return null;
      e.setAttribute("data-walked", "");
      const { rgba, over, ratio, behind } = window.nsipA11y;
      const cs = getComputedStyle(e);
      const box = e.getBoundingClientRect();
      // The ring lies just outside the element, on its parent.
      const bg = behind(e.parentElement ?? document.body, box.left + 1, box.top + 1);
      const ring = over(rgba(cs.outlineColor), bg);
      return {
        what: e.tagName.toLowerCase() + (e.getAttribute("role") ? `[role=${e.getAttribute("role")}]` : ""),
        name: (e.getAttribute("aria-label") ?? e.textContent ?? "").trim().slice(0, 40),
        visible: e.matches(":focus-visible") && cs.outlineStyle !== "none" && parseFloat(cs.outlineWidth) >= 2,
        ringContrast: ratio(ring, bg),
      };
    });
    if (!stop) break;
    stops.push(stop);
  }
  const reachable = await frame.evaluate(() => {
    const start = document.querySelector("[data-walk-start]");
    start?.removeAttribute("tabindex");
    start?.removeAttribute("data-walk-start");
    for (const e of document.querySelectorAll("[data-walked]")) e.removeAttribute("data-walked");
    return [...document.querySelectorAll("button, input, select, textarea, summary, a[href], [tabindex]")]
      .filter((e) => !e.disabled && e.tabIndex >= 0 && e.checkVisibility()).length;
  });
  return { stops, reachable };
}
