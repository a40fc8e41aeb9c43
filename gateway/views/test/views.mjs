// Hosts each view in headless Chromium as an MCP Apps host would and
// reports what a person would see, beside what the server's answers say
// they should see. The server is reached with the TypeScript SDK client
// (streamable HTTP); the page reaches nothing: the view's own requests are
// forwarded by this script. Prints one JSON report; the Go test
// (cmd/nsip-mcp/views_e2e_test.go) judges it.
// Usage: node test/views.mjs URL CASES_JSON [SCREENSHOT_DIR]
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { build } from "esbuild";
import { chromium } from "playwright-core";
import { axe, contrasts, focusWalk } from "./a11y.mjs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const [url, casesJSON, shots] = process.argv.slice(2);
const report = { tools: {}, cases: [], requests: [], pageErrors: [], consoleErrors: [], fatal: "" };

// The number of ancestors a lineage answer or its full data holds, by
// walking it independently of the view's code.
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

// ancestorsByGen counts a lineage answer's ancestors in each generation
// (index 1 the parents), walking it independently of the view's code.
function ancestorsByGen(d) {
  const counts = [];
  const add = (g) => (counts[g] = (counts[g] ?? 0) + 1);
  if (Array.isArray(d?.rows) && d.columns?.includes("lpn_id")) {
    for (const r of d.rows) if (r.path) add(String(r.path).length);
  } else if (Array.isArray(d?.rows) && d.columns?.[0] === "path") {
    for (const r of d.rows) {
      const m = /^lineage\.data((?:\.children\[\d+\])+)\.lpnId$/.exec(r.path);
      if (m && r.value) add(m[1].split(".children").length - 1);
    }
  } else {
    const root = d?.lineage?.data ?? d?.data;
    const walk = (n, g) => {
      if (!n?.lpnId) return;
      if (g) add(g);
      for (const c of n.children ?? []) walk(c, g + 1);
    };
    walk(root, 0);
  }
  return Array.from(counts, (n) => n ?? 0);
}

function expected(view, c, res, full) {
  const d = res.structuredContent;
  switch (view) {
    case "pedigree":
      return { ancestors: ancestorsIn(full ?? d), generations: ancestorsByGen(full ?? d).length - 1 };
    case "ebvs":
      if (Array.isArray(d.animals)) {
        const cells = d.animals.flatMap((a) => a.ebv);
        return { bars: cells.length, low: cells.filter((e) => typeof e[1] === "number" && e[1] < 40).length };
      }
      return { bars: d.ebvs.length, low: d.ebvs.filter((e) => typeof e[2] === "number" && e[2] < 40).length };
    case "matings":
      if (Array.isArray(d.ewes)) {
        const cells = Object.values(d.coi).flat();
        return { cells: cells.length, planned: [], pending: 0, filled: cells.filter((c) => typeof c === "number" || String(c).startsWith(">=")).length };
      }
      if ("coi" in d) return { cells: 1, planned: [], ancestors: d.common_ancestors?.top?.length ?? 0 };
      return {
        cells: c.args.ram_lpn_ids.length * c.args.ewe_lpn_ids.length,
        planned: Object.entries(d.by_ram).flatMap(([r, rows]) => rows.map((x) => r + " " + x[0])).sort(),
      };
    case "ranking": {
      const at = d.columns.indexOf("index");
      const idx = d.top.map((r) => r[at]);
      return { rows: d.top.length, lowest: Math.min(...idx), highest: Math.max(...idx) };
    }
    case "flock":
      return { traits: d.traits.length, histograms: full ? d.traits.length : 0 };
    case "diversity": {
      if (!d.coi_by_birth_year) return { pending: 1 };
      const rows = d.coi_by_birth_year.rows;
      // The table shows percent to two decimals.
      return { bars: rows.length, tableRows: rows.length, highest: Number((100 * Math.max(...rows.map((r) => r[2]))).toFixed(2)) / 100, figures: 4 };
    }
  }
  return {};
}

