//! The error envelope (docs/errors.md#the-envelopes-rules): one failure, said the same way in `content[0].text`
//! and in `structuredContent.error`. Also the recovery fill and the failure's log record,
//! which happen here, in this order, for every tool execution error.

use std::fmt::Write as _;

use mcp_core::{CallToolResult, Content, ContractEntry, ErrorCode, Severity, ToolError};
use serde_json::{Map, Value};

use crate::rpc::request_id::RequestId;

/// Who produced a failure, which decides its log level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// The handler (or a service below it): logged at the declared severity, else error.
    Handler,
    /// A refusal by the framework (`unknown_tool`, `tool_unavailable`,
    /// `invalid_arguments`): logged below error.
    Refusal,
    /// The framework caught a fault (panic, timeout, bad output): logged at error.
    Fault,
}

/// Where a failure happened: the tool as the caller named it, its contract, and whether
/// its error result carries `structuredContent.error`.
#[derive(Clone, Copy)]
pub(crate) struct Site<'a> {
    /// `tool`, `resource` or `prompt`: what failed, for the log.
    pub(crate) family: &'static str,
    pub(crate) tool: &'a str,
    pub(crate) contract: &'static [ContractEntry],
    /// `false` for a tool that declares an `outputSchema` (unless the server puts
    /// `structuredContent.error` on every error): clients validate `structuredContent`
    /// against that schema even on `isError` results, and would replace the envelope with
    /// their complaint.
    pub(crate) structured: bool,
    /// At most this many bytes of a plain error's cause chain go into its message (0: none).
    pub(crate) causes: usize,
    /// The draft failure standards the server speaks (off unless set).
    pub(crate) drafts: Drafts,
}

impl<'a> Site<'a> {
    /// A site with no declared failure modes: a name that resolved to nothing, a file, a
    /// session's opening, a task's fault. Its envelope is structured, and a plain error's
    /// causes stay out of the message.
    pub(crate) fn bare(family: &'static str, tool: &'a str, drafts: Drafts) -> Self {
        Site { family, tool, contract: &[], structured: true, causes: 0, drafts }
    }
}

/// The draft failure standards a server opts into while they are drafts
/// (docs/errors.md#the-draft-failure-standards).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Drafts {
    /// SEP-3313: every `isError` result carries [`TOOL_FAILURE_KEY`] in its `_meta`.
    pub(crate) tool_failure_meta: bool,
    /// SEP-3304: a rate-limit refusal that is a protocol error has code [`RATE_LIMITED`].
    pub(crate) rate_limited_code: bool,
}

/// The `_meta` key of the structured failure (SEP-3313, a draft).
pub(crate) const TOOL_FAILURE_KEY: &str = "io.modelcontextprotocol/toolFailure";

/// The protocol error code of a rate-limit refusal (SEP-3304, a draft).
pub(crate) const RATE_LIMITED: i32 = -32023;

/// The caller's tool name, safe to show: control characters removed, cut at 128
/// characters followed by `…`.
pub(crate) fn display_name(name: &str) -> String {
    let clean: String = name.chars().filter(|c| !c.is_control()).collect();
    if clean.chars().count() > 128 {
        let mut cut: String = clean.chars().take(128).collect();
        cut.push('…');
        cut
    } else {
        clean
    }
}

/// The edit distance of two names (insert, delete, substitute = 1; case-sensitive), for the
/// did-you-mean of an unknown tool or an unknown key.
pub(crate) fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// Fill, log, render: the one way a failure leaves the runtime.
pub(crate) fn fail(
    site: Site<'_>,
    mut error: ToolError,
    request_id: RequestId,
    origin: Origin,
    issues: Option<Value>,
) -> CallToolResult {
    let entry = if origin == Origin::Handler { error.fill_from_contract(site.contract) } else { None };
    if site.causes > 0 && origin == Origin::Handler {
        error = with_causes(error, site.causes);
    }
    log(site, &error, request_id, entry, origin, None);
    let mut result = render(&error, request_id, issues, !site.structured);
    if site.drafts.tool_failure_meta {
        let mut meta = Map::with_capacity(1);
        meta.insert(TOOL_FAILURE_KEY.into(), tool_failure(&error, request_id));
        result.meta = Some(meta);
    }
    if !site.structured
        && let Some(mut structured) = result.structured_content.take()
    {
        let error = structured.get_mut("error").map(Value::take).unwrap_or_default();
        STRIPPED.with(|note| *note.borrow_mut() = Some((request_id, error)));
    }
    result
}

