// Interop: the TypeScript SDK v2 client (`@modelcontextprotocol/client`, pinned in
// package.json) drives fixture-server over stdio, or over Streamable HTTP
// (StreamableHTTPClientTransport) against a fixture-server this suite starts.
//   node test_fixture.mjs <path to fixture-server> [--http [--stateless]] [--modern]
// Checks: tools/list, a success validated against the outputSchema, and every kind of failure
// comes back as an isError result (not an exception) whose text is the error envelope; errors
// of tools with an outputSchema carry no structuredContent, the others keep
// structuredContent.error.
//
// Without --modern the client speaks the 2025-11-25 era (the default `versionNegotiation`
// mode, 'legacy': initialize). With --modern it speaks 2026-07-28: `versionNegotiation`
// {mode: 'auto'} probes `server/discover` (over stdio on a short-lived sibling process, then
// it spawns the session process) and must land on the modern era; a second client pinned to
// 2026-07-28 must connect too. Then the same checks, plus: the era, version and serverInfo the
// discover result gave; `_meta["io.modelcontextprotocol/logLevel"]` on a call of the logging
// tool `work` delivers notifications/message at or above that level, and a call without it
// none; over HTTP, no request carries an Mcp-Session-Id (modern traffic has no session, even
// against a server that has sessions) and every request carries MCP-Protocol-Version.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import assert from "node:assert/strict";
import { endSession, envelope, escape, startHttpServer, transportArgs } from "../http_server.mjs";

const { server, http, stateless, label, flags } = transportArgs(process.argv.slice(2), "node test_fixture.mjs", ["--modern"]);
const modern = flags.has("--modern");
const MODERN = "2026-07-28";
console.log(`transport: ${label}${modern ? `, era: ${MODERN}` : ""}`);


let passed = 0;
let failed = 0;
async function check(name, fn) {
  try {
    const detail = await fn();
    passed += 1;
    console.log(`ok   ${name}${detail ? `: ${detail}` : ""}`);
  } catch (e) {
    failed += 1;
    console.log(`FAIL ${name}: ${e?.stack ?? e}`);
  }
}

function onlyText(result) {
  assert.equal(result.isError, true, "isError");
  assert.equal(result.content.length, 1, `one content block: ${JSON.stringify(result.content)}`);
  assert.equal(result.content[0].type, "text");
  return result.content[0].text;
}

// Modern: 'auto' (or a pin) probes server/discover; the probe's timeout is kept short so a
// server that does not answer fails the run quickly rather than after the default 60 s.
const negotiation = (mode) => ({ versionNegotiation: { mode, probe: { timeoutMs: 5_000 } } });
const newClient = (mode) =>
  new Client({ name: "ts-v2-interop", version: "1.0.0" }, { capabilities: {}, ...(modern ? negotiation(mode) : {}) });

// Over HTTP, every exchange the client makes: method, the Mcp-Session-Id and
// MCP-Protocol-Version it sent, the response status and the Mcp-Session-Id it got back.
const exchanges = [];
async function recordingFetch(url, init) {
  const sent = new Headers(init?.headers);
  const response = await fetch(url, init);
  let rpc;
  try {
    rpc = JSON.parse(init?.body ?? "null")?.method;
  } catch {
    rpc = undefined;
  }
  exchanges.push({
    method: init?.method ?? "GET",
    rpc,
    sentSession: sent.get("mcp-session-id"),
    sentVersion: sent.get("mcp-protocol-version"),
    status: response.status,
    mintedSession: response.headers.get("mcp-session-id"),
  });
  return response;
}

const client = newClient("auto");
// Over HTTP this suite starts the server; over stdio the transport spawns it.
const running = http ? await startHttpServer(server, { stateless }) : undefined;
const newTransport = () =>
  http
    ? new StreamableHTTPClientTransport(new URL(running.url), modern ? { fetch: recordingFetch } : undefined)
    : new StdioClientTransport({ command: server, args: [], stderr: "ignore" });
const transport = newTransport();
try {
  await client.connect(transport);
} catch (e) {
  if (running && modern) console.log(`--- server stderr ---\n${running.stderr().slice(-4000)}`);
  await running?.stop();
  throw e;
}

