// Portable tool schemas: the MCP Inspector's `--strict` lint (`--method tools/list --strict`)
// must report nothing, neither errors nor warnings, for any tool of any server given.
//   node schema_lint.mjs <server> [args...] [-- <server> [args...]]...
// Prints one line per server (its findings in full when there are any) and a closing
// `N passed, N failed` line; exits non-zero when any server has a finding or cannot be listed.
import { EXIT, inspector } from "./run_inspector.mjs";

const servers = [[]];
for (const arg of process.argv.slice(2)) {
  if (arg === "--") servers.push([]);
  else servers.at(-1).push(arg);
}
if (servers.some((s) => s.length === 0)) {
  console.error("usage: node schema_lint.mjs <server> [args...] [-- <server> [args...]]...");
  process.exit(2);
}

let passed = 0;
let failed = 0;
for (const server of servers) {
  const name = server.join(" ");
  // With -q the server's own stderr is dropped: stderr holds only the lint report.
  const run = inspector(server, ["--method", "tools/list", "--strict"]);
  const tools = run.json?.result?.tools;
  const report = run.stderr.trim();
  const findings = report.match(/^(Error|Warning): tool "/gm)?.length ?? 0;
  if (run.status === EXIT.OK && Array.isArray(tools) && tools.length > 0 && report === "") {
    passed += 1;
    console.log(`ok   ${name}: ${tools.length} tools, no --strict findings`);
  } else {
    failed += 1;
    const why = Array.isArray(tools)
      ? tools.length === 0
        ? "no tools listed"
        : `${findings} --strict finding(s)`
      : "tools/list failed";
    console.log(`FAIL ${name}: ${why} (exit status ${run.status ?? run.signal})`);
    if (report) console.log(report.replace(/^/gm, "     "));
    if (!Array.isArray(tools) && run.stdout.trim()) console.log(run.stdout.trim().replace(/^/gm, "     "));
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
