//! A short run of every fuzz target's properties (`mcp_tests::props`) on generated inputs, on
//! stable Rust: what `scripts/test.sh` runs on every change. The long campaigns are
//! `fuzz/` (`cargo fuzz`), which check the same properties on what libFuzzer finds.

use mcp_runtime::fuzzing::StateSealer;
use mcp_tests::props::{
    FIXTURE_TOOLS, HttpInput, HttpTarget, SessionTarget, UriPart, check_foreign_state, check_sealed_state,
    check_uri_expansion, check_uri_template,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, TestCaseError as CaseError, TestRunner};
use serde_json::{Value, json};

/// Cases per property: `FUZZ_SMOKE_CASES`, or 2,000 (a few seconds each).
fn cases() -> u32 {
    std::env::var("FUZZ_SMOKE_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(2000)
}

/// Any JSON value, a few levels deep.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        ".{0,24}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
            prop::collection::btree_map(".{0,12}", inner, 0..6).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Methods of both eras, some removed or unknown.
fn method() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "tools/call",
            "tools/list",
            "initialize",
            "ping",
            "server/discover",
            "resources/list",
            "resources/read",
            "resources/templates/list",
            "resources/subscribe",
            "prompts/list",
            "prompts/get",
            "completion/complete",
            "logging/setLevel",
            "subscriptions/listen",
            "notifications/cancelled",
            "notifications/initialized",
            "notifications/progress",
        ])
        .prop_map(str::to_owned),
        "[a-z/]{0,20}",
    ]
}

/// Names of the fixture tools, and a few others.
fn tool() -> impl Strategy<Value = String> {
    prop_oneof![prop::sample::select(FIXTURE_TOOLS).prop_map(str::to_owned), ".{0,12}"]
}

/// A JSON-RPC message of either era: mostly well-formed, with an id of any type.
fn message() -> impl Strategy<Value = (bool, String)> {
    let id = prop_oneof![
        any::<i64>().prop_map(Value::from),
        "[a-z0-9]{0,8}".prop_map(Value::from),
        Just(Value::Null),
        Just(json!(1.5)),
        Just(json!({"id": 1})),
    ];
    let call = (tool(), any_json()).prop_map(|(name, args)| json!({"name": name, "arguments": args}));
    let params = prop_oneof![3 => call, 1 => any_json()];
    (any::<bool>(), method(), prop::option::of(id), params, any::<bool>()).prop_map(|(legacy, method, id, params, meta)| {
        let mut params = params;
        if !legacy && meta && let Value::Object(map) = &mut params {
            map.insert(
                "_meta".into(),
                json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}),
            );
        }
        let mut message = json!({"jsonrpc": "2.0", "method": method, "params": params});
        if let Some(id) = id {
            message["id"] = id;
        }
        (legacy, message.to_string())
    })
}

thread_local! {
    static SESSION: SessionTarget = SessionTarget::new();
}

#[test]
fn the_fuzzers_know_every_fixture_tool() {
    let mut listed = SESSION.with(SessionTarget::tool_names);
    let mut known: Vec<String> =
        FIXTURE_TOOLS.iter().filter(|t| **t != "legacy_report").map(|t| (*t).to_owned()).collect();
    listed.sort();
    known.sort();
    assert_eq!(listed, known, "update mcp_tests::props::FIXTURE_TOOLS");
}

