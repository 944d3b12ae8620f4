//! A hostile-client soak of `fixture-server`, over stdio and over Streamable HTTP: valid
//! calls of both eras mixed with malformed JSON, oversized lines and bodies, deep nesting,
//! unknown methods, duplicate ids, cancellations of unknown ids, early disconnects, slow
//! reads and a burst of a thousand connections at once, and over HTTP the attacks of issue
//! 29 (stalled bodies, an `initialize` flood, SSE answers never resumed, overflowing event
//! ids, bad versions on GET, bracketed hosts with a suffix), for a bounded time. It then checks
//! that every valid request was answered correctly, and that the server's memory and file
//! descriptors went back to where they were after the warm-up.
//!
//! `cargo bench -p mcp-tests --bench soak -- [--seconds N] [--only stdio|http]`
//! (default 60 s per transport). Prints one table per transport; exits 1 if a check failed.
//! A bench, not a test: its figures depend on the machine, and it asserts no speed.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_tests::http::{Response, request, send};
use serde_json::{Value, json};

const SERVER: &str = env!("CARGO_BIN_EXE_fixture-server");
const INIT: &str = r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"soak","version":"0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const MODERN_META: &str =
    r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
/// What counts as "back to baseline": RSS within this much of the warm-up's (allocators keep
/// some freed memory for reuse), descriptors no more than after the warm-up.
const RSS_SLACK_KIB: u64 = 8 * 1024;

/// xorshift64*: the soak's choices, repeatable from the seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// What `/proc/<pid>` says of the server.
#[derive(Clone, Copy, Debug, Default)]
struct Sample {
    rss_kib: u64,
    fds: usize,
    threads: u64,
}

fn sample(pid: u32) -> Sample {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    };
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, Iterator::count);
    Sample { rss_kib: field("VmRSS"), fds, threads: field("Threads") }
}

/// The highest RSS seen while it runs, sampled every 50 ms.
struct PeakWatch {
    stop: Arc<AtomicBool>,
    peak: Arc<AtomicU64>,
    thread: std::thread::JoinHandle<()>,
}

impl PeakWatch {
    fn start(pid: u32) -> PeakWatch {
        let stop = Arc::new(AtomicBool::new(false));
        let peak = Arc::new(AtomicU64::new(0));
        let thread = {
            let (stop, peak) = (Arc::clone(&stop), Arc::clone(&peak));
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    peak.fetch_max(sample(pid).rss_kib, Ordering::Relaxed);
                    std::thread::sleep(Duration::from_millis(50));
                }
            })
        };
        PeakWatch { stop, peak, thread }
    }

    fn finish(self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.thread.join();
        self.peak.load(Ordering::Relaxed)
    }
}

/// Tallies of one transport's run.
#[derive(Default)]
struct Report {
    valid_sent: u64,
    valid_correct: u64,
    hostile: HashMap<&'static str, u64>,
    failures: Vec<String>,
    baseline: Sample,
    peak_rss_kib: u64,
    after: Sample,
}

impl Report {
    fn hostile(&mut self, kind: &'static str) {
        *self.hostile.entry(kind).or_default() += 1;
    }

    fn fail(&mut self, what: String) {
        if self.failures.len() < 20 {
            self.failures.push(what);
        }
    }

    fn check_resources(&mut self) {
        if self.after.threads > self.baseline.threads {
            self.fail(format!("{} threads after, {} after the warm-up", self.after.threads, self.baseline.threads));
        }
        if self.after.fds > self.baseline.fds {
            self.fail(format!("{} descriptors open after, {} after the warm-up", self.after.fds, self.baseline.fds));
        }
        if self.after.rss_kib > self.baseline.rss_kib + RSS_SLACK_KIB {
            self.fail(format!(
                "RSS {} KiB after, {} KiB after the warm-up (slack {RSS_SLACK_KIB} KiB)",
                self.after.rss_kib, self.baseline.rss_kib
            ));
        }
    }

