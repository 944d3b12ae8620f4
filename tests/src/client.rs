//! A minimal JSON-RPC client over a child process's stdio, for tests; or over Streamable
//! HTTP, when `MCP_TEST_TRANSPORT=http` (the same test bodies, the other transport: each
//! message is sent by POST, and what the responses carry arrives as lines, as on stdio).
//!
//! With `MCP_TEST_ERA=modern` the same test bodies speak 2026-07-28 (see [`ClientEra`]):
//! [`Client::initialize`] sends no handshake but asks `server/discover`, and every request
//! sent with [`Client::request`] (and so [`Client::roundtrip`], [`Client::call`]) carries the
//! modern envelope in `params._meta`. What a modern result adds (`resultType` and
//! `_meta["io.modelcontextprotocol/serverInfo"]`) is checked and taken off its response, so
//! that assertions written for 2025 results hold unchanged. Raw sends ([`Client::send`],
//! [`Client::send_raw`]) are never changed, nor are their responses.

use std::collections::{HashSet, VecDeque};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

/// A spawned server and the lines it writes.
pub struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    stderr: std::sync::Arc<std::sync::Mutex<String>>,
    next_id: i64,
    /// stdout, kept open but not read yet (see [`Pipes::stdout_unread`]), with the sender
    /// its reader will feed `lines` through.
    unread_stdout: Option<(ChildStdout, mpsc::Sender<String>)>,
    /// stderr, held open and never read (see [`Pipes::stderr_unread`]).
    _unread_stderr: Option<ChildStderr>,
    /// Feeds a thread that writes to stdin (see [`Pipes::stdin_thread`]).
    feeder: Option<mpsc::Sender<Vec<u8>>>,
    /// Over HTTP: the server's port, its session id once minted, and where responses go.
    http: Option<Http>,
    /// In modern mode: the envelope's state, and the requests sent with it.
    modern: Option<Modern>,
}

/// The protocol era the client's requests speak.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClientEra {
    /// 2025-11-25: `initialize`, then requests without a claim. The default.
    Legacy,
    /// 2026-07-28: no handshake; every request carries its envelope in `params._meta`.
    ///
    /// - [`Client::initialize`] asks `server/discover` (with the id `initialize` would have
    ///   had) and returns a synthetic `initialize` response built from it: `protocolVersion`
    ///   `2026-07-28`, discover's `capabilities`, its `serverInfo` (and `instructions`).
    /// - Every [`Client::request`] gets `io.modelcontextprotocol/protocolVersion`
    ///   (`2026-07-28`), `clientCapabilities` (`{}` unless [`Client::set_client_capabilities`]),
    ///   `clientInfo` (`mcp-tests` `0.0.1`) and `logLevel` merged into `params._meta` (keys
    ///   the test set itself win). `logLevel` is the session-equivalent level: `info`, or what
    ///   `logging/setLevel` last asked for.
    /// - `logging/setLevel` with a valid level is not sent: the client keeps the level and
    ///   answers `{}` itself. (With an invalid one it is sent, and refused as modern.)
    /// - `ping` (removed in 2026-07-28) is sent as `server/discover`; its result is checked
    ///   and answered as `{}`.
    /// - `notifications/initialized` is not sent.
    /// - The response to each such request, when it is a result, must carry
    ///   `"resultType": "complete"` and `_meta["io.modelcontextprotocol/serverInfo"]`
    ///   (`{name, version}`, the same as discover's): both are checked, then taken off
    ///   (`_meta` too, when nothing else is left in it). Errors are returned as they are.
    /// - Over HTTP each such request carries `MCP-Protocol-Version`, `Mcp-Method` and, for
    ///   `tools/call`, `Mcp-Name` (in its `=?base64?…?=` form when the name is not plain
    ///   visible ASCII); never `Mcp-Session-Id`.
    /// - Over HTTP, `notifications/cancelled` is not sent: the client closes the connection
    ///   of the request it names, which is how a 2026-07-28 client cancels over HTTP (a
    ///   notification on another POST reaches no call: modern requests have no session).
    Modern,
}

