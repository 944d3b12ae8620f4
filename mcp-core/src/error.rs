//! `ToolError`: the one error type a tool's failure becomes, and the classification of
//! plain errors (docs/errors.md#plain-errors).

use std::borrow::Cow;
use std::error::Error as StdError;
use std::fmt;

use serde_json::{Map, Value};

use crate::contract::{ContractEntry, lookup};
use crate::{Contract, ErrorCode};

type BoxError = Box<dyn StdError + Send + Sync + 'static>;

/// A failed tool call, as the handler reports it.
///
/// Build one from a declared reason (`ctx.fail(Reason::X)`, or `ToolError::from(reason)` in
/// a service that has no `ctx`), from a code (`ToolError::not_found("…")`), or from any
/// plain error (`ToolError::from_error(e)`, or `?` on the error types listed under
/// [`From`]), which is classified by its `source()` chain. A `String` or `&'static str`
/// becomes a plain failure (`InternalError`) with that message.
///
/// The runtime turns it into the error envelope: the message, the recovery hint, the reason,
/// retryability and the request id, in text and in `structuredContent.error`. Its `source`
/// chain is logged, never sent.
///
/// ```
/// # extern crate mcp_runtime_core as mcp_runtime;
/// use mcp_runtime::{ErrorCode, ToolError};
///
/// let err = ToolError::not_found("no note called `todo`")
///     .reason("no_such_note")
///     .hint("Call list_notes to see the notes that exist.")
///     .retryable(false);
/// assert_eq!(err.code(), ErrorCode::NotFound);
/// assert_eq!(err.to_string(), "no note called `todo`");
/// ```
pub struct ToolError(Box<Inner>);

struct Inner {
    code: ErrorCode,
    message: Cow<'static, str>,
    reason: Option<Cow<'static, str>>,
    /// Set by a contract: the reason is the failure's identity and cannot be changed.
    reason_locked: bool,
    retryable: Option<bool>,
    hint: Option<Cow<'static, str>>,
    data: Map<String, Value>,
    source: Option<BoxError>,
    /// What the handler asked the caller for (`ctx.ask(..)` in `mcp-runtime`): not a
    /// failure. The runtime takes it out before anything else looks at the error.
    ask: Option<Box<dyn std::any::Any + Send + Sync>>,
}

