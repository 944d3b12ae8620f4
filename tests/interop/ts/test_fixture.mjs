// Interop: the official TypeScript SDK client drives fixture-server over stdio, or over
// Streamable HTTP (StreamableHTTPClientTransport) against a fixture-server this suite starts.
//   node test_fixture.mjs <path to fixture-server> [--http [--stateless]]
// Checks: log and progress notifications arrive, a tool with an output schema is called
// after listTools() (the client validates structuredContent), failures are results whose text
// is the error envelope. This client validates structuredContent against the outputSchema even
// on isError results (and throws), so the server sends none on errors of such tools; with
// FIXTURE_STRUCTURED_ERRORS=always it does, and the last check shows this client then throws.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import assert from "node:assert/strict";
import { endSession, envelope, escape, startHttpServer, transportArgs } from "../http_server.mjs";

const { server, http, stateless, label } = transportArgs(process.argv.slice(2), "node test_fixture.mjs");
console.log(`transport: ${label}`);

let passed = 0;
let failed = 0;
const QUEUE_FULL = envelope(
  escape("The work queue is full."),
  escape("Wait a few seconds, then call fetch_items again with the same ids."),
  "reason queue_full · retryable",
);

async function check(name, fn) {
  try {
    await fn();
    passed += 1;
    console.log(`ok   ${name}`);
  } catch (e) {
    failed += 1;
    console.log(`FAIL ${name}: ${e?.stack ?? e}`);
  }
}

// Connects `client` to a fixture-server whose environment has `env` added: over stdio the
// transport spawns it; over HTTP this suite starts it (env goes to that process). Returns
// close(), which closes the client (over HTTP with a session, DELETE ends the session first)
// and stops the HTTP server.
// Every message the clients' transports received, in order (the client's own dispatch drops
// some progress notifications, see below; this is what the server sent).
const wire = [];
function tap(transport) {
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    wire.push(message);
    deliver?.(message, extra);
  };
}
const servers = [];
// The last stdio transport connected (the hold-back check reads its child's stdout chunks).
let stdioTransport;
async function connect(client, env = {}) {
  if (!http) {
    const transport = new StdioClientTransport({
      command: server,
      args: [],
      env: { ...getDefaultEnvironment(), ...env },
      stderr: "ignore",
    });
    await client.connect(transport);
    tap(transport);
    stdioTransport = transport;
    return async () => client.close();
  }
  const running = await startHttpServer(server, { stateless, env });
  servers.push(running);
  const transport = new StreamableHTTPClientTransport(new URL(running.url));
  try {
    await client.connect(transport);
  } catch (e) {
    await running.stop();
    throw e;
  }
  tap(transport);
  return () => endSession(transport, client, running, stateless);
}

const client = new Client({ name: "ts-interop", version: "1.0.0" }, { capabilities: {} });
const logs = [];
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params));
const closeClient = await connect(client);

await check("initialize negotiated a supported version and logging capability", async () => {
  assert.ok(client.getServerCapabilities()?.logging, "logging capability declared");
  assert.equal(client.getServerVersion()?.name, "fixture-server");
});

// Stateless, each POST stands alone: the level set by one request is gone by the next (as
// documented for `stateless_http`), so the call logs at the default threshold, `info`.
const loggingCheck = stateless
  ? "setLoggingLevel(debug) then work: stateless, the level does not carry over; info and above and the tracing event arrive"
  : "setLoggingLevel(debug) then work: every level and the tracing event arrive";
