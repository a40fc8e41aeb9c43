// The inbreeding matrix: the lamb's COI for every ram (rows) with every ewe
// (columns), the plan's pairs marked (nsip_plan_matings), or every cell
// from the answer itself when it is the matrix alone (coi_only); for one pair
// (nsip_check_mating), its cell and its common ancestors. The plan's answer
// holds the COI of the pairs it mated; the view asks the server for the
// others itself (nsip_check_mating), so the matrix never passes through
// the model. It does so on its own only when the plan read every pedigree,
// so that the checks are answered from what the plan already read; after
// a plan cut short (its time limit, or pedigrees left unread) each check
// would be fresh NSIP lookups, and the view shows the cells as unknown and
// asks first.
import { Answer, Json, View, el, fmt, legend, scroller, show, start, swatch } from "../common";
import { Matrix, Plan, isMatrix, key, mergeFullMatrix, mergeFullPlan, readMatrix, readPlan } from "../shapes";

// autoPairs bounds how many pairs the view asks about without being told:
// a 10 x 100 plan would be 1,000 calls.
const autoPairs = 120;
const atOnce = 2;

function coiText(coi: number | null): string {
  return coi === null ? "?" : fmt(coi * 100, 2) + "%";
}

function setCell(td: HTMLElement, coi: number | null, maxCOI: number | null, title: string) {
  td.textContent = coiText(coi);
  td.classList.remove("pending");
  td.setAttribute("data-coi", coi === null ? "unknown" : String(coi));
  // A heat scale: the tint deepens with the COI, full at 25% (a
  // full-sibling mating).
  if (coi !== null) td.style.background = `color-mix(in srgb, var(--fb-bad) ${Math.round(Math.min(1, coi / 0.25) * 35)}%, transparent)`;
  const over = coi !== null && maxCOI !== null && coi > maxCOI;
  if (over) td.classList.add("over");
  td.title = title + (over ? `; over the COI cap of ${coiText(maxCOI)}` : "");
}

// planComplete reports whether the plan read every pedigree it needed:
// no pair left unresolved and no time limit reached. Only then are the
// other pairs' checks answered from the cache.
function planComplete(d: Json): boolean {
  return !d.unresolved && d.computed?.upstream?.time_limit_reached !== true;
}

// askFirst shows the unfilled cells as unknown, with a button that checks
// them only when pressed, saying what that costs.
function askFirst(v: View, todo: [string, string, HTMLElement][], maxCOI: number | null, status: HTMLElement, d: Json) {
  const why = d.computed?.upstream?.time_limit_reached === true ? "stopped at its time limit" : "did not read every pedigree";
  for (const [ram, ewe, td] of todo) {
    td.textContent = "?";
    td.classList.remove("pending");
    td.classList.add("unknown");
    td.setAttribute("data-coi", "unknown");
    td.title = `${ram} × ${ewe}: not computed (the plan ${why})`;
  }
  const n = todo.length;
  const btn = el("button", { type: "button", class: "compute-missing" }, `Compute the ${n} missing COIs (about ${n} NSIP lookups)`);
  btn.addEventListener("click", () => {
    btn.remove();
    for (const [, , td] of todo) td.classList.replace("unknown", "pending");
    void fillPairs(v, todo, maxCOI);
  });
  status.append(`The plan ${why}, so the COI of the ${n} pairs it did not mate is unknown here: checking them reads NSIP, about a lookup each. `, btn);
}

// matrixLegend names every mark a cell may carry. A COI is unknown when an
// animal has no recorded parents (NSIP's pedigree ends with it), or when
// the pair was not checked.
function matrixLegend(plan: boolean): HTMLElement {
  const items: [string | Node, string][] = [
    [swatch("background:color-mix(in srgb, var(--fb-bad) 35%, transparent)"), "deeper tint: higher COI (full at 25%, a full-sibling mating)"],
    ["?", plan
      ? "COI unknown: an animal's parents are not recorded, or the pair was not checked"
      : "COI unknown: an animal's parents are not recorded"],
  ];
  if (plan) {
    items.unshift([el("span", {}, swatch("outline:2px solid var(--accent)"), "✓"), "a pair the plan mates (outlined)"]);
    items.push(["⚠", "over the COI cap (in bold)"], ["…", "being checked"], ["!", "the check failed (its tooltip says why)"]);
  }
  return legend(...items);
}

