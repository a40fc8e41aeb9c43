// The pedigree chart for nsip_get_lineage and nsip_search_by_lpn: one box
// per ancestor, sires above dams, one column per generation. The compact
// answer holds the nearest generations; when the server summarized it, the
// whole tree is read from the answer's _meta.full link.
import { Answer, Json, View, el, show, start } from "../common";

interface Node {
  lpn: string;
  farm?: string;
  dob?: string;
  sex?: string;
  status?: string;
}

type Tree = Map<string, Node>; // path ("" the subject, "S" its sire, "SD" the sire's dam, ...) -> animal

function fromRow(r: Json): Node {
  return { lpn: String(r.lpn_id ?? r.lpnId ?? ""), farm: r.farm, dob: r.dob, sex: r.sex, status: r.status };
}

// NSIP's own lineage, whose nodes carry their details as an HTML fragment
// of <div>s and their parents as children, or the decoded one (fields,
// sire and dam).
function fromNSIP(n: Json, path: string, tree: Tree) {
  if (!n || typeof n.lpnId !== "string" || !n.lpnId) return;
  const node: Node = { lpn: n.lpnId, farm: n.farm, dob: n.dob, sex: n.sex, status: n.status };
  const divs = String(n.content ?? "").match(/<div>([^<]*)<\/div>/g) ?? [];
  divs.forEach((d, i) => {
    const t = d.slice(5, -6).trim();
    const m = /^(DOB|Sex|Status):\s*(.*)$/.exec(t);
    if (m) node[m[1] === "DOB" ? "dob" : (m[1].toLowerCase() as "sex" | "status")] = m[2];
    else if (i === 0) node.farm = t;
  });
  tree.set(path, node);
  const kids: Json[] = Array.isArray(n.children) ? n.children : [n.sire, n.dam];
  fromNSIP(kids[0], path + "S", tree);
  fromNSIP(kids[1], path + "D", tree);
}

// unflatten rebuilds an object from a table of paths and values, such as
// lineage.data.children[0].lpnId.
function unflatten(rows: Json[]): Json {
  const out: Json = {};
  for (const r of rows) {
    const keys = String(r.path).replace(/\[(\d+)\]/g, ".$1").split(".");
    let o = out;
    keys.forEach((k, i) => {
      if (i === keys.length - 1) o[k] = r.value;
      else o = o[k] ??= /^\d+$/.test(keys[i + 1]) ? [] : {};
    });
  }
  return out;
}

function fromAnswer(d: Json): Tree {
  const tree: Tree = new Map();
  if (!d || typeof d !== "object") return tree;
  if (Array.isArray(d.rows) && d.columns?.includes("lpn_id") && d.columns?.includes("path")) {
    for (const r of d.rows) if (r.lpn_id) tree.set(String(r.path ?? ""), fromRow(r));
    return tree;
  }
  if (Array.isArray(d.rows) && d.columns?.[0] === "path" && d.columns?.[1] === "value") return fromAnswer(unflatten(d.rows));
  if (d.lineage) return fromAnswer(d.lineage);
  if (d.data?.lpnId || d.subject?.lpnId) {
    fromNSIP(d.data ?? d.subject, "", tree);
    return tree;
  }
  const subject = d.subject ?? d.animal;
  if (subject) tree.set("", fromRow(subject));
  if (d.sire && typeof d.sire === "object") tree.set("S", fromRow(d.sire));
  if (d.dam && typeof d.dam === "object") tree.set("D", fromRow(d.dam));
  for (const rows of [d.ancestors, d.grandparents]) {
    if (!Array.isArray(rows)) continue;
    for (const r of rows) {
      if (Array.isArray(r) && r[1]) {
        const p = String(r[0]);
        if (!tree.has(p)) tree.set(p, { lpn: String(r[1]) });
      }
    }
  }
  return tree;
}

function box(path: string, n: Node, maxGen: number, repeated: boolean): HTMLElement {
  const g = path.length;
  const span = 2 ** (maxGen - g);
  let index = 0;
  for (const c of path) index = index * 2 + (c === "D" ? 1 : 0);
  const sex = (n.sex ?? (path ? (path.endsWith("S") ? "Male" : "Female") : "")).toLowerCase();
  const cls = ["box", sex.startsWith("m") ? "male" : sex.startsWith("f") ? "female" : "", path ? "ancestor" : "subject", g > 3 && maxGen > 4 ? "deep" : "", repeated ? "repeat" : ""];
  const sub = [n.farm, n.dob, n.status].filter(Boolean).join(" · ");
  const title = [path ? path + ":" : "subject:", n.lpn, sub, repeated ? "(appears more than once in this pedigree)" : ""].join(" ");
  const b = el("div", { class: cls.filter(Boolean).join(" "), "data-path": path, "data-lpn": n.lpn, title },
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
  const grid = el("div", { class: "ped", role: "tree", "aria-label": "pedigree" });
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
      el("span", {}, el("i", { class: "swatch", style: "background:#5b8fd6" }), "sire side / male"),
      el("span", {}, el("i", { class: "swatch", style: "background:#d66b9a" }), "dam side / female")),
    el("div", { class: "scroll" }, grid),
    note ? el("p", { class: "note" }, note) : null,
  );
}

async function render(a: Answer, v: View) {
  let tree = fromAnswer(a.data);
  let note = "";
  if (a.meta?.full?.json) {
    try {
      const full = await v.readFull(a);
      const whole = fromAnswer(full);
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
