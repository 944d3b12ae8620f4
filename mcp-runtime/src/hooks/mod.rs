//! Hooks: the author's code around every call of a tool (`tools/call`), a resource
//! (`resources/read`) or a prompt (`prompts/get`), in the order they were added.
//!
//! [`Hook::before`] runs once the call is resolved (the tool exists, is enabled and the
//! caller holds its scopes) and before its arguments are checked and its handler runs: it
//! may refuse the call with a failure, which the caller gets as the error envelope (a tool
//! execution error for a tool, a JSON-RPC error carrying the envelope's data for a resource
//! or a prompt). [`Hook::after`] runs once the call is answered, in the reverse order, for
//! every call, also one that a hook, the resolution or the transport refused: it sees the
//! outcome and how long the call took. A call that goes on as a task is seen once, when the
//! task ends, with the task's outcome. A hook that [counts sessions](Hook::counts_sessions)
//! ([`RateLimit`]) is also asked before a 2025 `initialize` over HTTP mints a session.
//!
//! A hook is a small synchronous trait rather than a `tower` layer: a layer over a call
//! service would box a future per layer and call, and own the request, on the path of every
//! call; a hook costs a virtual call, and nothing when none is added. A hook that counts
//! across replicas waits for the state store in [`Hook::before_shared`], asked only when the
//! server has one ([`HookRequest::state_store`]). The shipped hooks: [`RateLimit`] (a
//! budget per caller, shared by the replicas through the state store when there is one) and
//! [`Audit`] (one record per call to a sink of yours);
//! [`ServerBuilder::policy`](crate::ServerBuilder::policy) is a hook too.

pub(crate) mod audit;
pub(crate) mod policy;
pub(crate) mod rate_limit;

use std::any::Any;
use std::net::IpAddr;
use std::panic::AssertUnwindSafe;
use std::time::Duration;

use mcp_core::{CallToolResult, ToolError};
use serde_json::Value;

use crate::auth::principal::Principal;
use crate::rpc::channel::{Channel, Transport};
use crate::rpc::era::{Client, Era};
use crate::rpc::jsonrpc::RpcError;

