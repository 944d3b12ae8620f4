//! The protocol spine over real pipes: the handshake, `tools/list`, successful calls,
//! concurrency, every protocol-error row of docs/errors.md#how-failures-are-classified, stdio framing (oversized lines,
//! EOF shutdown, stdout carrying JSON only) and, in-process over `tokio::io::duplex`,
//! `tools/list` paging.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mcp_tests::client::Client;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};

const SERVER: &str = env!("CARGO_BIN_EXE_fixture-server");

fn spawn() -> Client {
    Client::spawn(SERVER, &[])
}

fn server() -> Client {
    let mut c = spawn();
    c.initialize();
    c
}

fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

fn success(id: &Value, result: &Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// Sends a raw line and returns the next message, which must arrive within 10 s.
fn answer_to(c: &mut Client, line: &str) -> Value {
    c.send_raw(line);
    c.recv()
}

fn initialize_result(version: &str) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": {"tools": {"listChanged": true}, "logging": {}, "resources": {"subscribe": true, "listChanged": true}, "prompts": {"listChanged": true}, "completions": {}, "extensions": {"io.modelcontextprotocol/skills": {"directoryRead": true}, "io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}},
        "serverInfo": {"name": "fixture-server", "version": env!("CARGO_PKG_VERSION")},
    })
}

#[test]
fn each_supported_version_is_echoed() {
    for version in ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] {
        let mut c = spawn();
        let resp = c.initialize_with(version);
        assert_eq!(resp, success(&json!(1), &initialize_result(version)), "version {version}");
        // The session works after the handshake.
        assert_eq!(c.roundtrip("ping", json!({})), success(&json!(2), &json!({})), "version {version}");
    }
}

#[test]
fn an_unsupported_version_is_answered_with_the_newest_legacy_one() {
    for version in ["1999-01-01", "2026-07-28", ""] {
        let mut c = spawn();
        let resp = c.initialize_with(version);
        assert_eq!(resp, success(&json!(1), &initialize_result("2025-11-25")), "requested {version:?}");
    }
}

#[test]
fn initialize_without_a_protocol_version_is_invalid_params() {
    let mut c = spawn();
    let resp = c.roundtrip("initialize", json!({"capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}));
    assert_eq!(resp, error(&json!(1), -32602, "Invalid params: initialize needs `protocolVersion` (a string)"));
}

fn echo_descriptor() -> Value {
    json!({
        "name": "echo",
        "description": "Returns the text it is given.",
        "inputSchema": {
            "type": "object",
            "additionalProperties": false,
            "properties": {"text": {"type": "string", "description": "The text to return."}},
            "required": ["text"],
        },
    })
}

fn add_descriptor() -> Value {
    json!({
        "name": "add",
        "description": "Adds two integers.",
        "inputSchema": {
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "a": {"type": "integer", "description": "The first addend."},
                "b": {"type": "integer", "description": "The second addend."},
            },
            "required": ["a", "b"],
        },
        "outputSchema": {
            "type": "object",
            "properties": {"sum": {"type": "integer", "description": "`a + b`."}},
            "required": ["sum"],
            "description": "The sum of two integers.",
            "title": "Sum",
        },
        "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false},
    })
}

fn search_docs_descriptor() -> Value {
    json!({
        "name": "search_docs",
        "description": "Searches the documentation (synthetic hits that name the query).",
        "inputSchema": {
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "query": {"type": "string", "description": "What to look for.", "minLength": 1},
                // `Option<u32>`: not required, no `null` in its type, no `uint32` format.
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "How many hits to return (default 3).",
                    "maximum": 50,
                },
            },
            "required": ["query"],
        },
        "outputSchema": {
            "type": "object",
            "properties": {"hits": {"type": "array", "items": {"type": "string"}, "description": "One line per hit."}},
            "required": ["hits"],
            "description": "Search hits.",
            "title": "SearchResult",
        },
        "annotations": {"readOnlyHint": true},
    })
}

fn sleep_ms_descriptor() -> Value {
    json!({
        "name": "sleep_ms",
        "description": "Sleeps for the given number of milliseconds, then says so.",
        "inputSchema": {
            "type": "object",
            "additionalProperties": false,
            "properties": {"ms": {"type": "integer", "minimum": 0, "description": "How long to sleep."}},
            "required": ["ms"],
        },
    })
}