thread_local! {
    /// The `structuredContent.error` that `fail` last left out of an error result on this
    /// thread (a tool that declares an `outputSchema`), with its request id: the observer of
    /// the call (its span, metrics, hooks) reads it back right after, in the same poll.
    static STRIPPED: std::cell::RefCell<Option<(RequestId, Value)>> = const { std::cell::RefCell::new(None) };
}

/// The `structuredContent.error` that `fail` left out of `result`, an error result it made
/// on this thread: found by the request id its text ends with, so that nothing of another
/// call is ever taken for it.
pub(crate) fn stripped_error(result: &CallToolResult) -> Option<Value> {
    let text = result.first_text()?;
    let id = text.strip_suffix(')')?.rsplit_once("request ")?.1;
    STRIPPED.with(|note| {
        let mut note = note.borrow_mut();
        if note.as_ref().is_some_and(|(noted, _)| noted.as_str() == id) { note.take().map(|(_, e)| e) } else { None }
    })
}

/// A plain error (its message is its source's own text, and it has no reason) with the rest
/// of its cause chain appended, `: `-joined as `anyhow`'s `{:#}` shows it, cut at `cap` bytes.
fn with_causes(error: ToolError, cap: usize) -> ToolError {
    let Some(source) = std::error::Error::source(&error) else { return error };
    if error.reason_str().is_some() || source.to_string() != error.message_str() {
        return error;
    }
    let mut chain = String::new();
    let mut cur = source.source();
    while let Some(cause) = cur {
        let _ = write!(chain, ": {cause}");
        cur = cause.source();
    }
    if chain.is_empty() {
        return error;
    }
    if chain.len() > cap {
        let mut at = cap;
        while !chain.is_char_boundary(at) {
            at -= 1;
        }
        chain.truncate(at);
        chain.push('…');
    }
    let message = format!("{}{chain}", error.message_str());
    error.message(message)
}

/// The failure's log record; `code` is the one sent when it differs from the error's own.
///
/// Level (docs/errors.md#the-log-record): the entry's `severity` when declared; else a declared
/// failure (its reason is in the contract: an expected outcome) at info, a framework refusal
/// at info, and anything else (plain errors, undeclared failures, panics, timeouts, invalid
/// output) at error. A field without a value (no reason, no source chain) is left out, not
/// written empty.
fn log(
    site: Site<'_>,
    error: &ToolError,
    request_id: RequestId,
    entry: Option<&ContractEntry>,
    origin: Origin,
    code: Option<i32>,
) {
    let (family, tool) = (site.family, site.tool);
    // `Option` fields are recorded only when `Some`.
    let chain = std::error::Error::source(error).is_some().then_some(SourceChain(error));
    let chain = chain.as_ref().map(tracing::field::display);
    let code = code.unwrap_or_else(|| error.code().as_i32());
    let reason = error.reason_str();
    macro_rules! record {
        ($level:expr) => {
            tracing::event!(target: "mcp_runtime::call", $level, request_id = %request_id, code, reason, chain, "Error in {}:{}: {}", family, tool, error.message_str())
        };
    }
    match (origin, entry) {
        (_, Some(ContractEntry { severity: Some(Severity::Debug), .. })) => record!(tracing::Level::DEBUG),
        (_, Some(ContractEntry { severity: Some(Severity::Warning), .. })) => record!(tracing::Level::WARN),
        // A declared failure, at `info` or `notice` (tracing has no `notice`), or undeclared
        // severity: an expected outcome. A refusal is the caller's mistake, not the server's.
        (_, Some(_)) | (Origin::Refusal, None) => record!(tracing::Level::INFO),
        (Origin::Handler | Origin::Fault, None) => record!(tracing::Level::ERROR),
    }
}

