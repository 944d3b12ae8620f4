//! Spans and metrics by the OpenTelemetry conventions for MCP, as an OTLP receiver started
//! here gets them from `fixture-server` (built with `otel`, configured by the standard
//! `OTEL_*` variables): over stdio and HTTP, in both eras, with protobuf and JSON bodies.
//! What a span must carry is compared whole: the exact set of attributes.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use mcp_tests::client::{Client, ClientEra};
use mcp_tests::otlp::{Attr, Receiver, Span, Stalled};
use serde_json::{Value, json};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture-server");
/// The conventions' buckets of `mcp.server.*.duration`.
const BUCKETS: [f64; 14] = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0];
const INTERNAL: i32 = 1;
const SERVER: i32 = 2;
const STATUS_ERROR: i32 = 2;

/// The environment that points the fixture at `receiver`, with `protocol`; spans are batched
/// for a long time unless `eager`, so that only the flush at the end sends them.
fn otel_env(receiver: &Receiver, protocol: &str, eager: bool) -> Vec<(&'static str, String)> {
    vec![
        ("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint()),
        ("OTEL_EXPORTER_OTLP_PROTOCOL", protocol.to_owned()),
        ("OTEL_BSP_SCHEDULE_DELAY", if eager { "50" } else { "600000" }.to_owned()),
        ("OTEL_METRIC_EXPORT_INTERVAL", if eager { "200" } else { "600000" }.to_owned()),
        ("OTEL_SERVICE_NAME", "fixture-under-test".to_owned()),
    ]
}

fn spawn(receiver: &Receiver, protocol: &str, eager: bool, extra: &[(&str, &str)]) -> Client {
    let env = otel_env(receiver, protocol, eager);
    let mut all: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    all.extend_from_slice(extra);
    Client::spawn_with(FIXTURE, &all, mcp_tests::client::Pipes::default())
}

fn spawn_http(receiver: &Receiver, args: &[&str], extra: &[(&str, &str)]) -> Client {
    let env = otel_env(receiver, "http/protobuf", true);
    let mut all: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    all.extend_from_slice(extra);
    Client::spawn_http(FIXTURE, &all, args)
}

/// Closes the server's input (or stops it, over HTTP) and waits for it to exit.
fn stop(client: &mut Client) {
    client.close_stdin();
    assert_eq!(
        client.wait_exit(Duration::from_secs(20)),
        Some(0),
        "the server exits cleanly; stderr:\n{}",
        client.stderr()
    );
}

fn strs(pairs: &[(&str, &str)]) -> BTreeMap<String, Attr> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), Attr::Str((*v).to_owned()))).collect()
}

/// The one span named `name` whose `jsonrpc.request.id` is `id`.
fn the_span<'s>(spans: &'s [Span], name: &str, id: i64) -> &'s Span {
    let id = id.to_string();
    let found: Vec<&Span> = spans
        .iter()
        .filter(|s| {
            s.name == name && s.attributes.get("jsonrpc.request.id").and_then(Attr::as_str) == Some(id.as_str())
        })
        .collect();
    assert_eq!(found.len(), 1, "exactly one span {name:?} for request {id}; got {spans:#?}");
    found[0]
}

fn has_request(spans: &[Span], id: i64) -> bool {
    let id = id.to_string();
    spans.iter().any(|s| s.attributes.get("jsonrpc.request.id").and_then(Attr::as_str) == Some(id.as_str()))
}