await check(loggingCheck, async () => {
  await client.setLoggingLevel("debug");
  logs.length = 0;
  const progress = [];
  const result = await client.callTool({ name: "work", arguments: { steps: 3 } }, undefined, {
    onprogress: (p) => progress.push(p),
  });
  assert.deepEqual(result.content, [{ type: "text", text: "done 3" }]);
  assert.deepEqual(
    logs.filter((l) => l.logger === "work").map((l) => [l.level, l.data]),
    [
      ...(stateless ? [] : [["debug", "debug from work"]]),
      ["info", "info from work"],
      ["notice", "notice from work"],
      ["warning", "warning from work"],
      ["error", "error from work"],
    ],
  );
  assert.deepEqual(
    logs.filter((l) => l.logger !== "work"),
    [{ level: "info", logger: "mcp_tests::context_tools", data: { message: "tracing event from work", steps: 3 } }],
  );
  // On the wire: every progress notification of this call, in order, before its response.
  const response = wire.find((m) => m.id !== undefined && m.result?.content?.[0]?.text === "done 3");
  assert.ok(response, "the response to the call was received");
  const ofCall = (m) => m.method === "notifications/progress" && m.params?.progressToken === response.id;
  const at = wire.indexOf(response);
  const sent = wire.slice(0, at).filter(ofCall).map((m) => [m.params.progress, m.params.total]);
  assert.deepEqual(sent, [[1, 3], [2, 3], [3, 3]], "progress before the response");
  assert.equal(wire.slice(at + 1).filter(ofCall).length, 0, "no progress after the response");
  // This client (SDK 1.32.2) runs notification handlers a microtask late, after the response
  // has removed the call's progress handler: the notifications that arrived in the same read as
  // the response never reach onprogress (it reports "unknown token" to onerror). So onprogress
  // sees a prefix of what was sent, in order.
  assert.deepEqual(
    progress.map((p) => [p.progress, p.total]),
    sent.slice(0, progress.length),
    "onprogress: in order, a prefix of what was sent",
  );
});

// What the 2 ms hold-back is for: over stdio the server writes a response that follows
// notifications at least 2 ms after them, so the notifications reach this client in a read of
// their own and onprogress sees them before the response removes the call's handler.
// Each call is judged by the stdout chunk its response arrived in (the SDK reads the child's
// stdout chunk by chunk), and by whether this process's event loop was turning when it came:
// a ticker runs every millisecond, and a gap of 1.5 ms or more between ticks in the 2 ms
// before the read means the loop was stalled (descheduled) or busy (with earlier messages)
// for long enough that two writes 2 ms apart could both be waiting when it read.
// - the response without the call's progress: onprogress must have seen all three;
// - the response in one chunk with its progress, read by a loop that turned every
//   millisecond: the first of two writes 2 ms apart would have been read alone, so the server
//   wrote them together. A failure;
// - the same, read after a gap: a late reader takes both in one read whatever the server
//   does, so the call proves nothing either way and is not counted.
// Too few calls that count (a machine loaded beyond that) is said, not passed over. Over HTTP
// there is no hold-back; the prefix check above is all that is asked there.
if (!http) {
  await check("stdio: onprogress sees every progress notification of a call (the 2 ms hold-back)", async () => {
    const stdout = stdioTransport?._process?.stdout;
    assert.ok(stdout, "the stdio transport's child stdout (SDK internals: _process)");
    const ticks = [performance.now()];
    const ticker = setInterval(() => {
      ticks.push(performance.now());
      if (ticks.length > 64) ticks.shift();
    }, 1);
    // The longest the loop went without a tick in the 2 ms before `at`.
    const longestGap = (at) => {
      let gap = at - ticks[ticks.length - 1];
      for (let i = ticks.length - 1; i > 0 && ticks[i] > at - 2; i -= 1) gap = Math.max(gap, ticks[i] - ticks[i - 1]);
      return gap;
    };
    let chunks = [];
    const onData = (chunk) => {
      const now = performance.now();
      chunks.push({ text: chunk.toString(), gap: longestGap(now) });
    };
    stdout.on("data", onData);
    const seen = [];
    let counted = 0;
    try {
      for (let i = 0; i < 60 && counted < 10; i += 1) {
        chunks = [];
        const progress = [];
        await client.callTool({ name: "work", arguments: { steps: 3 } }, undefined, {
          onprogress: (p) => progress.push([p.progress, p.total]),
        });
        assert.deepEqual(progress, [[1, 3], [2, 3], [3, 3]].slice(0, progress.length), "in order, a prefix");
        const last = chunks.findLast((c) => c.text.includes('"done 3"'));
        assert.ok(last, "the response arrived on stdout");
        const together = last.text.includes('"notifications/progress"');
        if (together && last.gap >= 1.5) {
          seen.push(`late read (${last.gap.toFixed(1)} ms without a tick)`);
          continue;
        }
        counted += 1;
        seen.push(together ? "with its progress" : progress.length);
        const detail = `longest gap between ticks ${last.gap.toFixed(2)} ms; calls: ${seen.join(", ")}`;
        assert.ok(!together, `the response came in one write with its progress (${detail})`);
        assert.equal(progress.length, 3, `onprogress saw ${progress.length} of 3 (${detail})`);
      }
    } finally {
      clearInterval(ticker);
      stdout.off("data", onData);
    }
    if (counted < 5) {
      console.log(`SKIPPED the hold-back check: only ${counted} calls could be judged (${seen.join(", ")})`);
    } else {
      console.log(`     ${counted} calls judged, each saw all three (${seen.join(", ")})`);
    }
  });
}

