//! The shipped hooks over the wire: the rate limit (`FIXTURE_RATE_LIMIT`), per connection on
//! stdio and per principal over HTTP, and the audit records (`FIXTURE_AUDIT=stderr`).

use std::time::Duration;

use mcp_tests::client::{Client, Pipes};
use serde_json::{Value, json};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture-server");

/// The envelope's `structuredContent.error` of a result, when it is one.
fn error_of(result: &Value) -> Option<&Value> {
    result.get("structuredContent").and_then(|s| s.get("error")).filter(|_| result["isError"] == true)
}

#[test]
fn a_burst_past_the_limit_is_refused_as_rate_limited_until_the_bucket_refills() {
    let mut c =
        Client::spawn_with(FIXTURE, &[("FIXTURE_RATE_LIMIT", "5/s"), ("FIXTURE_AUDIT", "stderr")], Pipes::default());
    c.initialize();
    // Twenty calls in one burst (written back to back, answered as they come).
    let ids: Vec<i64> = (0..20)
        .map(|i| c.request("tools/call", json!({"name": "echo", "arguments": {"text": format!("m{i}")}})))
        .collect();
    let mut results = Vec::new();
    while results.len() < ids.len() {
        let message = c.recv();
        if message.get("id").is_some() {
            results.push(message["result"].clone());
        }
    }
    let (refused, served): (Vec<&Value>, Vec<&Value>) = results.iter().partition(|r| error_of(r).is_some());
    assert_eq!((served.len(), refused.len()), (5, 15), "{results:#?}");
    let mut longest = 0;
    for result in &refused {
        let error = error_of(result).expect("an envelope");
        assert_eq!(error["code"], -32003, "RateLimited: {error}");
        assert_eq!(error["message"], "Rate limit exceeded: at most 5 calls per second.");
        assert_eq!(error["data"]["reason"], "rate_limited");
        assert_eq!(error["data"]["retryable"], true);
        let wait = error["data"]["retryAfterMs"].as_u64().expect("retryAfterMs");
        assert!((1..=200).contains(&wait), "one token every 200 ms: {wait}");
        assert_eq!(error["data"]["recovery"]["hint"], format!("Wait {wait} ms, then retry the call."));
        let text = result["content"][0]["text"].as_str().expect("text");
        assert!(text.contains("(reason rate_limited · retryable · request "), "{text}");
        longest = longest.max(wait);
    }
    // After the longest wait, a token is there again.
    std::thread::sleep(Duration::from_millis(longest + 20));
    let again = c.call("echo", json!({"text": "again"}));
    assert!(error_of(&again).is_none(), "served once the bucket refilled: {again}");

    c.close_stdin();
    assert_eq!(c.wait_exit(Duration::from_secs(10)), Some(0));
    // One audit record per call, as a JSON line on stderr.
    let records: Vec<Value> = c
        .stderr()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r.get("method").is_some())
        .collect();
    assert_eq!(records.len(), 21, "{records:#?}");
    let limited: Vec<&Value> = records.iter().filter(|r| r["reason"] == "rate_limited").collect();
    assert_eq!(limited.len(), 15);
    for record in &limited {
        assert_eq!(record["method"], "tools/call");
        assert_eq!(record["name"], "echo");
        assert_eq!(record["who"], "connection 1");
        assert_eq!(record["transport"], "stdio");
        assert_eq!(record["era"], "2025");
        assert_eq!(record["outcome"], "tool_error");
        assert_eq!(record["code"], -32003);
        assert!(record["requestId"].as_str().is_some_and(mcp_tests::client::is_request_id), "{record}");
        assert!(record["durationMs"].as_f64().is_some(), "{record}");
        assert!(record.get("arguments").is_none(), "arguments stay out unless asked for: {record}");
    }
    assert_eq!(records.iter().filter(|r| r["outcome"] == "success").count(), 6);
}

