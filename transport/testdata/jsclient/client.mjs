// Drives nsip-mcp with the official TypeScript MCP SDK over one transport:
// lists the tools, calls the nine lookups and any calls given with --calls,
// and prints one JSON report on stdout so a Go test can check the values.
// The SDK checks each result's structuredContent against the outputSchema
// the listing declared (Ajv) and throws when it does not match; the report
// says, per call, whether such a check was armed.
//
// usage: node client.mjs [--breed-id N] [--timeout-ms N] [--calls JSON] <stdio|sse|streamable|websocket> <url | command args...> <lpnId>
//
// --calls is a JSON list of {"label", "name", "arguments"}: more tool calls,
// reported under their labels (so one tool can be called twice).
//
// For stdio the target is the server command and its arguments; the child
// inherits this process's environment so NSIP_BASE_URL and friends reach it.
// For sse, streamable and websocket the target is the endpoint URL
// (http://host:port/sse, http://host:port/mcp, ws://host:port/ws).

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { WebSocketClientTransport } from '@modelcontextprotocol/sdk/client/websocket.js';
import WS from 'ws';
import { errorText, parseCommandLine, reportAndExit } from './report.mjs';

// The SDK's WebSocket transport uses the global WebSocket, which Node 20 only
// has behind a flag; newer Node versions ship it and keep their own.
if (typeof globalThis.WebSocket === 'undefined') {
  globalThis.WebSocket = WS;
}

const USAGE =
  'usage: node client.mjs [--breed-id N] [--timeout-ms N] [--calls JSON] <stdio|sse|streamable|websocket> <url | command args...> <lpnId>';

// Reads --calls: a list of {label, name, arguments}, labels distinct.
function parseCalls(raw) {
  let calls;
  try {
    calls = JSON.parse(raw);
  } catch (err) {
    throw new Error(`--calls is not JSON: ${err.message}\n${USAGE}`);
  }
  const labels = new Set();
  const ok = (c) =>
    c && typeof c.label === 'string' && typeof c.name === 'string' && c.arguments && typeof c.arguments === 'object';
  if (!Array.isArray(calls) || !calls.every(ok)) {
    throw new Error(`--calls wants a JSON list of {"label","name","arguments"}\n${USAGE}`);
  }
  for (const { label } of calls) {
    if (labels.has(label)) throw new Error(`--calls names label ${JSON.stringify(label)} twice\n${USAGE}`);
    labels.add(label);
  }
  return calls.map((c) => [c.label, c.name, c.arguments]);
}

function parseArgs(argv) {
  const { flags, positional } = parseCommandLine(
    argv,
    { '--breed-id': 486, '--timeout-ms': 30000, '--calls': '[]' },
    3,
    USAGE,
  );
  return {
    breedId: flags['--breed-id'],
    timeoutMs: flags['--timeout-ms'],
    extraCalls: parseCalls(flags['--calls']),
    transport: positional[0],
    target: positional.slice(1, -1),
    lpnId: positional[positional.length - 1],
  };
}

function makeTransport({ transport, target }) {
  const one = () => {
    if (target.length !== 1) {
      throw new Error(`${transport} wants exactly one URL, got ${JSON.stringify(target)}`);
    }
    return new URL(target[0]);
  };
  switch (transport) {
    case 'stdio':
      return new StdioClientTransport({
        command: target[0],
        args: target.slice(1),
        env: { ...process.env },
        stderr: 'inherit',
      });
    case 'sse':
      return new SSEClientTransport(one());
    case 'streamable':
      return new StreamableHTTPClientTransport(one());
    case 'websocket':
      return new WebSocketClientTransport(one());
    default:
      throw new Error(`unknown transport ${JSON.stringify(transport)}; want stdio, sse, streamable or websocket`);
  }
}

// The nine lookups, in the order a user would make them, then the extra
// calls; each is [label, tool, arguments], a lookup labelled by its tool.
function plannedCalls({ breedId, lpnId, extraCalls }) {
  const lookups = [
    ['nsip_get_last_update', {}],
    ['nsip_list_breeds', {}],
    ['nsip_get_statuses', {}],
    ['nsip_get_trait_ranges', { breed_id: breedId }],
    ['nsip_search_animals', { page_size: 5 }],
    ['nsip_get_animal', { search_string: lpnId }],
    ['nsip_get_lineage', { lpn_id: lpnId }],
    ['nsip_get_progeny', { lpn_id: lpnId }],
    ['nsip_search_by_lpn', { lpn_id: lpnId }],
  ];
  return [...lookups.map(([name, args]) => [name, name, args]), ...extraCalls];
}

// Joins every text block so nothing the server sent is lost; other block
// types are counted so a test can see them. structured tells whether the
// result carried structuredContent, and summary is its "summary" member
// (set when the answer was summarized to fit its budget).
function summarizeResult(res) {
  const content = Array.isArray(res?.content) ? res.content : [];
  const sc = res?.structuredContent;
  return {
    isError: res?.isError === true,
    text: content.filter((c) => c.type === 'text').map((c) => c.text).join('\n'),
    blocks: content.map((c) => c.type),
    structured: sc !== undefined && sc !== null,
    summary: sc?.summary ?? null,
  };
}

async function run(opts, report) {
  const client = new Client({ name: 'nsip-e2e-js', version: '1.0.0' });
  // Closing aborts the SSE stream and the SDK reports that abort as an
  // error; keep those apart from errors while the session was in use.
  let closing = false;
  client.onerror = (err) => (closing ? report.closeErrors : report.transportErrors).push(errorText(err));
  const reqOpts = { timeout: opts.timeoutMs };
  await client.connect(makeTransport(opts), reqOpts);
  try {
    report.server = client.getServerVersion() ?? null;

    const tools = [];
    let cursor;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, reqOpts);
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    report.tools = tools.map((t) => t.name);

    for (const [label, name, args] of plannedCalls(opts)) {
      // The SDK validates structuredContent only for a tool whose listing
      // it cached with an outputSchema; without one a call would pass
      // unchecked, so the report says which calls were checked.
      const validated = client.getToolOutputValidator(name) !== undefined;
      try {
        const res = await client.callTool({ name, arguments: args }, undefined, reqOpts);
        report.calls[label] = { tool: name, arguments: args, validated, ...summarizeResult(res) };
      } catch (err) {
        report.calls[label] = { tool: name, arguments: args, validated, exception: errorText(err) };
      }
    }
  } finally {
    closing = true;
    await client.close();
  }
}

const report = { transport: null, lpnId: null, server: null, tools: [], calls: {}, transportErrors: [], closeErrors: [] };
let opts;
reportAndExit(
  report,
  () => {
    opts = parseArgs(process.argv.slice(2));
    report.transport = opts.transport;
    report.lpnId = opts.lpnId;
    return opts.timeoutMs;
  },
  (r) => run(opts, r),
);
