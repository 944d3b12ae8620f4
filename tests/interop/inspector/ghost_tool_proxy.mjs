// A stdio MCP server in front of another: every line passes both ways unchanged, except that a
// tools/list result gains one tool the server does not serve (`ghost_tool`). The Inspector CLI
// calls only tools it has listed, so this is how it comes to send the server a tools/call of
// an unknown tool, and shows what the server answers.
//   node ghost_tool_proxy.mjs <server> [args...]
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const [server, ...args] = process.argv.slice(2);
const GHOST = { name: "ghost_tool", description: "Listed by the proxy; the server has no such tool.", inputSchema: { type: "object" } };

const child = spawn(server, args, { stdio: ["pipe", "pipe", "inherit"] });
createInterface({ input: process.stdin }).on("line", (line) => child.stdin.write(`${line}\n`));
process.stdin.on("end", () => child.stdin.end());
createInterface({ input: child.stdout }).on("line", (line) => {
  let out = line;
  try {
    const message = JSON.parse(line);
    if (Array.isArray(message?.result?.tools)) {
      message.result.tools.push(GHOST);
      out = JSON.stringify(message);
    }
  } catch {
    // Not JSON: passed on as it is.
  }
  process.stdout.write(`${out}\n`);
});
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
