// The breeder's web app: search a breed's animals, open one's profile and
// pedigree, compare animals and plan matings. Every answer comes from the
// server's tools over the page's one MCP connection and is shown in the
// tool's own view, hosted as an MCP Apps host does (see host.ts).
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
  if (Array.isArray(v.columns) && Array.isArray(v.rows)) {
    for (const r of v.rows) {
      if (Array.isArray(r)) yield Object.fromEntries(v.columns.map((c: string, i: number) => [c, r[i]]));
    }
  }
  yield v;
  for (const x of Object.values(v)) yield* objects(x);
}

async function call(name: string, args: Json, label: string) {
  if (!host) return;
  const card = el("section", { class: "card", "data-tool": name, "aria-busy": "true" });
  const close = el("button", { class: "close", type: "button", "aria-label": "Close" }, "×");
  close.addEventListener("click", () => drop(card));
  card.append(el("header", {}, el("h2", {}, label), el("span", { class: "tool" }, name), close));
  results.prepend(card);
  try {
    const result = await host.client.callTool({ name, arguments: args });
    await show(host, card, name, args, result);
    return result;
  } catch (err) {
    card.append(el("p", { class: "error", role: "alert" }, String((err as Error)?.message ?? err)));
  } finally {
    card.removeAttribute("aria-busy");
  }
  return undefined;
}

// Breeds from nsip_list_breeds, grouped as NSIP groups them.
async function loadBreeds(client: Client) {
  const res = await client.callTool({ name: "nsip_list_breeds", arguments: {} });
  const select = $<HTMLSelectElement>("breed");
  select.replaceChildren();
  const seen = new Set<number>();
  for (const o of objects(structured(res))) {
    const id = o.breedId ?? (o.name && !o.breeds ? o.id : undefined);
    const name = o.breedName ?? o.name;
    if (typeof id !== "number" || typeof name !== "string" || seen.has(id)) continue;
    seen.add(id);
    select.append(el("option", { value: id }, name));
  }
  if (!seen.size) throw new Error("nsip_list_breeds named no breeds: " + textOf(res).slice(0, 200));
  select.disabled = false;
}

const picked = { compare: $<HTMLTextAreaElement>("compare-lpns"), rams: $<HTMLTextAreaElement>("rams"), ewes: $<HTMLTextAreaElement>("ewes") };

function addTo(area: HTMLTextAreaElement, lpn: string) {
  const have = lpns(area.value);
  if (!have.includes(lpn)) area.value = [...have, lpn].join("\n");
}

function lpns(s: string): string[] {
  return s.split(/[\s,;]+/).filter(Boolean);
}

function openAnimal(lpn: string) {
  $<HTMLInputElement>("lpn").value = lpn;
  void call("nsip_search_by_lpn", { lpn_id: lpn }, "Animal " + lpn);
}

// The search's rows as a list a thumb can use: open, or add to a comparison
// or a mating plan. NSIP's rows carry no sex: a search by gender gives the
// sex it asked for; otherwise an animal can be added as either.
function listAnimals(result: Json, list: HTMLElement, searched: string) {
  const rows = [...objects(structured(result))].filter((o) => typeof (o.lpnId ?? o.lpn_id) === "string");
  const seen = new Set<string>();
  for (const r of rows) {
    const lpn = r.lpnId ?? r.lpn_id;
    if (seen.has(lpn)) continue;
    seen.add(lpn);
    const stated: string = r.gender ?? r.sex ?? "";
    const sex = stated && stated !== "unknown" ? stated : searched;
    const open = el("button", { type: "button", class: "animal-open" }, el("span", { class: "lpn" }, lpn),
      el("span", { class: "sub" }, [sex, r.dateOfBirth ?? r.date_of_birth ?? r.born, r.status].filter(Boolean).join(" · ")));
    open.addEventListener("click", () => openAnimal(lpn));
    const cmp = el("button", { type: "button", class: "add", title: "Add to the comparison" }, "+ compare");
    cmp.addEventListener("click", () => addTo(picked.compare, lpn));
    const mates: HTMLElement[] = [];
    for (const [as, label, area] of [["m", "+ ram", picked.rams], ["f", "+ ewe", picked.ewes]] as const) {
      if (sex && !new RegExp("^" + as, "i").test(sex)) continue;
      const mate = el("button", { type: "button", class: "add", title: "Add to the mating plan" }, label);
      mate.addEventListener("click", () => addTo(area, lpn));
      mates.push(mate);
    }
    list.append(el("li", { class: "animal-row", "data-lpn": lpn, "data-sex": sex || "unknown" }, open, cmp, ...mates));
  }
  if (!seen.size) list.append(el("li", { class: "muted" }, "No animals in this answer."));
}

let nextPage: Json = null;

async function search(ev?: Event) {
  ev?.preventDefault();
  const args: Json = { breed_id: Number($<HTMLSelectElement>("breed").value), page_size: 15 };
  const criteria: Json = {};
  const gender = $<HTMLSelectElement>("gender").value;
  if (gender) criteria.gender = gender;
  const flock = $<HTMLInputElement>("flock").value.trim();
  if (flock) criteria.flock_id = flock;
  if (Object.keys(criteria).length) args.search_criteria = criteria;
  await runSearch(args, true);
}

async function runSearch(args: Json, fresh: boolean) {
  if (!host) return;
  const list = $("animals");
  const more = $<HTMLButtonElement>("more");
  if (fresh) list.replaceChildren();
  more.hidden = true;
  setStatus("Searching…");
  try {
    const res = await host.client.callTool({ name: "nsip_search_animals", arguments: args });
    if (res.isError) throw new Error(textOf(res));
    listAnimals(res, list, args.search_criteria?.gender ?? "");
    const total = (res as Json)._meta?.total_count;
    nextPage = (res as Json)._meta?.next?.arguments ?? null;
    more.hidden = !nextPage;
    setStatus(`${list.querySelectorAll("li.animal-row").length}${typeof total === "number" ? " of " + total : ""} animals`, "ok");
  } catch (err) {
    setStatus(String((err as Error)?.message ?? err), "bad");
  }
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
  $("more").addEventListener("click", () => nextPage && void runSearch(nextPage, false));
  $("animal-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const lpn = $<HTMLInputElement>("lpn").value.trim();
    const which = ((ev as SubmitEvent).submitter as HTMLButtonElement | null)?.value ?? "profile";
    if (!lpn) return;
    if (which === "ebvs") void call("nsip_get_animal", { search_string: lpn, percentiles: true }, "EBVs of " + lpn);
    else if (which === "pedigree") void call("nsip_get_lineage", { lpn_id: lpn }, "Pedigree of " + lpn);
    else openAnimal(lpn);
  });
  $("compare-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const ids = lpns(picked.compare.value);
    void call("nsip_compare_animals", { lpn_ids: ids, percentiles: true }, `Comparing ${ids.length} animals`);
  });
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
    $<HTMLButtonElement>("search-go").disabled = false;
  } catch (err) {
    setStatus("Not connected: " + String((err as Error)?.message ?? err), "bad");
    $("login").hidden = false;
  }
}

wire();
$("login").addEventListener("submit", (ev) => {
  ev.preventDefault();
  void start($<HTMLInputElement>("token").value.trim());
});
void start(tokenFromFragment());
