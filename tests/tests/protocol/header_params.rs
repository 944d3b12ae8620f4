//! `x-mcp-header` and `Mcp-Param-*` (2026-07-28, Streamable HTTP): a parameter whose schema
//! carries `"x-mcp-header": "Region"` is mirrored by the client into the `Mcp-Param-Region`
//! header. The build refuses an annotation the spec forbids (not a token, not unique without
//! regard to case, on a parameter that is not a string, integer or boolean), naming the tool and
//! the parameter; `tools/list` carries the annotation; and on a 2026-07-28 HTTP call every
//! mirrored header must carry its argument's value (plainly or as `=?base64?…?=`, integers
//! compared as numbers) and be absent when the argument is, else the call is `-32020` with
//! HTTP 400 and the handler never runs. 2025-11-25 calls are not checked (the mirror is a
//! 2026-07-28 rule). The servers are built here, in-process.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use base64::Engine as _;
use mcp_runtime::prelude::*;
use mcp_runtime::{Server, ServerBuilder};
use mcp_tests::http::{InProcess, request};
use serde_json::{Value, json};

const MODERN: &str = "2026-07-28";

/// How many times `run_query`'s handler ran on a server (its app data).
#[derive(Clone, Default)]
struct Runs(Arc<AtomicUsize>);

/// Runs a query in a region.
#[tool]
fn run_query(
    ctx: &Ctx,
    /// Where to run it.
    #[schemars(extend("x-mcp-header" = "Region"))]
    region: String,
    /// How many shards.
    #[schemars(extend("x-mcp-header" = "Shards"))]
    shards: i64,
    /// Whether to only plan it.
    #[schemars(extend("x-mcp-header" = "Dry-Run"))]
    dry_run: bool,
    /// The zone, when one is wanted.
    #[schemars(extend("x-mcp-header" = "Zone"))]
    zone: Option<String>,
    /// The query (not mirrored).
    query: String,
) -> Result<String, ToolError> {
    ctx.app_data::<Runs>()?.0.fetch_add(1, Ordering::SeqCst);
    Ok(format!(
        "{query} in {region}/{} on {shards} shards{}",
        zone.as_deref().unwrap_or("-"),
        if dry_run { " (dry run)" } else { "" }
    ))
}

fn server(stateless: bool, runs: &Runs) -> Server {
    Server::builder("header-params", "0")
        .tool(run_query)
        .app_data(runs.clone())
        .stateless_http(stateless)
        .build()
        .expect("the server builds")
}

fn b64(text: &str) -> String {
    format!("=?base64?{}?=", base64::engine::general_purpose::STANDARD.encode(text))
}

/// A 2026-07-28 `tools/call` of `run_query`.
fn call(arguments: &Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "run_query", "arguments": arguments,
        "_meta": {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}}})
}

/// The arguments every case starts from, and the headers a client mirrors them into.
fn arguments() -> Value {
    json!({"region": "us-west1", "shards": 42, "dry_run": true, "query": "select 1"})
}

/// `Mcp-Param-*` header names and values.
type Headers = Vec<(String, String)>;

fn mirrored() -> Headers {
    [("Mcp-Param-Region", "us-west1"), ("Mcp-Param-Shards", "42"), ("Mcp-Param-Dry-Run", "true")]
        .into_iter()
        .map(|(n, v)| (n.to_owned(), v.to_owned()))
        .collect()
}

/// POSTs `body` as a 2026-07-28 client does, with `params` as the `Mcp-Param-*` headers;
/// the status and the JSON body.
fn post(port: u16, body: &Value, params: &[(String, String)]) -> (u16, Value) {
    let mut headers = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", MODERN),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "run_query"),
    ];
    headers.extend(params.iter().map(|(n, v)| (n.as_str(), v.as_str())));
    let response = request(port, "POST", "/mcp", &headers, body.to_string().as_bytes()).expect("the server answers");
    let status = response.status;
    let text = response.text();
    (status, serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text:?}")))
}

/// `headers` with `name` set to `value`, or removed with `None`.
fn with(mut headers: Headers, name: &str, value: Option<&str>) -> Headers {
    headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
    if let Some(value) = value {
        headers.push((name.to_owned(), value.to_owned()));
    }
    headers
}

#[test]
fn tools_list_carries_the_annotation() {
    let descriptors = server(true, &Runs::default()).tool_descriptors();
    let properties = &descriptors[0]["inputSchema"]["properties"];
    let headers: Vec<(&str, &Value)> = ["region", "shards", "dry_run", "zone", "query"]
        .into_iter()
        .map(|p| (p, &properties[p]["x-mcp-header"]))
        .collect();
    assert_eq!(
        headers,
        [
            ("region", &json!("Region")),
            ("shards", &json!("Shards")),
            ("dry_run", &json!("Dry-Run")),
            ("zone", &json!("Zone")),
            ("query", &Value::Null)
        ],
        "{properties:#}"
    );
}

