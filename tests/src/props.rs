//! The properties the fuzz targets (`fuzz/`) check, written once: their smoke runs in
//! `tests/tests/hostile/fuzz_smoke.rs` (proptest, on stable, in `scripts/test.sh`) and the long
//! campaigns (`cargo fuzz`) call the same functions. Each returns `Err` with what broke, never
//! panics on its own account: a panic is the code under test's.

use std::time::Duration;

use mcp_runtime::fuzzing::StateSealer;
use mcp_runtime::{Server, ServerBuilder};
use serde_json::Value;

/// Text that must never reach a client unless the client sent it: panic payloads, source
/// paths, backtraces.
const LEAKS: &[&str] = &["panicked at", "stack backtrace", "/rustc/", ".cargo/registry", "RUST_BACKTRACE"];

/// What in `text` looks like a panic payload, a backtrace or a source location (`x.rs:12`)
/// and did not come from the `input` (a tool echoes an unknown key `.rs` as "`.rs: unknown
/// key`": found by the `tool_arguments` campaign).
fn leak(text: &str, input: &str) -> Option<String> {
    let locations = text.match_indices(".rs:").filter_map(|(at, _)| {
        let digits = text[at + 4..].bytes().take_while(u8::is_ascii_digit).count();
        (digits > 0).then(|| &text[at..at + 4 + digits])
    });
    let mut found = LEAKS.iter().copied().filter(|leak| text.contains(leak)).chain(locations).peekable();
    found.peek()?;
    // Unless the client sent it, as it came or as the server echoes it.
    let sent = sent_text(input);
    found.find(|leak| !input.contains(leak) && !sent.contains(leak)).map(str::to_owned)
}

/// The fixture server's tools: those `tools/list` names, and the disabled `legacy_report`
/// (`fuzz_smoke` checks the list).
pub const FIXTURE_TOOLS: &[&str] = &[
    "echo",
    "add",
    "search_docs",
    "sleep_ms",
    "fetch_items",
    "boom",
    "bad_output",
    "legacy_report",
    "admin_reset",
    "file_size",
    "locate",
    "facet",
    "configure",
    "choose",
    "register",
    "find",
    "tree_sum",
    "work",
    "whoami",
    "wait_cancel",
    "log_sources",
    "pause_stream",
    "confirm_delete",
    "summarize",
    "list_roots",
    "ask_all",
    "keep_asking",
    "count_rounds",
    "put_item",
    "delete_item",
    "next_id",
    "claim",
    "purge_cache",
    "blob",
    "slow_job",
    "report",
    "chart",
];

/// One JSON-RPC line through a whole session of the fixture server.
pub struct SessionTarget {
    runtime: tokio::runtime::Runtime,
    server: Server,
    /// `tools/list`'s result, as text: what a rendered error may quote from the schemas.
    schemas: String,
}

impl Default for SessionTarget {
    fn default() -> Self {
        Self::new()
    }
}

impl SessionTarget {
    /// The fixture server, with short time limits so that no input can hold a check up.
    pub fn new() -> SessionTarget {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
        let server = crate::fixture::builder(false)
            .default_timeout(Duration::from_millis(200))
            .ask_timeout(Duration::from_millis(100));
        let server = ServerBuilder::build(server).expect("the fixture server builds");
        let schemas = runtime.block_on(async {
            let mut connection = server.connect();
            connection.send(INITIALIZE).await;
            connection.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
            let list = connection.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#).await.concat();
            drop(connection);
            tasks_end().await.expect("the tools/list session ends");
            list
        });
        SessionTarget { runtime, server, schemas }
    }

    /// Sends `line` on a fresh connection (initialized first when `legacy`; a modern line
    /// carries its own `_meta` claim, or is refused as one without), and checks what came back:
    /// - every line out is a JSON-RPC 2.0 message: a response with an id and exactly one of
    ///   `result` / `error` (an error with an integer code and a string message), or a
    ///   notification;
    /// - a request with a string or number id gets exactly one response, with that id
    ///   (`subscriptions/listen`, a stream, at most one); a notification gets none;
    /// - anything else gets at most one response, an error;
    /// - nothing out carries a panic payload, a source path or a backtrace that the input did
    ///   not;
    /// - no task the connection started outlives it by a second.
    pub fn check(&self, legacy: bool, line: &str) -> Result<(), String> {
        check_answers(line, &self.exchange(legacy, line)?)
    }

    /// Sends `line` on a fresh connection (initialized first when `legacy`) and returns what
    /// came back, once every task the connection started has ended: a 2025 session's
    /// forwarding task, a listen stream, a call past its time limit. A task that outlives its
    /// connection by a second is a finding (memory that grows per connection).
    fn exchange(&self, legacy: bool, line: &str) -> Result<Vec<String>, String> {
        self.runtime.block_on(async {
            let mut connection = self.server.connect();
            if legacy {
                connection.send(INITIALIZE).await;
                connection.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
            }
            let out = tokio::time::timeout(Duration::from_secs(5), connection.send(line))
                .await
                .map_err(|_| format!("no answer within 5 s to {line:?}"))?;
            drop(connection);
            tasks_end().await.map_err(|left| format!("{left} after {line:?}"))?;
            Ok(out)
        })
    }
}

