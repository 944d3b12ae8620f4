//! Two protocol eras on one server: a request whose `params._meta` claims 2026-07-28 (with
//! `clientCapabilities`) is served statelessly in the modern era; anything else is legacy
//! (2025-11-25, after `initialize`). Every row of the era table, over real stdio
//! (`fixture-server`) and, where the list of tools must change or a tool must gate on a
//! capability, in-process over `tokio::io::duplex`.
//!
//! Every message the server writes in these tests is checked against the official JSON
//! Schema of the era of the request it belongs to ([`mcp_tests::spec_schema`]), and none may
//! be a JSON-RPC request (the fixture never asks the client anything).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use mcp_runtime::prelude::*;
use mcp_tests::client::Client;
use mcp_tests::fixture::work_logs;
use mcp_tests::spec_schema::{Version, check_message};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};

const SERVER: &str = env!("CARGO_BIN_EXE_fixture-server");
const MODERN: &str = "2026-07-28";
const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
const CAPS_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
const INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
const LEVEL_KEY: &str = "io.modelcontextprotocol/logLevel";
const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";
const SUBSCRIPTION_KEY: &str = "io.modelcontextprotocol/subscriptionId";
/// The two eras, short, for the in-process tests.
const M: Version = Version::V2026_07_28;
const L: Version = Version::V2025_11_25;

fn server_info() -> Value {
    json!({"name": "fixture-server", "version": env!("CARGO_PKG_VERSION")})
}

/// The smallest valid modern envelope.
fn envelope() -> Value {
    json!({VERSION_KEY: MODERN, CAPS_KEY: {}})
}

/// `params` with `meta` merged into its `_meta`.
fn with_meta(mut params: Value, meta: &Value) -> Value {
    if params.is_null() {
        params = json!({});
    }
    let target = params.as_object_mut().expect("params is an object").entry("_meta").or_insert_with(|| json!({}));
    for (k, v) in meta.as_object().expect("meta is an object") {
        target[k] = v.clone();
    }
    params
}

fn modern_params(params: Value) -> Value {
    with_meta(params, &envelope())
}

fn text_result(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}]})
}

/// A legacy result as a modern one: `resultType` first, `_meta` naming the server last.
fn modern_result(legacy: &Value) -> Value {
    let mut out = json!({"resultType": "complete"});
    for (k, v) in legacy.as_object().expect("a result object") {
        out[k] = v.clone();
    }
    out["_meta"] = json!({SERVER_INFO_KEY: server_info()});
    out
}

fn rpc_error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

fn discover_result() -> Value {
    json!({
        "resultType": "complete",
        "supportedVersions": [MODERN],
        // `slow_job` and `report` run as tasks: the tasks extension is offered (2026-07-28 only).
        "capabilities": {"tools": {"listChanged": true}, "logging": {}, "resources": {"subscribe": true, "listChanged": true}, "prompts": {"listChanged": true}, "completions": {}, "extensions": {"io.modelcontextprotocol/skills": {"directoryRead": true}, "io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}, "io.modelcontextprotocol/tasks": {}}},
        "ttlMs": 0,
        "cacheScope": "private",
        "_meta": {SERVER_INFO_KEY: server_info()},
    })
}

/// Checks one message the server wrote: never a request; valid against the schema of `version`.
fn check(version: Version, method: Option<&str>, msg: &Value) {
    assert!(!(msg.get("method").is_some() && msg.get("id").is_some()), "the server sent a JSON-RPC request: {msg}");
    if let Err(e) = check_message(version, method, msg) {
        panic!("schema check failed for {msg}:\n{e}");
    }
}

/// A client of `fixture-server` over stdio that knows the era and method of every request
/// it sent, and checks every message it receives against the schema of that era.
/// Notifications are checked against the era of the last request sent.
struct Conn {
    c: Client,
    next_id: i64,
    sent: HashMap<String, (String, Version)>,
    last: Version,
    /// Notifications received while waiting for a response.
    notes: Vec<Value>,
    /// How many messages were checked.
    checked: usize,
}

impl Conn {
    fn spawn() -> Conn {
        Conn::wrap(Client::spawn_with(SERVER, &[], mcp_tests::client::Pipes::default()))
    }

    fn wrap(c: Client) -> Conn {
        Conn { c, next_id: 1, sent: HashMap::new(), last: Version::V2025_11_25, notes: Vec::new(), checked: 0 }
    }

    fn fresh_id(&mut self) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        json!(id)
    }

    /// Sends a request with `id` as it is, to be checked as `version`.
    fn send_as(&mut self, version: Version, id: &Value, method: &str, params: Value) {
        self.sent.insert(id.to_string(), (method.to_owned(), version));
        self.last = version;
        self.c.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
    }

    /// A request without any claim; returns its id.
    fn legacy(&mut self, method: &str, params: Value) -> Value {
        let id = self.fresh_id();
        self.send_as(Version::V2025_11_25, &id, method, params);
        id
    }

    /// A request with the modern envelope merged into `params._meta`; returns its id.
    fn modern(&mut self, method: &str, params: Value) -> Value {
        self.modern_with(method, params, &envelope())
    }

    /// A request with `meta` merged into `params._meta` (checked as 2026-07-28).
    fn modern_with(&mut self, method: &str, params: Value, meta: &Value) -> Value {
        let id = self.fresh_id();
        self.send_as(Version::V2026_07_28, &id, method, with_meta(params, meta));
        id
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.c.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// The next message, checked.
    fn recv(&mut self) -> Value {
        let msg = self.c.recv();
        self.check(&msg);
        msg
    }

    fn recv_within(&mut self, timeout: Duration) -> Option<Value> {
        let msg = self.c.recv_within(timeout)?;
        self.check(&msg);
        Some(msg)
    }

    fn check(&mut self, msg: &Value) {
        self.checked += 1;
        if msg.get("method").is_some() {
            check(self.last, None, msg);
            return;
        }
        let id = msg.get("id").expect("a response has an id");
        if let Some((method, version)) = self.sent.get(&id.to_string()) {
            check(*version, Some(method), msg);
        } else {
            // A response to nothing this client sent (a null id): either era's envelope.
            check(Version::V2025_11_25, None, msg);
            check(Version::V2026_07_28, None, msg);
        }
    }

    /// Waits for the response to `id`; notifications before it go to `notes`.
    fn answer(&mut self, id: &Value) -> Value {
        loop {
            let msg = self.recv();
            if msg.get("id") == Some(id) {
                return msg;
            }
            assert!(msg.get("method").is_some(), "a response to another request arrived first: {msg}");
            self.notes.push(msg);
        }
    }

    /// A legacy request and its response.
    fn legacy_rt(&mut self, method: &str, params: Value) -> Value {
        let id = self.legacy(method, params);
        self.answer(&id)
    }

    /// A modern request and its response.
    fn modern_rt(&mut self, method: &str, params: Value) -> Value {
        let id = self.modern(method, params);
        self.answer(&id)
    }

    fn initialize_as(&mut self, name: &str, capabilities: &Value) -> Value {
        let params = json!({"protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": {"name": name, "version": "1.0.0"}});
        let resp = self.legacy_rt("initialize", params);
        assert_eq!(resp["result"]["protocolVersion"], json!("2025-11-25"), "{resp}");
        self.notify("notifications/initialized", json!({}));
        resp
    }

    fn initialize(&mut self) -> Value {
        self.initialize_as("mcp-tests", &json!({}))
    }

    fn take_notes(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.notes)
    }
}

/// A modern result must carry `resultType` and `_meta.serverInfo`; a legacy one neither.
fn assert_modern(resp: &Value) {
    assert_eq!(resp["result"]["resultType"], json!("complete"), "{resp}");
    assert_eq!(resp["result"]["_meta"][SERVER_INFO_KEY], server_info(), "{resp}");
}

fn assert_legacy(resp: &Value) {
    let result = resp["result"].as_object().unwrap_or_else(|| panic!("a result: {resp}"));
    for key in ["resultType", "ttlMs", "cacheScope", "_meta"] {
        assert!(!result.contains_key(key), "a legacy result carries {key}: {resp}");
    }
}

// ---- classification ---------------------------------------------------------------------

#[test]
fn a_modern_claim_is_served_statelessly_without_initialize() {
    let mut c = Conn::spawn();
    let list = c.modern_rt("tools/list", json!({}));
    assert_modern(&list);
    assert_eq!(list["result"]["ttlMs"], json!(0), "{list}");
    assert_eq!(list["result"]["cacheScope"], json!("private"), "{list}");
    let mut keys: Vec<&str> = list["result"].as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["_meta", "cacheScope", "resultType", "tools", "ttlMs"]);
    assert_eq!(list["result"]["_meta"], json!({SERVER_INFO_KEY: server_info()}));

    let echo = c.modern_rt("tools/call", json!({"name": "echo", "arguments": {"text": "modern"}}));
    assert_eq!(echo["result"], modern_result(&text_result("modern")));
    let add = c.modern_rt("tools/call", json!({"name": "add", "arguments": {"a": 2, "b": 3}}));
    assert_eq!(
        add["result"],
        modern_result(&json!({"content": [{"type": "text", "text": "{\"sum\":5}"}], "structuredContent": {"sum": 5}}))
    );

    // The same tools as a legacy session lists, in the same order.
    c.initialize();
    let legacy = c.legacy_rt("tools/list", json!({}));
    assert_legacy(&legacy);
    assert_eq!(legacy["result"]["tools"], list["result"]["tools"]);
}