#[test]
fn a_tool_call_over_stdio_is_one_span_with_the_conventions_attributes_in_both_eras() {
    for (era, protocol, version) in
        [(ClientEra::Legacy, "http/protobuf", "2025-11-25"), (ClientEra::Modern, "http/json", "2026-07-28")]
    {
        let receiver = Receiver::start();
        let mut c = spawn(&receiver, protocol, false, &[]);
        c.set_era(era);
        c.initialize();
        let id = c.request("tools/call", json!({"name": "add", "arguments": {"a": 2, "b": 3}}));
        let answer = c.recv();
        assert_eq!(answer["result"]["structuredContent"], json!({"sum": 5}), "{answer}");
        stop(&mut c);
        // Spans are batched for ten minutes here: what arrived was flushed at EOF.
        let spans = receiver.spans();
        let span = the_span(&spans, "tools/call add", id);
        assert_eq!(span.kind, SERVER);
        assert_eq!(
            span.attributes,
            strs(&[
                ("mcp.method.name", "tools/call"),
                ("gen_ai.tool.name", "add"),
                ("gen_ai.operation.name", "execute_tool"),
                ("jsonrpc.request.id", &id.to_string()),
                ("mcp.protocol.version", version),
                ("network.transport", "pipe"),
            ]),
            "{era:?}"
        );
        assert_eq!(span.status.0, 0, "a success leaves the status unset: {span:?}");
        assert!(span.parent_span_id.is_empty(), "no trace context sent: a root span");
        assert_eq!(span.service.as_deref(), Some("fixture-under-test"), "OTEL_SERVICE_NAME names the service");
        let content_type = if protocol == "http/json" { "application/json" } else { "application/x-protobuf" };
        let requests = receiver.requests();
        assert!(!requests.is_empty() && requests.iter().all(|(_, t)| t == content_type), "{requests:?}");
        assert!(receiver.undecodable().is_empty(), "{:?}", receiver.undecodable());
    }
}

#[test]
fn a_tool_call_over_http_is_one_span_with_the_conventions_attributes_in_both_eras() {
    for era in [ClientEra::Legacy, ClientEra::Modern] {
        let receiver = Receiver::start();
        let mut c = spawn_http(&receiver, &[], &[]);
        c.set_era(era);
        c.initialize();
        let id = c.request("tools/call", json!({"name": "add", "arguments": {"a": 2, "b": 3}}));
        let answer = c.recv();
        assert_eq!(answer["result"]["structuredContent"], json!({"sum": 5}), "{answer}");
        let spans = receiver.wait_spans(Duration::from_secs(20), |s| has_request(s, id));
        let span = the_span(&spans, "tools/call add", id);
        let mut expected = vec![
            ("mcp.method.name", "tools/call".to_owned()),
            ("gen_ai.tool.name", "add".to_owned()),
            ("gen_ai.operation.name", "execute_tool".to_owned()),
            ("jsonrpc.request.id", id.to_string()),
            ("network.transport", "tcp".to_owned()),
            ("network.protocol.name", "http".to_owned()),
            ("network.protocol.version", "1.1".to_owned()),
        ];
        match era {
            ClientEra::Legacy => {
                expected.push(("mcp.protocol.version", "2025-11-25".to_owned()));
                expected.push(("mcp.session.id", c.http_session().expect("a session was minted")));
            }
            ClientEra::Modern => expected.push(("mcp.protocol.version", "2026-07-28".to_owned())),
        }
        let expected: Vec<(&str, &str)> = expected.iter().map(|(k, v)| (*k, v.as_str())).collect();
        assert_eq!(span.attributes, strs(&expected), "{era:?}");
        assert_eq!(span.kind, SERVER);
        stop(&mut c);
    }
}

#[test]
fn a_declared_failure_is_a_tool_error_with_its_reason() {
    let receiver = Receiver::start();
    let mut c = spawn(&receiver, "http/protobuf", false, &[]);
    c.initialize();
    // `fetch_items` declares an `outputSchema`: its error result carries the envelope as text
    // only, and the span still has the reason.
    let id = c.request("tools/call", json!({"name": "fetch_items", "arguments": {"ids": ["a"], "mode": "queue"}}));
    let answer = c.recv();
    let text = answer["result"]["content"][0]["text"].as_str().expect("the envelope's text");
    let request_id = text.strip_suffix(')').and_then(|t| t.rsplit_once("request ")).expect("a request id").1.to_owned();
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert!(answer["result"].get("structuredContent").is_none(), "{answer}");
    stop(&mut c);
    let spans = receiver.spans();
    let span = the_span(&spans, "tools/call fetch_items", id);
    assert_eq!(span.status, (STATUS_ERROR, "The work queue is full.".to_owned()));
    let mut expected = strs(&[
        ("mcp.method.name", "tools/call"),
        ("gen_ai.tool.name", "fetch_items"),
        ("gen_ai.operation.name", "execute_tool"),
        ("jsonrpc.request.id", &id.to_string()),
        ("mcp.protocol.version", "2025-11-25"),
        ("network.transport", "pipe"),
        ("error.type", "tool_error"),
        ("mcp_runtime.error.reason", "queue_full"),
        ("mcp_runtime.request.id", &request_id),
    ]);
    expected.insert("mcp_runtime.error.retryable".into(), Attr::Bool(true));
    assert_eq!(span.attributes, expected);
}