/// Waits until the runtime has no task left: a few turns, then up to a second.
async fn tasks_end() -> Result<(), String> {
    let metrics = tokio::runtime::Handle::current().metrics();
    for _ in 0..16 {
        if metrics.num_alive_tasks() == 0 {
            return Ok(());
        }
        tokio::task::yield_now().await;
    }
    let deadline = tokio::time::Instant::now() + Duration::from_secs(1);
    while tokio::time::Instant::now() < deadline {
        if metrics.num_alive_tasks() == 0 {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    Err(format!("{} tasks outlived their connection by a second", metrics.num_alive_tasks()))
}

impl SessionTarget {
    /// The names `tools/list` gives, in its order.
    pub fn tool_names(&self) -> Vec<String> {
        let list: Value = serde_json::from_str(&self.schemas).unwrap_or_default();
        let tools = list["result"]["tools"].as_array().cloned().unwrap_or_default();
        tools.iter().filter_map(|t| t["name"].as_str().map(str::to_owned)).collect()
    }

    /// Calls tool `name` with `arguments` (any JSON) and checks, beyond [`SessionTarget::check`]:
    /// - arguments that are not an object get the JSON-RPC error -32602; any others a result,
    ///   never a JSON-RPC error (a tool execution error is a result);
    /// - an error result is the envelope of docs/errors.md#the-envelopes-rules: its text is `Error: <message>`,
    ///   an optional `Recovery: <hint>`, and a terms line ending in a request id of the form
    ///   `XXXXX-XXXXX`; when it carries `structuredContent.error`, that says the same message,
    ///   hint, reason, retryability and request id, and its `data` holds nothing else but the
    ///   author's fields;
    /// - an `invalid_arguments` error names the tool, renders at most 10 detail lines and 30
    ///   issues, and repeats no string value of the arguments (12 characters or more, that
    ///   appears nowhere else: not as a key, not in the tool's schema).
    pub fn check_call(&self, legacy: bool, name: &str, arguments: &Value) -> Result<(), String> {
        let response = self.call(legacy, name, arguments)?;
        if !arguments.is_object() {
            // Arguments that are not an object are the request's mistake, not the tool's.
            return match response.pointer("/error/code") {
                Some(code) if code == -32602 => Ok(()),
                _ => Err(format!("arguments {arguments} were not refused as invalid params: {response}")),
            };
        }
        let Some(result) = response.get("result") else {
            // Unknown tools are a JSON-RPC error under strict resolution only; the fixture
            // resolves leniently, so every call must end in a result. One exception: a tool
            // that only runs as a task (`report`), called with valid arguments by a 2026-07-28
            // client that did not declare the tasks extension (this one does not), is the
            // protocol error -32021 naming the extension.
            let tasks = "/error/data/requiredCapabilities/extensions/io.modelcontextprotocol~1tasks";
            if !legacy
                && response.pointer("/error/code") == Some(&Value::from(-32021))
                && response.pointer(tasks).is_some()
            {
                return Ok(());
            }
            return Err(format!("a tools/call got a JSON-RPC error instead of a result: {response}"));
        };
        if result.get("isError") != Some(&Value::Bool(true)) {
            return Ok(());
        }
        for value in check_envelope(name, arguments, result, &self.schemas)? {
            // A piece of the server's own words ("This tool accepts: query") is no echo: the
            // same call with that value replaced still says it (found by the campaign).
            let other = replaced(arguments, value);
            let again = self.call(legacy, name, &other)?;
            if !again.pointer("/result/content/0/text").and_then(Value::as_str).is_some_and(|t| t.contains(value)) {
                let text = result["content"][0]["text"].as_str().unwrap_or_default();
                return Err(format!("invalid_arguments repeated the rejected value {value:?}: {text:?}"));
            }
        }
        Ok(())
    }

    /// The response to a `tools/call` of `name` with `arguments`, after the checks of
    /// [`SessionTarget::check`]; a 2025 call opens a session first.
    fn call(&self, legacy: bool, name: &str, arguments: &Value) -> Result<Value, String> {
        let mut params = serde_json::json!({"name": name, "arguments": arguments});
        if !legacy {
            params["_meta"] = serde_json::json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}, "sampling": {}, "roots": {}}
            });
        }
        let line = serde_json::json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}).to_string();
        let out = self.exchange(legacy, &line)?;
        check_answers(&line, &out)?;
        out.iter()
            .filter_map(|text| serde_json::from_str::<Value>(text).ok())
            .find(|m| m.get("id") == Some(&Value::from(7)))
            .ok_or_else(|| format!("no response to {line}"))
    }
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}"#;