/// A stateless HTTP call of `echo` by `subject` (through the fixture's test header).
fn echo_as(port: u16, subject: &str, id: i64) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "x"}}});
    mcp_tests::http::post_legacy(port, &body, &[("X-Test-Subject", subject)]).answer()["result"].clone()
}

#[test]
fn two_principals_are_limited_separately() {
    let c = Client::spawn_http(
        FIXTURE,
        &[("FIXTURE_RATE_LIMIT", "5/min"), ("FIXTURE_PRINCIPAL_HEADER", "1")],
        &["--stateless"],
    );
    let port = c.http_port().expect("a port");
    let alice: Vec<Value> = (0..6).map(|i| echo_as(port, "alice", i)).collect();
    assert!(alice[..5].iter().all(|r| error_of(r).is_none()), "{alice:#?}");
    let refused = error_of(&alice[5]).expect("alice's sixth call is refused");
    assert_eq!(refused["data"]["reason"], "rate_limited");
    assert!(refused["data"]["retryAfterMs"].as_u64().is_some_and(|ms| ms > 1000), "{refused}");
    // Bob has a bucket of his own.
    let bob: Vec<Value> = (0..5).map(|i| echo_as(port, "bob", 100 + i)).collect();
    assert!(bob.iter().all(|r| error_of(r).is_none()), "{bob:#?}");
    assert!(error_of(&echo_as(port, "bob", 200)).is_some(), "until he too has made five calls");
}

/// Opens a 2025 session on `port` (`initialize`): the response, and the session's id when one
/// was minted.
fn open_session(port: u16) -> (u16, Value, Option<String>) {
    let headers = [("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")];
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "minter", "version": "1"}}});
    let opened =
        mcp_tests::http::request(port, "POST", "/mcp", &headers, init.to_string().as_bytes()).expect("answered");
    let session = opened.header("mcp-session-id").map(str::to_owned);
    (opened.status, opened.answer(), session)
}

/// The refusal of an `initialize` past the budget, whole: the JSON-RPC error a rate-limited
/// `resources/read` gets, with `code`. Its wait and request id are the answer's own.
fn assert_refused_opening(answer: &Value, code: i64, shown: &str) {
    let data = &answer["error"]["data"];
    let wait = data["retryAfterMs"].as_u64().expect("retryAfterMs");
    let request_id = data["requestId"].as_str().expect("a request id");
    assert!(mcp_tests::client::is_request_id(request_id), "{answer}");
    assert_eq!(
        *answer,
        json!({"jsonrpc": "2.0", "id": 0, "error": {
        "code": code,
        "message": format!("Rate limit exceeded: at most {shown}."),
        "data": {
            "retryAfterMs": wait,
            "reason": "rate_limited",
            "retryable": true,
            "recovery": {"hint": format!("Wait {wait} ms, then retry the call.")},
            "requestId": request_id,
        }}}),
    );
}

/// Issue 46 row 6: one address opening a new 2025 session for every call. The sessions
/// count against the address's budget as its calls do: of 1,500 calls, each over a session
/// of its own, the sessions opened and the calls served together stay within the budget
/// (5 a minute, plus what refills while the test runs); past it, `initialize` is refused as a
/// rate-limited call is, and no session is minted.
#[test]
fn new_sessions_from_one_address_spend_its_budget() {
    let c = Client::spawn_http(FIXTURE, &[("FIXTURE_RATE_LIMIT", "5/min")], &[]);
    let port = c.http_port().expect("a port");
    let started = std::time::Instant::now();
    let (mut opened, mut passed, mut refused) = (0_u32, 0_u32, 0_u32);
    for n in 0..1_500 {
        let (status, answer, session) = open_session(port);
        assert_eq!(status, 200, "{answer}");
        let Some(session) = session else {
            assert_refused_opening(&answer, -32003, "5 calls per minute");
            refused += 1;
            continue;
        };
        assert!(answer["result"]["protocolVersion"].is_string(), "{answer}");
        opened += 1;
        let headers = [("Mcp-Session-Id", session.as_str())];
        let call = json!({"jsonrpc": "2.0", "id": n + 1, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "x"}}});
        let answer = mcp_tests::http::post_legacy(port, &call, &headers).answer();
        match error_of(&answer["result"]) {
            None => passed += 1,
            Some(error) => assert_eq!(error["data"]["reason"], "rate_limited", "{answer}"),
        }
    }
    let elapsed = started.elapsed();
    // 5 at once, then one every 12 s.
    let budget = 5 + u32::try_from(elapsed.as_secs() / 12).unwrap_or(u32::MAX);
    eprintln!(
        "1,500 calls over new sessions in {:.2} s: {opened} sessions opened, {passed} calls passed, {refused} initializes refused (budget {budget})",
        elapsed.as_secs_f64()
    );
    assert!(opened + passed <= budget, "{opened} sessions and {passed} calls passed a budget of {budget}");
    assert!(passed >= 1, "the budget lets a session and its call through");
    assert_eq!(opened + refused, 1_500);
}

