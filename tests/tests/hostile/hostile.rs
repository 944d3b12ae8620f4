//! A hostile client, over real pipes against `fixture-server`: one test per defect of the
//! stdio server, each asserting the behaviour a fixed server has. Every wait is bounded
//! (the child is killed when its `Client` drops; stdin is written from a thread, so a
//! server that stops reading never blocks the test), memory is asserted as bounds on
//! `/proc/<pid>/status`, and the few time bounds are generous and explained where they are.
//!
//! A test with several parts runs every part (each on its own server) and then fails with
//! the list of the parts that failed, so one broken part does not hide the others.
//!
//! The tests run one at a time whatever `--test-threads` says (each takes `one_at_a_time()`
//! first): several measure the server's memory, or give it bounded time, which a neighbour
//! test's load on the same cores would skew.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use mcp_tests::client::{Client, Pipes};
use serde_json::{Value, json};

const SERVER: &str = env!("CARGO_BIN_EXE_fixture-server");

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const MIB: u64 = 1024;

// ---------------------------------------------------------------------------------------
// Helpers

/// Held for the whole of each test, so that the tests of this file never overlap.
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static ONE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    // A test that failed while holding it does not stop the others.
    ONE.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A server whose stdin is written from a thread; other pipes as `pipes` says.
fn spawn(env: &[(&str, &str)], pipes: Pipes) -> Client {
    Client::spawn_with(SERVER, env, Pipes { stdin_thread: true, ..pipes })
}

/// A server with its output read, initialized (`clientInfo.name` `t`).
fn server(env: &[(&str, &str)]) -> Client {
    let mut c = spawn(env, Pipes::default());
    init(&mut c);
    c
}

fn init(c: &mut Client) {
    c.send_raw(INIT);
    let (_, answer) = read_until_id(c, &json!(0), Duration::from_secs(10));
    let answer = answer.expect("initialize is answered within 10 s");
    assert!(answer.get("result").is_some(), "initialize failed: {answer}");
    c.send_raw(INITIALIZED);
}

fn set_level(c: &mut Client, level: &str) {
    c.send(&json!({"jsonrpc": "2.0", "id": "level", "method": "logging/setLevel", "params": {"level": level}}));
    let (_, answer) = read_until_id(c, &json!("level"), Duration::from_secs(10));
    assert_eq!(answer.expect("logging/setLevel is answered within 10 s")["result"], json!({}));
}

fn call_line(id: &Value, name: &str, arguments: &Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
        .to_string()
}

fn ping_line(id: &Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "ping"}).to_string()
}

fn cancel_line(id: &Value) -> String {
    json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id}}).to_string()
}

fn parse(line: &str) -> Value {
    serde_json::from_str(line).unwrap_or_else(|e| panic!("the server wrote a non-JSON line {line:?}: {e}"))
}

/// Reads messages until the one with `id` (a response) or until `within` has passed; every
/// message before it, and it.
fn read_until_id(c: &mut Client, id: &Value, within: Duration) -> (Vec<Value>, Option<Value>) {
    let deadline = Instant::now() + within;
    let mut before = Vec::new();
    while let Some(line) = c.recv_line_within(deadline.saturating_duration_since(Instant::now())) {
        let msg = parse(&line);
        if msg.get("id") == Some(id) && msg.get("method").is_none() {
            return (before, Some(msg));
        }
        before.push(msg);
    }
    (before, None)
}

/// Every raw line the server writes within `within`.
fn read_for(c: &mut Client, within: Duration) -> Vec<String> {
    let deadline = Instant::now() + within;
    let mut out = Vec::new();
    while let Some(line) = c.recv_line_within(deadline.saturating_duration_since(Instant::now())) {
        out.push(line);
    }
    out
}

/// `content[0].text` of a result.
fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text in {result}"))
}

/// The terms line of an error envelope's text: `(reason … · retryable · request …)`.
fn terms(result: &Value) -> &str {
    text(result).lines().rev().find(|l| l.starts_with('(')).unwrap_or_else(|| panic!("no terms line in {result}"))
}

