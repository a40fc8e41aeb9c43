// An animal's EBVs (nsip_get_animal) or several animals' (nsip_compare_animals):
// one row per EBV with its value, a bar for its accuracy (under 40% marked)
// and a bar for its place in the breed (top_percent), when the answer has it.
// Without percentiles a button asks the server for them, for this view only.
import { Answer, View, el, fmt, legend, show, start, swatch } from "../common";
import { Animal, EBV, animals, lowAccuracy } from "../shapes";

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
    legend(
      [swatch("background:var(--fb-bar)"), "accuracy"],
      [el("span", {}, swatch("background:var(--warn)"), "⚠"), `accuracy under ${lowAccuracy}%: an early estimate that may move` + (lows ? ` (${lows} here)` : "")],
      [swatch("background:var(--fb-bar2)"), "place in the breed (longer is better)"],
      ["–", "none given"]),
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
      status.textContent = " " + (err instanceof Error ? err.message : String(err));
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
