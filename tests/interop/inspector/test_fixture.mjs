// Interop: the MCP Inspector CLI (pinned in package.json) drives fixture-server over stdio,
// or over Streamable HTTP (`--transport http <url>`) against a fixture-server this suite starts.
//   node test_fixture.mjs <path to fixture-server> [--http [--stateless]]
// One Inspector run per check, `--format json`: its stdout is the result the model would be
// shown. A tool error makes the Inspector exit with its tool-error status (5): expected. Each
// failure must reach the model as the error envelope, never replaced by the Inspector's own
// output-schema complaint (it validates structuredContent against the outputSchema even on
// isError results, so a tool with an outputSchema must send none on errors).
import assert from "node:assert/strict";
import { envelope, escape, startHttpServer, transportArgs } from "../http_server.mjs";
import { EXIT, inspector } from "./run_inspector.mjs";

const { server, http, stateless, label } = transportArgs(process.argv.slice(2), "node test_fixture.mjs");
console.log(`transport: ${label}`);
// Over HTTP one server serves every Inspector run (each run is a session of its own, or none
// when stateless); over stdio each run spawns the server.
const running = http ? await startHttpServer(server, { stateless }) : undefined;
const target = http ? [running.url, "--transport", "http"] : [server];


let passed = 0;
let failed = 0;
function check(name, fn) {
  try {
    const detail = fn();
    passed += 1;
    console.log(`ok   ${name}${detail ? `: ${detail}` : ""}`);
  } catch (e) {
    failed += 1;
    console.log(`FAIL ${name}: ${e?.message ?? e}`);
  }
}

function call(tool, args) {
  const options = ["--method", "tools/call", "--tool-name", tool];
  if (args !== undefined) options.push("--tool-args-json", JSON.stringify(args));
  return inspector(target, options);
}

// The result of a tool call that failed: exit status 5 and `{"result": {...isError: true}}`.
function toolError(run) {
  assert.equal(run.status, EXIT.TOOL_ERROR, `exit status (stderr: ${run.stderr.trim()})`);
  const result = run.json?.result;
  assert.ok(result, `a JSON result on stdout, got ${JSON.stringify(run.stdout)}`);
  assert.equal(result.isError, true, "isError");
  assert.equal(result.content?.length, 1, `one content block: ${JSON.stringify(result.content)}`);
  assert.equal(result.content[0].type, "text");
  return result;
}

check("tools/list: fetch_items and add declare an outputSchema, boom none", () => {
  const run = inspector(target, ["--method", "tools/list"]);
  assert.equal(run.status, EXIT.OK, `exit status (stderr: ${run.stderr.trim()})`);
  const tools = run.json?.result?.tools ?? [];
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  for (const name of ["echo", "add", "fetch_items", "boom"]) assert.ok(byName[name], `${name} listed`);
  assert.ok(byName.add.outputSchema, "add.outputSchema");
  assert.ok(byName.fetch_items.outputSchema, "fetch_items.outputSchema");
  assert.equal(byName.boom.outputSchema, undefined, "boom.outputSchema");
  return `${tools.length} tools`;
});

check("success: add {a: 2, b: 3} gives structuredContent {sum: 5}", () => {
  const run = call("add", { a: 2, b: 3 });
  assert.equal(run.status, EXIT.OK, `exit status (stderr: ${run.stderr.trim()})`);
  assert.deepEqual(run.json?.result, { content: [{ type: "text", text: '{"sum":5}' }], structuredContent: { sum: 5 } });
});

check("declared failure of a tool with an outputSchema (fetch_items mode=queue): envelope, no structuredContent", () => {
  const result = toolError(call("fetch_items", { ids: ["a", "b"], mode: "queue" }));
  const text = result.content[0].text;
  assert.ok(text.includes("Recovery: Wait a few seconds"), `text: ${JSON.stringify(text)}`);
  assert.match(
    text,
    envelope(
      escape("The work queue is full."),
      escape("Wait a few seconds, then call fetch_items again with the same ids."),
      "reason queue_full · retryable",
    ),
  );
  assert.equal("structuredContent" in result, false, `structuredContent: ${JSON.stringify(result.structuredContent)}`);
  return "the model sees the envelope";
});

check("failure of a tool without an outputSchema (boom): envelope and structuredContent.error", () => {
  const result = toolError(call("boom", {}));
  const text = result.content[0].text;
  const match = text.match(envelope(escape("Tool boom failed unexpectedly."), ".+", "reason internal_error"));
  assert.ok(match, `text: ${JSON.stringify(text)}`);
  assert.equal(result.structuredContent?.error?.code, -32603, "structuredContent.error.code");
  assert.equal(result.structuredContent.error.data?.reason, "internal_error", "error.data.reason");
  assert.equal(result.structuredContent.error.data.requestId, match[1], "error.data.requestId is the text's id");
});

check("invalid arguments (add {a: \"x\"}, outputSchema): envelope with reason invalid_arguments, no structuredContent", () => {
  const result = toolError(call("add", { a: "x", b: 1 }));
  const text = result.content[0].text;
  // (The Inspector coerces "x" for an integer field before sending it, so the message names
  // what it sent; the reason is the contract.)
  assert.match(text, envelope(escape("Invalid arguments for tool add: a: ") + ".+", ".+", "reason invalid_arguments"));
  assert.equal("structuredContent" in result, false, `structuredContent: ${JSON.stringify(result.structuredContent)}`);
});

check("unknown tool: the Inspector itself refuses a name it did not list (tool_not_found, nothing sent)", () => {
  // The Inspector CLI looks the name up in tools/list before calling and never sends
  // tools/call for a name it did not list: this pins the Inspector's behaviour, not the
  // server's. The next check reaches the server's answer.
  const run = call("nope", {});
  assert.equal(run.status, EXIT.TOOL_ERROR, "exit status");
  assert.equal(run.stdout.trim(), "", "stdout");
  assert.deepEqual(JSON.parse(run.stderr), {
    error: { code: "tool_not_found", message: "Tool 'nope' not found on server." },
  });
});

check("unknown tool: the server's unknown_tool envelope reaches the model through the Inspector (stdio, a proxy lists a ghost tool)", () => {
  // ghost_tool_proxy.mjs adds `ghost_tool` to what tools/list returns, so the Inspector sends
  // the server a tools/call of a tool it does not serve. Over stdio whatever the transport of
  // this run: the proxy sits on the server's pipes.
  const proxy = new URL("./ghost_tool_proxy.mjs", import.meta.url).pathname;
  const result = toolError(
    inspector([process.execPath, proxy, server], ["--method", "tools/call", "--tool-name", "ghost_tool", "--tool-args-json", "{}"]),
  );
  const text = result.content[0].text;
  const match = text.match(envelope(escape("Unknown tool: ghost_tool."), escape("Re-run tools/list and retry."), "reason unknown_tool · not retryable"));
  assert.ok(match, `text: ${JSON.stringify(text)}`);
  const error = result.structuredContent?.error;
  assert.deepEqual(
    error,
    {
      code: -32602,
      message: "Unknown tool: ghost_tool.",
      data: { reason: "unknown_tool", retryable: false, recovery: { hint: "Re-run tools/list and retry." }, requestId: match[1] },
    },
    "structuredContent.error",
  );
  return "the model sees the server's envelope";
});

if (running) {
  await running.stop();
  if (failed > 0) console.log(`--- server stderr ---\n${running.stderr().slice(-4000)}`);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
