//! `ServerBuilder::policy`: a closure that may refuse a tool call, as a hook. It sees the
//! tool and the client, and refuses with `tool_unavailable` (the tool stays listed).

use std::fmt::Write as _;

use mcp_core::ToolError;
use serde_json::Value;

use crate::hooks::{Hook, HookRequest};

/// A policy's verdict on one call: refuse it, with an optional reason and hint written by
/// the server's author (sent to the caller).
#[derive(Clone, Debug, Default)]
pub struct Refusal {
    /// Appended to the message as ` Reason: <reason>.`
    pub reason: Option<String>,
    /// The recovery hint; the default one otherwise.
    pub hint: Option<String>,
}

impl Refusal {
    /// A refusal with a reason.
    pub fn because(reason: impl Into<String>) -> Self {
        Refusal { reason: Some(reason.into()), hint: None }
    }
}

/// What a policy sees of a call: the tool and the client.
#[derive(Debug)]
pub struct PolicyRequest<'a> {
    /// The tool being called.
    pub tool: &'a str,
    /// The client's `clientInfo`, once initialized.
    pub client_info: Option<&'a Value>,
}

pub(crate) type Policy = dyn Fn(&PolicyRequest<'_>) -> Option<Refusal> + Send + Sync;

/// A policy as a hook: it is asked about tool calls only.
pub(crate) struct PolicyHook(pub(crate) Box<Policy>);

impl Hook for PolicyHook {
    fn before(&self, request: &HookRequest<'_>) -> Result<(), ToolError> {
        if request.method() != "tools/call" {
            return Ok(());
        }
        let asked = PolicyRequest { tool: request.name(), client_info: request.client_info() };
        match (self.0)(&asked) {
            None => Ok(()),
            Some(refusal) => Err(unavailable(request.name(), refusal.reason.as_deref(), refusal.hint.as_deref())),
        }
    }
}

/// `tool_unavailable`: a disabled tool, or one a policy refuses (docs/errors.md#how-failures-are-classified).
pub(crate) fn unavailable(name: &str, reason: Option<&str>, hint: Option<&str>) -> ToolError {
    let mut message = format!("Tool unavailable: {name}.");
    if let Some(reason) = reason {
        let _ = write!(message, " Reason: {}.", reason.trim_end_matches('.'));
    }
    let hint = hint.unwrap_or("Pick another tool from tools/list; this one cannot be called now.").to_owned();
    ToolError::forbidden(message).reason("tool_unavailable").retryable(false).hint(hint)
}