/// The failure's `source()` chain, `a <- b <- c`, formatted only if a subscriber records it.
struct SourceChain<'a>(&'a ToolError);

impl std::fmt::Display for SourceChain<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut cur = std::error::Error::source(self.0);
        let mut first = true;
        while let Some(e) = cur {
            if !first {
                f.write_str(" <- ")?;
            }
            write!(f, "{e}")?;
            first = false;
            cur = e.source();
        }
        Ok(())
    }
}

/// A failure of a resource read or a prompt (only tools have `isError`): filled and logged
/// like a tool's, and sent as a JSON-RPC error whose `data` is the envelope's. `code`
/// replaces the error's own code when given (a resource that is not found has the code of
/// its era).
pub(crate) fn fail_rpc(
    site: Site<'_>,
    mut error: ToolError,
    request_id: RequestId,
    origin: Origin,
    code: Option<i32>,
) -> crate::rpc::jsonrpc::RpcError {
    let entry = if origin == Origin::Handler { error.fill_from_contract(site.contract) } else { None };
    if site.causes > 0 && origin == Origin::Handler {
        error = with_causes(error, site.causes);
    }
    log(site, &error, request_id, entry, origin, code);
    let hint = error.hint_str().filter(|h| !h.is_empty());
    let data = data(&error, hint, request_id, None);
    let rate_limited = site.drafts.rate_limited_code && error.code() == ErrorCode::RateLimited;
    crate::rpc::jsonrpc::RpcError {
        code: code.unwrap_or_else(|| if rate_limited { RATE_LIMITED } else { error.code().as_i32() }),
        message: error.message_str().to_owned(),
        data: Some(Value::Object(data)),
    }
}

/// The structured failure of SEP-3313 (a draft), mapped from the envelope: `code` is the
/// reason (else the draft's baseline code for the error code), `agentGuidance` the recovery
/// hint, `retryable` as declared, `correlationId` the request id, `class` from the error code,
/// and `retryNotBefore` (epoch milliseconds) when the error says `data.retryAfterMs`.
fn tool_failure(error: &ToolError, request_id: RequestId) -> Value {
    let code = error.code();
    let class = match code {
        ErrorCode::Unauthorized | ErrorCode::Forbidden => "governance",
        ErrorCode::InvalidParams
        | ErrorCode::NotFound
        | ErrorCode::ValidationError
        | ErrorCode::Conflict
        | ErrorCode::MethodNotFound
        | ErrorCode::InvalidRequest
        | ErrorCode::ParseError
        | ErrorCode::SerializationError => "capability",
        _ => "reliability",
    };
    let baseline = match code {
        ErrorCode::NotFound => "resource_not_found",
        ErrorCode::InvalidParams | ErrorCode::ValidationError => "invalid_input",
        ErrorCode::ServiceUnavailable | ErrorCode::Timeout | ErrorCode::RateLimited => "retryable_transient_error",
        ErrorCode::Unauthorized => "auth_required",
        ErrorCode::Forbidden => "permission_denied",
        ErrorCode::MethodNotFound => "capability_unsupported",
        _ => "internal_error",
    };
    let mut failure = Map::with_capacity(6);
    failure.insert("class".into(), Value::from(class));
    failure.insert("code".into(), Value::from(error.reason_str().unwrap_or(baseline)));
    if let Some(retryable) = error.is_retryable() {
        failure.insert("retryable".into(), Value::Bool(retryable));
    }
    if let Some(after) = error.data_map().get("retryAfterMs").and_then(Value::as_u64) {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis());
        let at = u64::try_from(now).unwrap_or(u64::MAX).saturating_add(after);
        failure.insert("retryNotBefore".into(), Value::from(at));
    }
    failure.insert("correlationId".into(), Value::from(request_id.as_str()));
    if let Some(hint) = error.hint_str().filter(|h| !h.is_empty()) {
        failure.insert("agentGuidance".into(), Value::from(hint));
    }
    Value::Object(failure)
}

