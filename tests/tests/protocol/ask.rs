//! Asking the caller (`ctx.ask`), written once and served in both eras, over real pipes and
//! real HTTP with `fixture-server`: the capability matrix (era × declared capability × kind
//! of ask → `input_required`, `-32021`, the `client_capability_missing` envelope, or a
//! server-to-client request), the 2026-07-28 retry rules, and the legacy shim (round cap,
//! pacing, cancellation, concurrent legs, calls that never see each other's answers).

use std::time::{Duration, Instant};

use mcp_runtime::prelude::*;
use mcp_tests::client::{Client, take_request_id};
use mcp_tests::spec_schema::{Version, check_message};
use serde_json::{Value, json};

const SERVER: &str = env!("CARGO_BIN_EXE_fixture-server");
const MODERN: &str = "2026-07-28";
const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
const CAPS_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";

fn server_info() -> Value {
    json!({"name": "fixture-server", "version": env!("CARGO_PKG_VERSION")})
}

/// A 2026-07-28 `tools/call` line with these capabilities, and `extra` merged into params.
fn modern_call(id: i64, tool: &str, args: Value, caps: &Value, extra: &Value) -> Value {
    let mut params = json!({"name": tool, "arguments": args, "_meta": {VERSION_KEY: MODERN, CAPS_KEY: caps}});
    for (k, v) in extra.as_object().expect("object") {
        params[k] = v.clone();
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

/// The answer to a 2026-07-28 call, checked against the 2026-07-28 schema.
fn modern_roundtrip(client: &mut Client, call: &Value) -> Value {
    client.send(call);
    let answer = client.recv();
    assert_eq!(answer["id"], call["id"], "{answer}");
    check_message(Version::V2026_07_28, Some("tools/call"), &answer).unwrap_or_else(|e| panic!("{e}"));
    answer
}

fn confirm_form(path: &str) -> Value {
    json!({"method": "elicitation/create", "params": {
        "message": format!("Delete {path}?"),
        "requestedSchema": {"type": "object", "properties": {"confirm": {"type": "boolean", "description": "Delete it?"}}, "required": ["confirm"]},
    }})
}

fn summary_request(text: &str) -> Value {
    json!({"method": "sampling/createMessage", "params": {
        "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
        "maxTokens": 200,
        "systemPrompt": "Summarize in one sentence.",
    }})
}

fn input_required(id: i64, requests: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {
        "resultType": "input_required",
        "inputRequests": requests,
        "_meta": {SERVER_INFO_KEY: server_info()},
    }})
}

fn missing_capability(id: i64, key: &str, method: &str, required: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {
        "code": -32021,
        "message": format!("Cannot request input '{key}' ({method}): the request's client capabilities do not declare the required capability"),
        "data": {"requiredCapabilities": required},
    }})
}

// ---- 2026-07-28 -----------------------------------------------------------------------

/// What a row of the matrix expects: the `inputRequests`, or the key, method and
/// `requiredCapabilities` of a `-32021`.
type Expected = Result<Value, (&'static str, &'static str, Value)>;

#[test]
fn the_modern_matrix_pins_input_required_or_32021() {
    let mut client = Client::spawn_with(SERVER, &[], mcp_tests::client::Pipes::default());
    let none = json!({});
    let rows: Vec<(&str, Value, Value, Expected)> = vec![
        // A bare `elicitation` counts as form elicitation.
        (
            "confirm_delete",
            json!({"path": "/a"}),
            json!({"elicitation": {}}),
            Ok(json!({"confirm": confirm_form("/a")})),
        ),
        (
            "confirm_delete",
            json!({"path": "/a"}),
            json!({"elicitation": {"form": {}}}),
            Ok(json!({"confirm": confirm_form("/a")})),
        ),
        // URL elicitation alone does not.
        (
            "confirm_delete",
            json!({"path": "/a"}),
            json!({"elicitation": {"url": {}}}),
            Err(("confirm", "elicitation/create", json!({"elicitation": {"form": {}}}))),
        ),
        (
            "confirm_delete",
            json!({"path": "/a"}),
            json!({"sampling": {}, "roots": {}}),
            Err(("confirm", "elicitation/create", json!({"elicitation": {"form": {}}}))),
        ),
        ("summarize", json!({"text": "t"}), json!({"sampling": {}}), Ok(json!({"summary": summary_request("t")}))),
        (
            "summarize",
            json!({"text": "t"}),
            json!({"elicitation": {}}),
            Err(("summary", "sampling/createMessage", json!({"sampling": {}}))),
        ),
        ("list_roots", json!({}), json!({"roots": {}}), Ok(json!({"roots": {"method": "roots/list"}}))),
        ("list_roots", json!({}), none.clone(), Err(("roots", "roots/list", json!({"roots": {}})))),
        // Every missing capability is named, the first request in the message.
        (
            "ask_all",
            json!({}),
            json!({"sampling": {}}),
            Err(("name", "elicitation/create", json!({"elicitation": {"form": {}}, "roots": {}}))),
        ),
    ];
    for (i, (tool, args, caps, expected)) in rows.into_iter().enumerate() {
        let id = i64::try_from(i).expect("small") + 1;
        let answer = modern_roundtrip(&mut client, &modern_call(id, tool, args, &caps, &none));
        let expected = match expected {
            Ok(requests) => input_required(id, requests),
            Err((key, method, required)) => missing_capability(id, key, method, required),
        };
        assert_eq!(answer, expected, "{tool} with {caps}");
    }
}