#[test]
fn a_modern_claim_needs_client_capabilities_as_an_object() {
    let mut c = Conn::spawn();
    for caps in [json!([]), json!("sampling"), json!(1), json!(true), json!(null)] {
        let meta = json!({VERSION_KEY: MODERN, CAPS_KEY: caps});
        let id = c.modern_with("tools/list", json!({}), &meta);
        let resp = c.answer(&id);
        assert_eq!(resp["error"]["code"], json!(-32602), "caps {caps}: {resp}");
        assert!(resp["error"]["message"].as_str().unwrap().contains(CAPS_KEY), "caps {caps}: {resp}");
    }
    let id = c.modern_with("tools/list", json!({}), &json!({VERSION_KEY: MODERN}));
    let resp = c.answer(&id);
    assert_eq!(resp["error"]["code"], json!(-32602), "{resp}");
    assert!(resp["error"]["message"].as_str().unwrap().contains(CAPS_KEY), "{resp}");
    // Also once a legacy session exists: the claim is still modern, still malformed.
    c.initialize();
    let id = c.modern_with("tools/list", json!({}), &json!({VERSION_KEY: MODERN, CAPS_KEY: []}));
    assert_eq!(c.answer(&id)["error"]["code"], json!(-32602));
}

#[test]
fn an_unknown_claimed_version_is_32022_with_the_supported_list() {
    let mut c = Conn::spawn();
    for version in ["1900-01-01", "v999.0.0", "2026-07-29", "", "2026-07-28 "] {
        let id = c.modern_with("tools/list", json!({}), &json!({VERSION_KEY: version, CAPS_KEY: {}}));
        let resp = c.answer(&id);
        assert_eq!(resp["error"]["code"], json!(-32022), "{version:?}: {resp}");
        assert_eq!(resp["error"]["data"], json!({"supported": [MODERN], "requested": version}), "{version:?}");
        assert_eq!(resp["id"], id);
    }
    // The same for methods that exist in no era, and before or after initialize.
    c.initialize();
    let id = c.modern_with("server/discover", json!({}), &json!({VERSION_KEY: "v999.0.0", CAPS_KEY: {}}));
    assert_eq!(c.answer(&id)["error"]["data"], json!({"supported": [MODERN], "requested": "v999.0.0"}));
}

#[test]
fn a_claimed_version_that_is_not_a_string_is_invalid_params() {
    let mut c = Conn::spawn();
    for version in [json!(7), json!(2026.07), json!(true), json!({}), json!(["2026-07-28"]), json!(null)] {
        let id = c.modern_with("tools/list", json!({}), &json!({VERSION_KEY: version, CAPS_KEY: {}}));
        let resp = c.answer(&id);
        assert_eq!(
            resp,
            rpc_error(&id, -32602, &format!("Invalid params: `_meta[\"{VERSION_KEY}\"]` must be a string")),
            "version {version}"
        );
    }
}

#[test]
fn a_claim_naming_a_legacy_revision_is_legacy_traffic() {
    let mut c = Conn::spawn();
    // No session yet: legacy traffic needs `initialize` first.
    let id = c.legacy("tools/list", json!({"_meta": {VERSION_KEY: "2025-11-25", CAPS_KEY: {}}}));
    assert_eq!(c.answer(&id)["error"]["code"], json!(-32602));
    c.initialize();
    let plain = c.legacy_rt("tools/list", json!({}));
    for version in ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] {
        let list = c.legacy_rt("tools/list", json!({"_meta": {VERSION_KEY: version, CAPS_KEY: {}}}));
        assert_legacy(&list);
        assert_eq!(list["result"], plain["result"], "{version}");
        let echo = c.legacy_rt(
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "old"}, "_meta": {VERSION_KEY: version}}),
        );
        assert_eq!(echo["result"], text_result("old"), "{version}");
        // Legacy methods stay available under a legacy claim.
        let ping = c.legacy_rt("ping", json!({"_meta": {VERSION_KEY: version}}));
        assert_eq!(ping["result"], json!({}), "{version}");
    }
}

#[test]
fn initialize_is_legacy_without_a_claim_and_method_not_found_with_one() {
    let mut c = Conn::spawn();
    let id = c.modern(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}),
    );
    let resp = c.answer(&id);
    assert_eq!(resp["error"]["code"], json!(-32601), "{resp}");
    assert!(resp["error"]["message"].as_str().unwrap().contains("server/discover"), "{resp}");
    // The refused modern initialize opened no session: a claim-less request still needs one…
    let id = c.legacy("tools/list", json!({}));
    assert_eq!(c.answer(&id)["error"]["code"], json!(-32602));
    // …and the legacy handshake works afterwards.
    let init = c.initialize();
    assert_eq!(
        init["result"],
        json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {"listChanged": true}, "logging": {}, "resources": {"subscribe": true, "listChanged": true}, "prompts": {"listChanged": true}, "completions": {}, "extensions": {"io.modelcontextprotocol/skills": {"directoryRead": true}, "io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}},
            "serverInfo": server_info(),
        })
    );
    // With a legacy claim, initialize is legacy too (and now a second one).
    let id = c.legacy("initialize", json!({"protocolVersion": "2025-11-25", "_meta": {VERSION_KEY: "2025-11-25"}}));
    assert_eq!(c.answer(&id)["error"]["code"], json!(-32600));
}