    fn print(&self, transport: &str, seconds: u64) {
        let hostile: u64 = self.hostile.values().sum();
        let mut kinds: Vec<_> = self.hostile.iter().collect();
        kinds.sort();
        println!("\n== soak: {transport}, {seconds} s ==");
        println!("valid requests sent        {}", self.valid_sent);
        println!("answered correctly         {}", self.valid_correct);
        println!("malformed / hostile inputs {hostile}");
        for (kind, n) in kinds {
            println!("  {kind:<24} {n}");
        }
        println!("RSS after warm-up          {} KiB", self.baseline.rss_kib);
        println!("peak RSS                   {} KiB", self.peak_rss_kib);
        println!("RSS after                  {} KiB", self.after.rss_kib);
        println!("open descriptors           {} after warm-up, {} after", self.baseline.fds, self.after.fds);
        println!("threads                    {} after warm-up, {} after", self.baseline.threads, self.after.threads);
        if self.failures.is_empty() {
            println!(
                "result                     ok: every valid request answered correctly; memory and descriptors back"
            );
        } else {
            println!("result                     FAILED");
            for f in &self.failures {
                println!("  - {f}");
            }
        }
    }
}

fn main() {
    let mut seconds = 60;
    let mut only = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--seconds" => seconds = args.next().and_then(|s| s.parse().ok()).expect("--seconds N"),
            "--only" => only = args.next(),
            // `cargo bench` passes `--bench`.
            _ => {}
        }
    }
    let mut ok = true;
    if only.as_deref().is_none_or(|o| o == "stdio") {
        let report = soak_stdio(Duration::from_secs(seconds));
        report.print("stdio", seconds);
        ok &= report.failures.is_empty();
    }
    if only.as_deref().is_none_or(|o| o == "http") {
        let report = soak_http(Duration::from_secs(seconds));
        report.print("Streamable HTTP", seconds);
        ok &= report.failures.is_empty();
    }
    if !ok {
        std::process::exit(1);
    }
}

// -------------------------------------------------------------------------------------------
// stdio

/// What the reader expects for a request id.
enum Expect {
    /// A result whose text is this.
    Text(String),
    /// Two responses (a duplicate id sent twice).
    Twice,
    /// One more response (the second of a duplicate pair).
    Once,
    /// A JSON-RPC error, or a tool error result.
    Error,
}

/// The stdio client: what it wrote, and what it expects back.
struct StdioClient {
    stdin: std::process::ChildStdin,
    expected: Arc<Mutex<HashMap<String, Expect>>>,
    slow: Arc<AtomicBool>,
    rng: Rng,
    n: u64,
    nested: String,
    huge: String,
}

impl StdioClient {
    fn send(&mut self, line: &str) {
        let stdin = &mut self.stdin;
        stdin.write_all(line.as_bytes()).and_then(|()| stdin.write_all(b"\n")).expect("the server reads stdin");
    }

    fn expect(&self, id: String, what: Expect) {
        self.expected.lock().expect("lock").insert(id, what);
    }

