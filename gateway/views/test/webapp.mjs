// Drives the web app in headless Chromium as a breeder would, once at a
// desktop's width (1280 px, light) and once at a phone's (390 px, dark):
// opens BASE/app, waits for it to connect over /ws and list the breeds,
// picks the subject's breed and flock, searches (usable animals, the
// default, sorted by WWT), opens the subject from the table and reads its
// page (facts, indexes, breeder's contact, the EBV view with percentiles,
// the pedigree view), then searches the flock's rams and ewes with any
// status, picks some of each and plans their matings. After each action it
// records where the focus is and whether the new card is in view, and has
// axe judge the screen in light and dark. Beside that, it asks the server
// itself (the TypeScript SDK client over a WebSocket of its own) the same
// questions, to say what the screens should show. Every request the
// browser makes is recorded; those to a host other than the server's are
// refused. Prints one JSON report; the Go test
// (cmd/nsip-mcp/webapp_e2e_test.go) judges it.
// Usage: node --experimental-websocket test/webapp.mjs BASE LPN BREED_ID FLOCK_ID [SCREENSHOT_DIR]
import { Client } from "@modelcontextprotocol/client";
import { chromium } from "playwright-core";
import { axe, focusWalk } from "./a11y.mjs";
import { mkdir } from "node:fs/promises";
import path from "node:path";

const [base, lpn, breedId, flock, shots] = process.argv.slice(2);
const shown = ["BWT", "PWWT"]; // the EBVs asked for beside the sorted one
const report = {
  violations: [], judged: [], keyboard: {}, searchKeyboard: null, screenViolations: [], screensJudged: [],
  connectedVia: "", breeds: 0, expected: {}, walks: [], cards: [],
  requests: [], refused: [], websockets: [], pageErrors: [], consoleErrors: [], fatal: "",
};

// The SDK's Transport over Node's WebSocket, as the page has one over the
// browser's.
class WS {
  constructor(url) { this.url = url; }
  start() {
    return new Promise((resolve, reject) => {
      this.ws = new WebSocket(this.url, "mcp");
      this.ws.onopen = () => resolve();
      this.ws.onerror = (e) => reject(new Error("websocket: " + e.message));
      this.ws.onclose = () => this.onclose?.();
      this.ws.onmessage = (ev) => this.onmessage?.(JSON.parse(String(ev.data)));
    });
  }
  async send(m) { this.ws.send(JSON.stringify(m)); }
  async close() { this.ws.close(); }
}

// The ancestors a lineage answer or its full data holds, walked without the
// view's code (as test/views.mjs does).
function ancestorsIn(d) {
  if (Array.isArray(d?.rows) && d.columns?.includes("lpn_id")) return d.rows.filter((r) => r.path !== "").length;
  if (Array.isArray(d?.rows) && d.columns?.[0] === "path") {
    return d.rows.filter((r) => /^lineage\.data(\.children\[\d+\])+\.lpnId$/.test(r.path) && r.value).length;
  }
  const walk = (n) => (n && n.lpnId ? 1 + (n.children ?? []).reduce((s, c) => s + walk(c), 0) : 0);
  if (d?.lineage) return ancestorsIn(d.lineage);
  if (d?.data?.lpnId) return walk(d.data) - 1;
  return (d.sire ? 1 : 0) + (d.dam ? 1 : 0) + (d.ancestors ?? d.grandparents ?? []).length;
}

// searchRows reads a search answer's animals as the server gave them:
// NSIP's records (trait members in lower case) or the server's table (a
// trait's cell [value, accuracy]).
function searchRows(sc, codes) {
  const value = (v) => (Array.isArray(v) ? v[0] : v ?? null);
  if (Array.isArray(sc.columns) && Array.isArray(sc.rows)) {
    const at = (c) => sc.columns.indexOf(c);
    return sc.rows.map((r) => ({ lpn: r[at("lpn_id")], status: r[at("status")], values: Object.fromEntries(codes.map((c) => [c, value(r[at(c)])])) }));
  }
  return (sc.records ?? []).map((r) => ({ lpn: r.lpnId, status: r.status, values: Object.fromEntries(codes.map((c) => [c, value(r[c.toLowerCase()])])) }));
}

