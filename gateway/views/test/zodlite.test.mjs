// The views' stand-in for zod (src/zod-lite.ts) against zod itself: the
// MCP SDK's message schemas and the guards that sort a message (request,
// notification, result, error), built once with each, must judge every
// message a view exchanges with its host, and malformed ones, alike, and
// give the same data. Under node's test runner: npm test.
import { build } from "esbuild";
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, "..");
let real;
let lite;
let dir;

const guards = ["isJSONRPCRequest", "isJSONRPCNotification", "isJSONRPCResultResponse", "isJSONRPCErrorResponse", "isJSONRPCResponse"];

// bundle builds the SDK's schemas and guards, with zod or with the
// stand-in, as a module in dir.
async function bundle(name, withLite) {
  const clientDist = path.join(root, "node_modules", "@modelcontextprotocol", "client", "dist");
  const index = await readFile(path.join(clientDist, "index.mjs"), "utf8");
  const m = /^import \{([^}]*)\} from "\.\/(src-[\w-]+\.mjs)";$/m.exec(index);
  const names = m[1].split(",").map((s) => s.trim()).filter((s) => guards.includes(s.split(" as ")[1]));
  assert.equal(names.length, guards.length, "the SDK client no longer exports the message guards");
  const entry = [
    `export { ${names.join(", ")} } from ${JSON.stringify(path.join(clientDist, m[2]))};`,
    `export { JSONRPCMessageSchema, CallToolResultSchema, ReadResourceResultSchema, EmptyResultSchema } from "@modelcontextprotocol/core";`,
    `export * from "@modelcontextprotocol/ext-apps";`,
  ].join("\n");
  const plugins = withLite
    ? [{ name: "zod-lite", setup: (b) => b.onResolve({ filter: /^zod(\/v4)?$/ }, () => ({ path: path.join(root, "src", "zod-lite.ts") })) }]
    : [];
  const out = await build({ stdin: { contents: entry, resolveDir: root, loader: "js" }, bundle: true, write: false, format: "esm", platform: "browser", logLevel: "error", plugins });
  const file = path.join(dir, name + ".mjs");
  await writeFile(file, out.outputFiles[0].text);
  return import(pathToFileURL(file).href);
}

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "nsip-zodlite-"));
  real = await bundle("real", false);
  lite = await bundle("lite", true);
});
after(() => rm(dir, { recursive: true, force: true }));

const tool = { name: "nsip_get_lineage", inputSchema: { type: "object", properties: { lpn_id: { type: "string" } } } };
const hostContext = {
  theme: "dark", displayMode: "inline", platform: "web", locale: "en-US", toolInfo: { tool },
  containerDimensions: { maxHeight: 4000, width: 960 },
  styles: { variables: { "--color-background-primary": "#111" }, css: { fonts: "" } },
};
const callResult = {
  content: [{ type: "text", text: '{"rows":[]}' }], structuredContent: { rows: [] },
  _meta: { full: { json: "nsip://full/abc" } },
};
const errorResult = { content: [{ type: "text", text: '{"error":{"code":"not_found","problem":"NSIP has no animal"}}' }], isError: true };

// Messages between a view and its host, and malformed ones.
const messages = {
  "initialize request": { jsonrpc: "2.0", id: 1, method: "ui/initialize", params: { appInfo: { name: "nsip-pedigree", version: "1.0.0" }, appCapabilities: {}, protocolVersion: "2026-01-26" } },
  "initialize result": { jsonrpc: "2.0", id: 1, result: { protocolVersion: "2026-01-26", hostInfo: { name: "host", version: "1" }, hostCapabilities: { serverTools: {}, serverResources: {} }, hostContext } },
  "initialized": { jsonrpc: "2.0", method: "ui/notifications/initialized", params: {} },
  "tool input": { jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: { lpn_id: "6402382024NCS310" } } },
  "tool result": { jsonrpc: "2.0", method: "ui/notifications/tool-result", params: callResult },
  "tool error result": { jsonrpc: "2.0", method: "ui/notifications/tool-result", params: errorResult },
  "host context changed": { jsonrpc: "2.0", method: "ui/notifications/host-context-changed", params: { theme: "light" } },
  "size changed": { jsonrpc: "2.0", method: "ui/notifications/size-changed", params: { width: 960, height: 420 } },
  "tools/call request": { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "nsip_check_mating", arguments: { sire_lpn_id: "A", dam_lpn_id: "B" } } },
  "tools/call result": { jsonrpc: "2.0", id: 7, result: callResult },
  "resources/read result": { jsonrpc: "2.0", id: "r1", result: { contents: [{ uri: "nsip://full/abc", mimeType: "application/json", text: "{}" }] } },
  "error response": { jsonrpc: "2.0", id: 8, error: { code: -32601, message: "Method not found" } },
  "ping": { jsonrpc: "2.0", id: 9, method: "ping" },
  "empty result": { jsonrpc: "2.0", id: 9, result: {} },
  "no jsonrpc": { id: 1, method: "ui/initialize", params: {} },
  "wrong version": { jsonrpc: "1.0", id: 1, method: "ping" },
  "id an object": { jsonrpc: "2.0", id: {}, method: "ping" },
  "method a number": { jsonrpc: "2.0", id: 1, method: 5 },
  "error without code": { jsonrpc: "2.0", id: 1, error: { message: "x" } },
  "neither result nor method": { jsonrpc: "2.0", id: 1 },
  "a string": "hello",
  "null": null,
  "an array": [{ jsonrpc: "2.0", method: "ping" }],
  "a devtools message": { source: "react-devtools-bridge", payload: {} },
};

