// A flock at a glance (nsip_flock_summary): counts by sex, status and birth
// year as bars, and each trait's spread: a histogram of the animals' EBVs
// when the answer links its rows (_meta.full), else the range, mean and SD
// the answer states, with the sexes' means marked.
import { Answer, Json, View, el, fmt, legend, show, start, svg, swatch } from "../common";

function countBars(title: string, counts: Record<string, number>): HTMLElement {
  const entries = Object.entries(counts ?? {});
  const max = Math.max(1, ...entries.map(([, n]) => n));
  const rows = entries.map(([k, n]) => {
    const b = el("div", { class: "bar", title: `${k}: ${n}` });
    const fill = el("i");
    fill.style.width = `${(100 * n) / max}%`;
    b.append(fill, el("b", {}, String(n)));
    return el("div", { class: "count-row", style: "display:grid;grid-template-columns:90px 1fr;gap:6px;margin:2px 0" }, el("span", { class: "small" }, k), b);
  });
  return el("div", { class: "count-bars" }, el("h2", {}, title), ...rows);
}

const W = 240;
const H = 90;

// histogram draws the values in ten bins over [min, max].
function histogram(trait: string, values: number[], min: number, max: number): SVGElement {
  const bins = new Array(10).fill(0);
  const span = max - min || 1;
  for (const x of values) bins[Math.min(9, Math.floor(((x - min) / span) * 10))]++;
  const top = Math.max(1, ...bins);
  // A picture's name says what it shows, for those who cannot see it.
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img",
    "aria-label": `${trait}: histogram of ${values.length} animals' EBVs from ${fmt(min)} to ${fmt(max)}, in ten bins of ${bins.join(", ")} animals` });
  bins.forEach((n, i) => {
    const h = ((H - 20) * n) / top;
    s.append(svg("rect", { x: 4 + i * 23, y: H - 16 - h, width: 20, height: h, fill: "var(--fb-bar)", rx: 2 }, svg("title", {}, `${n} animals`)));
  });
  return s;
}

// spread draws min-max as a line, mean +- SD as a band, the sexes' means as ticks.
function spread(t: Json): SVGElement {
  const lo = t.min, hi = t.max, span = hi - lo || 1;
  const x = (v: number) => 10 + ((v - lo) / span) * (W - 20);
  const sexes = Object.entries(t.by_sex ?? {}).filter(([, m]) => typeof (m as Json)?.mean === "number")
    .map(([sex, m]) => `, ${sex} mean ${fmt((m as Json).mean)}`).join("");
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img",
    "aria-label": `${t.trait}: from ${fmt(lo)} to ${fmt(hi)}, mean ${fmt(t.mean)}` + (typeof t.sd === "number" ? `, SD ${fmt(t.sd)}` : "") + sexes });
  s.append(svg("line", { x1: x(lo), x2: x(hi), y1: 40, y2: 40, stroke: "var(--fg2)", "stroke-width": 2 }));
  if (typeof t.sd === "number") {
    const a = Math.max(lo, t.mean - t.sd), b = Math.min(hi, t.mean + t.sd);
    s.append(svg("rect", { x: x(a), y: 32, width: Math.max(1, x(b) - x(a)), height: 16, fill: "var(--fb-bar2)", opacity: 0.6 }));
  }
  s.append(svg("circle", { cx: x(t.mean), cy: 40, r: 5, fill: "var(--fb-bar)" }, svg("title", {}, `mean ${fmt(t.mean)}`)));
  for (const [sex, m] of Object.entries(t.by_sex ?? {}) as [string, Json][]) {
    if (typeof m?.mean !== "number") continue;
    s.append(svg("text", { x: x(m.mean), y: sex.startsWith("f") ? 66 : 24, "text-anchor": "middle", "font-size": 11, fill: "var(--fg2)" }, sex.startsWith("f") ? "♀" : "♂"));
  }
  return s;
}

function traitCard(t: Json, rows: Json[] | null): HTMLElement {
  const vals = rows ? rows.map((r) => r[t.trait]).filter((v): v is number => typeof v === "number") : [];
  const pic = vals.length > 1 ? histogram(t.trait, vals, t.min, t.max) : spread(t);
  const axis = svg("g", {}, svg("text", { x: 4, y: H - 3, "font-size": 10, fill: "var(--fg2)" }, fmt(t.min)),
    svg("text", { x: W - 4, y: H - 3, "font-size": 10, fill: "var(--fg2)", "text-anchor": "end" }, fmt(t.max)));
  pic.append(axis);
  return el("div", { class: "dist", "data-trait": t.trait, "data-n": t.n },
    el("div", {}, el("b", { class: "mono" }, t.trait), el("span", { class: "muted small" }, ` n ${t.n} · mean ${fmt(t.mean)} · SD ${fmt(t.sd)}`)),
    pic);
}

// traitLegend names what the trait pictures draw: histograms where the
// animals' rows were read, else each trait's range, band and means.
function traitLegend(traits: Json[], rows: Json[] | null): HTMLElement {
  const items: [string | Node, string][] = [];
  const hist = rows ? traits.filter((t) => rows.filter((r) => typeof r[t.trait] === "number").length > 1).length : 0;
  if (hist) items.push([swatch("background:var(--fb-bar)"), "histogram bars: the animals in each tenth of the range, lowest EBV on the left"]);
  if (hist < traits.length) {
    items.push(
      [swatch("background:var(--fg2);height:2px;border:0"), "line: lowest to highest EBV"],
      [swatch("background:var(--fb-bar2);opacity:.6"), "band: mean ± one SD"],
      [swatch("background:var(--fb-bar);border-radius:50%"), "dot: the mean"],
      ["♂", "the rams' mean"], ["♀", "the ewes' mean"]);
  }
  return legend(...items);
}

async function render(a: Answer, v: View) {
  const d = a.data ?? {};
  if (!Array.isArray(d.traits)) {
    show(v.root, el("p", { class: "muted" }, "No flock summary in this answer."));
    return;
  }
  let rows: Json[] | null = null;
  let note = "";
  try {
    const full = await v.readFull(a);
    // Rows the statistics left out (they contradict the group's filter)
    // are left out of the pictures too.
    if (Array.isArray(full?.rows)) rows = full.rows.filter((r: Json) => !r?.left_out);
  } catch (err) {
    note = "The flock's rows could not be read (" + (err instanceof Error ? err.message : String(err)) + "); each trait shows its range, mean and SD.";
  }
  const who = d.flock_id ? `Flock ${d.flock_id}` : d.progeny_of ? `Progeny of ${d.progeny_of}` : "Group";
  show(v.root,
    el("h1", {}, `${who}: ${d.animals ?? "?"} animals`),
    el("div", { class: "counts" }, countBars("Sex", d.by_sex), countBars("Status", d.by_status), countBars("Birth year", d.by_birth_year)),
    el("h2", {}, "Traits"),
    traitLegend(d.traits, rows),
    el("div", { class: "dists" }, ...d.traits.map((t: Json) => traitCard(t, rows))),
    note ? el("p", { class: "note" }, note) : null,
  );
}

start("flock", render);
