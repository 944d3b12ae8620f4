// Runs the pinned MCP Inspector CLI (this directory's node_modules) under the pinned Node 22
// (node_modules/.bin/node, from the `node` package: the Inspector needs Node >= 22.19), so the
// scripts here work under any `node` on PATH.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const node = join(here, "node_modules", ".bin", "node");
const launcher = join(here, "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js");

for (const path of [node, launcher]) {
  if (!existsSync(path)) {
    console.error(`missing ${path}: run \`npm ci\` in ${here}`);
    process.exit(2);
  }
}

// `npx @modelcontextprotocol/inspector --cli <server...> <options...>`, with `--format json -q`:
// stdout is one JSON object (`{"result": ...}`), stderr carries only the Inspector's own error
// envelope or its --strict report (the server's stderr is dropped).
// Returns { status, stdout, stderr, json } (json: stdout parsed, or undefined).
export function inspector(server, options) {
  const run = spawnSync(node, [launcher, "--cli", "--format", "json", "-q", ...server, ...options], {
    encoding: "utf8",
    timeout: 120_000,
  });
  if (run.error) throw run.error;
  let json;
  try {
    json = JSON.parse(run.stdout);
  } catch {
    json = undefined;
  }
  return { status: run.status, signal: run.signal, stdout: run.stdout, stderr: run.stderr, json };
}

// The Inspector CLI's exit statuses (EXIT_CODES in its build).
export const EXIT = { OK: 0, TOOL_ERROR: 5, SCHEMA_UNPORTABLE: 6 };