macro_rules! constructors {
    ($($(#[$doc:meta])* $name:ident => $code:ident,)*) => {
        impl ToolError {
            $(
                $(#[$doc])*
                pub fn $name(message: impl Into<Cow<'static, str>>) -> Self {
                    Self::new(ErrorCode::$code, message)
                }
            )*
        }
    };
}

constructors! {
    /// An `InvalidParams` (-32602) failure.
    invalid_params => InvalidParams,
    /// An `InternalError` (-32603) failure.
    internal => InternalError,
    /// A `ServiceUnavailable` (-32000) failure.
    service_unavailable => ServiceUnavailable,
    /// A `NotFound` (-32001) failure.
    not_found => NotFound,
    /// A `Conflict` (-32002) failure.
    conflict => Conflict,
    /// A `RateLimited` (-32003) failure.
    rate_limited => RateLimited,
    /// A `Timeout` (-32004) failure.
    timeout => Timeout,
    /// A `Forbidden` (-32005) failure.
    forbidden => Forbidden,
    /// An `Unauthorized` (-32006) failure.
    unauthorized => Unauthorized,
    /// A `ValidationError` (-32007) failure.
    validation => ValidationError,
    /// A `ConfigurationError` (-32008) failure.
    configuration => ConfigurationError,
    /// A `DatabaseError` (-32010) failure.
    database => DatabaseError,
}

impl ToolError {
    /// A failure with this code and message, and nothing else.
    pub fn new(code: ErrorCode, message: impl Into<Cow<'static, str>>) -> Self {
        ToolError(Box::new(Inner {
            code,
            message: message.into(),
            reason: None,
            reason_locked: false,
            retryable: None,
            hint: None,
            data: Map::new(),
            source: None,
            ask: None,
        }))
    }

    /// The value `ctx.ask(..)` (in `mcp-runtime`) returns: the call ends asking the caller
    /// for input, which is not a failure. Made by the runtime; not for direct use.
    #[doc(hidden)]
    pub fn __asking(ask: Box<dyn std::any::Any + Send + Sync>) -> Self {
        let mut err = Self::new(ErrorCode::InternalError, "The tool asked the caller for input.");
        err.0.ask = Some(ask);
        err
    }

    /// What [`ToolError::__asking`] carries, left in place. Used by the runtime's test helpers.
    #[doc(hidden)]
    pub fn __ask(&self) -> Option<&(dyn std::any::Any + Send + Sync)> {
        self.0.ask.as_deref()
    }

    /// Takes out what [`ToolError::__asking`] carries. Used by the runtime.
    #[doc(hidden)]
    pub fn __take_ask(&mut self) -> Option<Box<dyn std::any::Any + Send + Sync>> {
        self.0.ask.take()
    }

    /// `true` when this value ends the call asking the caller for input (`ctx.ask(..)`),
    /// not with a failure.
    pub fn is_ask(&self) -> bool {
        self.0.ask.is_some()
    }

    /// The call stopped because the client cancelled it: return it from a handler that saw
    /// `ctx.cancelled()` or `ctx.is_cancelled()`. The client is sent nothing for a cancelled
    /// call, and the runtime records it at debug only, not as a failure.
    pub fn cancelled() -> Self {
        Self::new(ErrorCode::RequestCancelled, "The request was cancelled.").reason("cancelled").retryable(false)
    }

    /// `true` for the value [`ToolError::cancelled`] returns, and for any failure whose code
    /// is `RequestCancelled` (-32011): the call stopped because the client cancelled it.
    /// Check it where a handler (or a service under it) must tell a cancellation from a
    /// failure, e.g. to skip recording a half-done import as failed:
    ///
    /// ```
    /// # extern crate mcp_runtime_core as mcp_runtime;
    /// use mcp_runtime::ToolError;
    ///
    /// assert!(ToolError::cancelled().is_cancelled());
    /// assert!(!ToolError::timeout("too slow").is_cancelled());
    /// ```
    pub fn is_cancelled(&self) -> bool {
        self.0.code == ErrorCode::RequestCancelled
    }

    /// A failure built from a declared contract entry: its code, `when` as the message, its
    /// reason (locked), and `retryable` when declared. The recovery hint is filled in at the
    /// handler boundary unless the throw site sets one.
    pub fn from_entry(entry: &'static ContractEntry) -> Self {
        let mut err = Self::new(entry.code, entry.when);
        err.0.reason = Some(Cow::Borrowed(entry.reason));
        err.0.reason_locked = true;
        err.0.retryable = entry.retryable;
        err
    }

    /// A failure wrapping a plain error: the code is classified from its `source()` chain
    /// (docs/errors.md#plain-errors), the message is its `Display` text, and the error is kept as the
    /// source (logged, never sent). A `ToolError` passed in is returned unchanged.
    pub fn from_error<E: StdError + Send + Sync + 'static>(error: E) -> Self {
        Self::from_boxed(Box::new(error))
    }

    fn from_boxed(error: BoxError) -> Self {
        match error.downcast::<ToolError>() {
            Ok(tool_error) => *tool_error,
            Err(error) => {
                let mut err = Self::new(classify(&*error), error.to_string());
                if let Some((hint, retryable)) = io_advice(&*error) {
                    err = err.hint(hint).retryable(retryable);
                }
                err.0.source = Some(error);
                err
            }
        }
    }

    /// An I/O failure on `path`, said with the path: `` `notes/todo.md`: No such file or
    /// directory (os error 2) ``, classified and advised like any `io::Error`. A bare `?` on
    /// an `io::Error` cannot know which path failed (the error does not carry it), so its
    /// message is the OS's text alone; use this where the path helps the caller and is
    /// theirs to see.
    pub fn io_at(path: impl AsRef<std::path::Path>, error: std::io::Error) -> Self {
        let shown = format!("`{}`: {error}", path.as_ref().display());
        Self::from_error(error).message(shown)
    }

    /// Replaces the message.
    #[must_use]
    pub fn message(mut self, message: impl Into<Cow<'static, str>>) -> Self {
        self.0.message = message.into();
        self
    }

    /// Sets the machine-readable reason (`data.reason`). When the reason is declared in the
    /// tool's contract, the declared recovery hint and `retryable` are filled in at the
    /// handler boundary. A failure built from a contract (`ctx.fail`) keeps its own reason:
    /// the reason is its identity, so this call leaves it unchanged.
    #[must_use]
    pub fn reason(mut self, reason: impl Into<Cow<'static, str>>) -> Self {
        if !self.0.reason_locked {
            self.0.reason = Some(reason.into());
        }
        self
    }

    /// Says whether calling again with the same arguments may succeed (`data.retryable`).
    #[must_use]
    pub fn retryable(mut self, retryable: bool) -> Self {
        self.0.retryable = Some(retryable);
        self
    }

    /// Sets the recovery hint: the caller's next move (`data.recovery.hint`). A hint set here
    /// wins over the contract's declared one.
    #[must_use]
    pub fn hint(mut self, hint: impl Into<Cow<'static, str>>) -> Self {
        self.0.hint = Some(hint.into());
        self
    }

    /// Attaches data, sent in `structuredContent.error.data`. An object's keys are merged in
    /// (later calls win); any other value is stored under the key `value`. The keys the
    /// runtime writes (`reason`, `retryable`, `recovery`, `issues`, `requestId`) are written
    /// after the author's data and always win.
    ///
    /// The error result of a tool that declares an output schema carries no
    /// `structuredContent` (clients check it against that schema even on errors), so there
    /// the data reaches the model in the text instead: one line `Details: <compact JSON>`
    /// before the terms line, cut at 1,024 characters followed by `…`, without the runtime's
    /// keys (the text says those already):
    ///
    /// ```text
    /// Error: No tag called `rust-lang`.
    ///
    /// Recovery: Use one of the tags listed in the details.
    ///
    /// Details: {"known":["rust","go"]}
    ///
    /// (reason no_such_tag · not retryable · request UTFAC-QE0MB)
    /// ```
    ///
    /// Keep it small and written for the model: it is part of what the model reads.
    ///
    /// A value that fails to serialize is dropped and recorded under `dataError`.
    #[must_use]
    pub fn data(mut self, data: impl serde::Serialize) -> Self {
        match serde_json::to_value(data) {
            Ok(Value::Object(map)) => self.0.data.extend(map),
            Ok(other) => {
                self.0.data.insert("value".to_owned(), other);
            }
            Err(e) => {
                self.0.data.insert("dataError".to_owned(), Value::String(e.to_string()));
            }
        }
        self
    }

    /// Attaches the error that caused this one. It is logged with the failure, never sent.
    #[must_use]
    pub fn with_source(mut self, source: impl StdError + Send + Sync + 'static) -> Self {
        self.0.source = Some(Box::new(source));
        self
    }

    /// The code sent in `structuredContent.error.code`.
    pub fn code(&self) -> ErrorCode {
        self.0.code
    }

    /// The message (`Error: <message>`).
    pub fn message_str(&self) -> &str {
        &self.0.message
    }

    /// The machine-readable reason, if any.
    pub fn reason_str(&self) -> Option<&str> {
        self.0.reason.as_deref()
    }

    /// Whether the failure is retryable, if said.
    pub fn is_retryable(&self) -> Option<bool> {
        self.0.retryable
    }

    /// The recovery hint, if any.
    pub fn hint_str(&self) -> Option<&str> {
        self.0.hint.as_deref()
    }

    /// The author's data.
    pub fn data_map(&self) -> &Map<String, Value> {
        &self.0.data
    }

    /// The recovery fill (docs/errors.md#the-recovery-fill): when this failure's reason names an entry of the
    /// tool's contract, fill in the entry's recovery hint and `retryable` where the throw
    /// site set none. Returns the matched entry. Code and message stay as thrown.
    pub fn fill_from_contract(&mut self, entries: &'static [ContractEntry]) -> Option<&'static ContractEntry> {
        let entry = lookup(entries, self.0.reason.as_deref()?)?;
        if self.0.hint.is_none() {
            self.0.hint = Some(Cow::Borrowed(entry.recovery));
        }
        if self.0.retryable.is_none() {
            self.0.retryable = entry.retryable;
        }
        Some(entry)
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.message)
    }
}

impl fmt::Debug for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("ToolError");
        d.field("code", &self.0.code).field("message", &self.0.message);
        if let Some(reason) = &self.0.reason {
            d.field("reason", reason);
        }
        if let Some(retryable) = self.0.retryable {
            d.field("retryable", &retryable);
        }
        if let Some(hint) = &self.0.hint {
            d.field("hint", hint);
        }
        if !self.0.data.is_empty() {
            d.field("data", &self.0.data);
        }
        // The source chain is for the log record (`Error in tool:…`), which formats it
        // itself; `?err` in a handler's `tracing` event may reach the client, so the chain
        // stays out of `Debug`.
        if self.0.source.is_some() { d.finish_non_exhaustive() } else { d.finish() }
    }
}

