// The breeder's web app: search a breed's animals, open one's page (EBVs
// with breed percentiles, indexes, pedigree, breeder's contact), compare
// animals and plan matings. Every answer comes from the server's tools
// over the page's one MCP connection; the tools' own views are hosted as
// an MCP Apps host does (see host.ts). Each answer is a card put at the
// top of the results, brought into view and given the focus, so that a
// breeder on a phone, where the results are below the forms, sees it.
import type { Client } from "@modelcontextprotocol/client";
import { connect, tokenFromFragment } from "./connect";
import { el } from "./dom";
import { drop, show, textOf, themeChanged, type Host, type Theme } from "./host";

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const status = $("status");
const results = $("results");
let host: Host | null = null;

// The theme: the one picked with the button, else the device's.
const dark = matchMedia("(prefers-color-scheme: dark)");
function theme(): Theme {
  const t = document.documentElement.dataset.theme;
  return t === "light" || t === "dark" ? t : dark.matches ? "dark" : "light";
}
dark.addEventListener("change", () => themeChanged(theme()));
$("theme").addEventListener("click", () => {
  document.documentElement.dataset.theme = theme() === "dark" ? "light" : "dark";
  themeChanged(theme());
});

function setStatus(msg: string, cls = "") {
  status.textContent = msg;
  status.className = cls;
}

const message = (err: unknown) => String((err as Error)?.message ?? err);

// Storage may be refused (a private window, a locked-down browser): the
// app then works without remembering.
const remembered = {
  get(key: string): string {
    try {
      return localStorage.getItem("nsip-web-app." + key) ?? "";
    } catch {
      return "";
    }
  },
  set(key: string, value: string) {
    try {
      localStorage.setItem("nsip-web-app." + key, value);
    } catch {
      /* not remembered */
    }
  },
};

// structured is the answer's data: structuredContent, else its text as JSON.
function structured(result: Json): Json {
  if (result?.structuredContent !== undefined) return result.structuredContent;
  try {
    return JSON.parse(textOf(result));
  } catch {
    return null;
  }
}

// objects walks an answer and yields every object in it, rows given as
// columns and rows made objects, so that whatever shape the answer has
// (NSIP's own, decoded or summarized) its records are found.
function* objects(v: Json): Generator<Json> {
  if (Array.isArray(v)) {
    for (const x of v) yield* objects(x);
    return;
  }
  if (!v || typeof v !== "object") return;
  if (Array.isArray(v.columns) && Array.isArray(v.rows ?? v.top)) {
    for (const r of v.rows ?? v.top) {
      if (Array.isArray(r)) yield Object.fromEntries(v.columns.map((c: string, i: number) => [c, r[i]]));
    }
  }
  yield v;
  for (const x of Object.values(v)) yield* objects(x);
}

// bornFromID is the birth year an LPN ID carries after its six digits of
// breed and flock (6402382024NCS310: 2024), as NSIP's search rows have no
// birth date; "" for an ID of another form.
function bornFromID(lpn: string): string {
  const m = /^\d{6}((?:19|20)\d\d)[A-Za-z]{2,4}\d{1,4}$/.exec(lpn);
  return m && Number(m[1]) <= new Date().getFullYear() + 1 ? m[1] : "";
}

// A DEAD or CULL animal cannot be mated; every other status can.
const mateable = (st: string) => !/^(DEAD|CULL)$/i.test(st.trim());

// The answer cards. focusCard brings the new card's heading into view and
// gives it the focus, so that a screen reader reads it and a keyboard goes
// on from there.
function newCard(tool: string, label: string, lpn = ""): { card: HTMLElement; heading: HTMLElement } {
  const card = el("section", { class: "card", "data-tool": tool, "data-lpn": lpn || undefined, "aria-busy": "true" });
  const heading = el("h2", { tabindex: -1 }, label);
  card.setAttribute("aria-label", label);
  const close = el("button", { class: "close", type: "button", "aria-label": "Close " + label }, "×");
  close.addEventListener("click", () => {
    drop(card);
    results.querySelector<HTMLElement>("section.card h2")?.focus();
  });
  card.append(el("header", {}, heading, el("span", { class: "tool" }, tool), close));
  results.prepend(card);
  focusCard(card);
  return { card, heading };
}