let client;

async function expected() {
  const ws = new URL("/ws", base);
  ws.protocol = "ws:";
  client = new Client({ name: "nsip-webapp-test", version: "1.0.0" });
  await client.connect(new WS(ws.href));
  const e = report.expected;
  const lineage = await client.callTool({ name: "nsip_get_lineage", arguments: { lpn_id: lpn } });
  let full = null;
  if (lineage._meta?.full?.json) full = JSON.parse((await client.readResource({ uri: lineage._meta.full.json })).contents[0].text);
  e.ancestors = ancestorsIn(full ?? lineage.structuredContent);
  const breeds = await client.callTool({ name: "nsip_list_breeds", arguments: {} });
  const names = [...JSON.stringify(breeds.structuredContent).matchAll(/"breedId":(\d+),"breedName":"([^"]*)"/g)].map((m) => m[2]);
  e.breeds = new Set(JSON.stringify(breeds.structuredContent).match(/"breedId":\d+/g)).size;
  e.firstBreed = [...names].sort((a, b) => a.localeCompare(b))[0];
  // The search the app makes by default for the breed and flock.
  const codes = ["WWT", ...shown];
  const search = await client.callTool({ name: "nsip_search_animals", arguments: {
    breed_id: Number(breedId), page_size: 15, sorted_trait: "WWT", traits: codes, search_criteria: { status: "CURRENT", flock_id: flock } } });
  e.search = { rows: searchRows(search.structuredContent, codes), total: search._meta?.total_count };
  const record = (await client.callTool({ name: "nsip_get_animal", arguments: { search_string: lpn } })).structuredContent;
  const c = record.data.contactInfo;
  e.contact = { farm: c.farmName, phone: c.phone, email: c.email };
  const pct = (await client.callTool({ name: "nsip_get_animal", arguments: { search_string: lpn, percentiles: true } })).structuredContent;
  e.ebvs = Object.fromEntries(pct.ebvs.map(([code, value, , top]) => [code, { value, top }]));
  e.indexes = pct.indexes;
}

// The comparison's EBVs, one bar each, as the server answers them.
async function expectedBars(lpns) {
  const res = await client.callTool({ name: "nsip_compare_animals", arguments: { lpn_ids: lpns, percentiles: true } });
  // One bar for each trait of each animal, but those an animal lacks,
  // which the answer names, whole or fitted.
  const sc = res.structuredContent;
  return sc.animals.length * sc.traits.length - (sc.unknown ?? []).length;
}

// focusOn says where the focus is after an action and whether the card
// that should have it is within the window.
async function focusOn(page, card) {
  return page.evaluate((sel) => {
    const c = document.querySelector(sel);
    const h = c?.querySelector("h2");
    const r = h?.getBoundingClientRect();
    return {
      onHeading: !!h && document.activeElement === h,
      inView: !!r && r.top >= 0 && r.bottom <= window.innerHeight && r.left >= 0 && r.right <= window.innerWidth,
      top: r ? Math.round(r.top) : null,
      active: document.activeElement ? document.activeElement.tagName + ":" + (document.activeElement.textContent ?? "").slice(0, 40) : "",
    };
  }, card);
}

// judge has axe judge the page as it is, in light and in dark; a phone's
// screen is judged at 360 px as well, the narrowest width the views are
// held to, and then given its own width back.
async function judge(page, where, scheme) {
  const size = page.viewportSize();
  const widths = size && size.width < 600 && size.width !== 360 ? [size.width, 360] : [size ? size.width : 0];
  for (const width of widths) {
    const narrower = size && width !== size.width;
    if (narrower) await page.setViewportSize({ width, height: size.height });
    for (const colorScheme of ["light", "dark"]) {
      await page.emulateMedia({ colorScheme });
      const at = narrower ? `${where} ${colorScheme} ${width}px` : `${where} ${colorScheme}`;
      report.screensJudged.push(at);
      report.screenViolations.push(...(await axe(page.mainFrame(), at)));
    }
    if (narrower) await page.setViewportSize(size);
  }
  await page.emulateMedia({ colorScheme: scheme });
}