impl StdError for ToolError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.0.source.as_deref().map(|e| e as &(dyn StdError + 'static))
    }
}

impl<R: Contract> From<R> for ToolError {
    /// A declared failure raised without a `ctx`, e.g. in a service below the handler.
    fn from(reason: R) -> Self {
        Self::from_entry(reason.entry())
    }
}

impl From<String> for ToolError {
    /// A plain failure with this message (`InternalError`, as a plain error of unknown type
    /// is classified): what a handler returning `Result<T, String>` fails with.
    fn from(message: String) -> Self {
        Self::new(ErrorCode::InternalError, message)
    }
}

impl From<&'static str> for ToolError {
    /// A plain failure with this message (`InternalError`), as for `String`.
    fn from(message: &'static str) -> Self {
        Self::new(ErrorCode::InternalError, message)
    }
}

impl From<std::io::Error> for ToolError {
    fn from(error: std::io::Error) -> Self {
        Self::from_error(error)
    }
}

impl From<serde_json::Error> for ToolError {
    fn from(error: serde_json::Error) -> Self {
        Self::from_error(error)
    }
}

impl From<tokio::time::error::Elapsed> for ToolError {
    fn from(error: tokio::time::error::Elapsed) -> Self {
        Self::from_error(error)
    }
}

impl From<std::fmt::Error> for ToolError {
    fn from(error: std::fmt::Error) -> Self {
        Self::from_error(error)
    }
}