function focusCard(card: HTMLElement) {
  const heading = card.querySelector<HTMLElement>("h2");
  heading?.focus({ preventScroll: true });
  card.scrollIntoView({ block: "start" });
}

// settled ends a card's busy state and, when the breeder is still on its
// heading, brings it back into view: the answer may have moved the page.
function settled(card: HTMLElement) {
  card.removeAttribute("aria-busy");
  card.dataset.ready = "";
  if (card.contains(document.activeElement) && card.isConnected) card.scrollIntoView({ block: "start" });
}

async function call(name: string, args: Json, label: string) {
  if (!host) return;
  const { card } = newCard(name, label);
  try {
    const result = await host.client.callTool({ name, arguments: args });
    await show(host, card, name, args, result);
    return result;
  } catch (err) {
    card.append(el("p", { class: "error", role: "alert" }, message(err)));
  } finally {
    settled(card);
  }
  return undefined;
}

// Breeds from nsip_list_breeds, in alphabetical order; the picker starts
// at the breed chosen last, else at the first.
async function loadBreeds(client: Client) {
  const res = await client.callTool({ name: "nsip_list_breeds", arguments: {} });
  const select = $<HTMLSelectElement>("breed");
  const breeds = new Map<number, string>();
  for (const o of objects(structured(res))) {
    const id = o.breedId ?? (o.name && !o.breeds ? o.id : undefined);
    const name = o.breedName ?? o.name;
    if (typeof id !== "number" || typeof name !== "string" || breeds.has(id)) continue;
    breeds.set(id, name);
  }
  if (!breeds.size) throw new Error("nsip_list_breeds named no breeds: " + textOf(res).slice(0, 200));
  const sorted = [...breeds].sort((a, b) => a[1].localeCompare(b[1]));
  select.replaceChildren(...sorted.map(([id, name]) => el("option", { value: id }, name)));
  const last = remembered.get("breed");
  if (last && breeds.has(Number(last))) select.value = last;
  select.disabled = false;
  await loadSorts().catch((err) => setStatus("The breed's traits could not be read: " + message(err), "bad"));
}

// The sort choices of the chosen breed: its traits (the codes of its trait
// ranges, which NSIP's search sorts by) and its indexes (the members of its
// rows named ...Index, which nsip_rank_animals ranks by).
let traitCodes: string[] = [];
async function loadSorts() {
  if (!host) return;
  const breed = Number($<HTMLSelectElement>("breed").value);
  const sort = $<HTMLSelectElement>("sort");
  const go = $<HTMLButtonElement>("search-go");
  sort.disabled = go.disabled = true;
  const [ranges, sample] = await Promise.all([
    host.client.callTool({ name: "nsip_get_trait_ranges", arguments: { breed_id: breed } }),
    host.client.callTool({ name: "nsip_search_animals", arguments: { breed_id: breed, page_size: 1 } }),
  ]);
  if (breed !== Number($<HTMLSelectElement>("breed").value)) return; // another breed was chosen meanwhile
  const r = structured(ranges) ?? {};
  traitCodes = Object.keys(r).filter((k) => /^[A-Z][A-Z0-9]*$/.test(k) && typeof r[k] === "object");
  const indexes = new Set<string>();
  for (const o of objects(structured(sample))) {
    if (typeof o.lpnId !== "string") continue;
    for (const k of Object.keys(o)) if (/index$/i.test(k) && typeof o[k] === "number") indexes.add(k);
  }
  const before = sort.value || "trait:" + (remembered.get("sort") || "WWT");
  sort.replaceChildren(
    el("optgroup", { label: "Traits (EBVs)" }, ...traitCodes.map((c) => el("option", { value: "trait:" + c }, c))),
    ...(indexes.size ? [el("optgroup", { label: "Indexes" }, ...[...indexes].sort().map((k) => el("option", { value: "index:" + k }, indexLabel(k))))] : []),
  );
  sort.value = before;
  if (!sort.value) sort.selectedIndex = 0;
  sort.disabled = go.disabled = false;
}