/// Samples `VmRSS` every 50 ms for `during`; the largest sample, in KiB.
fn max_rss_during(c: &Client, during: Duration) -> u64 {
    let until = Instant::now() + during;
    let mut max = 0;
    loop {
        max = max.max(c.status_kib("VmRSS").expect("the server is running"));
        if Instant::now() >= until {
            return max;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Runs each part (each starts its own server) and fails with every part that failed.
fn parts(parts: &[(&str, fn())]) {
    let mut failed = Vec::new();
    for (name, part) in parts {
        eprintln!("--- part {name}");
        if let Err(payload) = std::panic::catch_unwind(part) {
            let message = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            failed.push(format!("part {name}: {message}"));
        }
    }
    assert!(failed.is_empty(), "{} of {} parts failed:\n{}", failed.len(), parts.len(), failed.join("\n"));
}

/// A thread writing to the server's stdin (see [`write_from_thread`]). Dropping it closes
/// stdin.
struct Writer {
    /// Bytes written so far.
    written: Arc<AtomicUsize>,
    /// Set once everything was written.
    done: Arc<AtomicBool>,
    _release: mpsc::Sender<()>,
}

/// Writes `lines` (each with its newline) to stdin from a thread, in chunks of `chunk`
/// lines. stdin stays open until the [`Writer`] drops; the thread ends early when the
/// server is gone.
fn write_from_thread(mut stdin: std::process::ChildStdin, lines: &[String], chunk: usize) -> Writer {
    let written = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let (release, released) = mpsc::channel::<()>();
    let (w, d) = (Arc::clone(&written), Arc::clone(&done));
    let chunks: Vec<Vec<u8>> = lines
        .chunks(chunk)
        .map(|c| {
            let mut bytes = Vec::new();
            for line in c {
                bytes.extend_from_slice(line.as_bytes());
                bytes.push(b'\n');
            }
            bytes
        })
        .collect();
    std::thread::spawn(move || {
        for bytes in chunks {
            if stdin.write_all(&bytes).is_err() {
                return;
            }
            w.fetch_add(bytes.len(), Ordering::SeqCst);
        }
        let _ = stdin.flush();
        d.store(true, Ordering::SeqCst);
        // Returns when the `Writer` drops; then stdin closes.
        let _ = released.recv();
    });
    Writer { written, done, _release: release }
}

// ---------------------------------------------------------------------------------------
// 1. Output backpressure

#[test]
fn d01_output_backpressure() {
    let _serial = one_at_a_time();
    parts(&[("1a", d01a_unread_output_keeps_memory_bounded), ("1b", d01b_answers_flow_while_the_client_still_writes)]);
}

/// stdout is never read while 300k pings are written: the server must stop reading once
/// its answers back up, not buffer them all.
fn d01a_unread_output_keeps_memory_bounded() {
    // stdin written by a thread of this test's own, which counts what it wrote.
    let mut c = Client::spawn_with(SERVER, &[], Pipes { stdout_unread: true, ..Pipes::default() });
    let _stdout = c.take_stdout().expect("stdout"); // held open, never read
    let stdin = c.take_stdin().expect("stdin");
    let mut lines = vec![INIT.to_owned(), INITIALIZED.to_owned()];
    lines.extend((1..=300_000).map(|i| ping_line(&json!(i))));
    let total: usize = lines.iter().map(|l| l.len() + 1).sum();
    let writer = write_from_thread(stdin, &lines, 1000);
    let (written, done) = (&writer.written, &writer.done);

    // Watch until writing stalls (no progress for 500 ms: the server stopped reading) or
    // ends, at most 3 s; then sample a little longer.
    let started = Instant::now();
    let mut max_rss = 0;
    let (mut last, mut last_change) = (0, Instant::now());
    loop {
        max_rss = max_rss.max(c.status_kib("VmRSS").expect("the server is running"));
        let now = written.load(Ordering::SeqCst);
        if now != last {
            (last, last_change) = (now, Instant::now());
        }
        if done.load(Ordering::SeqCst) || last_change.elapsed() >= Duration::from_millis(500) {
            break;
        }
        if started.elapsed() >= Duration::from_secs(3) {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let max_rss = max_rss.max(max_rss_during(&c, Duration::from_millis(300)));
    let hwm = c.status_kib("VmHWM").expect("the server is running");
    let written = written.load(Ordering::SeqCst);
    assert!(
        max_rss < 64 * MIB && hwm < 64 * MIB,
        "with stdout unread, VmRSS reached {max_rss} KiB (VmHWM {hwm} KiB), over 64 MiB; the server read \
         {written} of {total} bytes of pings in {:?}",
        started.elapsed()
    );
}

/// A client that reads along while a thread writes 600k pings gets its first answer while
/// the writer is still writing: answers are written as they are made, not only when the
/// input runs dry.
///
/// The writer starts at once, so the input pipe is full before the server first reads it
/// (it is still starting up), and the server never finds it empty by chance: only a server
/// that writes answers while input is waiting passes.
fn d01b_answers_flow_while_the_client_still_writes() {
    let mut c = Client::spawn_with(SERVER, &[], Pipes { stdout_unread: true, ..Pipes::default() });
    let stdout = c.take_stdout().expect("stdout");
    let stdin = c.take_stdin().expect("stdin");
    let mut lines = vec![INIT.to_owned(), INITIALIZED.to_owned()];
    lines.extend((1..=600_000).map(|i| ping_line(&json!(i))));
    let writer = write_from_thread(stdin, &lines, 10_000);
    drop(lines);
    // The reader reports the first answer with whether the writer had finished by then,
    // then drains the rest (so a fixed server is never blocked on its output).
    let (tx, rx) = mpsc::channel::<(String, bool)>();
    let done = Arc::clone(&writer.done);
    std::thread::spawn(move || {
        let mut tx = Some(tx);
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { return };
            if let Some(tx) = tx.take() {
                let _ = tx.send((line, done.load(Ordering::SeqCst)));
            }
        }
    });
    // Generous: the defect answers only once all ~28 MB are read.
    let (first, writer_had_finished) = rx.recv_timeout(Duration::from_secs(120)).expect("an answer within 120 s");
    assert_eq!(parse(&first)["id"], json!(0), "initialize is answered first: {first}");
    assert!(
        !writer_had_finished,
        "the first answer arrived only after the writer had written all 600k pings ({} bytes)",
        writer.written.load(Ordering::SeqCst)
    );
}

// ---------------------------------------------------------------------------------------
// 2. A full queue refuses calls instead of stopping to read

#[test]
fn d02_full_queue_refuses_instead_of_deadlocking() {
    let _serial = one_at_a_time();
    let mut c = server(&[("FIXTURE_MAX_IN_FLIGHT", "2"), ("FIXTURE_MAX_QUEUED_BYTES", "4096")]);
    // Two calls take both slots.
    for id in 1..=2 {
        c.send_raw(&call_line(&json!(id), "wait_cancel", &json!({})));
    }
    c.send_raw(&ping_line(&json!("p1")));
    let (_, ping) = read_until_id(&mut c, &json!("p1"), Duration::from_secs(10));
    assert!(ping.is_some(), "a ping after the two slot holders is answered within 10 s");

    // 100 more (~90 bytes each): about 45 fit the 4096-byte queue, the rest are refused.
    for id in 3..=102 {
        c.send_raw(&call_line(&json!(id), "wait_cancel", &json!({})));
    }
    c.send_raw(&ping_line(&json!("p2")));
    let mut messages: Vec<Value> = Vec::new();
    let (before, ping) = read_until_id(&mut c, &json!("p2"), Duration::from_secs(10));
    messages.extend(before);
    let refused_count = |messages: &[Value]| messages.iter().filter(|m| m.get("result").is_some()).count();
    assert!(
        ping.is_some(),
        "a ping sent after 100 calls beyond the slots is not answered within 10 s: the server stopped reading \
         (answers so far: {} refusals, {messages:?})",
        refused_count(&messages)
    );
    // "At once": every refusal is sent while the calls are read, before any slot frees.
    messages.extend(read_for(&mut c, Duration::from_millis(500)).iter().map(|l| parse(l)));
    let refused_at_once = refused_count(&messages);

    // Cancel every call, queued or running: a ping is still answered, and nothing more
    // comes for any of them.
    for id in 1..=102 {
        c.send_raw(&cancel_line(&json!(id)));
    }
    c.send_raw(&ping_line(&json!("p3")));
    let (before, ping) = read_until_id(&mut c, &json!("p3"), Duration::from_secs(10));
    messages.extend(before);
    assert!(ping.is_some(), "a ping after the cancellations is answered within 10 s");
    messages.extend(read_for(&mut c, Duration::from_secs(1)).iter().map(|l| parse(l)));

    let mut by_id: HashMap<i64, Vec<&Value>> = HashMap::new();
    for m in &messages {
        let id = m.get("id").and_then(Value::as_i64).unwrap_or_else(|| panic!("an unexpected message {m}"));
        by_id.entry(id).or_default().push(m);
    }
    for id in [1, 2] {
        assert!(!by_id.contains_key(&id), "the cancelled slot holder {id} was answered: {:?}", by_id[&id]);
    }
    for (id, answers) in &by_id {
        assert!((3..=102).contains(id), "an answer for an id never sent: {id}");
        assert_eq!(answers.len(), 1, "call {id} was answered more than once: {answers:?}");
        let answer = answers[0];
        let result = answer.get("result").unwrap_or_else(|| panic!("call {id} got a JSON-RPC error: {answer}"));
        assert_eq!(result["isError"], json!(true), "call {id}: {answer}");
        let terms = terms(result);
        assert!(
            terms.contains("reason server_busy") && terms.contains("retryable") && !terms.contains("not retryable"),
            "call {id}: the refusal's terms are {terms:?}"
        );
    }
    let refused = by_id.len();
    assert!(refused >= 1, "none of the 100 calls beyond the slots was refused");
    assert!(refused < 100, "all 100 calls were refused: none was queued");
    assert_eq!(refused_at_once, refused, "some refusals came only after the cancellations");

    c.close_stdin();
    assert!(c.wait_exit(Duration::from_secs(10)).is_some(), "the server did not exit within 10 s of EOF");
}

// ---------------------------------------------------------------------------------------
// 3. Sync handlers never run on the reader

/// `work` steps that keep a debug build busy for a few seconds (measured: 30M steps take
/// about 4.5 s on the 2-core test machine, in a debug build).
const BUSY_STEPS: u32 = 30_000_000;
/// `work` steps that keep a debug build busy far longer than any bound below (measured:
/// 100M steps take about 19 s, debug build).
const LONG_STEPS: u32 = 100_000_000;

#[test]
fn d03_sync_handlers_never_run_on_the_reader() {
    let _serial = one_at_a_time();
    parts(&[
        ("3a", d03a_a_ping_overtakes_a_busy_sync_call),
        ("3b", d03b_a_busy_sync_call_can_be_cancelled),
        ("3c", d03c_a_busy_sync_call_times_out),
        ("3d", d03d_unread_progress_keeps_memory_bounded),
    ]);
}

fn d03a_a_ping_overtakes_a_busy_sync_call() {
    let mut c = server(&[]);
    c.send_raw(&call_line(&json!(1), "work", &json!({"steps": BUSY_STEPS})));
    std::thread::sleep(Duration::from_millis(50));
    c.send_raw(&ping_line(&json!(2)));
    let deadline = Instant::now() + Duration::from_secs(60);
    let first = loop {
        let line = c
            .recv_line_within(deadline.saturating_duration_since(Instant::now()))
            .expect("an answer to the work call or the ping within 60 s");
        let msg = parse(&line);
        if msg.get("method").is_none() && (msg["id"] == json!(1) || msg["id"] == json!(2)) {
            break msg;
        }
    };
    assert_eq!(first["id"], json!(2), "the work call was answered before the ping sent 50 ms after it: {first}");
}

fn d03b_a_busy_sync_call_can_be_cancelled() {
    let mut c = server(&[]);
    c.send_raw(&call_line(&json!(1), "work", &json!({"steps": BUSY_STEPS})));
    std::thread::sleep(Duration::from_millis(50));
    c.send_raw(&cancel_line(&json!(1)));
    c.send_raw(&ping_line(&json!(2)));
    let (mut messages, ping) = read_until_id(&mut c, &json!(2), Duration::from_secs(60));
    assert!(ping.is_some(), "the ping is answered within 60 s");
    messages.extend(read_for(&mut c, Duration::from_secs(1)).iter().map(|l| parse(l)));
    let answered: Vec<&Value> = messages.iter().filter(|m| m["id"] == json!(1)).collect();
    assert!(answered.is_empty(), "the cancelled work call was answered: {answered:?}");
}

fn d03c_a_busy_sync_call_times_out() {
    let mut c = server(&[("FIXTURE_DEFAULT_TIMEOUT_MS", "200")]);
    let started = Instant::now();
    c.send_raw(&call_line(&json!(1), "work", &json!({"steps": LONG_STEPS})));
    // The limit is 200 ms; 3 s is 15× that (a fixed server answers in ~0.2 s), and far
    // under the ~19 s the handler needs on its own.
    let (_, answer) = read_until_id(&mut c, &json!(1), Duration::from_secs(3));
    let answer =
        answer.unwrap_or_else(|| panic!("no answer within {:?} to a call with a 200 ms time limit", started.elapsed()));
    let result = answer.get("result").unwrap_or_else(|| panic!("not a result: {answer}"));
    assert_eq!(result["isError"], json!(true), "not a timeout envelope: {answer}");
    assert!(text(result).contains("reason timeout"), "not a timeout envelope: {answer}");
    c.send_raw(&ping_line(&json!(2)));
    let (_, ping) = read_until_id(&mut c, &json!(2), Duration::from_secs(5));
    assert!(ping.is_some(), "a ping after the timeout is answered within 5 s");
}

fn d03d_unread_progress_keeps_memory_bounded() {
    let mut c = spawn(&[], Pipes { stdout_unread: true, ..Pipes::default() });
    c.send_raw(INIT);
    c.send_raw(INITIALIZED);
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "work", "arguments": {"steps": 1_000_000}, "_meta": {"progressToken": "p"}}});
    c.send(&call);
    // stdout unread for 3 s while the handler reports a million steps.
    let max_rss = max_rss_during(&c, Duration::from_secs(3));
    let hwm = c.status_kib("VmHWM").expect("the server is running");
    assert!(
        max_rss < 64 * MIB && hwm < 64 * MIB,
        "with stdout unread, progress of 1M steps took VmRSS to {max_rss} KiB (VmHWM {hwm} KiB), over 64 MiB"
    );

    // Reading now: the final answer arrives; every progress that does arrive is well formed
    // and increasing (some may have been dropped).
    c.read_stdout();
    // A server that drops progress it cannot send answers at once; one that holds the
    // handler back instead sends all million (about 40 s to read here, debug build).
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut last = f64::NEG_INFINITY;
    let mut progress_seen = 0_u64;
    loop {
        let line = c
            .recv_line_within(deadline.saturating_duration_since(Instant::now()))
            .unwrap_or_else(|| panic!("no final answer within 120 s ({progress_seen} progress notifications)"));
        let msg = parse(&line);
        if msg["id"] == json!(0) {
            continue;
        }
        if msg["id"] == json!(1) {
            assert_eq!(msg["result"], json!({"content": [{"type": "text", "text": "done 1000000"}]}));
            // The peak over the whole call, in case the 3 s above were too short to see it.
            let hwm = c.status_kib("VmHWM").expect("the server is running");
            assert!(hwm < 64 * MIB, "progress of 1M steps took VmHWM to {hwm} KiB, over 64 MiB");
            break;
        }
        match msg["method"].as_str() {
            Some("notifications/message") => {}
            Some("notifications/progress") => {
                let params = &msg["params"];
                assert_eq!(msg["jsonrpc"], json!("2.0"), "{line}");
                assert_eq!(params["progressToken"], json!("p"), "{line}");
                let progress = params["progress"].as_f64().unwrap_or_else(|| panic!("no progress number: {line}"));
                assert!(progress > last, "progress did not increase: {last} then {line}");
                assert!(progress <= 1_000_000.0, "{line}");
                if let Some(total) = params.get("total") {
                    assert_eq!(total, &json!(1_000_000.0), "{line}");
                }
                last = progress;
                progress_seen += 1;
            }
            _ => panic!("an unexpected message: {line}"),
        }
    }
}

// ---------------------------------------------------------------------------------------
// 4. A call cancelled while queued never runs

#[test]
fn d04_a_call_cancelled_while_queued_never_runs() {
    let _serial = one_at_a_time();
    let mut c = server(&[("FIXTURE_MAX_IN_FLIGHT", "1")]);
    set_level(&mut c, "debug");
    c.send_raw(&call_line(&json!(1), "wait_cancel", &json!({})));
    c.send_raw(&call_line(&json!(2), "work", &json!({"steps": 1})));
    c.send_raw(&cancel_line(&json!(2)));
    c.send_raw(&cancel_line(&json!(1)));
    c.send_raw(&ping_line(&json!(3)));
    let (mut messages, ping) = read_until_id(&mut c, &json!(3), Duration::from_secs(10));
    assert!(ping.is_some(), "the ping is answered within 10 s");
    // Call 1 ends within its 250 ms cancellation grace; had call 2 run on the freed slot,
    // its logs would arrive well within 1.5 s.
    messages.extend(read_for(&mut c, Duration::from_millis(1500)).iter().map(|l| parse(l)));
    let about_2: Vec<&Value> = messages
        .iter()
        .filter(|m| {
            m["id"] == json!(2) || m["params"]["logger"] == json!("work") || m.to_string().contains("from work")
        })
        .collect();
    assert!(about_2.is_empty(), "the call cancelled while queued ran: {about_2:?}");
    let stderr = c.stderr();
    assert!(!stderr.contains("tracing event from work"), "the call cancelled while queued ran (stderr):\n{stderr}");
}

// ---------------------------------------------------------------------------------------
// 5. A duplicate in-flight id

#[test]
fn d05_a_duplicate_in_flight_id_is_refused() {
    let _serial = one_at_a_time();
    let mut c = server(&[]);
    c.send_raw(&call_line(&json!(7), "wait_cancel", &json!({})));
    c.send_raw(&call_line(&json!(7), "echo", &json!({"text": "duplicate"})));
    let (_, answer) = read_until_id(&mut c, &json!(7), Duration::from_secs(10));
    let answer = answer.expect("the duplicate is answered within 10 s");
    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32600,
            "message": "Invalid request: id 7 is already in use by a call in progress; send each request with a new id"}}),
        "the duplicate id 7 was not refused with a message naming it"
    );

    // The first call 7 is still the one a cancellation reaches.
    c.send_raw(&cancel_line(&json!(7)));
    c.send_raw(&ping_line(&json!("after")));
    let (mut messages, ping) = read_until_id(&mut c, &json!("after"), Duration::from_secs(10));
    assert!(ping.is_some(), "a ping is answered within 10 s");
    messages.extend(read_for(&mut c, Duration::from_millis(500)).iter().map(|l| parse(l)));
    let for_7: Vec<&Value> = messages.iter().filter(|m| m["id"] == json!(7)).collect();
    assert!(for_7.is_empty(), "call 7 was answered after its cancellation: {for_7:?}");
    let started = Instant::now();
    c.close_stdin();
    // Nothing is in flight once call 7 is cancelled: a fixed server exits at once; 5 s
    // leaves room for the 2 s EOF grace should anything linger.
    assert!(
        c.wait_exit(Duration::from_secs(5)).is_some(),
        "the server did not exit within {:?} of EOF",
        started.elapsed()
    );
}