fn names(tools: &Value) -> Vec<&str> {
    tools.as_array().expect("tools is an array").iter().map(|t| t["name"].as_str().expect("a name")).collect()
}

#[test]
fn tools_list_sends_the_exact_descriptors_in_registration_order() {
    let mut c = server();
    let resp = c.roundtrip("tools/list", json!({}));
    assert_eq!(resp["jsonrpc"], json!("2.0"));
    assert_eq!(resp["id"], json!(2));
    let result = resp["result"].as_object().expect("a result object");
    // One page: no `nextCursor` when no page size is configured.
    assert_eq!(result.keys().collect::<Vec<_>>(), ["tools"]);
    let tools = &result["tools"];
    // The fixture's tools in registration order; the disabled `legacy_report` is not listed,
    // the policy-refused `admin_reset` is. (More tools may follow.)
    let listed = names(tools);
    assert_eq!(
        listed[..9],
        ["echo", "add", "search_docs", "sleep_ms", "fetch_items", "boom", "bad_output", "admin_reset", "file_size"]
    );
    assert!(!listed.contains(&"legacy_report"), "{listed:?}");
    assert_eq!(tools[0], echo_descriptor());
    assert_eq!(tools[1], add_descriptor());
    assert_eq!(tools[2], search_docs_descriptor());
    assert_eq!(tools[3], sleep_ms_descriptor());
    // Without params, and with a null cursor: the same page.
    assert_eq!(c.roundtrip("tools/list", Value::Null)["result"], resp["result"]);
    assert_eq!(c.roundtrip("tools/list", json!({"cursor": null}))["result"], resp["result"]);
}

/// Issue 33 item 11: `tools/list` carries each tool's declared failure modes in its `_meta`,
/// under one namespaced key, in contract-table order; a tool without any has no `_meta`; the
/// listing still conforms to the spec's schema; `list_failures(false)` leaves them out.
#[test]
fn tools_list_carries_each_tools_declared_failures_in_meta() {
    let tools_of = |env: &[(&str, &str)]| {
        let mut c = Client::spawn(SERVER, env);
        c.initialize();
        let resp = c.roundtrip("tools/list", json!({}));
        mcp_tests::spec_schema::check_message(mcp_tests::spec_schema::Version::V2025_11_25, Some("tools/list"), &resp)
            .expect("tools/list conforms to the schema");
        resp["result"]["tools"].as_array().expect("tools").clone()
    };
    let find = |tools: &[Value], name: &str| tools.iter().find(|t| t["name"] == name).expect("listed").clone();
    assert_eq!(mcp_runtime::FAILURES_META_KEY, "io.crates.mcp-runtime/failures");

    let tools = tools_of(&[]);
    let fetch = find(&tools, "fetch_items");
    assert_eq!(
        fetch["_meta"],
        json!({"io.crates.mcp-runtime/failures": [
            {"reason": "no_match", "code": -32001,
             "when": "None of the requested ids exist.",
             "recovery": "Call search_docs to discover valid ids, then retry."},
            {"reason": "queue_full", "code": -32003, "retryable": true,
             "when": "The work queue is full.",
             "recovery": "Wait a few seconds, then call fetch_items again with the same ids."},
            {"reason": "forbidden_id", "code": -32005, "retryable": false,
             "when": "One of the ids is not yours to read.",
             "recovery": "Remove the ids you do not own and call fetch_items again."},
        ]}),
        "{fetch}"
    );
    // No declared failures: no `_meta` at all (not an empty list).
    assert!(find(&tools, "echo").get("_meta").is_none(), "{tools:?}");

    let off = tools_of(&[("FIXTURE_LIST_FAILURES", "off")]);
    assert!(find(&off, "fetch_items").get("_meta").is_none(), "{off:?}");
}