// indexLabel is an index's row key as a breeder reads it: usHairIndex is
// "US Hair Index", srcIndex "SRC Index".
function indexLabel(key: string): string {
  const words = key.replace(/([a-z0-9])([A-Z])/g, "$1 $2").split(" ");
  return words.map((w, i) => (i === 0 && w.length <= 3 ? w.toUpperCase() : w[0].toUpperCase() + w.slice(1))).join(" ");
}

// The rams, ewes and animals to compare the breeder has picked.
const picked = { compare: $<HTMLTextAreaElement>("compare-lpns"), rams: $<HTMLTextAreaElement>("rams"), ewes: $<HTMLTextAreaElement>("ewes") };

function lpns(s: string): string[] {
  return s.split(/[\s,;]+/).filter(Boolean);
}

function countPicked() {
  const r = lpns(picked.rams.value).length;
  const e = lpns(picked.ewes.value).length;
  $("matings-count").textContent = r || e ? `(${r} ${r === 1 ? "ram" : "rams"}, ${e} ${e === 1 ? "ewe" : "ewes"})` : "";
}

function addTo(area: HTMLTextAreaElement, lpn: string, what: string) {
  const have = lpns(area.value);
  if (!have.includes(lpn)) area.value = [...have, lpn].join("\n");
  countPicked();
  setStatus(`${lpn} added to the ${what}: ${lpns(area.value).length} in all`, "ok");
}

// addButtons are the "+ compare", "+ ram" and "+ ewe" of one animal: a ram
// or ewe only when it could be mated (not DEAD or CULL) and, when its sex
// is known, of that sex.
function addButtons(lpn: string, sex: string, st: string): HTMLElement[] {
  const out: HTMLElement[] = [];
  const cmp = el("button", { type: "button", class: "add", "data-add": "compare", "aria-label": `+ compare ${lpn}` }, "+ compare");
  cmp.addEventListener("click", () => addTo(picked.compare, lpn, "comparison"));
  out.push(cmp);
  if (!mateable(st)) return out;
  for (const [as, label, area, what] of [["m", "+ ram", picked.rams, "rams"], ["f", "+ ewe", picked.ewes, "ewes"]] as const) {
    if (sex && !new RegExp("^" + as, "i").test(sex)) continue;
    const mate = el("button", { type: "button", class: "add", "data-add": what, "aria-label": `${label} ${lpn}` }, label);
    mate.addEventListener("click", () => addTo(area, lpn, what));
    out.push(mate);
  }
  return out;
}

// One searched animal: its LPN ID, status, sex when known, and the
// values asked for (a trait's EBV, or the index ranked by).
interface Row {
  lpn: string;
  status: string;
  sex: string;
  values: Map<string, number | null>;
}

// rowsOf reads an answer's animals, NSIP's records (trait members in
// lower case, e.g. wwt) or the server's table (a trait's cell [value,
// accuracy]) alike.
function rowsOf(res: Json, codes: string[], searchedSex: string): Row[] {
  const out = new Map<string, Row>();
  for (const o of objects(structured(res))) {
    const lpn = o.lpnId ?? o.lpn_id;
    if (typeof lpn !== "string" || out.has(lpn) || !("status" in o)) continue;
    const values = new Map<string, number | null>();
    for (const c of codes) {
      let v = o[c] ?? o[c.toLowerCase()];
      if (Array.isArray(v)) v = v[0];
      values.set(c, typeof v === "number" ? v : null);
    }
    const stated = String(o.gender ?? o.sex ?? "");
    out.set(lpn, { lpn, status: String(o.status ?? ""), sex: stated && stated !== "unknown" ? stated : searchedSex, values });
  }
  return [...out.values()];
}

