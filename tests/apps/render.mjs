// MCP Apps in a real browser: fixture-server's `chart` tool and its view (ui://chart/view.html,
// tests/apps/chart-view.html) rendered by Debian's headless Chromium, inside a web host that
// holds the view through a sandbox proxy on another origin, as the MCP Apps spec
// (io.modelcontextprotocol/ui, 2026-01-26) asks of a web host.
//
//   node tests/apps/render.mjs <fixture-server>     (or FIXTURE_SERVER=<path>; CHROMIUM=<path>,
//                                                    default /usr/bin/chromium)
//
// This script is the MCP client (over Streamable HTTP, against a fixture-server it starts) and
// the web host (two loopback HTTP servers: the host page on 127.0.0.1, the sandbox proxy on
// localhost, so two origins and two sites, each frame in a process of its own). It checks
// `_meta.ui` in tools/list and resources/read, calls `chart`, then renders the view with the
// call's arguments and result and checks, through the DevTools protocol in every frame: no
// console error, no uncaught exception, no CSP violation; the view's DOM shows every value; the
// view completed the handshake, reported its size and answered the teardown. The screenshot
// goes to target/apps/chart.png. Two negative controls run every time through the same host:
// the view with a remote image and fetch (and without its own CSP meta tag, so only the CSP
// the host builds can refuse them) must show CSP violations, and the view with a throwing
// script must show an uncaught exception; the script fails if either is not seen. A third
// control declares one origin in _meta.ui.csp.resourceDomains: an image from it must load with
// no violation, and one from an origin not declared must be refused. One line per check; exit
// status 1 on any failure.
import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import puppeteer from "puppeteer-core";
import { startHttpServer } from "../interop/http_server.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const OUT = resolve(HERE, "../../target/apps");
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const SERVER = process.argv[2] ?? process.env.FIXTURE_SERVER;
if (!SERVER || process.argv.length > 3) {
  console.error("usage: node tests/apps/render.mjs <fixture-server>   (or FIXTURE_SERVER=<path>)");
  process.exit(2);
}

const UI = "io.modelcontextprotocol/ui";
const MIME = "text/html;profile=mcp-app";
const VIEW_URI = "ui://chart/view.html";
const VALUES = [3, 1, 4, 1, 5];
const TIMEOUT_MS = 15_000;
const read = (name) => readFileSync(join(HERE, name), "utf8");
const PIXEL = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

let failures = 0;
function verdict(ok, name, detail = "") {
  if (!ok) failures += 1;
  console.log(ok ? `ok   ${name}` : `FAIL ${name}${detail ? `: ${detail}` : ""}`);
  return ok;
}
const json = (value) => JSON.stringify(value);

// ---- the MCP client: JSON-RPC over Streamable HTTP (a JSON body or an SSE stream back) ----

function mcpClient(url) {
  let session = null;
  let nextId = 1;
  const headers = () => ({
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2025-11-25",
    ...(session ? { "mcp-session-id": session } : {}),
  });
  async function post(message) {
    const response = await fetch(url, { method: "POST", headers: headers(), body: json(message) });
    session ??= response.headers.get("mcp-session-id");
    return response;
  }
  return {
    async request(method, params) {
      const id = nextId++;
      const response = await post({ jsonrpc: "2.0", id, method, params });
      const body = await response.text();
      if (!response.ok) throw new Error(`${method}: HTTP ${response.status}: ${body}`);
      const messages = (response.headers.get("content-type") ?? "").startsWith("text/event-stream")
        ? body.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) => JSON.parse(l.slice(5)))
        : [JSON.parse(body)];
      const answer = messages.find((m) => m.id === id);
      if (!answer) throw new Error(`${method}: no answer with id ${id} in ${body}`);
      if (answer.error) throw new Error(`${method}: ${json(answer.error)}`);
      return answer.result;
    },
    async notify(method, params) {
      const response = await post({ jsonrpc: "2.0", method, params });
      if (response.status !== 202) throw new Error(`${method}: HTTP ${response.status}: ${await response.text()}`);
    },
    async close() {
      if (session) await fetch(url, { method: "DELETE", headers: headers() });
    },
  };
}