async function fillPairs(v: View, todo: [string, string, HTMLElement][], maxCOI: number | null) {
  let next = 0;
  const worker = async () => {
    while (next < todo.length) {
      const [ram, ewe, td] = todo[next++];
      try {
        const d = await v.callTool("nsip_check_mating", { sire_lpn_id: ram, dam_lpn_id: ewe });
        setCell(td, typeof d?.coi === "number" ? d.coi : null, maxCOI, `${ram} × ${ewe}: ${d?.rating ?? ""} (not in the plan)`);
      } catch (err) {
        td.textContent = "!";
        td.classList.remove("pending");
        td.title = err instanceof Error ? err.message : String(err);
      }
    }
  };
  await Promise.all(Array.from({ length: atOnce }, worker));
}

// addFullPlan marks the pairs of a plan cut to fit the budget from its
// whole table behind _meta.full, so that no mated pair is drawn as unmated.
async function addFullPlan(a: Answer, v: View, p: Plan) {
  try {
    mergeFullPlan(p, await v.readFull(a));
  } catch {
    // the cut plan still shows what it holds
  }
}

async function drawPlan(a: Answer, v: View) {
  const p = readPlan(a.data, a.args);
  await addFullPlan(a, v, p);
  const coiAt = p.cols.indexOf("coi");
  const table = el("table", { class: "matrix" });
  const head = el("tr", {}, el("th", {}, "ram \\ ewe"));
  for (const e of p.ewes) head.append(el("th", { class: "mono small", scope: "col" }, e));
  table.append(el("thead", {}, head));
  const body = el("tbody");
  const todo: [string, string, HTMLElement][] = [];
  for (const r of p.rams) {
    const tr = el("tr", {}, el("th", { class: "mono small", scope: "row" }, r));
    for (const e of p.ewes) {
      const td = el("td", { class: "cell pending", "data-ram": r, "data-ewe": e }, "…");
      const row = p.planned.get(key(r, e));
      if (row) {
        td.classList.add("planned");
        setCell(td, typeof row[coiAt] === "number" ? row[coiAt] : null, p.maxCOI,
          `${r} × ${e}: in the plan` + p.cols.map((c, i) => (i > 0 ? `, ${c} ${fmt(row[i])}` : "")).join(""));
      } else todo.push([r, e, td]);
      tr.append(td);
    }
    body.append(tr);
  }
  table.append(body);
  const d = a.data;
  const reasons = Object.entries(d.unassigned ?? {}).map(([why, list]) => el("li", {}, `${(list as string[]).length} not mated: ${why}`));
  const status = el("p", { class: "note" });
  show(v.root, 
    el("h1", {}, "Inbreeding matrix"),
    el("p", { class: "muted small" },
      `${p.rams.length} rams × ${p.ewes.length} ewes; ${d.mated ?? p.planned.size} mated` +
      (p.maxCOI !== null ? `, COI cap ${coiText(p.maxCOI)}` : "") +
      (typeof d.total_lamb_index === "number" ? `, total lamb index ${fmt(d.total_lamb_index)}` : "")),
    matrixLegend(true),
    scroller("inbreeding matrix", table),
    reasons.length ? el("ul", { class: "small" }, ...reasons) : null,
    status,
  );
  if (todo.length && !planComplete(d)) return askFirst(v, todo, p.maxCOI, status, d);
  const now = todo.slice(0, autoPairs);
  if (todo.length > now.length) {
    const btn = el("button", { type: "button" }, `Compute the other ${todo.length - now.length} pairs`);
    btn.addEventListener("click", () => {
      btn.remove();
      void fillPairs(v, todo.slice(autoPairs), p.maxCOI);
    });
    status.append(btn);
  }
  await fillPairs(v, now, p.maxCOI);
}

