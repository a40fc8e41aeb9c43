// The pedigree chart for nsip_get_lineage and nsip_search_by_lpn: one box
// per ancestor, sires above dams, one column per generation. The compact
// answer holds the nearest generations; when the server summarized it, the
// whole tree is read from the answer's _meta.full link.
//
// The chart always fits its frame: it is scaled down a little when that is
// enough, else the farthest generations are left out (and a button lists
// them all); where even three generations of boxes would not fit, as on a
// phone, the pedigree is an indented list, which fits any width. The view
// says how many generations it shows.
import { Answer, View, el, legend, show, start, swatch } from "../common";
import { Node, Tree, pedigreeTree } from "../shapes";

// Column widths of the chart at full size: the first three generations'
// boxes hold farm, birth and status; from the fourth on a box is one line.
const nearWidth = 148;
const deepWidth = 132;
const gap = 8;
// The chart is scaled down to this at most; smaller, its text is too small
// to read.
const minZoom = 0.85;
// Fewer columns than this (the subject and two generations) and the list
// shows more.
const minColumns = 3;

const colWidth = (g: number) => (g <= 3 ? nearWidth : deepWidth);

// naturalWidth is the chart's width at full size with its first n columns.
function naturalWidth(n: number): number {
  let w = 0;
  for (let g = 0; g < n; g++) w += colWidth(g) + (g ? gap : 0);
  return w;
}

interface Layout {
  list: boolean;
  columns: number; // the subject's column and one per generation shown
  zoom: number;
}

// layoutFor picks the most generations that fit width at a readable size.
function layoutFor(width: number, columns: number, wantList: boolean): Layout {
  if (!wantList) {
    for (let n = columns; n >= minColumns; n--) {
      const zoom = Math.min(1, width / naturalWidth(n));
      if (zoom >= minZoom) return { list: false, columns: n, zoom };
    }
  }
  return { list: true, columns, zoom: 1 };
}

function sexOf(path: string, n: Node): string {
  const sex = (n.sex ?? (path ? (path.endsWith("S") ? "Male" : "Female") : "")).toLowerCase();
  return sex.startsWith("m") ? "male" : sex.startsWith("f") ? "female" : "";
}

function box(path: string, n: Node, shownGen: number, repeated: boolean, full: boolean): HTMLElement {
  const g = path.length;
  const cls = ["box", sexOf(path, n), path ? "ancestor" : "subject", g > 3 && shownGen > 4 ? "deep" : "", repeated ? "repeat" : ""];
  const sub = [n.farm, n.dob, n.status].filter(Boolean).join(" · ");
  const title = [path ? path + ":" : "subject:", n.lpn, sub, repeated ? "(appears more than once in this pedigree)" : ""].join(" ");
  return el("div", { class: cls.filter(Boolean).join(" "), role: "listitem", "data-path": path, "data-lpn": n.lpn, "data-gen": g, title },
    el("div", { class: "lpn" }, n.lpn), (full || g <= 3) && sub ? el("div", { class: "sub" }, sub) : null);
}

function chart(tree: Tree, paths: string[], seen: Map<string, number>, lay: Layout): HTMLElement {
  const shownGen = lay.columns - 1;
  // A list, not a tree: the chart is read, not operated, and a tree's
  // role asks for items a keyboard expands and collapses.
  const grid = el("div", { class: "ped", role: "list", "aria-label": "pedigree chart" });
  const cols = Array.from({ length: lay.columns }, (_, g) => `minmax(${colWidth(g)}px, 1fr)`);
  grid.style.gridTemplateColumns = cols.join(" ");
  grid.style.gridTemplateRows = `repeat(${2 ** shownGen}, minmax(${shownGen > 4 ? 18 : shownGen > 2 ? 30 : 60}px, auto))`;
  if (lay.zoom < 1) grid.style.zoom = String(lay.zoom);
  for (const p of paths) {
    if (p.length > shownGen) continue;
    const b = box(p, tree.get(p)!, shownGen, (seen.get(tree.get(p)!.lpn) ?? 0) > 1, false);
    const span = 2 ** (shownGen - p.length);
    let index = 0;
    for (const c of p) index = index * 2 + (c === "D" ? 1 : 0);
    b.style.gridColumn = String(p.length + 1);
    b.style.gridRow = `${index * span + 1} / span ${span}`;
    grid.append(b);
  }
  return grid;
}

// outline lists the pedigree depth first (an animal, then its sire's
// line, then its dam's), each generation indented one step further.
function outline(tree: Tree, paths: string[], seen: Map<string, number>): HTMLElement {
  const list = el("div", { class: "ped-list", role: "list", "aria-label": "pedigree list" });
  const listed = new Set<string>();
  const walk = (p: string) => {
    const n = tree.get(p);
    if (!n || listed.has(p)) return;
    listed.add(p);
    const b = box(p, n, 0, (seen.get(n.lpn) ?? 0) > 1, true);
    b.style.marginLeft = `${p.length * 12}px`;
    b.style.maxWidth = `calc(100% - ${p.length * 12}px)`;
    list.append(b);
    walk(p + "S");
    walk(p + "D");
  };
  walk("");
  // Ancestors whose line is broken (a parent missing in between) are
  // listed after, so that none is left out.
  for (const p of paths) walk(p);
  return list;
}