/// Code around every call of a tool, a resource or a prompt: see
/// [`ServerBuilder::hook`](crate::ServerBuilder::hook).
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::{Hook, HookRequest, Outcome};
///
/// /// Refuses `delete_*` tools to callers without the `admin` scope, and logs slow calls.
/// struct Guard;
///
/// impl Hook for Guard {
///     fn before(&self, request: &HookRequest<'_>) -> Result<(), ToolError> {
///         let admin = request.principal().is_some_and(|p| p.has_scope("admin"));
///         if request.name().starts_with("delete_") && !admin {
///             return Err(ToolError::forbidden("Deleting needs the admin scope.")
///                 .reason("admin_only")
///                 .hint("Ask an administrator to run this tool."));
///         }
///         Ok(())
///     }
///
///     fn after(&self, request: &HookRequest<'_>, outcome: &Outcome<'_>) {
///         if outcome.duration().as_secs() >= 1 {
///             eprintln!("slow call: {} took {:?}", request.name(), outcome.duration());
///         }
///     }
/// }
///
/// # fn main() -> Result<(), mcp_runtime::Error> {
/// let server = Server::builder("files", "1.0.0").hook(Guard).build()?;
/// # let _ = server; Ok(()) }
/// ```
pub trait Hook: Send + Sync + 'static {
    /// Runs before the call's arguments are checked and its handler runs, in the order the
    /// hooks were added; `Err` refuses the call with that failure (the hooks after this one
    /// are not asked). The failure reaches the caller as the error envelope, with its
    /// code, reason, `retryable`, hint and data as you set them.
    fn before(&self, request: &HookRequest<'_>) -> Result<(), ToolError> {
        let _ = request;
        Ok(())
    }

    /// The part of [`before`](Hook::before) that waits for the state store the replicas share
    /// ([`HookRequest::state_store`]), for a hook that counts across them: asked after every
    /// hook's `before` let the call through, in the order the hooks were added, and only when
    /// the server has a state store; `Err` refuses the call as `before` does. `None` (the
    /// default): nothing to wait for. Its future holds the call up, so keep it to one round
    /// trip.
    fn before_shared<'a>(
        &'a self,
        request: &'a HookRequest<'a>,
    ) -> Option<crate::state::store::BoxFuture<'a, Result<(), ToolError>>> {
        let _ = request;
        None
    }

    /// Runs once the call is answered (or cancelled), in the reverse order, for every call:
    /// also one refused before it reached the handler. A call that goes on as a task (its
    /// answer is a `CreateTaskResult`) is seen once the task ends, with the task's outcome:
    /// its result (an envelope too), its failure, or `Cancelled`, and the time from the
    /// request to that end.
    fn after(&self, request: &HookRequest<'_>, outcome: &Outcome<'_>) {
        let _ = (request, outcome);
    }

    /// Whether [`Hook::after`] reads the arguments: only then are they kept for it
    /// ([`HookRequest::arguments`] is `None` in `after` otherwise). Default `false`.
    fn wants_arguments(&self) -> bool {
        false
    }

    /// Whether opening a session counts as a call for this hook. When `true`, a 2025
    /// `initialize` over HTTP (which mints a session, or stands for one on a server without
    /// sessions) is passed to this hook's [`before`](Hook::before) and
    /// [`before_shared`](Hook::before_shared) before anything is minted, as a request whose
    /// [`method`](HookRequest::method) is `initialize`, with an empty
    /// [`name`](HookRequest::name), no arguments and no `clientInfo` yet. A refusal answers the
    /// `initialize` with a JSON-RPC error whose `code` and `data` are the failure's (as a
    /// refused `resources/read` is answered), and no session is minted or evicted.
    /// [`after`](Hook::after) does not see these requests. Over stdio and in process a
    /// connection is one session, initialized once, so nothing is asked there.
    ///
    /// Default `false`: a hook sees calls only. [`RateLimit`] says `true`: each new session
    /// spends one call of the caller's budget, so that a client cannot open sessions without
    /// limit.
    fn counts_sessions(&self) -> bool {
        false
    }
}

/// One call as a hook sees it.
pub struct HookRequest<'a> {
    pub(crate) method: &'a str,
    pub(crate) name: &'a str,
    pub(crate) arguments: Option<&'a Value>,
    pub(crate) channel: &'a Channel,
    pub(crate) client: &'a Client,
    /// The server's stores, when its state store was given (so may be shared).
    pub(crate) shared: Option<&'a crate::state::store::Stores>,
}

impl std::fmt::Debug for HookRequest<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HookRequest")
            .field("method", &self.method)
            .field("name", &self.name)
            .field("era", &self.era())
            .field("transport", &self.transport())
            .field("caller", &self.caller())
            .finish_non_exhaustive()
    }
}

impl<'a> HookRequest<'a> {
    pub(crate) fn new(
        method: &'a str,
        name: &'a str,
        arguments: Option<&'a Value>,
        channel: &'a Channel,
        client: &'a Client,
        stores: &'a crate::state::store::Stores,
    ) -> Self {
        HookRequest { method, name, arguments, channel, client, shared: stores.shared.then_some(stores) }
    }

    /// `tools/call`, `resources/read` or `prompts/get`; `initialize` for the opening of a
    /// session, to a hook that [counts sessions](Hook::counts_sessions).
    pub fn method(&self) -> &str {
        self.method
    }

    /// The tool's or the prompt's name as the caller sent it, or the resource's URI (empty
    /// when the request did not say).
    pub fn name(&self) -> &str {
        self.name
    }

    /// The arguments as sent (a tool's, a prompt's); in [`Hook::after`] only when a hook
    /// [wants them](Hook::wants_arguments).
    pub fn arguments(&self) -> Option<&Value> {
        self.arguments
    }