#[test]
fn removed_and_unknown_methods_are_method_not_found_under_a_modern_claim() {
    let mut c = Conn::spawn();
    for round in 0..2 {
        for method in ["ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "initialize"] {
            let resp = c.modern_rt(method, json!({"level": "debug", "uri": "file:///x"}));
            assert_eq!(resp["error"]["code"], json!(-32601), "{method}: {resp}");
            assert!(resp["error"]["message"].as_str().unwrap().starts_with("Method not found"), "{resp}");
        }
        for method in ["nope", "roots/list", "sampling/createMessage", "tasks/list", "notifications/initialized"] {
            let resp = c.modern_rt(method, json!({}));
            assert_eq!(resp["error"]["code"], json!(-32601), "{method}: {resp}");
        }
        // The same once a legacy session exists (round 1).
        if round == 0 {
            c.initialize();
        }
    }
    // Legacy unknown methods, too; and `server/discover` is not a legacy method.
    for method in ["nope", "server/discover", "subscriptions/listen"] {
        let resp = c.legacy_rt(method, json!({}));
        assert_eq!(resp["error"]["code"], json!(-32601), "{method}: {resp}");
    }
}

#[test]
fn claim_less_ping_before_initialize_is_answered() {
    let mut c = Conn::spawn();
    assert_eq!(c.legacy_rt("ping", json!({}))["result"], json!({}));
    let id = c.legacy("ping", Value::Null);
    assert_eq!(c.answer(&id), json!({"jsonrpc": "2.0", "id": id, "result": {}}));
}

#[test]
fn claim_less_requests_without_a_session_are_invalid_params_and_the_process_keeps_serving() {
    let mut c = Conn::spawn();
    for (method, params) in [
        ("tools/list", json!({})),
        ("tools/call", json!({"name": "echo", "arguments": {"text": "x"}})),
        ("server/discover", json!({})),
        ("logging/setLevel", json!({"level": "debug"})),
        ("subscriptions/listen", json!({"notifications": {"toolsListChanged": true}})),
        ("nope", json!({})),
        ("tools/list", json!({"_meta": {"progressToken": 1}})),
    ] {
        let resp = c.legacy_rt(method, params);
        assert_eq!(resp["error"]["code"], json!(-32602), "{method}: {resp}");
        let message = resp["error"]["message"].as_str().unwrap();
        assert!(message.contains(VERSION_KEY), "{message}");
        assert!(message.contains("initialize"), "{message}");
    }
    // Still serving, in both eras.
    assert_eq!(c.legacy_rt("ping", json!({}))["result"], json!({}));
    assert_eq!(c.modern_rt("server/discover", json!({}))["result"], discover_result());
    c.initialize();
    let echo = c.legacy_rt("tools/call", json!({"name": "echo", "arguments": {"text": "now"}}));
    assert_eq!(echo["result"], text_result("now"));
}

#[test]
fn a_second_initialize_is_invalid_request() {
    let mut c = Conn::spawn();
    c.initialize();
    let resp = c.legacy_rt("initialize", json!({"protocolVersion": "2025-11-25", "capabilities": {}}));
    assert_eq!(
        resp,
        rpc_error(&resp["id"], -32600, "Invalid request: the session is already initialized; initialize is sent once")
    );
    // The session is unchanged.
    let whoami = c.legacy_rt("tools/call", json!({"name": "whoami", "arguments": {}}));
    assert_eq!(whoami["result"]["structuredContent"]["name"], json!("mcp-tests"));
}

// ---- discover ---------------------------------------------------------------------------

#[test]
fn server_discover_answers_versions_capabilities_and_server_info() {
    let mut c = Conn::spawn();
    let resp = c.modern_rt("server/discover", json!({}));
    assert_eq!(resp, json!({"jsonrpc": "2.0", "id": 1, "result": discover_result()}));
    // Without params beyond the envelope, and with client info and a log level: the same.
    let meta = json!({VERSION_KEY: MODERN, CAPS_KEY: {"sampling": {}}, INFO_KEY: {"name": "n", "version": "1"}, LEVEL_KEY: "debug"});
    let id = c.modern_with("server/discover", json!({}), &meta);
    assert_eq!(c.answer(&id)["result"], discover_result());
    assert!(c.take_notes().is_empty());
}

#[test]
fn a_discover_probe_then_initialize_on_the_same_process() {
    let mut c = Conn::spawn();
    assert_eq!(c.modern_rt("server/discover", json!({}))["result"], discover_result());
    let init = c.initialize();
    assert_legacy(&init);
    let list = c.legacy_rt("tools/list", json!({}));
    assert_legacy(&list);
    // Discovery still works after the handshake.
    assert_eq!(c.modern_rt("server/discover", json!({}))["result"], discover_result());
}

// ---- interleaving and isolation ---------------------------------------------------------

#[test]
fn legacy_and_modern_requests_interleave_each_answered_in_its_era() {
    let mut c = Conn::spawn();
    c.initialize();
    for i in 0..3 {
        let text = format!("legacy {i}");
        let legacy = c.legacy_rt("tools/call", json!({"name": "echo", "arguments": {"text": text}}));
        assert_eq!(legacy["result"], text_result(&text));
        let text = format!("modern {i}");
        let modern = c.modern_rt("tools/call", json!({"name": "echo", "arguments": {"text": text}}));
        assert_eq!(modern["result"], modern_result(&text_result(&text)));
        let legacy = c.legacy_rt("tools/list", json!({}));
        assert_legacy(&legacy);
        let modern = c.modern_rt("tools/list", json!({}));
        assert_modern(&modern);
        assert_eq!(modern["result"]["ttlMs"], json!(0));
        assert_eq!(legacy["result"]["tools"], modern["result"]["tools"]);
    }
    // In flight together: a slow modern call, a legacy call and a modern call behind it.
    let slow = c.modern("tools/call", json!({"name": "sleep_ms", "arguments": {"ms": 300}}));
    let legacy = c.legacy("tools/call", json!({"name": "echo", "arguments": {"text": "L"}}));
    let modern = c.modern("tools/call", json!({"name": "echo", "arguments": {"text": "M"}}));
    let mut answers = HashMap::new();
    for _ in 0..3 {
        let msg = c.recv();
        answers.insert(msg["id"].to_string(), msg["result"].clone());
    }
    assert_eq!(answers[&slow.to_string()], modern_result(&text_result("slept 300")));
    assert_eq!(answers[&legacy.to_string()], text_result("L"));
    assert_eq!(answers[&modern.to_string()], modern_result(&text_result("M")));
}

fn whoami(name: Option<&str>, version: Option<&str>, capabilities: &[&str]) -> Value {
    json!({"name": name, "version": version, "capabilities": capabilities,
           "subject": null, "client_id": null, "scopes": [], "tenant": null})
}