if (!modern) {
  await check("initialize", async () => {
    assert.equal(client.getServerVersion()?.name, "fixture-server");
    assert.ok(client.getServerCapabilities()?.tools, "tools capability");
    return `protocol ${client.getNegotiatedProtocolVersion?.() ?? "?"}`;
  });
} else {
  await check("server/discover (mode 'auto'): the modern era at 2026-07-28", async () => {
    assert.equal(client.getProtocolEra(), "modern", "getProtocolEra()");
    assert.equal(client.getNegotiatedProtocolVersion(), MODERN, "getNegotiatedProtocolVersion()");
    const discover = client.getDiscoverResult();
    assert.ok(discover, "getDiscoverResult()");
    assert.ok(discover.supportedVersions?.includes(MODERN), `supportedVersions: ${JSON.stringify(discover.supportedVersions)}`);
    assert.equal(client.getServerVersion()?.name, "fixture-server", `serverInfo: ${JSON.stringify(client.getServerVersion())}`);
    assert.ok(client.getServerVersion()?.version, "serverInfo.version");
    assert.ok(client.getServerCapabilities()?.tools, "tools capability");
    return `supportedVersions ${JSON.stringify(discover.supportedVersions)}, server ${client.getServerVersion().name} ${client.getServerVersion().version}`;
  });

  await check("versionNegotiation {pin: '2026-07-28'}: a second client connects modern", async () => {
    const pinned = newClient({ pin: MODERN });
    await pinned.connect(newTransport());
    try {
      assert.equal(pinned.getProtocolEra(), "modern", "getProtocolEra()");
      assert.equal(pinned.getNegotiatedProtocolVersion(), MODERN, "getNegotiatedProtocolVersion()");
      assert.equal(pinned.getServerVersion()?.name, "fixture-server", `serverInfo: ${JSON.stringify(pinned.getServerVersion())}`);
      const result = await pinned.callTool({ name: "add", arguments: { a: 1, b: 1 } });
      assert.deepEqual(result.structuredContent, { sum: 2 });
    } finally {
      await pinned.close();
    }
    return "era modern, add {a: 1, b: 1} = 2";
  });
}

await check("listTools(): fetch_items and add declare an outputSchema, boom none", async () => {
  const { tools } = await client.listTools();
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  assert.ok(byName.add?.outputSchema, "add.outputSchema");
  assert.ok(byName.fetch_items?.outputSchema, "fetch_items.outputSchema");
  assert.ok(byName.boom, "boom listed");
  assert.equal(byName.boom.outputSchema, undefined, "boom.outputSchema");
  return `${tools.length} tools`;
});

if (modern) {
  await check("tools/list result: ttlMs and cacheScope", async () => {
    // cacheMode 'bypass': the wire result, not an aggregate served from the response cache.
    const listed = await client.listTools(undefined, { cacheMode: "bypass" });
    assert.equal(typeof listed.ttlMs, "number", `ttlMs: ${JSON.stringify(listed.ttlMs)}`);
    assert.ok(["public", "private"].includes(listed.cacheScope), `cacheScope: ${JSON.stringify(listed.cacheScope)}`);
    return `ttlMs ${listed.ttlMs}, cacheScope ${listed.cacheScope}`;
  });
}

await check("success: add {a: 2, b: 3}, structuredContent validated against the outputSchema", async () => {
  const result = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
  assert.deepEqual(result.structuredContent, { sum: 5 });
  assert.deepEqual(result.content, [{ type: "text", text: '{"sum":5}' }]);
  assert.ok(!result.isError, "not an error");
});

await check("declared failure of a tool with an outputSchema (fetch_items queue): envelope, no structuredContent", async () => {
  const result = await client.callTool({ name: "fetch_items", arguments: { ids: ["a", "b"], mode: "queue" } });
  const text = onlyText(result);
  assert.ok(text.includes("Recovery: Wait a few seconds"), text);
  assert.match(
    text,
    envelope(
      escape("The work queue is full."),
      escape("Wait a few seconds, then call fetch_items again with the same ids."),
      "reason queue_full · retryable",
    ),
  );
  assert.equal("structuredContent" in result, false, `structuredContent: ${JSON.stringify(result.structuredContent)}`);
});

await check("failure of a tool without an outputSchema (boom): envelope and structuredContent.error", async () => {
  const result = await client.callTool({ name: "boom", arguments: {} });
  const match = onlyText(result).match(envelope(escape("Tool boom failed unexpectedly."), ".+", "reason internal_error"));
  assert.ok(match, result.content[0].text);
  assert.equal(result.structuredContent?.error?.code, -32603);
  assert.equal(result.structuredContent.error.data.reason, "internal_error");
  assert.equal(result.structuredContent.error.data.requestId, match[1]);
});

await check("invalid arguments to a tool with an outputSchema (add): envelope, no structuredContent", async () => {
  const result = await client.callTool({ name: "add", arguments: { a: "x", b: 1 } });
  assert.match(
    onlyText(result),
    envelope(escape("Invalid arguments for tool add: a: expected integer, received string"), ".+", "reason invalid_arguments"),
  );
  assert.equal("structuredContent" in result, false, `structuredContent: ${JSON.stringify(result.structuredContent)}`);
});

await check("unknown tool: an isError result with the envelope, not an exception", async () => {
  const result = await client.callTool({ name: "nope", arguments: {} });
  assert.match(onlyText(result), envelope(escape("Unknown tool: nope."), "Re-run tools/list and retry\\..*", "reason unknown_tool · not retryable"));
  assert.equal(result.structuredContent?.error?.data?.reason, "unknown_tool");
});