/// Checks the envelope of an error result; returns the argument values its text repeats, for
/// the caller to tell an echo from the server's own words.
fn check_envelope<'a>(name: &str, arguments: &'a Value, result: &Value, schemas: &str) -> Result<Vec<&'a str>, String> {
    let text =
        result["content"][0]["text"].as_str().ok_or_else(|| format!("an error result without text: {result}"))?;
    let blocks: Vec<&str> = text.split("\n\n").collect();
    let message = blocks[0].strip_prefix("Error: ").ok_or_else(|| format!("error text not `Error: …`: {text:?}"))?;
    let terms = blocks
        .last()
        .and_then(|t| t.strip_prefix('('))
        .and_then(|t| t.strip_suffix(')'))
        .ok_or_else(|| format!("no terms line: {text:?}"))?;
    let id = terms.rsplit(" · ").next().and_then(|t| t.strip_prefix("request ")).unwrap_or("");
    if !crate::client::is_request_id(id) {
        return Err(format!("the terms line does not end with a request id: {text:?}"));
    }
    let hint = blocks.iter().find_map(|b| b.strip_prefix("Recovery: "));
    if let Some(error) = result.get("structuredContent").and_then(|s| s.get("error")) {
        let data = &error["data"];
        let agree = error["message"].as_str() == Some(message)
            && data["requestId"].as_str() == Some(id)
            && data["reason"].as_str().is_none_or(|r| terms.contains(&format!("reason {r}")))
            && data["retryable"]
                .as_bool()
                .is_none_or(|r| terms.contains(if r { "· retryable" } else { "not retryable" }))
            && hint.is_none_or(|h| data["recovery"]["hint"].as_str() == Some(h));
        if !agree {
            return Err(format!("the text and structuredContent disagree: {result}"));
        }
        if !error["code"].is_i64() {
            return Err(format!("structuredContent.error.code is not an integer: {result}"));
        }
    }
    if terms.contains("reason invalid_arguments") {
        let detail = message
            .strip_prefix(&format!("Invalid arguments for tool {name}: "))
            .ok_or_else(|| format!("invalid_arguments does not name tool {name}: {message:?}"))?;
        // At most 10 lines of at most 1,024 characters and `…`, joined by `, `, and `(+N more)`.
        let most = 10 * 1025 + 9 * 2 + " (+1000000 more)".len();
        if detail.chars().count() > most {
            return Err(format!("a detail of {} characters; at most {most}: {message:?}", detail.chars().count()));
        }
        if let Some(issues) = result.pointer("/structuredContent/error/data/issues").and_then(Value::as_array)
            && issues.len() > 30
        {
            return Err(format!("{} issues listed; at most 30", issues.len()));
        }
        let mut values = Vec::new();
        string_values(arguments, &mut values);
        // Keys are echoed (without control characters); a value inside one is not repeated
        // for itself (found by the `tool_arguments` campaign).
        let mut keys = String::new();
        for key in object_keys(arguments) {
            push_echoed(key, &mut keys);
        }
        values.retain(|value| {
            value.chars().count() >= 12 && !schemas.contains(value) && !keys.contains(value) && text.contains(value)
        });
        return Ok(values);
    }
    Ok(Vec::new())
}

/// `value` with every string equal to `old` replaced by one of the same length, of one
/// character `old` does not hold.
fn replaced(value: &Value, old: &str) -> Value {
    match value {
        Value::String(s) if s == old => {
            let c = ('\u{2600}'..='\u{26ff}').find(|c| !old.contains(*c)).unwrap_or('\u{2600}');
            Value::String(std::iter::repeat_n(c, old.chars().count()).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| replaced(v, old)).collect()),
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), replaced(v, old))).collect()),
        other => other.clone(),
    }
}

/// `s` as the server echoes a client's text (without control characters), and a line break.
fn push_echoed(s: &str, out: &mut String) {
    out.extend(s.chars().filter(|c| !c.is_control()));
    out.push('\n');
}

/// Every key of every object in `value`.
fn object_keys(value: &Value) -> Vec<&str> {
    let mut out = Vec::new();
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => {
                out.extend(map.keys().map(String::as_str));
                stack.extend(map.values());
            }
            _ => {}
        }
    }
    out
}

/// Every string value (not key) in `value`.
fn string_values<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
    match value {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|v| string_values(v, out)),
        Value::Object(map) => map.values().for_each(|v| string_values(v, out)),
        _ => {}
    }
}

/// `text` as JSON, as the JSON grammar reads it (RFC 8259), where `serde_json::Value` is
/// stricter: `"\ud800"` (an unpaired surrogate escape) and `1e999` (a number no `f64` holds)
/// are valid JSON, and the server echoes either back in an id it was sent. The `session_line`
/// campaign found both. Each is read the same on both sides, so a request's id still matches
/// its response's: a lone surrogate as U+FFFD, an overflowing number as `1e308` (a number
/// still: a `method` of `1e999` is no string).
fn json(text: &str) -> serde_json::Result<Value> {
    serde_json::from_str(&normalized(text))
}

fn normalized(text: &str) -> std::borrow::Cow<'_, str> {
    let bytes = text.as_bytes();
    let hex = |at: usize| text.get(at..at + 4).and_then(|h| u16::from_str_radix(h, 16).ok());
    let unit = |at: usize| if text.get(at..at + 2) == Some("\\u") { hex(at + 2) } else { None };
    let mut out = String::new();
    let (mut copied, mut at, mut in_string) = (0, 0, false);
    // Bytes, not chars: every byte looked at is ASCII, and a multi-byte character's bytes
    // are all above it, so the slices below start and end on boundaries.
    while at < bytes.len() {
        match (in_string, bytes[at]) {
            (_, b'"') => {
                in_string = !in_string;
                at += 1;
            }
            (true, b'\\') => match unit(at) {
                Some(0xD800..=0xDBFF) if unit(at + 6).is_some_and(|low| (0xDC00..=0xDFFF).contains(&low)) => at += 12,
                Some(0xD800..=0xDFFF) => {
                    out.push_str(&text[copied..at]);
                    out.push_str("\\ufffd");
                    at += 6;
                    copied = at;
                }
                Some(_) => at += 6,
                None => at += 2,
            },
            (false, b'-' | b'0'..=b'9') => {
                let len = bytes[at..]
                    .iter()
                    .position(|b| !matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                    .unwrap_or(bytes.len() - at);
                let token = &text[at..at + len];
                if token.parse::<f64>().is_ok_and(f64::is_infinite) {
                    out.push_str(&text[copied..at]);
                    out.push_str(if token.starts_with('-') { "-1e308" } else { "1e308" });
                    copied = at + len;
                }
                at += len;
            }
            _ => at += 1,
        }
    }
    if copied == 0 {
        return std::borrow::Cow::Borrowed(text);
    }
    out.push_str(text.get(copied..).unwrap_or_default());
    std::borrow::Cow::Owned(out)
}

