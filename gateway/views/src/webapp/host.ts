// Hosting a tool's answer as an MCP Apps host does: the tool's view (its
// ui:// resource, read from the server once) in a sandboxed iframe joined
// to the page by the SDK's AppBridge, which hands the view the call's
// arguments and result and carries the view's own requests (tools/call,
// resources/read) to the server. A tool without a view shows its text.
import { AppBridge, PostMessageTransport, buildAllowAttribute, getToolUiResourceUri } from "@modelcontextprotocol/ext-apps/app-bridge";
import type { Client } from "@modelcontextprotocol/client";
import { el } from "./dom";

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

export type Theme = "light" | "dark";

export interface Host {
  client: Client;
  tools: Map<string, Json>;
  theme(): Theme;
}

const pages = new Map<string, Promise<{ html: string; meta: Json }>>();
const bridges = new Set<AppBridge>();
// The bridges of the views a card holds: an animal's page holds two.
const byCard = new WeakMap<HTMLElement, AppBridge[]>();

function readView(h: Host, uri: string) {
  let p = pages.get(uri);
  if (!p) {
    p = h.client.readResource({ uri }).then((r: Json) => {
      const c = r.contents?.[0];
      if (!c || typeof c.text !== "string") throw new Error(`the view ${uri} has no page`);
      return { html: c.text as string, meta: c._meta ?? {} };
    });
    pages.set(uri, p);
    p.catch(() => pages.delete(uri));
  }
  return p;
}

export function textOf(result: Json): string {
  return (result?.content ?? [])
    .filter((c: Json) => c?.type === "text")
    .map((c: Json) => c.text)
    .join("\n");
}

// theme changes reach every view shown.
export function themeChanged(theme: Theme) {
  for (const b of bridges) void b.sendHostContextChange({ theme });
}

// show puts one answer in card (or a part of it): the view when the tool
// has one, else the text; the text is always there, folded, as the model
// would read it. owner is the card that drop() later removes.
export async function show(h: Host, card: HTMLElement, name: string, args: Json, result: Json, owner: HTMLElement = card) {
  const tool = h.tools.get(name) ?? { name };
  const text = textOf(result);
  const uri = getToolUiResourceUri(tool);
  if (!uri || result?.isError) {
    card.append(el("pre", { class: result?.isError ? "text error" : "text" }, text || "(no text in the answer)"));
    return;
  }
  card.append(el("details", { class: "textans" }, el("summary", {}, "Text answer"), el("pre", { class: "text" }, text)));
  const view = await readView(h, uri);
  const frame = el("iframe", { class: "view", title: name + " view", sandbox: "allow-scripts" });
  const allow = buildAllowAttribute(view.meta?.ui?.permissions);
  if (allow) frame.setAttribute("allow", allow);
  card.insertBefore(frame, card.querySelector("details.textans"));
  const width = frame.clientWidth || card.clientWidth;
  const bridge = new AppBridge(
    null,
    { name: "nsip-mcp web app", version: "1.0.0" },
    { serverTools: {}, serverResources: {}, logging: {} },
    {
      hostContext: {
        theme: h.theme(),
        displayMode: "inline",
        availableDisplayModes: ["inline"],
        platform: matchMedia("(pointer: coarse)").matches ? "mobile" : "web",
        toolInfo: { tool } as never,
        containerDimensions: { width, maxHeight: 6000 },
      },
    },
  );
  bridges.add(bridge);
  byCard.set(owner, [...(byCard.get(owner) ?? []), bridge]);
  // What the view asked the server for, in order, on the card for anyone
  // who wants to know what a view fetched beyond its answer.
  const asked = (what: string) => (card.dataset.viewRequests = ((card.dataset.viewRequests ?? "") + " " + what).trim());
  bridge.oncalltool = async (p) => {
    asked("tools/call:" + p.name);
    return (await h.client.callTool(p as never)) as never;
  };
  bridge.onreadresource = async (p) => {
    asked("resources/read:" + p.uri);
    return (await h.client.readResource(p as never)) as never;
  };
  bridge.onsizechange = ({ height }) => {
    if (height) frame.style.height = Math.ceil(height) + "px";
  };
  bridge.onopenlink = async () => ({ isError: true }) as never;
  bridge.onmessage = async () => ({ isError: true }) as never;
  const initialized = new Promise<void>((resolve) => (bridge.oninitialized = () => resolve()));
  await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
  frame.srcdoc = view.html;
  await initialized;
  await bridge.sendToolInput({ arguments: args });
  await bridge.sendToolResult(result);
  card.dataset.view = uri;
}

// drop removes card and ends its view's bridge.
export function drop(card: HTMLElement) {
  for (const b of byCard.get(card) ?? []) {
    bridges.delete(b);
    void b
      .teardownResource({})
      .catch(() => undefined)
      .finally(() => b.close());
  }
  card.remove();
}