    /// The mix, until `end`: half valid echo calls of either era, half hostile input.
    fn round(&mut self, end: Instant, report: &mut Report) {
        while Instant::now() < end {
            self.n += 1;
            let n = self.n;
            // Every 5,000 messages the reader stops for 300 ms: the server must hold its answers.
            if n % 5000 == 0 {
                self.slow.store(true, Ordering::Relaxed);
            }
            match self.rng.below(100) {
                0..50 => {
                    let text = format!("v{n}");
                    self.expect(n.to_string(), Expect::Text(text.clone()));
                    let meta =
                        if self.rng.below(2) == 0 { format!(r#","_meta":{MODERN_META}"#) } else { String::new() };
                    self.send(&format!(
                        r#"{{"jsonrpc":"2.0","id":{n},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{text}"}}{meta}}}}}"#
                    ));
                    report.valid_sent += 1;
                }
                50..58 => {
                    self.send(r#"{"jsonrpc":"2.0","id":"m","method":"tools/call","params":{"name":"#);
                    report.hostile("malformed JSON");
                }
                58..64 => {
                    self.send(&format!(r#"{{"jsonrpc":"2.0","id":"u{n}","method":"no/such/method"}}"#));
                    report.hostile("unknown method");
                }
                64..70 => {
                    self.send(&format!(
                        r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":"nope{n}"}}}}"#
                    ));
                    report.hostile("cancel of unknown id");
                }
                70..74 => {
                    self.expect(format!("\"dup{n}\""), Expect::Twice);
                    let line = format!(
                        r#"{{"jsonrpc":"2.0","id":"dup{n}","method":"tools/call","params":{{"name":"sleep_ms","arguments":{{"ms":5}}}}}}"#
                    );
                    self.send(&line);
                    self.send(&line);
                    report.hostile("duplicate id");
                }
                74..78 => {
                    self.send(r#"{"jsonrpc":"2.0","id":{"an":"object"},"method":"ping"}"#);
                    self.send("[1,2,3]");
                    self.send("\u{feff}not json at all \u{0}");
                    report.hostile("invalid JSON-RPC");
                }
                78..80 => {
                    self.send(&format!(
                        r#"{{"jsonrpc":"2.0","id":"a{n}","method":"tools/call","params":{{"name":"echo","arguments":{{"txet":1}}}}}}"#
                    ));
                    report.hostile("invalid arguments");
                }
                80 => {
                    self.expect(format!("\"deep{n}\""), Expect::Error);
                    let line = format!(
                        r#"{{"jsonrpc":"2.0","id":"deep{n}","method":"tools/call","params":{{"name":"echo","arguments":{{"text":{}}}}}}}"#,
                        self.nested
                    );
                    self.send(&line);
                    report.hostile("deep nesting");
                }
                81 if n % 3 == 0 => {
                    let huge = std::mem::take(&mut self.huge);
                    self.send(&huge);
                    self.huge = huge;
                    report.hostile("oversized line");
                }
                _ => self.send(&format!(r#"{{"jsonrpc":"2.0","id":"p{n}","method":"ping"}}"#)),
            }
        }
    }
}

fn soak_stdio(duration: Duration) -> Report {
    let mut report = Report::default();
    let mut child = Command::new(SERVER)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("fixture-server starts");
    let pid = child.id();
    let stdout = child.stdout.take().expect("stdout");
    let mut client = StdioClient {
        stdin: child.stdin.take().expect("stdin"),
        expected: Arc::default(),
        slow: Arc::default(),
        rng: Rng(0x5EED_1234_ABCD_0001),
        n: 0,
        nested: format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)),
        huge: format!(
            r#"{{"jsonrpc":"2.0","id":"huge","method":"ping","params":{{"pad":"{}"}}}}"#,
            "a".repeat(5 << 20)
        ),
    };
    // (valid requests answered correctly, duplicate pairs answered twice, failures)
    let tally: Arc<Mutex<(u64, u64, Vec<String>)>> = Arc::default();
    let reader = {
        let (expected, tally, slow) = (Arc::clone(&client.expected), Arc::clone(&tally), Arc::clone(&client.slow));
        std::thread::spawn(move || read_stdio(stdout, &expected, &tally, &slow))
    };
    client.send(INIT);
    client.send(INITIALIZED);
    std::thread::sleep(Duration::from_millis(200));
    let idle_threads = sample(pid).threads;
    let settle = |report: &Report| {
        // Everything valid answered; then the blocking pool's idle threads retire (10 s).
        wait_for(Duration::from_secs(60), || tally.lock().expect("lock").0 >= report.valid_sent);
        wait_for(Duration::from_secs(12), || sample(pid).threads <= idle_threads);
        std::thread::sleep(Duration::from_secs(1));
    };
    // A warm-up round of the same mix, so that what the server sets up once (buffers, its
    // logging thread, the allocator's arenas) is in the baseline.
    client.round(Instant::now() + Duration::from_secs(5), &mut report);
    settle(&report);
    report.baseline = sample(pid);
    let watch = PeakWatch::start(pid);
    client.round(Instant::now() + duration, &mut report);
    settle(&report);
    report.peak_rss_kib = watch.finish();
    report.after = sample(pid);
    // An early disconnect: half a line, then EOF. The server answers nothing more and exits.
    let _ = client.stdin.write_all(br#"{"jsonrpc":"2.0","id":"half","method":"pi"#);
    report.hostile("disconnect mid-line");
    let expected = Arc::clone(&client.expected);
    drop(client);
    let exited = wait_exit(&mut child, Duration::from_secs(10));
    let _ = reader.join();
    let (correct, pairs, failures) = std::mem::take(&mut *tally.lock().expect("lock"));
    report.valid_correct = correct;
    let dups = report.hostile.get("duplicate id").copied().unwrap_or(0);
    if pairs != dups {
        report.fail(format!("{pairs} of {dups} duplicate ids answered twice"));
    }
    for f in failures {
        report.fail(f);
    }
    let missing: Vec<String> = expected
        .lock()
        .expect("lock")
        .iter()
        .filter(|(_, e)| !matches!(e, Expect::Once))
        .map(|(id, _)| id.clone())
        .take(5)
        .collect();
    if report.valid_correct != report.valid_sent || !missing.is_empty() {
        report.fail(format!(
            "{} of {} valid requests answered correctly; unanswered e.g. {missing:?}",
            report.valid_correct, report.valid_sent
        ));
    }
    match exited {
        Some(0) => {}
        other => report.fail(format!("after EOF the server exited with {other:?}")),
    }
    report.check_resources();
    report
}

fn read_stdio(
    stdout: std::process::ChildStdout,
    expected: &Mutex<HashMap<String, Expect>>,
    tally: &Mutex<(u64, u64, Vec<String>)>,
    slow: &AtomicBool,
) {
    let mut lines = BufReader::new(stdout);
    let mut line = String::new();
    loop {
        if slow.swap(false, Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(300));
        }
        line.clear();
        match lines.read_line(&mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            tally.lock().expect("lock").2.push(format!("a line that is not JSON: {line:.200}"));
            continue;
        };
        let Some(id) = message.get("id").filter(|_| message.get("method").is_none()) else { continue };
        let key = id.to_string();
        let mut expected = expected.lock().expect("lock");
        match expected.remove(&key) {
            Some(Expect::Text(text)) => {
                let mut tally = tally.lock().expect("lock");
                if message["result"]["content"][0]["text"] == text.as_str() {
                    tally.0 += 1;
                } else {
                    tally.2.push(format!("id {key}: expected {text:?}, got {message}"));
                }
            }
            Some(Expect::Twice) => {
                // The first of the pair; the second must come too.
                expected.insert(key, Expect::Once);
            }
            Some(Expect::Once) => tally.lock().expect("lock").1 += 1,
            Some(Expect::Error) if message.get("error").is_none() && message["result"]["isError"] != true => {
                tally.lock().expect("lock").2.push(format!("id {key}: expected an error, got {message}"));
            }
            Some(Expect::Error) | None => {}
        }
    }
}

// -------------------------------------------------------------------------------------------
// Streamable HTTP

/// The JSON-RPC answer in a response, JSON or SSE: the message with this id.
fn answer_of(response: Response, id: &Value) -> Option<Value> {
    let sse = response.header("content-type").is_some_and(|t| t.starts_with("text/event-stream"));
    let body = response.text();
    let messages: Vec<Value> = if sse {
        body.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str(d.trim()).ok())
            .collect()
    } else {
        serde_json::from_str(&body).into_iter().collect()
    };
    messages.into_iter().find(|m| m.get("id") == Some(id) && m.get("method").is_none())
}

struct Http {
    port: u16,
    session: String,
}

impl Http {
    fn legacy_headers(&self) -> [(&str, &str); 4] {
        [
            ("Accept", "application/json, text/event-stream"),
            ("Content-Type", "application/json"),
            ("Mcp-Session-Id", self.session.as_str()),
            ("MCP-Protocol-Version", "2025-11-25"),
        ]
    }

    /// A valid echo call of either era; whether its answer was right.
    fn echo(&self, modern: bool, text: &str, id: u64, slow: bool) -> Result<(), String> {
        let response = if modern {
            let body = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{text}"}},"_meta":{MODERN_META}}}}}"#
            );
            let headers = [
                ("Accept", "application/json, text/event-stream"),
                ("Content-Type", "application/json"),
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", "tools/call"),
                ("Mcp-Name", "echo"),
            ];
            self.post(&headers, body.as_bytes(), slow)
        } else {
            let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": text}}});
            self.post(&self.legacy_headers(), body.to_string().as_bytes(), slow)
        }?;
        if response.status != 200 {
            return Err(format!("echo {id}: status {}", response.status));
        }
        let answer = answer_of(response, &json!(id)).ok_or_else(|| format!("echo {id}: no answer with its id"))?;
        if answer["result"]["content"][0]["text"] == text {
            Ok(())
        } else {
            Err(format!("echo {id}: expected {text:?}, got {answer}"))
        }
    }

    fn post(&self, headers: &[(&str, &str)], body: &[u8], slow: bool) -> Result<Response, String> {
        if slow {
            let stream = send(self.port, "POST", "/mcp", headers, body).map_err(|e| e.to_string())?;
            std::thread::sleep(Duration::from_millis(300));
            return read_response(stream);
        }
        request(self.port, "POST", "/mcp", headers, body).map_err(|e| e.to_string())
    }

    /// A status for a request that must be refused; `None` when the server closed the
    /// connection instead (allowed for an oversized body).
    fn status(&self, headers: &[(&str, &str)], body: &[u8]) -> Option<u16> {
        request(self.port, "POST", "/mcp", headers, body).ok().map(|r| r.status)
    }
}

impl Http {
    /// An unknown method: the JSON-RPC error -32601.
    fn unknown_method(&self, report: &mut Report, id: u64) {
        let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"no/such"}}"#);
        let answer =
            self.post(&self.legacy_headers(), body.as_bytes(), false).ok().and_then(|r| answer_of(r, &json!(id)));
        report.hostile("unknown method");
        if answer.as_ref().and_then(|a| a.pointer("/error/code")) != Some(&json!(-32601)) {
            report.fail(format!("unknown method: {answer:?}"));
        }
    }

    /// Arguments nested 50,000 deep: refused as malformed (400), or answered with a JSON-RPC
    /// error.
    fn deep(&self, report: &mut Report, body: &str) {
        report.hostile("deep nesting");
        let refused = match self.post(&self.legacy_headers(), body.as_bytes(), false) {
            Ok(r) if r.status == 400 => true,
            Ok(r) if r.status == 200 => answer_of(r, &json!(1)).is_some_and(|a| a.get("error").is_some()),
            _ => false,
        };
        if !refused {
            report.fail("deep nesting: neither 400 nor a JSON-RPC error".to_owned());
        }
    }
}

/// Reads the response on a connection written by [`send`].
fn read_response(stream: TcpStream) -> Result<Response, String> {
    mcp_tests::http::read_response(stream).map_err(|e| e.to_string())
}

fn soak_http(duration: Duration) -> Report {
    let mut report = Report::default();
    let mut child = Command::new(SERVER)
        .args(["--http", "127.0.0.1:0"])
        .env("RUST_LOG", "mcp_runtime::http=info")
        // Stalled bodies and heads are closed within the round.
        .env("FIXTURE_HTTP_BODY_TIMEOUT_MS", "1000")
        .env("FIXTURE_HTTP_HEADER_TIMEOUT_MS", "2000")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("fixture-server starts");
    let pid = child.id();
    let port = http_port(&mut child);
    let init = request(
        port,
        "POST",
        "/mcp",
        &[("Accept", "application/json, text/event-stream"), ("Content-Type", "application/json")],
        INIT.as_bytes(),
    )
    .expect("initialize");
    let session = init.header("mcp-session-id").expect("a session id").to_owned();
    let http = Arc::new(Http { port, session });
    let _ = http.post(&http.legacy_headers(), INITIALIZED.as_bytes(), false);
    let mut warm_correct = 0;
    for i in 0..500 {
        match http.echo(i % 2 == 0, &format!("w{i}"), i, false) {
            Ok(()) => warm_correct += 1,
            Err(e) => report.fail(format!("warm-up: {e}")),
        }
    }
    let idle = sample(pid);
    let settle = || {
        // Connections close as their clients went; the blocking pool's idle threads retire.
        wait_for(Duration::from_secs(15), || sample(pid).fds <= idle.fds);
        wait_for(Duration::from_secs(12), || sample(pid).threads <= idle.threads);
        std::thread::sleep(Duration::from_secs(1));
    };
    // A warm-up round of the same mix first, as on stdio.
    let warm = http_round(&http, Duration::from_secs(5));
    settle();
    report.baseline = sample(pid);
    let watch = PeakWatch::start(pid);
    let main = http_round(&http, duration);
    settle();
    report.peak_rss_kib = watch.finish();
    report.after = sample(pid);
    for round in [warm, main] {
        report.valid_sent += round.valid_sent;
        report.valid_correct += round.valid_correct;
        for (kind, n) in round.hostile {
            *report.hostile.entry(kind).or_default() += n;
        }
        for f in round.failures {
            report.fail(f);
        }
    }
    report.valid_sent += 500;
    report.valid_correct += warm_correct;
    if report.valid_correct != report.valid_sent {
        report.fail(format!("{} of {} valid requests answered correctly", report.valid_correct, report.valid_sent));
    }
    let _ = Command::new("kill").arg("-TERM").arg(pid.to_string()).status();
    match wait_exit(&mut child, Duration::from_secs(15)) {
        Some(0) => {}
        other => report.fail(format!("after SIGTERM the server exited with {other:?}")),
    }
    report.check_resources();
    report
}

/// 16 clients running the mix until `duration` passed, and halfway a burst of a thousand
/// connections at once.
fn http_round(http: &Arc<Http>, duration: Duration) -> Report {
    let shared = Arc::new(Mutex::new(Report::default()));
    let end = Instant::now() + duration;
    let workers: Vec<_> = (0..16u64)
        .map(|w| {
            let (http, shared) = (Arc::clone(http), Arc::clone(&shared));
            std::thread::spawn(move || http_worker(&http, &shared, w, end))
        })
        .collect();
    std::thread::sleep(duration / 2);
    burst(http, &shared, 1000);
    for w in workers {
        let _ = w.join();
    }
    std::mem::take(&mut *shared.lock().expect("lock"))
}

fn http_worker(http: &Http, shared: &Mutex<Report>, w: u64, end: Instant) {
    let mut rng = Rng(0xC0FF_EE00 + w);
    let mut local = Report::default();
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":{}{}}}}}}}"#,
        "[".repeat(50_000),
        "]".repeat(50_000)
    );
    let json_headers = [("Accept", "application/json, text/event-stream"), ("Content-Type", "application/json")];
    let mut i = 0u64;
    let mut stalled = Vec::new();
    while Instant::now() < end {
        i += 1;
        let id = (w << 32) | i;
        match rng.below(100) {
            0..55 => {
                local.valid_sent += 1;
                let slow = rng.below(20) == 0;
                match http.echo(rng.below(2) == 0, &format!("h{id}"), id, slow) {
                    Ok(()) => local.valid_correct += 1,
                    Err(e) => local.fail(e),
                }
            }
            55..63 => {
                expect_refused(
                    &mut local,
                    "malformed JSON",
                    http.status(&http.legacy_headers(), b"{\"jsonrpc\":\"2.0\",\"id\":"),
                    &[400],
                );
            }
            63..68 => http.unknown_method(&mut local, id),
            68..72 => http.deep(&mut local, &deep),
            72 if i % 5 == 0 => {
                let body = vec![b' '; (4 << 20) + 1];
                expect_refused(&mut local, "oversized body", http.status(&json_headers, &body), &[413]);
            }
            73..77 => {
                let headers = [json_headers[0], json_headers[1], ("Host", "evil.example")];
                expect_refused(&mut local, "foreign Host", http.status(&headers, b"{}"), &[403]);
            }
            77..81 => {
                let headers = [
                    json_headers[0],
                    json_headers[1],
                    ("Mcp-Session-Id", "no-such-session"),
                    ("MCP-Protocol-Version", "2025-11-25"),
                ];
                expect_refused(
                    &mut local,
                    "unknown session",
                    http.status(&headers, br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
                    &[404],
                );
            }
            81..85 => {
                // Half a request head, then gone.
                if let Ok(mut stream) = TcpStream::connect(("127.0.0.1", http.port)) {
                    let _ = stream.write_all(b"POST /mcp HTTP/1.1\r\nContent-Length: 100\r\nAcc");
                }
                local.hostile("disconnect mid-head");
            }
            85..89 => {
                // A whole request, gone before the answer.
                let body = format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"sleep_ms","arguments":{{"ms":50}}}}}}"#
                );
                drop(send(http.port, "POST", "/mcp", &http.legacy_headers(), body.as_bytes()));
                local.hostile("disconnect before answer");
            }
            89..93 => {
                let body = format!(
                    r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":"nope{id}"}}}}"#
                );
                expect_refused(
                    &mut local,
                    "cancel of unknown id",
                    http.status(&http.legacy_headers(), body.as_bytes()),
                    &[202],
                );
            }
            93..95 => {
                let headers = [json_headers[0], ("Content-Type", "text/plain")];
                expect_refused(&mut local, "wrong content type", http.status(&headers, b"{}"), &[415]);
            }
            _ => issue_29_attack(http, &mut local, &mut stalled, id, i),
        }
    }
    stalled_bodies_answered(&mut local, stalled);
    let mut shared = shared.lock().expect("lock");
    shared.valid_sent += local.valid_sent;
    shared.valid_correct += local.valid_correct;
    for (kind, n) in local.hostile {
        *shared.hostile.entry(kind).or_default() += n;
    }
    for f in local.failures {
        shared.fail(f);
    }
}