// What the server says: every check of this part reads a whole answer where the whole is known.
async function callServer() {
  const fixture = await startHttpServer(SERVER);
  const client = mcpClient(fixture.url);
  try {
    const init = await client.request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: { extensions: { [UI]: { mimeTypes: [MIME] } } },
      clientInfo: { name: "render.mjs", version: "1.0.0" },
    });
    verdict(init.serverInfo?.name === "fixture-server", `initialize, declaring ${UI} with ${MIME}`, json(init.serverInfo));
    await client.notify("notifications/initialized", {});

    const { tools } = await client.request("tools/list", {});
    const tool = tools.find((t) => t.name === "chart");
    verdict(
      isDeepStrictEqual(tool?._meta?.ui, { resourceUri: VIEW_URI }),
      `tools/list: chart has _meta.ui = {"resourceUri":"${VIEW_URI}"}`,
      tool ? json(tool._meta) : "no tool named chart",
    );

    const { contents } = await client.request("resources/read", { uri: VIEW_URI });
    const resource = contents?.[0];
    const expected = { uri: VIEW_URI, mimeType: MIME, text: read("chart-view.html"), _meta: { ui: { prefersBorder: true } } };
    verdict(
      contents?.length === 1 && isDeepStrictEqual(resource, expected),
      `resources/read ${VIEW_URI}: ${MIME}, _meta.ui = {"prefersBorder":true}, the text of tests/apps/chart-view.html`,
      json({ ...resource, text: resource?.text === expected.text ? "(tests/apps/chart-view.html)" : resource?.text }),
    );

    const args = { values: VALUES };
    const result = await client.request("tools/call", { name: "chart", arguments: args });
    const structured = { values: VALUES, min: Math.min(...VALUES), max: Math.max(...VALUES) };
    verdict(
      result.isError !== true &&
        isDeepStrictEqual(result.structuredContent, structured) &&
        result.content?.some((c) => c.type === "text" && c.text.length > 0),
      `tools/call chart ${json(args)}: structuredContent ${json(structured)} and a text content`,
      json(result),
    );
    return { tool, resource, arguments: args, result };
  } finally {
    await client.close().catch(() => {});
    await fixture.stop();
  }
}

// ---- the web host: the host page on one origin, the sandbox proxy on another ----