const fmtValue = (v: number | null) => (v === null ? "–" : String(Math.round(v * 1000) / 1000));

function animalRow(r: Row, codes: string[]): HTMLElement {
  const open = el("button", { type: "button", class: "animal-open" }, r.lpn);
  open.addEventListener("click", () => openAnimal(r.lpn));
  const born = bornFromID(r.lpn);
  const value = (c: string) => el("td", { class: "num", "data-code": c }, fmtValue(r.values.get(c) ?? null));
  return el("tr", { class: "animal-row", "data-lpn": r.lpn, "data-status": r.status, "data-sex": r.sex || "unknown" },
    el("th", { scope: "row" }, open),
    codes.length ? value(codes[0]) : null,
    el("td", { class: "num", "data-col": "born" }, born || "–"),
    el("td", { "data-col": "status" }, r.status || "–"),
    el("td", { "data-col": "sex" }, r.sex || "–"),
    ...codes.slice(1).map(value),
    el("td", {}, el("div", { class: "actions" }, ...addButtons(r.lpn, r.sex, r.status))));
}

// addEBVs fills in the EBVs asked for of ranked animals, which a ranking
// by an index does not carry, from one comparison of them all.
async function addEBVs(rows: Row[], codes: string[]) {
  if (!host || !codes.length || rows.length < 2) return;
  const res = await host.client.callTool({ name: "nsip_compare_animals", arguments: { lpn_ids: rows.map((r) => r.lpn), traits: codes } });
  const sc = structured(res);
  if (res.isError || !Array.isArray(sc?.animals) || !Array.isArray(sc?.traits)) throw new Error("the ranked animals' EBVs could not be read: " + textOf(res).slice(0, 200));
  const by = new Map<string, Json>(sc.animals.map((a: Json) => [a.lpn_id, a]));
  for (const r of rows) {
    const ebv = by.get(r.lpn)?.ebv ?? [];
    for (const c of codes) {
      const cell = ebv[sc.traits.indexOf(c)];
      const v = Array.isArray(cell) ? cell[0] : cell;
      r.values.set(c, typeof v === "number" ? v : null);
    }
  }
}

// ascending reports whether rows' values of code rise from the first
// valued row to the last.
function ascending(rows: Row[], code: string): boolean {
  const vs = rows.map((r) => r.values.get(code)).filter((v): v is number => typeof v === "number");
  return vs.length > 1 && vs[0] < vs[vs.length - 1];
}

// The search's card: a table, the sort's column next to the LPN ID,
// and "More animals" while NSIP has more.
let searchCard: HTMLElement | null = null;