#[test]
fn a_modern_retry_completes_and_declines_fail_with_the_declared_reason() {
    let mut client = Client::spawn_with(SERVER, &[], mcp_tests::client::Pipes::default());
    let caps = json!({"elicitation": {}, "sampling": {}, "roots": {}});
    let accept = json!({"inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}});
    let answer =
        modern_roundtrip(&mut client, &modern_call(1, "confirm_delete", json!({"path": "/a"}), &caps, &accept));
    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": 1, "result": {
            "resultType": "complete",
            "content": [{"type": "text", "text": "{\"deleted\":\"/a\"}"}],
            "structuredContent": {"deleted": "/a"},
            "_meta": {SERVER_INFO_KEY: server_info()},
        }})
    );
    for action in ["decline", "cancel"] {
        let answered = json!({"inputResponses": {"confirm": {"action": action}}});
        let mut answer =
            modern_roundtrip(&mut client, &modern_call(2, "confirm_delete", json!({"path": "/a"}), &caps, &answered));
        let result = &mut answer["result"];
        take_request_id(result);
        assert_eq!(result["isError"], json!(true), "{action}: {result}");
        assert_eq!(
            result["content"][0]["text"],
            json!(
                "Error: The user did not confirm the deletion.\n\nRecovery: Do not retry unless the user asks again; nothing was deleted.\n\n(reason declined · not retryable · request <RID>)"
            ),
            "{action}"
        );
    }
    // Extra keys are ignored; the answer that was asked for completes the call.
    let extra = json!({"inputResponses": {
        "summary": {"role": "assistant", "content": {"type": "text", "text": "Short."}, "model": "m", "stopReason": "endTurn"},
        "unexpected": {"action": "accept", "content": {"x": 1}},
    }});
    let answer = modern_roundtrip(&mut client, &modern_call(3, "summarize", json!({"text": "long"}), &caps, &extra));
    assert_eq!(answer["result"]["content"], json!([{"type": "text", "text": "Short."}]));
    let roots = json!({"inputResponses": {"roots": {"roots": [{"uri": "file:///p", "name": "P"}]}}});
    let answer = modern_roundtrip(&mut client, &modern_call(4, "list_roots", json!({}), &caps, &roots));
    assert_eq!(answer["result"]["structuredContent"], json!({"roots": [{"uri": "file:///p", "name": "P"}]}));
}

