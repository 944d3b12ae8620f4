//! `sse-idle-bench [N] [-- server command…]`: opens N idle standalone SSE streams (GET /mcp
//! on one session) to a server over Streamable HTTP and reports the server's memory per
//! stream; then checks that the server still answers. Default: 10,000 streams to the
//! `fixture-server` built next to this binary (`cargo build --release -p mcp-tests`). Each
//! stream is a connection: the process needs N file descriptors (`ulimit -n`).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn status_kb(pid: u32, key: &str) -> u64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    text.lines()
        .find_map(|l| l.strip_prefix(key).and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok()))
        .unwrap_or(0)
}

/// Sends a request and reads the head; returns the status, the session id header, and the
/// reader positioned at the body.
fn send(port: u16, head: &str, body: &str) -> (u16, Option<String>, BufReader<TcpStream>) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    write!(stream, "{head}Host: 127.0.0.1:{port}\r\nContent-Length: {}\r\n\r\n{body}", body.len()).expect("write");
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).expect("status line");
    let status = line.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let mut session = None;
    loop {
        line.clear();
        reader.read_line(&mut line).expect("header");
        if line.trim().is_empty() {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("mcp-session-id:") {
            session = Some(v.trim().to_uppercase());
        }
    }
    (status, session, reader)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let split = args.iter().position(|a| a == "--");
    let n: usize = args.first().filter(|a| *a != "--").and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let command: Vec<String> = if let Some(i) = split {
        args[i + 1..].to_vec()
    } else {
        let exe = std::env::current_exe().expect("current exe");
        vec![exe.with_file_name("fixture-server").to_string_lossy().into_owned()]
    };
    let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port();
    let mut child = Command::new(&command[0])
        .args(&command[1..])
        .arg("--http")
        .arg(format!("127.0.0.1:{port}"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {command:?}: {e}"));
    let pid = child.id();
    let start = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(start.elapsed() < Duration::from_secs(10), "the server did not listen");
        std::thread::sleep(Duration::from_millis(20));
    }
    let post_head = "POST /mcp HTTP/1.1\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n";
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"sse-idle-bench","version":"1"}}}"#;
    let (status, session, mut rest) = send(port, post_head, init);
    let mut ignored = Vec::new();
    let _ = rest.read_to_end(&mut ignored);
    let session = session.unwrap_or_else(|| panic!("initialize answered {status} without a session id"));
    let get = format!("GET /mcp HTTP/1.1\r\nAccept: text/event-stream\r\nMcp-Session-Id: {session}\r\n");
    // Warm up: a few streams, so that lazily grown pools are counted once.
    let warm: Vec<_> = (0..64).map(|_| send(port, &get, "")).collect();
    std::thread::sleep(Duration::from_millis(200));
    let before_kb = status_kb(pid, "VmRSS:");
    let opened = Instant::now();
    let mut streams = Vec::with_capacity(n);
    for i in 0..n {
        let (status, _, reader) = send(port, &get, "");
        assert_eq!(status, 200, "stream {i} answered {status}");
        streams.push(reader);
    }
    let open_s = opened.elapsed().as_secs_f64();
    std::thread::sleep(Duration::from_millis(500));
    let after_kb = status_kb(pid, "VmRSS:");
    let per_stream = after_kb.saturating_sub(before_kb) * 1024 / u64::try_from(n).unwrap_or(u64::MAX).max(1);
    // Still serving: a ping on the session.
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let head = format!("{post_head}Mcp-Session-Id: {session}\r\n");
    let (status, _, mut reader) = send(port, &head, ping);
    let mut body = String::new();
    let _ = reader.read_to_string(&mut body);
    println!(
        "{n} idle SSE streams opened in {open_s:.2} s; server memory {before_kb} KiB before, {after_kb} KiB after: {per_stream} bytes per stream"
    );
    println!("a ping with every stream open: HTTP {status} {}", body.trim());
    drop(streams);
    drop(warm);
    let _ = child.kill();
    let _ = child.wait();
    if status != 200 || !body.contains("\"result\":{}") {
        std::process::exit(1);
    }
}
