// Interop: the official TypeScript SDK client drives fixture-server over stdio.
//   node test_fixture.mjs <path to fixture-server>
// Checks: log and progress notifications arrive, a tool with an output schema is called
// after listTools() (the client validates structuredContent), failures are results whose text
// is the error envelope. This client validates structuredContent against the outputSchema even
// on isError results (and throws), so the server sends none on errors of such tools; with
// FIXTURE_STRUCTURED_ERRORS=always it does, and the last check shows this client then throws.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import assert from "node:assert/strict";

const server = process.argv[2];
if (!server) {
  console.error("usage: node test_fixture.mjs <fixture-server>");
  process.exit(2);
}

let passed = 0;
let failed = 0;
const ID = "[A-Z0-9]{5}-[A-Z0-9]{5}";
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
// The envelope: `Error: <message>`, `Recovery: <hint>`, then the terms line ending in the id.
function envelope(message, hint, terms) {
  return new RegExp(
    `^Error: ${message}\\n\\nRecovery: ${hint}\\n\\n\\((?:${terms}) · request (${ID})\\)$`,
    "s",
  );
}
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

const transport = new StdioClientTransport({ command: server, args: [], stderr: "ignore" });
const client = new Client({ name: "ts-interop", version: "1.0.0" }, { capabilities: {} });
const logs = [];
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params));
await client.connect(transport);

await check("initialize negotiated a supported version and logging capability", async () => {
  assert.ok(client.getServerCapabilities()?.logging, "logging capability declared");
  assert.equal(client.getServerVersion()?.name, "fixture-server");
});

await check("setLoggingLevel(debug) then work: every level and the tracing event arrive", async () => {
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
      ["debug", "debug from work"],
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
  assert.deepEqual(
    progress.map((p) => [p.progress, p.total]),
    [[1, 3], [2, 3], [3, 3]],
  );
});

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

await client.close();

// FIXTURE_STRUCTURED_ERRORS=always: the old behaviour (structuredContent.error on every error
// result). This client then rejects the fetch_items failure, so the model never sees it.
await check("with FIXTURE_STRUCTURED_ERRORS=always, callTool(fetch_items queue) throws (why the default matters)", async () => {
  const always = new Client({ name: "ts-interop", version: "1.0.0" }, { capabilities: {} });
  await always.connect(
    new StdioClientTransport({
      command: server,
      args: [],
      env: { ...getDefaultEnvironment(), FIXTURE_STRUCTURED_ERRORS: "always" },
      stderr: "ignore",
    }),
  );
  try {
    await always.listTools();
    await assert.rejects(
      always.callTool({ name: "fetch_items", arguments: { ids: ["a"], mode: "queue" } }),
      /Structured content does not match the tool's output schema/,
    );
  } finally {
    await always.close();
  }
});

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