    /// Who is calling: the principal an authorization layer found, else the server's local
    /// principal where no authorization is configured (stdio, in-process, HTTP without
    /// `authorization`: see [`ServerBuilder::local_principal`](crate::ServerBuilder::local_principal)).
    pub fn principal(&self) -> Option<&Principal> {
        self.channel.principal()
    }

    /// The protocol era of the request.
    pub fn era(&self) -> Era {
        self.client.era()
    }

    /// How the request arrived.
    pub fn transport(&self) -> Transport {
        self.channel.transport()
    }

    /// The client's `clientInfo` (`initialize`'s in 2025, the request's own in 2026-07-28).
    pub fn client_info(&self) -> Option<&Value> {
        self.client.info()
    }

    /// The 2025 HTTP session the request belongs to, if any.
    pub fn session_id(&self) -> Option<&str> {
        self.channel.session()
    }

    /// The address the HTTP request came from, when the server that runs the router
    /// records it (`Server::serve_http` does).
    pub fn client_address(&self) -> Option<IpAddr> {
        self.channel.peer()
    }

    /// The state store the server was given
    /// ([`ServerBuilder::state_store`](crate::ServerBuilder::state_store)), which its replicas
    /// share: where a hook that counts keeps its counters, in
    /// [`Hook::before_shared`]. `None` when the server keeps its state in memory.
    pub fn state_store(&self) -> Option<&'a dyn crate::StateStore> {
        self.shared.map(|stores| &*stores.store)
    }

    /// Who the caller is, for per-caller limits: the principal when there is one, else the
    /// client's address (HTTP), else the connection (stdio). Never an HTTP session: a client
    /// mints as many of those as it likes.
    pub fn caller(&self) -> CallerKey {
        if let Some(principal) = self.channel.authenticated() {
            return CallerKey::Principal(principal.binding());
        }
        if let Some(address) = self.channel.peer() {
            return CallerKey::Address(address);
        }
        match self.channel.transport() {
            Transport::Stdio => CallerKey::Connection(self.channel.connection()),
            _ => CallerKey::Unknown,
        }
    }
}

/// Who is calling, as a per-caller limit counts: see [`HookRequest::caller`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CallerKey {
    /// An authenticated caller: its client id, subject and tenant.
    Principal(String),
    /// An unauthenticated HTTP caller without a session, by address.
    Address(IpAddr),
    /// A stdio connection (one per server process, unless you serve several streams).
    Connection(u64),
    /// Nothing says who: an in-process call, or HTTP behind a server that does not record
    /// addresses.
    Unknown,
}

/// How a call ended, as [`Hook::after`] sees it.
#[derive(Debug)]
pub struct Outcome<'a> {
    pub(crate) answer: Answer<'a>,
    /// The envelope's `structuredContent.error` (`{code, message, data}`), also for a tool
    /// whose error result leaves it out (it declares an `outputSchema`).
    pub(crate) envelope: Option<&'a Value>,
    pub(crate) duration: Duration,
}

/// What a request was answered with.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Answer<'a> {
    /// A result (not a tool's).
    Result,
    /// A tool's result: a success, or a tool execution error.
    Tool(&'a CallToolResult),
    /// A JSON-RPC error.
    Error(&'a RpcError),
    /// `input_required` (2026-07-28): the call asks the caller and ends here.
    InputRequired,
    /// (2026-07-28) a `CreateTaskResult`: the call goes on as a task, whose end the hooks'
    /// `after` sees instead (`protocol::tasked`).
    Task,
    /// Cancelled by the client: nothing was sent.
    Cancelled,
}

/// What kind of answer a call got: see [`Outcome::kind`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OutcomeKind {
    /// A result.
    Success,
    /// A tool execution error (`isError: true`).
    ToolError,
    /// A JSON-RPC error (also a resource's or a prompt's failure, whose `data` carries the
    /// envelope's).
    RpcError,
    /// `input_required` (2026-07-28): the handler asked the caller; the retry is another call.
    InputRequired,
    /// The client cancelled the call: nothing was sent.
    Cancelled,
}

impl<'a> Outcome<'a> {
    pub(crate) fn new(answer: Answer<'a>, envelope: Option<&'a Value>, duration: Duration) -> Self {
        Outcome { answer, envelope, duration }
    }

