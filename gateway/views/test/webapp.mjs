// Drives the web app in headless Chromium as a breeder would: opens
// BASE/app, waits for it to connect over /ws, picks the subject's breed and
// flock, searches, opens the subject from the list and reads the pedigree
// view's boxes. Beside that, it asks the server itself (the TypeScript SDK
// client over a WebSocket of its own) for the subject's lineage, to say how
// many ancestors the chart should have. Every request the browser makes is
// recorded; those to a host other than the server's are refused. Prints one
// JSON report; the Go test (cmd/nsip-mcp/webapp_e2e_test.go) judges it.
// Usage: node --experimental-websocket test/webapp.mjs BASE LPN BREED_ID FLOCK_ID [SCREENSHOT_DIR]
import { Client } from "@modelcontextprotocol/client";
import { chromium } from "playwright-core";
import { axe, focusWalk } from "./a11y.mjs";
import { mkdir } from "node:fs/promises";
import path from "node:path";

const [base, lpn, breedId, flock, shots] = process.argv.slice(2);
const report = { violations: [], judged: [], keyboard: {}, connectedVia: "", breeds: 0, listed: [], cards: [], expected: {}, seen: {}, requests: [], refused: [], websockets: [], pageErrors: [], consoleErrors: [], fatal: "" };

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

let client;

async function expectedAncestors() {
  const ws = new URL("/ws", base);
  ws.protocol = "ws:";
  client = new Client({ name: "nsip-webapp-test", version: "1.0.0" });
  await client.connect(new WS(ws.href));
  const res = await client.callTool({ name: "nsip_get_lineage", arguments: { lpn_id: lpn } });
  let full = null;
  if (res._meta?.full?.json) full = JSON.parse((await client.readResource({ uri: res._meta.full.json })).contents[0].text);
  const breeds = await client.callTool({ name: "nsip_list_breeds", arguments: {} });
  report.expected.breeds = new Set(JSON.stringify(breeds.structuredContent).match(/"breedId":\d+/g)).size;
  return ancestorsIn(full ?? res.structuredContent);
}

// The comparison's EBVs, one bar each, as the server answers them.
async function expectedBars(lpns) {
  const res = await client.callTool({ name: "nsip_compare_animals", arguments: { lpn_ids: lpns, percentiles: true } });
  // One bar for each trait of each animal, but those an animal lacks,
  // which the answer names, whole or fitted.
  const sc = res.structuredContent;
  return sc.animals.length * sc.traits.length - (sc.unknown ?? []).length;
}

// Searches the flock's rams and then its ewes (NSIP's rows carry no sex,
// so the app takes it from the search), adds the rams to the comparison
// and each animal to the plan as its sex, runs both and counts what their
// views show.
async function compareAndPlan(page) {
  for (const [sex, compare] of [["Male", true], ["Female", false]]) {
    await page.selectOption("#gender", sex);
    await page.click("#search-go");
    await page.locator(`li.animal-row[data-sex="${sex}"]`).first().waitFor({ timeout: 60000 });
    for (const li of (await page.locator("li.animal-row").all()).slice(0, 6)) {
      if (compare) await li.locator("button.add >> nth=0").click();
      await li.locator("button.add >> nth=1").click();
    }
  }
  const lines = async (id) => (await page.inputValue(id)).split("\n").filter(Boolean);
  const compared = await lines("#compare-lpns");
  const rams = await lines("#rams");
  const ewes = await lines("#ewes");
  report.expected.bars = await expectedBars(compared);
  report.expected.cells = rams.length * ewes.length;
  await page.locator("summary", { hasText: "Compare animals" }).click();
  await page.click("#compare-form button[type=submit]");
  const cf = page.frameLocator('section.card[data-tool="nsip_compare_animals"] iframe.view');
  await cf.locator("#app[data-ready]").waitFor({ timeout: 60000 });
  await page.locator("summary", { hasText: "Plan matings" }).click();
  await page.click("#matings-form button[type=submit]");
  const mf = page.frameLocator('section.card[data-tool="nsip_plan_matings"] iframe.view');
  await mf.locator("#app[data-ready]").waitFor({ timeout: 60000 });
  report.seen.compared = compared;
  report.seen.bars = await cf.locator(".ebv-row").count();
  report.seen.cells = await mf.locator("td.cell").count();
  report.seen.viewErrors = [...(await cf.locator(".error").allTextContents()), ...(await mf.locator(".error").allTextContents())];
}