function drawCheck(a: Answer, v: View) {
  const d = a.data;
  const sire = d.sire?.lpn_id ?? a.args.sire_lpn_id ?? "sire";
  const dam = d.dam?.lpn_id ?? a.args.dam_lpn_id ?? "dam";
  const td = el("td", { class: "cell", "data-ram": sire, "data-ewe": dam });
  setCell(td, typeof d.coi === "number" ? d.coi : null, null, `${sire} × ${dam}: ${d.rating ?? ""}`);
  const table = el("table", { class: "matrix" },
    el("thead", {}, el("tr", {}, el("th", {}, "sire \\ dam"), el("th", { class: "mono small" }, dam))),
    el("tbody", {}, el("tr", {}, el("th", { class: "mono small" }, sire), td)));
  const top: Json[] = d.common_ancestors?.top ?? [];
  const maxC = Math.max(1e-9, ...top.map((x) => x.contribution ?? 0));
  const rows = top.map((x) => {
    const b = el("div", { class: "bar", title: `contributes ${coiText(x.contribution)} of the lamb's COI` });
    const fill = el("i");
    fill.style.width = `${(100 * (x.contribution ?? 0)) / maxC}%`;
    b.append(fill, el("b", {}, coiText(x.contribution)));
    // Each group of paths is [generations to the sire, to the dam, pairs];
    // more_paths counts pairs already.
    const paths = (x.paths ?? []).reduce((n: number, g: Json[]) => n + (typeof g?.[2] === "number" ? g[2] : 1), 0) + (x.more_paths ?? 0);
    return el("tr", { class: "ancestor-row", "data-lpn": x.lpn_id },
      el("td", { class: "mono" }, x.lpn_id), el("td", { style: "min-width:140px" }, b), el("td", { class: "num" }, paths));
  });
  show(v.root, 
    el("h1", {}, "Planned mating"),
    el("p", { class: "muted small" }, `COI ${coiText(d.coi ?? null)}, rating ${d.rating ?? "unknown"}` + (d.rating_thresholds ? ` (${d.rating_thresholds})` : "")),
    matrixLegend(false),
    scroller("the pair's COI", table),
    el("h2", {}, `Common ancestors (${d.common_ancestors?.count ?? 0})`),
    top.length
      ? scroller("common ancestors", el("table", {},
          el("thead", {}, el("tr", {}, el("th", {}, "ancestor"), el("th", {}, "share of the COI"), el("th", { class: "num" }, "paths"))),
          el("tbody", {}, ...rows)))
      : el("p", { class: "muted" }, "No common ancestor in the generations read."),
    d.basis ? el("p", { class: "note" }, String(d.basis)) : null,
  );
}

// drawMatrix draws a coi_only answer: every cell is in it or in its whole
// table, so nothing is checked. A lower bound is shown as one.
async function drawMatrix(a: Answer, v: View) {
  const m: Matrix = readMatrix(a.data);
  if (a.data.not_shown) {
    try {
      mergeFullMatrix(m, await v.readFull(a));
    } catch {
      // the cut matrix still shows what it holds
    }
  }
  const table = el("table", { class: "matrix" });
  const head = el("tr", {}, el("th", {}, "ram \\ ewe"));
  for (const e of m.ewes) head.append(el("th", { class: "mono small", scope: "col" }, e));
  table.append(el("thead", {}, head));
  const body = el("tbody");
  for (const r of m.rams) {
    const tr = el("tr", {}, el("th", { class: "mono small", scope: "row" }, r));
    for (const e of m.ewes) {
      const td = el("td", { class: "cell", "data-ram": r, "data-ewe": e });
      const c = m.cells.get(key(r, e));
      const bound = typeof c === "string" && c.startsWith(">=") ? Number(c.slice(2)) : NaN;
      if (typeof c === "number") setCell(td, c, m.maxCOI, `${r} × ${e}`);
      else if (!Number.isNaN(bound)) {
        setCell(td, bound, m.maxCOI, `${r} × ${e}: at least this (the pedigree was not read whole)`);
        td.textContent = "≥" + coiText(bound);
        td.setAttribute("data-coi", c as string);
      } else {
        td.textContent = "?";
        td.classList.add("unknown");
        td.setAttribute("data-coi", "unknown");
        td.title = `${r} × ${e}: ` + (c === undefined ? "not in the answer" : "unknown: NSIP records no parents of one of them");
      }
      tr.append(td);
    }
    body.append(tr);
  }
  table.append(body);
  show(v.root,
    el("h1", {}, "Inbreeding matrix"),
    el("p", { class: "muted small" },
      `${m.rams.length} rams × ${m.ewes.length} ewes, COI only (no plan)` +
      (m.maxCOI !== null ? `; ${a.data.over_max_coi ?? 0} over the cap of ${coiText(m.maxCOI)}` : "")),
    legend(
      [swatch("background:color-mix(in srgb, var(--fb-bad) 35%, transparent)"), "deeper tint: higher COI (full at 25%, a full-sibling mating)"],
      ["≥", "at least this COI: the pedigree behind the pair was not read whole"],
      ["?", "COI unknown: an animal's parents are not recorded"],
      ["⚠", "over the COI cap (in bold)"],
    ),
    scroller("inbreeding matrix", table),
  );
}

async function render(a: Answer, v: View) {
  if (isMatrix(a.data)) return drawMatrix(a, v);
  if (a.data && ("by_ram" in a.data || "unassigned" in a.data)) return drawPlan(a, v);
  if (a.data && "coi" in a.data) return drawCheck(a, v);
  show(v.root, el("p", { class: "muted" }, "No mating in this answer."));
}

start("matings", render);