export function drawTree(root: HTMLElement, tree: Tree, note: string) {
  const paths = [...tree.keys()].filter((p) => /^[SD]*$/.test(p)).sort((a, b) => a.length - b.length || a.localeCompare(b));
  const maxGen = Math.max(1, ...paths.map((p) => p.length));
  const seen = new Map<string, number>();
  for (const p of paths) if (p) seen.set(tree.get(p)!.lpn, (seen.get(tree.get(p)!.lpn) ?? 0) + 1);
  const subject = tree.get("");
  const ancestors = paths.length - (subject ? 1 : 0);
  const repeats = [...seen.values()].filter((c) => c > 1).length;
  let wantList = false;
  let last = "";

  const layout = () => {
    const cs = getComputedStyle(root);
    const width = root.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    const lay = layoutFor(width, maxGen + 1, wantList);
    const key = JSON.stringify(lay);
    const frameWidth = String(document.documentElement.clientWidth);
    if (key === last) {
      root.setAttribute("data-laid-out-for", frameWidth);
      return;
    }
    last = key;
    const shown = lay.columns - 1;
    const gens = (n: number) => `${n} generation${n === 1 ? "" : "s"}`;
    const says = lay.list
      ? `Shows all ${gens(maxGen)}, as a list: each generation indented one step further, sires before dams.`
      : shown < maxGen
        ? `Shows ${shown} of ${gens(maxGen)}: the farthest ${maxGen - shown === 1 ? "does" : maxGen - shown + " do"} not fit this frame.`
        : `Shows all ${gens(maxGen)}.`;
    const toggle = (label: string, list: boolean) => {
      const b = el("button", { type: "button", class: "ped-toggle" }, label);
      b.addEventListener("click", () => {
        wantList = list;
        layout();
        (root.querySelector(".ped-toggle") as HTMLElement | null)?.focus();
      });
      return b;
    };
    const canChart = !layoutFor(width, maxGen + 1, false).list;
    const button = lay.list ? (canChart ? toggle("Show as a chart", false) : null) : shown < maxGen ? toggle(`List all ${gens(maxGen)}`, true) : null;
    show(root,
      el("h1", {}, "Pedigree of ", el("span", { class: "mono" }, subject?.lpn ?? "(no subject)")),
      el("p", { class: "muted small", "data-ancestors": ancestors },
        `${ancestors} ancestors over ${gens(maxGen)}` + (repeats ? `; ${repeats} appear more than once (↻)` : "")),
      el("p", { class: "ped-shown", "data-shown": lay.list ? maxGen : shown, "data-generations": maxGen }, says, button ? " " : null, button),
      legend(
        [el("span", {}, swatch("background:#5b8fd6"), "♂"), "sire (male)"],
        [el("span", {}, swatch("background:#c95a8c"), "♀"), "dam (female)"],
        ...(repeats ? [["↻", "appears more than once in this pedigree (dashed box)"] as [string, string]] : []),
        [swatch("border:2px solid var(--fg2)"), "thick border: the animal asked about"],
      ),
      lay.list ? outline(tree, paths, seen) : chart(tree, paths, seen, lay),
      note ? el("p", { class: "note" }, note) : null,
    );
    root.setAttribute("data-laid-out-for", frameWidth);
  };
  layout();
  // The host may resize the frame at any time (a phone turned, a panel
  // widened): the layout follows the width, and only the width. It is
  // redrawn in the next frame, not inside the observer's callback, where
  // a change of the root's own size would be reported as a loop.
  let width = root.clientWidth;
  const ro = new ResizeObserver(() => {
    if (root.clientWidth === width) return;
    width = root.clientWidth;
    requestAnimationFrame(() => layout());
  });
  ro.observe(root);
  observers.get(root)?.disconnect();
  observers.set(root, ro);
}

// One observer a root: a new answer's drawing replaces the last one's.
const observers = new WeakMap<HTMLElement, ResizeObserver>();

async function render(a: Answer, v: View) {
  let tree = pedigreeTree(a.data);
  let note = "";
  if (a.meta?.full?.json) {
    try {
      const full = await v.readFull(a);
      const whole = pedigreeTree(full);
      if (whole.size >= tree.size) tree = whole;
    } catch (err) {
      note = "The whole pedigree could not be read (" + (err instanceof Error ? err.message : String(err)) + "); the nearest generations are shown.";
    }
  }
  if (tree.size === 0) {
    show(v.root, el("p", { class: "muted" }, "No pedigree in this answer."));
    return;
  }
  drawTree(v.root, tree, note);
}

start("pedigree", render);
