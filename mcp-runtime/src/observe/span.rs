//! The span of one request received, by the OpenTelemetry semantic conventions for MCP
//! (`SERVER` kind, named `{mcp.method.name} {target}`), made with `tracing` so that any
//! subscriber sees it and a handler's own spans nest under it; with the `otel` feature,
//! parented on the trace context of the request's `params._meta` and linked to the one of
//! its HTTP `traceparent` header.
//!
//! Nothing is done unless a subscriber is interested in the span's target
//! ([`TARGET`], at `INFO`): the disabled check is the callsite's cached interest.
//!
//! Attributes outside the conventions, for the operator going from a caller's complaint to
//! the trace, are namespaced `mcp_runtime.*`: `mcp_runtime.error.reason` (the envelope's
//! declared reason), `mcp_runtime.error.retryable` and `mcp_runtime.request.id` (the
//! envelope's request id, which the caller sees).
//!
//! What a client chose (a resource's URI, an error's message that may quote it) is recorded
//! cut to the server's [`span_value_chars`](crate::ServerBuilder::span_value_chars)
//! (default 1,024 characters, a trailing `…` marking the cut): a span is kept until it is
//! exported, and a client's megabyte-long URI must not be kept with it. Names (tools,
//! prompts, methods, ids) are cut shorter still, as everywhere they are shown.

use std::borrow::Cow;

use serde_json::Value;
use serde_json::value::RawValue;
use tracing::Span;
use tracing::field::Empty;

use crate::hooks::Answer;
use crate::rpc::channel::{Channel, Transport};
use crate::rpc::era::{Client, Era};

/// The target of every span of this module: a subscriber enables them by it (the stderr
/// logging of [`init_stderr_logging`](crate::init_stderr_logging) leaves it out).
pub(crate) const TARGET: &str = crate::context::logging::REQUEST_SPAN_TARGET;

/// What a span is the span of: the method, and the request's id when it is a request.
pub(crate) struct Start<'a> {
    pub(crate) method: &'a str,
    pub(crate) id: Option<&'a RawValue>,
}

/// A new `SERVER` span for a request received on `channel` (disabled when no subscriber
/// wants it). Its parent is the trace context the request carries (see the module).
pub(crate) fn server(start: &Start<'_>, params: Option<&RawValue>, channel: &Channel) -> Span {
    let span = make(start);
    if span.is_disabled() {
        return span;
    }
    match channel.transport() {
        Transport::Stdio => {
            span.record("network.transport", "pipe");
        }
        Transport::Http => {
            span.record("network.transport", "tcp");
            span.record("network.protocol.name", "http");
            if let Some(version) = channel.http().and_then(|h| http_version(h.version)) {
                span.record("network.protocol.version", version);
            }
        }
        Transport::InProcess => {}
    }
    #[cfg(feature = "otel")]
    super::context::parent(&span, params, channel.http().map(|h| &h.headers));
    #[cfg(not(feature = "otel"))]
    let _ = params;
    span
}

/// The span with its name, kind and request attributes, and every other attribute declared
/// empty (a `tracing` span's fields are fixed when it is made).
fn make(start: &Start<'_>) -> Span {
    let span = tracing::info_span!(
        target: TARGET,
        "mcp.server.request",
        otel.name = Empty,
        otel.kind = "server",
        otel.status_code = Empty,
        otel.status_description = Empty,
        mcp.method.name = Empty,
        gen_ai.tool.name = Empty,
        gen_ai.prompt.name = Empty,
        gen_ai.operation.name = Empty,
        jsonrpc.request.id = Empty,
        mcp.resource.uri = Empty,
        mcp.protocol.version = Empty,
        mcp.session.id = Empty,
        network.transport = Empty,
        network.protocol.name = Empty,
        network.protocol.version = Empty,
        error.type = Empty,
        rpc.response.status_code = Empty,
        mcp_runtime.error.reason = Empty,
        mcp_runtime.error.retryable = Empty,
        mcp_runtime.request.id = Empty,
    );
    if span.is_disabled() {
        return span;
    }
    let method = crate::rpc::envelope::display_name(start.method);
    span.record("otel.name", method.as_str());
    span.record("mcp.method.name", method.as_str());
    if let Some(id) = start.id.and_then(request_id) {
        span.record("jsonrpc.request.id", id.as_str());
    }
    span
}

/// The span of a task's work once its `tools/call` was answered with the task: `INTERNAL`,
/// named `execute_tool {tool}` as the conventions for generative AI name a tool's execution, a root of its
/// own linked to the `tools/call` span (`call`) that made it (a task outlives the request, and
/// may be driven on another replica later), with `mcp_runtime.task.id`; how it ended is
/// recorded as for a request (`finish`), and its last status as `mcp_runtime.task.status`.
pub(crate) fn task(tool: &str, id: &str, call: &Span) -> Span {
    let span = tracing::info_span!(
        target: TARGET,
        parent: None,
        "mcp.server.task",
        otel.name = Empty,
        otel.kind = "internal",
        otel.status_code = Empty,
        otel.status_description = Empty,
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = Empty,
        mcp_runtime.task.id = id,
        mcp_runtime.task.status = Empty,
        error.type = Empty,
        rpc.response.status_code = Empty,
        mcp_runtime.error.reason = Empty,
        mcp_runtime.error.retryable = Empty,
        mcp_runtime.request.id = Empty,
    );
    if span.is_disabled() {
        return span;
    }
    let name = crate::rpc::envelope::display_name(tool);
    span.record("gen_ai.tool.name", name.as_str());
    span.record("otel.name", format!("execute_tool {name}").as_str());
    span.follows_from(call);
    span
}