impl ClientEra {
    /// From `MCP_TEST_ERA`: `modern`, or unset for legacy. Any other value panics, so that
    /// a typo does not silently run the legacy suite.
    pub fn from_env() -> ClientEra {
        match std::env::var("MCP_TEST_ERA").as_deref() {
            Err(_) | Ok("" | "legacy") => ClientEra::Legacy,
            Ok("modern") => ClientEra::Modern,
            Ok(other) => panic!("MCP_TEST_ERA={other:?}: expected `modern`, `legacy` or unset"),
        }
    }
}

/// The modern revision the client speaks.
const MODERN_VERSION: &str = "2026-07-28";
const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// What a modern-mode client keeps between requests.
#[derive(Debug)]
struct Modern {
    capabilities: Value,
    log_level: String,
    /// `_meta.serverInfo` of the first modern result, which every later one must repeat.
    server_info: Option<Value>,
    /// Ids (as JSON text) of requests sent with the envelope, not yet answered.
    enveloped: HashSet<String>,
    /// Ids of `ping`s sent as `server/discover`.
    pings: HashSet<String>,
    /// Answers the client gives itself (`logging/setLevel`), returned before what the server writes.
    synthetic: VecDeque<String>,
}

impl Modern {
    fn new() -> Modern {
        Modern {
            capabilities: json!({}),
            log_level: "info".into(),
            server_info: None,
            enveloped: HashSet::new(),
            pings: HashSet::new(),
            synthetic: VecDeque::new(),
        }
    }

    fn envelope(&self) -> Value {
        json!({
            "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
            "io.modelcontextprotocol/clientCapabilities": self.capabilities,
            "io.modelcontextprotocol/clientInfo": {"name": "mcp-tests", "version": "0.0.1"},
            "io.modelcontextprotocol/logLevel": self.log_level,
        })
    }

    /// `params` with the envelope merged into `_meta`; params that are not an object (nor
    /// null) are left as they are.
    fn wrap(&self, params: Value) -> Value {
        let mut params = if params.is_null() { json!({}) } else { params };
        let Some(object) = params.as_object_mut() else { return params };
        let meta = object.entry("_meta").or_insert_with(|| json!({}));
        if let Some(meta) = meta.as_object_mut() {
            if let Value::Object(envelope) = self.envelope() {
                for (k, v) in envelope {
                    meta.entry(k).or_insert(v);
                }
            }
        }
        params
    }

    /// Checks and takes off what a modern result adds, for a response to an enveloped request.
    fn unwrap(&mut self, msg: &mut Value) {
        if msg.get("method").is_some() {
            return;
        }
        let Some(id) = msg.get("id").map(Value::to_string) else { return };
        if !self.enveloped.remove(&id) {
            return;
        }
        let ping = self.pings.remove(&id);
        let Some(result) = msg.get_mut("result").and_then(Value::as_object_mut) else { return };
        assert_eq!(
            result.get("resultType"),
            Some(&json!("complete")),
            "a modern result without resultType: {result:?}"
        );
        result.remove("resultType");
        let meta = result.get_mut("_meta").and_then(Value::as_object_mut);
        let info = meta.and_then(|m| m.remove(SERVER_INFO_KEY));
        let info = info.unwrap_or_else(|| panic!("a modern result without _meta.serverInfo: {result:?}"));
        assert!(
            info.get("name").is_some_and(Value::is_string) && info.get("version").is_some_and(Value::is_string),
            "serverInfo is not {{name, version}}: {info}"
        );
        match &self.server_info {
            Some(known) => assert_eq!(&info, known, "serverInfo changed between results"),
            None => self.server_info = Some(info),
        }
        if result.get("_meta").and_then(Value::as_object).is_some_and(serde_json::Map::is_empty) {
            result.remove("_meta");
        }
        if ping {
            *result = serde_json::Map::new();
        }
    }
}

struct Http {
    port: u16,
    session: std::sync::Arc<std::sync::Mutex<Option<String>>>,
    lines: mpsc::Sender<String>,
    /// In modern mode: the connection of each request not answered yet, by id (as JSON
    /// text), for `notifications/cancelled` to close.
    open: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<String, Connection>>>,
}

