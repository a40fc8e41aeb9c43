// An animal's EBVs (nsip_get_animal) or several animals' (nsip_compare_animals):
// one row per EBV with its value, a bar for its accuracy (under 40% marked)
// and a bar for its place in the breed (top_percent), when the answer has it.
// Without percentiles a button asks the server for them, for this view only.
import { Answer, Json, View, el, fmt, show, start } from "../common";

interface EBV {
  code: string;
  value: number | null;
  acc: number | null; // percent
  pct: number | null; // top percent in the breed: 1 is the best 1%
}

interface Animal {
  lpn: string;
  facts: string[];
  ebvs: EBV[];
}

export const lowAccuracy = 40;

const num = (v: Json): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

// NSIP's own record: lower-case codes beside acc<code>, accuracy as a fraction.
function fromNSIP(d: Json): Animal | null {
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
  return (d.animals ?? []).map((a: Json) => {
    if (Array.isArray(a) && Array.isArray(d.columns)) {
      const o: Json = {};
      d.columns.forEach((c: string, i: number) => (o[c] = a[i]));
      a = o;
    }
    const ebvs: EBV[] = traits.map((code, i) => {
      const cell = Array.isArray(a.ebv) ? a.ebv[i] : [a[code], a[code + "_acc"], a[code + "_top_percent"]];
      return { code, value: num(cell?.[0]), acc: num(cell?.[1]), pct: num(a.top_percent?.[i] ?? cell?.[2]) };
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
  const nsip = fromNSIP(d);
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

function bar(kind: string, share: number | null, label: string, low: boolean, title: string): HTMLElement {
  const b = el("div", { class: `bar ${kind}${low ? " low" : ""}`, title, role: "img", "aria-label": title });
  const fill = el("i");
  fill.style.width = `${Math.max(0, Math.min(100, share ?? 0))}%`;
  b.append(fill, el("b", {}, label));
  return b;
}

function ebvRow(e: EBV): HTMLElement[] {
  const low = e.acc !== null && e.acc < lowAccuracy;
  const accTitle = e.acc === null ? `${e.code}: NSIP gives no accuracy` : `${e.code}: accuracy ${e.acc}%` + (low ? `, under ${lowAccuracy}%: an early estimate that may move` : "");
  const pctTitle = e.pct === null ? `${e.code}: no breed percentile in this answer` : `${e.code}: in the top ${fmt(e.pct, 1)}% of the breed`;
  return [
    el("div", { class: "mono", "data-code": e.code }, e.code),
    el("div", { class: "num" }, fmt(e.value)),
    el("div", { class: "ebv-acc" + (low ? " low" : ""), "data-code": e.code },
      bar("acc", e.acc, e.acc === null ? "–" : `${e.acc}%` + (low ? " ⚠" : ""), low, accTitle)),
    el("div", { class: "ebv-pct", "data-code": e.code },
      bar("pct", e.pct === null ? null : 100 - e.pct, e.pct === null ? "–" : `top ${fmt(e.pct, 1)}%`, false, pctTitle)),
  ];
}

function drawAnimals(root: HTMLElement, list: Animal[], more: HTMLElement | null) {
  const lows = list.reduce((n, a) => n + a.ebvs.filter((e) => e.acc !== null && e.acc < lowAccuracy).length, 0);
  const out: (HTMLElement | null)[] = [
    el("div", { class: "legend" },
      el("span", {}, el("i", { class: "swatch", style: "background:var(--fb-bar)" }), "accuracy"),
      el("span", {}, el("i", { class: "swatch", style: "background:var(--warn)" }), `accuracy under ${lowAccuracy}% ⚠` + (lows ? ` (${lows})` : "")),
      el("span", {}, el("i", { class: "swatch", style: "background:var(--fb-bar2)" }), "place in the breed (longer is better)")),
  ];
  for (const a of list) {
    const grid = el("div", { class: "ebv" },
      el("div", { class: "head" }, "EBV"), el("div", { class: "head num" }, "value"),
      el("div", { class: "head" }, "accuracy"), el("div", { class: "head" }, "breed percentile"));
    for (const e of a.ebvs) {
      const row = el("div", { class: "ebv-row", "data-code": e.code, style: "display:contents" });
      row.append(...ebvRow(e));
      grid.append(row);
    }
    out.push(el("section", { class: "animal", "data-lpn": a.lpn },
      el("h1", {}, el("span", { class: "mono" }, a.lpn)),
      el("p", { class: "muted small" }, a.facts.join(" · ")), grid));
  }
  out.push(more);
  show(root, ...out.filter((x): x is HTMLElement => x !== null));
}

// percentileButton asks the same tool again with percentiles: true; the
// answer comes to this view alone.
function percentileButton(a: Answer, v: View, list: Animal[]): HTMLElement | null {
  const tool = a.tool || (list.length > 1 ? "nsip_compare_animals" : "nsip_get_animal");
  const args = Object.keys(a.args).length ? { ...a.args } :
    tool === "nsip_compare_animals" ? { lpn_ids: list.map((x) => x.lpn) } : { search_string: list[0]?.lpn };
  if (list.every((x) => x.ebvs.some((e) => e.pct !== null))) return null;
  const status = el("span", { class: "note" });
  const btn = el("button", { type: "button" }, "Show breed percentiles");
  btn.addEventListener("click", async () => {
    btn.disabled = true;
    status.textContent = " reading the breed's sorted pages (up to 150 lookups an animal)…";
    try {
      const d = await v.callTool(tool, { ...args, percentiles: true });
      drawAnimals(v.root, animals(d), null);
    } catch (err) {
      status.textContent = " " + String(err);
      btn.disabled = false;
    }
  });
  return el("p", {}, btn, status);
}

function render(a: Answer, v: View) {
  const list = animals(a.data);
  if (list.length === 0) {
    show(v.root, el("p", { class: "muted" }, "No EBVs in this answer."));
    return;
  }
  drawAnimals(v.root, list, percentileButton(a, v, list));
}

start("ebvs", render);
