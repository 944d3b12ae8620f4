//! A minimal HTTP/1.1 client for tests of the Streamable HTTP transport: one request per
//! connection (`Connection: close`), the status, the headers, and the body read as it comes
//! (chunked or not), so that SSE events can be taken one at a time.

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// A response whose body has not been read yet.
pub struct Response {
    /// The status code.
    pub status: u16,
    /// The headers, names lowercased, in order.
    pub headers: Vec<(String, String)>,
    body: Box<dyn BufRead + Send>,
}

impl Response {
    /// The first header with this (lowercase) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// The whole body as text.
    pub fn text(mut self) -> String {
        let mut body = String::new();
        let _ = self.body.read_to_string(&mut body);
        body
    }

    /// The next line of the body as it is, without its line ending (SSE comments such as
    /// `: keep-alive` included); `None` at the end of the body.
    pub fn next_line(&mut self) -> Option<String> {
        let mut line = String::new();
        if self.body.read_line(&mut line).ok()? == 0 {
            return None;
        }
        Some(line.trim_end_matches(['\r', '\n']).to_owned())
    }

    /// The next SSE event's `(id, data)`; `None` at the end of the stream.
    pub fn next_event(&mut self) -> Option<(Option<String>, String)> {
        let mut id = None;
        let mut data: Option<String> = None;
        loop {
            let mut line = String::new();
            if self.body.read_line(&mut line).ok()? == 0 {
                return data.map(|d| (id, d));
            }
            let line = line.trim_end_matches(['\r', '\n']);
            if line.is_empty() {
                if let Some(d) = data.take() {
                    return Some((id, d));
                }
                id = None;
                continue;
            }
            if let Some(v) = line.strip_prefix("id:") {
                id = Some(v.trim_start().to_owned());
            } else if let Some(v) = line.strip_prefix("data:") {
                let v = v.strip_prefix(' ').unwrap_or(v);
                data = Some(match data {
                    Some(mut d) => {
                        d.push('\n');
                        d.push_str(v);
                        d
                    }
                    None => v.to_owned(),
                });
            }
        }
    }
}

/// Sends one request to `127.0.0.1:<port>` and reads the status and headers.
pub fn request(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> std::io::Result<Response> {
    read_response(send(port, method, path, headers, body)?)
}

/// Reads the status and headers of the response on a connection written by [`send`].
pub fn read_response(stream: TcpStream) -> std::io::Result<Response> {
    let mut reader = BufReader::new(stream);
    let mut status_line = String::new();
    reader.read_line(&mut status_line)?;
    let status = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("not an HTTP status line: {status_line:?}")))?;
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line)?;
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let chunked = headers.iter().any(|(n, v)| n == "transfer-encoding" && v.eq_ignore_ascii_case("chunked"));
    let length = headers.iter().find(|(n, _)| n == "content-length").and_then(|(_, v)| v.parse::<u64>().ok());
    let body: Box<dyn BufRead + Send> = if chunked {
        Box::new(BufReader::new(Chunked { inner: reader, left: 0, done: false }))
    } else if let Some(length) = length {
        Box::new(BufReader::new(reader.take(length)))
    } else {
        Box::new(reader)
    };
    Ok(Response { status, headers, body })
}

/// Writes one request to `127.0.0.1:<port>` (as [`request`] does) and returns the connection
/// without reading anything: to read it by hand, or to drop it while the server is still
/// working on the answer (a client that goes away).
pub fn send(port: u16, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> std::io::Result<TcpStream> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut head = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n", body.len());
    if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
        let _ = write!(head, "Host: 127.0.0.1:{port}\r\n");
    }
    for (name, value) in headers {
        let _ = write!(head, "{name}: {value}\r\n");
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)?;
    stream.flush()?;
    Ok(stream)
}

/// Posts one 2026-07-28 message to `/mcp` on `port`, with the headers that mirror it
/// (`MCP-Protocol-Version`, `Mcp-Method`, and `Mcp-Name` from its `name`, `uri` or
/// `taskId`) and `extra` ones (an `X-Test-Subject`), and reads the status and headers.
pub fn post_modern(port: u16, message: &serde_json::Value, extra: &[(&str, &str)]) -> Response {
    let line = message.to_string();
    let mirrored = crate::client::modern_headers(&line, true).unwrap_or_default();
    let mut headers: Vec<(&str, &str)> =
        vec![("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")];
    headers.extend(mirrored.iter().map(|(n, v)| (*n, v.as_str())));
    headers.extend_from_slice(extra);
    request(port, "POST", "/mcp", &headers, line.as_bytes()).unwrap_or_else(|e| panic!("POST to port {port}: {e}"))
}

/// Posts one 2025-11-25 message to `/mcp` on `port` without a session (a stateless server),
/// with `extra` headers (an `X-Test-Subject`, a `traceparent`), and reads the status and
/// headers.
pub fn post_legacy(port: u16, message: &serde_json::Value, extra: &[(&str, &str)]) -> Response {
    let mut headers: Vec<(&str, &str)> = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    headers.extend_from_slice(extra);
    request(port, "POST", "/mcp", &headers, message.to_string().as_bytes())
        .unwrap_or_else(|e| panic!("POST to port {port}: {e}"))
}