/// A modern request's connection, or the mark that it was cancelled (closed, or to be closed
/// as soon as it is open).
enum Connection {
    Open(std::net::TcpStream),
    Cancelled,
}

/// How [`Client::spawn_with`] handles the child's pipes. The default is what
/// [`Client::spawn`] does: stdout and stderr are drained by threads, stdin is written
/// directly.
#[derive(Clone, Copy, Debug, Default)]
pub struct Pipes {
    /// Do not read stdout: the pipe stays open and fills up. Start reading with
    /// [`Client::read_stdout`], or take it with [`Client::take_stdout`].
    pub stdout_unread: bool,
    /// Never read stderr: the pipe stays open and fills up ([`Client::stderr`] stays empty).
    pub stderr_unread: bool,
    /// Write stdin from a thread: `send*` never block, even when the server stops reading.
    /// [`Client::close_stdin`] closes it once everything sent before was written.
    pub stdin_thread: bool,
}

impl Client {
    /// Spawns a server binary (pass `env!("CARGO_BIN_EXE_fixture-server")`) with extra
    /// environment variables.
    pub fn spawn(path: &str, env: &[(&str, &str)]) -> Client {
        if std::env::var("MCP_TEST_TRANSPORT").is_ok_and(|t| t == "http") {
            return Client::spawn_http(path, env, &[]);
        }
        Client::spawn_with(path, env, Pipes::default())
    }

    /// Spawns a server binary serving Streamable HTTP on a free port (`--http`, then
    /// `args`), and talks to it at `/mcp`.
    ///
    /// The server binds port 0 and the port is read from its start-up log line (`serving MCP
    /// over HTTP at /mcp address=127.0.0.1:<port>`), so no other process can take the port
    /// between choosing it and binding it.
    pub fn spawn_http(path: &str, env: &[(&str, &str)], args: &[&str]) -> Client {
        Client::spawn_http_on(path, env, 0, args)
    }

    /// As [`Client::spawn_http`], on loopback port `port` (0: a free one): a replica started
    /// again where a proxy expects it.
    pub fn spawn_http_on(path: &str, env: &[(&str, &str)], port: u16, args: &[&str]) -> Client {
        let mut cmd = Command::new(path);
        cmd.arg("--http").arg(format!("127.0.0.1:{port}")).args(args);
        cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        // The start-up line is at info: keep it when a filter would hide it.
        let filter = env
            .iter()
            .find(|(k, _)| *k == "RUST_LOG")
            .map(|(_, v)| (*v).to_owned())
            .or_else(|| std::env::var("RUST_LOG").ok());
        if let Some(filter) = filter.filter(|f| !["info", "debug", "trace"].iter().any(|l| f.contains(l))) {
            cmd.env("RUST_LOG", format!("{filter},mcp_runtime::http=info"));
        }
        let mut child = cmd.spawn().expect("spawn the server");
        let stderr_buf: std::sync::Arc<std::sync::Mutex<String>> = std::sync::Arc::default();
        drain_into(child.stderr.take().expect("stderr"), std::sync::Arc::clone(&stderr_buf));
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        let port = loop {
            let log = stderr_buf.lock().unwrap().clone();
            let port = log.lines().find(|l| l.contains("serving MCP over HTTP")).and_then(|l| {
                let address = l.split_once("address=127.0.0.1:")?.1;
                address.split(|c: char| !c.is_ascii_digit()).next()?.parse::<u16>().ok()
            });
            if let Some(port) = port {
                break port;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the server did not say where it listens within 10 s; its stderr:\n{log}"
            );
            std::thread::sleep(Duration::from_millis(10));
        };
        let (tx, rx) = mpsc::channel();
        Client {
            child,
            stdin: None,
            lines: rx,
            stderr: stderr_buf,
            next_id: 1,
            unread_stdout: None,
            _unread_stderr: None,
            feeder: None,
            http: Some(Http { port, session: std::sync::Arc::default(), lines: tx, open: std::sync::Arc::default() }),
            modern: (ClientEra::from_env() == ClientEra::Modern).then(Modern::new),
        }
    }