// The CSP the host gives the view (the spec's "Content Security Policy Enforcement" and
// "Sandbox proxy"): with no _meta.ui.csp, the restrictive default; otherwise the declared
// origins and nothing more. No nested frames, plugins or foreign <base> unless declared.
function viewCsp(csp) {
  for (const domain of Object.values(csp ?? {}).flat()) {
    if (!/^[^\s;,']+$/.test(domain)) throw new Error(`_meta.ui.csp has an origin this host refuses: ${json(domain)}`);
  }
  const plus = (base, domains) => [base, ...(domains ?? [])].join(" ");
  const r = csp?.resourceDomains;
  return [
    "default-src 'none'",
    plus("script-src 'self' 'unsafe-inline'", r),
    plus("style-src 'self' 'unsafe-inline'", r),
    plus("img-src 'self' data:", r),
    plus("media-src 'self' data:", r),
    ...(csp ? [plus("font-src 'self'", r)] : []),
    csp ? plus("connect-src 'self'", csp.connectDomains) : "connect-src 'none'",
    `frame-src ${csp?.frameDomains?.length ? csp.frameDomains.join(" ") : "'none'"}`,
    "object-src 'none'",
    `base-uri ${csp?.baseUriDomains?.length ? csp.baseUriDomains.join(" ") : "'self'"}`,
  ].join("; ");
}

function listen(handler) {
  const server = createServer((req, res) => {
    try {
      handler(req, res);
    } catch (error) {
      res.writeHead(500, { "content-type": "text/plain" }).end(String(error));
    }
  });
  return new Promise((done) => server.listen(0, "127.0.0.1", () => done(server)));
}
const html = (res, body, csp) =>
  res.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-security-policy": csp, "cache-control": "no-store" }).end(body);

async function startHost() {
  const runs = new Map();
  const served = []; // the CSP of every view served, for the log
  const views = new Map();
  let hostOrigin, sandboxOrigin;
  const hostServer = await listen((req, res) => {
    const url = new URL(req.url, hostOrigin);
    if (url.pathname === "/pixel.png") {
      // A 1×1 PNG, for the control that declares this origin in resourceDomains.
      res.writeHead(200, { "content-type": "image/png", "cache-control": "no-store" }).end(PIXEL);
    } else if (url.pathname === "/") {
      html(res, read("host.html"), `default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; frame-src ${sandboxOrigin}`);
    } else if (url.pathname === "/run.json" && runs.has(url.searchParams.get("run"))) {
      res.writeHead(200, { "content-type": "application/json" }).end(json(runs.get(url.searchParams.get("run"))));
    } else {
      res.writeHead(404).end();
    }
  });
  const sandboxServer = await listen((req, res) => {
    const url = new URL(req.url, sandboxOrigin);
    if (url.pathname === "/sandbox.html") {
      html(res, read("sandbox.html"), `default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; frame-src 'self'; frame-ancestors ${hostOrigin}`);
    } else if (url.pathname === "/views" && req.method === "POST") {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        let view;
        try {
          const { html: text, csp } = JSON.parse(body);
          view = { text, policy: viewCsp(csp) };
        } catch (error) {
          return res.writeHead(400, { "content-type": "text/plain" }).end(String(error));
        }
        const id = randomUUID();
        views.set(id, view);
        served.push(view.policy);
        res.writeHead(200, { "content-type": "application/json" }).end(json({ url: `${sandboxOrigin}/views/${id}` }));
      });
    } else if (url.pathname.startsWith("/views/") && views.has(url.pathname.slice(7))) {
      const { text, policy } = views.get(url.pathname.slice(7));
      html(res, text, policy);
    } else {
      res.writeHead(404).end();
    }
  });
  hostOrigin = `http://127.0.0.1:${hostServer.address().port}`;
  sandboxOrigin = `http://localhost:${sandboxServer.address().port}`;
  return {
    hostOrigin,
    sandboxOrigin,
    served,
    add: (name, run) => runs.set(name, { ...run, sandboxOrigin }),
    close: () => {
      hostServer.close();
      sandboxServer.close();
    },
  };
}

// ---- the browser, and what DevTools reports from every frame ----

// Every target (the page, each out-of-process frame) gets a DevTools session of its own with
// Runtime, Log and Audits on; enabling them also replays what the target reported before.
// Reports go to `sink.events` (the run under way).
const sink = { events: [] };
async function watch(target) {
  if (!["page", "other", "iframe"].includes(target.type())) return;
  let session;
  try {
    session = await target.createCDPSession();
  } catch {
    return; // gone before it could be watched
  }
  const events = sink.events;
  const add = (kind, text) => events.push({ kind, text, url: target.url() });
  session.on("Runtime.consoleAPICalled", (e) => {
    if (e.type === "error" || e.type === "assert") add("console error", e.args.map((a) => a.value ?? a.description).join(" "));
  });
  session.on("Runtime.exceptionThrown", (e) => add("uncaught exception", e.exceptionDetails.exception?.description ?? e.exceptionDetails.text));
  session.on("Log.entryAdded", ({ entry }) => {
    if (entry.level === "error") add("console error", `${entry.source}: ${entry.text}`);
    if (/Content Security Policy/i.test(entry.text)) add("CSP violation", entry.text);
  });
  session.on("Audits.issueAdded", ({ issue }) => {
    if (issue.code === "ContentSecurityPolicyIssue") {
      const d = issue.details.contentSecurityPolicyIssueDetails;
      add("CSP violation", `${d.violatedDirective} refused ${d.blockedURL ?? d.contentSecurityPolicyViolationType}`);
    }
  });
  await Promise.all(["Runtime.enable", "Log.enable", "Audits.enable"].map((m) => session.send(m).catch(() => {})));
}