/// The text a client sent, as the server may echo it: every key and string of the JSON
/// `input` decoded, without control characters (the server drops those from what it echoes;
/// the `tool_arguments` campaign found an unknown key `".rs\u0000:6"` echoed as `.rs:6`).
fn sent_text(input: &str) -> String {
    fn walk(value: &Value, out: &mut String) {
        match value {
            Value::String(s) => push_echoed(s, out),
            Value::Array(items) => items.iter().for_each(|v| walk(v, out)),
            Value::Object(map) => {
                for (key, value) in map {
                    push_echoed(key, out);
                    walk(value, out);
                }
            }
            _ => {}
        }
    }
    let mut out = String::new();
    if let Ok(value) = json(input) {
        walk(&value, &mut out);
    }
    out
}

/// What the input asks for, as far as the answer depends on it.
enum Expect {
    /// A request: exactly one response with this id (at most one for a stream).
    Response(Value, bool),
    /// A notification: no response.
    Nothing,
    /// Anything else: at most one response, an error.
    AnError,
}

/// Whether the message's `method`, when it has one, reads as text (no unpaired surrogate).
fn method_is_text(line: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct Method<'a> {
        #[serde(borrow)]
        method: Option<&'a serde_json::value::RawValue>,
    }
    serde_json::from_str::<Method<'_>>(line)
        .is_ok_and(|m| m.method.is_none_or(|raw| serde_json::from_str::<String>(raw.get()).is_ok()))
}

/// The names of a JSON object's members, in order, repeats included (`Value` keeps only the
/// last of a repeated member).
struct Members(Vec<String>);

impl<'de> serde::Deserialize<'de> for Members {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Names;
        impl<'de> serde::de::Visitor<'de> for Names {
            type Value = Members;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Members, A::Error> {
                let mut names = Vec::new();
                while let Some((name, serde::de::IgnoredAny)) = map.next_entry::<String, serde::de::IgnoredAny>()? {
                    names.push(name);
                }
                Ok(Members(names))
            }
        }
        d.deserialize_map(Names)
    }
}

fn expect(line: &str) -> Expect {
    let names_are_text = serde_json::from_str::<Members>(line).is_ok();
    let original = line;
    let line = &*normalized(line);
    let members = serde_json::from_str::<Members>(line).map(|m| m.0).unwrap_or_default();
    if !names_are_text && !members.is_empty() {
        // A member name with an unpaired surrogate is no name of the protocol's, and the
        // server cannot read the message's names to know (the session_line campaign).
        return Expect::AnError;
    }
    // A repeated member of the protocol's is refused whole (found by the campaign, for `id`
    // and then for `method`): the server cannot tell which of the two was meant.
    let protocol = ["jsonrpc", "id", "method", "params", "result", "error"];
    if protocol.iter().any(|name| members.iter().filter(|m| m == name).count() > 1) {
        return Expect::AnError;
    }
    let Ok(Value::Object(message)) = serde_json::from_str::<Value>(line) else { return Expect::AnError };
    if message.get("jsonrpc") != Some(&Value::from("2.0")) {
        return Expect::AnError;
    }
    let Some(method) = message.get("method").and_then(Value::as_str) else { return Expect::AnError };
    if method.contains('\u{fffd}') && !method_is_text(original) {
        // A method with an unpaired surrogate names no method, so the message is no request
        // and no notification either (the session_line campaign).
        return Expect::AnError;
    }
    match message.get("id") {
        None => Expect::Nothing,
        // MCP's `RequestId` is `string | number`: a fractional number is an id too.
        Some(id) if id.is_string() || id.is_number() => Expect::Response(id.clone(), method == "subscriptions/listen"),
        Some(_) => Expect::AnError,
    }
}

fn check_answers(line: &str, out: &[String]) -> Result<(), String> {
    let mut responses = Vec::new();
    for text in out {
        if let Some(leak) = leak(text, line) {
            return Err(format!("{leak:?} reached the client: {text}"));
        }
        let message = json(text).map_err(|e| format!("not JSON ({e}): {text}"))?;
        if message.get("jsonrpc") != Some(&Value::from("2.0")) {
            return Err(format!("not JSON-RPC 2.0: {text}"));
        }
        if let Some(id) = message.get("id") {
            let (result, error) = (message.get("result"), message.get("error"));
            match (result, error) {
                (Some(_), None) => {}
                (None, Some(error)) if error["code"].is_i64() && error["message"].is_string() => {}
                _ => return Err(format!("a response needs exactly one of result / error (code, message): {text}")),
            }
            responses.push((id.clone(), error.is_some()));
        } else if !message.get("method").is_some_and(Value::is_string) {
            return Err(format!("neither a response nor a notification: {text}"));
        }
    }
    match expect(line) {
        Expect::Response(id, stream) => {
            let with_id = responses.iter().filter(|(r, _)| *r == id).count();
            let ok = if stream { with_id <= 1 } else { with_id == 1 };
            if !ok || responses.len() != with_id {
                return Err(format!(
                    "request id {id} got {with_id} responses with its id, {} in all: {out:?}",
                    responses.len()
                ));
            }
        }
        Expect::Nothing if !responses.is_empty() => return Err(format!("a notification was answered: {out:?}")),
        Expect::Nothing => {}
        Expect::AnError => {
            if responses.len() > 1 || responses.iter().any(|(_, error)| !error) {
                return Err(format!("a message that is not a request got {out:?}"));
            }
        }
    }
    Ok(())
}