impl From<BoxError> for ToolError {
    fn from(error: BoxError) -> Self {
        Self::from_boxed(error)
    }
}

impl From<Box<dyn StdError + Send + 'static>> for ToolError {
    fn from(error: Box<dyn StdError + Send + 'static>) -> Self {
        // Not `Sync`: keep the classification and the text, log the chain now.
        let mut err = Self::new(classify(&*error), error.to_string());
        err.0.source = Some(chain_text(&*error).into());
        err
    }
}

#[cfg(feature = "anyhow")]
impl From<anyhow::Error> for ToolError {
    fn from(error: anyhow::Error) -> Self {
        Self::from_boxed(error.into())
    }
}

/// The recovery advice for an `io::Error` in a plain error's chain, by its kind: a hint, and
/// whether retrying can help.
fn io_advice(error: &(dyn StdError + 'static)) -> Option<(&'static str, bool)> {
    let mut cur = Some(error);
    while let Some(e) = cur {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            use std::io::ErrorKind;
            return match io.kind() {
                ErrorKind::NotFound => Some((
                    "Check the path or name: list what exists with the tool that lists it, then retry with one of those.",
                    false,
                )),
                ErrorKind::PermissionDenied => {
                    Some(("The server may not access this; do not retry with the same input.", false))
                }
                ErrorKind::Interrupted | ErrorKind::WouldBlock | ErrorKind::TimedOut => {
                    Some(("Retry the call; the operation was interrupted.", true))
                }
                _ => None,
            };
        }
        cur = e.source();
    }
    None
}