/// The stalled bodies were answered 408 (or closed) by the server, not left open.
fn stalled_bodies_answered(local: &mut Report, stalled: Vec<TcpStream>) {
    for mut stream in stalled {
        let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        if !answer.starts_with(b"HTTP/1.1 408") {
            local.fail(format!("stalled body: {:?}", String::from_utf8_lossy(&answer[..answer.len().min(80)])));
        }
    }
}

/// The attacks of issue 29, one per call: a stalled body (kept in `stalled` to check its 408
/// later), an `initialize` flood from one address, an SSE answer never resumed, malformed
/// resume ids and versions on GET, and a bracketed Host with a suffix.
fn issue_29_attack(http: &Http, local: &mut Report, stalled: &mut Vec<TcpStream>, id: u64, i: u64) {
    let json_headers = [("Accept", "application/json, text/event-stream"), ("Content-Type", "application/json")];
    match i % 5 {
        0 => {
            // Headers and part of a body, then nothing: the body timeout answers 408.
            if let Ok(mut stream) = TcpStream::connect(("127.0.0.1", http.port)) {
                let head = format!(
                    "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000000\r\n\r\n{}",
                    " ".repeat(1000)
                );
                let _ = stream.write_all(head.as_bytes());
                stalled.push(stream);
            }
            local.hostile("stalled body");
        }
        1 => {
            // A bare initialize, never used again: one address's sessions make room among
            // themselves.
            let headers = [json_headers[0], json_headers[1]];
            expect_refused(local, "initialize flood", http.status(&headers, INIT.as_bytes()), &[200]);
        }
        2 => {
            // A call whose stream the handler ends before its answer; never resumed.
            let body = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"pause_stream","arguments":{{}}}}}}"#
            );
            expect_refused(
                local,
                "SSE answer never resumed",
                http.status(&http.legacy_headers(), body.as_bytes()),
                &[200],
            );
        }
        3 => {
            let mut headers = vec![("Accept", "text/event-stream"), ("Mcp-Session-Id", http.session.as_str())];
            let (kind, status) = if (i / 5) % 2 == 0 {
                headers.push(("Last-Event-ID", "1-18446744073709551615"));
                ("overflowing Last-Event-ID", 400)
            } else {
                headers.push(("MCP-Protocol-Version", "1999-01-01"));
                ("GET with a bad version", 400)
            };
            let got = request(http.port, "GET", "/mcp", &headers, b"").ok().map(|r| r.status);
            expect_refused(local, kind, got, &[status]);
        }
        _ => {
            let headers = [json_headers[0], json_headers[1], ("Host", "[::1]evil.example")];
            expect_refused(local, "bracketed Host with a suffix", http.status(&headers, b"{}"), &[403]);
        }
    }
}