async function search(ev?: Event) {
  ev?.preventDefault();
  if (!host) return;
  const breedSel = $<HTMLSelectElement>("breed");
  const breed = Number(breedSel.value);
  const breedName = breedSel.selectedOptions[0]?.textContent ?? String(breed);
  const [kind, by] = $<HTMLSelectElement>("sort").value.split(/:(.*)/s);
  const criteria: Json = {};
  const st = $<HTMLSelectElement>("status-filter").value;
  if (st) criteria.status = st;
  const gender = $<HTMLSelectElement>("gender").value;
  if (gender) criteria.gender = gender;
  const flock = $<HTMLInputElement>("flock").value.trim();
  if (flock) criteria.flock_id = flock;
  const asked = lpns($<HTMLInputElement>("show-traits").value.toUpperCase());
  const unknown = asked.filter((c) => !traitCodes.includes(c));
  const shown = asked.filter((c) => traitCodes.includes(c) && c !== by);
  let name: string, args: Json, codes: string[];
  if (kind === "index") {
    // NSIP's search cannot sort by an index: nsip_rank_animals reads the
    // breed and ranks it. Without a status it ranks CURRENT animals only,
    // so "any status" is asked for in words.
    name = "nsip_rank_animals";
    args = { breed_id: breed, index: by, top_n: 15 };
    if (!st) criteria.status = "any";
    codes = ["index", ...shown];
  } else if (by) {
    name = "nsip_search_animals";
    args = { breed_id: breed, page_size: 15, sorted_trait: by, traits: [by, ...shown] };
    codes = [by, ...shown];
  } else {
    // A breed without trait ranges: NSIP's own order.
    name = "nsip_search_animals";
    args = { breed_id: breed, page_size: 15, ...(shown.length ? { traits: shown } : {}) };
    codes = shown;
  }
  if (Object.keys(criteria).length) args.search_criteria = criteria;
  remembered.set("sort", kind === "trait" ? by : "");
  const who = gender === "Male" ? "rams" : gender === "Female" ? "ewes" : "animals";
  const order = kind === "index" ? indexLabel(by) : by || "NSIP's order";
  const label = `${breedName} ${who}, ${st ? (st === "CURRENT" ? "usable now (CURRENT)" : st) : "any status"}, by ${order}`;
  if (searchCard) drop(searchCard);
  const { card } = newCard(name, label);
  searchCard = card;
  card.dataset.search = "";
  card.dataset.sort = kind === "index" ? "index" : by ?? "";
  // The sorted column comes next to the LPN ID, where a phone shows it.
  const colHead = (c: string | undefined, sorted: boolean) =>
    c === undefined ? null : el("th", { scope: "col", class: "num", "data-code": c, "aria-sort": sorted && by ? "descending" : undefined }, c === "index" ? indexLabel(by) : c);
  const head = el("tr", {},
    el("th", { scope: "col" }, "LPN ID"),
    colHead(codes[0], true),
    el("th", { scope: "col", class: "num" }, "born (from ID)"),
    el("th", { scope: "col" }, "status"),
    el("th", { scope: "col" }, "sex"),
    ...codes.slice(1).map((c) => colHead(c, false)),
    el("th", { scope: "col" }, "add to"));
  const tbody = el("tbody");
  const summary = el("p", { class: "facts" });
  const more = el("button", { type: "button", class: "more", hidden: true }, "More animals");
  card.append(summary,
    el("div", { class: "scroll", tabindex: 0, role: "region", "aria-label": label + ": table" },
      el("table", { class: "animals" }, el("thead", {}, head), tbody)),
    more);
  if (unknown.length) card.append(el("p", { class: "muted note" }, `Not traits of ${breedName}, so not shown: ${unknown.join(", ")}.`));
  let next: Json = null;
  const load = async (a: Json) => {
    more.hidden = true;
    card.setAttribute("aria-busy", "true");
    try {
      const res = await host!.client.callTool({ name, arguments: a });
      if (res.isError) throw new Error(textOf(res));
      const rows = rowsOf(res, codes, gender);
      // "Highest first" is what the breeder asked for: should NSIP give a
      // trait lowest first, the first page is asked for again reversed.
      if (name === "nsip_search_animals" && by && !a.reverse && !tbody.children.length && ascending(rows, by)) {
        await load({ ...a, reverse: true });
        return;
      }
      // Without the EBVs the ranking is still worth showing.
      if (name === "nsip_rank_animals") {
        await addEBVs(rows, codes.slice(1)).catch((err) => card.append(el("p", { class: "error", role: "alert" }, message(err))));
      }
      const first = tbody.children.length;
      tbody.append(...rows.map((r) => animalRow(r, codes)));
      const meta = (res as Json)._meta ?? {};
      const total = meta.total_count ?? structured(res)?.computed?.population;
      next = name === "nsip_search_animals" ? (meta.next?.arguments ?? null) : null;
      more.hidden = !next;
      const n = tbody.children.length;
      summary.textContent = [
        `${n}${typeof total === "number" ? " of " + total : ""} animals`,
        by ? `sorted by ${order}, highest first` : "in NSIP's order",
        "born is the year in the LPN ID",
        // NSIP's search rows carry no sex; a ranking's and a search by sex's do.
        rows.some((r) => !r.sex) ? "sex shown when searched by sex" : "",
      ].filter(Boolean).join(" · ");
      if (!n) tbody.append(el("tr", {}, el("td", { colspan: codes.length + 5, class: "muted" }, "No animals match.")));
      setStatus(summary.textContent, "ok");
      // More animals: the focus goes to the first new one.
      if (first) tbody.children[first]?.querySelector<HTMLElement>("button")?.focus();
    } catch (err) {
      card.append(el("p", { class: "error", role: "alert" }, message(err)));
      setStatus("The search failed: " + message(err), "bad");
    } finally {
      settled(card);
    }
  };
  more.addEventListener("click", () => next && void load(next));
  await load(args);
}