#[test]
fn missing_wrong_or_malformed_answers_re_ask_and_malformed_fields_are_32602() {
    let mut client = Client::spawn_with(SERVER, &[], mcp_tests::client::Pipes::default());
    let caps = json!({"elicitation": {}});
    let ask = input_required(0, json!({"confirm": confirm_form("/a")}));
    for (id, extra) in [
        (1, json!({"inputResponses": {"wrong_key": {"action": "accept", "content": {"confirm": true}}}})),
        (2, json!({"inputResponses": {"confirm": 12345}})),
        // Wrapped as a JSON-RPC response: dropped.
        (3, json!({"inputResponses": {"confirm": {"result": {"action": "accept", "content": {"confirm": true}}}}})),
        // Content that does not fit the form.
        (4, json!({"inputResponses": {"confirm": {"action": "accept", "content": {"confirm": "yes"}}}})),
        (5, json!({"inputResponses": {}})),
    ] {
        let answer =
            modern_roundtrip(&mut client, &modern_call(id, "confirm_delete", json!({"path": "/a"}), &caps, &extra));
        let mut expected = ask.clone();
        expected["id"] = json!(id);
        assert_eq!(answer, expected, "{extra}");
    }
    for (id, extra, message) in [
        (
            6,
            json!({"inputResponses": null}),
            "Invalid params: `inputResponses` must be an object of answers keyed like the server's `inputRequests`",
        ),
        (
            7,
            json!({"inputResponses": [1]}),
            "Invalid params: `inputResponses` must be an object of answers keyed like the server's `inputRequests`",
        ),
    ] {
        let answer =
            modern_roundtrip(&mut client, &modern_call(id, "confirm_delete", json!({"path": "/a"}), &caps, &extra));
        assert_eq!(answer, json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": message}}));
    }
    // A state that is not a string is refused like any state this server did not seal.
    let mut answer = modern_roundtrip(
        &mut client,
        &modern_call(8, "confirm_delete", json!({"path": "/a"}), &caps, &json!({"requestState": 5})),
    );
    let request_id = answer["error"]["data"]["requestId"].take();
    assert!(request_id.as_str().is_some_and(mcp_tests::client::is_request_id), "{answer}");
    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": 8, "error": {"code": -32602, "message": "Invalid or expired requestState", "data": {"reason": "invalid_request_state", "requestId": null}}})
    );
    // `inputResponses` on a method that cannot ask is ignored.
    client.send(&json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": {"_meta": {VERSION_KEY: MODERN, CAPS_KEY: caps}, "inputResponses": null}}));
    let answer = client.recv();
    assert_eq!(answer["result"]["resultType"], json!("complete"), "{answer}");
}

#[test]
fn a_pre_answered_call_without_the_capability_never_reaches_the_handler() {
    let mut client = Client::spawn_with(SERVER, &[], mcp_tests::client::Pipes::default());
    let pre = json!({"inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}});
    for (id, caps) in [(1, json!({})), (2, json!({"sampling": {}})), (3, json!({"elicitation": {"url": {}}}))] {
        let answer =
            modern_roundtrip(&mut client, &modern_call(id, "confirm_delete", json!({"path": "/a"}), &caps, &pre));
        // The answer was filtered out, so the handler asked, and the gate refused the ask.
        assert_eq!(
            answer,
            missing_capability(id, "confirm", "elicitation/create", json!({"elicitation": {"form": {}}})),
            "{caps}"
        );
    }
    // Over a 2025 session, client-sent answers are ignored whatever was declared.
    client.send(&json!({"jsonrpc": "2.0", "id": 10, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}));
    client.recv();
    client.send(&json!({"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": {"name": "confirm_delete", "arguments": {"path": "/a"}, "inputResponses": pre["inputResponses"]}}));
    let mut answer = client.recv();
    take_request_id(&mut answer["result"]);
    assert_eq!(
        answer["result"]["content"][0]["text"],
        json!(
            "Error: Cannot request input 'confirm' (elicitation/create): the client on this 2025-era connection did not declare the `elicitation.form` capability\n\nRecovery: Reconnect with a client that declares the `elicitation.form` capability.\n\n(reason client_capability_missing · not retryable · request <RID>)"
        )
    );
}

/// Asks the client's model with tools: needs `sampling.tools`.
#[tool]
fn sample_with_tools(ctx: &Ctx) -> Result<String, ToolError> {
    if let Some(text) = ctx.inputs().sampled_text("s") {
        return Ok(text.to_owned());
    }
    let tools = json!([{"name": "lookup", "inputSchema": {"type": "object"}}]);
    Err(ctx.ask(Ask::new().sample("s", Sampling::new(10).user("hi").param("tools", tools))))
}

#[tokio::test]
async fn sampling_with_tools_needs_sampling_tools() {
    let server = Server::builder("t", "1").tool(sample_with_tools).build().expect("build");
    let mut conn = server.connect();
    let call = |id: i64, caps: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "sample_with_tools", "_meta": {VERSION_KEY: MODERN, CAPS_KEY: caps}}}).to_string()
    };
    let out = conn.send(&call(1, json!({"sampling": {}}))).await;
    let answer: Value = serde_json::from_str(&out[0]).expect("JSON");
    assert_eq!(answer["error"]["code"], json!(-32021), "{answer}");
    assert_eq!(answer["error"]["data"], json!({"requiredCapabilities": {"sampling": {"tools": {}}}}));
    let out = conn.send(&call(2, json!({"sampling": {"tools": {}}}))).await;
    let answer: Value = serde_json::from_str(&out[0]).expect("JSON");
    assert_eq!(answer["result"]["resultType"], json!("input_required"), "{answer}");
}

