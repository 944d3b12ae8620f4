//! A minimal JSON-RPC client over a child process's stdio, for tests.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
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
}

impl Client {
    /// Spawns a server binary (pass `env!("CARGO_BIN_EXE_fixture-server")`) with extra
    /// environment variables.
    pub fn spawn(path: &str, env: &[(&str, &str)]) -> Client {
        let mut cmd = Command::new(path);
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn fixture server");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr_buf = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let sink = stderr_buf.clone();
        let stderr = child.stderr.take().expect("stderr");
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let mut s = sink.lock().unwrap();
                s.push_str(&line);
                s.push('\n');
            }
        });
        let stdin = child.stdin.take();
        Client { child, stdin, lines: rx, stderr: stderr_buf, next_id: 1 }
    }

    /// Writes one raw line (a newline is added).
    pub fn send_raw(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// Writes raw bytes as they are.
    pub fn send_bytes(&mut self, bytes: &[u8]) {
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

    /// Closes stdin (EOF).
    pub fn close_stdin(&mut self) {
        self.stdin.take();
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

/// Replaces the request id in an envelope with `<RID>` after checking its format; returns
/// the id. The id is read from `structuredContent.error` when the result has it, else from
/// the text's terms line (a tool with an output schema sends no `structuredContent` on error).
pub fn take_request_id(result: &mut Value) -> String {
    let id = match result["structuredContent"]["error"]["data"]["requestId"].as_str() {
        Some(id) => id.to_owned(),
        None => {
            let text = result["content"][0]["text"].as_str().expect("text");
            let terms = text.rsplit_once("request ").unwrap_or_else(|| panic!("no request id in {text:?}")).1;
            terms.trim_end_matches(')').to_owned()
        }
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
