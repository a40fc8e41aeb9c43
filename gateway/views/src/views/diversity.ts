// A breed's inbreeding over time (nsip_breed_diversity): the mean COI of
// the animals born each year as bars, the largest as a mark above each,
// the same figures as a table (the chart's text alternative), and the
// breed's effective size and numbers of founders and ancestors. While the
// breed's pass is still being read, it says so and what to do.
import { Answer, Json, View, el, fmt, legend, scroller, show, start, svg, swatch } from "../common";

const W = 600;
const H = 220;
const left = 44;
const bottom = 24;

const pct = (x: number) => (100 * x).toFixed(2) + "%";

function chart(rows: Json[][]): SVGElement {
  const top = Math.max(0.01, ...rows.map((r) => r[3] as number));
  const y = (v: number) => H - bottom - ((H - bottom - 10) * v) / top;
  const slot = (W - left - 6) / rows.length;
  const first = rows[0][0], last = rows[rows.length - 1][0];
  const highest = rows.reduce((b, r) => (r[2] > b[2] ? r : b), rows[0]);
  // The picture's name says what it shows, for those who cannot see it;
  // the table below gives every figure.
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", class: "coi-chart",
    // Its own style, so that the views it shares style.css with are unchanged.
    style: "width:100%;max-width:720px;height:auto;display:block;margin:6px 0",
    "aria-label": `Mean COI by birth year, ${first} to ${last}: highest ${pct(highest[2])} in ${highest[0]}; every year's figures are in the table below` });
  s.append(svg("line", { x1: left, x2: W - 4, y1: H - bottom, y2: H - bottom, stroke: "var(--fg2)" }));
  for (const v of [0, top / 2, top]) {
    s.append(svg("text", { x: left - 4, y: y(v) + 4, "text-anchor": "end", "font-size": 11, fill: "var(--fg2)" }, pct(v)));
  }
  const every = Math.ceil(rows.length / 12); // year labels that do not overlap
  rows.forEach(([year, n, mean, maxCOI], i) => {
    const x = left + 3 + i * slot;
    const w = Math.max(2, slot - 4);
    s.append(svg("rect", { class: "coi-bar", x, y: y(mean), width: w, height: Math.max(0, H - bottom - y(mean)), fill: "var(--fb-bar)", "data-year": year },
      svg("title", {}, `${year}: mean COI ${pct(mean)} of ${n} animals`)));
    s.append(svg("line", { class: "coi-max", x1: x, x2: x + w, y1: y(maxCOI), y2: y(maxCOI), stroke: "var(--fg)", "stroke-width": 2 },
      svg("title", {}, `${year}: largest COI ${pct(maxCOI)}`)));
    if (i % every === 0) {
      s.append(svg("text", { x: x + w / 2, y: H - 8, "text-anchor": "middle", "font-size": 11, fill: "var(--fg2)" }, String(year)));
    }
  });
  return s;
}

function yearTable(rows: Json[][]): HTMLElement {
  const head = el("tr", {}, ...["Birth year", "Animals", "Mean COI", "Largest COI"].map((h, i) => el("th", { scope: "col", class: i ? "num" : "" }, h)));
  const body = rows.map(([year, n, mean, maxCOI]) =>
    el("tr", { class: "year-row" }, el("td", {}, String(year)), el("td", { class: "num" }, String(n)),
      el("td", { class: "num" }, pct(mean)), el("td", { class: "num" }, pct(maxCOI))));
  return scroller("COI by birth year", el("table", {}, el("caption", { class: "small muted" }, "COI by birth year"), el("thead", {}, head), el("tbody", {}, ...body)));
}

// figure is one of the answer's figures as a line: its name, its value
// (or why it has none) and how it was computed.
function figure(name: string, f: Json, digits = 3): HTMLElement {
  const value = typeof f?.value === "number" ? fmt(f.value, digits) : "not computed";
  return el("li", { class: "figure", style: "margin:3px 0" }, el("b", {}, `${name}: ${value}`), el("span", { class: "muted small" }, ` ${f?.method ?? ""}${f?.unproven ? "; " + f.unproven : ""}`));
}

function render(a: Answer, v: View) {
  const d = a.data ?? {};
  if (typeof d.breed_pass === "string" && !d.coi_by_birth_year) {
    show(v.root, el("h1", {}, `Breed ${d.breed_id ?? "?"}: not read yet`), el("p", { class: "pending" }, d.breed_pass), el("p", { class: "note" }, d.next ?? ""));
    return;
  }
  const rows: Json[][] = d.coi_by_birth_year?.rows ?? [];
  if (!rows.length) {
    show(v.root, el("p", { class: "muted" }, "No birth years in this answer."));
    return;
  }
  const who = `Breed ${d.breed_id}` + (d.flock_id ? `, flock ${d.flock_id}` : "");
  const ref = d.reference ?? {};
  show(v.root,
    el("h1", {}, `${who}: inbreeding by birth year`),
    el("p", { class: "muted small" }, `${d.animals} animals · ${d.founders} founders · ${d.one_parent_known} with one parent known · ` +
      `mean equivalent complete generations ${fmt(d.completeness?.mean_equivalent_generations, 2)}`),
    legend([swatch("background:var(--fb-bar)"), "bar: mean COI of the animals born that year"],
      [swatch("background:var(--fg);height:2px;border:0"), "line: the largest COI that year"]),
    chart(rows),
    yearTable(rows),
    d.coi_by_birth_year.left_out ? el("p", { class: "note" }, "Left out: " + d.coi_by_birth_year.left_out) : null,
    el("h2", {}, `Born ${(ref.birth_years ?? []).join(" and ")} (${ref.animals ?? 0} animals)`),
    el("ul", { class: "figures", style: "padding-left:18px;margin:4px 0" }, figure("Rate of inbreeding ΔF", d.delta_f, 4), figure("Effective population size Ne", d.ne, 1),
      figure("Effective founders f_e", d.fe, 1), figure("Effective ancestors f_a", d.fa, 1)),
  );
}

start("diversity", render);