// ---------------------------------------------------------------------------------------
// 6. Tools that notify: every pipelined call is answered

/// Sends `n` pipelined calls of `name` (from the stdin thread) while reading along, until
/// every one is answered (a minute at most: a bound on a hang, not a speed).
/// Their ids are `first..first + n`.
fn pipelined(c: &mut Client, name: &str, arguments: &Value, first: i64, n: i64) {
    let mut batch = String::new();
    for id in first..first + n {
        batch.push_str(&call_line(&json!(id), name, arguments));
        batch.push('\n');
    }
    c.send_bytes(batch.as_bytes());
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut answered = 0;
    while answered < n {
        let Some(line) = c.recv_line_within(deadline.saturating_duration_since(Instant::now())) else {
            panic!("{answered} of {n} {name} calls answered within 60 s");
        };
        let msg = parse(&line);
        if msg.get("method").is_none() {
            let id = msg["id"].as_i64().expect("an integer id");
            assert!((first..first + n).contains(&id), "{line}");
            assert!(msg["result"].get("isError").is_none(), "{line}");
            answered += 1;
        }
    }
}

/// The responses held back after notifications (the TypeScript client's 2 ms gap) are all
/// written, however many calls are pipelined. Their throughput against calls that notify
/// nothing is a figure of `cargo bench -p mcp-tests --bench timings`, not a test.
#[test]
fn d06_every_pipelined_notifying_call_is_answered() {
    let _serial = one_at_a_time();
    let mut c = server(&[]);
    pipelined(&mut c, "work", &json!({"steps": 1}), 1, 1000);
    pipelined(&mut c, "add", &json!({"a": 1, "b": 2}), 2001, 1000);
}

