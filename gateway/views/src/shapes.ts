// The answers' shapes, read into what the views draw: a pedigree as a
// tree of paths, animals as lists of EBVs. Pure functions (no DOM, no SDK),
// so test/shapes.test.mjs runs them under node on every shape a tool may
// answer in.
import type { Json } from "./common";

export interface Node {
  lpn: string;
  farm?: string;
  dob?: string;
  sex?: string;
  status?: string;
}

export type Tree = Map<string, Node>; // path ("" the subject, "S" its sire, "SD" the sire's dam, ...) -> animal

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

const unsafeKeys = new Set(["__proto__", "constructor", "prototype"]);

// unflatten rebuilds an object from a table of paths and values, such as
// lineage.data.children[0].lpnId.
function unflatten(rows: Json[]): Json {
  const out: Json = {};
  for (const r of rows) {
    const keys = String(r.path).replace(/\[(\d+)\]/g, ".$1").split(".");
    // The names come from NSIP's JSON: one that would reach an object's
    // prototype is no member of the record, and is passed over.
    if (keys.some((k) => unsafeKeys.has(k))) continue;
    let o = out;
    keys.forEach((k, i) => {
      if (i === keys.length - 1) o[k] = r.value;
      else o = Object.hasOwn(o, k) ? o[k] : (o[k] = /^\d+$/.test(keys[i + 1]) ? [] : {});
    });
  }
  return out;
}