#[test]
fn an_unknown_method_is_error_type_minus_32601() {
    let receiver = Receiver::start();
    let mut c = spawn(&receiver, "http/json", false, &[]);
    c.initialize();
    let id = c.request("tools/frobnicate", json!({}));
    assert_eq!(c.recv()["error"]["code"], -32601);
    stop(&mut c);
    let spans = receiver.spans();
    let span = the_span(&spans, "tools/frobnicate", id);
    assert_eq!(span.status, (STATUS_ERROR, "Method not found: tools/frobnicate".to_owned()));
    assert_eq!(
        span.attributes,
        strs(&[
            ("mcp.method.name", "tools/frobnicate"),
            ("jsonrpc.request.id", &id.to_string()),
            ("mcp.protocol.version", "2025-11-25"),
            ("network.transport", "pipe"),
            ("error.type", "-32601"),
            ("rpc.response.status_code", "-32601"),
        ])
    );
}

#[test]
fn a_task_is_a_span_of_its_own_linked_to_the_call_that_made_it() {
    let receiver = Receiver::start();
    let mut c = spawn(&receiver, "http/json", false, &[]);
    // A 2026-07-28 request that declares the tasks extension: `slow_job` goes on as a task.
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}});
    let id = c.request(
        "tools/call",
        json!({"name": "slow_job", "arguments": {"ms": 50, "outcome": "declared"}, "_meta": meta.clone()}),
    );
    let created = c.recv();
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let task = created["result"]["taskId"].as_str().expect("a task id").to_owned();
    let started = std::time::Instant::now();
    let done = loop {
        let answer = c.roundtrip("tasks/get", json!({"taskId": task, "_meta": meta.clone()}));
        if answer["result"]["status"] == "completed" {
            break answer;
        }
        assert!(started.elapsed() < Duration::from_secs(20), "{answer}");
        std::thread::sleep(Duration::from_millis(20));
    };
    let text = done["result"]["result"]["content"][0]["text"].as_str().expect("the envelope's text");
    let request_id = text.strip_suffix(')').and_then(|t| t.rsplit_once("request ")).expect("a request id").1.to_owned();
    stop(&mut c);
    let spans = receiver.spans();
    let call = the_span(&spans, "tools/call slow_job", id);
    let work: Vec<&Span> = spans.iter().filter(|s| s.name == "execute_tool slow_job").collect();
    assert_eq!(work.len(), 1, "one span for the task's work: {spans:#?}");
    let work = work[0];
    assert_eq!(work.kind, INTERNAL);
    assert!(work.parent_span_id.is_empty(), "a root of its own: {work:?}");
    assert_eq!(work.links, [(call.trace_id.clone(), call.span_id.clone())], "linked to the call that made it");
    assert_eq!(work.status, (STATUS_ERROR, "The job's worker failed before it finished.".to_owned()));
    let mut expected = strs(&[
        ("gen_ai.operation.name", "execute_tool"),
        ("gen_ai.tool.name", "slow_job"),
        ("mcp_runtime.task.id", &task),
        ("mcp_runtime.task.status", "completed"),
        ("error.type", "tool_error"),
        ("mcp_runtime.error.reason", "job_failed"),
        ("mcp_runtime.request.id", &request_id),
    ]);
    expected.insert("mcp_runtime.error.retryable".into(), Attr::Bool(true));
    assert_eq!(work.attributes, expected);
    // The handler's own span, made once the call had gone on as a task, is the task's child.
    let own = spans.iter().find(|s| s.name == "slow_job.wrap_up").unwrap_or_else(|| panic!("{spans:#?}"));
    assert_eq!((own.trace_id.as_str(), own.parent_span_id.as_str()), (work.trace_id.as_str(), work.span_id.as_str()));
}

