//! The road every family's request travels, written once. `tools/call` (`features::tools::call`),
//! `prompts/get`, `resources/read` and `completion/complete` each supply only what is theirs:
//! *resolve* (find what the request names), *run* (its handler, once per round) and *shape*
//! (its answer). The rest is here, in this order:
//!
//! 1. a request id and the start time ([`Road::new`]);
//! 2. an unknown name: the family's envelope with a did-you-mean among the names listed to this
//!    caller ([`unknown`]);
//! 3. the scopes (`principal::require`), then the server's hooks ([`Road::admit`]);
//! 4. the run under catch and the one ask loop ([`Road::serve`]): a 2026-07-28 request gets
//!    `input_required`; a 2025 session's asks are fulfilled by the legacy shim
//!    (`context::shim`) and the handler runs again with the answers;
//! 5. a failure at the family's site ([`Family::failed`]). The hooks' `after` runs where the
//!    answer is sent (`observe::Watch::end`), for every caller.

use std::any::Any;
use std::fmt::Write as _;
use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Instant;

use mcp_core::{CallToolResult, ToolError};
use serde_json::Value;

use crate::context::ask::{self, Asked, Inputs, Operation, Reply, Sealing};
use crate::context::ctx::{CallInfo, Caller, Progress};
use crate::context::shim::{self, Round};
use crate::hooks::{HookRequest, Refused};
use crate::rpc::catch::panic_text;
use crate::rpc::envelope::{Origin, Site, fail, fail_rpc, levenshtein};
use crate::rpc::era::Era;
use crate::rpc::jsonrpc::RpcError;
use crate::rpc::request_id::RequestId;

/// A panic in the author's code, as a value (see `rpc::catch`).
pub(crate) type Panic = Box<dyn Any + Send>;

/// A run of a handler under catch: its value, its failure, or its panic.
pub(crate) type Caught<T> = Result<Result<T, ToolError>, Panic>;

/// What a family is to the road: its method, how its failures are answered, and how a panic
/// in its handler is told.
pub(crate) trait Family {
    /// The request's method: what the hooks and the shim's failures name.
    const METHOD: &'static str;
    /// `Tool`, `Prompt`, `Resource`: how a panic's failure names the handler.
    const KIND: &'static str;
    /// What a failed request is answered with: an `isError` result for a tool, a JSON-RPC
    /// error whose `data` is the envelope for the others.
    type Failed;

    /// The failure at `site`; `code` replaces the error's own code in a JSON-RPC error (a
    /// tool's envelope keeps its own).
    fn failed(site: Site<'_>, err: ToolError, request_id: RequestId, origin: Origin, code: Option<i32>)
    -> Self::Failed;

    /// A panic in the handler `name`: logged here (the payload is never sent), and the failure
    /// sent for it.
    fn panic_error(name: &str, payload: &(dyn Any + Send), request_id: RequestId) -> ToolError {
        let kind = Self::KIND;
        tracing::error!(target: "mcp_runtime::call", %request_id, handler = name, payload = panic_text(payload), "{kind} handler panicked");
        ToolError::internal(format!("{kind} {name} failed unexpectedly."))
            .reason("internal_error")
            .hint("Retry once; if it fails again, report the request id to the server operator.")
    }
}

/// `tools/call`: failures are tool execution errors (`isError` results).
pub(crate) struct Tool;

impl Family for Tool {
    const METHOD: &'static str = "tools/call";
    const KIND: &'static str = "Tool";
    type Failed = CallToolResult;

    fn failed(site: Site<'_>, err: ToolError, request_id: RequestId, origin: Origin, _: Option<i32>) -> CallToolResult {
        fail(site, err, request_id, origin, None)
    }