export function pedigreeTree(d: Json): Tree {
  const tree: Tree = new Map();
  if (!d || typeof d !== "object") return tree;
  if (Array.isArray(d.rows) && d.columns?.includes("lpn_id") && d.columns?.includes("path")) {
    for (const r of d.rows) if (r.lpn_id) tree.set(String(r.path ?? ""), fromRow(r));
    return tree;
  }
  if (Array.isArray(d.rows) && d.columns?.[0] === "path" && d.columns?.[1] === "value") return pedigreeTree(unflatten(d.rows));
  if (d.lineage) return pedigreeTree(d.lineage);
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

export interface EBV {
  code: string;
  value: number | null;
  acc: number | null; // percent
  pct: number | null; // top percent in the breed: 1 is the best 1%
}

export interface Animal {
  lpn: string;
  facts: string[];
  ebvs: EBV[];
}

export const lowAccuracy = 40;

const num = (v: Json): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

// NSIP's own record: lower-case codes beside acc<code>, accuracy as a fraction.
function animalFromNSIP(d: Json): Animal | null {
  const m = d?.data?.searchResultViewModel;
  if (!m) return null;
  const skip = new Set(["progenycount", "breedid", "flockcode", "regnumber", "ushairindex", "srcindex"]);
  const ebvs: EBV[] = [];
  for (const [k, v] of Object.entries(m)) {
    if (typeof v !== "number" || k.startsWith("acc") || skip.has(k.toLowerCase()) || /index/i.test(k)) continue;
    const acc = num(m["acc" + k]);
    ebvs.push({ code: k.toUpperCase(), value: v, acc: acc === null ? null : Math.round(acc * 100), pct: null });
  }
  const facts = [d.data.breed?.breedName, d.data.gender, d.data.dateOfBirth && "born " + d.data.dateOfBirth, m.status];
  return { lpn: m.lpnId, facts: facts.filter(Boolean), ebvs };
}

// Rows of cells named by a columns list: the percentile answer, summaries.
function fromRows(lpn: string, facts: string[], cols: string[], rows: Json[]): Animal {
  const at = (name: string) => cols.indexOf(name);
  const ebvs = rows.map((r: Json[]) => ({
    code: String(r[at("code")]),
    value: num(r[at("value")]),
    acc: at("accuracy") >= 0 ? num(r[at("accuracy")]) : null,
    pct: at("top_percent") >= 0 ? num(r[at("top_percent")]) : null,
  }));
  return { lpn, facts, ebvs };
}

// A compare row as an object, or a compact row of cells named by columns.
function fromCompare(d: Json): Animal[] {
  const traits: string[] = d.traits ?? [];
  return (d.animals ?? []).map((a: Json, row: number) => {
    if (Array.isArray(a) && Array.isArray(d.columns)) {
      const o: Json = {};
      d.columns.forEach((c: string, i: number) => (o[c] = a[i]));
      a = o;
    }
    const ebvs: EBV[] = traits.map((code, i) => {
      const cell = Array.isArray(a.ebv) ? a.ebv[i] : [a[code], a[code + "_acc"], a[code + "_top_percent"]];
      // A compact comparison keeps the percentiles beside the table, a row
      // per animal and a cell per trait.
      const pct = a.top_percent?.[i] ?? d.top_percent?.rows?.[row]?.[i] ?? cell?.[2];
      return { code, value: num(cell?.[0]), acc: num(cell?.[1]), pct: num(pct) };
    });
    return { lpn: a.lpn_id, facts: [a.breed, a.sex, a.born && "born " + a.born, a.genotyped].filter(Boolean), ebvs };
  });
}

// Trait objects {code, value, accuracy}: the decoded record (accuracy as
// NSIP sends it, a fraction) or a summary's top traits (percent).
function fromTraits(a: Json, list: Json[]): Animal {
  const fractions = list.every((t) => typeof t.accuracy !== "number" || t.accuracy <= 1);
  const ebvs = list.map((t) => {
    const acc = t.hasAccuracy === false ? null : num(t.accuracy);
    return { code: String(t.code), value: num(t.value), acc: acc === null ? null : Math.round(fractions ? acc * 100 : acc), pct: null };
  });
  const born = a.dateOfBirth ?? a.dob;
  return { lpn: a.lpnId ?? a.lpn_id, facts: [a.breed, a.gender, born && "born " + born, a.status].filter(Boolean), ebvs };
}

export function animals(d: Json): Animal[] {
  if (!d || typeof d !== "object") return [];
  if (Array.isArray(d.animals) && Array.isArray(d.traits)) return fromCompare(d);
  const nsip = animalFromNSIP(d);
  if (nsip) return [nsip];
  const objs = d.traits ?? d.top_traits;
  if (Array.isArray(objs) && objs.every((t: Json) => t && typeof t === "object" && "code" in t)) return [fromTraits(d, objs)];
  const a = d.animal ?? d;
  const cols = d.ebv_columns ?? d.ebv_cell;
  if (Array.isArray(cols) && Array.isArray(d.ebvs)) {
    const facts = [a.breed, a.sex ?? a.gender, (a.born ?? a.dob) && "born " + (a.born ?? a.dob), a.status];
    return [fromRows(a.lpn_id, facts.filter(Boolean), cols, d.ebvs)];
  }
  return [];
}


// A mating plan: its rams and ewes (as asked, else as the answer names
// them), and the row of each pair it mated.
export type Key = string; // ram + " " + ewe
export const key = (ram: string, ewe: string): Key => ram + " " + ewe;

export interface Plan {
  rams: string[];
  ewes: string[];
  planned: Map<Key, Json[]>; // the plan's row for each mated pair
  cols: string[];
  maxCOI: number | null;
}

export function readPlan(d: Json, args: Json): Plan {
  const cols: string[] = d.columns ?? [];
  const planned = new Map<Key, Json[]>();
  // LPN IDs as the server holds them (it upper-cases what it is sent), so
  // that an animal asked in lower case is the one the plan names.
  const ids = (l: Json) => (Array.isArray(l) ? l.map((x) => String(x).trim().toUpperCase()) : []);
  const rams = new Set<string>(ids(args.ram_lpn_ids));
  const ewes = new Set<string>(ids(args.ewe_lpn_ids));
  for (const [ram, rows] of Object.entries(d.by_ram ?? {})) {
    rams.add(ram);
    for (const r of rows as Json[][]) {
      ewes.add(String(r[0]));
      planned.set(key(ram, String(r[0])), r);
    }
  }
  for (const list of Object.values(d.unassigned ?? {})) for (const e of list as string[]) ewes.add(e);
  return { rams: [...rams], ewes: [...ewes], planned, cols, maxCOI: typeof d.max_coi === "number" ? d.max_coi : null };
}

// mergeFullPlan adds to p the mated pairs of the plan's whole table (the
// answer's _meta.full: columns ram, ewe, then the plan's), which a plan cut
// to fit the budget leaves out of by_ram.
export function mergeFullPlan(p: Plan, full: Json) {
  const cols: string[] = full?.columns ?? [];
  const ramAt = cols.indexOf("ram"), eweAt = cols.indexOf("ewe");
  if (!Array.isArray(full?.rows) || ramAt < 0 || eweAt < 0) return;
  for (const r of full.rows as Json[]) {
    const row = Array.isArray(r) ? r : cols.map((c) => r[c]);
    const ram = String(row[ramAt]), ewe = String(row[eweAt]);
    if (p.planned.has(key(ram, ewe))) continue;
    if (!p.rams.includes(ram)) p.rams.push(ram);
    if (!p.ewes.includes(ewe)) p.ewes.push(ewe);
    // The plan's own columns, in its order, from the table's.
    p.planned.set(key(ram, ewe), p.cols.map((c, i) => (i === 0 ? ewe : (row[cols.indexOf(c)] ?? null))));
  }
}

// A COI matrix (nsip_plan_matings with coi_only): each ram's row of lamb
// COIs in the answer's ewe order. A cell is a number (exact), ">=x" (a
// lower bound) or "unknown". An answer cut to its budget shows the first
// ewes' columns; its whole table (_meta.full: columns ram and every ewe)
// holds the rest, added by mergeFullMatrix.
export interface Matrix {
  rams: string[];
  ewes: string[];
  cells: Map<Key, number | string>;
  maxCOI: number | null;
}

export function isMatrix(d: Json): boolean {
  return !!d && Array.isArray(d.ewes) && !!d.coi && typeof d.coi === "object" && !Array.isArray(d.coi);
}

export function readMatrix(d: Json): Matrix {
  const ewes: string[] = (d.ewes ?? []).map(String);
  const cells = new Map<Key, number | string>();
  const rams: string[] = [];
  for (const [ram, row] of Object.entries(d.coi ?? {})) {
    rams.push(ram);
    (row as Json[]).forEach((c, i) => {
      if (i < ewes.length && (typeof c === "number" || typeof c === "string")) cells.set(key(ram, ewes[i]), c);
    });
  }
  return { rams, ewes, cells, maxCOI: typeof d.max_coi === "number" ? d.max_coi : null };
}

export function mergeFullMatrix(m: Matrix, full: Json) {
  const cols: string[] = full?.columns ?? [];
  if (cols[0] !== "ram" || !Array.isArray(full?.rows)) return;
  for (const e of cols.slice(1)) if (!m.ewes.includes(e)) m.ewes.push(e);
  for (const r of full.rows as Json[]) {
    const row = Array.isArray(r) ? r : cols.map((c) => r[c]);
    const ram = String(row[0]);
    if (!m.rams.includes(ram)) m.rams.push(ram);
    cols.forEach((e, i) => {
      const c = row[i];
      if (i > 0 && !m.cells.has(key(ram, e)) && (typeof c === "number" || typeof c === "string")) m.cells.set(key(ram, e), c);
    });
  }
}
