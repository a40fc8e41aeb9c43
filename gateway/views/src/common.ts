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
      if (res.isError) throw new Error(parseResult(res).text || tool + " failed");
      return parseResult(res).data;
    },
  };
  app.ontoolinput = (p: Json) => {
    args = p?.arguments ?? {};
  };
  app.onhostcontextchanged = (ctx: Json) => applyContext(ctx);
  app.ontoolresult = (result: Json) => {
    const { data, text } = parseResult(result);
    if (result?.isError) {
      showError(root, text || "The tool answered with an error.");
      return;
    }
    const tool = (app.getHostContext() as Json)?.toolInfo?.tool?.name ?? "";
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