// ---------------------------------------------------------------------------------------
// 7. A blocked stderr never freezes the server

#[test]
fn d07_a_blocked_stderr_never_freezes_the_server() {
    let _serial = one_at_a_time();
    let mut c = spawn(&[], Pipes { stderr_unread: true, ..Pipes::default() });
    init(&mut c);
    // Each call of an unknown tool logs its refusal to stderr, which nobody reads: the
    // 64 KiB pipe is full after a few hundred.
    let mut batch = String::new();
    for id in 1..=5000 {
        batch.push_str(&call_line(&json!(id), "nope", &json!({})));
        batch.push('\n');
    }
    batch.push_str(&ping_line(&json!("last")));
    batch.push('\n');
    c.send_bytes(batch.as_bytes());
    let started = Instant::now();
    // A fixed server answers all of them in well under 5 s (debug build); 20 s is generous.
    let deadline = started + Duration::from_secs(20);
    let mut answered = 0;
    while answered < 5001 {
        let Some(line) = c.recv_line_within(deadline.saturating_duration_since(Instant::now())) else {
            panic!("{answered} of 5,001 requests answered within 20 s with stderr unread");
        };
        if parse(&line).get("method").is_none() {
            answered += 1;
        }
    }
}

// ---------------------------------------------------------------------------------------
// 8. Shutdown is bounded