const TRACE: &str = "0af7651916cd43dd8448eb211c80319c";
const PARENT: &str = "b7ad6b7169203331";

#[test]
fn the_meta_traceparent_is_the_parent_in_both_eras() {
    for era in [ClientEra::Legacy, ClientEra::Modern] {
        let receiver = Receiver::start();
        let mut c = spawn(&receiver, "http/protobuf", false, &[]);
        c.set_era(era);
        c.initialize();
        let traceparent = format!("00-{TRACE}-{PARENT}-01");
        let id = c.request(
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1, "b": 1}, "_meta": {"traceparent": traceparent, "tracestate": "vendor=x"}}),
        );
        assert!(c.recv().get("result").is_some());
        stop(&mut c);
        let spans = receiver.spans();
        let span = the_span(&spans, "tools/call add", id);
        assert_eq!((span.trace_id.as_str(), span.parent_span_id.as_str()), (TRACE, PARENT), "{era:?}");
    }
}

#[test]
fn over_http_the_traceparent_header_is_linked_and_the_meta_one_is_the_parent() {
    let receiver = Receiver::start();
    let c = spawn_http(&receiver, &["--stateless"], &[]);
    let port = c.http_port().expect("a port");
    let header_trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    let header_parent = "00f067aa0ba902b7";
    let call = |id: i64, meta: Value| {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": meta}});
        let traceparent = format!("00-{header_trace}-{header_parent}-01");
        let response = mcp_tests::http::post_legacy(port, &body, &[("traceparent", &traceparent)]);
        assert_eq!(response.status, 200);
        assert!(response.text().contains("\"sum\":3"));
    };
    // Both: the `_meta` context is the parent, the header's a link.
    call(1, json!({"traceparent": format!("00-{TRACE}-{PARENT}-01")}));
    // The header alone: its context is the parent.
    call(2, json!({}));
    let spans = receiver.wait_spans(Duration::from_secs(20), |s| has_request(s, 1) && has_request(s, 2));
    let both = the_span(&spans, "tools/call add", 1);
    assert_eq!((both.trace_id.as_str(), both.parent_span_id.as_str()), (TRACE, PARENT));
    assert_eq!(both.links, [(header_trace.to_owned(), header_parent.to_owned())]);
    let header_only = the_span(&spans, "tools/call add", 2);
    assert_eq!((header_only.trace_id.as_str(), header_only.parent_span_id.as_str()), (header_trace, header_parent));
    assert!(header_only.links.is_empty());
}

#[test]
fn the_duration_histograms_arrive_with_the_conventions_buckets() {
    let receiver = Receiver::start();
    let mut c = spawn(&receiver, "http/json", false, &[]);
    c.initialize();
    for i in 0..3 {
        let _ = c.call("add", json!({"a": i, "b": 1}));
    }
    let _ = c.call("fetch_items", json!({"ids": ["a"], "mode": "queue"}));
    stop(&mut c);
    // Metrics are read every ten minutes here: what arrived was flushed at EOF.
    let histograms = receiver.histograms();
    let operation = |attributes: &[(&str, &str)]| {
        histograms
            .iter()
            .find(|h| h.metric == "mcp.server.operation.duration" && h.attributes == strs(attributes))
            .unwrap_or_else(|| panic!("no point with {attributes:?} in {histograms:#?}"))
    };
    let add = operation(&[
        ("mcp.method.name", "tools/call"),
        ("gen_ai.tool.name", "add"),
        ("gen_ai.operation.name", "execute_tool"),
        ("mcp.protocol.version", "2025-11-25"),
        ("network.transport", "pipe"),
    ]);
    assert_eq!((add.count, add.unit.as_str(), add.bounds.as_slice()), (3, "s", &BUCKETS[..]));
    let failed = operation(&[
        ("mcp.method.name", "tools/call"),
        ("gen_ai.tool.name", "fetch_items"),
        ("gen_ai.operation.name", "execute_tool"),
        ("error.type", "tool_error"),
        ("mcp.protocol.version", "2025-11-25"),
        ("network.transport", "pipe"),
    ]);
    assert_eq!(failed.count, 1);
    let session =
        histograms.iter().find(|h| h.metric == "mcp.server.session.duration").expect("the session's duration");
    assert_eq!(
        (session.count, session.bounds.as_slice(), &session.attributes),
        (1, &BUCKETS[..], &strs(&[("network.transport", "pipe"), ("mcp.protocol.version", "2025-11-25")]))
    );
    let calls = receiver.sums();
    let by_reason = calls
        .iter()
        .find(|s| {
            s.metric == "mcp_runtime.server.calls"
                && s.attributes.get("mcp_runtime.error.reason") == Some(&Attr::Str("queue_full".into()))
        })
        .expect("calls by declared reason");
    assert_eq!(by_reason.value, 1);
    let active = calls.iter().find(|s| s.metric == "mcp_runtime.server.active_calls").expect("active calls");
    assert_eq!(active.value, 0, "every call ended");
}