#[test]
fn client_identity_never_leaks_across_eras() {
    let mut c = Conn::spawn();
    // Modern before any session: its own envelope.
    let meta = json!({VERSION_KEY: MODERN, CAPS_KEY: {"sampling": {}}, INFO_KEY: {"name": "early", "version": "0.1"}});
    let id = c.modern_with("tools/call", json!({"name": "whoami", "arguments": {}}), &meta);
    assert_eq!(c.answer(&id)["result"]["structuredContent"], whoami(Some("early"), Some("0.1"), &["sampling"]));

    c.initialize_as("legacy-client", &json!({"roots": {"listChanged": true}}));
    let legacy_me = whoami(Some("legacy-client"), Some("1.0.0"), &["roots"]);
    let call = json!({"name": "whoami", "arguments": {}});
    assert_eq!(c.legacy_rt("tools/call", call.clone())["result"]["structuredContent"], legacy_me);

    let meta = json!({
        VERSION_KEY: MODERN,
        CAPS_KEY: {"sampling": {}, "elicitation": {"form": {}}},
        INFO_KEY: {"name": "modern-client", "version": "2.0.0"},
    });
    let id = c.modern_with("tools/call", call.clone(), &meta);
    let modern = c.answer(&id);
    assert_modern(&modern);
    assert_eq!(
        modern["result"]["structuredContent"],
        whoami(Some("modern-client"), Some("2.0.0"), &["elicitation", "sampling"])
    );
    // A modern request without client info shows none, not the session's.
    let bare = c.modern_rt("tools/call", call.clone());
    assert_eq!(bare["result"]["structuredContent"], whoami(None, None, &[]));
    // Client info that is not an object is ignored.
    let meta = json!({VERSION_KEY: MODERN, CAPS_KEY: {}, INFO_KEY: "me"});
    let id = c.modern_with("tools/call", call.clone(), &meta);
    assert_eq!(c.answer(&id)["result"]["structuredContent"], whoami(None, None, &[]));
    // And the session is as `initialize` left it.
    assert_eq!(c.legacy_rt("tools/call", call)["result"]["structuredContent"], legacy_me);
}

// ---- logging ----------------------------------------------------------------------------

const WORK: &str = "work";

/// Calls `work` (1 step) and returns the notifications that came before its response, after
/// checking that nothing more comes for a moment.
fn work_notes(c: &mut Conn, modern: Option<&Value>) -> Vec<Value> {
    let params = json!({"name": WORK, "arguments": {"steps": 1}});
    let id = match modern {
        Some(meta) => c.modern_with("tools/call", params, meta),
        None => c.legacy("tools/call", params),
    };
    let resp = c.answer(&id);
    assert_eq!(resp["result"]["content"][0]["text"], json!("done 1"), "{resp}");
    // An upper bound for a straggler, not a timing assertion.
    if let Some(late) = c.recv_within(Duration::from_millis(200)) {
        panic!("a message arrived after the response: {late}");
    }
    c.take_notes()
}

#[test]
fn a_modern_request_is_logged_to_only_with_a_log_level_at_or_above_it() {
    let mut c = Conn::spawn();
    assert_eq!(work_notes(&mut c, Some(&envelope())), Vec::<Value>::new(), "no logLevel: no messages");
    let at = |level: &str| json!({VERSION_KEY: MODERN, CAPS_KEY: {}, LEVEL_KEY: level});
    assert_eq!(work_notes(&mut c, Some(&at("debug"))), work_logs(&["debug", "info", "notice", "warning", "error"]));
    assert_eq!(work_notes(&mut c, Some(&at("info"))), work_logs(&["info", "notice", "warning", "error"]));
    assert_eq!(work_notes(&mut c, Some(&at("warning"))), work_logs(&["warning", "error"]));
    assert_eq!(work_notes(&mut c, Some(&at("emergency"))), Vec::<Value>::new());
    // A log level that is not one is invalid params.
    let id = c.modern_with("tools/call", json!({"name": WORK, "arguments": {"steps": 1}}), &at("loud"));
    assert_eq!(c.answer(&id)["error"]["code"], json!(-32602));
}

#[test]
fn log_levels_of_the_two_eras_are_independent() {
    let mut c = Conn::spawn();
    c.initialize();
    // Legacy: info until logging/setLevel.
    assert_eq!(work_notes(&mut c, None), work_logs(&["info", "notice", "warning", "error"]));
    // A modern request at debug neither changes the session's level nor inherits it.
    let debug = json!({VERSION_KEY: MODERN, CAPS_KEY: {}, LEVEL_KEY: "debug"});
    assert_eq!(work_notes(&mut c, Some(&debug)), work_logs(&["debug", "info", "notice", "warning", "error"]));
    assert_eq!(work_notes(&mut c, None), work_logs(&["info", "notice", "warning", "error"]));
    assert_eq!(c.legacy_rt("logging/setLevel", json!({"level": "error"}))["result"], json!({}));
    assert_eq!(work_notes(&mut c, None), work_logs(&["error"]));
    assert_eq!(work_notes(&mut c, Some(&envelope())), Vec::<Value>::new());
    assert_eq!(work_notes(&mut c, Some(&debug)), work_logs(&["debug", "info", "notice", "warning", "error"]));
    // A modern logging/setLevel is refused and changes nothing.
    assert_eq!(c.modern_rt("logging/setLevel", json!({"level": "debug"}))["error"]["code"], json!(-32601));
    assert_eq!(work_notes(&mut c, None), work_logs(&["error"]));
}

#[test]
fn modern_progress_uses_the_request_token() {
    let mut c = Conn::spawn();
    let id = c.modern("tools/call", json!({"name": WORK, "arguments": {"steps": 2}, "_meta": {"progressToken": "p"}}));
    let resp = c.answer(&id);
    assert_modern(&resp);
    let notes = c.take_notes();
    let progress: Vec<&Value> = notes.iter().filter(|n| n["method"] == "notifications/progress").collect();
    assert_eq!(progress.len(), 2, "{notes:?}");
    assert!(progress.iter().all(|p| p["params"]["progressToken"] == "p"), "{notes:?}");
}

// ---- cancellation and client responses --------------------------------------------------

#[test]
fn cancellation_works_by_id_in_either_era() {
    let mut c = Conn::spawn();
    c.initialize();
    let call = json!({"name": "wait_cancel", "arguments": {}});
    for (round, (modern, id)) in
        [(true, json!("m-1")), (false, json!("l-1")), (true, json!(77)), (false, json!(78))].into_iter().enumerate()
    {
        let version = if modern { Version::V2026_07_28 } else { Version::V2025_11_25 };
        let params = if modern { modern_params(call.clone()) } else { call.clone() };
        c.send_as(version, &id, "tools/call", params);
        c.notify("notifications/cancelled", json!({"requestId": id, "reason": "test"}));
        // The handler saw the cancellation and cleaned up (an upper bound, not a timing test).
        let start = Instant::now();
        while c.c.stderr().matches("cleanup ran for ").count() <= round {
            assert!(start.elapsed() < Duration::from_secs(10), "round {round}: no cleanup\n{}", c.c.stderr());
            std::thread::sleep(Duration::from_millis(10));
        }
        // The next answer is the next request's: nothing was sent for the cancelled id.
        let next = if modern {
            c.modern("tools/call", json!({"name": "echo", "arguments": {"text": "after"}}))
        } else {
            c.legacy("tools/call", json!({"name": "echo", "arguments": {"text": "after"}}))
        };
        let answer = c.answer(&next);
        assert_eq!(answer["result"]["content"][0]["text"], json!("after"), "{answer}");
        if modern {
            assert_modern(&answer);
        } else {
            assert_legacy(&answer);
        }
    }
    let ping = c.legacy_rt("ping", json!({}));
    assert_eq!(ping["result"], json!({}));
}