#[test]
fn d08_shutdown_is_bounded_when_output_is_unread() {
    let _serial = one_at_a_time();
    let mut c = spawn(&[], Pipes { stdout_unread: true, ..Pipes::default() });
    let _stdout = c.take_stdout().expect("stdout"); // held open, never read
    c.send_raw(INIT);
    c.send_raw(INITIALIZED);
    for id in 1..=300 {
        c.send_raw(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}).to_string());
    }
    c.send_raw(&call_line(&json!("w"), "wait_cancel", &json!({})));
    let started = Instant::now();
    c.close_stdin();
    // The 2 s EOF grace (for `wait_cancel`), then a final flush that gives up on a reader
    // that never reads; 15 s leaves ample room for a bounded flush.
    assert!(
        c.wait_exit(Duration::from_secs(15)).is_some(),
        "the server had not exited {:?} after EOF, its output unread",
        started.elapsed()
    );
}

// ---------------------------------------------------------------------------------------
// 9. Memory per call

#[test]
fn d09_memory_per_call_is_bounded() {
    let _serial = one_at_a_time();
    parts(&[
        ("9a", d09a_huge_ids_are_refused),
        ("9b", d09b_a_huge_progress_token_is_refused),
        ("9c", d09c_a_queued_call_holds_its_line_not_its_arguments),
    ]);
}

