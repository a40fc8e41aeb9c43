// Drives a server with the official TypeScript MCP SDK through a plan of
// steps (resources, templates, prompts, completions, tool calls) while
// answering the server's own requests (elicitation, sampling, roots, ping)
// as a host would, and prints one JSON report on stdout.
//
// usage: node features.mjs [--timeout-ms N] [--answers JSON] <stdio|sse|streamable|websocket> <url | command args...> <plan JSON>
//
// The plan is an array of steps, each {op, ...}: listResources, listTemplates,
// listPrompts, read {uri}, getPrompt {name, arguments}, complete {ref,
// argument, context}, call {name, arguments}, ping. --answers says how to
// answer server requests: {elicit: {action, content}, sample: text, roots: [uri]};
// elicit may be a list, answering the server's forms in turn.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { WebSocketClientTransport } from '@modelcontextprotocol/sdk/client/websocket.js';
import WS from 'ws';
import { errorText, parseCommandLine, reportAndExit } from './report.mjs';

if (typeof globalThis.WebSocket === 'undefined') {
  globalThis.WebSocket = WS;
}

const USAGE =
  'usage: node features.mjs [--timeout-ms N] [--answers JSON] <stdio|sse|streamable|websocket> <url | command args...> <plan JSON>';

function parseArgs(argv) {
  const { flags, positional } = parseCommandLine(argv, { '--timeout-ms': 30000, '--answers': '{}' }, 3, USAGE);
  return {
    timeoutMs: flags['--timeout-ms'],
    answers: JSON.parse(flags['--answers']),
    transport: positional[0],
    target: positional.slice(1, -1),
    plan: JSON.parse(positional[positional.length - 1]),
  };
}

function makeTransport({ transport, target }) {
  switch (transport) {
    case 'stdio':
      return new StdioClientTransport({ command: target[0], args: target.slice(1), env: { ...process.env }, stderr: 'inherit' });
    case 'sse':
      return new SSEClientTransport(new URL(target[0]));
    case 'streamable':
      return new StreamableHTTPClientTransport(new URL(target[0]));
    case 'websocket':
      return new WebSocketClientTransport(new URL(target[0]));
    default:
      throw new Error(`unknown transport ${JSON.stringify(transport)}`);
  }
}

// Every server request is recorded, so a test sees what the user was asked.
function answerServerRequests(client, answers, report) {
  const forms = Array.isArray(answers.elicit) ? [...answers.elicit] : null;
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    report.serverRequests.push({ method: 'elicitation/create', params: req.params });
    return (forms ? forms.shift() : answers.elicit) ?? { action: 'decline' };
  });
  client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
    report.serverRequests.push({ method: 'sampling/createMessage', params: req.params });
    return { role: 'assistant', model: 'e2e-model', content: { type: 'text', text: answers.sample ?? '' } };
  });
  client.setRequestHandler(ListRootsRequestSchema, async () => {
    report.serverRequests.push({ method: 'roots/list' });
    return { roots: (answers.roots ?? []).map((uri) => ({ uri })) };
  });
}

async function runStep(client, step, reqOpts) {
  switch (step.op) {
    case 'listResources':
      return client.listResources({}, reqOpts);
    case 'listTemplates':
      return client.listResourceTemplates({}, reqOpts);
    case 'listPrompts':
      return client.listPrompts({}, reqOpts);
    case 'read':
      return client.readResource({ uri: step.uri }, reqOpts);
    case 'getPrompt':
      return client.getPrompt({ name: step.name, arguments: step.arguments ?? {} }, reqOpts);
    case 'complete':
      return client.complete({ ref: step.ref, argument: step.argument, context: step.context }, reqOpts);
    case 'call':
      return client.callTool({ name: step.name, arguments: step.arguments ?? {} }, undefined, reqOpts);
    case 'ping':
      return client.ping(reqOpts);
    default:
      throw new Error(`unknown step ${JSON.stringify(step)}`);
  }
}

async function run(opts, report) {
  const client = new Client(
    { name: 'nsip-e2e-features', version: '1.0.0' },
    { capabilities: { elicitation: {}, sampling: {}, roots: { listChanged: false } } },
  );
  answerServerRequests(client, opts.answers, report);
  let closing = false;
  client.onerror = (err) => (closing ? report.closeErrors : report.transportErrors).push(errorText(err));
  const reqOpts = { timeout: opts.timeoutMs };
  await client.connect(makeTransport(opts), reqOpts);
  try {
    report.server = client.getServerVersion() ?? null;
    report.instructions = client.getInstructions() ?? null;
    report.capabilities = client.getServerCapabilities() ?? null;
    for (const step of opts.plan) {
      try {
        report.steps.push({ op: step.op, result: await runStep(client, step, reqOpts) });
      } catch (err) {
        report.steps.push({ op: step.op, exception: errorText(err) });
      }
    }
  } finally {
    closing = true;
    await client.close();
  }
}

const report = {
  server: null,
  instructions: null,
  capabilities: null,
  steps: [],
  serverRequests: [],
  transportErrors: [],
  closeErrors: [],
};
let opts;
reportAndExit(
  report,
  () => {
    opts = parseArgs(process.argv.slice(2));
    return opts.timeoutMs;
  },
  (r) => run(opts, r),
);
