// A test host page: embeds one view in a sandboxed iframe through the MCP
// Apps SDK's AppBridge, as hosts do, and hands it a tool's input and
// result. The view's own requests (tools/call, resources/read) go to the
// node side through functions Playwright exposes, which forwards them to
// the server with the TypeScript SDK client; the page itself opens no
// connection.
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

declare global {
  interface Window {
    mcpForward(method: string, params: unknown): Promise<unknown>;
    hostView(o: { html: string; tool: unknown; input: unknown; result: unknown; theme: "light" | "dark"; width: number }): Promise<void>;
    setTheme(theme: "light" | "dark"): Promise<void>;
    viewRequests: string[];
  }
}

let bridge: AppBridge | null = null;
window.viewRequests = [];

window.hostView = async ({ html, tool, input, result, theme, width }) => {
  const frame = document.createElement("iframe");
  frame.id = "view";
  frame.setAttribute("sandbox", "allow-scripts");
  frame.style.width = width + "px";
  frame.style.height = "200px";
  frame.style.border = "0";
  document.body.replaceChildren(frame);
  const b = new AppBridge(null, { name: "nsip-views-test-host", version: "1.0.0" },
    { serverTools: {}, serverResources: {} },
    { hostContext: { theme, displayMode: "inline", platform: "web", toolInfo: { tool } as never, containerDimensions: { maxHeight: 4000, width } } });
  bridge = b;
  b.oncalltool = async (params) => {
    window.viewRequests.push("tools/call " + params.name);
    return (await window.mcpForward("tools/call", params)) as never;
  };
  b.onreadresource = async (params) => {
    window.viewRequests.push("resources/read " + params.uri);
    return (await window.mcpForward("resources/read", params)) as never;
  };
  b.onsizechange = ({ height }) => {
    if (height) frame.style.height = height + "px";
  };
  const initialized = new Promise<void>((resolve) => (b.oninitialized = () => resolve()));
  await b.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
  frame.srcdoc = html;
  await initialized;
  await b.sendToolInput({ arguments: input as Record<string, unknown> });
  await b.sendToolResult(result as never);
};

window.setTheme = async (theme) => {
  await bridge?.sendHostContextChange({ theme });
};