#[test]
fn a_response_from_the_client_is_ignored_in_either_era() {
    let mut c = Conn::spawn();
    for line in [
        json!({"jsonrpc": "2.0", "id": 1, "result": {}}),
        json!({"jsonrpc": "2.0", "id": "x", "result": {"resultType": "complete", "_meta": {VERSION_KEY: MODERN}}}),
        json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32601, "message": "no"}}),
    ] {
        c.c.send(&line);
        let resp = c.modern_rt("server/discover", json!({}));
        assert_eq!(resp["result"], discover_result(), "after {line}");
    }
    c.initialize();
    c.c.send(&json!({"jsonrpc": "2.0", "id": 5, "result": {}}));
    assert_eq!(c.legacy_rt("ping", json!({}))["result"], json!({}));
}

// ---- subscriptions/listen ---------------------------------------------------------------

fn ack(id: &Value, honoured: &Value) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": {
        "_meta": {SUBSCRIPTION_KEY: id}, "notifications": honoured,
    }})
}

fn list_changed(id: &Value) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {"_meta": {SUBSCRIPTION_KEY: id}}})
}

fn listen_end(id: &Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {
        "resultType": "complete", "_meta": {SERVER_INFO_KEY: server_info(), SUBSCRIPTION_KEY: id},
    }})
}

#[test]
fn listen_acknowledges_only_honoured_types_and_ends_gracefully_at_eof() {
    let mut c = Conn::spawn();
    let a = json!("listen-a");
    c.send_as(
        Version::V2026_07_28,
        &a,
        "subscriptions/listen",
        modern_params(json!({"notifications": {"toolsListChanged": true, "promptsListChanged": true, "resourcesListChanged": true}})),
    );
    assert_eq!(
        c.recv(),
        ack(&a, &json!({"toolsListChanged": true, "promptsListChanged": true, "resourcesListChanged": true}))
    );
    let b = json!(900);
    c.send_as(
        Version::V2026_07_28,
        &b,
        "subscriptions/listen",
        modern_params(json!({"notifications": {"toolsListChanged": false}})),
    );
    assert_eq!(c.recv(), ack(&b, &json!({})));
    // The streams do not block other traffic.
    assert_eq!(c.modern_rt("server/discover", json!({}))["result"], discover_result());
    // At EOF both end with the graceful result, and the process exits cleanly.
    c.c.close_stdin();
    let mut ends = vec![c.recv(), c.recv()];
    ends.sort_by_key(|m| m["id"].is_number());
    assert_eq!(ends, [listen_end(&a), listen_end(&b)]);
    assert_eq!(c.c.wait_exit(Duration::from_secs(10)), Some(0));
    assert_eq!(c.c.recv_line_within(Duration::from_millis(100)), None);
}

#[test]
fn a_cancelled_listen_is_never_answered() {
    let mut c = Conn::spawn();
    let id = json!(5);
    c.send_as(
        Version::V2026_07_28,
        &id,
        "subscriptions/listen",
        modern_params(json!({"notifications": {"toolsListChanged": true}})),
    );
    assert_eq!(c.recv(), ack(&id, &json!({"toolsListChanged": true})));
    c.notify("notifications/cancelled", json!({"requestId": id}));
    // The id is free again once the stream ended: a new listen may reuse it. (While the
    // stream runs, a request with its id is refused as in use.)
    let start = Instant::now();
    loop {
        c.send_as(
            Version::V2026_07_28,
            &id,
            "subscriptions/listen",
            modern_params(json!({"notifications": {"toolsListChanged": true}})),
        );
        let msg = c.recv();
        if msg == ack(&id, &json!({"toolsListChanged": true})) {
            break;
        }
        assert_eq!(msg["error"]["code"], json!(-32600), "{msg}");
        assert!(start.elapsed() < Duration::from_secs(10), "the cancelled listen never ended");
        std::thread::sleep(Duration::from_millis(10));
    }
    // At EOF only the live stream ends gracefully: one result, no second.
    c.c.close_stdin();
    assert_eq!(c.recv(), listen_end(&id));
    assert_eq!(c.c.wait_exit(Duration::from_secs(10)), Some(0));
    assert_eq!(c.c.recv_line_within(Duration::from_millis(100)), None);
}

#[test]
fn listen_with_malformed_params_is_invalid_params() {
    let mut c = Conn::spawn();
    for params in [json!({}), json!({"notifications": []}), json!({"notifications": {"toolsListChanged": "yes"}})] {
        let resp = c.modern_rt("subscriptions/listen", params.clone());
        assert_eq!(resp["error"]["code"], json!(-32602), "{params}: {resp}");
    }
}

#[test]
fn a_listen_past_its_caps_is_refused_before_any_work_and_unknown_uris_are_left_out() {
    let mut c = Conn::spawn();
    let tasks = json!({VERSION_KEY: MODERN, CAPS_KEY: {"extensions": {"io.modelcontextprotocol/tasks": {}}}});
    // 100,000 distinct task ids (before: de-duplicated by a scan per id, minutes of CPU on
    // the reader, then refused): refused at once, naming the cap.
    let ids: Vec<String> = (0..100_000).map(|i| format!("{i:x}")).collect();
    let start = Instant::now();
    let id = c.modern_with("subscriptions/listen", json!({"notifications": {"taskIds": ids}}), &tasks);
    let refused = c.answer(&id);
    assert!(start.elapsed() < Duration::from_secs(10), "refused after {:?}", start.elapsed());
    assert_eq!(refused["error"]["code"], json!(-32602), "{refused}");
    assert_eq!(
        refused["error"]["message"],
        "Invalid params: a listen stream follows at most 256 tasks (this one lists 100000); open another for the rest"
    );
    // 100,000 resource subscriptions (before: every one kept, ~16 MiB per stream).
    let uris: Vec<String> = (0..100_000).map(|i| format!("secret://n{i}")).collect();
    let id = c.modern_with("subscriptions/listen", json!({"notifications": {"resourceSubscriptions": uris}}), &tasks);
    let refused = c.answer(&id);
    assert_eq!(
        refused["error"]["message"],
        "Invalid params: a listen stream subscribes to at most 256 resources (this one lists 100000); open another for the rest"
    );
    // Within the cap, a URI the server has no resource for is left out of the subscription.
    let listen = json!("listen-caps");
    let uris = json!(["secret://alpha", "nope://x", "secret://alpha"]);
    c.send_as(
        Version::V2026_07_28,
        &listen,
        "subscriptions/listen",
        with_meta(json!({"notifications": {"resourceSubscriptions": uris}}), &tasks),
    );
    assert_eq!(c.recv(), ack(&listen, &json!({"resourceSubscriptions": ["secret://alpha"]})));
    c.notify("notifications/cancelled", json!({"requestId": listen}));
}