/// A token the sealer did not make never opens.
pub fn check_foreign_state(sealer: &StateSealer, token: &str, binding: &str) -> Result<(), String> {
    match sealer.open(token, binding) {
        Ok(state) => Err(format!("a token this sealer did not make opened: {token:?} → {state:?}")),
        Err(_) => Ok(()),
    }
}

/// A state is sealed unless its token would be too long to open (found by the fuzzer: states
/// of 12 KiB and more were sealed into tokens the retry refused), and a sealed state opens as
/// itself for its binding, for no other binding, and not once any one character of it is
/// changed (`at` picks which; `to` what it becomes).
pub fn check_sealed_state(
    sealer: &StateSealer,
    state: &str,
    binding: &str,
    other: &str,
    at: usize,
    to: char,
) -> Result<(), String> {
    // A state the sealer refuses is one whose token could not come back (over 16 KiB); a
    // state of up to 1 KiB always fits, however it escapes.
    let Some(token) = sealer.seal(state, binding) else {
        return if state.len() <= 1024 {
            Err(format!("a state of {} bytes was not sealed", state.len()))
        } else {
            Ok(())
        };
    };
    match sealer.open(&token, binding) {
        Ok(opened) if opened == state => {}
        other => return Err(format!("{state:?} sealed as {token:?} opened as {other:?}")),
    }
    if other != binding && sealer.open(&token, other).is_ok() {
        return Err(format!("a state sealed for {binding:?} opened for {other:?}"));
    }
    let mut chars: Vec<char> = token.chars().collect();
    let at = at % chars.len();
    if chars[at] != to {
        chars[at] = to;
        let changed: String = chars.into_iter().collect();
        if let Ok(opened) = sealer.open(&changed, binding) {
            return Err(format!("{token:?} changed at {at} to {changed:?} still opened, as {opened:?}"));
        }
    }
    Ok(())
}

/// A URI template and a URI: parsing and matching end (no panic), a match has one value per
/// variable, and a simple variable's value holds no `/` that the URI did not escape.
pub fn check_uri_template(template: &str, uri: &str) -> Result<(), String> {
    let Ok(matched) = mcp_runtime::fuzzing::match_uri_template(template, uri) else { return Ok(()) };
    let Some(values) = matched else { return Ok(()) };
    let variables: Vec<&str> =
        template.split('{').skip(1).filter_map(|rest| rest.split_once('}').map(|(v, _)| v)).collect();
    if values.len() != variables.len() {
        return Err(format!(
            "{template:?} matched {uri:?} with {} values for {} variables",
            values.len(),
            variables.len()
        ));
    }
    let encoded_slash = uri.contains("%2F") || uri.contains("%2f");
    for (variable, value) in variables.iter().zip(&values) {
        if !variable.starts_with('+') && value.contains('/') && !encoded_slash {
            return Err(format!("simple variable {{{variable}}} of {template:?} took {value:?} from {uri:?}"));
        }
    }
    Ok(())
}

/// One part of a URI template as the URI property generates it: literal text, or a variable
/// with the value it is expanded with.
#[derive(Debug, Clone)]
pub enum UriPart {
    /// Literal text: never `{`, `}` or `%`, nor `?` or `#` (which the checks put inside
    /// values to break a URI).
    Literal(String),
    /// `{name}`, or `{+name}` when `reserved`, and its value (not empty).
    Var {
        /// The variable's name.
        name: String,
        /// Reserved expansion (`{+name}`): `/` and the sub-delimiters are kept as they are.
        reserved: bool,
        /// The value expanded into the URI, percent-encoded.
        value: String,
    },
}