await check("listTools() then add: structuredContent validated against outputSchema", async () => {
  const { tools } = await client.listTools();
  const add = tools.find((t) => t.name === "add");
  assert.ok(add?.outputSchema, "add declares an output schema");
  const result = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
  assert.deepEqual(result.structuredContent, { sum: 5 });
  assert.deepEqual(result.content, [{ type: "text", text: '{"sum":5}' }]);
  assert.equal(result.isError, undefined);
});

await check("listTools(): fetch_items and add declare an outputSchema, boom none", async () => {
  const { tools } = await client.listTools();
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  assert.ok(byName.add?.outputSchema, "add.outputSchema");
  assert.ok(byName.fetch_items?.outputSchema, "fetch_items.outputSchema");
  assert.ok(byName.boom, "boom listed");
  assert.equal(byName.boom.outputSchema, undefined, "boom.outputSchema");
});

await check("declared failure of a tool with an outputSchema (fetch_items queue): envelope, no structuredContent", async () => {
  const result = await client.callTool({ name: "fetch_items", arguments: { ids: ["a", "b"], mode: "queue" } });
  assert.equal(result.isError, true);
  assert.equal(result.content.length, 1);
  assert.ok(result.content[0].text.includes("Recovery: Wait a few seconds"), result.content[0].text);
  assert.match(result.content[0].text, QUEUE_FULL);
  assert.equal("structuredContent" in result, false, `structuredContent: ${JSON.stringify(result.structuredContent)}`);
});

await check("failure of a tool without an outputSchema (boom): envelope and structuredContent.error", async () => {
  const result = await client.callTool({ name: "boom", arguments: {} });
  assert.equal(result.isError, true);
  const match = result.content[0].text.match(
    envelope(escape("Tool boom failed unexpectedly."), ".+", "reason internal_error"),
  );
  assert.ok(match, result.content[0].text);
  assert.equal(result.structuredContent?.error?.code, -32603);
  assert.equal(result.structuredContent.error.data.reason, "internal_error");
  assert.equal(result.structuredContent.error.data.requestId, match[1]);
});

await check("invalid arguments to a tool with an outputSchema (add): envelope, no structuredContent", async () => {
  const result = await client.callTool({ name: "add", arguments: { a: "x", b: 1 } });
  assert.equal(result.isError, true);
  assert.match(
    result.content[0].text,
    envelope(escape("Invalid arguments for tool add: a: expected integer, received string"), ".+", "reason invalid_arguments"),
  );
  assert.equal("structuredContent" in result, false, `structuredContent: ${JSON.stringify(result.structuredContent)}`);
});

// echo has no outputSchema: its error results keep structuredContent.error.
await check("bad arguments come back as an isError result", async () => {
  const result = await client.callTool({ name: "echo", arguments: { text: 5 } });
  assert.equal(result.isError, true);
  assert.match(result.content[0].text, /^Error: Invalid arguments for tool echo: text: expected string, received number\n\n/);
  assert.equal(result.structuredContent.error.code, -32602);
  assert.equal(result.structuredContent.error.data.reason, "invalid_arguments");
});