/// Issue 46 row 2, with long URIs: 256 subscriptions (the count cap) of 1,000-byte URIs are
/// refused before any is looked at (before: kept for as long as the stream was open, 40
/// streams of 3,500-byte URIs added 74 MiB, and past 1 MiB the acknowledgement was dropped
/// and the stream never answered).
#[test]
fn a_listen_whose_uris_add_up_past_the_byte_cap_is_refused() {
    let mut c = Conn::spawn();
    let tasks = json!({VERSION_KEY: MODERN, CAPS_KEY: {"extensions": {"io.modelcontextprotocol/tasks": {}}}});
    let uris: Vec<String> = (0..256).map(|i| format!("secret://{i:03}{}", "a".repeat(1_000 - 12))).collect();
    let id = c.modern_with("subscriptions/listen", json!({"notifications": {"resourceSubscriptions": uris}}), &tasks);
    assert_eq!(
        c.answer(&id),
        rpc_error(
            &id,
            -32602,
            "Invalid params: the URIs a listen stream subscribes to add up to at most 65536 bytes (this one's add up to 256000); open another for the rest"
        )
    );
}

// ---- in-process: list changes and the capability gate -----------------------------------

/// Added and removed while the server runs.
#[tool]
fn dynamic_tool() -> String {
    "dynamic".into()
}

/// Needs the client's `sampling` capability.
#[tool]
fn needs_sampling(ctx: &Ctx) -> Result<String, ToolError> {
    ctx.require_client_capability("sampling")?;
    Ok("sampled".into())
}

struct Duplex {
    writer: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    lines: tokio::io::Lines<tokio::io::BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    task: tokio::task::JoinHandle<Result<(), mcp_runtime::Error>>,
    sent: HashMap<String, (String, Version)>,
}

impl Duplex {
    fn serve(server: mcp_runtime::Server) -> Self {
        let (ours, theirs) = tokio::io::duplex(64 * 1024);
        let (their_read, their_write) = tokio::io::split(theirs);
        let task = tokio::spawn(server.serve(their_read, their_write));
        let (our_read, writer) = tokio::io::split(ours);
        Duplex { writer, lines: tokio::io::BufReader::new(our_read).lines(), task, sent: HashMap::new() }
    }

    async fn send(&mut self, version: Version, id: Option<&Value>, method: &str, params: Value) {
        let msg = match id {
            Some(id) => {
                self.sent.insert(id.to_string(), (method.to_owned(), version));
                json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
            }
            None => json!({"jsonrpc": "2.0", "method": method, "params": params}),
        };
        let mut line = msg.to_string();
        line.push('\n');
        self.writer.write_all(line.as_bytes()).await.expect("write");
    }

    /// The next message, checked against the schema (notifications as 2026-07-28 or `era`).
    async fn recv(&mut self, era: Version) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(10), self.lines.next_line())
            .await
            .expect("a message within 10 s")
            .expect("read")
            .expect("a line");
        let msg: Value = serde_json::from_str(&line).expect("JSON");
        match msg.get("id").and_then(|id| self.sent.get(&id.to_string())) {
            Some((method, version)) if msg.get("method").is_none() => check(*version, Some(method), &msg),
            _ => check(era, None, &msg),
        }
        msg
    }

    async fn close(mut self) -> Vec<String> {
        self.writer.shutdown().await.expect("shutdown");
        drop(self.writer);
        let mut rest = Vec::new();
        while let Ok(Some(line)) =
            tokio::time::timeout(Duration::from_secs(10), self.lines.next_line()).await.expect("EOF within 10 s")
        {
            rest.push(line);
        }
        self.task.await.expect("serve task").expect("serve ends cleanly on EOF");
        rest
    }
}

fn in_process() -> mcp_runtime::Server {
    mcp_tests::fixture::builder(false).tool(needs_sampling).build().expect("build")
}

#[tokio::test]
async fn listen_streams_are_told_of_tool_list_changes_tagged_with_their_id() {
    let server = in_process();
    let handle = server.clone();
    let mut conn = Duplex::serve(server);
    let (a, b) = (json!("sub-a"), json!(2));
    conn.send(M, Some(&a), "subscriptions/listen", modern_params(json!({"notifications": {"toolsListChanged": true}})))
        .await;
    assert_eq!(conn.recv(M).await, ack(&a, &json!({"toolsListChanged": true})));
    // A stream that did not ask for tool changes.
    conn.send(
        M,
        Some(&b),
        "subscriptions/listen",
        modern_params(json!({"notifications": {"promptsListChanged": true}})),
    )
    .await;
    assert_eq!(conn.recv(M).await, ack(&b, &json!({"promptsListChanged": true})));

    handle.add_tool(dynamic_tool).expect("add");
    assert_eq!(conn.recv(M).await, list_changed(&a));
    let list_id = json!(10);
    conn.send(M, Some(&list_id), "tools/list", modern_params(json!({}))).await;
    let list = conn.recv(M).await;
    assert_eq!(list["id"], list_id, "{list}");
    let names: Vec<&str> =
        list["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"dynamic_tool"), "{names:?}");

    assert!(handle.remove_tool("dynamic_tool"));
    assert_eq!(conn.recv(M).await, list_changed(&a));
    // Removing nothing changes nothing; the next change is told once.
    assert!(!handle.remove_tool("dynamic_tool"));
    handle.add_tool(dynamic_tool).expect("add");
    assert_eq!(conn.recv(M).await, list_changed(&a));

    // Cancelling `a` ends it without an answer; `b` ends gracefully at EOF.
    conn.send(M, None, "notifications/cancelled", json!({"requestId": a})).await;
    let rest = conn.close().await;
    let rest: Vec<Value> = rest.iter().map(|l| serde_json::from_str(l).expect("JSON")).collect();
    for msg in &rest {
        check(M, Some("subscriptions/listen"), msg);
    }
    assert_eq!(rest, [listen_end(&b)]);
}

#[tokio::test]
async fn a_legacy_session_is_told_of_tool_list_changes_on_its_own_output() {
    let server = in_process();
    let handle = server.clone();
    let mut conn = Duplex::serve(server);
    conn.send(L, Some(&json!(0)), "initialize", json!({"protocolVersion": "2025-11-25", "capabilities": {}})).await;
    assert_eq!(conn.recv(L).await["result"]["capabilities"]["tools"], json!({"listChanged": true}));
    handle.add_tool(dynamic_tool).expect("add");
    let told = conn.recv(L).await;
    assert_eq!(told, json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {}}));
    conn.send(L, Some(&json!(1)), "tools/list", json!({})).await;
    let list = conn.recv(L).await;
    assert_eq!(list["id"], json!(1), "{list}");
    assert!(list["result"]["tools"].as_array().unwrap().iter().any(|t| t["name"] == "dynamic_tool"), "{list}");
    assert_eq!(conn.close().await, Vec::<String>::new());
}

