//! Asking the caller mid-call: what a handler asks for ([`Ask`]: form and URL elicitation,
//! sampling, roots, and state for the next round), what it reads back ([`Inputs`]), and the
//! rules both eras share — which capability each ask needs (the gate), which answers a client
//! may give (the filter) — with the shapes of the 2026-07-28 wire: the `input_required`
//! result, and the `inputResponses`/`requestState` of a retry. The 2025 leg, which fulfils the
//! same ask with real server-to-client requests, is `shim`.
//!
//! `requestState` is read in one place ([`incoming`], which opens it) and written in one
//! place ([`modern`], which seals it): handlers read and write plain text, and a state that
//! comes back changed, expired, or for another caller or operation is refused before any
//! handler runs (`seal`). Over a 2025 session the shim keeps the state between rounds, in the
//! server: it never travels, and a 2025 request's own `requestState` is ignored.
//!
//! The parts, in the order an ask passes them: `request` (what a handler builds: [`Ask`],
//! [`Elicitation`], [`Sampling`]; `form` makes a form type's schema), this file (the
//! [`signal`] that carries the ask out of the handler in its error, [`take`] that takes it
//! back out in `dispatch`, and the [`Reply`] a request ends with), `gate` (the capabilities
//! an ask needs: the 2025 refusal, the 2026-07-28 `-32021`), `wire` (the 2026-07-28 leg: the
//! `input_required` result, a retry's answers and state; `operation` says what sealed state
//! is bound to), and `inputs` (what the handler's next round reads back, filtered).

use mcp_core::{CallToolResult, ToolError};
use serde_json::{Map, Value};

mod form;
mod gate;
mod inputs;
mod operation;
mod request;
mod wire;

#[cfg(test)]
mod tests;

pub use inputs::{Elicited, Inputs};
pub use request::{Ask, Elicitation, Sampling};

pub(crate) use gate::{CAPABILITY_MISSING, has_capability, legacy_refusal};
pub(crate) use inputs::collected;
pub(crate) use operation::{INVALID_STATE, Operation, Sealing, caller_of};
pub(crate) use request::InputRequest;
pub(crate) use wire::{Asked, for_task, incoming, inputs_of, modern, render};

/// The value `Ctx::ask` returns: the ask, riding in a `ToolError` so that `?` and `Err(..)`
/// carry it, or the configuration failure of an ask built wrong.
pub(crate) fn signal(ask: Ask) -> ToolError {
    if let Some(problem) = &ask.problem {
        return ToolError::configuration(format!("The server is misconfigured: {problem}."))
            .reason("invalid_elicitation_form")
            .retryable(false)
            .hint("Do not retry; report the request id to the server operator.");
    }
    ToolError::__asking(Box::new(ask))
}

/// The ask a handler's error carries, if it is one.
pub(crate) fn take(error: &mut ToolError) -> Option<Ask> {
    error.__take_ask().and_then(|any| any.downcast::<Ask>().ok()).map(|ask| *ask)
}

/// A request's outcome: its result, or (2026-07-28 only) what it needs first, or (a task
/// tool's call, with the tasks extension) the task it goes on as: its `Task` members.
pub(crate) enum Reply<T = CallToolResult> {
    Complete(T),
    InputRequired(Asked),
    Task(Map<String, Value>),
}