// ---- 2025: the legacy shim ------------------------------------------------------------

/// A 2025 session over `transport` ("stdio", "http", "stateless") that declared `caps`.
fn legacy(transport: &str, caps: &Value) -> Client {
    let mut client = match transport {
        "stdio" => Client::spawn_with(SERVER, &[], mcp_tests::client::Pipes::default()),
        "http" => Client::spawn_http(SERVER, &[], &[]),
        _ => Client::spawn_http(SERVER, &[], &["--stateless"]),
    };
    let init = client.roundtrip(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": caps, "clientInfo": {"name": "t", "version": "1"}}),
    );
    assert!(init.get("result").is_some(), "{init}");
    client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    client
}

/// The next message that is a request from the server, checked against the 2025 schema.
fn server_request(client: &mut Client) -> Value {
    let msg = client.recv();
    assert!(msg.get("method").is_some() && msg.get("id").is_some(), "expected a request from the server, got {msg}");
    check_message(Version::V2025_11_25, None, &msg).unwrap_or_else(|e| panic!("{e}"));
    msg
}

fn answer(client: &mut Client, request: &Value, result: Value) {
    client.send(&json!({"jsonrpc": "2.0", "id": request["id"], "result": result}));
}

fn text_of(response: &Value) -> String {
    response["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text in {response}")).to_owned()
}

#[test]
fn the_shim_fulfils_asks_over_stdio_and_http_sessions() {
    for transport in ["stdio", "http"] {
        let mut client = legacy(transport, &json!({"elicitation": {}, "sampling": {}, "roots": {}}));
        let id = client.request("tools/call", json!({"name": "confirm_delete", "arguments": {"path": "/a"}}));
        let request = server_request(&mut client);
        assert_eq!(request["method"], json!("elicitation/create"));
        let mut params = request["params"].clone();
        assert_eq!(params["_meta"]["progressToken"], request["id"], "{transport}");
        params.as_object_mut().expect("object").remove("_meta");
        assert_eq!(params, confirm_form("/a")["params"], "{transport}");
        answer(&mut client, &request, json!({"action": "accept", "content": {"confirm": true}}));
        let response = client.recv();
        assert_eq!(
            response,
            json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": "{\"deleted\":\"/a\"}"}], "structuredContent": {"deleted": "/a"}}}),
            "{transport}"
        );

        let id = client.request("tools/call", json!({"name": "summarize", "arguments": {"text": "long text"}}));
        let request = server_request(&mut client);
        assert_eq!(request["method"], json!("sampling/createMessage"));
        answer(
            &mut client,
            &request,
            json!({"role": "assistant", "content": {"type": "text", "text": "Short."}, "model": "m", "stopReason": "endTurn"}),
        );
        assert_eq!(
            client.recv(),
            json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": "Short."}]}})
        );

        // A declined answer is the declared failure.
        let id = client.request("tools/call", json!({"name": "confirm_delete", "arguments": {"path": "/b"}}));
        let request = server_request(&mut client);
        answer(&mut client, &request, json!({"action": "decline"}));
        let response = client.recv();
        assert_eq!(response["id"], json!(id));
        assert!(text_of(&response).starts_with("Error: The user did not confirm the deletion."), "{response}");
    }
}

