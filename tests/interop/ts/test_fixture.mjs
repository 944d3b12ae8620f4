// Interop: the official TypeScript SDK client drives fixture-server over stdio.
//   node test_fixture.mjs <path to fixture-server>
// Checks: log and progress notifications arrive, a tool with an output schema is called
// after listTools() (the client validates structuredContent), failures are results.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import assert from "node:assert/strict";

const server = process.argv[2];
if (!server) {
  console.error("usage: node test_fixture.mjs <fixture-server>");
  process.exit(2);
}

let passed = 0;
let failed = 0;
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

// (A tool without an output schema: this client validates `structuredContent` of error
// results too, so an error envelope of a tool with an output schema throws in it.)
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
  assert.match(result.content[0].text, /^Error: Unknown tool: ad\.\n\nRecovery: Re-run tools\/list and retry\. Did you mean add\?/);
});

await client.close();
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
