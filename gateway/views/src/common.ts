// What every view shares: the connection to the host through the MCP Apps
// SDK's App, the host's theme, reading the answer the host hands over, and
// fetching the complete data behind _meta.full. A view never sends anything
// to the model: it reads what the tool answered and asks the server itself
// (through the host) for anything larger.
import { App, applyDocumentTheme, applyHostStyleVariables } from "@modelcontextprotocol/ext-apps";

export type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface Answer {
  tool: string; // the tool's name when the host says it, else ""
  args: Record<string, Json>;
  data: Json; // structuredContent, or the text parsed as JSON
  meta: Record<string, Json>;
  text: string;
}

export interface View {
  app: App;
  root: HTMLElement;
  readFull(a: Answer): Promise<Json | null>;
  callTool(name: string, args: Record<string, Json>): Promise<Json | null>;
}

type Render = (a: Answer, v: View) => void | Promise<void>;

// el builds an element; text and numbers become text nodes, never HTML.
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number | undefined> = {},
  ...kids: (Node | string | number | null | undefined)[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v !== undefined) e.setAttribute(k, String(v));
  }
  for (const k of kids) {
    if (k === null || k === undefined) continue;
    e.append(typeof k === "object" ? k : String(k));
  }
  return e;
}

const svgNS = "http://www.w3.org/2000/svg";

export function svg(tag: string, attrs: Record<string, string | number>, ...kids: (Node | string)[]): SVGElement {
  const e = document.createElementNS(svgNS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  for (const k of kids) e.append(k);
  return e;
}

export function fmt(v: Json, digits = 3): string {
  if (v === null || v === undefined || v === "") return "–";
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : String(Number(v.toFixed(digits)));
  return String(v);
}

function applyContext(ctx: Json) {
  if (!ctx) return;
  if (ctx.theme === "light" || ctx.theme === "dark") applyDocumentTheme(ctx.theme);
  if (ctx.styles?.variables) applyHostStyleVariables(ctx.styles.variables);
}

function parseResult(result: Json): { data: Json; text: string } {
  const text = (result?.content ?? [])
    .filter((c: Json) => c?.type === "text")
    .map((c: Json) => c.text)
    .join("\n");
  if (result?.structuredContent !== undefined) return { data: result.structuredContent, text };
  try {
    return { data: JSON.parse(text), text };
  } catch {
    return { data: null, text };
  }
}

export function showError(root: HTMLElement, msg: string) {
  root.replaceChildren(el("p", { class: "error", role: "alert" }, msg));
}

// What each of the tools' error codes means, said to a breeder rather than
// a program (gateway/toolerr lists the codes).
const errorTitles: Record<string, string> = {
  invalid_argument: "The request was not accepted",
  not_found: "NSIP has no such record",
  rate_limited: "NSIP is limiting requests for now",
  upstream_unavailable: "NSIP cannot be reached",
  upstream_error: "NSIP answered with an error",
  timeout: "The request took too long",
  unexpected_response: "NSIP's answer could not be read",
  canceled: "The request was canceled",
  no_data: "NSIP has no data for this",
  misconfigured: "The server is not set up to reach NSIP",
};

// sentence makes a fragment of the error body read as a sentence: a
// capital first letter and a full stop.
function sentence(s: string): string {
  const t = s.trim();
  if (!t) return "";
  return t.charAt(0).toUpperCase() + t.slice(1) + (/[.!?)]$/.test(t) ? "" : ".");
}

// argText writes an example's argument as a person would say it: strings
// quoted, lists and objects spelled out without JSON's braces.
function argText(v: Json): string {
  if (typeof v === "string") return `"${v}"`;
  if (Array.isArray(v)) return v.map(argText).join(" and ");
  if (v && typeof v === "object") return "(" + Object.entries(v).map(([k, x]) => `${k} ${argText(x)}`).join(", ") + ")";
  return String(v);
}

// problemText makes a sentence of a problem; one that starts with the
// argument's name (lpn_id "X" is not ...) says it is an argument, so
// that the name keeps its spelling.
function problemText(problem: string, field: Json): string {
  if (typeof field === "string" && field && problem.startsWith(field)) return sentence("the argument " + problem);
  return sentence(problem);
}