#[test]
fn the_legacy_gate_refuses_with_the_exact_envelope_before_anything_is_sent() {
    let mut client = legacy("stdio", &json!({"elicitation": {"url": {}}}));
    let response = client.roundtrip("tools/call", json!({"name": "summarize", "arguments": {"text": "t"}}));
    let mut result = response["result"].clone();
    take_request_id(&mut result);
    let message = "Cannot request input 'summary' (sampling/createMessage): the client on this 2025-era connection did not declare the `sampling` capability";
    let hint = "Reconnect with a client that declares the `sampling` capability.";
    assert_eq!(
        result,
        json!({
            "content": [{"type": "text", "text": format!("Error: {message}\n\nRecovery: {hint}\n\n(reason client_capability_missing · not retryable · request <RID>)")}],
            "structuredContent": {"error": {"code": -32600, "message": message, "data": {"reason": "client_capability_missing", "retryable": false, "recovery": {"hint": hint}, "requestId": "<RID>"}}},
            "isError": true,
        })
    );
    // `{url: {}}` alone is not form elicitation.
    let response = client.roundtrip("tools/call", json!({"name": "confirm_delete", "arguments": {"path": "/a"}}));
    assert!(text_of(&response).starts_with("Error: Cannot request input 'confirm' (elicitation/create): the client on this 2025-era connection did not declare the `elicitation.form` capability"), "{response}");
    // Nothing was sent to the client: the next line answers a ping.
    let ping = client.roundtrip("ping", json!({}));
    assert_eq!(ping["result"], json!({}));
    // The log goes through its own thread: give it a moment to reach stderr.
    let logged = (0..100).any(|_| {
        let seen = client.stderr().contains("client_capability_missing");
        if !seen {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        seen
    });
    assert!(logged, "logged: {}", client.stderr());
}

/// Issue 33 item 2: over HTTP without sessions a 2025-era request cannot be asked, whatever
/// its client declared (here it declared `elicitation`): the refusal says so, and says how a
/// call can succeed (a 2026-07-28 client, or a server with sessions).
#[test]
fn stateless_http_refuses_naming_the_real_cause() {
    let mut client = legacy("stateless", &json!({"elicitation": {}, "sampling": {}}));
    let response = client.roundtrip("tools/call", json!({"name": "summarize", "arguments": {"text": "t"}}));
    let mut result = response["result"].clone();
    take_request_id(&mut result);
    let message = "Cannot request input 'summary' (sampling/createMessage): this server serves HTTP without sessions, and a 2025-era request there cannot be asked anything (no server-to-client round trip is possible within one request)";
    let hint = "Asking needs a client that speaks MCP 2026-07-28 (it answers in a retry of the call) or a server that keeps sessions; do not retry with this client.";
    assert_eq!(
        result,
        json!({
            "content": [{"type": "text", "text": format!("Error: {message}\n\nRecovery: {hint}\n\n(reason client_capability_missing · not retryable · request <RID>)")}],
            "structuredContent": {"error": {"code": -32600, "message": message, "data": {"reason": "client_capability_missing", "retryable": false, "recovery": {"hint": hint}, "requestId": "<RID>"}}},
            "isError": true,
        })
    );
}

#[derive(Deserialize, JsonSchema)]
struct Sure {
    /// Remove it?
    #[allow(dead_code)]
    sure: bool,
}

#[derive(Serialize, JsonSchema)]
struct Removed {
    removed: String,
}

/// Removes `path` once the user confirms; a client that cannot be asked is told what to do.
#[tool]
fn remove_with_fallback(ctx: &Ctx, path: String) -> Result<Removed, ToolError> {
    match ctx.inputs().form::<Sure>("confirm") {
        Elicited::Accepted(_) => Ok(Removed { removed: path }),
        _ => Err(ctx.ask(
            Ask::new()
                .elicit("confirm", Elicitation::form_for::<Sure>(format!("Remove {path}?")))
                .fallback_hint("Ask the user to confirm in the chat, then call remove_confirmed."),
        )),
    }
}

/// Issue 33 item 2: the ask's fallback hint reaches the model, in the text of a tool with an
/// output schema (whose error result has no `structuredContent`), after the hint.
#[test]
fn the_fallback_hint_of_a_stateless_refusal_reaches_the_model() {
    let server = Server::builder("t", "0").tool(remove_with_fallback).stateless_http(true).build().expect("builds");
    let http = mcp_tests::http::InProcess::serve(server);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "remove_with_fallback", "arguments": {"path": "/a"}}});
    let headers = [("content-type", "application/json"), ("accept", "application/json, text/event-stream")];
    let response =
        mcp_tests::http::request(http.port, "POST", "/mcp", &headers, body.to_string().as_bytes()).expect("answered");
    assert_eq!(response.status, 200);
    let answer: Value = serde_json::from_str(&response.text()).expect("JSON");
    let mut result = answer["result"].clone();
    take_request_id(&mut result);
    assert_eq!(
        result,
        json!({
            "content": [{"type": "text", "text": "Error: Cannot request input 'confirm' (elicitation/create): this server serves HTTP without sessions, and a 2025-era request there cannot be asked anything (no server-to-client round trip is possible within one request)\n\nRecovery: Asking needs a client that speaks MCP 2026-07-28 (it answers in a retry of the call) or a server that keeps sessions; do not retry with this client. Ask the user to confirm in the chat, then call remove_confirmed.\n\n(reason client_capability_missing · not retryable · request <RID>)"}],
            "isError": true,
        })
    );
}