#[test]
fn tools_list_with_a_cursor_and_no_page_size_is_invalid_params() {
    let mut c = server();
    for cursor in ["page-1", "page-0", "anything", ""] {
        let id = c.request("tools/list", json!({"cursor": cursor}));
        assert_eq!(
            c.recv(),
            error(&json!(id), -32602, "Invalid params: unknown cursor; call tools/list without a cursor to start over"),
            "cursor {cursor:?}"
        );
    }
    let id = c.request("tools/list", json!({"cursor": 1}));
    assert_eq!(c.recv(), error(&json!(id), -32602, "Invalid params: `cursor` must be a string"));
}

fn text_result(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}]})
}

fn structured_result(value: &Value) -> Value {
    json!({"content": [{"type": "text", "text": value.to_string()}], "structuredContent": value})
}

#[test]
fn successful_calls() {
    let mut c = server();
    assert_eq!(c.call("echo", json!({"text": "hello, wire"})), text_result("hello, wire"));
    assert_eq!(c.call("echo", json!({"text": "ünïcode\nand a newline"})), text_result("ünïcode\nand a newline"));
    assert_eq!(c.call("add", json!({"a": 2, "b": 3})), structured_result(&json!({"sum": 5})));
    assert_eq!(c.call("add", json!({"a": -40, "b": 2})), structured_result(&json!({"sum": -38})));
    assert_eq!(
        c.call("search_docs", json!({"query": "tokio"})),
        structured_result(&json!({"hits": ["hit 1 for tokio", "hit 2 for tokio", "hit 3 for tokio"]}))
    );
    assert_eq!(
        c.call("search_docs", json!({"query": "serde", "limit": 1})),
        structured_result(&json!({"hits": ["hit 1 for serde"]}))
    );
    assert_eq!(
        c.call("search_docs", json!({"query": "x", "limit": null})),
        structured_result(&json!({"hits": ["hit 1 for x", "hit 2 for x", "hit 3 for x"]}))
    );
    assert_eq!(c.call("sleep_ms", json!({"ms": 20})), text_result("slept 20"));
    // The whole JSON-RPC message of a call.
    let resp = c.roundtrip("tools/call", json!({"name": "echo", "arguments": {"text": "whole"}}));
    assert_eq!(resp, success(&resp["id"], &text_result("whole")));
}

#[test]
fn concurrent_calls_answer_in_completion_order() {
    let mut c = server();
    let started = Instant::now();
    let slow = c.request("tools/call", json!({"name": "sleep_ms", "arguments": {"ms": 300}}));
    let fast = c.request("tools/call", json!({"name": "echo", "arguments": {"text": "first"}}));
    assert_eq!(c.recv(), success(&json!(fast), &text_result("first")));
    assert_eq!(c.recv(), success(&json!(slow), &text_result("slept 300")));
    // The slow call really slept; the fast one did not wait for it.
    assert!(started.elapsed() >= Duration::from_millis(300));
}

#[test]
fn many_concurrent_calls_run_at_once() {
    let mut c = server();
    // Eight calls that each run until cancelled: all eight print that they wait, which only
    // calls running at the same time can do. (How long eight 500 ms sleeps take together:
    // `cargo bench -p mcp-tests --bench timings`.)
    let ids: Vec<i64> =
        (0..8).map(|_| c.request("tools/call", json!({"name": "wait_cancel", "arguments": {}}))).collect();
    assert!(c.wait_for_stderr("waiting for a cancel", 8), "not all eight ran at once:\n{}", c.stderr());
    for id in &ids {
        c.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id}}));
    }
    assert!(c.wait_for_stderr("cleanup ran for ", 8), "not all eight saw their cancellation:\n{}", c.stderr());
    assert_eq!(c.roundtrip("ping", json!({}))["result"], json!({}));
}

#[test]
fn a_line_that_is_not_json_is_a_parse_error_with_a_null_id() {
    let mut c = server();
    for line in ["nope", "{\"jsonrpc\":\"2.0\",\"id\":5,", "{]", "\u{1b}[31m"] {
        assert_eq!(answer_to(&mut c, line), error(&Value::Null, -32700, "Parse error"), "line {line:?}");
    }
    // Invalid UTF-8.
    c.send_bytes(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}\n");
    assert_eq!(c.recv(), error(&Value::Null, -32700, "Parse error"));
    assert_eq!(c.roundtrip("ping", json!({}))["result"], json!({}));
}