if (modern) {
  const messages = [];
  client.setNotificationHandler("notifications/message", (n) => {
    messages.push(n.params);
  });
  const RANK = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];
  // Over HTTP the notifications ride the call's SSE response ahead of the result; over stdio
  // the pipe carries them ahead of it. A short grace covers the handler dispatch either way.
  const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

  await check("logLevel 'info' in _meta: work delivers notifications/message at info and above", async () => {
    messages.length = 0;
    const result = await client.callTool({
      name: "work",
      arguments: { steps: 1 },
      _meta: { "io.modelcontextprotocol/logLevel": "info" },
    });
    assert.ok(!result.isError, `not an error: ${JSON.stringify(result)}`);
    await settle();
    const texts = messages.map((m) => (typeof m.data === "string" ? m.data : JSON.stringify(m.data)));
    assert.ok(messages.length > 0, "some notifications/message");
    assert.ok(texts.some((t) => t.includes("info from work")), `the info message: ${JSON.stringify(messages)}`);
    assert.ok(texts.some((t) => t.includes("error from work")), `the error message: ${JSON.stringify(messages)}`);
    const below = messages.filter((m) => RANK.indexOf(m.level) < RANK.indexOf("info"));
    assert.deepEqual(below, [], "nothing below info");
    return `${messages.length} messages, levels ${[...new Set(messages.map((m) => m.level))].join(", ")}`;
  });

  await check("no logLevel in _meta: work delivers no notifications/message", async () => {
    messages.length = 0;
    const result = await client.callTool({ name: "work", arguments: { steps: 1 } });
    assert.ok(!result.isError, `not an error: ${JSON.stringify(result)}`);
    await settle();
    assert.deepEqual(messages, [], "no notifications/message");
    return "none";
  });
}

if (http && modern) {
  await check("HTTP: no request carries a session; every one carries MCP-Protocol-Version 2026-07-28", async () => {
    assert.ok(exchanges.length >= 5, `exchanges: ${JSON.stringify(exchanges)}`);
    const withSession = exchanges.filter((x) => x.sentSession !== null);
    assert.deepEqual(withSession, [], "requests that sent an Mcp-Session-Id");
    assert.equal(transport.sessionId, undefined, `transport.sessionId: ${transport.sessionId}`);
    const posts = exchanges.filter((x) => x.method === "POST");
    const offVersion = posts.filter((x) => x.sentVersion !== MODERN);
    assert.deepEqual(offVersion, [], "POSTs without MCP-Protocol-Version 2026-07-28");
    const minted = exchanges.filter((x) => x.mintedSession !== null);
    const methods = [...new Set(exchanges.map((x) => `${x.method}${x.rpc ? ` ${x.rpc}` : ""}`))];
    return `${exchanges.length} exchanges (${methods.join(", ")}), ${minted.length} responses with an Mcp-Session-Id`;
  });
}

// Tools that ask the caller (ctx.ask), written once on the server: modern, the client's
// input_required driver fulfils them through its registered handlers and retries; legacy
// (2025), the server's shim sends real requests to the same handlers. Legacy over stateless
// HTTP cannot be asked: the blind client_capability_missing refusal.
const blind = stateless && !modern;
await check(
  blind
    ? "confirm_delete and summarize over stateless HTTP (2025): the blind client_capability_missing refusal"
    : `confirm_delete and summarize with elicitation and sampling handlers (${modern ? "input_required, retried" : "the legacy shim"})`,
  async () => {
    const asked = new Client(
      { name: "ts-v2-interop-asked", version: "1.0.0" },
      { capabilities: { elicitation: {}, sampling: {} }, ...(modern ? negotiation({ pin: MODERN }) : {}) },
    );
    const seen = [];
    asked.setRequestHandler("elicitation/create", async (request) => {
      seen.push(["elicit", request.params.message]);
      return { action: "accept", content: { confirm: true } };
    });
    asked.setRequestHandler("sampling/createMessage", async (request) => {
      seen.push(["sample", request.params.messages[0].content.text]);
      return { role: "assistant", content: { type: "text", text: "A short summary." }, model: "interop", stopReason: "endTurn" };
    });
    await asked.connect(newTransport());
    try {
      const deleted = await asked.callTool({ name: "confirm_delete", arguments: { path: "/tmp/x" } });
      const summary = await asked.callTool({ name: "summarize", arguments: { text: "A long text." } });
      if (blind) {
        assert.match(onlyText(deleted), /this server serves HTTP without sessions, and a 2025-era request there cannot be asked anything \(no server-to-client round trip is possible within one request\)/);
        assert.match(onlyText(summary), /reason client_capability_missing/);
        assert.deepEqual(seen, []);
        return "refused";
      }
      assert.deepEqual(deleted.structuredContent, { deleted: "/tmp/x" });
      assert.deepEqual(summary.content, [{ type: "text", text: "A short summary." }]);
      assert.deepEqual(seen, [["elicit", "Delete /tmp/x?"], ["sample", "A long text."]]);
      return `era ${asked.getProtocolEra?.() ?? "legacy"}`;
    } finally {
      await asked.close();
    }
  },
);

if (http) {
  const sessionless = stateless || modern;
  const name = modern ? "close (modern: no session to end)" : stateless ? "close (no session to end)" : "close: DELETE ends the session";
  await check(name, async () => {
    await endSession(transport, client, running, sessionless);
  });
  if (failed > 0) console.log(`--- server stderr ---\n${running.stderr().slice(-4000)}`);
} else {
  await client.close();
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