await check("an unknown tool comes back as an isError result, not an exception", async () => {
  const result = await client.callTool({ name: "ad", arguments: {} });
  assert.equal(result.isError, true);
  assert.match(
    result.content[0].text,
    envelope(
      escape("Unknown tool: ad."),
      escape("Re-run tools/list and retry. Did you mean add?"),
      "reason unknown_tool · not retryable",
    ),
  );
});

if (http) await check(stateless ? "close (no session to end)" : "close: DELETE ends the session", closeClient);
else await closeClient();

// Tools that ask the caller (ctx.ask), served to this 2025 client by the server's legacy
// shim: real elicitation/create and sampling/createMessage requests, answered by callbacks.
// Stateless, no round trip is possible: the tools refuse with the blind envelope instead.
await check(
  stateless
    ? "confirm_delete and summarize over stateless HTTP: the blind client_capability_missing refusal"
    : "confirm_delete and summarize: the elicitation and sampling callbacks answer, the calls complete",
  async () => {
    const asked = new Client({ name: "ts-interop-asked", version: "1.0.0" }, { capabilities: { elicitation: {}, sampling: {} } });
    const seen = [];
    asked.setRequestHandler(ElicitRequestSchema, async (request) => {
      seen.push(["elicit", request.params.message, request.params.requestedSchema]);
      return { action: "accept", content: { confirm: true } };
    });
    asked.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      seen.push(["sample", request.params.messages[0].content.text, request.params.maxTokens]);
      return { role: "assistant", content: { type: "text", text: "A short summary." }, model: "interop", stopReason: "endTurn" };
    });
    const closeAsked = await connect(asked);
    try {
      await asked.listTools();
      const deleted = await asked.callTool({ name: "confirm_delete", arguments: { path: "/tmp/x" } });
      const summary = await asked.callTool({ name: "summarize", arguments: { text: "A long text." } });
      if (stateless) {
        assert.equal(deleted.isError, true);
        assert.match(deleted.content[0].text, /^Error: Cannot request input 'confirm' \(elicitation\/create\): this server serves HTTP without sessions, and a 2025-era request there cannot be asked anything \(no server-to-client round trip is possible within one request\)\n\nRecovery: Asking needs a client that speaks MCP 2026-07-28/);
        assert.match(summary.content[0].text, /reason client_capability_missing/);
        assert.deepEqual(seen, []);
        return;
      }
      assert.deepEqual(deleted.structuredContent, { deleted: "/tmp/x" });
      assert.deepEqual(summary.content, [{ type: "text", text: "A short summary." }]);
      assert.deepEqual(seen, [
        [
          "elicit",
          "Delete /tmp/x?",
          { type: "object", properties: { confirm: { type: "boolean", description: "Delete it?" } }, required: ["confirm"] },
        ],
        ["sample", "A long text.", 200],
      ]);
    } finally {
      await closeAsked();
    }
  },
);

// FIXTURE_STRUCTURED_ERRORS=always: the old behaviour (structuredContent.error on every error
// result). This client then rejects the fetch_items failure, so the model never sees it.
await check("with FIXTURE_STRUCTURED_ERRORS=always, callTool(fetch_items queue) throws (why the default matters)", async () => {
  const always = new Client({ name: "ts-interop", version: "1.0.0" }, { capabilities: {} });
  const closeAlways = await connect(always, { FIXTURE_STRUCTURED_ERRORS: "always" });
  try {
    await always.listTools();
    await assert.rejects(
      always.callTool({ name: "fetch_items", arguments: { ids: ["a"], mode: "queue" } }),
      /Structured content does not match the tool's output schema/,
    );
  } finally {
    await closeAlways();
  }
});

if (failed > 0) {
  for (const running of servers) console.log(`--- server stderr (${running.url}) ---\n${running.stderr().slice(-4000)}`);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