    /// The port of a server spawned over HTTP.
    pub fn http_port(&self) -> Option<u16> {
        self.http.as_ref().map(|h| h.port)
    }

    /// The session id the server minted (over HTTP, after `initialize`).
    pub fn http_session(&self) -> Option<String> {
        self.http.as_ref().and_then(|h| h.session.lock().unwrap().clone())
    }

    /// Sends one message by POST from a thread; what the response carries (a JSON body, SSE events,
    /// an error body) arrives as lines. Returns once the response has begun, or after 300 ms
    /// (a JSON answer that is not ready yet must not hold up the next message).
    fn post(&self, line: &str) {
        let Some(http) = &self.http else { return };
        let (port, session, lines) = (http.port, std::sync::Arc::clone(&http.session), http.lines.clone());
        let body = line.as_bytes().to_vec();
        let modern = modern_headers(line, self.modern.is_some());
        // A modern cancellation closes the request's connection instead.
        let message: Value = serde_json::from_str(line).unwrap_or(Value::Null);
        if self.modern.is_some() && message["method"] == "notifications/cancelled" {
            let id = message["params"]["requestId"].to_string();
            if let Some(Connection::Open(stream)) = http.open.lock().unwrap().insert(id, Connection::Cancelled) {
                let _ = stream.shutdown(std::net::Shutdown::Both);
            }
            return;
        }
        let tracked = (self.modern.is_some() && message.get("method").is_some())
            .then(|| message.get("id").map(Value::to_string))
            .flatten();
        let open = std::sync::Arc::clone(&http.open);
        let (begun, started) = mpsc::channel();
        std::thread::spawn(move || {
            let sid = session.lock().unwrap().clone();
            let mut headers =
                vec![("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")];
            if let Some(modern) = &modern {
                headers.extend(modern.iter().map(|(n, v)| (*n, v.as_str())));
            } else if let Some(sid) = sid.as_deref() {
                headers.push(("Mcp-Session-Id", sid));
            }
            let sent = crate::http::send(port, "POST", "/mcp", &headers, &body).and_then(|stream| {
                if let Some(id) = &tracked {
                    let mut open = open.lock().unwrap();
                    if matches!(open.get(id), Some(Connection::Cancelled)) {
                        let _ = stream.shutdown(std::net::Shutdown::Both);
                    } else {
                        open.insert(id.clone(), Connection::Open(stream.try_clone()?));
                    }
                }
                crate::http::read_response(stream)
            });
            let cancelled = || {
                tracked.as_ref().is_some_and(|id| matches!(open.lock().unwrap().get(id), Some(Connection::Cancelled)))
            };
            let mut response = match sent {
                Ok(response) => response,
                // Closed by a cancellation: nothing to say.
                Err(_) if cancelled() => {
                    let _ = begun.send(());
                    return;
                }
                Err(e) => {
                    // Said, not dropped: a test waiting for the answer sees why none came.
                    let _ = lines
                        .send(json!({"harness_error": format!("POST to 127.0.0.1:{port} failed: {e}")}).to_string());
                    let _ = begun.send(());
                    return;
                }
            };
            if let Some(minted) = response.header("mcp-session-id") {
                *session.lock().unwrap() = Some(minted.to_owned());
            }
            let _ = begun.send(());
            if response.header("content-type").is_some_and(|t| t.starts_with("text/event-stream")) {
                while let Some((_, data)) = response.next_event() {
                    if !data.trim().is_empty() {
                        let _ = lines.send(data);
                    }
                }
            } else {
                let text = response.text();
                if !text.trim().is_empty() {
                    let _ = lines.send(text);
                }
            }
            if let Some(id) = &tracked {
                open.lock().unwrap().remove(id);
            }
        });
        let _ = started.recv_timeout(Duration::from_millis(300));
    }