#[test]
fn invalid_requests_are_answered_with_the_id_when_it_can_be_read() {
    let mut c = server();
    let jsonrpc = "Invalid request: `jsonrpc` must be \"2.0\"";
    let bad_id = "Invalid request: `id` must be a string or a number";
    let cases: &[(&str, Value, &str)] = &[
        (r#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#, json!(7), jsonrpc),
        (r#"{"jsonrpc":2.0,"id":"s-1","method":"ping"}"#, json!("s-1"), jsonrpc),
        (r#"{"id":8,"method":"ping"}"#, json!(8), jsonrpc),
        (r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#, Value::Null, bad_id),
        (r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#, Value::Null, bad_id),
        (r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, Value::Null, bad_id),
        (r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#, Value::Null, bad_id),
        (r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#, Value::Null, bad_id),
        (r#"{"jsonrpc":"1.0","id":false,"method":"ping"}"#, Value::Null, jsonrpc),
        (r#"{"jsonrpc":"2.0","id":9,"method":3}"#, json!(9), "Invalid request: `method` must be a string"),
        (r#"{"jsonrpc":"2.0","id":"m","method":null}"#, json!("m"), "Invalid request: `method` must be a string"),
        (r#"{"jsonrpc":"2.0","id":10}"#, json!(10), "Invalid request: no `method`"),
        (r#"{"jsonrpc":"2.0"}"#, Value::Null, "Invalid request: no `method`"),
        ("3", Value::Null, "Invalid request: a JSON-RPC message is a JSON object"),
        (r#""ping""#, Value::Null, "Invalid request: a JSON-RPC message is a JSON object"),
        ("null", Value::Null, "Invalid request: a JSON-RPC message is a JSON object"),
        (
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#,
            Value::Null,
            "Invalid request: a member appears more than once",
        ),
        // The id is readable: it is the one to answer with.
        (
            r#"{"jsonrpc":"2.0","id":6,"method":"ping","method":"ping"}"#,
            json!(6),
            "Invalid request: a member appears more than once",
        ),
    ];
    for (line, id, message) in cases {
        assert_eq!(answer_to(&mut c, line), error(id, -32600, message), "line {line}");
    }
    assert_eq!(c.roundtrip("ping", json!({}))["result"], json!({}));
}

#[test]
fn a_batch_is_an_invalid_request() {
    let mut c = server();
    let batch = "Invalid request: JSON-RPC batches are not supported; send one message per line";
    for line in [
        r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#,
        r#"[{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}]"#,
        // An array that lines up with the fields of a request by position is still a batch.
        r#"["2.0", 5, "ping"]"#,
        "[]",
        "  [1]",
    ] {
        assert_eq!(answer_to(&mut c, line), error(&Value::Null, -32600, batch), "line {line}");
    }
    // Nothing of the batches ran: the next message answers this ping.
    let id = c.request("ping", json!({}));
    assert_eq!(c.recv(), success(&json!(id), &json!({})));
}

#[test]
fn unknown_methods_are_method_not_found_promptly() {
    let mut c = server();
    for method in ["server/discover", "roots/list", "sampling/createMessage", "tools/List", "notifications/initialized"]
    {
        let started = Instant::now();
        let resp = c.roundtrip(method, json!({}));
        assert!(started.elapsed() < Duration::from_secs(3), "{method} took {:?}", started.elapsed());
        assert_eq!(resp, error(&resp["id"], -32601, &format!("Method not found: {method}")));
    }
    // The method name is sanitised like a tool name: control characters removed, cut at 128.
    let long = format!("x\u{0}y\u{7}{}", "m".repeat(300));
    let resp = c.roundtrip(&long, json!({}));
    let shown = format!("xy{}…", "m".repeat(126));
    assert_eq!(resp, error(&resp["id"], -32601, &format!("Method not found: {shown}")));
}

#[test]
fn a_discover_probe_then_initialize_on_the_same_process() {
    let mut c = spawn();
    let started = Instant::now();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let resp = c.roundtrip("server/discover", json!({"_meta": meta}));
    assert_eq!(resp["result"]["supportedVersions"], json!(["2026-07-28"]), "{resp}");
    assert!(started.elapsed() < Duration::from_secs(3), "took {:?}", started.elapsed());
    // A client that prefers the legacy handshake still gets it on the same process.
    assert_eq!(c.initialize(), success(&json!(2), &initialize_result("2025-11-25")));
}

#[test]
fn ping_answers_an_empty_object() {
    let mut c = server();
    assert_eq!(c.roundtrip("ping", json!({})), success(&json!(2), &json!({})));
    assert_eq!(answer_to(&mut c, r#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#), success(&json!("p"), &json!({})));
    // A CRLF line ending is accepted too.
    c.send_bytes(b"{\"jsonrpc\":\"2.0\",\"id\":\"crlf\",\"method\":\"ping\"}\r\n");
    assert_eq!(c.recv(), success(&json!("crlf"), &json!({})));
}

#[test]
fn notifications_and_client_responses_are_never_answered() {
    let mut c = server();
    for line in [
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed","params":{}}"#,
        r#"{"jsonrpc":"2.0","method":"no/such/notification"}"#,
        r#"{"jsonrpc":"2.0","method":"ping"}"#,
        r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":424242}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled"}"#,
        // Responses from the client that match no request of the server.
        r#"{"jsonrpc":"2.0","id":99,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":"r-1","result":{"roots":[]}}"#,
        r#"{"jsonrpc":"2.0","id":98,"error":{"code":-32601,"message":"nope"}}"#,
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
        "",
        "   ",
    ] {
        c.send_raw(line);
    }
    // Lines are handled in order, so anything these produced would come before this answer.
    let id = c.request("ping", json!({}));
    assert_eq!(c.recv(), success(&json!(id), &json!({})));
    assert_eq!(c.recv_within(Duration::from_millis(300)), None);
}

#[test]
fn ids_are_echoed_exactly() {
    let mut c = server();
    let ids = [
        json!("abc-1"),
        json!(""),
        json!("  spaced "),
        json!("ünï \"quoted\" \\ 🦀"),
        json!("7"),
        json!(0),
        json!(-5),
        json!(9_007_199_254_740_993_u64),
        json!(u64::MAX),
        json!(i64::MIN),
    ];
    for id in &ids {
        let ping = json!({"jsonrpc": "2.0", "id": id, "method": "ping"});
        assert_eq!(answer_to(&mut c, &ping.to_string()), success(id, &json!({})), "ping id {id}");
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "e"}}});
        assert_eq!(answer_to(&mut c, &call.to_string()), success(id, &text_result("e")), "call id {id}");
        let bad = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": 1}});
        assert_eq!(
            answer_to(&mut c, &bad.to_string()),
            error(id, -32602, "Invalid params: `name` must be a string"),
            "bad call id {id}"
        );
    }
    // The exact bytes of a large integer id survive (no float round trip).
    c.send_raw(r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}"#);
    let msg = c.recv();
    assert_eq!(msg, success(&json!(u64::MAX), &json!({})));
    assert_eq!(msg["id"].to_string(), "18446744073709551615");
}

#[test]
fn tools_call_without_arguments_means_an_empty_object() {
    let mut c = server();
    // `whoami` takes no arguments: without `arguments` it runs (were they anything but `{}`,
    // its strict input schema would refuse them).
    let resp = c.roundtrip("tools/call", json!({"name": "whoami"}));
    let me = json!({"name": "mcp-tests", "version": "0.0.1", "capabilities": [], "subject": null, "client_id": null, "scopes": [], "tenant": null});
    assert_eq!(resp, success(&resp["id"], &structured_result(&me)));
    // With required parameters, a missing `arguments` fails exactly as `{}` does.
    let mut without = c.roundtrip("tools/call", json!({"name": "search_docs"}))["result"].clone();
    let mut with = c.roundtrip("tools/call", json!({"name": "search_docs", "arguments": {}}))["result"].clone();
    let a = mcp_tests::client::take_request_id(&mut without);
    let b = mcp_tests::client::take_request_id(&mut with);
    assert_ne!(a, b, "request ids are unique per request");
    assert_eq!(without, with);
    let expected = json!({
        "content": [{"type": "text", "text": "Error: Invalid arguments for tool search_docs: query: missing required field\n\nRecovery: Provide query.\n\n(reason invalid_arguments · request <RID>)"}],
        // `search_docs` has an output schema: no `structuredContent` on errors.
        "isError": true,
    });
    assert_eq!(without, expected);
}

#[test]
fn malformed_tools_call_params_are_invalid_params() {
    let mut c = server();
    let cases: &[(Value, &str)] = &[
        (Value::Null, "Invalid params: tools/call needs params {name, arguments?}"),
        (json!([]), "Invalid params: tools/call needs params {name, arguments?}"),
        (json!("echo"), "Invalid params: tools/call needs params {name, arguments?}"),
        (json!({}), "Invalid params: `name` is required"),
        (json!({"arguments": {}}), "Invalid params: `name` is required"),
        (json!({"name": 3}), "Invalid params: `name` must be a string"),
        (json!({"name": null}), "Invalid params: `name` must be a string"),
        (json!({"name": ["echo"]}), "Invalid params: `name` must be a string"),
        (json!({"name": "echo", "arguments": []}), "Invalid params: `arguments` must be an object"),
        (json!({"name": "echo", "arguments": "text=x"}), "Invalid params: `arguments` must be an object"),
        (json!({"name": "echo", "arguments": null}), "Invalid params: `arguments` must be an object"),
        (json!({"name": "echo", "arguments": {"text": "x"}, "_meta": 1}), "Invalid params: `_meta` must be an object"),
        (
            json!({"name": "echo", "arguments": {"text": "x"}, "_meta": {"progressToken": true}}),
            "Invalid params: `_meta.progressToken` must be a string or a number",
        ),
        (
            json!({"name": "echo", "arguments": {"text": "x"}, "_meta": {"progressToken": [1]}}),
            "Invalid params: `_meta.progressToken` must be a string or a number",
        ),
    ];
    for (params, message) in cases {
        let id = c.request("tools/call", params.clone());
        assert_eq!(c.recv(), error(&json!(id), -32602, message), "params {params}");
    }
    // Without a `params` key at all.
    assert_eq!(
        answer_to(&mut c, r#"{"jsonrpc":"2.0","id":"np","method":"tools/call"}"#),
        error(&json!("np"), -32602, "Invalid params: tools/call needs params {name, arguments?}")
    );
}

#[test]
fn an_oversized_line_is_refused_and_the_next_request_is_served() {
    let mut c = server();
    // ~5 MiB, over the 4 MiB default, and a well-formed request otherwise.
    let big = json!({"jsonrpc": "2.0", "id": 77, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "x".repeat(5 << 20)}}});
    c.send_raw(&big.to_string());
    let id = c.request("tools/call", json!({"name": "echo", "arguments": {"text": "after"}}));
    assert_eq!(c.recv(), error(&Value::Null, -32600, "Invalid request: line longer than 4194304 bytes"));
    assert_eq!(c.recv(), success(&json!(id), &text_result("after")));

    // A line under the limit is served whole.
    let text = "y".repeat(3 << 20);
    assert_eq!(c.call("echo", json!({"text": text})), text_result(&text));
}

#[test]
fn eof_lets_a_call_in_flight_finish_then_exits_zero() {
    let mut c = server();
    let id = c.request("tools/call", json!({"name": "sleep_ms", "arguments": {"ms": 300}}));
    c.close_stdin();
    assert_eq!(c.recv(), success(&json!(id), &text_result("slept 300")));
    assert_eq!(c.wait_exit(Duration::from_secs(10)), Some(0));
    assert_eq!(c.recv_within(Duration::from_millis(100)), None, "nothing after the last response");
}

#[test]
fn eof_with_nothing_in_flight_exits_zero() {
    let mut c = server();
    c.close_stdin();
    assert_eq!(c.wait_exit(Duration::from_secs(10)), Some(0));
}

/// The EOF grace is for calls in flight: with none, `serve` returns at EOF. The grace here is
/// an hour, so a server that waited for it could not end within the 30 s allowed (how long
/// the binary takes: `cargo bench -p mcp-tests --bench timings`).
#[tokio::test]
async fn eof_with_nothing_in_flight_does_not_wait_for_the_grace() {
    let server = mcp_tests::fixture::builder(false).eof_grace(Duration::from_secs(3600)).build().expect("builds");
    let mut conn = Duplex::initialized(server).await;
    assert_eq!(conn.roundtrip(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})).await["result"], json!({}));
    conn.writer.shutdown().await.expect("EOF");
    let ended = tokio::time::timeout(Duration::from_secs(30), conn.task).await;
    assert!(matches!(ended, Ok(Ok(Ok(())))), "serve did not return at EOF: {ended:?}");
}

#[test]
fn eof_drops_a_call_that_outlives_the_grace() {
    let mut c = server();
    // `wait_cancel` runs until cancelled: it outlives the 2 s grace.
    let started = Instant::now();
    c.request("tools/call", json!({"name": "wait_cancel", "arguments": {}}));
    c.close_stdin();
    assert_eq!(c.wait_exit(Duration::from_secs(10)), Some(0));
    assert!(started.elapsed() >= Duration::from_millis(1900), "exited after {:?}, before the grace", started.elapsed());
    assert_eq!(c.recv_within(Duration::from_millis(100)), None, "a dropped call gets no response");
}

/// Runs a whole session through the binary with panics, logs and errors on, and checks
/// that every byte on stdout is a JSON-RPC message on its own line.
#[test]
fn stdout_carries_only_json_rpc_lines() {
    let mut child = Command::new(SERVER)
        .env("RUST_BACKTRACE", "1")
        .env("RUST_LOG", "debug")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn fixture-server");
    let requests = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "boom", "arguments": {}}}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "fetch_items", "arguments": {"ids": [], "mode": "plain"}}}),
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "file_size", "arguments": {"path": "/definitely/not/here"}}}),
        json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "line1\nline2\r\n"}}}),
        json!({"jsonrpc": "2.0", "id": 7, "method": "nope"}),
        json!({"jsonrpc": "2.0", "id": 8, "result": {}}),
    ];
    let mut input = String::new();
    for request in &requests {
        input.push_str(&request.to_string());
        input.push('\n');
    }
    input.push_str("not json\n");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        stdin.write_all(input.as_bytes()).expect("write");
    });
    let mut stderr = child.stderr.take().expect("stderr");
    let stderr_reader = std::thread::spawn(move || {
        let mut s = String::new();
        stderr.read_to_string(&mut s).expect("read stderr");
        s
    });
    let stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut answered = Vec::new();
    for line in stdout.split(b'\n') {
        let line = line.expect("read stdout");
        let text = String::from_utf8(line).expect("stdout is UTF-8");
        let msg: Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("stdout line is not JSON: {text:?}: {e}"));
        assert_eq!(msg["jsonrpc"], json!("2.0"), "{text}");
        assert!(!text.contains('\n') && !text.contains('\r'), "{text:?}");
        answered.push(msg["id"].clone());
    }
    writer.join().expect("writer");
    assert_eq!(child.wait().expect("wait").code(), Some(0));
    answered.sort_by_key(Value::to_string);
    // One answer per request (ids 1..=7) plus the parse error's null id; nothing for the
    // notification or the client's response.
    assert_eq!(answered, [json!(1), json!(2), json!(3), json!(4), json!(5), json!(6), json!(7), Value::Null]);
    let logs = stderr_reader.join().expect("stderr reader");
    assert!(logs.contains("secret panic payload"), "the panic is logged on stderr:\n{logs}");
    assert!(logs.contains("Error in tool:boom: Tool boom failed unexpectedly."), "{logs}");
}