#[test]
fn headers_that_mirror_the_arguments_are_accepted() {
    for stateless in [true, false] {
        let runs = Runs::default();
        let served = InProcess::serve(server(stateless, &runs));
        let cases: Vec<(Value, Headers)> = vec![
            (arguments(), mirrored()),
            // Base64 for any of them; header names in any case; integers as numbers.
            (arguments(), with(mirrored(), "Mcp-Param-Region", Some(&b64("us-west1")))),
            (arguments(), with(mirrored(), "Mcp-Param-Shards", Some(&b64("42")))),
            (arguments(), with(with(mirrored(), "Mcp-Param-Region", None), "mcp-param-region", Some("us-west1"))),
            (arguments(), with(mirrored(), "Mcp-Param-Shards", Some("42.0"))),
            (arguments(), with(mirrored(), "Mcp-Param-Shards", Some("042"))),
            // An optional argument and its header, both present; non-ASCII in base64.
            (
                {
                    let mut a = arguments();
                    a["zone"] = json!("zürich-1");
                    a
                },
                with(mirrored(), "Mcp-Param-Zone", Some(&b64("zürich-1"))),
            ),
            // An optional argument sent as null is absent: no header.
            (
                {
                    let mut a = arguments();
                    a["zone"] = Value::Null;
                    a
                },
                mirrored(),
            ),
        ];
        for (arguments, headers) in cases {
            let (status, body) = post(served.port, &call(&arguments), &headers);
            let zone = arguments["zone"].as_str().unwrap_or("-");
            let expected =
                json!([{"type": "text", "text": format!("select 1 in us-west1/{zone} on 42 shards (dry run)")}]);
            assert_eq!((status, &body["result"]["content"]), (200, &expected), "{headers:?}: {body:#}");
        }
    }
}

#[test]
fn a_header_that_disagrees_with_its_argument_is_32020_and_the_handler_does_not_run() {
    let zone = |z: &str| {
        let mut a = arguments();
        a["zone"] = json!(z);
        a
    };
    let cases: Vec<(Value, Headers, &str)> = vec![
        (
            arguments(),
            with(mirrored(), "Mcp-Param-Region", None),
            "Mcp-Param-Region is missing, but argument `region` is \"us-west1\"",
        ),
        (
            arguments(),
            with(mirrored(), "Mcp-Param-Region", Some("eu-west1")),
            "Mcp-Param-Region is \"eu-west1\", but argument `region` is \"us-west1\"",
        ),
        (
            arguments(),
            with(mirrored(), "Mcp-Param-Region", Some("US-WEST1")),
            "Mcp-Param-Region is \"US-WEST1\", but argument `region` is \"us-west1\"",
        ),
        (
            arguments(),
            with(mirrored(), "Mcp-Param-Region", Some(&b64("eu-west1"))),
            "Mcp-Param-Region is \"eu-west1\", but argument `region` is \"us-west1\"",
        ),
        (
            arguments(),
            with(mirrored(), "Mcp-Param-Region", Some("=?base64?not base64!?=")),
            "Mcp-Param-Region is not readable (bad =?base64?…?= form or not UTF-8), but argument `region` is \"us-west1\"",
        ),
        (
            arguments(),
            with(mirrored(), "Mcp-Param-Shards", Some("43")),
            "Mcp-Param-Shards is \"43\", but argument `shards` is 42",
        ),
        (
            arguments(),
            with(mirrored(), "Mcp-Param-Shards", Some("forty-two")),
            "Mcp-Param-Shards is \"forty-two\", but argument `shards` is 42",
        ),
        (
            arguments(),
            with(mirrored(), "Mcp-Param-Dry-Run", Some("True")),
            "Mcp-Param-Dry-Run is \"True\", but argument `dry_run` is true",
        ),
        (
            arguments(),
            with(mirrored(), "Mcp-Param-Dry-Run", Some("1")),
            "Mcp-Param-Dry-Run is \"1\", but argument `dry_run` is true",
        ),
        // A header for an argument that is absent.
        (
            arguments(),
            with(mirrored(), "Mcp-Param-Zone", Some("z1")),
            "Mcp-Param-Zone is \"z1\", but argument `zone` is absent",
        ),
        // An argument whose header is missing.
        (zone("z1"), mirrored(), "Mcp-Param-Zone is missing, but argument `zone` is \"z1\""),
    ];
    for stateless in [true, false] {
        let runs = Runs::default();
        let served = InProcess::serve(server(stateless, &runs));
        for (arguments, headers, why) in &cases {
            let (status, body) = post(served.port, &call(arguments), headers);
            let message = format!("Header mismatch: {why}; send the argument's value in the header");
            assert_eq!(
                (status, &body),
                (400, &json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32020, "message": message}})),
                "{headers:?}"
            );
        }
        assert_eq!(runs.0.load(Ordering::SeqCst), 0, "the handler ran");
        // The same server runs the call once the headers agree.
        let (status, _) = post(served.port, &call(&arguments()), &mirrored());
        assert_eq!((status, runs.0.load(Ordering::SeqCst)), (200, 1));
    }
}

