// Builds each view (src/views/NAME.ts) into one self-contained HTML file,
// dist/NAME.html: the script and the styles inline, a CSP that lets the page
// load nothing from the network. The output depends on the sources and the
// locked packages only, so a fresh build equals the committed dist/.
// Usage: node build.mjs [OUTDIR]
import { build, transform } from "esbuild";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(fileURLToPath(import.meta.url));
const outdir = path.resolve(process.argv[2] ?? path.join(root, "dist"));

// Inline script and style only; no fetch, image, font or frame from
// anywhere. The host's own CSP (from the resource's _meta.ui.csp) adds
// nothing, since the views declare no domains.
const csp = [
  "default-src 'none'",
  "script-src 'unsafe-inline'",
  "style-src 'unsafe-inline'",
  "img-src data:",
  "font-src data:",
  "connect-src 'none'",
  "frame-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

// zod (under the SDK's message schemas) re-exports every one of its ~50
// message locales, about 300 kB a page; the web app, which keeps zod (the
// views use zod-lite, below), shows zod's messages to no one, so it keeps
// English alone.
const englishOnly = {
  name: "zod-english-only",
  setup(b) {
    b.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
      contents: 'export { default as en } from "./en.js";',
      resolveDir: path.join(root, "node_modules", "zod", "v4", "locales"),
    }));
  },
};

// The MCP Apps SDK's App imports Protocol from the TypeScript SDK
// client's main entry, which also carries the client, its transports and
// OAuth (about 70 kB a view that no view runs). Protocol is defined in one
// of the client's chunks; the App is pointed at that chunk alone. The chunk
// is found by reading the entry, so that an upgrade that moves Protocol
// fails the build here rather than bundling something else.
const clientDist = path.join(root, "node_modules", "@modelcontextprotocol", "client", "dist");
const clientEntry = await readFile(path.join(clientDist, "index.mjs"), "utf8");
const protocolFrom = /^import \{[^}]*\b([\w$]+) as Protocol\b[^}]*\} from "\.\/(src-[\w-]+\.mjs)";$/m.exec(clientEntry);
if (!protocolFrom) throw new Error("build: the SDK client's index.mjs no longer imports Protocol from a src chunk");
const protocolOnly = {
  name: "protocol-only",
  setup(b) {
    b.onResolve({ filter: /^@modelcontextprotocol\/client$/ }, (a) =>
      /[\\/]ext-apps[\\/]/.test(a.importer) ? { path: "protocol", namespace: "protocol-only" } : undefined);
    b.onLoad({ filter: /.*/, namespace: "protocol-only" }, () => ({
      contents: `export { ${protocolFrom[1]} as Protocol } from "./${protocolFrom[2]}";`,
      resolveDir: clientDist,
      loader: "js",
    }));
  },
};

// The SDK's modules build their message schemas at the top level, with
// calls esbuild must keep unless told they are pure, so every view carried
// every schema. These calls only build schema objects; marked pure, those
// no code reaches are left out. The SDK client also fills two tables of
// every spec schema at load (isSpecType, specTypeSchemas), which the App
// never reads: the filling is wrapped so that it runs at load as before,
// but only in a bundle that reads them.
const schemaMethods = [
  "object", "looseObject", "strictObject", "string", "number", "boolean", "literal", "union",
  "discriminatedUnion", "intersection", "array", "record", "enum", "optional", "nullable",
  "nullish", "extend", "safeExtend", "passthrough", "strict", "catchall", "partial", "required",
  "pick", "omit", "merge", "unknown", "any", "never", "null", "undefined", "void", "int", "bigint",
  "tuple", "lazy", "custom", "instanceof", "url", "email", "uuid", "and", "or", "describe",
  "default", "catch", "iso", "transform", "pipe", "refine", "superRefine", "check", "brand",
  "readonly", "coerce", "preprocess", "prefault",
].join("|");
const schemaCall = new RegExp(String.raw`(?<![\w$.\])'"])[A-Za-z_$][\w$]*\.(?:${schemaMethods})\(`, "g");
const pure = "/* @__PURE__ */ ";
const specLoops =
  "for (const key of SPEC_SCHEMA_KEYS) register(key, schemas_exports[key]);\n" +
  "for (const [key, schema] of Object.entries(authSchemas)) register(key, schema);\n";
const pureSchemas = {
  name: "pure-schemas",
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/]@modelcontextprotocol[\\/](client|core|ext-apps)[\\/]dist[\\/].*\.m?js$/ }, async (a) => {
      // Through esbuild first, which drops the comments (whose examples
      // would match) and keeps the SDK's own pure marks.
      let s = (await transform(await readFile(a.path, "utf8"), { loader: "js", format: "esm", legalComments: "none" })).code;
      if (s.includes("register(key, schemas_exports[key])")) {
        const table = (name, from) => `const ${name} = Object.freeze(${from});`;
        const lazy = (name, from) => `const ${name} = ${pure}(() => (_registered, Object.freeze(${from})))();`;
        const was = s;
        s = s
          .replace(specLoops, `const _registered = ${pure}(() => { ${specLoops} return true; })();\n`)
          .replace(table("specTypeSchemas", "_specTypeSchemas"), lazy("specTypeSchemas", "_specTypeSchemas"))
          .replace(table("isSpecType", "_isSpecType"), lazy("isSpecType", "_isSpecType"));
        if ((s.match(/_registered,/g) ?? []).length !== 2 || s === was) throw new Error(`build: ${a.path}: the spec-type tables are not where they were`);
      }
      return { contents: s.replace(schemaCall, (m) => pure + m), loader: "js" };
    });
  },
};