async function seen(view, frame, page) {
  const n = (sel) => frame.locator(sel).count();
  switch (view) {
    case "pedigree": {
      // The counts the page states: "62 ancestors over 6 generations".
      const says = (await frame.locator("#app p.muted").first().textContent()) ?? "";
      const m = /(\d+) ancestors over (\d+) generations?/.exec(says);
      return { ancestors: m ? Number(m[1]) : -1, generations: m ? Number(m[2]) : -1, subjects: await n(".box.subject") };
    }
    case "ebvs":
      return { bars: await n(".ebv-row"), accBars: await n(".ebv-acc .bar"), low: await n(".ebv-acc.low") };
    case "matings": {
      const planned = await frame.locator("td.cell.planned").evaluateAll((tds) => tds.map((td) => td.dataset.ram + " " + td.dataset.ewe));
      return {
        cells: await n("td.cell"), planned: planned.sort(), pending: await n("td.cell.pending"), over: await n("td.cell.over"),
        filled: await frame.locator("td.cell").evaluateAll((tds) => tds.filter((td) => /%$/.test(td.textContent.trim().replace(/ ✓$/, ""))).length),
        ancestors: await n("tr.ancestor-row"),
      };
    }
    case "ranking": {
      const rows = await n("tr.rank-row");
      const col = await frame.locator("th[data-col=index]").evaluate((th) => [...th.parentElement.children].indexOf(th));
      const first = async () => Number(await frame.locator(`tr.rank-row >> nth=0 >> td >> nth=${col}`).getAttribute("data-value"));
      await frame.locator("th[data-col=index]").click();
      const asc = await first();
      await frame.locator("th[data-col=index]").click();
      const desc = await first();
      // The same by keyboard: Enter on the heading's button, then Space.
      await frame.locator("th[data-col=index] button").press("Enter");
      const keyAsc = await first();
      await frame.locator("th[data-col=index] button").press(" ");
      return { rows, lowest: asc, highest: desc, keyLowest: keyAsc, keyHighest: await first() };
    }
    case "flock":
      return { traits: await n(".dist"), histograms: await frame.locator(".dist").evaluateAll((ds) => ds.filter((d) => d.querySelectorAll("rect").length === 10).length) };
    case "diversity": {
      if (await n("p.pending")) return { pending: await n("p.pending") };
      // The highest mean the table states, read back from its percent.
      const means = await frame.locator("tr.year-row td:nth-child(3)").allTextContents();
      return { bars: await n("rect.coi-bar"), tableRows: await n("tr.year-row"), figures: await n("li.figure"),
        highest: Math.max(...means.map((t) => Number(t.replace("%", "")) / 100)) };
    }
  }
  void page;
  return {};
}

// The marks a view may draw (in text or in CSS generated content): each
// one it draws must be named in a legend.
const marks = ["✓", "?", "⚠", "…", "!", "↻", "♂", "♀", "▲", "▼", "–", "±"];

// legendCheck reports the legends' text and each mark drawn in the view's
// cells, boxes, bars and pictures (not in its sentences) that no legend
// names.
async function legendCheck(frame) {
  return frame.locator("#app").evaluate((app, marks) => {
    const legends = [...app.querySelectorAll(".legend")].map((l) => l.textContent);
    const used = new Set();
    const prose = "p, h1, h2, li, button, .legend, .error";
    for (const e of app.querySelectorAll("*")) {
      if (e.closest(prose)) continue;
      let text = "";
      for (const k of e.childNodes) if (k.nodeType === 3) text += k.textContent;
      for (const pseudo of ["::before", "::after"]) {
        const c = getComputedStyle(e, pseudo).content;
        if (c && c !== "none" && c !== "normal") text += c;
      }
      for (const m of marks) if (text.includes(m)) used.add(m);
    }
    const named = legends.join(" ");
    return { legends: legends.length, marksUsed: [...used], marksUnnamed: [...used].filter((m) => !named.includes(m)) };
  }, marks);
}

// setWidth sets the frame to width and waits until the view has it: the
// frame's own width within a scrollbar of it and, for a view that lays
// itself out by width (it marks #app with data-laid-out-for), that layout
// done, however long a loaded machine takes to run it.
async function setWidth(page, frame, width) {
  await page.evaluate((w) => (document.getElementById("view").style.width = w + "px"), width);
  await frame.locator("#app").evaluate((app, w) => new Promise((resolve) => {
    const ready = () => {
      const cw = document.documentElement.clientWidth;
      return cw <= w && cw > w - 30 && (app.dataset.laidOutFor === undefined || app.dataset.laidOutFor === String(cw));
    };
    // Looked at once a frame: the width arrives with a resize, the
    // layout with a change of #app, and either may come first.
    const look = () => (ready() ? resolve() : requestAnimationFrame(look));
    look();
  }), width);
}