    /// What kind of answer it was.
    pub fn kind(&self) -> OutcomeKind {
        match self.answer {
            Answer::Tool(result) if result.is_error == Some(true) => OutcomeKind::ToolError,
            Answer::Result | Answer::Task | Answer::Tool(_) => OutcomeKind::Success,
            Answer::Error(_) => OutcomeKind::RpcError,
            Answer::InputRequired => OutcomeKind::InputRequired,
            Answer::Cancelled => OutcomeKind::Cancelled,
        }
    }

    /// `true` for a result that is not an error.
    pub fn is_success(&self) -> bool {
        matches!(self.kind(), OutcomeKind::Success | OutcomeKind::InputRequired)
    }

    /// From the request to the answer (a call that went on as a task: to the task's end).
    pub fn duration(&self) -> Duration {
        self.duration
    }

    /// A tool's result as sent (a success or the error envelope).
    pub fn tool_result(&self) -> Option<&CallToolResult> {
        match self.answer {
            Answer::Tool(result) => Some(result),
            _ => None,
        }
    }

    /// The JSON-RPC error sent.
    pub fn rpc_error(&self) -> Option<&RpcError> {
        match self.answer {
            Answer::Error(e) => Some(e),
            _ => None,
        }
    }

    /// The envelope's error object, `{code, message, data}`: a tool execution error's
    /// `structuredContent.error` (also when the result leaves it out for a tool with an
    /// `outputSchema`), or a JSON-RPC error as that object. `None` for a success.
    pub fn error(&self) -> Option<ErrorView<'_>> {
        match (self.answer, self.envelope) {
            (Answer::Tool(result), Some(envelope)) if result.is_error == Some(true) => {
                Some(ErrorView::Envelope(envelope))
            }
            (Answer::Error(e), _) => Some(ErrorView::Rpc(e)),
            _ => None,
        }
    }

    /// The failure's code (the envelope's, or the JSON-RPC error's).
    pub fn error_code(&self) -> Option<i64> {
        self.error().and_then(|e| e.code())
    }

    /// The failure's declared reason (`data.reason`), when it has one.
    pub fn reason(&self) -> Option<&str> {
        self.error().and_then(|e| e.data_str("reason"))
    }

    /// The failure's `data.retryable`, when set.
    pub fn retryable(&self) -> Option<bool> {
        self.error().and_then(|e| e.data()?.get("retryable")?.as_bool())
    }

    /// The envelope's request id (`data.requestId`), which the caller sees too.
    pub fn request_id(&self) -> Option<&str> {
        self.error().and_then(|e| e.data_str("requestId"))
    }
}

/// A failure as the envelope says it; see [`Outcome::error`].
#[derive(Clone, Copy, Debug)]
pub enum ErrorView<'a> {
    /// A tool execution error's `structuredContent.error`.
    Envelope(&'a Value),
    /// A JSON-RPC error.
    Rpc(&'a RpcError),
}

impl<'a> ErrorView<'a> {
    /// The code.
    pub fn code(&self) -> Option<i64> {
        match self {
            ErrorView::Envelope(e) => e.get("code")?.as_i64(),
            ErrorView::Rpc(e) => Some(i64::from(e.code)),
        }
    }

    /// The message.
    pub fn message(&self) -> Option<&'a str> {
        match self {
            ErrorView::Envelope(e) => e.get("message")?.as_str(),
            ErrorView::Rpc(e) => Some(e.message.as_str()),
        }
    }

    /// `data`: the author's data with `reason`, `retryable`, `recovery` and `requestId`.
    pub fn data(&self) -> Option<&'a Value> {
        match self {
            ErrorView::Envelope(e) => e.get("data"),
            ErrorView::Rpc(e) => e.data.as_ref(),
        }
    }

    fn data_str(&self, key: &str) -> Option<&'a str> {
        self.data()?.get(key)?.as_str()
    }
}