    fn panic_error(name: &str, payload: &(dyn Any + Send), request_id: RequestId) -> ToolError {
        tracing::error!(target: "mcp_runtime::call", %request_id, tool = name, payload = panic_text(payload), "handler panicked");
        ToolError::internal(format!("Tool {name} failed unexpectedly."))
            .reason("internal_error")
            .hint("Retry the call once; if it fails again, report the request id to the server operator.")
    }
}

/// A family answered with JSON-RPC errors: `prompts/get`, `resources/read`,
/// `completion/complete`.
pub(crate) struct Rpc<const F: u8>;

/// `prompts/get`.
pub(crate) type PromptGet = Rpc<0>;
/// `resources/read`.
pub(crate) type ResourceRead = Rpc<1>;
/// `completion/complete`.
pub(crate) type Completion = Rpc<2>;

impl<const F: u8> Family for Rpc<F> {
    const METHOD: &'static str = match F {
        0 => "prompts/get",
        1 => "resources/read",
        _ => "completion/complete",
    };
    const KIND: &'static str = match F {
        0 => "Prompt",
        1 => "Resource",
        _ => "Completer",
    };
    type Failed = RpcError;

    fn failed(site: Site<'_>, err: ToolError, request_id: RequestId, origin: Origin, code: Option<i32>) -> RpcError {
        fail_rpc(site, err, request_id, origin, code)
    }
}

/// One request on the road: who asks, its request id and start.
pub(crate) struct Road<'a, F: Family> {
    pub(crate) caller: &'a Caller<'a>,
    pub(crate) request_id: RequestId,
    pub(crate) started: Instant,
    family: PhantomData<fn() -> F>,
}

/// How a handler ended once every ask it could have fulfilled was: what the family shapes.
pub(crate) enum Served<T> {
    /// Its value.
    Done(T),
    /// (2026-07-28) what it asks first.
    Asked(Asked),
    /// Its own failure (not an ask): the family says who caused it.
    Failed(ToolError),
    /// The client lacks a capability the shim's round needs: a refusal.
    Refused(ToolError),
    /// The shim's round could not be fulfilled (the round cap, a failed request).
    Unfulfilled(ToolError),
    /// A protocol error: malformed answers, an ask that breaks the rules.
    Rpc(RpcError),
    /// It panicked: its failure is [`Road::panicked`].
    Panicked(Panic),
    /// The client cancelled the request: nothing is sent.
    Cancelled,
}

impl<T> Served<T> {
    /// For a family answered with JSON-RPC errors (`prompts/get`, `resources/read`): the
    /// reply, or the failure to send. A handler's own `invalid_arguments` is a refusal; a
    /// round the shim could not fulfil is `-32603`; a cancelled request's answer is never
    /// sent.
    pub(crate) fn into_rpc(self) -> Result<Reply<T>, Failure> {
        match self {
            Served::Done(value) => Ok(Reply::Complete(value)),
            Served::Asked(asked) => Ok(Reply::InputRequired(asked)),
            Served::Failed(err) => {
                let origin =
                    if err.reason_str() == Some("invalid_arguments") { Origin::Refusal } else { Origin::Handler };
                Err(Failure::Envelope(err, origin, None))
            }
            Served::Refused(err) => Err(Failure::Envelope(err, Origin::Refusal, None)),
            Served::Unfulfilled(err) => Err(Failure::Envelope(err, Origin::Fault, Some(-32603))),
            Served::Rpc(e) => Err(Failure::Rpc(e)),
            Served::Cancelled => Err(Failure::Rpc(RpcError::invalid_request("Request cancelled"))),
            Served::Panicked(payload) => Err(Failure::Panicked(payload)),
        }
    }
}

/// Why a request answered with JSON-RPC errors failed: an envelope to send (the failure, who
/// caused it, and the code to send when it is not the failure's own), a protocol error, or
/// a panic.
pub(crate) enum Failure {
    Envelope(ToolError, Origin, Option<i32>),
    Rpc(RpcError),
    Panicked(Panic),
}

/// What the handler is, for the rounds of one request: its name, what it runs for, and the
/// call's progress token (a tool's) and task hook (a task tool's).
pub(crate) struct Handler<'a> {
    pub(crate) name: &'static str,
    pub(crate) operation: &'a Operation,
    pub(crate) sealing: &'a Sealing<'a>,
    pub(crate) progress: Option<Arc<Progress>>,
}

impl<'a, F: Family> Road<'a, F> {
    /// A request on the road: a fresh request id, started now.
    pub(crate) fn new(caller: &'a Caller<'a>) -> Self {
        Road { caller, request_id: RequestId::generate(), started: Instant::now(), family: PhantomData }
    }