// pedigreeFit sets the frame to width, waits for the view to lay itself
// out for it, and reports what it shows: the sentence saying how many
// generations, the boxes drawn in each, and any element outside the frame
// or any LPN ID cut short in its box.
async function pedigreeFit(page, frame, width) {
  await setWidth(page, frame, width);
  return frame.locator("#app").evaluate((app) => {
    const W = document.documentElement.clientWidth;
    const outside = [...app.querySelectorAll("*")].filter((e) => {
      const r = e.getBoundingClientRect();
      return r.width > 0 && (r.right > W + 0.5 || r.left < -0.5);
    }).map((e) => `${e.tagName.toLowerCase()}.${e.className} ${e.textContent.slice(0, 30)}`).slice(0, 5);
    const byGen = [];
    for (const b of app.querySelectorAll(".box.ancestor")) {
      const g = Number(b.dataset.gen);
      byGen[g] = (byGen[g] ?? 0) + 1;
    }
    const cut = [...app.querySelectorAll(".box .lpn")].filter((l) => l.scrollWidth > l.clientWidth + 1).map((l) => l.textContent).slice(0, 5);
    return {
      width: W, scrollWidth: document.documentElement.scrollWidth, says: app.querySelector(".ped-shown")?.textContent ?? "",
      byGen: Array.from(byGen, (n) => n ?? 0), outside, cut, list: !!app.querySelector(".ped-list"),
    };
  });
}

// The text whose contrast is measured by value in each view: the labels on
// bars (accuracy, percentile, a common ancestor's share, a flock's counts)
// and the matrix's cells, those over the COI cap among them.
const measured = {
  ebvs: { "accuracy labels": ".ebv-acc .bar>b", "percentile labels": ".ebv-pct .bar>b" },
  matings: { "COI cells": "td.cell", "COIs over the cap": "td.cell.over", "ancestors' shares": "tr.ancestor-row .bar>b" },
  flock: { "counts": ".count-bars .bar>b" },
  diversity: { "year table": "tr.year-row td" },
};

// accessibility runs axe and measures the named text in the view as shown
// at a desktop's 960 px and a phone's 360 px, each in light and dark, once
// the host has sized the frame to the view (so that all of it is on the
// frame's screen, where colours can be read).
async function accessibility(view, page) {
  const frame = await (await page.$("#view")).contentFrame();
  const violations = [];
  const judged = [];
  const contrast = {};
  const keyboard = {};
  for (const width of [960, 360]) {
    await setWidth(page, frame, width);
    for (const theme of ["light", "dark"]) {
      await page.evaluate((th) => window.setTheme(th), theme);
      await frame.locator(`html[data-theme=${theme}]`).waitFor();
      // Wait for the size however long a loaded machine takes, and fail
      // saying so if it never comes: measuring a frame partly off screen
      // would judge colours nobody sees.
      for (const until = Date.now() + 60000; ; ) {
        const want = await frame.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(document.documentElement.scrollHeight))));
        const has = await page.evaluate(() => document.getElementById("view").getBoundingClientRect().height);
        if (has >= want) break;
        if (Date.now() > until) throw new Error(`${theme} ${width}px: the host left the frame ${has} px high for a view of ${want} px`);
        await page.waitForTimeout(50);
      }
      const where = `${theme} ${width}px`;
      judged.push(where);
      violations.push(...(await axe(frame, where)));
      for (const [name, r] of Object.entries(await contrasts(frame, measured[view] ?? {}))) contrast[`${name}, ${where}`] = r;
      keyboard[where] = await focusWalk(page, frame);
    }
  }
  return { violations, judged, contrast, keyboard };
}