/// Issue 33 item 2: `build()` knows which tools ask (the macro reads `ctx.ask(..)` and
/// `ctx.consent(..)` in the body); without sessions it warns, or refuses with
/// `deny_stateless_asks(true)`, naming them.
#[test]
#[allow(clippy::items_after_statements)] // the tools are defined where each case starts
fn a_stateless_server_with_asking_tools_is_refused_on_request() {
    /// Asks nothing.
    #[tool]
    fn plain() -> String {
        "plain".into()
    }
    let builder = || Server::builder("t", "0").tool(remove_with_fallback).tool(plain);
    let refused = builder().stateless_http(true).deny_stateless_asks(true).build().err().expect("refused");
    assert_eq!(
        refused.to_string(),
        "tool `remove_with_fallback` asks the client (elicitation, sampling, roots or consent), but the server serves HTTP without sessions (`stateless_http(true)`, `--stateless`), where a 2025-era client cannot be asked anything (`deny_stateless_asks(true)`): serve with sessions, or turn `deny_stateless_asks` off to serve it to 2026-07-28 clients only"
    );
    // With sessions, or without the setting, it builds.
    assert!(builder().deny_stateless_asks(true).build().is_ok());
    assert!(builder().stateless_http(true).build().is_ok());

    // An ask in a helper is declared; a method of another type named `ask` is overridden.
    fn ask_in_helper(ctx: &Ctx) -> ToolError {
        ctx.ask(Ask::new().list_roots("roots"))
    }
    /// Asks through a helper.
    #[tool(asks)]
    fn helper_asks(ctx: &Ctx) -> Result<String, ToolError> {
        Err(ask_in_helper(ctx))
    }
    struct Oracle;
    impl Oracle {
        #[allow(clippy::unused_self)] // a method named `ask` on a value, like `ctx.ask`
        fn ask(&self, question: &str) -> String {
            format!("42 ({question})")
        }
    }
    /// Asks an oracle, not the client.
    #[tool(asks = false)]
    fn oracle() -> String {
        Oracle.ask("why")
    }
    let strict = || Server::builder("t", "0").stateless_http(true).deny_stateless_asks(true);
    let refused = strict().tool(helper_asks).build().err().expect("refused");
    assert!(refused.to_string().starts_with("tool `helper_asks` asks the client"), "{refused}");
    assert!(strict().tool(oracle).build().is_ok());
}

/// The warning names every tool that asks, once, when the fixture serves without sessions.
#[test]
fn a_stateless_server_with_asking_tools_warns_at_build() {
    let client = legacy("stateless", &json!({}));
    assert!(client.wait_for_stderr("ask the client", 1), "{}", client.stderr());
    let stderr = client.stderr();
    let line = stderr.lines().find(|l| l.contains("ask the client")).expect("the warning");
    assert!(line.contains(" WARN "), "{line}");
    assert!(
        line.ends_with("tools `confirm_delete`, `summarize`, `list_roots`, `ask_all`, `keep_asking`, `count_rounds`, `delete_item`, `slow_job` ask the client (elicitation, sampling, roots or consent), but the server serves HTTP without sessions (`stateless_http(true)`, `--stateless`), where a 2025-era client cannot be asked anything: a 2025-era call is refused with `client_capability_missing`, only 2026-07-28 clients can answer; serve with sessions for 2025-era clients (`deny_stateless_asks(true)` makes this an error)"),
        "{line}"
    );
    // Served with sessions, nothing is said (the warning would come before the line that
    // says the server listens, which `legacy` waited for).
    let with_sessions = legacy("http", &json!({}));
    assert!(!with_sessions.stderr().contains("ask the client"), "{}", with_sessions.stderr());
}

#[test]
fn the_shim_gives_up_after_eight_rounds() {
    let mut client = legacy("stdio", &json!({"elicitation": {}}));
    let id = client.request("tools/call", json!({"name": "keep_asking", "arguments": {}}));
    for round in 1..=8 {
        let request = server_request(&mut client);
        assert_eq!(request["params"]["message"], json!(format!("Round {round}: more?")));
        answer(&mut client, &request, json!({"action": "accept", "content": {"more": true}}));
    }
    let mut response = client.recv();
    assert_eq!(response["id"], json!(id), "{response}");
    take_request_id(&mut response["result"]);
    assert_eq!(
        response["result"]["structuredContent"]["error"]["message"],
        json!("Multi-round-trip request 'tools/call' still required input after 8 rounds (inputRequired.maxRounds)")
    );
    // Rounds that only carry state are paced (250 ms each) and count towards the cap.
    let started = Instant::now();
    let response = client.roundtrip("tools/call", json!({"name": "count_rounds", "arguments": {"to": 2}}));
    assert_eq!(text_of(&response), "counted to 2");
    assert!(started.elapsed() >= Duration::from_millis(500), "{:?}", started.elapsed());
    let response = client.roundtrip("tools/call", json!({"name": "count_rounds", "arguments": {"to": 9}}));
    assert!(
        text_of(&response)
            .starts_with("Error: Multi-round-trip request 'tools/call' still required input after 8 rounds"),
        "{response}"
    );
}

