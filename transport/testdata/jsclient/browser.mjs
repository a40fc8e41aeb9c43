// Opens page.html in headless Chromium and prints one JSON report: the page's
// title and #result, plus what the browser saw of each WebSocket (handshake
// errors carry the HTTP status, which the page itself is not allowed to see).
//
// usage: node browser.mjs [--timeout-ms N] [--loopback-host NAME] <page URL>
// --loopback-host makes Chromium resolve NAME to 127.0.0.1, so a page served
// on loopback can have an origin such as http://flocks.example:PORT.
// CHROMIUM_PATH overrides /usr/bin/chromium.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { errorText, parseCommandLine, reportAndExit } from './report.mjs';

// Without the networking flags Chromium keeps calling home, which a closed
// network answers with a burst of refused connections at every start.
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const USAGE = 'usage: node browser.mjs [--timeout-ms N] [--loopback-host NAME] <page URL>';

function parseArgs(argv) {
  const { flags, positional } = parseCommandLine(
    argv,
    { '--timeout-ms': 20000, '--loopback-host': '' },
    1,
    USAGE,
  );
  if (positional.length !== 1) throw new Error(USAGE);
  return { url: positional[0], timeoutMs: flags['--timeout-ms'], loopbackHost: flags['--loopback-host'] };
}

async function run({ url, timeoutMs, loopbackHost }, report) {
  // Resolving a made-up name to 127.0.0.1 gives the page an origin that is
  // not a loopback name while it is still served from this machine.
  const args = loopbackHost ? [...FLAGS, `--host-resolver-rules=MAP ${loopbackHost} 127.0.0.1`] : FLAGS;
  const profile = mkdtempSync(join(tmpdir(), 'nsip-e2e-chromium-'));
  let context;
  try {
    // A persistent context is the only way playwright hands Chromium a
    // profile directory of our choosing: a fresh one per run.
    context = await chromium.launchPersistentContext(profile, {
      executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
      headless: true,
      args,
      timeout: timeoutMs,
    });
    report.browser = context.browser()?.version() ?? null;
    const page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (m) => report.console.push(`${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => report.pageErrors.push(errorText(e)));
    page.on('websocket', (ws) => {
      const entry = { url: ws.url(), framesSent: 0, framesReceived: 0, errors: [], closed: false };
      report.websockets.push(entry);
      ws.on('framesent', () => entry.framesSent++);
      ws.on('framereceived', () => entry.framesReceived++);
      ws.on('socketerror', (e) => entry.errors.push(String(e)));
      ws.on('close', () => (entry.closed = true));
    });

    await page.goto(url, { timeout: timeoutMs });
    await page.waitForFunction(() => document.title !== 'pending', null, { timeout: timeoutMs });
    report.title = await page.title();
    const raw = await page.locator('#result').textContent();
    try {
      report.result = JSON.parse(raw);
    } catch {
      report.result = raw;
    }
  } finally {
    await context?.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

const report = { title: null, result: null, browser: null, websockets: [], console: [], pageErrors: [] };
let opts;
reportAndExit(
  report,
  () => {
    opts = parseArgs(process.argv.slice(2));
    return opts.timeoutMs + 10000; // room for the browser to start and close
  },
  (r) => run(opts, r),
);