/// Counts a hostile input and checks it got one of `statuses` (or, for an oversized body, a
/// closed connection).
fn expect_refused(report: &mut Report, kind: &'static str, status: Option<u16>, statuses: &[u16]) {
    report.hostile(kind);
    match status {
        Some(s) if statuses.contains(&s) => {}
        None if kind == "oversized body" => {}
        other => report.fail(format!("{kind}: status {other:?}, expected one of {statuses:?}")),
    }
}

/// `n` connections opened together, each sending a valid 2026-07-28 echo before any is read.
fn burst(http: &Http, shared: &Mutex<Report>, n: u64) {
    let mut streams = Vec::new();
    for i in 0..n {
        let id = (1 << 40) + i;
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"b{id}"}},"_meta":{MODERN_META}}}}}"#
        );
        let headers = [
            ("Accept", "application/json, text/event-stream"),
            ("Content-Type", "application/json"),
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "echo"),
        ];
        streams.push((id, send(http.port, "POST", "/mcp", &headers, body.as_bytes())));
    }
    let mut local = Report::default();
    for (id, stream) in streams {
        local.valid_sent += 1;
        let answer = stream.map_err(|e| e.to_string()).and_then(read_response).map(|r| answer_of(r, &json!(id)));
        match answer {
            Ok(Some(a)) if a["result"]["content"][0]["text"] == format!("b{id}") => local.valid_correct += 1,
            other => local.fail(format!("burst call {id}: {other:?}")),
        }
    }
    let mut shared = shared.lock().expect("lock");
    shared.valid_sent += local.valid_sent;
    shared.valid_correct += local.valid_correct;
    *shared.hostile.entry("burst of 1000 connections").or_default() += 1;
    for f in local.failures {
        shared.fail(f);
    }
}