#[test]
fn a_2025_call_over_http_is_not_checked_against_the_headers() {
    let served = InProcess::serve(server(true, &Runs::default()));
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "run_query", "arguments": arguments()}});
    let headers = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2025-11-25"),
        ("Mcp-Param-Region", "eu-west1"),
    ];
    let response = request(served.port, "POST", "/mcp", &headers, body.to_string().as_bytes()).expect("an answer");
    let status = response.status;
    let text = response.text();
    let body: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text:?}"));
    let expected = json!([{"type": "text", "text": "select 1 in us-west1/- on 42 shards (dry run)"}]);
    assert_eq!((status, &body["result"]["content"]), (200, &expected), "{body:#}");
}

// ---------------------------------------------------------------------------------------
// What the build refuses

/// Region, twice without regard to case.
#[tool]
fn twice(
    /// One.
    #[schemars(extend("x-mcp-header" = "Region"))]
    a: String,
    /// Two.
    #[schemars(extend("x-mcp-header" = "region"))]
    b: String,
) -> String {
    a + &b
}

/// A header name with a space.
#[tool]
fn spaced(
    /// One.
    #[schemars(extend("x-mcp-header" = "Re gion"))]
    a: String,
) -> String {
    a
}

/// A header name that would split the header.
#[tool]
fn split(
    /// One.
    #[schemars(extend("x-mcp-header" = "A\r\nX-Injected: 1"))]
    a: String,
) -> String {
    a
}

/// An empty header name.
#[tool]
fn empty(
    /// One.
    #[schemars(extend("x-mcp-header" = ""))]
    a: String,
) -> String {
    a
}

/// A header name that is not a string.
#[tool]
fn numbered(
    /// One.
    #[schemars(extend("x-mcp-header" = 5))]
    a: String,
) -> String {
    a
}

/// A number (the spec permits string, integer and boolean only).
#[tool]
fn ratio(
    /// One.
    #[schemars(extend("x-mcp-header" = "Ratio"))]
    r: f64,
) -> String {
    r.to_string()
}

/// A list.
#[tool]
fn listed(
    /// One.
    #[schemars(extend("x-mcp-header" = "Tags"))]
    tags: Vec<String>,
) -> String {
    tags.join(",")
}

fn refused(builder: ServerBuilder) -> String {
    match builder.build() {
        Ok(_) => panic!("the build succeeded"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn the_build_refuses_what_the_spec_forbids_naming_tool_and_parameter() {
    let b = || Server::builder("bad", "0");
    let token = "must be a non-empty HTTP token (letters, digits, !#$%&'*+-.^_`|~)";
    assert_eq!(
        refused(b().tool(twice)),
        "the input schema of tool `twice` does not compile: two parameters are mirrored into `Mcp-Param-region`; header names must be unique"
    );
    for (builder, tool) in [
        (b().tool(spaced), "spaced"),
        (b().tool(split), "split"),
        (b().tool(empty), "empty"),
        (b().tool(numbered), "numbered"),
    ] {
        assert_eq!(
            refused(builder),
            format!("the input schema of tool `{tool}` does not compile: `x-mcp-header` of `a` {token}")
        );
    }
    for (builder, tool, parameter) in [(b().tool(ratio), "ratio", "r"), (b().tool(listed), "listed", "tags")] {
        assert_eq!(
            refused(builder),
            format!(
                "the input schema of tool `{tool}` does not compile: `x-mcp-header` is only allowed on string, integer and boolean parameters; `{parameter}` is not one"
            )
        );
    }
    // Added to a running server, the same refusal.
    let running = Server::builder("good", "0").tool(run_query).app_data(Runs::default()).build().expect("builds");
    let added = running.add_tool(ratio).map_err(|e| e.to_string());
    assert_eq!(
        added,
        Err("the input schema of tool `ratio` does not compile: `x-mcp-header` is only allowed on string, integer and boolean parameters; `r` is not one".to_owned())
    );
}
