// The web app's connection to the server: the TypeScript SDK's Client over
// the server's WebSocket (/ws) from the page's own origin, or, when the
// server runs the http-sse transport and has no /ws, over streamable HTTP
// (/mcp) on the same origin. A token the server may require comes from the
// address's fragment (#token=...), which the browser never sends to the
// server, or from the form shown when connecting fails.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

type Message = any; // eslint-disable-line @typescript-eslint/no-explicit-any

// WebSocketTransport is the SDK's Transport over a browser WebSocket: one
// JSON-RPC message per text frame, the "mcp" subprotocol the server asks
// for.
export class WebSocketTransport {
  onclose?: () => void;
  onerror?: (e: Error) => void;
  onmessage?: (m: Message) => void;
  private ws?: WebSocket;

  constructor(private url: string) {}

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(this.url, "mcp");
      this.ws = ws;
      let open = false;
      ws.onopen = () => {
        open = true;
        resolve();
      };
      ws.onerror = () => {
        if (open) this.onerror?.(new Error("the connection to the server failed"));
      };
      ws.onclose = (ev) => {
        if (!open) reject(new Error(`the server refused the WebSocket (code ${ev.code})`));
        else this.onclose?.();
      };
      ws.onmessage = (ev) => {
        let m: Message;
        try {
          m = JSON.parse(String(ev.data));
        } catch {
          this.onerror?.(new Error("the server sent a message that is not JSON"));
          return;
        }
        this.onmessage?.(m);
      };
    });
  }

  async send(m: Message): Promise<void> {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) throw new Error("not connected to the server");
    this.ws.send(JSON.stringify(m));
  }

  async close(): Promise<void> {
    this.ws?.close();
  }
}

// The MCP Apps extension this client hosts views for.
const uiExtension = { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } };

function newClient(): Client {
  return new Client({ name: "nsip-web-app", version: "1.0.0" }, { capabilities: { extensions: uiExtension } as never });
}

// tokenFromFragment reads the token from /app#token=…, taken as it was
// written (a base64 token's "+" stays a "+"), and takes it out of the
// address, so that it is not left in the address bar, the history or a
// link someone copies.
export function tokenFromFragment(): string {
  let token = "";
  for (const part of location.hash.replace(/^#/, "").split("&")) {
    const [name, value = ""] = part.split(/=(.*)/s);
    if (name === "token") {
      try {
        token = decodeURIComponent(value);
      } catch {
        token = value;
      }
    }
  }
  if (token) history.replaceState(null, "", location.pathname + location.search);
  return token;
}

// connect tries /ws, then /mcp, on the page's own origin.
export async function connect(token: string): Promise<{ client: Client; via: string }> {
  const ws = new URL("/ws", location.href);
  ws.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  if (token) ws.searchParams.set("access_token", token);
  let first: unknown;
  try {
    const client = newClient();
    await client.connect(new WebSocketTransport(ws.href) as never);
    return { client, via: "WebSocket" };
  } catch (err) {
    first = err;
  }
  try {
    const headers: Record<string, string> = token ? { Authorization: "Bearer " + token } : {};
    const client = newClient();
    await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", location.href), { requestInit: { headers } }) as never);
    return { client, via: "streamable HTTP" };
  } catch (err) {
    throw new Error(`${String((first as Error)?.message ?? first)}; streamable HTTP: ${String((err as Error)?.message ?? err)}`);
  }
}
