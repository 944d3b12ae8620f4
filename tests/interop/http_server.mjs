// Shared by the Node interop suites: which transport a run uses, and (over HTTP) the
// fixture-server process the suite starts itself. Node built-ins only, so each suite's own
// node_modules stays the only dependency it has.
//
//   node test_fixture.mjs <fixture-server>                      stdio (the suite spawns it)
//   node test_fixture.mjs <fixture-server> --http               Streamable HTTP, with sessions
//   node test_fixture.mjs <fixture-server> --http --stateless   Streamable HTTP, no sessions
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

// Parses `<fixture-server> [--http [--stateless]]`, plus any of the suite's own `extra` flags
// (e.g. ["--modern"]); exits 2 with `usage` otherwise. Returns { server, http, stateless,
// label, flags } (label: "stdio", "http" or "http --stateless"; flags: the set of `extra`
// flags given).
export function transportArgs(argv, usage, extra = []) {
  const [server, ...flags] = argv;
  const http = flags.includes("--http");
  const stateless = flags.includes("--stateless");
  const unknown = flags.filter((f) => f !== "--http" && f !== "--stateless" && !extra.includes(f));
  if (!server || server.startsWith("--") || unknown.length > 0 || (stateless && !http)) {
    const more = extra.map((f) => ` [${f}]`).join("");
    console.error(`usage: ${usage} <fixture-server> [--http [--stateless]]${more}`);
    process.exit(2);
  }
  const given = new Set(flags.filter((f) => extra.includes(f)));
  return { server, http, stateless, label: http ? (stateless ? "http --stateless" : "http") : "stdio", flags: given };
}

// A port on 127.0.0.1 that nothing listens on right now.
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

function accepts(port) {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

// Servers still running when this process exits (an uncaught error, process.exit) are killed.
const live = new Set();
process.on("exit", () => {
  for (const child of live) child.kill("SIGKILL");
});

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Starts `<server> --http 127.0.0.1:<free port> [--stateless]` with `env` added to this
// process's environment, and waits until the port accepts connections. The server's stderr
// goes to a file (not a pipe: a suite that blocks in spawnSync would stop draining it).
// Returns { url, stderr(), stop() }; stop() ends the process and removes the file (stderr()
// still answers with what it held).
export async function startHttpServer(server, { stateless = false, env = {}, timeoutMs = 15_000 } = {}) {
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), "fixture-http-"));
    const logPath = join(dir, "stderr.log");
    const log = openSync(logPath, "w");
    const args = ["--http", `127.0.0.1:${port}`, ...(stateless ? ["--stateless"] : [])];
    const child = spawn(server, args, { env: { ...process.env, ...env }, stdio: ["ignore", "ignore", log] });
    closeSync(log);
    live.add(child);
    let exited = null;
    const exit = new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        live.delete(child);
        exited = { code, signal };
        resolve();
      });
      child.once("error", (error) => {
        live.delete(child);
        exited = { error: error.message };
        resolve();
      });
    });
    let kept = null; // the stderr text, once stop() has removed the file
    const stderr = () => {
      if (kept !== null) return kept;
      try {
        return readFileSync(logPath, "utf8");
      } catch {
        return "";
      }
    };
    const stop = async () => {
      if (exited === null) {
        child.kill("SIGTERM");
        const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
        await exit;
        clearTimeout(killer);
      }
      if (kept === null) kept = stderr();
      rmSync(dir, { recursive: true, force: true });
    };
    const deadline = Date.now() + timeoutMs;
    while (exited === null && Date.now() < deadline && !(await accepts(port))) await sleep(50);
    if (exited === null && (await accepts(port))) {
      return { url: `http://127.0.0.1:${port}/mcp`, port, stderr, stop };
    }
    const why = exited ? `exited (${JSON.stringify(exited)})` : `not listening after ${timeoutMs} ms`;
    const text = stderr();
    await stop();
    // Another process may have taken the port between the probe and the bind: try another.
    if (exited && attempt < 3) continue;
    throw new Error(`${server} ${args.join(" ")}: ${why}\n--- server stderr ---\n${text.slice(-4000)}`);
  }
}

// The envelope's text (docs/errors.md#the-envelopes-rules) as a pattern: `Error: <message>`, `Recovery: <hint>`,
// then the terms line ending in the request id (the pattern's one group).
export const ID = "[A-Z0-9]{5}-[A-Z0-9]{5}";
export const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
export function envelope(message, hint, terms) {
  return new RegExp(`^Error: ${message}\\n\\nRecovery: ${hint}\\n\\n\\((?:${terms}) · request (${ID})\\)$`, "s");
}

// Ends an HTTP client's run: with a session, DELETE ends it (through the SDK transport's
// terminateSession) and the transport forgets its id; stateless, there was never one. Then
// the client closes and the server stops, whatever happened.
export async function endSession(transport, client, running, stateless) {
  try {
    if (!stateless) {
      assert.ok(transport.sessionId, "the server minted an Mcp-Session-Id");
      await transport.terminateSession();
      assert.equal(transport.sessionId, undefined, "the session ended");
    } else {
      assert.equal(transport.sessionId, undefined, "no Mcp-Session-Id when stateless");
    }
    await client.close();
  } finally {
    await running.stop();
  }
}