/// Records a task's status as it ends.
pub(crate) fn task_status(span: &Span, status: &str) {
    if !span.is_disabled() {
        span.record("mcp_runtime.task.status", status);
    }
}

/// Records what the request's era says: the protocol version, and the 2025 HTTP session.
pub(crate) fn client(span: &Span, client: &Client, channel: &Channel) {
    if span.is_disabled() {
        return;
    }
    if let Some(version) = client.protocol_version() {
        span.record("mcp.protocol.version", version);
    }
    if client.era() == Era::Legacy
        && let Some(session) = channel.session()
    {
        span.record("mcp.session.id", session);
    }
}

/// Records what the request is about: the tool (`tools/call`) or prompt (`prompts/get`)
/// named, which also names the span.
pub(crate) fn target(span: &Span, method: &str, name: &str) {
    if span.is_disabled() {
        return;
    }
    let name = crate::rpc::envelope::display_name(name);
    match method {
        "tools/call" => {
            span.record("gen_ai.tool.name", name.as_str());
            span.record("gen_ai.operation.name", "execute_tool");
        }
        "prompts/get" => {
            span.record("gen_ai.prompt.name", name.as_str());
        }
        _ => return,
    }
    span.record("otel.name", format!("{method} {name}").as_str());
}

/// Records the resource a `resources/read` reads (not in the span's name: the conventions
/// make the URI an opt-in target, it can be long and of high cardinality), cut to `chars`.
pub(crate) fn resource(span: &Span, uri: &str, chars: usize) {
    if !span.is_disabled() {
        span.record("mcp.resource.uri", capped(uri, chars).as_ref());
    }
}

/// `value` cut to at most `chars` characters, at a character boundary, with `…` after a cut
/// (so at most `chars + 1` characters in all); borrowed when it is short enough.
pub(crate) fn capped(value: &str, chars: usize) -> Cow<'_, str> {
    // At most one char per byte: a value no longer in bytes is no longer in chars.
    if value.len() <= chars {
        return Cow::Borrowed(value);
    }
    match value.char_indices().nth(chars) {
        None => Cow::Borrowed(value),
        Some((end, _)) => {
            let mut cut = String::with_capacity(end + '…'.len_utf8());
            cut.push_str(&value[..end]);
            cut.push('…');
            Cow::Owned(cut)
        }
    }
}

/// Records how the request ended: a failure's `error.type`, status and our attributes
/// (what the answer carries cut to `chars`). `envelope` is a tool execution error's
/// `structuredContent.error`.
pub(crate) fn finish(span: &Span, answer: Answer<'_>, envelope: Option<&Value>, chars: usize) {
    if span.is_disabled() {
        return;
    }
    let (message, data) = match answer {
        Answer::Tool(result) if result.is_error == Some(true) => {
            span.record("error.type", "tool_error");
            let text = result.first_text();
            (envelope.and_then(|e| e.get("message")?.as_str()).or(text), envelope.and_then(|e| e.get("data")))
        }
        Answer::Error(e) => {
            let code = e.code.to_string();
            span.record("error.type", code.as_str());
            span.record("rpc.response.status_code", code.as_str());
            (Some(e.message.as_str()), e.data.as_ref())
        }
        _ => return,
    };
    span.record("otel.status_code", "ERROR");
    if let Some(message) = message {
        span.record("otel.status_description", capped(message, chars).as_ref());
    }
    let Some(data) = data else { return };
    if let Some(reason) = data.get("reason").and_then(Value::as_str) {
        span.record("mcp_runtime.error.reason", capped(reason, chars).as_ref());
    }
    if let Some(retryable) = data.get("retryable").and_then(Value::as_bool) {
        span.record("mcp_runtime.error.retryable", retryable);
    }
    if let Some(id) = data.get("requestId").and_then(Value::as_str) {
        span.record("mcp_runtime.request.id", capped(id, chars).as_ref());
    }
}

/// A JSON-RPC id in its string form (`"abc"` → `abc`, `7` → `7`); `None` for `null`.
fn request_id(id: &RawValue) -> Option<String> {
    match serde_json::from_str::<Value>(id.get()).ok()? {
        Value::String(s) => Some(crate::rpc::envelope::display_name(&s)),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// `network.protocol.version` of an HTTP request.
pub(super) fn http_version(version: http::Version) -> Option<&'static str> {
    Some(match version {
        http::Version::HTTP_09 => "0.9",
        http::Version::HTTP_10 => "1.0",
        http::Version::HTTP_11 => "1.1",
        http::Version::HTTP_2 => "2",
        http::Version::HTTP_3 => "3",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_read_in_their_string_form() {
        let raw = |s: &str| RawValue::from_string(s.to_owned()).expect("json");
        assert_eq!(request_id(&raw("\"abc\"")).as_deref(), Some("abc"));
        assert_eq!(request_id(&raw("7")).as_deref(), Some("7"));
        assert_eq!(request_id(&raw("null")), None);
    }

    #[test]
    fn client_values_are_cut_at_a_char_boundary_and_marked() {
        assert!(matches!(capped("abc", 3), Cow::Borrowed("abc")));
        assert!(matches!(capped("", 0), Cow::Borrowed("")));
        assert_eq!(capped("abcd", 3), "abc…");
        // 3 chars in 6 bytes: within the limit though longer in bytes.
        assert!(matches!(capped("ééé", 3), Cow::Borrowed("ééé")));
        assert_eq!(capped("éééé", 3), "ééé…");
        assert_eq!(capped("a😀b", 2), "a😀…");
        let long = "x".repeat(1 << 20);
        assert_eq!(capped(&long, 1024).chars().count(), 1025);
    }
}