async function until(what, probe) {
  const deadline = Date.now() + TIMEOUT_MS;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${TIMEOUT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// Renders one view through the host; returns what the host received, the view's chart labels,
// and what DevTools reported meanwhile.
async function render(browser, host, name, run, screenshot, look) {
  host.add(name, run);
  sink.events = [];
  const page = await browser.newPage();
  await page.setViewport({ width: 480, height: 280 });
  try {
    await page.goto(`${host.hostOrigin}/?run=${name}`, { waitUntil: "load" });
    const view = await until("the view's frame", async () => page.frames().find((f) => f.url().startsWith(`${host.sandboxOrigin}/views/`)));
    const labels = await until("the view's chart", async () => {
      const shown = await view.evaluate(() => [...document.querySelectorAll("svg text")].map((t) => t.textContent));
      return shown.length === run.arguments.values.length && shown;
    });
    const text = await view.evaluate(() => document.body.innerText);
    const looked = look ? await until(`what the ${name} run looks for in the view`, () => view.evaluate(look)) : undefined;
    // A console.error from each frame (host page, sandbox proxy, view) must come back through
    // DevTools: what the counts below see is then every frame's.
    const probes = page.frames().map((frame, i) => ({ frame, tag: `render.mjs probe ${name} ${i}` }));
    for (const { frame, tag } of probes) await frame.evaluate((t) => console.error(t), tag);
    const heard = (tag) => sink.events.some((e) => e.text.includes(tag));
    await until("a console.error probe from every frame, through DevTools", async () => probes.every((p) => heard(p.tag)));
    // The teardown's answer comes after every message the view had before it.
    const teardown = await page.evaluate(() => window.host.teardown());
    const received = await page.evaluate(() => window.host.received);
    if (screenshot) await page.screenshot({ path: screenshot });
    const events = sink.events.filter((e) => !probes.some((p) => e.text.includes(p.tag)));
    return { received, labels, text, teardown, events, looked, frames: probes.map((p) => p.frame.url()) };
  } finally {
    await page.close();
  }
}

// ---- the run ----

const started = Date.now();
const call = await callServer().catch((error) => {
  verdict(false, "the MCP client's run against fixture-server", error?.stack ?? String(error));
  process.exit(1);
});
mkdirSync(OUT, { recursive: true });
const host = await startHost();
const browser = await puppeteer.launch({
  executablePath: CHROMIUM,
  headless: true,
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-dev-shm-usage",
    "--site-per-process",
    // Nothing but loopback resolves: a view that escaped its CSP would still reach nobody.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
  ],
});
browser.on("targetcreated", watch);
try {
  const run = { tool: call.tool, resource: call.resource, arguments: call.arguments, result: call.result, callId: 1 };
  const shot = join(OUT, "chart.png");
  const chart = await render(browser, host, "chart", run, shot);
  console.log(`view CSP (no _meta.ui.csp, the restrictive default): ${host.served.at(-1)}`);

  const init = chart.received.find((m) => m.method === "ui/initialize");
  const order = chart.received.map((m) => m.method ?? "(response)");
  verdict(
    init?.params?.protocolVersion === "2026-01-26" &&
      isDeepStrictEqual(init.params.appCapabilities, {}) &&
      typeof init.params.appInfo?.name === "string" &&
      order.indexOf("ui/notifications/initialized") > order.indexOf("ui/initialize"),
    "the view sent ui/initialize (2026-01-26, appInfo, appCapabilities {}), then ui/notifications/initialized",
    json(order),
  );
  const sizes = chart.received.filter((m) => m.method === "ui/notifications/size-changed").map((m) => m.params);
  verdict(
    sizes.length > 0 && sizes.every((s) => s.width > 0 && s.height > 0),
    "the view reported its size (ui/notifications/size-changed)",
    json(sizes),
  );
  verdict(
    isDeepStrictEqual(chart.labels, VALUES.map(String)) && chart.text.includes(`${VALUES.length} values`),
    `the view's DOM shows every value sent: ${VALUES.join(", ")}`,
    json({ labels: chart.labels, text: chart.text }),
  );
  verdict(isDeepStrictEqual(chart.teardown, {}), "the view answered ui/resource-teardown with {}", json(chart.teardown));
  const where = chart.frames.map((u) => new URL(u).origin + new URL(u).pathname).join(", ");
  verdict(chart.frames.length === 3, `DevTools hears every frame: a console.error probe from each of ${chart.frames.length} (${where})`);
  for (const kind of ["console error", "uncaught exception", "CSP violation"]) {
    const seen = chart.events.filter((e) => e.kind === kind);
    verdict(seen.length === 0, `0 ${kind}s in any frame`, seen.map((e) => `${e.text} (${e.url})`).join("; "));
  }
  console.log(`screenshot: ${shot}`);

  // The negative controls: the same view, broken, through the same host.
  const view = read("chart-view.html");
  const splice = (fragment, { dropOwnCsp = false } = {}) => {
    let text = view;
    if (dropOwnCsp) {
      text = text.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>\n/, "");
      if (text === view) throw new Error("chart-view.html has no CSP meta tag to remove for the control");
    }
    return text.replace("</body>", `${read(`controls/${fragment}`)}</body>`);
  };
  const controls = [
    ["remote-load.html", "CSP violation", { dropOwnCsp: true }],
    ["throws.html", "uncaught exception", {}],
  ];
  for (const [fragment, kind, options] of controls) {
    const name = fragment.replace(".html", "");
    const broken = await render(browser, host, name, { ...run, resource: { ...run.resource, text: splice(fragment, options) } }, join(OUT, `control-${name}.png`));
    const seen = broken.events.filter((e) => e.kind === kind);
    const caught = verdict(
      seen.length > 0 && isDeepStrictEqual(broken.labels, VALUES.map(String)),
      `negative control ${name}: the view still draws, and the ${kind} is seen`,
      seen.length ? `labels ${json(broken.labels)}` : `no ${kind} seen: this harness would let one through`,
    );
    if (caught) for (const e of seen) console.log(`       seen: ${e.text.split("\n")[0]}`);
  }

  // The CSP built from a declaration: the host page's origin in resourceDomains.
  const declared = { resourceDomains: [host.hostOrigin] };
  const withOrigin = {
    ...run,
    resource: {
      ...run.resource,
      _meta: { ui: { ...run.resource._meta.ui, csp: declared } },
      text: splice("declared-origin.html", { dropOwnCsp: true }).replace("DECLARED", host.hostOrigin),
    },
  };
  // Once both images settled: the declared one loaded (1 px wide), the other refused (0).
  const settled = () => {
    const [d, u] = ["declared", "undeclared"].map((id) => document.getElementById(id));
    return d.complete && u.complete && { declared: d.naturalWidth, undeclared: u.naturalWidth };
  };
  const origin = await render(browser, host, "declared-origin", withOrigin, null, settled);
  const policy = host.served.at(-1);
  console.log(`view CSP (_meta.ui.csp ${json(declared)}): ${policy}`);
  // A refusal comes as a violation report and as a console error ("security"); nothing else may.
  const refused = origin.events.filter((e) => e.kind === "CSP violation");
  const others = origin.events.filter((e) => !e.text.includes("127.0.0.1:9/"));
  verdict(
    isDeepStrictEqual(origin.looked, { declared: 1, undeclared: 0 }) &&
      refused.length > 0 &&
      refused.every((e) => e.text.includes("127.0.0.1:9/") && !e.text.includes(`${host.hostOrigin}/pixel.png`)) &&
      others.length === 0 &&
      policy.includes(`img-src 'self' data: ${host.hostOrigin}`),
    `control declared-origin: the image from the declared origin loads, the undeclared one is refused and seen, nothing else`,
    json({ images: origin.looked, violations: refused.map((e) => e.text), others: others.map((e) => `${e.kind}: ${e.text}`) }),
  );
} catch (error) {
  verdict(false, "the browser run", error?.stack ?? String(error));
} finally {
  await browser.close();
  host.close();
}
console.log(`${failures === 0 ? "passed" : `${failures} check(s) failed`} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(failures === 0 ? 0 : 1);
