// Serves a stdio MCP server over Streamable HTTP, so that the official conformance suite
// (which speaks HTTP only) can test it.
//
//   node bridge.mjs -- <server command> [args...]
//
// Listens on 127.0.0.1 on a free port and prints its endpoint, `http://127.0.0.1:<port>/mcp`,
// as the first line on stdout. Each MCP session (each `initialize` POST) gets its own child
// process; a DELETE of the session, or the child exiting, ends both.
//
// The HTTP side is the official TypeScript SDK's StreamableHTTPServerTransport (sessions,
// SSE streams, protocol-version header). The stdio side is read here, line by line, and not
// through the SDK's stdio client, which would drop any line that fails its schema: the suite
// must see exactly what the server wrote. Messages are forwarded as they are, in both
// directions; the only thing read from them is where a server-to-client message goes.
import http from 'node:http';
import readline from 'node:readline';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

const argv = process.argv.slice(2);
if (argv[0] === '--') argv.shift();
if (argv.length === 0) {
  console.error('usage: node bridge.mjs -- <server command> [args...]');
  process.exit(2);
}
const [command, ...args] = argv;
const log = (...m) => console.error('[bridge]', ...m);

/** Mcp-Session-Id -> its transport. */
const sessions = new Map();
/** Every live child, to end them when the bridge ends. */
const children = new Set();

/** A new session: a child process and the HTTP transport in front of it. */
function openSession() {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  children.add(child);
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => sessions.set(id, transport),
  });

  // A notification or request from the server belongs on the SSE stream of the client
  // request it is about. Progress names its request by token; anything else (log messages,
  // sampling, elicitation) is taken to belong to the newest request still waiting.
  const waiting = []; // ids of client requests not yet answered, oldest first
  const byProgressToken = new Map();

  transport.onmessage = (msg) => {
    if (msg.method !== undefined && msg.id !== undefined) {
      waiting.push(msg.id);
      const token = msg.params?._meta?.progressToken;
      if (token !== undefined) byProgressToken.set(token, msg.id);
    }
    child.stdin.write(JSON.stringify(msg) + '\n');
  };

  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      log('not JSON on the server stdout:', line);
      return;
    }
    let related;
    if (msg.method === undefined && msg.id !== undefined) {
      // A response: the transport routes it by its id.
      const i = waiting.indexOf(msg.id);
      if (i >= 0) waiting.splice(i, 1);
    } else {
      const token = msg.params?.progressToken;
      related = byProgressToken.has(token) ? byProgressToken.get(token) : waiting.at(-1);
    }
    transport.send(msg, related === undefined ? undefined : { relatedRequestId: related })
      .catch((e) => log('to HTTP:', e.message));
  });

  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
    child.stdin.end(); // the server exits at end of input
  };
  child.on('exit', () => {
    children.delete(child);
    transport.close().catch(() => {});
  });
  child.on('error', (e) => {
    log(`cannot run ${command}:`, e.message);
    transport.close().catch(() => {});
  });
  child.stdin.on('error', () => {}); // writing to a child that has exited
  return transport;
}

// DNS-rebinding protection: only loopback names in Host and Origin (the suite's
// dns-rebinding-protection scenario sends `evil.example.com` and expects a 4xx).
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const isLoopback = (url) => {
  try {
    return LOOPBACK.has(new URL(url).hostname);
  } catch {
    return false;
  }
};

const jsonError = (res, status, code, message) =>
  res.writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));

async function readJson(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

const server = http.createServer(async (req, res) => {
  try {
    if (new URL(req.url, 'http://x').pathname !== '/mcp') return void res.writeHead(404).end();
    const origin = req.headers.origin;
    if (!isLoopback(`http://${req.headers.host ?? ''}`) || (origin !== undefined && !isLoopback(origin))) {
      return void jsonError(res, 403, -32000, 'Forbidden: Host and Origin must be localhost');
    }
    const sid = req.headers['mcp-session-id'];
    if (sid !== undefined) {
      const transport = sessions.get(sid);
      if (!transport) return void jsonError(res, 404, -32001, 'Session not found');
      return void (await transport.handleRequest(req, res));
    }
    // Without a session id, only an `initialize` POST is valid: it opens a session.
    if (req.method !== 'POST') return void jsonError(res, 400, -32000, 'Bad Request: no Mcp-Session-Id');
    let body;
    try {
      body = await readJson(req);
    } catch {
      return void jsonError(res, 400, -32700, 'Parse error');
    }
    if (body?.method !== 'initialize') return void jsonError(res, 400, -32000, 'Bad Request: no Mcp-Session-Id');
    await openSession().handleRequest(req, res, body);
  } catch (e) {
    log('error:', e);
    if (!res.headersSent) res.writeHead(500).end();
  }
});

server.listen(0, '127.0.0.1', () => {
  console.log(`http://127.0.0.1:${server.address().port}/mcp`);
  log(`serving ${argv.join(' ')}`);
});

const shutdown = () => {
  for (const child of children) child.kill();
  process.exit(0);
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