    /// [`Client::spawn`], with the pipes handled as `pipes` says.
    pub fn spawn_with(path: &str, env: &[(&str, &str)], pipes: Pipes) -> Client {
        let mut cmd = Command::new(path);
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn fixture server");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        let unread_stdout = if pipes.stdout_unread {
            Some((stdout, tx))
        } else {
            read_lines(stdout, tx);
            None
        };
        let stderr_buf = std::sync::Arc::default();
        let stderr = child.stderr.take().expect("stderr");
        let unread_stderr = if pipes.stderr_unread {
            Some(stderr)
        } else {
            drain_into(stderr, std::sync::Arc::clone(&stderr_buf));
            None
        };
        let mut stdin = child.stdin.take();
        let feeder = if pipes.stdin_thread {
            let mut pipe = stdin.take().expect("stdin");
            let (feed, chunks) = mpsc::channel::<Vec<u8>>();
            std::thread::spawn(move || {
                // Ends when the sender is dropped (then `pipe` is closed: EOF) or when the
                // server is gone.
                for chunk in chunks {
                    if pipe.write_all(&chunk).and_then(|()| pipe.flush()).is_err() {
                        break;
                    }
                }
            });
            Some(feed)
        } else {
            None
        };
        Client {
            child,
            stdin,
            lines: rx,
            stderr: stderr_buf,
            next_id: 1,
            unread_stdout,
            _unread_stderr: unread_stderr,
            feeder,
            http: None,
            modern: (ClientEra::from_env() == ClientEra::Modern).then(Modern::new),
        }
    }

    /// The era this client's requests speak (from `MCP_TEST_ERA` unless set).
    pub fn era(&self) -> ClientEra {
        if self.modern.is_some() { ClientEra::Modern } else { ClientEra::Legacy }
    }

    /// Switches the era of the requests sent from now on.
    pub fn set_era(&mut self, era: ClientEra) {
        match era {
            ClientEra::Legacy => self.modern = None,
            ClientEra::Modern => {
                if self.modern.is_none() {
                    self.modern = Some(Modern::new());
                }
            }
        }
    }

    /// `true` in modern mode.
    pub fn is_modern(&self) -> bool {
        self.modern.is_some()
    }

    /// The `clientCapabilities` modern requests carry from now on (`{}` by default); no
    /// effect in legacy mode.
    pub fn set_client_capabilities(&mut self, capabilities: Value) {
        if let Some(modern) = &mut self.modern {
            modern.capabilities = capabilities;
        }
    }

    /// `params` as [`Client::request`] would send them: with the modern envelope merged into
    /// `_meta` in modern mode, as they are in legacy mode. For raw sends that must speak the
    /// client's era (their responses are not unwrapped).
    pub fn params(&self, params: Value) -> Value {
        match &self.modern {
            Some(modern) => modern.wrap(params),
            None => params,
        }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// A `kB` field of `/proc/<pid>/status` (`VmRSS`, `VmHWM`, …) in KiB; `None` once the
    /// process is gone (or off Linux).
    pub fn status_kib(&self, field: &str) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).ok()?;
        let line = status.lines().find(|l| l.strip_prefix(field).is_some_and(|r| r.starts_with(':')))?;
        line[field.len() + 1..].trim().trim_end_matches("kB").trim().parse().ok()
    }

    /// Starts reading stdout (spawned with [`Pipes::stdout_unread`]); a no-op otherwise.
    pub fn read_stdout(&mut self) {
        if let Some((stdout, tx)) = self.unread_stdout.take() {
            read_lines(stdout, tx);
        }
    }

    /// The unread stdout itself (spawned with [`Pipes::stdout_unread`]), to read by hand.
    pub fn take_stdout(&mut self) -> Option<ChildStdout> {
        self.unread_stdout.take().map(|(stdout, _)| stdout)
    }

    /// The stdin pipe itself, to write from a thread of the test's own (`None` with
    /// [`Pipes::stdin_thread`] or once closed). The client can no longer send.
    pub fn take_stdin(&mut self) -> Option<ChildStdin> {
        self.stdin.take()
    }

    /// The next line the server writes, as it is (without its newline), within `timeout`.
    pub fn recv_line_within(&mut self, timeout: Duration) -> Option<String> {
        if let Some(line) = self.modern.as_mut().and_then(|m| m.synthetic.pop_front()) {
            return Some(line);
        }
        self.lines.recv_timeout(timeout).ok()
    }

    /// Writes one raw line (a newline is added).
    pub fn send_raw(&mut self, line: &str) {
        if self.http.is_some() {
            self.post(line);
            return;
        }
        if let Some(feed) = &self.feeder {
            let mut bytes = Vec::with_capacity(line.len() + 1);
            bytes.extend_from_slice(line.as_bytes());
            bytes.push(b'\n');
            let _ = feed.send(bytes);
            return;
        }
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// Writes raw bytes as they are.
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        if let Some(feed) = &self.feeder {
            let _ = feed.send(bytes.to_vec());
            return;
        }
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// Sends a message.
    pub fn send(&mut self, msg: &Value) {
        self.send_raw(&msg.to_string());
    }

    /// The next line the server writes, parsed, within `timeout`.
    pub fn recv_within(&mut self, timeout: Duration) -> Option<Value> {
        let line = self.recv_line_within(timeout)?;
        let mut msg: Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("server wrote a non-JSON line {line:?}: {e}"));
        if let Some(modern) = &mut self.modern {
            modern.unwrap(&mut msg);
        }
        Some(msg)
    }

    /// The next line, within 10 s.
    pub fn recv(&mut self) -> Value {
        self.recv_within(Duration::from_secs(10)).expect("no message from the server within 10 s")
    }

    /// A request with a fresh integer id; returns the id.
    pub fn request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        let Some(modern) = &mut self.modern else {
            self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
            return id;
        };
        let level = params.get("level").and_then(Value::as_str).filter(|l| LEVELS.contains(l));
        let method = match (method, level) {
            ("logging/setLevel", Some(level)) => {
                level.clone_into(&mut modern.log_level);
                modern.synthetic.push_back(json!({"jsonrpc": "2.0", "id": id, "result": {}}).to_string());
                return id;
            }
            ("ping", _) => {
                modern.pings.insert(json!(id).to_string());
                "server/discover"
            }
            (method, _) => method,
        };
        modern.enveloped.insert(json!(id).to_string());
        let params = modern.wrap(params);
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// A request, and the response with its id (notifications before it are skipped).
    pub fn roundtrip(&mut self, method: &str, params: Value) -> Value {
        let id = self.request(method, params);
        loop {
            let msg = self.recv();
            if msg.get("id") == Some(&json!(id)) {
                return msg;
            }
        }
    }

    /// `initialize` + `notifications/initialized` with the given version.
    pub fn initialize_with(&mut self, version: &str) -> Value {
        if self.modern.is_some() {
            return self.discover_as_initialize();
        }
        let resp = self.roundtrip(
            "initialize",
            json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "mcp-tests", "version": "0.0.1"}}),
        );
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        resp
    }

    /// Modern mode's `initialize`: `server/discover`, as an `initialize` response.
    fn discover_as_initialize(&mut self) -> Value {
        let resp = self.roundtrip("server/discover", json!({}));
        let Some(discovered) = resp.get("result") else { return resp };
        let server_info = self.modern.as_ref().and_then(|m| m.server_info.clone()).expect("serverInfo, checked");
        let mut result = json!({
            "protocolVersion": MODERN_VERSION,
            "capabilities": discovered["capabilities"],
            "serverInfo": server_info,
        });
        if let Some(text) = discovered.get("instructions") {
            result["instructions"] = text.clone();
        }
        json!({"jsonrpc": "2.0", "id": resp["id"], "result": result})
    }

    /// Handshake with the newest version.
    pub fn initialize(&mut self) -> Value {
        self.initialize_with("2025-11-25")
    }

    /// `tools/call`'s result (panics on a protocol error).
    pub fn call(&mut self, name: &str, args: Value) -> Value {
        let resp = self.roundtrip("tools/call", json!({"name": name, "arguments": args}));
        resp.get("result").cloned().unwrap_or_else(|| panic!("expected a result, got {resp}"))
    }

    /// Closes stdin (EOF); over HTTP, asks the server to stop (SIGTERM).
    pub fn close_stdin(&mut self) {
        if self.http.is_some() {
            let _ = Command::new("kill").arg("-TERM").arg(self.child.id().to_string()).status();
        }
        self.stdin.take();
        self.feeder.take();
    }

    /// Waits for the process to exit, up to `timeout`; its exit code (`None` too when a
    /// signal ended it: [`Client::wait_status`] tells the two apart).
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<i32> {
        self.wait_status(timeout).and_then(|status| status.code())
    }

    /// Waits for the process to exit, up to `timeout`; how it ended.
    pub fn wait_status(&mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        let start = std::time::Instant::now();
        while start.elapsed() < timeout {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        None
    }

    /// Everything the server wrote to stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Waits until the server has written `needle` to stderr at least `times` times (the
    /// fixture's `wait_cancel` writes `waiting for a cancel: <id>` once it runs): an event to
    /// wait on instead of a fixed sleep. Gives up after 10 s; whether it came.
    pub fn wait_for_stderr(&self, needle: &str, times: usize) -> bool {
        let start = std::time::Instant::now();
        loop {
            if self.stderr.lock().unwrap().matches(needle).count() >= times {
                return true;
            }
            if start.elapsed() > Duration::from_secs(10) {
                return false;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// MCP log levels, as `logging/setLevel` and `logLevel` name them.
const LEVELS: [&str; 8] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

/// The headers a modern request carries over HTTP (`None` for any other message): the
/// version, and the mirrors of its method and (for `tools/call`) its tool's name. In modern
/// mode (`modern_mode`) a notification or response carries the version header alone.
pub(crate) fn modern_headers(line: &str, modern_mode: bool) -> Option<Vec<(&'static str, String)>> {
    let msg: Value = serde_json::from_str(line).ok()?;
    let is_request = msg.get("id").is_some() && msg.get("method").is_some();
    if modern_mode && !is_request && msg.is_object() {
        return Some(vec![("MCP-Protocol-Version", MODERN_VERSION.to_owned())]);
    }
    let method = msg.get("method")?.as_str()?;
    msg.get("id")?;
    let version = msg["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"].as_str()?;
    if version != MODERN_VERSION {
        return None;
    }
    let mut headers = vec![("MCP-Protocol-Version", version.to_owned()), ("Mcp-Method", mirror_value(method))];
    let named = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        "tasks/get" | "tasks/update" | "tasks/cancel" => "taskId",
        _ => "",
    };
    if let Some(name) = msg["params"].get(named).and_then(Value::as_str) {
        headers.push(("Mcp-Name", mirror_value(name)));
    }
    Some(headers)
}

/// A mirror header's value: as it is when it is visible ASCII (inner spaces allowed), else
/// `=?base64?<standard base64 of its UTF-8>?=`.
fn mirror_value(value: &str) -> String {
    let plain = !value.is_empty()
        && value.bytes().all(|b| (0x20..0x7f).contains(&b))
        && !value.starts_with(' ')
        && !value.ends_with(' ')
        && !value.starts_with("=?");
    if plain { value.to_owned() } else { format!("=?base64?{}?=", base64(value.as_bytes())) }
}

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Reads `stdout` line by line into `tx`, on a thread.
fn read_lines(stdout: ChildStdout, tx: mpsc::Sender<String>) {
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
}

/// Reads stderr's lines into `sink` on a thread of its own.
fn drain_into(stderr: ChildStderr, sink: std::sync::Arc<std::sync::Mutex<String>>) {
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            let mut s = sink.lock().unwrap();
            s.push_str(&line);
            s.push('\n');
        }
    });
}

