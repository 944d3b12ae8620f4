//! `concurrency-bench [N] [-- server command…]`: sends N `sleep_ms {ms: 100}` calls to a
//! server at once over real pipes and reports the wall time until the last response and the
//! server's memory per in-flight call. Default: 1,000 calls to the `fixture-server` built
//! next to this binary (`cargo build --release -p mcp-tests` builds both).

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Instant;

fn status_kb(pid: u32, key: &str) -> u64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    text.lines()
        .find_map(|l| l.strip_prefix(key).and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok()))
        .unwrap_or(0)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let split = args.iter().position(|a| a == "--");
    let n: usize = args.first().filter(|a| *a != "--").and_then(|a| a.parse().ok()).unwrap_or(1000);
    let command: Vec<String> = if let Some(i) = split {
        args[i + 1..].to_vec()
    } else {
        let exe = std::env::current_exe().expect("current exe");
        vec![exe.with_file_name("fixture-server").to_string_lossy().into_owned()]
    };
    let mut child = Command::new(&command[0])
        .args(&command[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {command:?}: {e}"));
    let pid = child.id();
    let mut input = child.stdin.take().expect("stdin");
    let mut output = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();

    writeln!(input, r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"concurrency-bench","version":"1"}}}}}}"#).unwrap();
    input.flush().unwrap();
    output.read_line(&mut line).unwrap();
    // Warm up: one round of the same calls, so that lazily grown pools are counted once.
    let mut batch = String::new();
    for id in 1..=n {
        let _ = writeln!(
            batch,
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"sleep_ms\",\"arguments\":{{\"ms\":100}}}}}}"
        );
    }
    let run = |input: &mut std::process::ChildStdin, output: &mut BufReader<std::process::ChildStdout>| {
        let start = Instant::now();
        input.write_all(batch.as_bytes()).unwrap();
        input.flush().unwrap();
        let mut ok = 0;
        let mut line = String::new();
        for _ in 0..n {
            line.clear();
            output.read_line(&mut line).unwrap();
            if line.contains(r#""text":"slept 100""#) {
                ok += 1;
            }
        }
        (start.elapsed(), ok)
    };
    let before_kb = status_kb(pid, "VmRSS:");
    let (cold, _) = run(&mut input, &mut output);
    let (wall, ok) = run(&mut input, &mut output);
    let hwm_kb = status_kb(pid, "VmHWM:");
    drop(input);
    let _ = child.wait();
    let per_call = hwm_kb.saturating_sub(before_kb) * 1024 / u64::try_from(n).unwrap_or(u64::MAX);
    println!(
        "{n} concurrent sleep_ms(100) calls: {:.0} ms wall (first round {:.0} ms), {ok}/{n} answered",
        wall.as_secs_f64() * 1e3,
        cold.as_secs_f64() * 1e3
    );
    println!("server memory: {before_kb} KiB before, {hwm_kb} KiB peak: {per_call} bytes per in-flight call");
    if ok != n {
        std::process::exit(1);
    }
}