/// Two replicas sharing one Redis count the sessions an address opens on either against its
/// one budget (`before_shared`): with `5/min`, sessions opened in turn on both, each with one
/// call, pass the budget once, not once per replica.
#[test]
fn sessions_opened_on_two_replicas_spend_one_shared_budget() {
    // A Redis of this test's own: the address's budget starts full.
    let redis = mcp_tests::redis::Redis::start();
    let url = redis.url();
    let env = [("FIXTURE_STATE_STORE", url.as_str()), ("FIXTURE_RATE_LIMIT", "5/min")];
    let (a, b) = (Client::spawn_http(FIXTURE, &env, &[]), Client::spawn_http(FIXTURE, &env, &[]));
    let ports = [a.http_port().expect("a port"), b.http_port().expect("a port")];
    let (mut opened, mut passed) = (0_u32, 0_u32);
    for n in 0..40 {
        let port = ports[n % 2];
        let (status, answer, session) = open_session(port);
        assert_eq!(status, 200, "{answer}");
        let Some(session) = session else {
            assert_refused_opening(&answer, -32003, "5 calls per minute");
            continue;
        };
        opened += 1;
        let call = json!({"jsonrpc": "2.0", "id": n + 1, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "x"}}});
        let answer = mcp_tests::http::post_legacy(port, &call, &[("Mcp-Session-Id", session.as_str())]).answer();
        if error_of(&answer["result"]).is_none() {
            passed += 1;
        }
    }
    eprintln!("two replicas, 40 sessions tried: {opened} opened, {passed} calls passed");
    assert!(
        opened + passed <= 6,
        "{opened} sessions and {passed} calls passed over two replicas: the budget is 5 (and one refilled)"
    );
    assert!(opened >= 2, "{opened} sessions: the budget lets some through");
}

/// Under the draft switch, a refused `initialize` has `-32023`, as a rate-limited read does.
#[test]
fn a_refused_initialize_is_32023_under_the_draft_switch() {
    let c = Client::spawn_http(FIXTURE, &[("FIXTURE_RATE_LIMIT", "1/min"), ("FIXTURE_RATE_LIMITED_CODE", "1")], &[]);
    let port = c.http_port().expect("a port");
    let (status, first, session) = open_session(port);
    assert_eq!(status, 200, "{first}");
    assert!(session.is_some(), "the budget's one session: {first}");
    let (status, second, session) = open_session(port);
    assert_eq!((status, session), (200, None), "{second}");
    assert_refused_opening(&second, -32023, "1 call per minute");
}

