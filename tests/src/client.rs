//! A minimal JSON-RPC client over a child process's stdio, for tests; or over Streamable
//! HTTP, when `MCP_TEST_TRANSPORT=http` (the same test bodies, the other transport: each
//! message is sent by POST, and what the responses carry arrives as lines, as on stdio).

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
}

struct Http {
    port: u16,
    session: std::sync::Arc<std::sync::Mutex<Option<String>>>,
    lines: mpsc::Sender<String>,
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
    pub fn spawn_http(path: &str, env: &[(&str, &str)], args: &[&str]) -> Client {
        let port = crate::http::free_port();
        let mut cmd = Command::new(path);
        cmd.arg("--http").arg(format!("127.0.0.1:{port}")).args(args);
        cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn the server");
        let stderr_buf = std::sync::Arc::default();
        drain_into(child.stderr.take().expect("stderr"), std::sync::Arc::clone(&stderr_buf));
        assert!(crate::http::wait_listening(port), "the server did not listen on {port}");
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
            http: Some(Http { port, session: std::sync::Arc::default(), lines: tx }),
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
        let (begun, started) = mpsc::channel();
        std::thread::spawn(move || {
            let sid = session.lock().unwrap().clone();
            let mut headers =
                vec![("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")];
            if let Some(sid) = sid.as_deref() {
                headers.push(("Mcp-Session-Id", sid));
            }
            let Ok(mut response) = crate::http::request(port, "POST", "/mcp", &headers, &body) else {
                let _ = begun.send(());
                return;
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
        let line = self.lines.recv_timeout(timeout).ok()?;
        Some(serde_json::from_str(&line).unwrap_or_else(|e| panic!("server wrote a non-JSON line {line:?}: {e}")))
    }

    /// The next line, within 10 s.
    pub fn recv(&mut self) -> Value {
        self.recv_within(Duration::from_secs(10)).expect("no message from the server within 10 s")
    }

    /// A request with a fresh integer id; returns the id.
    pub fn request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
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
        let resp = self.roundtrip(
            "initialize",
            json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "mcp-tests", "version": "0.0.1"}}),
        );
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        resp
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

    /// Waits for the process to exit, up to `timeout`; its exit code.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<i32> {
        let start = std::time::Instant::now();
        while start.elapsed() < timeout {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        None
    }

    /// Everything the server wrote to stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
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