// The animal's page: its facts, the breeder's contact and its indexes in
// the page itself, its EBVs with breed percentiles (nsip_get_animal) and
// its pedigree (nsip_search_by_lpn) in the tools' views.
async function openAnimal(lpn: string) {
  if (!host) return;
  $<HTMLInputElement>("lpn").value = lpn;
  const h = host;
  const { card } = newCard("nsip_search_by_lpn", "Animal " + lpn, lpn);
  card.dataset.animal = "";
  setStatus(`Reading ${lpn}: its record, pedigree and place in the breed…`);
  const about = el("div", { class: "about" });
  const ebvs = el("div", { class: "part", "data-part": "ebvs" }, el("h3", {}, "EBVs and place in the breed"));
  const ped = el("div", { class: "part", "data-part": "pedigree" }, el("h3", {}, "Pedigree"));
  card.append(about, ebvs, ped);
  const part = async (box: HTMLElement, name: string, args: Json) => {
    try {
      const res = await h.client.callTool({ name, arguments: args });
      await show(h, box, name, args, res, card);
      return res.isError ? null : structured(res);
    } catch (err) {
      box.append(el("p", { class: "error", role: "alert" }, message(err)));
      return null;
    }
  };
  const [profile, pct] = await Promise.all([
    part(ped, "nsip_search_by_lpn", { lpn_id: lpn }),
    part(ebvs, "nsip_get_animal", { search_string: lpn, percentiles: true }),
  ]);
  about.append(...aboutAnimal(lpn, profile, pct));
  setStatus(profile || pct ? `Animal ${lpn}` : `Animal ${lpn}: not found or not read`, profile || pct ? "ok" : "bad");
  settled(card);
}

function first(v: Json, key: string): Json {
  for (const o of objects(v)) if (o[key] !== undefined && o[key] !== null) return o[key];
  return undefined;
}

function facts(items: [string, Json][]): HTMLElement {
  const dl = el("dl", { class: "facts-list" });
  for (const [k, v] of items) {
    if (v === undefined || v === null || v === "") continue;
    dl.append(el("div", {}, el("dt", {}, k), el("dd", {}, v instanceof Node ? v : String(v))));
  }
  return dl;
}

function aboutAnimal(lpn: string, profile: Json, pct: Json): HTMLElement[] {
  const a = profile?.animal ?? profile ?? {};
  const p = pct ?? {};
  const sex = String(a.gender ?? p.sex ?? first(profile, "gender") ?? "");
  const st = String(a.status ?? p.status ?? "");
  const parent = (id: Json) => {
    if (typeof id !== "string" || !id) return undefined;
    const b = el("button", { type: "button", class: "link" }, id);
    b.addEventListener("click", () => openAnimal(id));
    return b;
  };
  const out: HTMLElement[] = [
    facts([
      ["Sex", sex],
      ["Born", a.dob ?? p.born],
      ["Status", st],
      ["Breed", a.breed ?? p.breed],
      ["Sire", parent(a.sire ?? p.sire)],
      ["Dam", parent(a.dam ?? p.dam)],
      ["Progeny", a.total_progeny],
      ["Genotyped", a.genotyped ?? p.genotyped],
    ]),
    el("p", { class: "buttons" }, ...addButtons(lpn, sex, st)),
  ];
  const ix = p.indexes ?? first(profile, "indexes");
  if (ix && typeof ix === "object") {
    out.push(el("section", { class: "indexes" }, el("h3", {}, "Indexes"),
      facts(Object.entries(ix).map(([k, v]) => [k, typeof v === "number" ? fmtValue(v) : v]))));
  }
  const c = first(profile, "contact") ?? first(profile, "contactInfo");
  if (c && typeof c === "object") {
    const email = c.email ? el("a", { href: "mailto:" + encodeURIComponent(String(c.email)).replace(/%40/g, "@") }, String(c.email)) : undefined;
    const phone = c.phone ? el("a", { href: "tel:" + String(c.phone).replace(/[^0-9+]/g, "") }, String(c.phone)) : undefined;
    const place = [c.address, c.city, [c.state, c.zip ?? c.zipCode].filter(Boolean).join(" ")].filter(Boolean).join(", ");
    out.push(el("section", { class: "contact" }, el("h3", {}, "Breeder"),
      facts([["Farm", c.farm ?? c.farmName], ["Breeder", c.customerName], ["Flock", c.flock ?? c.flockCode], ["Phone", phone], ["Email", email], ["Address", place]])));
  } else {
    out.push(el("p", { class: "muted" }, "NSIP gives no breeder's contact for this animal."));
  }
  return out;
}