#[tokio::test]
async fn a_missing_capability_is_32021_modern_and_an_error_envelope_legacy() {
    let mut conn = Duplex::serve(in_process());
    let call = json!({"name": "needs_sampling", "arguments": {}});

    conn.send(M, Some(&json!(1)), "tools/call", modern_params(call.clone())).await;
    let resp = conn.recv(M).await;
    assert_eq!(resp["id"], json!(1));
    assert_eq!(resp["error"]["code"], json!(-32021), "{resp}");
    assert_eq!(resp["error"]["data"], json!({"requiredCapabilities": {"sampling": {}}}), "{resp}");
    assert!(resp.get("result").is_none());

    let with = with_meta(call.clone(), &json!({VERSION_KEY: MODERN, CAPS_KEY: {"sampling": {}}}));
    conn.send(M, Some(&json!(2)), "tools/call", with).await;
    assert_eq!(conn.recv(M).await["result"], modern_result(&text_result("sampled")));

    // Legacy, declared without sampling: a tool error envelope, not a protocol error.
    conn.send(
        L,
        Some(&json!(3)),
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {"roots": {}}}),
    )
    .await;
    assert!(conn.recv(L).await["result"].is_object());
    conn.send(L, Some(&json!(4)), "tools/call", call.clone()).await;
    let resp = conn.recv(L).await;
    assert!(resp.get("error").is_none(), "{resp}");
    assert_eq!(resp["result"]["isError"], json!(true), "{resp}");
    assert!(resp["result"].get("resultType").is_none(), "{resp}");
    let text = resp["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("client_capability_missing"), "{text}");
    // The session's capabilities do not leak into a modern request, nor the other way.
    conn.send(M, Some(&json!(5)), "tools/call", modern_params(call.clone())).await;
    assert_eq!(conn.recv(M).await["error"]["code"], json!(-32021));
    conn.close().await;
}

#[tokio::test]
async fn a_legacy_session_that_declared_the_capability_passes_the_gate() {
    let mut conn = Duplex::serve(in_process());
    conn.send(
        L,
        Some(&json!(0)),
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {"sampling": {}}}),
    )
    .await;
    assert!(conn.recv(L).await["result"].is_object());
    conn.send(L, Some(&json!(1)), "tools/call", json!({"name": "needs_sampling", "arguments": {}})).await;
    assert_eq!(conn.recv(L).await["result"], text_result("sampled"));
    // A modern request on the same connection with an empty envelope does not inherit it.
    conn.send(Version::V2026_07_28, Some(&json!(2)), "tools/call", modern_params(json!({"name": "needs_sampling"})))
        .await;
    assert_eq!(conn.recv(Version::V2026_07_28).await["error"]["code"], json!(-32021));
    conn.close().await;
}

// ---- the schema sweep -------------------------------------------------------------------

/// Every fixture tool with valid arguments, and with invalid ones.
fn sweep_calls(path: &str) -> Vec<(&'static str, Value)> {
    vec![
        ("echo", json!({"text": "hi"})),
        ("echo", json!({})),
        ("echo", json!({"text": 1, "extra": true})),
        ("add", json!({"a": 1, "b": 2})),
        ("add", json!({"a": "1"})),
        ("search_docs", json!({"query": "x", "limit": 2})),
        ("search_docs", json!({"query": "", "limit": 99})),
        ("sleep_ms", json!({"ms": 1})),
        ("sleep_ms", json!({"ms": -1})),
        ("sleep_ms", json!({"ms": 1500})),
        ("fetch_items", json!({"ids": ["a", "b"]})),
        ("fetch_items", json!({"ids": []})),
        ("fetch_items", json!({"ids": ["a"], "mode": "queue"})),
        ("fetch_items", json!({"ids": ["a"], "mode": "service"})),
        ("fetch_items", json!({"ids": ["a"], "mode": "hint"})),
        ("fetch_items", json!({"ids": ["a"], "mode": "contained"})),
        ("fetch_items", json!({"ids": ["a"], "mode": "retry_only"})),
        ("fetch_items", json!({"ids": ["a"], "mode": "plain"})),
        ("fetch_items", json!({"ids": "a"})),
        ("boom", json!({})),
        ("boom", json!({"x": 1})),
        ("bad_output", json!({"kind": "range"})),
        ("bad_output", json!({"kind": "raw"})),
        ("bad_output", json!({})),
        ("legacy_report", json!({})),
        ("admin_reset", json!({})),
        ("file_size", json!({"path": path})),
        ("file_size", json!({"path": "/definitely/not/here"})),
        ("file_size", json!({"path": 3})),
        ("locate", json!({"lat": 1.5, "lon": -2.25})),
        ("locate", json!({"lat": "north"})),
        ("facet", json!({"what": "cpu"})),
        ("facet", json!({"what": "gpu"})),
        ("configure", json!({"opts": {"a": "x"}, "rows": 2, "items": [{"name": "i"}]})),
        ("configure", json!({"opts": {"a": "x", "b": 1}, "items": [{}]})),
        ("choose", json!({"spec": {"kind": "x", "n": 1.5}})),
        ("choose", json!({"spec": {"other": "o"}})),
        ("choose", json!({"spec": {"kind": "z"}})),
        (
            "register",
            json!({"tag": "v1", "code": "ABC", "tags": ["a"], "email": "a@b.example", "step": 1.5, "ratio": 0.5}),
        ),
        ("register", json!({"tag": "v2", "code": "abc", "tags": ["a", "a"], "email": "no", "step": 0.3, "ratio": 1})),
        ("find", json!({"mode": "byId", "id": "1"})),
        ("find", json!({"mode": "byName", "name": "n"})),
        ("find", json!({"mode": "byColour"})),
        ("tree_sum", json!({"root": {"value": 1, "children": [{"value": 2, "children": []}]}})),
        ("tree_sum", json!({"root": {"value": 1}})),
        ("work", json!({"steps": 2})),
        ("work", json!({"steps": 0})),
        ("whoami", json!({})),
        ("whoami", json!({"who": "me"})),
        ("log_sources", json!({})),
        ("log_sources", json!({"x": null})),
        ("pause_stream", json!({})),
        ("pause_stream", json!({"x": 1})),
        ("wait_cancel", json!({"x": 1})),
        // They ask the client; it declared nothing, so they are refused before anything is sent.
        ("confirm_delete", json!({"path": "/p"})),
        ("summarize", json!({"text": "t"})),
        ("list_roots", json!({})),
        ("ask_all", json!({})),
        ("keep_asking", json!({})),
        // Rounds of state only: `input_required` (modern), the paced shim (legacy).
        ("count_rounds", json!({"to": 1})),
        ("count_rounds", json!({"to": "x"})),
        // The state store: stored, then a consent the client cannot give; a missing item.
        ("put_item", json!({"id": "sweep"})),
        ("delete_item", json!({"id": "sweep"})),
        ("delete_item", json!({"id": "never-stored"})),
        // Counting and claiming in the state store.
        ("next_id", json!({})),
        ("claim", json!({"name": "sweep"})),
        ("claim", json!({"name": 7})),
        // Over stdio, from the local principal, which holds every scope.
        ("purge_cache", json!({})),
        ("blob", json!({"bytes": 3, "progress": true})),
        ("blob", json!({"bytes": -1})),
        ("purge_cache", json!({"x": 1})),
        // Task tools, for clients without the tasks extension: inline, and `report` refused.
        ("slow_job", json!({"ms": 1})),
        ("slow_job", json!({"ms": 1, "outcome": "declared"})),
        ("slow_job", json!({"ms": "soon"})),
        ("chart", json!({"values": [3, 1, 4]})),
        ("chart", json!({"values": []})),
        ("report", json!({})),
        ("report", json!({"x": 1})),
        ("no_such_tool", json!({})),
        ("ech", json!({"text": "did you mean"})),
    ]
}

