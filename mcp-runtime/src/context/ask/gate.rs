//! The capability gate both eras share: which client capability each request of an ask
//! needs, whether a client declared it, and the refusal when it did not: over a 2025
//! session the `client_capability_missing` failure (`shim`), on a 2026-07-28 request the
//! `-32021` error naming every missing capability (`wire`).

use mcp_core::{ErrorCode, ToolError};
use serde_json::{Map, Value, json};

use super::request::{Ask, InputRequest};
use crate::rpc::era::Client;
use crate::rpc::jsonrpc::RpcError;

/// The reason of a call refused because the client lacks a capability.
pub(crate) const CAPABILITY_MISSING: &str = "client_capability_missing";

/// The capability (dotted path) an embedded request needs.
fn needs(request: &InputRequest) -> &'static str {
    let param = |key: &str| request.params.as_ref().and_then(|p| p.get(key));
    match request.method {
        "elicitation/create" if param("mode").and_then(Value::as_str) == Some("url") => "elicitation.url",
        "elicitation/create" => "elicitation.form",
        "sampling/createMessage" if param("tools").is_some() || param("toolChoice").is_some() => "sampling.tools",
        "sampling/createMessage" if param("includeContext").and_then(Value::as_str).is_some_and(|c| c != "none") => {
            "sampling.context"
        }
        "sampling/createMessage" => "sampling",
        _ => "roots",
    }
}

/// Whether `capabilities` has the dotted path `capability` (a bare `elicitation` counts as
/// `elicitation.form`).
pub(crate) fn has_capability(capabilities: &Value, capability: &str) -> bool {
    let mut at = capabilities;
    let mut parts = capability.split('.').peekable();
    while let Some(part) = parts.next() {
        match at.get(part) {
            Some(next) if next.is_object() => at = next,
            Some(next) if parts.peek().is_none() && !next.is_null() => return true,
            _ => {
                let bare_form =
                    part == "form" && parts.peek().is_none() && at.as_object().is_some_and(serde_json::Map::is_empty);
                return bare_form;
            }
        }
    }
    true
}

/// A dotted capability as a `ClientCapabilities` object: `sampling.tools` →
/// `{"sampling": {"tools": {}}}`, merged into `into`.
fn merge_capability(into: &mut Map<String, Value>, capability: &str) {
    let mut at = into;
    for part in capability.split('.') {
        let next = at.entry(part.to_owned()).or_insert_with(|| Value::Object(Map::new()));
        if !next.is_object() {
            *next = Value::Object(Map::new());
        }
        let Value::Object(map) = next else { return };
        at = map;
    }
}

/// The requests of an ask the client cannot take: key, method, capability; in order.
fn refused<'a>(ask: &'a Ask, capabilities: Option<&Value>) -> Vec<(&'a str, &'static str, &'static str)> {
    ask.requests
        .iter()
        .map(|(key, request)| (key.as_str(), request.method, needs(request)))
        .filter(|(_, _, capability)| !capabilities.is_some_and(|caps| has_capability(caps, capability)))
        .collect()
}

/// The legacy refusal (docs/asking.md#how-each-era-is-asked, the 2025 sessions): the `client_capability_missing` failure. Over HTTP
/// without sessions it names the real cause (a 2025-era request there gets no
/// server-to-client round trip, whatever the client declared) and the fix (a 2026-07-28
/// client, or sessions); the ask's fallback hint comes after the hint either way. `None` when
/// the client may be asked everything.
pub(crate) fn legacy_refusal(ask: &Ask, client: &Client) -> Option<ToolError> {
    let capabilities = client.capabilities();
    let (key, method, capability) = if client.is_per_request() {
        // Nothing can be asked, whatever the request would need.
        ask.requests.first().map(|(key, request)| (key.as_str(), request.method, needs(request)))?
    } else {
        *refused(ask, capabilities).first()?
    };
    let (message, hint) = match capabilities {
        _ if client.is_per_request() => (
            format!(
                "Cannot request input '{key}' ({method}): this server serves HTTP without sessions, and a 2025-era request there cannot be asked anything (no server-to-client round trip is possible within one request)"
            ),
            "Asking needs a client that speaks MCP 2026-07-28 (it answers in a retry of the call) or a server that keeps sessions; do not retry with this client.".to_owned(),
        ),
        Some(_) => (
            format!(
                "Cannot request input '{key}' ({method}): the client on this 2025-era connection did not declare the `{capability}` capability"
            ),
            format!("Reconnect with a client that declares the `{capability}` capability."),
        ),
        None => (
            format!(
                "Cannot request input '{key}' ({method}): the client on this 2025-era connection did not declare the `{capability}` capability (this request has no session, so no client capabilities are available and no server-to-client round trip can be made)"
            ),
            format!(
                "No client capabilities are visible without a session, so `{capability}` cannot be requested here. Reconnect over a stateful session whose client declares it."
            ),
        ),
    };
    let hint = match &ask.fallback_hint {
        Some(more) => format!("{hint} {more}"),
        None => hint,
    };
    Some(ToolError::new(ErrorCode::InvalidRequest, message).reason(CAPABILITY_MISSING).retryable(false).hint(hint))
}

/// The rules of a 2026-07-28 ask: at least one request or a state (`-32603`), and every
/// capability the requests need declared (`-32021` naming them all).
pub(super) fn gate(ask: &Ask, client: &Client, tool: &str) -> Result<(), RpcError> {
    if ask.requests.is_empty() && ask.state.is_none() {
        return Err(RpcError {
            code: -32603,
            message: format!(
                "Internal error: tool {tool} asked for input but gave neither an input request nor a requestState"
            ),
            data: None,
        });
    }
    let refused = refused(ask, client.capabilities());
    if let Some((key, method, _)) = refused.first() {
        let mut required = Map::new();
        for (_, _, capability) in &refused {
            merge_capability(&mut required, capability);
        }
        let message = format!(
            "Cannot request input '{key}' ({method}): the request's client capabilities do not declare the required capability"
        );
        return Err(RpcError { code: -32021, message, data: Some(json!({"requiredCapabilities": required})) });
    }
    Ok(())
}