/// A rate-limit refusal that is a protocol error (a `resources/read`): `-32003` by default,
/// `-32023` with `data.retryAfterMs` under the draft SEP-3304's switch.
#[test]
fn a_rate_limited_read_is_32023_with_retry_after_under_the_draft_switch() {
    for (switch, code) in [("1", -32023), ("0", -32003)] {
        let mut c = Client::spawn(FIXTURE, &[("FIXTURE_RATE_LIMIT", "1/min"), ("FIXTURE_RATE_LIMITED_CODE", switch)]);
        c.initialize();
        let first = c.roundtrip("resources/read", json!({"uri": "secret://alpha"}));
        assert!(first.get("result").is_some(), "the budget's one read: {first}");
        let second = c.roundtrip("resources/read", json!({"uri": "secret://alpha"}));
        let error = &second["error"];
        assert_eq!(error["code"], code, "FIXTURE_RATE_LIMITED_CODE={switch}: {second}");
        assert_eq!(error["data"]["reason"], "rate_limited", "{second}");
        let wait = error["data"]["retryAfterMs"].as_u64().expect("retryAfterMs");
        assert!((1..=60_000).contains(&wait), "one read a minute: {wait}");
    }
}

/// `Audit::json_lines(std::io::stderr())`, the documented example, to a stderr nobody reads:
/// the records go through a bounded queue, as the logs do, and every call is answered.
#[test]
fn audit_to_a_stderr_nobody_reads_holds_up_no_call() {
    let pipes = Pipes { stderr_unread: true, stdin_thread: true, ..Pipes::default() };
    let mut c = Client::spawn_with(FIXTURE, &[("FIXTURE_AUDIT", "stderr")], pipes);
    c.initialize();
    // A record is a line of JSON: the 64 KiB pipe is full within a few hundred calls.
    let calls: Vec<i64> =
        (0..2001).map(|_| c.request("tools/call", json!({"name": "echo", "arguments": {"text": "x"}}))).collect();
    let ping = c.request("ping", json!({}));
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let mut answered = std::collections::HashMap::new();
    while answered.len() < calls.len() + 1 {
        let Some(message) = c.recv_within(deadline.saturating_duration_since(std::time::Instant::now())) else {
            panic!("{} of 2,001 calls and the ping answered within 30 s, stderr unread", answered.len());
        };
        if let Some(id) = message.get("id").and_then(Value::as_i64) {
            answered.insert(id, message);
        }
    }
    for id in calls {
        assert_eq!(answered[&id]["result"], json!({"content": [{"type": "text", "text": "x"}]}), "call {id}");
    }
    assert_eq!(answered[&ping]["result"], json!({}));
}

/// `_meta` of a 2026-07-28 request, with or without the tasks extension.
fn modern_meta(with_tasks: bool) -> Value {
    let mut caps = json!({});
    if with_tasks {
        caps["extensions"] = json!({"io.modelcontextprotocol/tasks": {}});
    }
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": caps})
}

/// The answer to one request (notifications before it skipped).
fn answer_to(c: &mut Client, method: &str, params: Value) -> Value {
    let id = c.request(method, params);
    loop {
        let message = c.recv();
        if message["id"] == json!(id) {
            return message;
        }
    }
}

/// The request id an envelope's text ends with (`… · request <id>)`).
fn envelope_request_id(result: &Value) -> String {
    let text = result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("an envelope: {result}"));
    text.rsplit("request ").next().unwrap_or_default().trim_end_matches(')').to_owned()
}