    /// The request's failure at `site`.
    pub(crate) fn fail(&self, site: Site<'_>, err: ToolError, origin: Origin, code: Option<i32>) -> F::Failed {
        F::failed(site, err, self.request_id, origin, code)
    }

    /// A refusal before the handler runs: the site without its contract (the failure is the
    /// runtime's, not a declared one).
    pub(crate) fn refuse(&self, site: Site<'_>, err: ToolError) -> F::Failed {
        F::failed(Site { contract: &[], ..site }, err, self.request_id, Origin::Refusal, None)
    }

    /// A panic in the author's code (a handler or a hook), as the request's failure.
    pub(crate) fn panicked(&self, site: Site<'_>, payload: &(dyn Any + Send)) -> F::Failed {
        panicked::<F>(site, payload, self.request_id)
    }

    /// The scopes `name` needs, then the server's hooks (its policy among them) on the request
    /// for `target` with `arguments`: `Ok` to go on, or the refusal. A caller without the
    /// scopes learns nothing more; hooks are the author's code, and a panic in one fails the
    /// request as one in a handler does. `completion/complete` passes no hooks.
    pub(crate) async fn admit(
        &self,
        site: Site<'_>,
        scopes: &[&str],
        target: &str,
        arguments: Option<&Value>,
    ) -> Result<(), F::Failed> {
        let caller = self.caller;
        if let Err(err) = crate::auth::principal::require(caller.channel.principal(), scopes, site.tool) {
            return Err(self.refuse(site, err));
        }
        if caller.hooks.is_empty() || !crate::hooks::wraps(F::METHOD) {
            return Ok(());
        }
        let request = HookRequest::new(F::METHOD, target, arguments, caller.channel, caller.client, caller.stores);
        match caller.hooks.before(&request).await {
            Ok(()) => Ok(()),
            Err(Refused::By(err)) => Err(self.refuse(site, err)),
            Err(Refused::Panicked(payload)) => Err(self.panicked(site, &*payload)),
        }
    }

    /// The record of one round of the handler (`Caller::info` makes every one).
    pub(crate) fn info(&self, handler: &Handler<'_>, inputs: Inputs) -> CallInfo {
        self.caller
            .info(handler.name, self.request_id, self.started, handler.operation, inputs)
            .with_progress(handler.progress.clone())
    }