/// One in-process connection over `tokio::io::duplex`.
struct Duplex {
    writer: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    lines: tokio::io::Lines<tokio::io::BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    task: tokio::task::JoinHandle<Result<(), mcp_runtime::Error>>,
}

impl Duplex {
    fn serve(server: mcp_runtime::Server) -> Self {
        let (ours, theirs) = tokio::io::duplex(64 * 1024);
        let (their_read, their_write) = tokio::io::split(theirs);
        let task = tokio::spawn(server.serve(their_read, their_write));
        let (our_read, writer) = tokio::io::split(ours);
        Duplex { writer, lines: tokio::io::BufReader::new(our_read).lines(), task }
    }

    /// Serves `server` on a session that has sent `initialize` (id 0).
    async fn initialized(server: mcp_runtime::Server) -> Self {
        let mut conn = Duplex::serve(server);
        let init =
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}});
        let answer = conn.roundtrip(init).await;
        assert!(answer["result"]["protocolVersion"].is_string(), "{answer}");
        conn
    }

    async fn roundtrip(&mut self, request: Value) -> Value {
        let mut line = request.to_string();
        line.push('\n');
        self.writer.write_all(line.as_bytes()).await.expect("write");
        let line = tokio::time::timeout(Duration::from_secs(10), self.lines.next_line())
            .await
            .expect("an answer within 10 s")
            .expect("read")
            .expect("a line");
        serde_json::from_str(&line).expect("JSON")
    }

    async fn close(mut self) {
        self.writer.shutdown().await.expect("shutdown");
        drop(self.writer);
        self.task.await.expect("serve task").expect("serve ends cleanly on EOF");
    }
}