/// An error result's text as the model reads it (docs/errors.md#the-envelopes-rules): `Error: <message>`, then
/// `Recovery: <hint>` when the message does not already hold the hint, then the terms line
/// `(reason <r> · retryable | not retryable · request <id>)`, blocks joined by a blank line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorText<'a> {
    /// What follows `Error: `.
    pub message: &'a str,
    /// The `Recovery: ` block, when there is one.
    pub hint: Option<&'a str>,
    /// The reason of the terms line, when it names one.
    pub reason: Option<&'a str>,
    /// `retryable` (`Some(true)`), `not retryable` (`Some(false)`), or neither (`None`).
    pub retryable: Option<bool>,
    /// The request id that ends the terms line (checked to be `XXXXX-XXXXX`).
    pub request_id: &'a str,
}

impl<'a> ErrorText<'a> {
    /// Reads an error text; `Err` says how it breaks the form. The message may itself hold
    /// blank lines: the hint and terms are read from the end.
    pub fn parse(text: &'a str) -> Result<ErrorText<'a>, String> {
        let rest = text.strip_prefix("Error: ").ok_or_else(|| format!("error text not `Error: …`: {text:?}"))?;
        let (body, terms) = rest.rsplit_once("\n\n(").ok_or_else(|| format!("no terms line: {text:?}"))?;
        let terms = terms.strip_suffix(')').ok_or_else(|| format!("the terms line does not end with `)`: {text:?}"))?;
        let (message, hint) = match body.rsplit_once("\n\nRecovery: ") {
            Some((message, hint)) => (message, Some(hint)),
            None => (body, None),
        };
        let mut reason = None;
        let mut retryable = None;
        let mut request_id = None;
        // Each term at most once, in the order reason, retryability, request id.
        let mut order = 0;
        for term in terms.split(" · ") {
            let (rank, ok) = if let Some(r) = term.strip_prefix("reason ") {
                reason = Some(r);
                (1, !r.is_empty())
            } else if term == "retryable" || term == "not retryable" {
                retryable = Some(term == "retryable");
                (2, true)
            } else if let Some(id) = term.strip_prefix("request ") {
                request_id = Some(id);
                (3, is_request_id(id))
            } else {
                (0, false)
            };
            if !ok || rank <= order {
                return Err(format!("term {term:?} out of place in the terms line of {text:?}"));
            }
            order = rank;
        }
        let request_id = request_id.ok_or_else(|| format!("the terms line has no request id: {text:?}"))?;
        Ok(ErrorText { message, hint, reason, retryable, request_id })
    }

    /// The text of an error result (`content[0].text` of a result with `isError: true`);
    /// `Ok(None)` for a result that is no error.
    pub fn of(result: &'a Value) -> Result<Option<ErrorText<'a>>, String> {
        if result["isError"] != json!(true) {
            return Ok(None);
        }
        let text =
            result["content"][0]["text"].as_str().ok_or_else(|| format!("an error result without text: {result}"))?;
        ErrorText::parse(text).map(Some)
    }
}

/// Replaces the request id in an envelope with `<RID>` after checking its format; returns
/// the id. The id is read from `structuredContent.error` when the result has it, else from
/// the text's terms line (a tool with an output schema sends no `structuredContent` on error).
pub fn take_request_id(result: &mut Value) -> String {
    let id = if let Some(id) = result["structuredContent"]["error"]["data"]["requestId"].as_str() {
        id.to_owned()
    } else {
        let text = result["content"][0]["text"].as_str().expect("text");
        let terms = text.rsplit_once("request ").unwrap_or_else(|| panic!("no request id in {text:?}")).1;
        terms.trim_end_matches(')').to_owned()
    };
    assert!(is_request_id(&id), "request id {id:?} is not XXXXX-XXXXX");
    if result["structuredContent"]["error"].is_object() {
        result["structuredContent"]["error"]["data"]["requestId"] = json!("<RID>");
    }
    let text = result["content"][0]["text"].as_str().expect("text").replace(&id, "<RID>");
    result["content"][0]["text"] = json!(text);
    id
}

/// `XXXXX-XXXXX` from `A-Z0-9`.
pub fn is_request_id(s: &str) -> bool {
    s.len() == 11
        && s.char_indices().all(|(i, c)| if i == 5 { c == '-' } else { c.is_ascii_uppercase() || c.is_ascii_digit() })
}