    /// Runs the handler until it is done: `run` gets each round's call record (`inputs` for
    /// the first round's answers). The one ask loop: an ask is recognised before anything
    /// classifies the error; a 2026-07-28 request gets `input_required`; over a 2025 session
    /// the shim asks the client and the handler runs again with the answers.
    pub(crate) async fn serve<T, R, Fut>(&self, handler: &Handler<'_>, mut inputs: Inputs, mut run: R) -> Served<T>
    where
        R: FnMut(CallInfo) -> Fut,
        Fut: Future<Output = Caught<T>>,
    {
        let caller = self.caller;
        let request_id = self.request_id;
        let name = handler.name;
        let mut asked = 0;
        loop {
            let caught = run(self.info(handler, std::mem::take(&mut inputs))).await;
            if caller.cancel.is_cancelled() {
                // Nothing is sent for a cancelled request, and how its handler ended is no
                // failure.
                tracing::debug!(target: "mcp_runtime::call", %request_id, tool = name, "the call ended after the client cancelled it; nothing sent");
                return Served::Cancelled;
            }
            let question = match ended(caught) {
                Ended::Done(value) => return Served::Done(value),
                Ended::Failed(err) => return Served::Failed(err),
                Ended::Panicked(payload) => return Served::Panicked(payload),
                Ended::Asked(question) => question,
            };
            if caller.client.era() == Era::Modern {
                tracing::debug!(target: "mcp_runtime::call", %request_id, tool = name, "the handler asks the caller: input_required");
                return match ask::modern(question, caller.client, name, handler.sealing) {
                    Ok(asked) => Served::Asked(asked),
                    Err(e) => Served::Rpc(e),
                };
            }
            asked += 1;
            tracing::debug!(target: "mcp_runtime::call", %request_id, tool = name, round = asked, "the handler asks the caller: the shim asks the client");
            let round = shim::round(
                F::METHOD,
                question,
                asked,
                caller.channel,
                caller.client,
                caller.cancel,
                caller.ask_timeout,
            );
            // Boxed: a round trip is rare, and its future would make every request's larger.
            match Box::pin(round).await {
                Round::Again(next) => inputs = next,
                Round::Refused(err) => return Served::Refused(err),
                Round::Failed(err) => return Served::Unfulfilled(err),
                Round::Broken(e) => return Served::Rpc(e),
                Round::Cancelled => {
                    tracing::debug!(target: "mcp_runtime::call", %request_id, tool = name, "the call was cancelled while the client was asked; nothing sent");
                    return Served::Cancelled;
                }
            }
        }
    }
}

/// A panic in the author's code at `site` (a handler, a hook, a resource's `list` fn), as the
/// failure of request `request_id` of family `F`.
pub(crate) fn panicked<F: Family>(site: Site<'_>, payload: &(dyn Any + Send), request_id: RequestId) -> F::Failed {
    let err = F::panic_error(site.tool, payload, request_id);
    F::failed(site, err, request_id, Origin::Fault, None)
}

/// How one run of a handler ended, before any family's shape.
pub(crate) enum Ended<T> {
    Done(T),
    Asked(ask::Ask),
    Failed(ToolError),
    Panicked(Panic),
}

/// One run's end: asking is not failing, and is recognised before anything classifies the
/// error (the ask loop above, and a task's rounds, read it here).
pub(crate) fn ended<T>(caught: Caught<T>) -> Ended<T> {
    match caught {
        Ok(Ok(value)) => Ended::Done(value),
        Ok(Err(mut err)) => match ask::take(&mut err) {
            Some(question) => Ended::Asked(question),
            None => Ended::Failed(err),
        },
        Err(payload) => Ended::Panicked(payload),
    }
}

/// The unknown-name failure of every family: `err` (the family's message, reason and code)
/// with `hint`, followed by a did-you-mean when one of the `listed` names (those this
/// caller may use) is within two edits of `name`; ties go to the first listed.
pub(crate) fn unknown<'n>(
    err: ToolError,
    hint: &str,
    name: &str,
    listed: impl IntoIterator<Item = &'n str>,
) -> ToolError {
    let mut hint = hint.to_owned();
    if let Some(near) = near(name, listed) {
        let _ = write!(hint, " Did you mean {near}?");
    }
    err.retryable(false).hint(hint)
}

/// The closest of `listed` within edit distance 2 of `name`; ties go to the first. A name of
/// more than 130 characters has none (the distance costs its length times each name's).
pub(crate) fn near<'n>(name: &str, listed: impl IntoIterator<Item = &'n str>) -> Option<&'n str> {
    if name.chars().count() > 130 {
        return None;
    }
    let mut best: Option<(usize, &'n str)> = None;
    for candidate in listed {
        let d = levenshtein(name, candidate);
        if d <= 2 && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, candidate));
        }
    }
    best.map(|(_, n)| n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rpc::envelope::display_name;

    #[test]
    fn names_are_rendered_safely() {
        assert_eq!(display_name("ec\u{0}ho\n"), "echo");
        let long = "x".repeat(200);
        assert_eq!(display_name(&long), format!("{}…", "x".repeat(128)));
        assert_eq!(levenshtein("ehco", "echo"), 2);
        assert_eq!(levenshtein("echo", "echo"), 0);
    }

    #[test]
    fn the_nearest_listed_name_is_suggested() {
        assert_eq!(near("ehco", ["add", "echo", "ecko"]), Some("echo"), "ties go to the first listed");
        assert_eq!(near("ehco", ["echo", "ehc"]), Some("ehc"), "the closest wins");
        assert_eq!(near("sumarize", ["spell", "summarize"]), Some("summarize"));
        assert_eq!(near("notes://indx", ["notes://index"]), Some("notes://index"));
        assert_eq!(near("zzz", ["echo"]), None);
        assert_eq!(near(&"e".repeat(131), ["e"]), None);
        let err =
            unknown(ToolError::invalid_params("Unknown tool: ehco."), "Re-run tools/list and retry.", "ehco", ["echo"]);
        assert_eq!(err.hint_str(), Some("Re-run tools/list and retry. Did you mean echo?"));
    }
}
