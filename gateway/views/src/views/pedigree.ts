// The pedigree chart for nsip_get_lineage and nsip_search_by_lpn: one box
// per ancestor, sires above dams, one column per generation. The compact
// answer holds the nearest generations; when the server summarized it, the
// whole tree is read from the answer's _meta.full link.
import { Answer, View, el, scroller, show, start } from "../common";
import { Node, Tree, pedigreeTree } from "../shapes";

function box(path: string, n: Node, maxGen: number, repeated: boolean): HTMLElement {
  const g = path.length;
  const span = 2 ** (maxGen - g);
  let index = 0;
  for (const c of path) index = index * 2 + (c === "D" ? 1 : 0);
  const sex = (n.sex ?? (path ? (path.endsWith("S") ? "Male" : "Female") : "")).toLowerCase();
  const cls = ["box", sex.startsWith("m") ? "male" : sex.startsWith("f") ? "female" : "", path ? "ancestor" : "subject", g > 3 && maxGen > 4 ? "deep" : "", repeated ? "repeat" : ""];
  const sub = [n.farm, n.dob, n.status].filter(Boolean).join(" · ");
  const title = [path ? path + ":" : "subject:", n.lpn, sub, repeated ? "(appears more than once in this pedigree)" : ""].join(" ");
  const b = el("div", { class: cls.filter(Boolean).join(" "), role: "listitem", "data-path": path, "data-lpn": n.lpn, title },
    el("div", { class: "lpn" }, n.lpn), g <= 3 && sub ? el("div", { class: "sub" }, sub) : null);
  b.style.gridColumn = String(g + 1);
  b.style.gridRow = `${index * span + 1} / span ${span}`;
  return b;
}

export function drawTree(root: HTMLElement, tree: Tree, note: string) {
  const paths = [...tree.keys()].filter((p) => /^[SD]*$/.test(p)).sort((a, b) => a.length - b.length || a.localeCompare(b));
  const maxGen = Math.max(1, ...paths.map((p) => p.length));
  const seen = new Map<string, number>();
  for (const p of paths) if (p) seen.set(tree.get(p)!.lpn, (seen.get(tree.get(p)!.lpn) ?? 0) + 1);
  // A list, not a tree: the chart is read, not operated, and a tree's
  // role asks for items a keyboard expands and collapses.
  const grid = el("div", { class: "ped", role: "list", "aria-label": "pedigree" });
  // Near generations get room for farm, birth and status; from the fifth
  // on a box is one line, so six generations (64 boxes high) stay readable.
  grid.style.gridTemplateColumns = `repeat(${Math.min(maxGen + 1, 4)}, minmax(136px, 1fr)) repeat(${Math.max(0, maxGen - 3)}, minmax(120px, auto))`;
  grid.style.gridTemplateRows = `repeat(${2 ** maxGen}, minmax(${maxGen > 4 ? 18 : maxGen > 2 ? 30 : 60}px, auto))`;
  for (const p of paths) grid.append(box(p, tree.get(p)!, maxGen, (seen.get(tree.get(p)!.lpn) ?? 0) > 1));
  const subject = tree.get("");
  const ancestors = paths.length - (subject ? 1 : 0);
  const repeats = [...seen.values()].filter((c) => c > 1).length;
  show(root, 
    el("h1", {}, "Pedigree of ", el("span", { class: "mono" }, subject?.lpn ?? "?")),
    el("p", { class: "muted small", "data-ancestors": ancestors },
      `${ancestors} ancestors over ${maxGen} generations` + (repeats ? `; ${repeats} appear more than once (↻)` : "")),
    el("div", { class: "legend" },
      el("span", {}, el("i", { class: "swatch", style: "background:#5b8fd6" }), "♂ sire side / male"),
      el("span", {}, el("i", { class: "swatch", style: "background:#c95a8c" }), "♀ dam side / female")),
    scroller("pedigree chart", grid),
    note ? el("p", { class: "note" }, note) : null,
  );
}

async function render(a: Answer, v: View) {
  let tree = pedigreeTree(a.data);
  let note = "";
  if (a.meta?.full?.json) {
    try {
      const full = await v.readFull(a);
      const whole = pedigreeTree(full);
      if (whole.size >= tree.size) tree = whole;
    } catch (err) {
      note = "The whole pedigree could not be read (" + String(err) + "); the nearest generations are shown.";
    }
  }
  if (tree.size === 0) {
    show(v.root, el("p", { class: "muted" }, "No pedigree in this answer."));
    return;
  }
  drawTree(v.root, tree, note);
}

start("pedigree", render);
