//! Who calls what, as sealed `requestState` and consent records are bound to it: the
//! caller's client id, subject and tenant, the operation a handler runs for, and how one
//! request's state is sealed and opened ([`Sealing`], used by `wire`).

use std::sync::Arc;

use serde_json::json;

use crate::auth::principal::Principal;
use crate::rpc::jsonrpc::RpcError;
use crate::rpc::request_id::RequestId;
use crate::state::seal::Sealer;

/// The reason a handler gives when a round's `requestState` is not one it wrote.
pub(crate) const INVALID_STATE: &str = "invalid_request_state";

/// Who calls, as sealed state and consent records bind it: the principal's client id, subject
/// and tenant, each empty when it has none (and all three without authorization).
pub(crate) fn caller_of(principal: Option<&Principal>) -> [&str; 3] {
    let Some(principal) = principal else { return ["", "", ""] };
    [principal.client_id().unwrap_or(""), principal.subject().unwrap_or(""), principal.tenant().unwrap_or("")]
}

/// What a handler runs for: a method and its tool or prompt name, or resource URI. Kept as
/// given, and turned into a binding only when a state is sealed or opened, or a consent
/// recorded, so that a call that does neither allocates nothing for it.
#[derive(Clone, Debug)]
pub(crate) struct Operation {
    method: &'static str,
    name: &'static str,
    uri: Option<Arc<str>>,
}

impl Operation {
    /// `tools/call` of tool `name`, `prompts/get` of prompt `name`, or (for a completer or a
    /// lister, which cannot ask) `""`.
    pub(crate) fn named(method: &'static str, name: &'static str) -> Operation {
        Operation { method, name, uri: None }
    }

    /// `resources/read` of `uri` (by resource `name`).
    pub(crate) fn read(name: &'static str, uri: Arc<str>) -> Operation {
        Operation { method: "resources/read", name, uri: Some(uri) }
    }

    /// What a sealed state and a consent record are bound to: the caller ([`caller_of`]) and
    /// this operation, as one JSON array.
    pub(crate) fn binding(&self, principal: Option<&Principal>) -> String {
        let [client_id, subject, tenant] = caller_of(principal);
        let target = self.uri.as_deref().unwrap_or(self.name);
        serde_json::to_string(&[client_id, subject, tenant, self.method, target]).unwrap_or_default()
    }
}

/// How one request's state is sealed and opened: the server's key ring, who calls what, and
/// the request id a refusal names.
pub(crate) struct Sealing<'a> {
    pub(crate) sealer: &'a Sealer,
    pub(crate) principal: Option<&'a Principal>,
    pub(crate) operation: &'a Operation,
    pub(crate) request_id: RequestId,
}

impl Sealing<'_> {
    /// The one refusal of a state that does not open, whatever the reason (which is logged
    /// at debug, never sent).
    pub(super) fn refuse(&self, why: &dyn std::fmt::Display) -> RpcError {
        tracing::debug!(target: "mcp_runtime::call", request_id = %self.request_id, %why, "requestState refused");
        RpcError {
            code: -32602,
            message: "Invalid or expired requestState".to_owned(),
            data: Some(json!({"reason": INVALID_STATE, "requestId": self.request_id.as_str()})),
        }
    }
}
