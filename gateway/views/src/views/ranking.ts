// The ranking of nsip_rank_animals as a table a breeder can sort by any
// column (click a heading; again to reverse). Accuracies under 40% are
// marked as in the EBV view.
import { Answer, Json, View, el, fmt, legend, scroller, show, start } from "../common";

const lowAccuracy = 40;

function cell(col: string, v: Json): HTMLElement {
  const numeric = typeof v === "number";
  const td = el("td", { class: numeric ? "num" : col === "lpn_id" ? "mono" : "", "data-value": numeric ? v : undefined }, fmt(v));
  if (col.endsWith("_acc") && numeric && v < lowAccuracy) {
    td.classList.add("low");
    td.append(el("span", { class: "flag", title: `accuracy under ${lowAccuracy}%` }, " ⚠"));
  }
  return td;
}

function compare(a: Json, b: Json): number {
  const an = a === null || a === undefined || a === "";
  const bn = b === null || b === undefined || b === "";
  if (an || bn) return an === bn ? 0 : an ? 1 : -1; // blanks last either way
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a).localeCompare(String(b));
}

export function drawTable(root: HTMLElement, cols: string[], rows: Json[][], head: Node[]) {
  let by = 0;
  let dir = 1;
  const tbody = el("tbody");
  const ths = cols.map((c, i) => {
    // A button in the heading: a keyboard reaches it and Enter or Space
    // sorts, as a pointer's click does.
    const btn = el("button", { type: "button" }, c.replace(/_acc$/, " acc %"));
    btn.addEventListener("click", () => {
      dir = by === i ? -dir : 1;
      by = i;
      fill();
    });
    return el("th", { class: "sort" + (c === "rank" ? " num" : ""), scope: "col", "data-col": c }, btn);
  });
  const fill = () => {
    const sorted = rows.map((r, i) => [r, i] as [Json[], number]).sort((x, y) => {
      const blank = (v: Json) => v === null || v === undefined || v === "";
      const bx = blank(x[0][by]), byy = blank(y[0][by]);
      if (bx !== byy) return bx ? 1 : -1; // blanks last, whichever way
      const c = compare(x[0][by], y[0][by]);
      return c === 0 ? x[1] - y[1] : c * dir;
    });
    ths.forEach((th, i) => (i === by ? th.setAttribute("aria-sort", dir > 0 ? "ascending" : "descending") : th.removeAttribute("aria-sort")));
    tbody.replaceChildren(...sorted.map(([r]) => el("tr", { class: "rank-row", "data-lpn": r[cols.indexOf("lpn_id")] }, ...r.map((v, i) => cell(cols[i], v)))));
  };
  fill();
  show(root, ...head, scroller("ranking", el("table", {}, el("thead", {}, el("tr", {}, ...ths)), tbody)));
}

function render(a: Answer, v: View) {
  const d = a.data ?? {};
  const cols: string[] = d.columns ?? [];
  const rows: Json[][] = d.top ?? d.rows ?? [];
  if (!cols.length || !rows.length) {
    show(v.root, el("p", { class: "muted" }, "No ranked animals in this answer."));
    return;
  }
  const by = d.index_name ?? d.index ?? (d.weights ? Object.entries(d.weights).map(([k, w]) => `${fmt(w)} × ${k}`).join(" + ") : "index");
  const c = d.computed ?? {};
  const facts = [
    `${rows.length} animals by ${by}`,
    c.population !== undefined ? `of ${c.population} in the breed` : "",
    c.exact === true ? "exact" : c.exact === false ? "not proven exact" : "",
    d.left_out_by_status?.count ? `${d.left_out_by_status.count} of other statuses left out` : "",
  ].filter(Boolean);
  drawTable(v.root, cols, rows, [
    el("h1", {}, "Ranking"),
    el("p", { class: "muted small" }, facts.join(" · ")),
    el("p", { class: "note" }, "Click a heading (or press Enter on it) to sort by it; again to reverse."),
    legend(["▲", "sorted by this column, lowest first"], ["▼", "sorted by this column, highest first"],
      ["⚠", `accuracy under ${lowAccuracy}%: an early estimate that may move`], ["–", "no value"]),
  ]);
}

start("ranking", render);