/// The committed seed corpus (`fuzz/seeds.py`) calls every fixture tool, and its
/// `tool_arguments` seeds name each tool by its index in `FIXTURE_TOOLS`, as the target reads it.
#[test]
fn the_fuzz_seeds_call_every_fixture_tool_by_its_index() {
    let seeds = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/seeds");
    for (index, tool) in FIXTURE_TOOLS.iter().enumerate() {
        for era in ["legacy", "modern"] {
            let seed = seeds.join(format!("tool_arguments/{era}-{tool}"));
            let bytes = std::fs::read(&seed).unwrap_or_else(|e| panic!("{}: {e}; run fuzz/seeds.py", seed.display()));
            assert_eq!(bytes.get(1).copied().map(usize::from), Some(index), "{}: run fuzz/seeds.py", seed.display());
            let line = seeds.join(format!("session_line/{era}-call-{tool}"));
            assert!(line.is_file(), "{}: run fuzz/seeds.py", line.display());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn a_jsonrpc_message_through_a_session((legacy, line) in message()) {
        SESSION.with(|s| s.check(legacy, &line)).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn any_line_through_a_session(legacy in any::<bool>(), line in prop_oneof![".{0,64}", any_json().prop_map(|v| v.to_string())]) {
        SESSION.with(|s| s.check(legacy, &line)).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn a_tool_call_through_validation_and_the_envelope(legacy in any::<bool>(), tool in tool(), arguments in any_json()) {
        SESSION.with(|s| s.check_call(legacy, &tool, &arguments)).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn a_token_the_sealer_did_not_make_never_opens(token in prop_oneof![".{0,80}", "v1\\.[A-Za-z0-9_-]{0,60}\\.[A-Za-z0-9_-]{0,50}"], binding in ".{0,20}") {
        let sealer = StateSealer::new(b"0123456789abcdef0123456789abcdef");
        check_foreign_state(&sealer, &token, &binding).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn a_sealed_state_opens_only_unchanged_and_for_its_binding(state in ".{0,64}", binding in ".{0,24}", other in ".{0,24}", at in any::<usize>(), to in any::<char>()) {
        let sealer = StateSealer::new(b"0123456789abcdef0123456789abcdef");
        check_sealed_state(&sealer, &state, &binding, &other, at, to).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn uri_templates_match_or_refuse_without_panicking(
        template in prop_oneof!["[a-z]{1,5}://(\\{\\+?[a-z]{1,4}\\}|[a-z/.%]{0,6}){0,4}", ".{0,24}"],
        uri in prop_oneof!["[a-z]{1,5}://[a-z0-9/.%]{0,24}", ".{0,32}"],
    ) {
        check_uri_template(&template, &uri).map_err(TestCaseError::fail)?;
    }
}

/// A resource URI template and values for its variables: a scheme, then up to four
/// variables (one in four reserved), each but the last followed by literal text, the last
/// by some now and then. Literals are what templates hold (`/`, `/page/`, `.`); values mix
/// what needs no escape with `/`, `?`, `#`, `%`, spaces and non-ASCII text.
fn uri_parts() -> impl Strategy<Value = Vec<UriPart>> {
    let literal = prop_oneof![
        3 => Just("/".to_owned()),
        2 => "/[a-z]{1,5}/",
        1 => "[.:-][a-z]{0,3}",
        1 => "[a-z0-9/.:-]{1,4}",
    ];
    let value = prop_oneof![
        4 => "[A-Za-z0-9._~-]{1,8}",
        2 => "[a-z0-9 /?#%:@+=é✓]{1,8}",
        1 => ".{1,6}",
    ];
    let var = (prop::bool::weighted(0.25), value);
    let scheme = ("[a-z]{1,5}", prop_oneof![Just(String::new()), "[a-z0-9/.]{1,6}"])
        .prop_map(|(scheme, rest)| format!("{scheme}://{rest}"));
    (scheme, prop::collection::vec((var, literal), 1..=4), any::<bool>()).prop_map(|(scheme, vars, tail)| {
        let mut parts = vec![UriPart::Literal(scheme)];
        let last = vars.len() - 1;
        for (i, ((reserved, value), literal)) in vars.into_iter().enumerate() {
            parts.push(UriPart::Var { name: format!("v{i}"), reserved, value });
            if i < last || tail {
                parts.push(UriPart::Literal(literal));
            }
        }
        parts
    })
}

/// URIs expanded from their templates read back as the values they were expanded from (when
/// the URI has one reading: most cases), and a URI a little off never matches; see
/// `check_uri_expansion`. A failing case is saved to `fuzz_smoke.proptest-regressions` beside
/// this file and replayed first on every later run (commit it with the fix).
#[test]
fn uri_templates_read_back_what_they_expand() {
    let config = Config {
        cases: cases(),
        source_file: Some(file!()),
        failure_persistence: Some(Box::new(FileFailurePersistence::SourceParallel("proptest-regressions"))),
        ..Config::default()
    };
    let exact = std::cell::Cell::new(0_u32);
    let outcome = TestRunner::new(config).run(&uri_parts(), |parts| {
        if check_uri_expansion(&parts).map_err(CaseError::fail)? {
            exact.set(exact.get() + 1);
        }
        Ok(())
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
    // Most cases have one reading, and each of those matched exactly.
    let exact = exact.get();
    assert!(exact * 5 > cases() * 3, "only {exact} of {} generated URIs were read back exactly", cases());
}

/// The template shapes the SDK's examples and tests use, each expanded with plain values and
/// with values that need escapes: the same checks, on cases that run every time.
#[test]
fn uri_templates_read_back_named_seeds() {
    let lit = |s: &str| UriPart::Literal(s.to_owned());
    let var = |name: &str, reserved: bool, value: &str| UriPart::Var {
        name: name.to_owned(),
        reserved,
        value: value.to_owned(),
    };
    let seeds: Vec<Vec<UriPart>> = vec![
        vec![lit("notes://"), var("name", false, "todo.md")],
        vec![lit("notes://"), var("name", false, "my note/../../etc?#")],
        vec![lit("books://"), var("title", false, "Dune"), lit("/page/"), var("page", false, "12")],
        vec![lit("books://"), var("title", false, "Les Misérables / I"), lit("/page/"), var("page", false, "1%")],
        vec![lit("files:///"), var("path", true, "src/lib.rs")],
        vec![lit("files:///"), var("path", true, "a b/c?d#e/✓")],
        vec![lit("repo://"), var("owner", false, "me"), lit("/"), var("path", true, "src/a.rs")],
        vec![lit("test://template/"), var("id", false, "123"), lit("/data")],
    ];
    for parts in &seeds {
        assert_eq!(check_uri_expansion(parts), Ok(true), "{parts:?}");
    }
}

/// An HTTP request: mostly the headers a client sends, with values good and bad, and a body
/// that is often a JSON-RPC message of either era.
fn http_input() -> impl Strategy<Value = HttpInput> {
    let verb = prop_oneof![
        6 => Just("POST".to_owned()),
        1 => prop::sample::select(vec!["GET", "DELETE", "PUT", "OPTIONS", "HEAD"]).prop_map(str::to_owned),
        1 => "[A-Z]{1,8}",
    ];
    let header = prop_oneof![
        (
            Just("Accept"),
            prop::sample::select(vec!["application/json, text/event-stream", "application/json", "*/*", ""])
                .prop_map(str::to_owned)
        ),
        (
            Just("Content-Type"),
            prop::sample::select(vec!["application/json", "text/plain", "application/json; charset=utf-8"])
                .prop_map(str::to_owned)
        ),
        (
            Just("MCP-Protocol-Version"),
            prop::sample::select(vec!["2025-11-25", "2026-07-28", "2024-11-05", "x"]).prop_map(str::to_owned)
        ),
        (Just("Mcp-Session-Id"), "[A-Za-z0-9]{0,32}"),
        (Just("Mcp-Method"), prop_oneof![method(), "=\\?base64\\?[A-Za-z0-9+/=]{0,12}\\?="]),
        (Just("Mcp-Name"), tool()),
        (
            Just("Host"),
            prop::sample::select(vec!["127.0.0.1", "localhost:9", "evil.example", ""]).prop_map(str::to_owned)
        ),
        (
            Just("Origin"),
            prop::sample::select(vec!["http://localhost", "https://evil.example", "null"]).prop_map(str::to_owned)
        ),
        (Just("Last-Event-ID"), "[0-9a-z-]{0,12}"),
        (Just("Mcp-Param-Region"), ".{0,8}"),
    ]
    .prop_map(|(n, v)| (n.to_owned(), v));
    let body = prop_oneof![
        4 => message().prop_map(|(_, line)| line),
        1 => ".{0,64}".prop_map(String::from),
    ];
    // Mostly the headers a client would send for the body (the host, accept, content type,
    // and for a 2026-07-28 body its version and mirrors), then a few more that may disagree.
    let consistent = prop::sample::select(vec![true, true, true, false]);
    (verb, consistent, prop::collection::vec(header, 0..4), body).prop_map(|(method, consistent, extra, body)| {
        let mut headers = if consistent { HttpInput::client_headers(body.as_bytes()) } else { Vec::new() };
        headers.extend(extra);
        HttpInput { method, headers, body: body.into_bytes() }
    })
}

thread_local! {
    static HTTP: (HttpTarget, HttpTarget) = (HttpTarget::new(false), HttpTarget::new(true));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases() / 2, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn an_http_request_through_the_endpoint(input in http_input(), stateless in any::<bool>()) {
        HTTP.with(|(sessions, stateless_target)| {
            if stateless { stateless_target.check(&input) } else { sessions.check(&input) }
        }).map_err(TestCaseError::fail)?;
    }
}