async function main() {
  report.expected.ancestors = await expectedAncestors();
  const server = new URL(base).host;
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium", args: ["--no-sandbox"] });
  const desktop = { viewport: { width: 1200, height: 900 }, deviceScaleFactor: 1, colorScheme: "light" };
  const context = await browser.newContext(desktop);
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
  await page.goto(new URL("/app", base).href);
  await page.locator("body[data-connected]").waitFor({ timeout: 60000 });
  report.connectedVia = await page.locator("body").getAttribute("data-connected");
  await page.locator("#breed:not([disabled])").waitFor();
  // The first screen, ready to search, judged by axe and walked with Tab
  // at a desktop's width and a phone's, in the device's light and dark.
  for (const width of [1200, 360]) {
    await page.setViewportSize({ width, height: 900 });
    for (const colorScheme of ["light", "dark"]) {
      await page.emulateMedia({ colorScheme });
      report.judged.push(`${colorScheme} ${width}px`);
      report.violations.push(...(await axe(page.mainFrame(), `${colorScheme} ${width}px`)));
      report.keyboard[`${colorScheme} ${width}px`] = await focusWalk(page, page.mainFrame(), "body");
    }
  }
  await page.setViewportSize(desktop.viewport);
  await page.emulateMedia({ colorScheme: "light" });
  report.breeds = await page.locator("#breed option").count();
  await page.selectOption("#breed", breedId);
  await page.fill("#flock", flock);
  await page.click("#search-go");
  await page.locator("li.animal-row").first().waitFor({ timeout: 60000 });
  report.listed = await page.locator("li.animal-row").evaluateAll((lis) => lis.map((li) => li.dataset.lpn));
  await page.locator(`li.animal-row[data-lpn="${lpn}"] .animal-open`).click();
  const card = page.locator('section.card[data-tool="nsip_search_by_lpn"]');
  await card.locator("iframe.view").waitFor({ timeout: 60000 });
  const frame = page.frameLocator('section.card[data-tool="nsip_search_by_lpn"] iframe.view');
  await frame.locator("#app[data-ready]").waitFor({ timeout: 60000 });
  report.seen = {
    ancestors: await frame.locator(".box.ancestor").count(),
    subjects: await frame.locator(".box.subject").count(),
    subjectText: await frame.locator(".box.subject").first().textContent(),
    errors: (await frame.locator(".error").allTextContents()).join(" "),
    sandbox: await card.locator("iframe.view").getAttribute("sandbox"),
    height: (await card.locator("iframe.view").boundingBox())?.height ?? 0,
    viewRequests: (await card.getAttribute("data-view-requests")) ?? "",
  };
  report.cards = await page.locator("section.card").evaluateAll((cs) => cs.map((c) => ({ tool: c.dataset.tool, view: c.dataset.view ?? "" })));
  if (shots) {
    await mkdir(shots, { recursive: true });
    await page.screenshot({ path: path.join(shots, "webapp-desktop.png") });
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, colorScheme: "dark" });
    await phone.route("**/*", (route) => (new URL(route.request().url()).host === server || route.request().url().startsWith("data:") ? route.continue() : (report.refused.push(route.request().url()), route.abort())));
    phone.on("request", (r) => report.requests.push(r.url()));
    const p2 = await phone.newPage();
    await p2.goto(new URL("/app", base).href);
    await p2.locator("#breed:not([disabled])").waitFor({ timeout: 60000 });
    await p2.fill("#lpn", lpn);
    await p2.click('#animal-form button[value="pedigree"]');
    await p2.frameLocator("iframe.view").locator("#app[data-ready]").waitFor({ timeout: 60000 });
    await p2.evaluate(() => window.scrollTo(0, document.querySelector("section.card").offsetTop - 60));
    await p2.screenshot({ path: path.join(shots, "webapp-phone.png") });
    await phone.close();
  }
  await compareAndPlan(page);
  await browser.close();
  await client.close();
}

main()
  .catch((err) => (report.fatal = String(err?.stack ?? err)))
  .finally(() => {
    process.stdout.write(JSON.stringify(report) + "\n");
    process.exit(0);
  });