#[test]
fn a_cancelled_round_sends_no_response_and_ignores_late_answers() {
    for transport in ["stdio", "http"] {
        cancelled_round(transport);
    }
}

fn cancelled_round(transport: &str) {
    let mut client = legacy(transport, &json!({"elicitation": {}}));
    let id = client.request("tools/call", json!({"name": "confirm_delete", "arguments": {"path": "/a"}}));
    let request = server_request(&mut client);
    client.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id}}));
    // The leg is cancelled with the client.
    let cancelled = client.recv();
    assert_eq!(
        cancelled,
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": request["id"], "reason": "the call was cancelled"}})
    );
    // A late answer is ignored, and the call is never answered: the next line is the ping's.
    answer(&mut client, &request, json!({"action": "accept", "content": {"confirm": true}}));
    let ping = client.roundtrip("ping", json!({}));
    assert_eq!(ping["result"], json!({}));
    assert!(client.recv_within(Duration::from_millis(300)).is_none(), "nothing more");
    // The session still works.
    let id = client.request("tools/call", json!({"name": "confirm_delete", "arguments": {"path": "/c"}}));
    let request = server_request(&mut client);
    answer(&mut client, &request, json!({"action": "accept", "content": {"confirm": true}}));
    assert_eq!(client.recv()["result"]["structuredContent"], json!({"deleted": "/c"}));
    let _ = id;
}