async function guarded(context, server) {
  await context.route("**/*", (route) => {
    const u = new URL(route.request().url());
    if (u.host === server || u.protocol === "data:" || u.href === "about:srcdoc") return route.continue();
    report.refused.push(u.href);
    return route.abort();
  });
  context.on("request", (r) => report.requests.push(r.url()));
  const page = await context.newPage();
  page.on("websocket", (w) => report.websockets.push(w.url()));
  page.on("pageerror", (e) => report.pageErrors.push(String(e)));
  page.on("console", (m) => m.type() === "error" && report.consoleErrors.push(m.text()));
  return page;
}

const ready = (page) => page.locator("#sort:not([disabled])").waitFor({ timeout: 60000 });

// search fills the search form and waits for the search's card.
async function search(page, { status, sex, sort = "trait:WWT", inFlock = flock }) {
  if (status !== undefined) await page.selectOption("#status-filter", status);
  if (sex !== undefined) await page.selectOption("#gender", sex);
  await page.selectOption("#sort", sort);
  await page.fill("#flock", inFlock);
  await page.fill("#show-traits", shown.join(" "));
  // A new search's card replaces the last one at once, so the card that
  // becomes ready is this search's.
  await page.click("#search-go");
  await page.locator("section.card[data-search][data-ready]").waitFor({ timeout: 60000 });
  return page.locator("section.card[data-search] tr.animal-row").evaluateAll((trs) => trs.map((tr) => ({
    lpn: tr.dataset.lpn,
    status: tr.dataset.status,
    born: tr.querySelector('[data-col="born"]')?.textContent ?? "",
    values: Object.fromEntries([...tr.querySelectorAll("td[data-code]")].map((td) => [td.dataset.code, td.textContent === "–" ? null : Number(td.textContent)])),
    adds: [...tr.querySelectorAll("button[data-add]")].map((b) => b.dataset.add),
  })));
}