/// A call that goes on as a task is audited once, when the task ends, with the task's
/// outcome: a declared failure or a panic is the `tool_error` a synchronous call records (not
/// the `success` of its `CreateTaskResult`), timed to the task's end; a cancelled task is
/// `cancelled`.
#[test]
fn a_call_that_goes_on_as_a_task_is_audited_once_with_how_the_task_ended() {
    let mut c = Client::spawn_with(FIXTURE, &[("FIXTURE_AUDIT", "stderr")], Pipes::default());
    // Requests written as they are: each carries its own `_meta`.
    c.set_era(mcp_tests::client::ClientEra::Legacy);
    let call = |c: &mut Client, arguments: Value, with_tasks: bool| {
        answer_to(
            c,
            "tools/call",
            json!({"name": "slow_job", "arguments": arguments, "_meta": modern_meta(with_tasks)}),
        )
    };
    let task_end = |c: &mut Client, created: &Value| -> Value {
        assert_eq!(created["result"]["resultType"], "task", "{created}");
        let id = created["result"]["taskId"].as_str().expect("a task id").to_owned();
        let started = std::time::Instant::now();
        loop {
            let task = answer_to(c, "tasks/get", json!({"taskId": id, "_meta": modern_meta(true)}))["result"].clone();
            if ["completed", "failed", "cancelled"].contains(&task["status"].as_str().unwrap_or_default()) {
                return task;
            }
            assert!(started.elapsed() < Duration::from_secs(10), "{task}");
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    // By request id: a task's declared failure and panic, and the same calls synchronous.
    let mut failures = Vec::new();
    for outcome in ["declared", "panic"] {
        let created = call(&mut c, json!({"ms": 50, "outcome": outcome}), true);
        let task = task_end(&mut c, &created);
        let inline = call(&mut c, json!({"ms": 50, "outcome": outcome}), false);
        failures.push((envelope_request_id(&task["result"]), envelope_request_id(&inline["result"])));
    }
    let ok = call(&mut c, json!({"ms": 50}), true);
    assert_eq!(task_end(&mut c, &ok)["status"], "completed");
    let long = call(&mut c, json!({"ms": 60_000}), true);
    let id = long["result"]["taskId"].clone();
    let cancelled = answer_to(&mut c, "tasks/cancel", json!({"taskId": id, "_meta": modern_meta(true)}));
    assert!(cancelled.get("result").is_some(), "{cancelled}");
    assert_eq!(task_end(&mut c, &long)["status"], "cancelled");

    c.close_stdin();
    assert_eq!(c.wait_exit(Duration::from_secs(10)), Some(0));
    let mut records: Vec<Value> = c
        .stderr()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r.get("method").is_some())
        .collect();
    // One record per call: four tasks, two synchronous calls (tasks/* are not hooked).
    assert_eq!(records.len(), 6, "{records:#?}");
    let mut durations = std::collections::HashMap::new();
    for record in &mut records {
        let fields = record.as_object_mut().expect("an object");
        assert!(fields.remove("atMs").is_some_and(|at| at.as_u64().is_some()), "{fields:?}");
        let duration = fields.remove("durationMs").and_then(|d| d.as_f64()).expect("durationMs");
        durations.insert(fields.get("requestId").cloned().unwrap_or_else(|| json!(fields["outcome"])), duration);
    }
    let by = |key: Value| records.iter().find(|r| r.get("requestId").unwrap_or(&r["outcome"]) == &key).cloned();
    let expected = |outcome: &str, code: i64, reason: &str, request_id: &str| {
        json!({"who": "connection 1", "method": "tools/call", "name": "slow_job", "era": "2026-07-28",
               "transport": "stdio", "outcome": outcome, "code": code, "reason": reason, "requestId": request_id})
    };
    for ((task, inline), (code, reason)) in failures.iter().zip([(-32000, "job_failed"), (-32603, "internal_error")]) {
        assert_eq!(by(json!(task)), Some(expected("tool_error", code, reason, task)), "the task's record");
        assert_eq!(by(json!(inline)), Some(expected("tool_error", code, reason, inline)), "the synchronous call's");
        // Timed from the request to the task's end, which ran 50 ms.
        assert!(durations[&json!(task)] >= 50.0, "{durations:?}");
    }
    let plain = |outcome: &str| {
        json!({"who": "connection 1", "method": "tools/call", "name": "slow_job", "era": "2026-07-28",
               "transport": "stdio", "outcome": outcome})
    };
    assert_eq!(by(json!("success")), Some(plain("success")), "{records:#?}");
    assert!(durations[&json!("success")] >= 50.0, "{durations:?}");
    assert_eq!(by(json!("cancelled")), Some(plain("cancelled")), "{records:#?}");
}