fn d09a_huge_ids_are_refused() {
    let mut c = server(&[]);
    let id = "x".repeat(1 << 20);
    for _ in 0..8 {
        c.send_raw(&call_line(&json!(id), "wait_cancel", &json!({})));
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    for i in 0..8 {
        let Some(line) = c.recv_line_within(deadline.saturating_duration_since(Instant::now())) else {
            panic!("{i} of 8 calls with a 1 MiB id answered within 10 s");
        };
        let msg = parse(&line);
        assert_eq!(msg["error"]["code"], json!(-32600), "call {i}: {}", &line[..line.len().min(300)]);
        assert!(line.contains(r#""id":null"#), "call {i}: {}", &line[..line.len().min(300)]);
        let message = msg["error"]["message"].as_str().expect("a message");
        assert!(message.contains("4096"), "call {i}: the message does not name the 4096-byte limit: {message:?}");
    }
    let max_rss = max_rss_during(&c, Duration::from_millis(300));
    assert!(max_rss < 64 * MIB, "VmRSS {max_rss} KiB after 8 calls with 1 MiB ids, over 64 MiB");
}

fn d09b_a_huge_progress_token_is_refused() {
    let mut c = server(&[]);
    let token = "t".repeat(5000);
    let line = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "work", "arguments": {"steps": 1}, "_meta": {"progressToken": token}}});
    c.send(&line);
    let (_, answer) = read_until_id(&mut c, &json!(1), Duration::from_secs(10));
    let answer = answer.expect("answered within 10 s");
    assert_eq!(answer["error"]["code"], json!(-32602), "a 5000-byte progress token was accepted: {}", {
        let s = answer.to_string();
        s[..s.len().min(300)].to_owned()
    });
    let message = answer["error"]["message"].as_str().expect("a message");
    assert!(message.contains("progressToken"), "{message:?}");
}