// walk is the breeder's way through the app at one width and theme.
async function walk(browser, server, name, options, first) {
  const w = { name, defaultBreed: "", breedsSorted: false, remembered: "", defaultStatus: "", listed: [], sortHeader: "", focus: {}, animal: {}, plan: {} };
  report.walks.push(w);
  const context = await browser.newContext(options);
  const page = await guarded(context, server);
  await page.goto(new URL("/app", base).href);
  await page.locator("body[data-connected]").waitFor({ timeout: 60000 });
  report.connectedVia = await page.locator("body").getAttribute("data-connected");
  await ready(page);
  w.defaultBreed = (await page.locator("#breed option:checked").textContent()) ?? "";
  const names = await page.locator("#breed option").allTextContents();
  w.breedsSorted = names.every((n, i) => i === 0 || names[i - 1].localeCompare(n) <= 0);
  if (first) {
    report.breeds = names.length;
    // The first screen, ready to search, judged by axe and walked with Tab
    // at a desktop's width and a phone's, in the device's light and dark.
    for (const width of [1280, 360]) {
      await page.setViewportSize({ width, height: 900 });
      for (const colorScheme of ["light", "dark"]) {
        await page.emulateMedia({ colorScheme });
        report.judged.push(`${colorScheme} ${width}px`);
        report.violations.push(...(await axe(page.mainFrame(), `${colorScheme} ${width}px`)));
        report.keyboard[`${colorScheme} ${width}px`] = await focusWalk(page, page.mainFrame(), "body");
      }
    }
    await page.setViewportSize(options.viewport);
    await page.emulateMedia({ colorScheme: options.colorScheme });
  }
  await page.selectOption("#breed", breedId);
  await ready(page);
  // The breed chosen is the one the picker starts at next time.
  await page.reload();
  await ready(page);
  w.remembered = await page.inputValue("#breed");
  w.defaultStatus = await page.inputValue("#status-filter");

  // 1. The search: usable animals by default, sorted by WWT.
  w.listed = await search(page, {});
  w.sortHeader = (await page.locator("section.card[data-search] th[aria-sort=descending]").textContent()) ?? "";
  w.focus.search = await focusOn(page, "section.card[data-search]");
  await judge(page, `search ${name}`, options.colorScheme);
  if (shots) await page.screenshot({ path: path.join(shots, `webapp-${name}-search.png`) });
  if (first) {
    // Tab from the new card's heading goes through its controls, each with
    // a focus ring, and then out of the page.
    const card = "section.card[data-search]";
    report.searchKeyboard = await focusWalk(page, page.mainFrame(), `${card} h2`, 120);
    report.searchKeyboard.controls = await page.locator(`${card} button:visible, ${card} [tabindex="0"]`).count();
    await page.locator(`${card} h2`).evaluate((h) => h.setAttribute("tabindex", "-1"));
    // The next page: its rows follow, and the focus goes to the first.
    const rows = page.locator("section.card[data-search] tr.animal-row");
    const before = await rows.count();
    await page.click("section.card[data-search] button.more");
    // The card was ready before the click and stays so, so what is awaited
    // is the next page's rows themselves: they come in one step with the
    // focus on the first of them.
    await page.waitForFunction(
      (n) => document.querySelectorAll("section.card[data-search] tr.animal-row").length > n,
      before, { timeout: 60000 });
    w.more = {
      listed: await rows.evaluateAll((trs) => trs.map((tr) => tr.dataset.lpn)),
      focused: await page.evaluate(() => document.activeElement?.closest("tr")?.dataset.lpn ?? ""),
    };
  }

  // 2. The animal's page, opened from the table.
  await page.locator(`section.card[data-search] tr[data-lpn="${lpn}"] button.animal-open`).click();
  const card = page.locator("section.card[data-animal]");
  await card.locator("[data-part=ebvs] iframe.view").waitFor({ timeout: 120000 });
  await page.locator("section.card[data-animal][data-ready]").waitFor({ timeout: 120000 });
  const ebvs = page.frameLocator("section.card[data-animal] [data-part=ebvs] iframe.view");
  const ped = page.frameLocator("section.card[data-animal] [data-part=pedigree] iframe.view");
  await ebvs.locator("#app[data-ready]").waitFor({ timeout: 60000 });
  await ped.locator("#app[data-ready]").waitFor({ timeout: 60000 });
  w.focus.animal = await focusOn(page, "section.card[data-animal]");
  const contact = card.locator("section.contact");
  w.animal = {
    contactVisible: await contact.isVisible(),
    contact: await contact.locator("dd").allInnerTexts(),
    indexes: await card.locator("section.indexes").innerText().catch(() => ""),
    wwt: await ebvs.locator('.ebv-row[data-code="WWT"] .num').textContent(),
    wwtPct: await ebvs.locator('.ebv-row[data-code="WWT"] .ebv-pct').textContent(),
    ebvRows: await ebvs.locator(".ebv-row").count(),
    ancestors: await ped.locator(".box.ancestor").count(),
    subject: (await ped.locator(".box.subject").first().textContent()) ?? "",
    viewErrors: [...(await ebvs.locator(".error").allTextContents()), ...(await ped.locator(".error").allTextContents())],
    sandbox: await card.locator("iframe.view").first().getAttribute("sandbox"),
    views: await card.locator("[data-view]").evaluateAll((es) => es.map((e) => e.dataset.view)),
  };
  await judge(page, `animal ${name}`, options.colorScheme);
  if (shots) await page.screenshot({ path: path.join(shots, `webapp-${name}.png`) });

  // 3. Rams of the breed and ewes of the flock, of any status, the
  // mateable ones picked, and a plan: rams from other flocks, as a
  // breeder would bring in, give lambs the plan can accept.
  w.plan.rams = await search(page, { status: "", sex: "Male", inFlock: "" });
  for (const row of w.plan.rams.filter((r) => r.adds.includes("rams")).slice(0, 2)) {
    await page.locator(`section.card[data-search] tr[data-lpn="${row.lpn}"] button[data-add=rams]`).click();
  }
  if (first) {
    for (const row of w.plan.rams.slice(0, 3)) await page.locator(`section.card[data-search] tr[data-lpn="${row.lpn}"] button[data-add=compare]`).click();
  }
  w.plan.ewes = await search(page, { sex: "Female" });
  for (const row of w.plan.ewes.filter((r) => r.adds.includes("ewes")).slice(0, 3)) {
    await page.locator(`section.card[data-search] tr[data-lpn="${row.lpn}"] button[data-add=ewes]`).click();
  }
  const lines = async (id) => (await page.inputValue(id)).split("\n").filter(Boolean);
  w.plan.picked = { rams: await lines("#rams"), ewes: await lines("#ewes") };
  w.plan.count = (await page.locator("#matings-count").textContent()) ?? "";
  if (first) {
    const compared = await lines("#compare-lpns");
    report.expected.bars = await expectedBars(compared);
    await page.locator("summary", { hasText: "Compare animals" }).click();
    await page.click("#compare-form button[type=submit]");
    const cf = page.frameLocator('section.card[data-tool="nsip_compare_animals"] iframe.view');
    await cf.locator("#app[data-ready]").waitFor({ timeout: 60000 });
    w.compare = { compared, bars: await cf.locator(".ebv-row").count(), focus: await focusOn(page, 'section.card[data-tool="nsip_compare_animals"]') };
  }
  await page.locator("summary", { hasText: "Plan matings" }).click();
  // The stand-in's breeds are small and closely bred: under the usual
  // 6.25% cap most of its pairs are refused, so the test allows 25%.
  await page.fill("#max-coi", "25");
  await page.click("#matings-form button[type=submit]");
  const mf = page.frameLocator('section.card[data-tool="nsip_plan_matings"] iframe.view');
  await mf.locator("#app[data-ready]").waitFor({ timeout: 120000 });
  await page.locator('section.card[data-tool="nsip_plan_matings"][data-ready]').waitFor();
  w.focus.plan = await focusOn(page, 'section.card[data-tool="nsip_plan_matings"]');
  w.plan.cells = await mf.locator("td.cell").count();
  w.plan.planned = await mf.locator("td.cell.planned").count();
  w.plan.viewErrors = await mf.locator(".error").allTextContents();
  await judge(page, `plan ${name}`, options.colorScheme);
  if (shots) await page.screenshot({ path: path.join(shots, `webapp-${name}-plan.png`) });
  if (first) {
    report.cards = await page.locator("section.card").evaluateAll((cs) => cs.map((c) => ({ tool: c.dataset.tool, view: c.dataset.view ?? "" })));
    // 4. Sorted by an index: NSIP's search cannot, nsip_rank_animals does.
    const sort = (await page.locator('#sort option[value^="index:"]').first().getAttribute("value")) ?? "";
    w.index = { sort, rows: await search(page, { status: "CURRENT", sex: "", sort }) };
    w.index.tool = await page.locator("section.card[data-search]").getAttribute("data-tool");
    w.index.focus = await focusOn(page, "section.card[data-search]");
    const ranked = await client.callTool({ name: "nsip_rank_animals", arguments: {
      breed_id: Number(breedId), index: sort.slice("index:".length), top_n: 15, search_criteria: { status: "CURRENT", flock_id: flock } } });
    const sc = ranked.structuredContent;
    report.expected.ranked = sc.top.map((r) => ({ lpn: r[sc.columns.indexOf("lpn_id")], value: r[sc.columns.indexOf("index")] }));
    // The EBVs asked for, which a ranking by an index lacks, as the
    // server compares the ranked animals.
    const cmp = (await client.callTool({ name: "nsip_compare_animals", arguments: { lpn_ids: report.expected.ranked.map((r) => r.lpn), traits: shown } })).structuredContent;
    for (const r of report.expected.ranked) {
      const ebv = cmp.animals.find((a) => a.lpn_id === r.lpn)?.ebv ?? [];
      r.values = Object.fromEntries(shown.map((c) => [c, ebv[cmp.traits.indexOf(c)]?.[0] ?? null]));
    }
  }
  await context.close();
}

async function main() {
  await expected();
  const server = new URL(base).host;
  if (shots) await mkdir(shots, { recursive: true });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium", args: ["--no-sandbox"] });
  await walk(browser, server, "desktop", { viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1, colorScheme: "light" }, true);
  await walk(browser, server, "phone", { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, colorScheme: "dark" }, false);
  await browser.close();
  await client.close();
}

main()
  .catch((err) => (report.fatal = String(err?.stack ?? err)))
  .finally(() => {
    process.stdout.write(JSON.stringify(report) + "\n");
    process.exit(0);
  });