/// The port from the server's start-up line on stderr; stderr is drained after it. Panics when
/// the line does not come within 20 s (a wrong log filter must fail the soak, not hang it).
fn http_port(child: &mut Child) -> u16 {
    let stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut lines = BufReader::new(stderr);
        let mut line = String::new();
        let mut seen = String::new();
        let mut tx = Some(tx);
        while lines.read_line(&mut line).unwrap_or(0) > 0 {
            if let Some(tx) = tx.take_if(|_| line.contains("serving MCP over HTTP")) {
                let port = line.split("address=127.0.0.1:").nth(1).and_then(|rest| {
                    rest.chars().take_while(char::is_ascii_digit).collect::<String>().parse::<u16>().ok()
                });
                let _ = tx.send(port.ok_or(line.clone()));
            } else if tx.is_some() {
                seen.push_str(&line);
            }
            line.clear();
        }
        if let Some(tx) = tx {
            let _ = tx.send(Err(format!("the server exited before it served; its stderr:\n{seen}")));
        }
    });
    match rx.recv_timeout(Duration::from_secs(20)) {
        Ok(Ok(port)) => port,
        Ok(Err(why)) => panic!("no port in the start-up line: {why}"),
        Err(std::sync::mpsc::RecvTimeoutError::Timeout | std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            panic!("the server did not log `serving MCP over HTTP` at info within 20 s")
        }
    }
}

fn wait_for(within: Duration, mut f: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + within;
    while Instant::now() < end {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    f()
}

fn wait_exit(child: &mut Child, within: Duration) -> Option<i32> {
    let end = Instant::now() + within;
    while Instant::now() < end {
        if let Ok(Some(status)) = child.try_wait() {
            return status.code();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    None
}