// errorLines reads an error answer ({"error": {code, problem, expected,
// next, example, ...}} from the tools, or a plain message) as sentences
// that say what went wrong and what to do, each with its kind.
export function errorLines(text: string, tool: string): [string, string][] {
  let body: Json = null;
  try {
    body = JSON.parse(text);
  } catch {
    // a plain message, shown as it is
  }
  const e: Json = body && typeof body === "object" ? (body.error ?? body) : null;
  const problem = e && typeof e === "object" ? (e.problem ?? e.message) : null;
  if (typeof problem !== "string" || !problem) return [["problem", sentence(text) || "The tool answered with an error."]];
  const lines: [string, string][] = [["title", errorTitles[e.code] ?? "The tool answered with an error"], ["problem", problemText(problem, e.field)]];
  if (typeof e.expected === "string" && e.expected) lines.push(["expected", sentence("expected: " + e.expected)]);
  for (const x of Array.isArray(e.also) ? e.also : []) {
    if (typeof x?.problem !== "string") continue;
    lines.push(["also", problemText(x.problem + (x.expected ? ` (expected: ${x.expected})` : ""), x.field)]);
  }
  const wait = e.retry_after_seconds ?? e.retry_in_seconds;
  if (typeof wait === "number" && wait > 0) lines.push(["wait", `Try again in ${wait} second${wait === 1 ? "" : "s"}.`]);
  const hasNext = typeof e.next === "string" && e.next !== "";
  if (hasNext) lines.push(["next", "What to do: " + sentence(e.next)]);
  if (e.example && typeof e.example === "object" && Object.keys(e.example).length) {
    const args = Object.entries(e.example).map(([k, v]) => `${k} ${argText(v)}`).join(", ");
    const call = (tool ? tool + " with " : "") + args + ".";
    // Without a next step, the example is what to do: ask again like it.
    lines.push(["example", hasNext ? "A request that would work: " + call
      : `What to do: ask again with ${typeof e.field === "string" && e.field ? e.field + " as expected" : "arguments as expected"}, for example ${call}`]);
  }
  return lines;
}

// explainError shows an error answer as errorLines' sentences, each set
// as text.
export function explainError(text: string, tool: string): HTMLElement {
  const lines = errorLines(text, tool);
  return el("div", { class: "error", role: "alert" },
    ...lines.map(([kind, line]) => el("p", { class: "error-" + kind }, kind === "title" ? el("b", {}, line) : line)));
}

// legend names each mark a view draws: [mark, what it means] pairs, the
// mark shown as it appears in the view (a symbol, or a swatch drawn by
// the node given).
export function legend(...items: [string | Node, string][]): HTMLElement {
  return el("div", { class: "legend", role: "list", "aria-label": "legend" },
    ...items.map(([mark, what]) => el("span", { role: "listitem" },
      typeof mark === "string" ? el("b", { class: "mark" }, mark) : mark, what)));
}

// swatch is a legend's small square of colour, described by the text
// beside it.
export function swatch(style: string): HTMLElement {
  return el("i", { class: "swatch", style, "aria-hidden": "true" });
}

// start connects the view to its host and renders each tool result the
// host hands it.
export function start(name: string, render: Render) {
  const root = document.getElementById("app") as HTMLElement;
  const app = new App({ name: "nsip-" + name, version: "1.0.0" });
  let args: Record<string, Json> = {};
  const view: View = {
    app,
    root,
    async readFull(a) {
      const uri = a.meta?.full?.json;
      if (typeof uri !== "string") return null;
      const res = await app.readServerResource({ uri });
      const c = res.contents?.[0] as Json;
      return c && typeof c.text === "string" ? JSON.parse(c.text) : null;
    },
    async callTool(tool, a) {
      const res = await app.callServerTool({ name: tool, arguments: a });
      if (res.isError) throw new Error(errorLines(parseResult(res).text, tool).map(([, line]) => line).join(" "));
      return parseResult(res).data;
    },
  };
  app.ontoolinput = (p: Json) => {
    args = p?.arguments ?? {};
  };
  app.onhostcontextchanged = (ctx: Json) => applyContext(ctx);
  app.ontoolresult = (result: Json) => {
    const { data, text } = parseResult(result);
    const tool = (app.getHostContext() as Json)?.toolInfo?.tool?.name ?? "";
    if (result?.isError) {
      root.replaceChildren(explainError(text, tool));
      root.setAttribute("data-ready", "1");
      return;
    }
    const a: Answer = { tool, args, data, text, meta: result?._meta ?? {} };
    Promise.resolve()
      .then(() => render(a, view))
      .then(() => root.setAttribute("data-ready", "1"))
      .catch((err: unknown) => {
        showError(root, "Could not show this answer: " + (err instanceof Error ? err.message : String(err)));
        root.setAttribute("data-ready", "1");
      });
  };
  app
    .connect()
    .then(() => applyContext(app.getHostContext()))
    .catch((err: unknown) => showError(root, "Could not reach the host: " + String(err)));
}

// show replaces root's content with kids, leaving out the absent ones.
export function show(root: HTMLElement, ...kids: (Node | null | undefined | false)[]) {
  root.replaceChildren(...kids.filter((k): k is Node => !!k));
}

// scroller wraps what may be wider than a phone in a region that scrolls
// on its own: named, and in the tab order, so that a keyboard can reach it
// and scroll it with the arrow keys.
export function scroller(label: string, child: Node): HTMLElement {
  return el("div", { class: "scroll", role: "region", "aria-label": label, tabindex: 0 }, child);
}
