//! How long things take that the test suite checks only for correctness: figures, not
//! verdicts. A test that asserts a duration fails on a loaded machine and passes on a fast one
//! whatever the code does; here the durations are printed beside what they are compared with,
//! for a reader (or a before/after run) to judge.
//!
//! `cargo bench -p mcp-tests --bench timings` (each case a few seconds, over `fixture-server`'s
//! stdio). Exits 1 only if an answer is wrong: the figures are never checked.
//!
//! - throughput of notifying tools: 3,000 pipelined `work` calls (each sends five
//!   notifications and writes five stderr records) against 3,000 `add` calls, with the budget
//!   the hostile suite used to assert (6× the adds, between 3 s and 5 s; the defect it guarded
//!   against, a 2 ms pause before each response that follows notifications, took 15 s);
//! - a progress notification per call: 2,500 pipelined `blob` calls that each send one
//!   progress notification against 2,500 that send none (same tool, same answer), three
//!   rounds alternated, the median ratio (the target: within 1.5×);
//! - refusing 20,000 issues: a call with 20,000 unknown keys, and one with 20,000 items
//!   missing a field (the refusal lists the first ten);
//! - eight concurrent 500 ms sleeps (one after the other they would take 4 s);
//! - EOF with nothing in flight, to exit (the EOF grace, 2 s, applies only to calls in flight).

use std::process::ExitCode;
use std::time::{Duration, Instant};

use mcp_tests::client::{Client, Pipes};
use serde_json::{Value, json};

const SERVER: &str = env!("CARGO_BIN_EXE_fixture-server");

fn server() -> Client {
    let mut c = Client::spawn_with(SERVER, &[], Pipes { stdin_thread: true, ..Pipes::default() });
    c.initialize();
    c.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    c
}

fn call_line_with(id: i64, name: &str, arguments: &Value, progress_token: Option<i64>) -> String {
    if let Some(token) = progress_token {
        return json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name,
            "arguments": arguments, "_meta": {"progressToken": token}}})
        .to_string();
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
        .to_string()
}

/// Sends `n` pipelined calls of `name` (from the stdin thread) while reading along; the time
/// until every one is answered, or what went wrong.
fn pipelined(c: &mut Client, name: &str, arguments: &Value, first: i64, n: i64) -> Result<Duration, String> {
    pipelined_with(c, name, arguments, first, n, false)
}

/// As `pipelined`; with `progress`, each call carries a progress token.
fn pipelined_with(
    c: &mut Client,
    name: &str,
    arguments: &Value,
    first: i64,
    n: i64,
    progress: bool,
) -> Result<Duration, String> {
    let started = Instant::now();
    let mut batch = String::new();
    for id in first..first + n {
        batch.push_str(&call_line_with(id, name, arguments, progress.then_some(id)));
        batch.push('\n');
    }
    c.send_bytes(batch.as_bytes());
    let mut answered = 0;
    while answered < n {
        let line = c
            .recv_line_within(Duration::from_secs(120))
            .ok_or_else(|| format!("{answered} of {n} {name} calls answered within 120 s"))?;
        let msg: Value = serde_json::from_str(&line).map_err(|e| format!("{e}: {line}"))?;
        if msg.get("method").is_none() {
            let ok = msg["id"].as_i64().is_some_and(|id| (first..first + n).contains(&id))
                && msg["result"].get("isError").is_none();
            if !ok {
                return Err(format!("a wrong answer: {line}"));
            }
            answered += 1;
        }
    }
    Ok(started.elapsed())
}

fn throughput() -> Result<(), String> {
    let mut c = server();
    // Warm up (first-call costs), then measure the same server.
    pipelined(&mut c, "add", &json!({"a": 1, "b": 2}), 1, 100)?;
    pipelined(&mut c, "work", &json!({"steps": 1}), 1001, 100)?;
    let add = pipelined(&mut c, "add", &json!({"a": 1, "b": 2}), 10_001, 3000)?;
    let work = pipelined(&mut c, "work", &json!({"steps": 1}), 20_001, 3000)?;
    let budget = (add * 6).clamp(Duration::from_secs(3), Duration::from_secs(5));
    println!("3,000 add calls                      {add:>12.3?}");
    println!(
        "3,000 work calls                     {work:>12.3?}  ({:.1}× the adds; budget {budget:.1?}: {})",
        work.as_secs_f64() / add.as_secs_f64(),
        if work <= budget { "within" } else { "OVER" }
    );
    Ok(())
}