#[test]
fn at_eof_every_span_is_flushed() {
    let receiver = Receiver::start();
    let mut c = spawn(&receiver, "http/protobuf", false, &[]);
    c.initialize();
    let ids: Vec<i64> =
        (0..50).map(|i| c.request("tools/call", json!({"name": "add", "arguments": {"a": i, "b": 0}}))).collect();
    // EOF right behind the calls: they finish within the grace, and their spans go out
    // before the process ends (the batch delay is ten minutes).
    stop(&mut c);
    let spans = receiver.spans();
    for id in ids {
        the_span(&spans, "tools/call add", id);
    }
}

#[test]
fn without_an_endpoint_nothing_is_sent() {
    let receiver = Receiver::start();
    let mut c = Client::spawn_with(
        FIXTURE,
        &[("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"), ("OTEL_BSP_SCHEDULE_DELAY", "10")],
        mcp_tests::client::Pipes::default(),
    );
    c.initialize();
    let _ = c.call("add", json!({"a": 1, "b": 1}));
    stop(&mut c);
    assert!(receiver.requests().is_empty());
    assert!(!c.stderr().contains("OpenTelemetry"), "{}", c.stderr());
}

/// A private CA, another one, and a certificate for `localhost` that the first signs, made
/// with `openssl` into a fresh directory: `ca.pem`, `other-ca.pem`, `server.pem`, `server.key`.
fn pki(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcp-otel-tls-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let run = |args: &[&str]| {
        let out = std::process::Command::new("openssl")
            .args(args)
            .current_dir(&dir)
            .output()
            .expect("openssl runs (apt-get install openssl)");
        assert!(out.status.success(), "openssl {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
    for ca in ["ca", "other-ca"] {
        let (key, pem, subject) = (format!("{ca}.key"), format!("{ca}.pem"), format!("/CN=mcp-runtime test {ca}"));
        let mut args = vec!["req", "-x509"];
        args.extend(ec);
        args.extend(["-keyout", &key, "-out", &pem, "-days", "2", "-subj", &subject]);
        args.extend(["-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign"]);
        run(&args);
    }
    let mut args = vec!["req"];
    args.extend(ec);
    args.extend(["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost"]);
    run(&args);
    std::fs::write(
        dir.join("server.ext"),
        "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n",
    )
    .expect("write");
    run(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.pem",
        "-days",
        "2",
        "-extfile",
        "server.ext",
    ]);
    dir
}

fn path(dir: &std::path::Path, file: &str) -> String {
    dir.join(file).to_str().expect("a UTF-8 path").to_owned()
}

#[test]
fn over_https_spans_and_metrics_arrive_with_the_given_ca() {
    let dir = pki("given");
    let receiver = Receiver::start_tls(&dir.join("server.pem"), &dir.join("server.key"));
    let ca = path(&dir, "ca.pem");
    let mut c = spawn(&receiver, "http/protobuf", false, &[("OTEL_EXPORTER_OTLP_CERTIFICATE", &ca)]);
    c.initialize();
    let id = c.request("tools/call", json!({"name": "add", "arguments": {"a": 2, "b": 3}}));
    assert_eq!(c.recv()["result"]["structuredContent"], json!({"sum": 5}));
    stop(&mut c);
    let spans = receiver.spans();
    let span = the_span(&spans, "tools/call add", id);
    assert_eq!(span.kind, SERVER);
    assert!(
        receiver.histograms().iter().any(|h| h.metric == "mcp.server.operation.duration"),
        "{:?}",
        receiver.histograms()
    );
    assert_eq!(receiver.refused_handshakes(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn over_https_a_signal_s_own_certificate_wins_and_an_unknown_ca_is_refused() {
    let dir = pki("per-signal");
    let receiver = Receiver::start_tls(&dir.join("server.pem"), &dir.join("server.key"));
    // Spans trust the CA that signed the collector's certificate; metrics another one.
    let (ca, other) = (path(&dir, "ca.pem"), path(&dir, "other-ca.pem"));
    let mut c = spawn(
        &receiver,
        "http/protobuf",
        false,
        &[("OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE", &ca), ("OTEL_EXPORTER_OTLP_CERTIFICATE", &other)],
    );
    c.initialize();
    let id = c.request("tools/call", json!({"name": "add", "arguments": {"a": 2, "b": 3}}));
    assert_eq!(c.recv()["result"]["structuredContent"], json!({"sum": 5}), "calls are unaffected");
    stop(&mut c);
    the_span(&receiver.spans(), "tools/call add", id);
    assert!(receiver.histograms().is_empty(), "{:?}", receiver.histograms());
    assert!(receiver.refused_handshakes() > 0, "the metrics' exporter did not trust the collector");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn over_https_a_private_ca_is_not_trusted_by_default_and_calls_go_on() {
    let dir = pki("default-roots");
    let receiver = Receiver::start_tls(&dir.join("server.pem"), &dir.join("server.key"));
    for certificate in [None, Some(path(&dir, "other-ca.pem"))] {
        let extra: Vec<(&str, &str)> =
            certificate.iter().map(|ca| ("OTEL_EXPORTER_OTLP_CERTIFICATE", ca.as_str())).collect();
        let mut c = spawn(&receiver, "http/protobuf", true, &extra);
        c.initialize();
        for i in 0..3 {
            assert_eq!(c.call("add", json!({"a": i, "b": 1}))["structuredContent"], json!({"sum": i + 1}));
        }
        stop(&mut c);
        assert!(receiver.spans().is_empty(), "{:?}", receiver.spans());
        assert!(receiver.refused_handshakes() > 0, "the exporter did not trust the collector");
        let stderr = c.stderr();
        let endpoint = format!("{}/v1/traces", receiver.endpoint());
        assert!(
            stderr.contains(&format!(
                "an OTLP export failed endpoint={endpoint} error=invalid peer certificate: UnknownIssuer"
            )),
            "the failed export is logged with its cause: {stderr}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_long_uri_is_cut_in_the_span() {
    let receiver = Receiver::start();
    let mut c = spawn(&receiver, "http/protobuf", false, &[]);
    c.initialize();
    // Two bytes a character: the cut is at a character boundary, counted in characters.
    let uri = format!("secret://{}", "é".repeat(5000));
    let id = c.request("resources/read", json!({"uri": uri}));
    let answer = c.recv();
    assert_eq!(answer["id"], json!(id), "{answer}");
    stop(&mut c);
    let spans = receiver.spans();
    let span = the_span(&spans, "resources/read", id);
    let cut: String = uri.chars().take(1024).chain(['…']).collect();
    assert_eq!(
        span.attributes,
        strs(&[
            ("mcp.method.name", "resources/read"),
            ("mcp.resource.uri", &cut),
            ("jsonrpc.request.id", &id.to_string()),
            ("mcp.protocol.version", "2025-11-25"),
            ("network.transport", "pipe"),
        ])
    );
}

/// A stdio fixture exporting to `collector` (which takes bodies and never answers) every
/// 50 ms, its metrics only at exit.
fn spawn_stalled(collector: &Stalled) -> Client {
    let env = [
        ("OTEL_EXPORTER_OTLP_ENDPOINT", collector.endpoint()),
        ("OTEL_BSP_SCHEDULE_DELAY", "50".to_owned()),
        ("OTEL_METRIC_EXPORT_INTERVAL", "600000".to_owned()),
    ];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    Client::spawn_with(FIXTURE, &env, mcp_tests::client::Pipes::default())
}

/// Reads with 1 MiB URIs against a collector that takes bodies and never answers: the spans
/// wait for export, cut, and the server's memory stays bounded. `MCP_TEST_LONG_READS` sets
/// how many (default 150; issue 46 measured 3,000).
#[test]
fn against_a_stalled_collector_long_uris_keep_memory_bounded() {
    let reads: usize = std::env::var("MCP_TEST_LONG_READS").ok().and_then(|n| n.parse().ok()).unwrap_or(150);
    let collector = Stalled::start();
    let mut c = spawn_stalled(&collector);
    c.initialize();
    let uri = format!("secret://{}", "u".repeat(1 << 20));
    let mut peak = 0;
    for i in 0..reads {
        let id = c.request("resources/read", json!({"uri": uri}));
        let answer = c.recv_within(Duration::from_secs(30)).expect("an answer");
        assert_eq!(answer["id"], json!(id), "read {i}");
        if i % 20 == 0 {
            peak = peak.max(c.status_kib("VmRSS").expect("VmRSS"));
        }
    }
    peak = peak.max(c.status_kib("VmRSS").expect("VmRSS"));
    let hwm = c.status_kib("VmHWM").expect("VmHWM");
    eprintln!("{reads} reads of 1 MiB URIs, stalled collector: VmRSS peak {peak} KiB, VmHWM {hwm} KiB");
    assert!(collector.received() > 0, "the exporter sent to the stalled collector");
    assert!(peak < 100 * 1024, "VmRSS {peak} KiB after {reads} reads of 1 MiB URIs (bound: 100 MiB)");
}

/// At EOF, the last export waits for a stalled collector no longer than the flush grace
/// (default 2 s): the server exits, a client's shutdown need not kill it.
#[test]
fn at_eof_a_stalled_collector_holds_the_exit_no_longer_than_the_flush_grace() {
    let collector = Stalled::start();
    let mut c = spawn_stalled(&collector);
    c.initialize();
    for i in 0..5 {
        assert_eq!(c.call("add", json!({"a": i, "b": 1}))["structuredContent"], json!({"sum": i + 1}));
    }
    // An export is under way and stalled; the calls after it wait in the queue.
    let started = Instant::now();
    while collector.received() == 0 && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(collector.received() > 0, "the exporter sent to the stalled collector");
    let _ = c.call("add", json!({"a": 1, "b": 1}));
    let eof = Instant::now();
    c.close_stdin();
    assert_eq!(c.wait_exit(Duration::from_secs(30)), Some(0), "{}", c.stderr());
    let took = eof.elapsed();
    assert!(took < Duration::from_millis(3500), "exited {took:?} after EOF (flush grace 2 s); stderr:\n{}", c.stderr());
    assert!(
        c.stderr().contains("the collector did not take the last spans and metrics within the flush grace"),
        "{}",
        c.stderr()
    );
}

#[test]
fn a_repaired_call_names_its_repairs_on_its_span_and_counts_them_on_the_metric() {
    let receiver = Receiver::start();
    let mut c = spawn(&receiver, "http/json", false, &[]);
    c.initialize();
    let id = c.request("tools/call", json!({"name": "add", "arguments": {"a": "5", "b": 3}}));
    let answer = loop {
        let message = c.recv();
        if message.get("id") == Some(&json!(id)) {
            break message;
        }
    };
    assert_eq!(answer["result"]["isError"], Value::Null, "repaired, then served: {answer}");
    stop(&mut c);
    let spans = receiver.spans();
    let span = the_span(&spans, "tools/call add", id);
    assert_eq!(
        span.attributes.get("mcp_runtime.input.repairs").and_then(Attr::as_str),
        Some("number_from_string at a"),
        "{span:#?}"
    );
    let repairs: Vec<_> =
        receiver.sums().into_iter().filter(|s| s.metric == "mcp_runtime.server.input_repairs").collect();
    assert_eq!(repairs.len(), 1, "{repairs:#?}");
    assert_eq!(
        (repairs[0].value, &repairs[0].attributes),
        (1, &strs(&[("gen_ai.tool.name", "add"), ("mcp_runtime.repair.kind", "number_from_string")]))
    );
}