/// The protocol-level requests of the sweep (besides `tools/call`): method and params.
fn sweep_requests() -> Vec<(&'static str, Value)> {
    vec![
        ("tools/list", json!({})),
        ("tools/list", json!({"cursor": "page-9"})),
        ("tools/list", json!({"cursor": 5})),
        ("tools/call", json!({"arguments": {}})),
        ("tools/call", json!({"name": 7})),
        ("tools/call", json!({"name": "echo", "arguments": [1]})),
        ("tools/call", json!({"name": "echo", "arguments": {"text": "t"}, "_meta": {"progressToken": {}}})),
        ("nope/nope", json!({})),
    ]
}

#[test]
fn every_response_and_notification_of_a_fixture_sweep_matches_the_schema_of_its_era() {
    let cargo_toml = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    for modern in [false, true] {
        let mut c = Conn::spawn();
        let debug =
            json!({VERSION_KEY: MODERN, CAPS_KEY: {}, LEVEL_KEY: "debug", INFO_KEY: {"name": "sweep", "version": "1"}});
        let send = |c: &mut Conn, method: &str, params: Value| -> Value {
            if modern { c.modern_with(method, params, &debug) } else { c.legacy(method, params) }
        };
        if modern {
            let discover = c.modern_rt("server/discover", json!({}));
            assert_eq!(discover["result"], discover_result());
        } else {
            c.initialize();
            assert_eq!(c.legacy_rt("logging/setLevel", json!({"level": "debug"}))["result"], json!({}));
            assert_eq!(c.legacy_rt("ping", json!({}))["result"], json!({}));
        }
        // Every listed tool is in the sweep (a new fixture tool must be added here).
        let id = send(&mut c, "tools/list", json!({}));
        let list = c.answer(&id);
        let calls = sweep_calls(cargo_toml);
        for tool in list["result"]["tools"].as_array().expect("tools") {
            let name = tool["name"].as_str().unwrap();
            assert!(calls.iter().any(|(n, _)| *n == name), "the sweep does not call {name}");
        }
        let mut results = 0;
        for (i, (name, args)) in calls.into_iter().enumerate() {
            let params = json!({"name": name, "arguments": args, "_meta": {"progressToken": i}});
            let id = send(&mut c, "tools/call", params);
            let resp = c.answer(&id);
            assert!(resp.get("result").is_some() || resp.get("error").is_some(), "{resp}");
            if modern && resp["result"]["resultType"] == json!("input_required") {
                // Only a tool that asks returns it, with its state (sealed: never the plain
                // "1" its handler wrote) and nothing to ask.
                assert_eq!(name, "count_rounds", "{resp}");
                let state = resp["result"]["requestState"].as_str().unwrap_or_default();
                assert!(state.starts_with("v1.") && state.len() > 40, "{resp}");
            } else if modern && resp.get("result").is_some() {
                assert_modern(&resp);
            }
            if !modern && resp.get("result").is_some() {
                assert_legacy(&resp);
            }
            results += 1;
        }
        for (method, params) in sweep_requests() {
            let id = send(&mut c, method, params);
            let resp = c.answer(&id);
            assert!(resp.get("result").is_some() || resp.get("error").is_some(), "{resp}");
            results += 1;
        }
        // A cancelled wait_cancel leaves nothing to check but must not break the stream.
        let id = send(&mut c, "tools/call", json!({"name": "wait_cancel", "arguments": {}}));
        c.notify("notifications/cancelled", json!({"requestId": id}));
        if modern {
            let listen = json!("sweep-listen");
            let params = with_meta(json!({"notifications": {"toolsListChanged": true}}), &debug);
            c.send_as(Version::V2026_07_28, &listen, "subscriptions/listen", params);
            let ackd = c.recv();
            assert_eq!(ackd, ack(&listen, &json!({"toolsListChanged": true})));
            c.c.close_stdin();
            assert_eq!(c.recv(), listen_end(&listen));
        } else {
            c.c.close_stdin();
        }
        // Everything left until the process ends is checked too.
        while let Some(msg) = c.recv_within(Duration::from_secs(5)) {
            assert!(msg.get("method").is_some(), "an unexpected response: {msg}");
        }
        assert_eq!(c.c.wait_exit(Duration::from_secs(10)), Some(0));
        let notes = c.take_notes();
        assert!(notes.iter().any(|n| n["method"] == "notifications/message"), "no log messages were checked");
        assert!(notes.iter().any(|n| n["method"] == "notifications/progress"), "no progress was checked");
        assert!(results > 60, "{results}");
        assert!(c.checked > results, "{} messages checked", c.checked);
    }
}

// ---- the test client's modern mode (MCP_TEST_ERA=modern) --------------------------------

#[test]
fn the_test_client_in_modern_mode_sends_envelopes_and_unwraps_results() {
    let mut c = Client::spawn_with(SERVER, &[], mcp_tests::client::Pipes::default());
    c.set_era(mcp_tests::client::ClientEra::Modern);
    assert!(c.is_modern());
    let init = c.initialize();
    assert_eq!(
        init,
        json!({"jsonrpc": "2.0", "id": 1, "result": {
            "protocolVersion": MODERN,
            "capabilities": {"tools": {"listChanged": true}, "logging": {}, "resources": {"subscribe": true, "listChanged": true}, "prompts": {"listChanged": true}, "completions": {}, "extensions": {"io.modelcontextprotocol/skills": {"directoryRead": true}, "io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}, "io.modelcontextprotocol/tasks": {}}},
            "serverInfo": server_info(),
        }})
    );
    assert_eq!(c.call("echo", json!({"text": "x"})), text_result("x"));
    assert_eq!(c.roundtrip("ping", json!({}))["result"], json!({}));
    // setLevel is kept by the client and sent as `logLevel`.
    assert_eq!(c.roundtrip("logging/setLevel", json!({"level": "warning"}))["result"], json!({}));
    assert_eq!(c.params(json!({}))["_meta"][LEVEL_KEY], json!("warning"));
    c.set_client_capabilities(json!({"sampling": {}}));
    let me = c.call("whoami", json!({}));
    assert_eq!(me["structuredContent"], whoami(Some("mcp-tests"), Some("0.0.1"), &["sampling"]));
    // What a raw send gets back is not unwrapped: the modern result as the server wrote it.
    c.send(&json!({"jsonrpc": "2.0", "id": "raw", "method": "tools/call", "params": c.params(json!({"name": "echo", "arguments": {"text": "r"}}))}));
    assert_eq!(c.recv()["result"], modern_result(&text_result("r")));
}