// zod, under the SDK's schemas, is most of a view's weight; the views use
// src/zod-lite.ts in its place (it says what it keeps, and the browser
// tests run the SDK's handshake and every view's answers through it).
const zodLite = {
  name: "zod-lite",
  setup(b) {
    b.onResolve({ filter: /^zod(\/v4)?$/ }, () => ({ path: path.join(root, "src", "zod-lite.ts") }));
  },
};

// VIEWS_ANALYZE=1 node build.mjs prints what each view's script holds,
// bytes by package (the view's own code as "src"), from esbuild's
// metafile; the output files are the same either way.
const analyze = process.env.VIEWS_ANALYZE === "1";
function holdings(name, meta) {
  const by = {};
  for (const out of Object.values(meta.outputs)) {
    for (const [file, i] of Object.entries(out.inputs)) {
      const pkg = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(file)?.[1] ?? (file.endsWith("zod-lite.ts") ? "zod-lite" : "src");
      by[pkg] = (by[pkg] ?? 0) + i.bytesInOutput;
    }
  }
  return `${name}: ` + Object.entries(by).sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(", ");
}

const css = await readFile(path.join(root, "src", "style.css"), "utf8");
const names = (await readdir(path.join(root, "src", "views")))
  .filter((f) => f.endsWith(".ts"))
  .map((f) => f.slice(0, -3))
  .sort();
await mkdir(outdir, { recursive: true });

for (const name of names) {
  const res = await build({
    entryPoints: [path.join(root, "src", "views", name + ".ts")],
    bundle: true,
    write: false,
    format: "iife",
    target: "es2022",
    platform: "browser",
    minify: true,
    legalComments: "none",
    charset: "utf8",
    sourcemap: false,
    logLevel: "warning",
    plugins: [zodLite, protocolOnly, pureSchemas],
    metafile: analyze,
  });
  if (analyze) console.log(holdings(name, res.metafile));
  let js = res.outputFiles[0].text;
  // An inline script ends at the first "</script" in it, whatever quotes
  // it is in.
  js = js.replace(/<\/(script)/gi, "<\\/$1");
  const title = name.charAt(0).toUpperCase() + name.slice(1);
  const html =
    "<!doctype html>\n" +
    '<html lang="en"><head><meta charset="utf-8">' +
    `<meta http-equiv="Content-Security-Policy" content="${csp}">` +
    '<meta name="viewport" content="width=device-width,initial-scale=1">' +
    '<meta name="color-scheme" content="light dark">' +
    `<title>NSIP ${title}</title><style>${css.trim()}</style></head>` +
    `<body><main id="app" aria-live="polite"><p class="muted">Waiting for the answer…</p></main>` +
    `<script>${js.trim()}</script></body></html>\n`;
  await writeFile(path.join(outdir, name + ".html"), html);
  console.log(`${name}.html ${html.length} bytes`);
}

// The web app (src/webapp/), built the same way into APPDIR/webapp.html
// (default app/). Its policy differs from the views' in two places: it
// connects to its own origin, the server's endpoint, and it frames the
// views, as srcdoc documents. The server sends the same policy as a header
// (views.WebAppCSP); a Go test holds the two equal.
const appdir = path.resolve(process.argv[3] ?? path.join(root, "app"));
const appCSP = [
  "default-src 'none'",
  "script-src 'unsafe-inline'",
  "style-src 'unsafe-inline'",
  "img-src data:",
  "font-src data:",
  "connect-src 'self'",
  "frame-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");
{
  const res = await build({
    entryPoints: [path.join(root, "src", "webapp", "main.ts")],
    bundle: true,
    write: false,
    format: "iife",
    target: "es2022",
    platform: "browser",
    minify: true,
    legalComments: "none",
    charset: "utf8",
    sourcemap: false,
    logLevel: "warning",
    plugins: [englishOnly],
  });
  const js = res.outputFiles[0].text.replace(/<\/(script)/gi, "<\\/$1");
  const appCSS = await readFile(path.join(root, "src", "webapp", "style.css"), "utf8");
  const body = await readFile(path.join(root, "src", "webapp", "body.html"), "utf8");
  const html =
    "<!doctype html>\n" +
    '<html lang="en"><head><meta charset="utf-8">' +
    `<meta http-equiv="Content-Security-Policy" content="${appCSP}">` +
    '<meta name="viewport" content="width=device-width,initial-scale=1">' +
    '<meta name="color-scheme" content="light dark">' +
    '<meta name="referrer" content="no-referrer">' +
    `<title>NSIP flock tools</title><style>${appCSS.trim()}</style></head>` +
    `<body>${body.trim()}<script>${js.trim()}</script></body></html>\n`;
  await mkdir(appdir, { recursive: true });
  await writeFile(path.join(appdir, "webapp.html"), html);
  console.log(`webapp.html ${html.length} bytes`);
}