#[test]
fn a_rounds_requests_go_out_together() {
    let mut client = legacy("stdio", &json!({"elicitation": {}, "sampling": {}, "roots": {}}));
    let id = client.request("tools/call", json!({"name": "ask_all", "arguments": {}}));
    // All three arrive before any is answered.
    let requests: Vec<Value> = (0..3).map(|_| server_request(&mut client)).collect();
    let mut methods: Vec<&str> = requests.iter().map(|r| r["method"].as_str().expect("method")).collect();
    methods.sort_unstable();
    assert_eq!(methods, ["elicitation/create", "roots/list", "sampling/createMessage"]);
    for request in requests.iter().rev() {
        let result = match request["method"].as_str() {
            Some("elicitation/create") => json!({"action": "accept", "content": {"name": "Ada"}}),
            Some("sampling/createMessage") => {
                json!({"role": "assistant", "content": {"type": "text", "text": "Hello"}, "model": "m"})
            }
            _ => json!({"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]}),
        };
        answer(&mut client, request, result);
    }
    assert_eq!(
        client.recv(),
        json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": "Hello, Ada; 2 roots"}]}})
    );
}

#[test]
fn two_calls_in_flight_never_see_each_others_answers() {
    let mut client = legacy("stdio", &json!({"elicitation": {}}));
    let a = client.request("tools/call", json!({"name": "confirm_delete", "arguments": {"path": "/a"}}));
    let b = client.request("tools/call", json!({"name": "confirm_delete", "arguments": {"path": "/b"}}));
    let first = server_request(&mut client);
    let second = server_request(&mut client);
    let (for_a, for_b) =
        if first["params"]["message"] == json!("Delete /a?") { (first, second) } else { (second, first) };
    assert_eq!(for_b["params"]["message"], json!("Delete /b?"));
    // Answered in the other order: /b is accepted, /a declined.
    answer(&mut client, &for_b, json!({"action": "accept", "content": {"confirm": true}}));
    answer(&mut client, &for_a, json!({"action": "decline"}));
    let mut responses = [client.recv(), client.recv()];
    responses.sort_by_key(|r| r["id"].as_i64());
    assert_eq!(responses[0]["id"], json!(a));
    assert!(text_of(&responses[0]).starts_with("Error: The user did not confirm the deletion."), "{}", responses[0]);
    assert_eq!(responses[1]["id"], json!(b));
    assert_eq!(responses[1]["result"]["structuredContent"], json!({"deleted": "/b"}));
}

#[test]
fn a_failed_leg_fails_the_call() {
    let mut client = legacy("stdio", &json!({"elicitation": {}}));
    let id = client.request("tools/call", json!({"name": "confirm_delete", "arguments": {"path": "/a"}}));
    let request = server_request(&mut client);
    client.send(
        &json!({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": "Method not found"}}),
    );
    let response = client.recv();
    assert_eq!(response["id"], json!(id));
    assert!(
        text_of(&response).starts_with("Error: Fulfilling input required by 'tools/call' failed: 'confirm': the client answered Method not found (-32601)"),
        "{response}"
    );
}

#[test]
fn a_legs_time_limit_restarts_with_each_progress_notification() {
    const LIMIT: Duration = Duration::from_secs(1);
    let mut client =
        Client::spawn_with(SERVER, &[("FIXTURE_ASK_TIMEOUT_MS", "1000")], mcp_tests::client::Pipes::default());
    client.roundtrip(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}}, "clientInfo": {"name": "t", "version": "1"}}),
    );
    // Kept alive past one and a half times its limit by progress sent every 50 ms (a client's
    // pace, not a wait on the server: only a stall of a whole second between two of them
    // could let the limit pass), then answered.
    let id = client.request("tools/call", json!({"name": "confirm_delete", "arguments": {"path": "/a"}}));
    let request = server_request(&mut client);
    let asked = Instant::now();
    let token = request["params"]["_meta"]["progressToken"].clone();
    let mut step = 0;
    while asked.elapsed() < LIMIT * 3 / 2 {
        std::thread::sleep(Duration::from_millis(50));
        step += 1;
        client.send(&json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": step}}));
    }
    answer(&mut client, &request, json!({"action": "accept", "content": {"confirm": true}}));
    let response = client.recv();
    assert_eq!(response["id"], json!(id));
    assert_eq!(response["result"]["structuredContent"], json!({"deleted": "/a"}), "{response}");
    // Without progress it fails at the limit, and the client is told to stop.
    let started = Instant::now();
    let id = client.request("tools/call", json!({"name": "confirm_delete", "arguments": {"path": "/b"}}));
    let request = server_request(&mut client);
    let cancelled = client.recv();
    assert_eq!(
        cancelled,
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": request["id"], "reason": "the round failed: 'confirm': no answer within 1 s"}})
    );
    let response = client.recv();
    assert_eq!(response["id"], json!(id));
    assert!(
        text_of(&response)
            .starts_with("Error: Fulfilling input required by 'tools/call' failed: 'confirm': no answer within 1 s"),
        "{response}"
    );
    assert!(started.elapsed() >= LIMIT);
}

#[test]
fn over_modern_http_input_required_is_200_and_a_missing_capability_400() {
    let client = Client::spawn_http(SERVER, &[], &["--stateless"]);
    let port = client.http_port().expect("a port");
    let call_with = |caps: Value| {
        let body = modern_call(1, "confirm_delete", json!({"path": "/a"}), &caps, &json!({})).to_string();
        let headers = [
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("MCP-Protocol-Version", MODERN),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "confirm_delete"),
        ];
        let response = mcp_tests::http::request(port, "POST", "/mcp", &headers, body.as_bytes()).expect("POST");
        let status = response.status;
        let answer: Value = serde_json::from_str(&response.text()).expect("JSON");
        (status, answer)
    };
    let (status, answer) = call_with(json!({"elicitation": {}}));
    assert_eq!((status, answer), (200, input_required(1, json!({"confirm": confirm_form("/a")}))));
    let (status, answer) = call_with(json!({}));
    assert_eq!(
        (status, answer),
        (400, missing_capability(1, "confirm", "elicitation/create", json!({"elicitation": {"form": {}}})))
    );
}

#[tokio::test]
async fn an_in_process_connection_cannot_be_asked_and_says_so_at_once() {
    let server = mcp_tests::fixture::builder(false).build().expect("build");
    let mut conn = server.connect();
    conn.send(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}}}}"#).await;
    let started = Instant::now();
    let out = conn
        .send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"confirm_delete","arguments":{"path":"/a"}}}"#)
        .await;
    assert!(started.elapsed() < Duration::from_secs(5));
    let answer: Value = serde_json::from_str(out.last().expect("an answer")).expect("JSON");
    assert_eq!(out.len(), 1, "nothing but the answer: {out:?}");
    assert!(
        text_of(&answer)
            .starts_with("Error: Fulfilling input required by 'tools/call' failed: no client is connected to ask"),
        "{answer}"
    );
}
