// Measures how long each view takes to show its first answer in headless
// Chromium: from handing the page to a host (test/host.ts, the MCP Apps
// SDK's AppBridge, as a chat client does) to the view marking its answer
// drawn (#app[data-ready]). Each view is loaded RUNS times in a fresh page
// with a small answer of its own (no server: the answers need no further
// requests); the median, fastest and slowest are printed, with each page's
// size raw and gzipped. Given several folders of pages (a build before a
// change and after it), their loads alternate, so that a machine busy with
// other work slows each alike.
// Usage: node test/firstrender.mjs [--runs N] [DIST_DIR ...]   (from gateway/views;
//        default: 10 runs of dist/). CHROMIUM_PATH=/path/to/chromium to use another browser.
import { build } from "esbuild";
import { chromium } from "playwright-core";
import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const here = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const runsAt = argv.indexOf("--runs");
const runs = runsAt >= 0 ? Number(argv.splice(runsAt, 2)[1]) : 10;
const dists = (argv.length ? argv : [path.join(here, "..", "dist")]).map((d) => path.resolve(d));

// A pedigree of four generations, as the lineage tool's table.
function lineage() {
  const rows = [{ path: "", lpn_id: "6402382024NCS310", sex: "Male" }];
  for (let g = 1; g <= 4; g++) {
    for (let i = 0; i < 2 ** g; i++) {
      const path = [...i.toString(2).padStart(g, "0")].map((b) => (b === "0" ? "S" : "D")).join("");
      rows.push({ path, lpn_id: `64023820${g}${String(i).padStart(2, "0")}NCS31`, farm: "Farm " + g, dob: "2015-03-0" + g });
    }
  }
  return { columns: ["path", "lpn_id", "sex", "farm", "dob"], rows };
}

const traits = ["BWT", "WWT", "PWWT", "YWT", "NLB", "NLW", "EMD", "FAT"];
const answers = {
  pedigree: { tool: "nsip_get_lineage", input: { lpn_id: "6402382024NCS310" }, data: lineage() },
  ebvs: {
    tool: "nsip_get_animal", input: { search_string: "6402382024NCS310" },
    data: {
      animal: { lpn_id: "6402382024NCS310", breed: "Katahdin", sex: "Male", born: "2024-02-01", status: "CURRENT" },
      ebv_columns: ["code", "value", "accuracy", "top_percent"],
      ebvs: traits.map((c, i) => [c, 0.1 * (i + 1), 30 + i * 7, 5 + i * 9]),
    },
  },
  matings: {
    tool: "nsip_check_mating", input: { sire_lpn_id: "6402382024NCS310", dam_lpn_id: "6402382022NCS101" },
    data: {
      sire: { lpn_id: "6402382024NCS310" }, dam: { lpn_id: "6402382022NCS101" }, coi: 0.0625, rating: "caution",
      common_ancestors: { count: 2, top: [{ lpn_id: "6402382018NCS001", contribution: 0.05, paths: [[2, 1, 1]] }, { lpn_id: "6402382017NCS002", contribution: 0.0125, paths: [[3, 2, 1]] }] },
    },
  },
  ranking: {
    tool: "nsip_rank_animals", input: { breed_id: 640, weights: { WWT: 1 }, top_n: 10 },
    data: {
      columns: ["rank", "lpn_id", "index", "WWT", "WWT_acc"],
      top: Array.from({ length: 10 }, (_, i) => [i + 1, `64023820${20 + i}NCS310`, 3 - i * 0.1, 2.5 - i * 0.1, 35 + i * 5]),
      weights: { WWT: 1 }, computed: { population: 1200, exact: true },
    },
  },
  flock: {
    tool: "nsip_flock_summary", input: { flock_id: "640238" },
    data: {
      flock_id: "640238", animals: 120,
      by_sex: { Male: 40, Female: 80 }, by_status: { CURRENT: 100, SOLD: 20 }, by_birth_year: { 2022: 30, 2023: 40, 2024: 50 },
      traits: traits.map((t, i) => ({ trait: t, n: 120, min: -1 - i, max: 1 + i, mean: 0.1 * i, sd: 0.5, by_sex: { Male: { mean: 0.2 }, Female: { mean: -0.1 } } })),
    },
  },
};

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

async function main() {
  const host = await build({ entryPoints: [path.join(here, "host.ts")], bundle: true, write: false, format: "iife", target: "es2022", logLevel: "error" });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium", args: ["--no-sandbox"] });
  const context = await browser.newContext({ viewport: { width: 1000, height: 900 }, deviceScaleFactor: 1 });
  await context.route("**/*", (route) => route.abort());
  console.log(`# ${runs} loads a view, Chromium ${browser.version()}, node ${process.version}`);
  // load hosts html once in a fresh page and returns the milliseconds to
  // the view's answer drawn.
  const load = async (name, html) => {
    const a = answers[name];
    if (!a) throw new Error(`no answer to measure ${name} with`);
    const result = { content: [{ type: "text", text: JSON.stringify(a.data) }], structuredContent: a.data };
    const tool = { name: a.tool, inputSchema: { type: "object" } };
    const page = await context.newPage();
    await page.setContent("<!doctype html><html><head><title>host</title></head><body></body></html>");
    await page.addScriptTag({ content: host.outputFiles[0].text });
    const t0 = performance.now();
    await page.evaluate((o) => window.hostView(o), { html, tool, input: a.input, result, theme: "light", width: 960 });
    await page.frameLocator("#view").locator("#app[data-ready]").waitFor({ timeout: 30000 });
    const ms = performance.now() - t0;
    const error = page.frameLocator("#view").locator(".error");
    if (await error.count()) throw new Error(`${name}: the view shows an error: ` + (await error.first().textContent()));
    await page.close();
    return ms;
  };
  const names = (await readdir(dists[0])).filter((f) => f.endsWith(".html")).map((f) => f.slice(0, -5)).sort();
  const rows = dists.map(() => []);
  for (const name of names) {
    const pages = await Promise.all(dists.map((d) => readFile(path.join(d, name + ".html"), "utf8")));
    const times = dists.map(() => []);
    for (let i = 0; i < runs; i++) for (let d = 0; d < dists.length; d++) times[d].push(await load(name, pages[d]));
    dists.forEach((_, d) => rows[d].push([name, Buffer.byteLength(pages[d]), gzipSync(pages[d], { level: 9 }).length,
      median(times[d]).toFixed(1), Math.min(...times[d]).toFixed(1), Math.max(...times[d]).toFixed(1)]));
  }
  dists.forEach((d, i) => {
    console.log(`\n## ${d}\nview\traw bytes\tgzip bytes\tmedian ms\tmin ms\tmax ms`);
    for (const r of rows[i]) console.log(r.join("\t"));
  });
  await browser.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