fn progress_per_call() -> Result<(), String> {
    let mut c = server();
    let silent = json!({"bytes": 8, "progress": false});
    let notifying = json!({"bytes": 8, "progress": true});
    pipelined_with(&mut c, "blob", &notifying, 1, 200, true)?;
    pipelined_with(&mut c, "blob", &silent, 1001, 200, true)?;
    let mut ratios = Vec::new();
    for round in 0..3 {
        let base = 100_000 * (round + 1);
        let quiet = pipelined_with(&mut c, "blob", &silent, base, 2500, true)?;
        let loud = pipelined_with(&mut c, "blob", &notifying, base + 10_000, 2500, true)?;
        println!("2,500 calls: silent {quiet:>10.3?}, one progress notification each {loud:>10.3?}");
        ratios.push(loud.as_secs_f64() / quiet.as_secs_f64());
    }
    ratios.sort_by(f64::total_cmp);
    println!("notifying ÷ silent (median of 3)     {:>11.2}×  (target: within 1.5×)", ratios[1]);
    Ok(())
}

fn many_issues() -> Result<(), String> {
    let mut c = server();
    let mut args = serde_json::Map::new();
    args.insert("query".into(), json!("q"));
    for i in 0..20_000 {
        args.insert(format!("k{i}"), json!(i));
    }
    let items: Vec<Value> = (0..20_000).map(|_| json!({})).collect();
    for (what, tool, arguments) in [
        ("20,000 unknown keys refused", "search_docs", Value::Object(args)),
        ("20,000 items missing a field refused", "configure", json!({"opts": {"a": "x"}, "items": items})),
    ] {
        let started = Instant::now();
        let result = c.call(tool, arguments);
        let took = started.elapsed();
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        if !text.contains("(+19990 more)") || !text.contains("reason invalid_arguments") {
            return Err(format!("{what}: not the refusal expected: {text:.300}"));
        }
        println!("{what:<37}{took:>12.3?}");
    }
    Ok(())
}

fn concurrent_sleeps() -> Result<(), String> {
    let mut c = server();
    let started = Instant::now();
    for id in 1..=8 {
        c.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "sleep_ms", "arguments": {"ms": 500}}}));
    }
    for _ in 0..8 {
        let msg = c.recv();
        if msg["result"]["content"][0]["text"] != json!("slept 500") {
            return Err(format!("a wrong answer: {msg}"));
        }
    }
    println!("8 concurrent 500 ms sleeps           {:>12.3?}  (one after the other: 4 s)", started.elapsed());
    Ok(())
}

fn eof_to_exit() -> Result<(), String> {
    let mut c = server();
    let started = Instant::now();
    c.close_stdin();
    let code = c.wait_exit(Duration::from_secs(30));
    let took = started.elapsed();
    if code != Some(0) {
        return Err(format!("exit status {code:?} after EOF"));
    }
    println!("EOF, nothing in flight, to exit      {took:>12.3?}  (the EOF grace: 2 s)");
    Ok(())
}

fn main() -> ExitCode {
    println!("== timings (debug or release as built; figures only) ==");
    let mut failed = false;
    for (name, case) in [
        ("throughput of notifying tools", throughput as fn() -> Result<(), String>),
        ("a progress notification per call", progress_per_call),
        ("refusing 20,000 issues", many_issues),
        ("concurrent sleeps", concurrent_sleeps),
        ("EOF to exit", eof_to_exit),
    ] {
        if let Err(e) = case() {
            println!("FAIL {name}: {e}");
            failed = true;
        }
    }
    if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}
