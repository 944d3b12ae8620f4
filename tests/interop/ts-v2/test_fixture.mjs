// Interop: the TypeScript SDK v2 client (`@modelcontextprotocol/client`, pinned in
// package.json) drives fixture-server over stdio, or over Streamable HTTP
// (StreamableHTTPClientTransport) against a fixture-server this suite starts.
//   node test_fixture.mjs <path to fixture-server> [--http [--stateless]]
// Checks: tools/list, a success validated against the outputSchema, and every kind of failure
// comes back as an isError result (not an exception) whose text is the error envelope; errors
// of tools with an outputSchema carry no structuredContent, the others keep
// structuredContent.error.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import assert from "node:assert/strict";
import { endSession, envelope, escape, startHttpServer, transportArgs } from "../http_server.mjs";

const { server, http, stateless, label } = transportArgs(process.argv.slice(2), "node test_fixture.mjs");
console.log(`transport: ${label}`);


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

const client = new Client({ name: "ts-v2-interop", version: "1.0.0" }, { capabilities: {} });
// Over HTTP this suite starts the server; over stdio the transport spawns it.
const running = http ? await startHttpServer(server, { stateless }) : undefined;
const transport = http
  ? new StreamableHTTPClientTransport(new URL(running.url))
  : new StdioClientTransport({ command: server, args: [], stderr: "ignore" });
try {
  await client.connect(transport);
} catch (e) {
  await running?.stop();
  throw e;
}

await check("initialize", async () => {
  assert.equal(client.getServerVersion()?.name, "fixture-server");
  assert.ok(client.getServerCapabilities()?.tools, "tools capability");
  return `protocol ${client.getNegotiatedProtocolVersion?.() ?? "?"}`;
});

await check("listTools(): fetch_items and add declare an outputSchema, boom none", async () => {
  const { tools } = await client.listTools();
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  assert.ok(byName.add?.outputSchema, "add.outputSchema");
  assert.ok(byName.fetch_items?.outputSchema, "fetch_items.outputSchema");
  assert.ok(byName.boom, "boom listed");
  assert.equal(byName.boom.outputSchema, undefined, "boom.outputSchema");
  return `${tools.length} tools`;
});

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

if (http) {
  await check(stateless ? "close (no session to end)" : "close: DELETE ends the session", async () => {
    await endSession(transport, client, running, stateless);
  });
  if (failed > 0) console.log(`--- server stderr ---\n${running.stderr().slice(-4000)}`);
} else {
  await client.close();
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