/// `error.data` of the envelope: the error's own data, then reason, retryable, the recovery
/// hint, issues and the request id.
fn data(error: &ToolError, hint: Option<&str>, request_id: RequestId, issues: Option<Value>) -> Map<String, Value> {
    let mut data: Map<String, Value> = error.data_map().clone();
    if let Some(reason) = error.reason_str() {
        data.insert("reason".into(), Value::from(reason));
    }
    if let Some(retryable) = error.is_retryable() {
        data.insert("retryable".into(), Value::Bool(retryable));
    }
    if let Some(hint) = hint {
        let mut recovery = Map::new();
        recovery.insert("hint".into(), Value::from(hint));
        data.insert("recovery".into(), Value::Object(recovery));
    }
    if let Some(issues) = issues {
        data.insert("issues".into(), issues);
    }
    data.insert("requestId".into(), Value::from(request_id.as_str()));

    data
}

/// The keys of `error.data` the runtime writes (after the author's, so they win): the
/// `Details:` line leaves them out, as the terms line and `Recovery:` say them.
const RUNTIME_KEYS: [&str; 5] = ["reason", "retryable", "recovery", "issues", "requestId"];

/// A `Details:` line holds at most this many characters of JSON, then `…`.
const DETAILS_CHARS: usize = 1024;

/// `Details: {..}`: the author's data as one line of compact JSON, cut at [`DETAILS_CHARS`]
/// characters followed by `…`; `None` when the author set none.
fn details(error: &ToolError) -> Option<String> {
    let data = error.data_map();
    if data.keys().all(|k| RUNTIME_KEYS.contains(&k.as_str())) {
        return None;
    }
    let own: Map<String, Value> =
        data.iter().filter(|(k, _)| !RUNTIME_KEYS.contains(&k.as_str())).map(|(k, v)| (k.clone(), v.clone())).collect();
    // Compact JSON escapes every control character: it is one line whatever the data holds.
    let mut json = Value::Object(own).to_string();
    if let Some((at, _)) = json.char_indices().nth(DETAILS_CHARS) {
        json.truncate(at);
        json.push('…');
    }
    Some(json)
}

/// The envelope. Text blocks, joined by a blank line: `Error: <message>`; `Recovery: <hint>`
/// unless the trimmed message already contains the hint; with `with_details` (the result
/// carries no `structuredContent`), `Details: <the author's data as compact JSON>` when the
/// author set any; `(<terms>)`.
pub(crate) fn render(
    error: &ToolError,
    request_id: RequestId,
    issues: Option<Value>,
    with_details: bool,
) -> CallToolResult {
    let message = error.message_str();
    let hint = error.hint_str().filter(|h| !h.is_empty());
    let mut text = String::with_capacity(message.len() + hint.map_or(0, str::len) + 64);
    text.push_str("Error: ");
    text.push_str(message);
    if let Some(hint) = hint
        && !message.trim().contains(hint)
    {
        text.push_str("\n\nRecovery: ");
        text.push_str(hint);
    }
    if with_details && let Some(details) = details(error) {
        text.push_str("\n\nDetails: ");
        text.push_str(&details);
    }
    text.push_str("\n\n(");
    if let Some(reason) = error.reason_str() {
        let _ = write!(text, "reason {reason} · ");
    }
    match error.is_retryable() {
        Some(true) => text.push_str("retryable · "),
        Some(false) => text.push_str("not retryable · "),
        None => {}
    }
    let _ = write!(text, "request {request_id})");

    let data = data(error, hint, request_id, issues);
    let mut body = Map::new();
    body.insert("code".into(), Value::from(error.code().as_i32()));
    body.insert("message".into(), Value::from(message));
    body.insert("data".into(), Value::Object(data));
    let mut structured = Map::new();
    structured.insert("error".into(), Value::Object(body));
    CallToolResult {
        content: vec![Content::text(text)],
        structured_content: Some(Value::Object(structured)),
        is_error: Some(true),
        meta: None,
    }
}