impl Response {
    /// The next JSON-RPC message of the response: its JSON body (once), or its next SSE
    /// event; `None` at the end.
    pub fn next_message(&mut self) -> Option<serde_json::Value> {
        if self.header("content-type").is_some_and(|t| t.starts_with("text/event-stream")) {
            loop {
                let (_, data) = self.next_event()?;
                if let Ok(message) = serde_json::from_str(&data) {
                    return Some(message);
                }
            }
        }
        let mut body = String::new();
        self.body.read_to_string(&mut body).ok()?;
        serde_json::from_str(&body).ok()
    }

    /// The messages of a long response (a listen stream), read on a thread of their own, so
    /// that a test waits for each with a deadline.
    pub fn into_messages(mut self) -> Messages {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            while let Some(message) = self.next_message() {
                if tx.send(message).is_err() {
                    return;
                }
            }
        });
        Messages(rx)
    }

    /// The answer of a request: the message that carries an `id` (notifications before it
    /// are skipped).
    pub fn answer(mut self) -> serde_json::Value {
        while let Some(message) = self.next_message() {
            if message.get("id").is_some() {
                return message;
            }
        }
        panic!("the response ended without an answer")
    }
}

/// The messages of a response, as they arrive (see [`Response::into_messages`]).
pub struct Messages(std::sync::mpsc::Receiver<serde_json::Value>);

impl Messages {
    /// The next message within `limit`; `None` when none came (or the response ended).
    pub fn next_within(&self, limit: Duration) -> Option<serde_json::Value> {
        self.0.recv_timeout(limit).ok()
    }

    /// The next message, within 10 s.
    ///
    /// # Panics
    ///
    /// When none comes within 10 s, saying what was awaited.
    pub fn next(&self, awaited: &str) -> serde_json::Value {
        self.next_within(Duration::from_secs(10)).unwrap_or_else(|| panic!("no message within 10 s: {awaited}"))
    }
}

/// `Transfer-Encoding: chunked`, decoded.
struct Chunked<R> {
    inner: R,
    left: usize,
    done: bool,
}

impl<R: BufRead> Read for Chunked<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.done {
            return Ok(0);
        }
        if self.left == 0 {
            let mut size = String::new();
            if self.inner.read_line(&mut size)? == 0 {
                self.done = true;
                return Ok(0);
            }
            return self.read_size(size.trim(), buf);
        }
        let want = buf.len().min(self.left);
        let n = self.inner.read(&mut buf[..want])?;
        self.left -= n;
        if self.left == 0 {
            let mut crlf = String::new();
            self.inner.read_line(&mut crlf)?;
        }
        Ok(n)
    }
}

impl<R: BufRead> Chunked<R> {
    fn read_size(&mut self, size: &str, buf: &mut [u8]) -> std::io::Result<usize> {
        let size = usize::from_str_radix(size.split(';').next().unwrap_or("0").trim(), 16)
            .map_err(|_| std::io::Error::other(format!("bad chunk size {size:?}")))?;
        if size == 0 {
            self.done = true;
            return Ok(0);
        }
        self.left = size;
        self.read(buf)
    }
}

/// A port nobody listens on now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("a free port")
}

/// Waits until something listens on the port (10 s at most).
pub fn wait_listening(port: u16) -> bool {
    for _ in 0..200 {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

/// A server served over Streamable HTTP in this process, on a free loopback port, on a
/// runtime of its own, until dropped.
pub struct InProcess {
    /// The port it listens on.
    pub port: u16,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl InProcess {
    /// Serves `server` until the value is dropped.
    pub fn serve(server: mcp_runtime::Server) -> InProcess {
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (port_tx, port_rx) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            let runtime =
                tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("binds");
                port_tx.send(listener.local_addr().expect("an address").port()).expect("sent");
                let _ = server
                    .serve_http_on(listener, async move {
                        let _ = stopped.await;
                    })
                    .await;
            });
        });
        let port = port_rx.recv_timeout(Duration::from_secs(10)).expect("the server listens");
        InProcess { port, stop: Some(stop), thread: Some(thread) }
    }

    /// Any axum app (such as `Router::new().nest("/mcp", server.http_router())` with the
    /// author's middleware in front), served by `axum::serve` until the value is dropped: a
    /// test builds its own server without a fixture binary.
    pub fn router(app: axum::Router) -> InProcess {
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (port_tx, port_rx) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            let runtime =
                tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("binds");
                port_tx.send(listener.local_addr().expect("an address").port()).expect("sent");
                let _ = axum::serve(listener, app)
                    .with_graceful_shutdown(async move {
                        let _ = stopped.await;
                    })
                    .await;
            });
        });
        let port = port_rx.recv_timeout(Duration::from_secs(10)).expect("the server listens");
        InProcess { port, stop: Some(stop), thread: Some(thread) }
    }
}

impl Drop for InProcess {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