/// The hooks of a server, in the order they were added.
#[derive(Default)]
pub(crate) struct Hooks {
    all: Vec<Box<dyn Hook>>,
    wants_arguments: bool,
    /// Whether some hook counts sessions ([`Hook::counts_sessions`]).
    counts_sessions: bool,
}

/// Why a call did not get past the hooks.
pub(crate) enum Refused {
    /// A hook refused it with this failure.
    By(ToolError),
    /// A hook panicked (the author's code: the call fails like one whose handler panicked).
    Panicked(Box<dyn Any + Send>),
}

impl Hooks {
    pub(crate) fn push(&mut self, hook: Box<dyn Hook>) {
        self.wants_arguments |= hook.wants_arguments();
        self.counts_sessions |= hook.counts_sessions();
        self.all.push(hook);
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.all.is_empty()
    }

    /// Whether some hook's `after` reads the arguments.
    pub(crate) fn wants_arguments(&self) -> bool {
        self.wants_arguments
    }

    /// Whether some hook counts the opening of a session as a call.
    #[cfg(feature = "http")]
    pub(crate) fn counts_sessions(&self) -> bool {
        self.counts_sessions
    }

    /// Every hook's `before`, in order, until one refuses; then, when the server has a state
    /// store, every hook's `before_shared`.
    pub(crate) async fn before(&self, request: &HookRequest<'_>) -> Result<(), Refused> {
        if self.all.is_empty() {
            return Ok(());
        }
        Self::ask(self.all.iter(), request).await
    }

    /// [`Hooks::before`] for the opening of a session (`request` is an `initialize`), asked
    /// of the hooks that count sessions only.
    #[cfg(feature = "http")]
    pub(crate) async fn before_session(&self, request: &HookRequest<'_>) -> Result<(), Refused> {
        if !self.counts_sessions {
            return Ok(());
        }
        Self::ask(self.all.iter().filter(|h| h.counts_sessions()), request).await
    }

    /// `hooks`' `before`, in order, until one refuses; then, when the server has a state
    /// store, their `before_shared`.
    async fn ask<'h>(
        hooks: impl Iterator<Item = &'h Box<dyn Hook>> + Clone,
        request: &HookRequest<'_>,
    ) -> Result<(), Refused> {
        match std::panic::catch_unwind(AssertUnwindSafe(|| hooks.clone().try_for_each(|h| h.before(request)))) {
            Ok(Ok(())) => {}
            Ok(Err(refusal)) => return Err(Refused::By(refusal)),
            Err(payload) => return Err(Refused::Panicked(payload)),
        }
        if request.shared.is_none() {
            return Ok(());
        }
        for hook in hooks {
            let shared = match std::panic::catch_unwind(AssertUnwindSafe(|| hook.before_shared(request))) {
                Ok(Some(shared)) => shared,
                Ok(None) => continue,
                Err(payload) => return Err(Refused::Panicked(payload)),
            };
            match futures_util::FutureExt::catch_unwind(AssertUnwindSafe(shared)).await {
                Ok(Ok(())) => {}
                Ok(Err(refusal)) => return Err(Refused::By(refusal)),
                Err(payload) => return Err(Refused::Panicked(payload)),
            }
        }
        Ok(())
    }

    /// Every hook's `after`, in reverse order. A panic in one is logged; the call is
    /// answered already.
    pub(crate) fn after(&self, request: &HookRequest<'_>, outcome: &Outcome<'_>) {
        for hook in self.all.iter().rev() {
            if let Err(payload) = std::panic::catch_unwind(AssertUnwindSafe(|| hook.after(request, outcome))) {
                tracing::error!(
                    target: "mcp_runtime::hooks",
                    method = request.method,
                    name = request.name,
                    payload = crate::rpc::catch::panic_text(&*payload),
                    "a hook's after() panicked"
                );
            }
        }
    }
}

/// The methods hooks wrap.
pub(crate) fn wraps(method: &str) -> bool {
    matches!(method, "tools/call" | "resources/read" | "prompts/get")
}

pub use audit::{Audit, AuditRecord};
pub use rate_limit::RateLimit;