/// `value` as RFC 6570 expands it: every UTF-8 byte outside the unreserved set
/// (`A-Z a-z 0-9 - . _ ~`) percent-encoded, in upper case; a reserved expansion also keeps
/// `/` and the sub-delimiters as they are (`?` and `#` end a resource URI's path, so this SDK's
/// `{+path}` never spans them: they are encoded too).
pub fn uri_expand_value(value: &str, reserved: bool) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        let keep =
            byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) || (reserved && b"/:@!$&'()*+,;=".contains(&byte));
        if keep {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

/// The template the parts spell, and the URI they expand to.
pub fn uri_template_and_uri(parts: &[UriPart]) -> (String, String) {
    let (mut template, mut uri) = (String::new(), String::new());
    for part in parts {
        match part {
            UriPart::Literal(text) => {
                template.push_str(text);
                uri.push_str(text);
            }
            UriPart::Var { name, reserved, value } => {
                template.push('{');
                if *reserved {
                    template.push('+');
                }
                template.push_str(name);
                template.push('}');
                uri.push_str(&uri_expand_value(value, *reserved));
            }
        }
    }
    (template, uri)
}

/// Whether the URI the parts expand to has one reading only as the matcher reads it (each
/// variable's value ends where the literal after it first occurs): no expanded value holds
/// the start of the literal that follows it.
fn uri_reading_is_unique(parts: &[UriPart]) -> bool {
    parts.windows(2).all(|pair| match pair {
        [UriPart::Var { reserved, value, .. }, UriPart::Literal(next)] => {
            let expanded = uri_expand_value(value, *reserved);
            format!("{expanded}{next}").find(next.as_str()) == Some(expanded.len())
        }
        _ => true,
    })
}

/// A URI template and a URI expanded from it (the parts start with a literal, such as
/// `notes://`; two variables never touch; names are distinct; values are not empty).
/// Returns whether the URI was read back exactly.
///
/// - When the URI has one reading (`uri_reading_is_unique`), matching it gives back exactly
///   the values it was expanded from, percent-decoded. Otherwise [`check_uri_template`] holds.
/// - The URI with its first character changed never matches (the template starts with it).
/// - The URI with a `?` or a `#` put inside a value never matches: no literal holds either,
///   and no variable's value spans them.
/// - The URI with a raw `/` put inside a simple variable's value still passes
///   [`check_uri_template`] (a simple variable never takes an unescaped `/`).
pub fn check_uri_expansion(parts: &[UriPart]) -> Result<bool, String> {
    use mcp_runtime::fuzzing::match_uri_template;
    let (template, uri) = uri_template_and_uri(parts);
    let values: Vec<String> = parts
        .iter()
        .filter_map(|p| match p {
            UriPart::Var { value, .. } => Some(value.clone()),
            UriPart::Literal(_) => None,
        })
        .collect();
    let matched = match_uri_template(&template, &uri).map_err(|why| format!("{template:?} does not parse: {why}"))?;
    let exact = uri_reading_is_unique(parts);
    if exact {
        if matched.as_ref() != Some(&values) {
            return Err(format!("{template:?} read {uri:?} as {matched:?}; it was expanded from {values:?}"));
        }
    } else {
        check_uri_template(&template, &uri)?;
    }
    let must_not_match = |other: &str, why: &str| match match_uri_template(&template, other) {
        Ok(Some(read)) => Err(format!("{template:?} matched {other:?} ({why}) as {read:?}")),
        _ => Ok(()),
    };
    let mut first = uri.chars();
    let changed = match first.next() {
        Some('z') => format!("y{}", first.as_str()),
        Some(_) => format!("z{}", first.as_str()),
        None => return Err(format!("{template:?} expands to an empty URI")),
    };
    must_not_match(&changed, "its first character changed")?;
    // Where each variable's expanded value starts and ends in the URI.
    let mut at = 0;
    for part in parts {
        match part {
            UriPart::Literal(text) => at += text.len(),
            UriPart::Var { reserved, value, .. } => {
                let expanded = uri_expand_value(value, *reserved);
                // The middle of the value, on a character boundary outside an escape.
                let mut middle = at + expanded.len() / 2;
                while middle > at
                    && (!uri.is_char_boundary(middle)
                        || uri[..middle].ends_with('%')
                        || uri[..middle.saturating_sub(1)].ends_with('%'))
                {
                    middle -= 1;
                }
                for stop in ['?', '#'] {
                    let broken = format!("{}{stop}{}", &uri[..middle], &uri[middle..]);
                    must_not_match(&broken, &format!("a {stop} inside a value"))?;
                }
                if !reserved {
                    let slashed = format!("{}/{}", &uri[..middle], &uri[middle..]);
                    check_uri_template(&template, &slashed)?;
                }
                at += expanded.len();
            }
        }
    }
    Ok(exact)
}

/// One HTTP request through the Streamable HTTP endpoint, in-process (with sessions, or
/// stateless).
pub struct HttpTarget {
    runtime: tokio::runtime::Runtime,
    router: axum::Router,
}

/// An HTTP request as the fuzzers make it.
#[derive(Debug, Clone)]
pub struct HttpInput {
    /// The method (any token).
    pub method: String,
    /// Header names and values (invalid ones are dropped before sending, as a client library
    /// would refuse them).
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

impl HttpInput {
    /// The headers a well-behaved client sends with `body`: the host, what it accepts, the
    /// content type, and for a 2026-07-28 body its version and `Mcp-Method`/`Mcp-Name` mirrors.
    /// Most fuzzed requests start from these, so that they get past the ladder's first rungs.
    pub fn client_headers(body: &[u8]) -> Vec<(String, String)> {
        let mut headers = vec![
            ("Host".to_owned(), "127.0.0.1".to_owned()),
            ("Accept".to_owned(), "application/json, text/event-stream".to_owned()),
            ("Content-Type".to_owned(), "application/json".to_owned()),
        ];
        let message: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
        if message["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28" {
            headers.push(("MCP-Protocol-Version".to_owned(), "2026-07-28".to_owned()));
            if let Some(method) = message["method"].as_str() {
                headers.push(("Mcp-Method".to_owned(), method.to_owned()));
            }
            if let Some(name) = message["params"]["name"].as_str() {
                headers.push(("Mcp-Name".to_owned(), name.to_owned()));
            }
        }
        headers
    }
}

impl HttpTarget {
    /// The fixture server's endpoint, `stateless` or with sessions.
    pub fn new(stateless: bool) -> HttpTarget {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
        let server = crate::fixture::builder(false)
            .default_timeout(Duration::from_millis(200))
            .ask_timeout(Duration::from_millis(100))
            .stateless_http(stateless);
        let server = ServerBuilder::build(server).expect("the fixture server builds");
        let router = runtime.block_on(async { server.http_router() });
        HttpTarget { runtime, router }
    }

    /// Sends `input` to `/` and checks the answer: never a 5xx; a JSON body is one JSON-RPC
    /// message (or an empty one); every SSE event's data is one; nothing carries a panic
    /// payload, a source path or a backtrace the request did not.
    pub fn check(&self, input: &HttpInput) -> Result<(), String> {
        use tower::ServiceExt as _;
        let Ok(method) = http::Method::from_bytes(input.method.as_bytes()) else { return Ok(()) };
        let mut request = http::Request::builder().method(method).uri("/");
        for (name, value) in &input.headers {
            if let (Ok(name), Ok(value)) =
                (http::HeaderName::from_bytes(name.as_bytes()), http::HeaderValue::from_str(value))
            {
                request = request.header(name, value);
            }
        }
        let Ok(request) = request.body(axum::body::Body::from(input.body.clone())) else { return Ok(()) };
        let sent = format!("{input:?}");
        self.runtime.block_on(async {
            let answer = async {
                let response = self.router.clone().oneshot(request).await.map_err(|e| format!("{e:?}"))?;
                let status = response.status();
                let kind =
                    response.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
                let body = axum::body::to_bytes(response.into_body(), 64 << 20).await.map_err(|e| e.to_string())?;
                Ok::<_, String>((status, kind, body))
            };
            let (status, kind, body) = tokio::time::timeout(Duration::from_secs(5), answer)
                .await
                .map_err(|_| format!("no complete answer within 5 s to {sent}"))??;
            if status.is_server_error() {
                return Err(format!("{status} for {sent}"));
            }
            let text = String::from_utf8_lossy(&body);
            if let Some(leak) = leak(&text, &sent) {
                return Err(format!("{leak:?} reached the client: {text}"));
            }
            let messages: Vec<&str> = if kind.starts_with("text/event-stream") {
                text.lines().filter_map(|l| l.strip_prefix("data:")).map(str::trim).filter(|d| !d.is_empty()).collect()
            } else if kind.starts_with("application/json") && !text.trim().is_empty() {
                vec![text.as_ref()]
            } else {
                Vec::new()
            };
            for message in messages {
                let value = json(message).map_err(|e| format!("not JSON ({e}): {message}"))?;
                if value.get("jsonrpc") != Some(&Value::from("2.0")) {
                    return Err(format!("not JSON-RPC 2.0 ({status}): {message}"));
                }
            }
            Ok(())
        })
    }
}

/// The fuzz targets, one function each from libFuzzer's bytes to a checked property: the
/// `fuzz/` campaigns call them, and `tests/tests/hostile/fuzz_replay.rs` replays every committed seed
/// and past finding through them on stable Rust. Bytes are decoded with `arbitrary` as
/// cargo-fuzz's `fuzz_target!` decodes a typed input (`arbitrary_take_rest`); bytes that do not
/// decode are no input (`Ok`).
pub mod targets {
    use arbitrary::{Arbitrary, Unstructured};
    use mcp_runtime::fuzzing::StateSealer;
    use serde_json::Value;

    use super::{FIXTURE_TOOLS, HttpInput, HttpTarget, SessionTarget};

    thread_local! {
        static SESSION: SessionTarget = SessionTarget::new();
        static HTTP: (HttpTarget, HttpTarget) = (HttpTarget::new(false), HttpTarget::new(true));
        static SEALER: StateSealer = StateSealer::new(b"0123456789abcdef0123456789abcdef");
    }

    /// For a campaign's `init`: libFuzzer's panic hook aborts on every panic, and the fixture's
    /// `boom` tool panics on purpose (the runtime catches it and answers an error). Its panics
    /// are let through; any other still aborts, and is a finding.
    pub fn init() {
        let abort = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !info.location().is_some_and(|at| at.file().ends_with("tests/src/fixture.rs")) {
                abort(info);
            }
        }));
    }

    /// Runs `target` on `data` in a campaign: a broken property is printed and aborts, as
    /// libFuzzer expects of a finding.
    pub fn run(target: Target, data: &[u8]) {
        if let Err(broken) = target(data) {
            eprintln!("property broken: {broken}");
            std::process::abort();
        }
    }

    fn decode<'a, T: Arbitrary<'a>>(data: &'a [u8]) -> Option<T> {
        T::arbitrary_take_rest(Unstructured::new(data)).ok()
    }

    /// The names of the targets, as `fuzz/Cargo.toml` and `fuzz/seeds/` name them.
    pub const NAMES: &[&str] = &["session_line", "tool_arguments", "http_request", "uri_template", "request_state"];

    /// A target: libFuzzer's bytes in, what broke out.
    pub type Target = fn(&[u8]) -> Result<(), String>;

    /// The target called `name`; `None` for an unknown name.
    pub fn by_name(name: &str) -> Option<Target> {
        Some(match name {
            "session_line" => session_line,
            "tool_arguments" => tool_arguments,
            "http_request" => http_request,
            "uri_template" => uri_template,
            "request_state" => request_state,
            _ => return None,
        })
    }

    /// One line through a session of the fixture server: the first byte's low bit picks
    /// 2025-11-25 (initialized first) or 2026-07-28; the rest is the line.
    pub fn session_line(data: &[u8]) -> Result<(), String> {
        let Some((&era, line)) = data.split_first() else { return Ok(()) };
        let line = String::from_utf8_lossy(line);
        SESSION.with(|t| t.check(era & 1 == 1, &line))
    }

    /// A `tools/call` of a fixture tool (picked by a byte) in either era, with the rest as its
    /// arguments: JSON when it parses, else sent as a string.
    pub fn tool_arguments(data: &[u8]) -> Result<(), String> {
        let Some((legacy, tool, arguments)) = decode::<(bool, u8, &[u8])>(data) else { return Ok(()) };
        let name = FIXTURE_TOOLS[usize::from(tool) % FIXTURE_TOOLS.len()];
        let arguments = serde_json::from_slice::<Value>(arguments)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(arguments).into_owned()));
        SESSION.with(|t| t.check_call(legacy, name, &arguments))
    }

    #[derive(Debug, Arbitrary)]
    struct Request {
        stateless: bool,
        /// Whether the request starts with the headers a client would send for its body.
        from_a_client: bool,
        method: u8,
        headers: Vec<(u8, String)>,
        body: Vec<u8>,
    }

    /// The headers a client sends; a byte picks one.
    const HEADERS: &[&str] = &[
        "Host",
        "Accept",
        "Content-Type",
        "MCP-Protocol-Version",
        "Mcp-Session-Id",
        "Mcp-Method",
        "Mcp-Name",
        "Origin",
        "Last-Event-ID",
        "Mcp-Param-Region",
        "Authorization",
        "Content-Length",
        "Transfer-Encoding",
    ];

    const METHODS: &[&str] = &["POST", "GET", "DELETE", "PUT", "OPTIONS", "HEAD", "PATCH"];

    /// One HTTP request through the endpoint, with sessions or stateless.
    pub fn http_request(data: &[u8]) -> Result<(), String> {
        let Some(request) = decode::<Request>(data) else { return Ok(()) };
        let mut headers = if request.from_a_client { HttpInput::client_headers(&request.body) } else { Vec::new() };
        headers.extend(
            request
                .headers
                .into_iter()
                .map(|(name, value)| (HEADERS[usize::from(name) % HEADERS.len()].to_owned(), value)),
        );
        let input = HttpInput {
            method: METHODS[usize::from(request.method) % METHODS.len()].to_owned(),
            headers,
            body: request.body,
        };
        HTTP.with(
            |(sessions, stateless)| {
                if request.stateless { stateless.check(&input) } else { sessions.check(&input) }
            },
        )
    }

    /// A URI template and a URI.
    pub fn uri_template(data: &[u8]) -> Result<(), String> {
        let Some((template, uri)) = decode::<(&str, &str)>(data) else { return Ok(()) };
        super::check_uri_template(template, uri)
    }

    /// A token to open, and a state to seal, open and tamper with.
    pub fn request_state(data: &[u8]) -> Result<(), String> {
        let Some((text, binding, other, at, to)) = decode::<(&str, &str, &str, usize, char)>(data) else {
            return Ok(());
        };
        SEALER.with(|sealer| {
            super::check_foreign_state(sealer, text, binding)?;
            super::check_sealed_state(sealer, text, binding, other, at, to)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::normalized;

    #[test]
    fn a_source_location_is_a_leak_unless_it_was_sent() {
        use super::leak;
        assert_eq!(leak("at src/lib.rs:12:5", "{}").as_deref(), Some(".rs:12"));
        assert_eq!(leak("Unknown key .rs: unknown key", r#"{".rs": 2}"#), None);
        assert_eq!(leak("key x.rs:7 unknown", r#"{"x.rs:7": 2}"#), None);
        assert_eq!(leak("thread 'main' panicked at x", "{}").as_deref(), Some("panicked at"));
        assert_eq!(leak("a.rs:", "{}"), None);
        assert_eq!(leak("Unknown key lon.t.rs:6ury", r#"{"lon.t.rs\u0000:6ury": 1}"#), None);
        assert_eq!(leak("at x.rs:6 and y.rs:7", r#"{"x.rs:6": 1}"#).as_deref(), Some(".rs:7"));
    }

    #[test]
    fn json_that_serde_json_refuses_reads_alike_on_both_sides() {
        for (text, want) in [
            (r#""a\ud800""#, r#""a\ufffd""#),
            (r#""\udc00\ud83d\ude00\ud800x""#, r#""\ufffd\ud83d\ude00\ufffdx""#),
            (r#""\\ud800""#, r#""\\ud800""#),
            (r#""\u00e9\"é\ud800"#, r#""\u00e9\"é\ufffd"#),
            (r#""\ud800\u0041""#, r#""\ufffd\u0041""#),
            ("\\", "\\"),
            ("\"\\é\\ud800\"", "\"\\é\\ufffd\""),
            ("\\ud800", "\\ud800"),
        ] {
            assert_eq!(normalized(text), want, "{text}");
        }
        assert!(serde_json::from_str::<serde_json::Value>(&normalized(r#"{"id":"\ud800"}"#)).is_ok());
        assert_eq!(
            normalized(r#"{"id":11e999,"x":"1e999","y":-2E+400,"z":[1e3]}"#),
            r#"{"id":1e308,"x":"1e999","y":-1e308,"z":[1e3]}"#
        );
        assert_eq!(normalized(r#"{"a\"":1e999}"#), r#"{"a\"":1e308}"#);
    }

    #[test]
    fn an_invalid_arguments_text_that_holds_a_value_names_it() {
        let arguments = serde_json::json!({"q": "a value of some length", "k": ["short", {"v": "ccepts: quer"}]});
        let result = |message: &str| {
            serde_json::json!({"isError": true, "content": [{"type": "text", "text": format!(
                "Error: Invalid arguments for tool find: {message}\n\n(reason invalid_arguments · not retryable · request ABCDE-FGHJK)"
            )}]})
        };
        let repeated = |message: &str| super::check_envelope("find", &arguments, &result(message), "{}");
        assert_eq!(repeated("`q` is too long"), Ok(vec![]));
        assert_eq!(repeated("This tool accepts: query"), Ok(vec!["ccepts: quer"]));
        assert_eq!(repeated("`q`: \"a value of some length\" is not a number"), Ok(vec!["a value of some length"]));
        assert!(super::check_envelope("other", &arguments, &result("x"), "{}").is_err(), "names another tool");

        let other = super::replaced(&arguments, "ccepts: quer");
        assert_eq!(other["k"][1]["v"], "\u{2600}".repeat(12));
        assert_eq!(other["q"], arguments["q"]);
    }
}