#[tokio::test]
async fn tools_list_pages_with_a_page_size() {
    let server = mcp_tests::fixture::builder(false).page_size(2).build().expect("build");
    let all = server.tool_descriptors();
    assert!(all.len() > 4, "the fixture has more than two pages of tools");
    let mut conn = Duplex::initialized(server).await;

    let first = conn.roundtrip(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})).await;
    let cursor = first["result"]["nextCursor"].clone();
    assert!(cursor.is_string(), "{first}");
    assert_eq!(
        first,
        success(&json!(1), &json!({"tools": [echo_descriptor(), add_descriptor()], "nextCursor": cursor}))
    );

    let mut listed: Vec<Value> = first["result"]["tools"].as_array().expect("tools").clone();
    let mut cursor = cursor;
    let mut id = 1;
    let mut pages = 1;
    while !cursor.is_null() {
        id += 1;
        let page = conn
            .roundtrip(json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {"cursor": cursor}}))
            .await;
        assert_eq!(page["id"], json!(id));
        let tools = page["result"]["tools"].as_array().expect("tools").clone();
        assert!(!tools.is_empty() && tools.len() <= 2, "{page}");
        let next = page["result"].get("nextCursor").cloned().unwrap_or(Value::Null);
        let expected_keys: &[&str] = if next.is_null() { &["tools"] } else { &["nextCursor", "tools"] };
        let mut keys: Vec<&str> = page["result"].as_object().expect("object").keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, expected_keys, "{page}");
        listed.extend(tools);
        cursor = next;
        pages += 1;
        assert!(pages <= all.len(), "paging does not end");
    }
    assert_eq!(pages, all.len().div_ceil(2));
    assert_eq!(listed, all);
    assert_eq!(listed[2], search_docs_descriptor());
    assert_eq!(listed[3], sleep_ms_descriptor());

    // A cursor this server never handed out.
    for bad in [json!("bogus"), json!(format!("page-{pages}")), json!("page-0")] {
        id += 1;
        assert_eq!(
            conn.roundtrip(json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {"cursor": bad}}))
                .await,
            error(&json!(id), -32602, "Invalid params: unknown cursor; call tools/list without a cursor to start over"),
            "cursor {bad}"
        );
    }
    conn.close().await;
}

#[tokio::test]
async fn serve_works_over_any_byte_streams() {
    // The fixture-server binary's skills too, so that it answers as the binary does.
    let skills = concat!(env!("CARGO_MANIFEST_DIR"), "/skills");
    let server = mcp_tests::fixture::builder(false).skills_dir(skills).build().expect("build");
    let mut conn = Duplex::serve(server);
    let init = conn
        .roundtrip(json!({"jsonrpc": "2.0", "id": "i", "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}))
        .await;
    assert_eq!(init, success(&json!("i"), &initialize_result("2025-06-18")));
    let sum = conn
        .roundtrip(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 20, "b": 22}}}))
        .await;
    assert_eq!(sum, success(&json!(2), &structured_result(&json!({"sum": 42}))));
    conn.close().await;
}