function weights(s: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of s.split(/[,;\s]+/).filter(Boolean)) {
    const m = /^([A-Za-z][A-Za-z0-9]*)[=:](-?\d+(\.\d+)?)$/.exec(part);
    if (!m) throw new Error(`weights: "${part}" is not TRAIT=number, e.g. WWT=1`);
    out[m[1].toUpperCase()] = Number(m[2]);
  }
  return out;
}

function wire() {
  $("search-form").addEventListener("submit", (ev) => void search(ev));
  $("breed").addEventListener("change", () => {
    remembered.set("breed", $<HTMLSelectElement>("breed").value);
    loadSorts().catch((err) => setStatus("The breed's traits could not be read: " + message(err), "bad"));
  });
  $("animal-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const lpn = $<HTMLInputElement>("lpn").value.trim();
    if (lpn) void openAnimal(lpn);
  });
  $("compare-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const ids = lpns(picked.compare.value);
    void call("nsip_compare_animals", { lpn_ids: ids, percentiles: true }, `Comparing ${ids.length} animals`);
  });
  for (const area of [picked.rams, picked.ewes]) area.addEventListener("input", countPicked);
  $("matings-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const err = $("matings-error");
    err.textContent = "";
    try {
      const args: Json = { ram_lpn_ids: lpns(picked.rams.value), ewe_lpn_ids: lpns(picked.ewes.value), weights: weights($<HTMLInputElement>("weights").value) };
      const coi = $<HTMLInputElement>("max-coi").value.trim();
      if (coi) args.max_coi = Number(coi) / 100;
      void call("nsip_plan_matings", args, `Mating plan: ${args.ram_lpn_ids.length} rams × ${args.ewe_lpn_ids.length} ewes`);
    } catch (e) {
      err.textContent = String((e as Error).message);
    }
  });
}

async function start(token: string) {
  setStatus("Connecting…");
  try {
    const { client, via } = await connect(token);
    const tools = new Map<string, Json>();
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined);
      for (const t of page.tools) tools.set(t.name, t);
      cursor = page.nextCursor;
    } while (cursor);
    host = { client, tools, theme };
    client.onclose = () => {
      host = null;
      delete document.body.dataset.connected;
      setStatus("Disconnected from the server: connect again", "bad");
      $("login").hidden = false;
    };
    $("login").hidden = true;
    const sv = client.getServerVersion();
    setStatus(`Connected to ${sv?.name ?? "the server"} ${sv?.version ?? ""} over ${via}`, "ok");
    document.body.dataset.connected = via;
    await loadBreeds(client);
  } catch (err) {
    setStatus("Not connected: " + message(err), "bad");
    $("login").hidden = false;
  }
}

wire();
$("login").addEventListener("submit", (ev) => {
  ev.preventDefault();
  void start($<HTMLInputElement>("token").value.trim());
});
void start(tokenFromFragment());