fn d09c_a_queued_call_holds_its_line_not_its_arguments() {
    // 600k three-character ids: a 3.6 MB line (under the 4 MiB line limit).
    const IDS: usize = 600_000;
    let mut c = server(&[("FIXTURE_MAX_IN_FLIGHT", "1")]);
    c.send_raw(&call_line(&json!(1), "wait_cancel", &json!({})));
    let alphabet = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let ids: Vec<String> =
        (0..IDS).map(|i| [i / 1296, i / 36, i].iter().map(|d| char::from(alphabet[d % 36])).collect()).collect();
    let line = call_line(&json!(2), "fetch_items", &json!({"ids": ids}));
    assert!(line.len() > 3_500_000 && line.len() < 4 << 20, "{}", line.len());
    c.send_raw(&line);
    drop(line);
    c.send_raw(&ping_line(&json!(3)));
    let (_, ping) = read_until_id(&mut c, &json!(3), Duration::from_secs(20));
    assert!(ping.is_some(), "a ping after the queued call is answered within 20 s");
    let max_rss = max_rss_during(&c, Duration::from_millis(500));
    let hwm = c.status_kib("VmHWM").expect("the server is running");
    assert!(
        max_rss < 48 * MIB && hwm < 48 * MIB,
        "with one 3.6 MB call queued, VmRSS is {max_rss} KiB (VmHWM {hwm} KiB), over 48 MiB"
    );
    c.send_raw(&cancel_line(&json!(1)));
    // Validating 600k ids takes a debug build a while; 60 s is generous.
    let (_, answer) = read_until_id(&mut c, &json!(2), Duration::from_secs(60));
    let answer = answer.expect("the queued call is answered within 60 s of a free slot");
    assert_eq!(
        answer["result"]["structuredContent"]["ids"].as_array().map(Vec::len),
        Some(IDS),
        "the queued call did not return its ids"
    );
}

// ---------------------------------------------------------------------------------------
// 10. Protocol details