const results = {
  "call result": callResult,
  "error result": errorResult,
  "contentless result": { structuredContent: { a: 1 } },
  "content not a list": { content: "text" },
  "unknown block": { content: [{ type: "video", url: "x" }] },
  "read result": { contents: [{ uri: "nsip://full/abc", text: "{}" }] },
  "read result without uri": { contents: [{ text: "{}" }] },
};

const judge = (schema, v) => {
  const r = schema.safeParse(v);
  return r.success ? { ok: true, data: JSON.parse(JSON.stringify(r.data)) } : { ok: false };
};

describe("zod-lite judges the SDK's messages as zod does", () => {
  it("compares the stand-in with zod, on messages each sorts apart", () => {
    // The stand-in's schemas carry their kind; zod's do not.
    assert.equal(lite.JSONRPCMessageSchema.kind, "union");
    assert.equal(real.JSONRPCMessageSchema.kind, undefined);
    assert.equal(real.isJSONRPCNotification(messages["tool result"]), true);
    assert.equal(real.isJSONRPCRequest(messages["tool result"]), false);
    assert.equal(real.isJSONRPCResultResponse(messages["tools/call result"]), true);
    assert.equal(real.JSONRPCMessageSchema.safeParse(messages["no jsonrpc"]).success, false);
  });
  for (const [name, msg] of Object.entries(messages)) {
    it(name, () => {
      for (const g of guards) assert.equal(lite[g](msg), real[g](msg), `${g} of ${name}`);
      assert.deepEqual(judge(lite.JSONRPCMessageSchema, msg), judge(real.JSONRPCMessageSchema, msg), "JSONRPCMessageSchema");
    });
  }
  for (const [name, res] of Object.entries(results)) {
    it(name, () => {
      for (const s of ["CallToolResultSchema", "ReadResourceResultSchema", "EmptyResultSchema"]) {
        assert.deepEqual(judge(lite[s], res), judge(real[s], res), s);
      }
    });
  }
  // Every message above with one member changed at a time (removed, or
  // made null, a number, a string, a list, an object, a boolean, or given
  // an unknown member), some 1,600 messages: the two must still agree.
  it("the messages changed one member at a time", () => {
    const variants = (v, put) => {
      const out = [];
      if (Array.isArray(v) || (v && typeof v === "object")) {
        for (const k of Object.keys(v)) {
          const copy = (x) => (Array.isArray(v) ? Object.assign([...v], { [k]: x }) : { ...v, [k]: x });
          if (!Array.isArray(v)) {
            const { [k]: _, ...rest } = v;
            out.push(put(rest));
          }
          for (const x of [null, 1, "x", [], {}, true]) out.push(put(copy(x)));
          out.push(...variants(v[k], (x) => put(copy(x))));
        }
        if (!Array.isArray(v)) out.push(put({ ...v, unknownMember: 1 }));
      }
      return out;
    };
    let n = 0;
    for (const msg of Object.values(messages)) {
      for (const v of variants(msg, (x) => x)) {
        n++;
        for (const g of guards) assert.equal(lite[g](v), real[g](v), `${g} of ${JSON.stringify(v)}`);
        assert.deepEqual(judge(lite.JSONRPCMessageSchema, v), judge(real.JSONRPCMessageSchema, v), JSON.stringify(v));
      }
    }
    const app = [
      ["McpUiInitializeResultSchema", messages["initialize result"].result],
      ["McpUiToolResultNotificationSchema", messages["tool result"]],
      ["McpUiToolInputNotificationSchema", messages["tool input"]],
      ["McpUiHostContextChangedNotificationSchema", { method: "ui/notifications/host-context-changed", params: hostContext }],
      ["CallToolResultSchema", callResult],
      ["ReadResourceResultSchema", results["read result"]],
    ];
    for (const [s, msg] of app) {
      for (const v of variants(msg, (x) => x)) {
        n++;
        assert.deepEqual(judge(lite[s], v), judge(real[s], v), `${s}: ${JSON.stringify(v)}`);
      }
    }
    assert.ok(n > 500, `${n} changed messages`);
  });

  it("the App's own messages", () => {
    const pairs = [
      ["McpUiInitializeResultSchema", messages["initialize result"].result],
      ["McpUiHostContextSchema", hostContext],
      ["McpUiToolInputNotificationSchema", messages["tool input"]],
      ["McpUiToolResultNotificationSchema", messages["tool result"]],
      ["McpUiHostContextChangedNotificationSchema", messages["host context changed"]],
      ["McpUiSizeChangedNotificationSchema", messages["size changed"]],
      ["McpUiHostContextSchema", { theme: "purple" }],
      ["McpUiSizeChangedNotificationSchema", { method: "ui/notifications/size-changed", params: { width: Infinity, height: 1 } }],
      ["McpUiHostContextSchema", { ...hostContext, containerDimensions: { height: 300, maxWidth: 800 }, extra: 1 }],
      ["McpUiToolInputNotificationSchema", { method: "ui/notifications/tool-input", params: { arguments: "no" } }],
    ];
    for (const [s, v] of pairs) assert.deepEqual(judge(lite[s], v), judge(real[s], v), s);
  });
});