// pressToFill is for a plan cut short: what the view shows and the tools
// it called before anyone asks, then the same once its button is pressed
// and every cell it fills has come back. The plan's own NSIP requests are
// reported beside, so that the Go test can tell the view's from them.
async function pressToFill(out, frame, page, res) {
  const calls = async () => (await page.evaluate(() => window.viewRequests)).filter((r) => r.startsWith("tools/call")).length;
  const button = frame.locator("button.compute-missing");
  out.before = {
    toolCalls: await calls(),
    unknown: await frame.locator("td.cell.unknown").count(),
    button: (await button.count()) ? (await button.textContent()).trim() : "",
  };
  out.planFetched = res.structuredContent?.computed?.upstream?.fetched ?? -1;
  out.planTimeLimit = res.structuredContent?.computed?.upstream?.time_limit_reached === true;
  if (!out.before.button) return;
  await button.click();
  // Each check ends within the server's call limit; the loop waits for
  // the last, and the test's own limit ends it if one never does.
  while ((await frame.locator("td.cell.pending, td.cell.unknown").count()) > 0) await page.waitForTimeout(100);
}

async function main() {
  const cases = JSON.parse(casesJSON);
  const client = new Client({ name: "nsip-views-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const { tools } = await client.listTools();
  const pages = {};
  for (const t of tools) {
    const uri = t._meta?.ui?.resourceUri;
    report.tools[t.name] = { uri: uri ?? null, flat: t._meta?.["ui/resourceUri"] ?? null };
    if (uri && !pages[uri]) {
      const r = await client.readResource({ uri });
      pages[uri] = { html: r.contents[0].text, mimeType: r.contents[0].mimeType };
    }
  }
  const host = await build({ entryPoints: [path.join(here, "host.ts")], bundle: true, write: false, format: "iife", target: "es2022", logLevel: "error" });

  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium", args: ["--no-sandbox"] });
  const context = await browser.newContext({ viewport: { width: 1000, height: 900 }, deviceScaleFactor: 1 });
  // Nothing may leave the page: every request is recorded and refused.
  context.on("request", (r) => report.requests.push(r.url()));
  await context.route("**/*", (route) => route.abort());
  const page = await context.newPage();
  page.on("pageerror", (e) => report.pageErrors.push(String(e)));
  page.on("console", (m) => m.type() === "error" && report.consoleErrors.push(m.text()));
  await page.exposeFunction("mcpForward", (method, params) =>
    method === "tools/call" ? client.callTool(params) : client.readResource(params));
  const shot = new Set();
  if (shots) await mkdir(shots, { recursive: true });

  for (const c of cases) {
    const out = { label: c.label, tool: c.tool };
    const began = Date.now();
    report.cases.push(out);
    try {
      const res = await client.callTool({ name: c.tool, arguments: c.args });
      const uri = report.tools[c.tool]?.uri;
      const view = uri?.replace("ui://nsip/", "");
      out.view = view;
      out.mimeType = pages[uri]?.mimeType;
      out.isError = !!res.isError;
      let full = null;
      if (res._meta?.full?.json) full = JSON.parse((await client.readResource({ uri: res._meta.full.json })).contents[0].text);
      if (res.isError) out.errorBody = JSON.parse(res.content.find((x) => x.type === "text")?.text ?? "null");
      else out.expected = expected(view, c, res, full);
      await page.setContent("<!doctype html><html><head><title>host</title></head><body></body></html>");
      await page.addScriptTag({ content: host.outputFiles[0].text });
      const tool = tools.find((t) => t.name === c.tool);
      await page.evaluate((o) => window.hostView(o), { html: pages[uri].html, tool, input: c.args, result: res, theme: "light", width: 960 });
      const frame = page.frameLocator("#view");
      await frame.locator("#app[data-ready]").waitFor({ timeout: 60000 });
      out.error = (await frame.locator(".error").allTextContents()).join(" ");
      // Each sentence of an error as its own line, as a person reads them;
      // and whether any element came from the answer's text.
      out.errorLines = await frame.locator(".error p").allTextContents();
      out.injected = await frame.locator("#app img, #app script, #app iframe, .error b:not(:first-child), .error p > b ~ *").count();
      if (res.isError) {
        Object.assign(out, await accessibility(view, page));
        out.viewRequests = await page.evaluate(() => window.viewRequests.splice(0));
        continue;
      }
      if (shots && !shot.has(view)) {
        shot.add(view);
        for (const theme of ["light", "dark"]) {
          await page.evaluate((th) => window.setTheme(th), theme);
          await frame.locator(`html[data-theme=${theme}]`).waitFor();
          // The top of a tall view is enough to show what it looks like.
          const box = await page.locator("#view").boundingBox();
          await page.screenshot({ path: path.join(shots, `${view}-${theme}.png`), fullPage: true,
            clip: { x: box.x, y: box.y, width: box.width, height: Math.min(box.height, 900) } });
        }
      }
      if (c.press) await pressToFill(out, frame, page, res);
      out.seen = await seen(view, frame, page);
      Object.assign(out, await legendCheck(frame));
      if (view === "pedigree") out.answerByGen = ancestorsByGen(full ?? res.structuredContent);
      if (view === "pedigree") out.fit = { desktop: await pedigreeFit(page, frame, 960), phone: await pedigreeFit(page, frame, 390) };
      // The host's theme: the page's background follows light and dark.
      const bg = async (theme) => {
        await page.evaluate((th) => window.setTheme(th), theme);
        await frame.locator(`html[data-theme=${theme}]`).waitFor();
        return frame.locator("body").evaluate((b) => getComputedStyle(b).backgroundColor);
      };
      out.backgrounds = { dark: await bg("dark"), light: await bg("light") };
      // A phone's width: nothing wider than the view; wide tables and the
      // pedigree scroll inside it.
      await page.evaluate(() => (document.getElementById("view").style.width = "360px"));
      out.narrowWidth = await frame.locator("html").evaluate((h) => new Promise((r) => requestAnimationFrame(() => r(h.scrollWidth))));
      Object.assign(out, await accessibility(view, page));
      out.viewRequests = await page.evaluate(() => window.viewRequests.splice(0));
      out.ms = Date.now() - began;
    } catch (err) {
      out.exception = String(err?.stack ?? err);
    }
  }
  if (pages["ui://nsip/pedigree"]) report.deepPedigree = await deepPedigree(page, host, pages["ui://nsip/pedigree"].html, tools);
  await browser.close();
  await client.close();
}

// deepPedigree hosts the pedigree view with a made-up lineage deeper than
// the stand-in's (seven generations of 16-character LPN IDs, as deep as
// NSIP's records go), which no frame holds at full size, and reports how
// it is laid out at a desktop's width and a phone's.
async function deepPedigree(page, host, html, tools) {
  const generations = 7;
  const rows = [{ path: "", lpn_id: "6400000000000SUB" }];
  for (let g = 1; g <= generations; g++) {
    for (let i = 0; i < 2 ** g; i++) {
      const path = [...i.toString(2).padStart(g, "0")].map((b) => (b === "0" ? "S" : "D")).join("");
      rows.push({ path, lpn_id: `64000${String(g)}${String(i).padStart(4, "0")}NCS31`.slice(0, 16).padEnd(16, "0") });
    }
  }
  const data = { columns: ["path", "lpn_id"], rows };
  const result = { content: [{ type: "text", text: JSON.stringify(data) }], structuredContent: data };
  await page.setContent("<!doctype html><html><head><title>host</title></head><body></body></html>");
  await page.addScriptTag({ content: host.outputFiles[0].text });
  const tool = tools.find((t) => t.name === "nsip_get_lineage");
  await page.evaluate((o) => window.hostView(o), { html, tool, input: { lpn_id: rows[0].lpn_id }, result, theme: "light", width: 960 });
  const frame = page.frameLocator("#view");
  await frame.locator("#app[data-ready]").waitFor({ timeout: 60000 });
  const out = { answerByGen: ancestorsByGen(data) };
  out.desktop = await pedigreeFit(page, frame, 960);
  out.phone = await pedigreeFit(page, frame, 390);
  // The button under a chart that leaves generations out lists them all.
  await pedigreeFit(page, frame, 960);
  await frame.locator("button.ped-toggle").click();
  out.listed = await pedigreeFit(page, frame, 960);
  return out;
}

main()
  .catch((err) => (report.fatal = String(err?.stack ?? err)))
  .finally(() => {
    process.stdout.write(JSON.stringify(report) + "\n");
    process.exit(0);
  });