fn chain_text(error: &(dyn StdError + 'static)) -> String {
    let mut out = error.to_string();
    let mut cur = error.source();
    while let Some(e) = cur {
        out.push_str(": ");
        out.push_str(&e.to_string());
        cur = e.source();
    }
    out
}

/// The code of a plain error, found by walking its `source()` chain (docs/errors.md#plain-errors); the
/// first error the table knows decides, else `InternalError`.
pub fn classify(error: &(dyn StdError + 'static)) -> ErrorCode {
    classify_chain(error).unwrap_or(ErrorCode::InternalError)
}

fn classify_chain(error: &(dyn StdError + 'static)) -> Option<ErrorCode> {
    let mut cur = Some(error);
    while let Some(e) = cur {
        if let Some(code) = classify_one(e) {
            return Some(code);
        }
        cur = e.source();
    }
    None
}

fn classify_one(e: &(dyn StdError + 'static)) -> Option<ErrorCode> {
    use std::io::ErrorKind as K;
    if let Some(t) = e.downcast_ref::<ToolError>() {
        return Some(t.code());
    }
    if let Some(io) = e.downcast_ref::<std::io::Error>() {
        return match io.kind() {
            K::NotFound => Some(ErrorCode::NotFound),
            K::PermissionDenied => Some(ErrorCode::Forbidden),
            K::TimedOut => Some(ErrorCode::Timeout),
            K::ConnectionRefused | K::ConnectionReset | K::ConnectionAborted | K::NotConnected | K::BrokenPipe => {
                Some(ErrorCode::ServiceUnavailable)
            }
            K::InvalidInput | K::InvalidData => Some(ErrorCode::ValidationError),
            K::AlreadyExists => Some(ErrorCode::Conflict),
            // `io::Error::other(e)`: its `source()` skips `e` itself, so look at `e` here.
            _ => io.get_ref().and_then(|inner| classify_chain(inner)),
        };
    }
    if e.is::<tokio::time::error::Elapsed>() {
        return Some(ErrorCode::Timeout);
    }
    if e.is::<serde_json::Error>() {
        return Some(ErrorCode::SerializationError);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io;

    #[derive(Debug)]
    struct Wrapper(io::Error);
    impl fmt::Display for Wrapper {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("loading the index failed")
        }
    }
    impl StdError for Wrapper {
        fn source(&self) -> Option<&(dyn StdError + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn io_kinds_map_to_codes() {
        let cases = [
            (io::ErrorKind::NotFound, ErrorCode::NotFound),
            (io::ErrorKind::PermissionDenied, ErrorCode::Forbidden),
            (io::ErrorKind::TimedOut, ErrorCode::Timeout),
            (io::ErrorKind::ConnectionRefused, ErrorCode::ServiceUnavailable),
            (io::ErrorKind::BrokenPipe, ErrorCode::ServiceUnavailable),
            (io::ErrorKind::InvalidData, ErrorCode::ValidationError),
            (io::ErrorKind::AlreadyExists, ErrorCode::Conflict),
            (io::ErrorKind::Other, ErrorCode::InternalError),
        ];
        for (kind, code) in cases {
            assert_eq!(ToolError::from(io::Error::new(kind, "x")).code(), code, "{kind:?}");
        }
    }

    #[test]
    fn the_chain_is_walked_and_the_top_message_kept() {
        let err = ToolError::from_error(Wrapper(io::Error::new(io::ErrorKind::NotFound, "/etc/secret")));
        assert_eq!(err.code(), ErrorCode::NotFound);
        assert_eq!(err.message_str(), "loading the index failed");
        assert!(err.reason_str().is_none() && err.data_map().is_empty());
        assert_eq!(StdError::source(&err).map(ToString::to_string).as_deref(), Some("loading the index failed"));
    }

    #[test]
    fn a_tool_error_in_the_chain_keeps_its_code() {
        let inner = ToolError::rate_limited("slow down");
        let boxed: BoxError = Box::new(io::Error::other(inner));
        assert_eq!(ToolError::from(boxed).code(), ErrorCode::RateLimited);
        let unchanged = ToolError::from_error(ToolError::conflict("taken").reason("name_taken"));
        assert_eq!(unchanged.reason_str(), Some("name_taken"));
    }

    static ENTRIES: [ContractEntry; 1] = [ContractEntry {
        reason: "no_match",
        code: ErrorCode::NotFound,
        when: "Nothing matched.",
        recovery: "Call search first, then retry.",
        retryable: Some(false),
        severity: None,
    }];

    #[test]
    fn the_fill_matches_by_reason_and_the_throw_site_wins() {
        let mut deep = ToolError::not_found("gone").reason("no_match");
        assert!(deep.fill_from_contract(&ENTRIES).is_some());
        assert_eq!(deep.hint_str(), Some("Call search first, then retry."));
        assert_eq!(deep.is_retryable(), Some(false));
        assert_eq!(deep.message_str(), "gone");

        let mut own = ToolError::not_found("gone").reason("no_match").hint("mine").retryable(true);
        own.fill_from_contract(&ENTRIES);
        assert_eq!((own.hint_str(), own.is_retryable()), (Some("mine"), Some(true)));

        let mut undeclared = ToolError::not_found("gone").reason("other");
        assert!(undeclared.fill_from_contract(&ENTRIES).is_none());
        assert_eq!(undeclared.hint_str(), None);
    }

    #[test]
    fn a_contract_reason_cannot_be_overridden() {
        let err = ToolError::from_entry(&ENTRIES[0]).reason("other").data(serde_json::json!({"reason": "x"}));
        assert_eq!(err.reason_str(), Some("no_match"));
        assert_eq!(err.message_str(), "Nothing matched.");
        assert_eq!(err.is_retryable(), Some(false));
    }
}
