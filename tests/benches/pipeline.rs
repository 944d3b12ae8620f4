//! The in-process pipeline, one JSON-RPC line at a time: parse → validate → dispatch →
//! handler → output validation → envelope → serialized response, through
//! `Server::connect()` (the session logic stdio uses, without the pipe).
//!
//! `cargo bench -p mcp-tests --bench pipeline` prints the time per call of each case and,
//! at the end, the cost of a rejection relative to a success.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_main};

const CASES: [(&str, &str); 4] = [
    (
        "success: add",
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}"#,
    ),
    (
        "declared failure: fetch_items no_match",
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fetch_items","arguments":{"ids":[]}}}"#,
    ),
    (
        "invalid_arguments, one issue: add",
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":"two","b":3}}}"#,
    ),
    (
        "invalid_arguments, two issues: add",
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"add","arguments":{"a":"two","c":3}}}"#,
    ),
];

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("tokio runtime")
}

/// An in-process connection past `initialize` (a 2025 session: calls need one before them).
fn session(rt: &tokio::runtime::Runtime, server: &mcp_runtime::Server) -> mcp_runtime::Connection {
    let mut conn = server.connect();
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#;
    let out = rt.block_on(conn.send(init));
    assert!(out.len() == 1 && out[0].contains("\"protocolVersion\""), "initialize: {out:?}");
    conn
}

fn pipeline(c: &mut Criterion) {
    let rt = runtime();
    let server = mcp_tests::fixture::builder(false).build().expect("fixture server builds");
    let mut group = c.benchmark_group("pipeline");
    for (name, line) in CASES {
        let mut conn = session(&rt, &server);
        // The response must be the expected kind, or the figure means nothing.
        let out = rt.block_on(conn.send(line));
        assert_eq!(out.len(), 1, "{name}: {out:?}");
        assert_eq!(out[0].contains("\"isError\":true"), !name.starts_with("success"), "{name}: {}", out[0]);
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                rt.block_on(async {
                    let start = Instant::now();
                    for _ in 0..iters {
                        black_box(conn.send(black_box(line)).await);
                    }
                    start.elapsed()
                })
            });
        });
    }
    group.finish();
    ratios(&rt, &server);
}

/// The error path's cost relative to a success, measured back to back.
fn ratios(rt: &tokio::runtime::Runtime, server: &mcp_runtime::Server) {
    let per_call = |line: &str| -> f64 {
        let mut conn = session(rt, server);
        rt.block_on(async {
            for _ in 0..2_000 {
                conn.send(line).await;
            }
            let n = 20_000u32;
            let start = Instant::now();
            for _ in 0..n {
                black_box(conn.send(line).await);
            }
            duration_ns(start.elapsed()) / f64::from(n)
        })
    };
    let success = per_call(CASES[0].1);
    println!("\nns/call, measured back to back:");
    println!("  {:<42} {success:>8.0}", CASES[0].0);
    for (name, line) in &CASES[1..] {
        let cost = per_call(line);
        println!("  {name:<42} {cost:>8.0}  ({:.2}x success)", cost / success);
    }
}

fn duration_ns(d: Duration) -> f64 {
    d.as_secs_f64() * 1e9
}

// criterion 0.7's `criterion_group!` makes an undocumented `pub fn benches`.
mod group {
    use super::{Criterion, Duration, pipeline};
    criterion::criterion_group! {
        name = benches;
        config = Criterion::default().measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
        targets = pipeline
    }
}
use group::benches;
criterion_main!(benches);