#[test]
fn d10_protocol_details() {
    let _serial = one_at_a_time();
    parts(&[
        ("10a", d10a_ids_are_echoed_byte_for_byte),
        ("10b", d10b_a_fractional_progress_token_is_echoed),
        ("10c", d10c_a_repeated_member_keeps_the_id),
        ("10d", d10d_a_second_initialize_is_refused),
    ]);
}

fn d10a_ids_are_echoed_byte_for_byte() {
    let mut c = server(&[]);
    let mut wrong = Vec::new();
    for raw in ["-0", "1.0", "123456789012345678901234567890", "1e3"] {
        c.send_raw(&format!(r#"{{"jsonrpc":"2.0","id":{raw},"method":"ping"}}"#));
        let line = c.recv_line_within(Duration::from_secs(10)).expect("an answer within 10 s");
        let echoed = line.contains(&format!(r#""id":{raw},"#)) || line.contains(&format!(r#""id":{raw}}}"#));
        if !(echoed && parse(&line).get("result") == Some(&json!({}))) {
            wrong.push(format!("id {raw}: {line}"));
        }
    }
    assert!(wrong.is_empty(), "pings not answered with their id as sent:\n{}", wrong.join("\n"));
}

fn d10b_a_fractional_progress_token_is_echoed() {
    let mut c = server(&[]);
    c.send_raw(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"work","arguments":{"steps":2},"_meta":{"progressToken":1.5}}}"#,
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut progress = Vec::new();
    let answer = loop {
        let line =
            c.recv_line_within(deadline.saturating_duration_since(Instant::now())).expect("an answer within 10 s");
        let msg = parse(&line);
        if msg["id"] == json!(1) {
            break msg;
        }
        if msg["method"] == json!("notifications/progress") {
            progress.push(line);
        }
    };
    assert_eq!(answer["result"], json!({"content": [{"type": "text", "text": "done 2"}]}), "{answer}");
    assert_eq!(progress.len(), 2, "{progress:?}");
    for line in &progress {
        assert!(line.contains(r#""progressToken":1.5,"#) || line.contains(r#""progressToken":1.5}"#), "{line}");
    }
}

fn d10c_a_repeated_member_keeps_the_id() {
    let mut c = server(&[]);
    c.send_raw(r#"{"jsonrpc":"2.0","id":6,"method":"ping","method":"ping"}"#);
    let line = c.recv_line_within(Duration::from_secs(10)).expect("an answer within 10 s");
    let msg = parse(&line);
    assert_eq!(msg["error"]["code"], json!(-32600), "{line}");
    assert_eq!(msg["id"], json!(6), "{line}");
}

fn d10d_a_second_initialize_is_refused() {
    let mut c = server(&[]);
    c.send(&json!({"jsonrpc": "2.0", "id": 9, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
        "capabilities": {}, "clientInfo": {"name": "impostor", "version": "1"}}}));
    let (_, answer) = read_until_id(&mut c, &json!(9), Duration::from_secs(10));
    let answer = answer.expect("an answer within 10 s");
    assert_eq!(answer["error"]["code"], json!(-32600), "a second initialize was accepted: {answer}");
    c.send_raw(&call_line(&json!(10), "whoami", &json!({})));
    let (_, me) = read_until_id(&mut c, &json!(10), Duration::from_secs(10));
    let me = me.expect("whoami answered within 10 s");
    assert_eq!(me["result"]["structuredContent"]["name"], json!("t"), "{me}");
}

// ---------------------------------------------------------------------------------------
// 11. Client log forwarding: what the author meant

#[test]
fn d11_only_the_authors_logs_reach_the_client() {
    let _serial = one_at_a_time();
    let mut c = server(&[]);
    set_level(&mut c, "debug");
    c.send_raw(&call_line(&json!(1), "log_sources", &json!({})));
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut lines = Vec::new();
    let answer = loop {
        let line =
            c.recv_line_within(deadline.saturating_duration_since(Instant::now())).expect("an answer within 10 s");
        let msg = parse(&line);
        if msg["id"] == json!(1) {
            break msg;
        }
        lines.push(line);
    };
    lines.extend(read_for(&mut c, Duration::from_millis(300)));
    assert_eq!(answer["result"], json!({"content": [{"type": "text", "text": "logged"}]}), "{answer}");
    let messages: Vec<&String> =
        lines.iter().filter(|l| parse(l)["method"] == json!("notifications/message")).collect();
    for wanted in ["ctx event", "author event"] {
        assert!(messages.iter().any(|l| l.contains(wanted)), "no notifications/message with {wanted:?}: {messages:?}");
    }
    let leaked: Vec<&String> =
        lines.iter().filter(|l| l.contains("dependency event") || l.contains("secret source detail")).collect();
    assert!(leaked.is_empty(), "forwarded to the client: {leaked:?}");
}
