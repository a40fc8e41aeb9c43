// A minimal MCP client over a browser WebSocket: initialize, the initialized
// notification, tools/list and tools/call nsip_get_animal. No SDK and no
// build step, so the page shows what any web app can do with the endpoint.

const params = new URLSearchParams(location.search);
const wsURL = params.get('ws');
const lpnId = params.get('lpn');
const logEl = document.getElementById('log');
const resultEl = document.getElementById('result');

function log(line) {
  logEl.textContent += line + '\n';
}

function finish(report, title) {
  resultEl.textContent = JSON.stringify(report);
  document.title = title;
}

// Opens the socket with the "mcp" subprotocol and resolves once it is open;
// a refused handshake surfaces only as an error event plus close code 1006.
function open(url) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, 'mcp');
    let opened = false;
    ws.addEventListener('open', () => {
      opened = true;
      resolve(ws);
    });
    ws.addEventListener('close', (ev) => {
      if (!opened) reject(new Error(`WebSocket closed before opening (code ${ev.code})`));
    });
  });
}

// Routes responses to waiting requests by id; anything else (notifications,
// unknown ids) is kept so the report shows everything the server sent.
class RPC {
  constructor(ws) {
    this.ws = ws;
    this.nextId = 1;
    this.pending = new Map();
    this.unmatched = [];
    this.closed = null;
    ws.addEventListener('message', (ev) => this.onMessage(ev.data));
    ws.addEventListener('close', (ev) => {
      this.closed = { code: ev.code, reason: ev.reason };
      for (const { reject } of this.pending.values()) {
        reject(new Error(`WebSocket closed (code ${ev.code}) with a request outstanding`));
      }
      this.pending.clear();
    });
  }

  onMessage(data) {
    let msg;
    try {
      msg = JSON.parse(data);
    } catch {
      this.unmatched.push({ unparsable: String(data) });
      return;
    }
    const waiter = msg.id !== undefined ? this.pending.get(msg.id) : undefined;
    if (!waiter) {
      this.unmatched.push(msg);
      return;
    }
    this.pending.delete(msg.id);
    if (msg.error) {
      waiter.reject(new Error(`${msg.error.code}: ${msg.error.message}`));
    } else {
      waiter.resolve(msg.result);
    }
  }

  request(method, params) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }

  notify(method, params) {
    this.ws.send(JSON.stringify({ jsonrpc: '2.0', method, params }));
  }
}

async function main() {
  const report = { origin: location.origin, ws: wsURL };
  try {
    if (!wsURL || !lpnId) throw new Error('page wants ?ws=<ws://host:port/ws>&lpn=<LPN ID>');
    log(`connecting to ${wsURL} from ${location.origin}`);
    const ws = await open(wsURL);
    report.protocol = ws.protocol;
    const rpc = new RPC(ws);

    const init = await rpc.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'nsip-e2e-browser', version: '1.0.0' },
    });
    report.server = init.serverInfo;
    report.protocolVersion = init.protocolVersion;
    rpc.notify('notifications/initialized');

    const list = await rpc.request('tools/list', {});
    report.tools = list.tools.map((t) => t.name);
    log(`${report.tools.length} tools`);

    const res = await rpc.request('tools/call', {
      name: 'nsip_get_animal',
      arguments: { search_string: lpnId },
    });
    report.animal = {
      isError: res.isError === true,
      text: (res.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n'),
    };
    report.unmatched = rpc.unmatched;
    ws.close(1000, 'done');
    finish(report, 'done');
  } catch (err) {
    report.error = String(err && err.message ? err.message : err);
    finish(report, `error: ${report.error}`);
  }
}

main();
