//! The legacy shim: a handler's [`Ask`] fulfilled over a 2025 session, with real
//! server-to-client requests. One round: the round cap, the at-least-one rule, the gate
//! against the session's declared capabilities (the `client_capability_missing` refusal,
//! before anything reaches the wire), then every request sent at once on the call's own
//! channel (over HTTP, the originating POST's stream), each with its own time limit that
//! progress restarts, and the answers collected for the handler's next round — this round's
//! only. A round that asks nothing but carries state is paced. Cancelling the call cancels
//! its requests.

use std::fmt::Write as _;
use std::time::Duration;

use mcp_core::ToolError;
use serde_json::{Value, json};

use crate::context::ask::{self, Ask, InputRequest, Inputs};
use crate::context::ctx::CancelState;
use crate::rpc::channel::Channel;
use crate::rpc::era::Client;
use crate::rpc::jsonrpc::{self, RpcError};
use crate::rpc::pending::{Leg, Pending};

/// Rounds a call may ask for input before it fails.
pub(crate) const MAX_ROUNDS: usize = 8;
/// The pause before re-entering a handler whose round asked nothing but carried state.
const STATE_ONLY_PACING: Duration = Duration::from_millis(250);

/// How a round ended.
pub(crate) enum Round {
    /// The answers: run the handler again with them.
    Again(Inputs),
    /// The client lacks a capability the round needs: the refusal, as an envelope.
    Refused(ToolError),
    /// The round could not be fulfilled (the cap, a failed request): a failure.
    Failed(ToolError),
    /// The handler's ask breaks the protocol's rules (its author's bug): `-32603`.
    Broken(RpcError),
    /// The client cancelled the call: nothing is sent.
    Cancelled,
}

/// Fulfils the `round`-th ask (from 1) of an `asking` request (`tools/call`, `prompts/get`)
/// over a 2025 session.
pub(crate) async fn round(
    asking: &str,
    ask: Ask,
    round: usize,
    channel: &Channel,
    client: &Client,
    cancel: &CancelState,
    leg_timeout: Duration,
) -> Round {
    if round > MAX_ROUNDS {
        return Round::Failed(
            ToolError::internal(format!(
                "Multi-round-trip request '{asking}' still required input after {MAX_ROUNDS} rounds (inputRequired.maxRounds)"
            ))
            .reason("input_rounds_exceeded")
            .retryable(false)
            .hint("Do not retry; the tool keeps asking for input it does not accept. Report the request id to the server operator."),
        );
    }
    if ask.requests.is_empty() && ask.state.is_none() {
        return Round::Broken(RpcError {
            code: -32603,
            message: "Internal error: the tool asked for input but gave neither an input request nor a requestState"
                .into(),
            data: None,
        });
    }
    if let Some(refusal) = ask::legacy_refusal(&ask, client) {
        return Round::Refused(refusal);
    }
    let Client::Legacy(legacy) = client else {
        return Round::Broken(RpcError {
            code: -32603,
            message: "Internal error: a 2026-07-28 request cannot be asked with server-to-client requests".into(),
            data: None,
        });
    };
    if ask.requests.is_empty() {
        tokio::select! {
            biased;
            () = cancel.cancelled() => return Round::Cancelled,
            () = tokio::time::sleep(STATE_ONLY_PACING) => {}
        }
        return Round::Again(ask::collected(client, Vec::new(), ask.state));
    }
    let pending = &legacy.pending;
    let mut legs = Vec::with_capacity(ask.requests.len());
    for (key, InputRequest { method, params }) in ask.requests {
        let leg = pending.open();
        let params = Some(with_token(method, params, leg.id));
        if !channel.request(jsonrpc::request(leg.id, method, params.as_ref())) {
            pending.close(leg.id);
            for (_, open) in &legs {
                let open: &Leg = open;
                pending.close(open.id);
            }
            return Round::Failed(failed(asking, "no client is connected to ask"));
        }
        legs.push((key, leg));
    }
    let ids: Vec<u64> = legs.iter().map(|(_, leg)| leg.id).collect();
    let waits = legs.into_iter().map(|(key, leg)| async move {
        let method_of = key.clone();
        wait(leg, leg_timeout).await.map(|answer| (key, answer)).map_err(|e| format!("'{method_of}': {e}"))
    });
    let outcome = tokio::select! {
        biased;
        () = cancel.cancelled() => None,
        answers = futures_util::future::try_join_all(waits) => Some(answers),
    };
    // Whatever is still waiting is cancelled: the client stops working on it, and a late
    // answer finds nobody.
    let reason = match &outcome {
        None => "the call was cancelled".to_owned(),
        Some(Err(why)) => format!("the round failed: {why}"),
        Some(Ok(_)) => String::new(),
    };
    for id in ids {
        abandon(pending, channel, id, &reason);
    }
    match outcome {
        None => Round::Cancelled,
        Some(Err(why)) => Round::Failed(failed(asking, &why)),
        Some(Ok(answers)) => Round::Again(ask::collected(client, answers, ask.state)),
    }
}

/// A failed leg, as the call's failure.
fn failed(method: &str, why: &str) -> ToolError {
    ToolError::internal(format!("Fulfilling input required by '{method}' failed: {why}"))
        .reason("input_request_failed")
        .retryable(true)
        .hint("Retry the call; the client did not answer what the tool asked.")
}

/// Forgets a leg; one still in flight is cancelled with the client.
fn abandon(pending: &Pending, channel: &Channel, id: u64, reason: &str) {
    if pending.close(id) {
        channel.notify(jsonrpc::notification("notifications/cancelled", &json!({"requestId": id, "reason": reason})));
    }
}

/// A request's params with `_meta.progressToken` = its id (progress restarts its time
/// limit); a URL elicitation also gets the `elicitationId` 2025-11-25 requires.
fn with_token(method: &str, params: Option<Value>, id: u64) -> Value {
    let mut params = match params {
        Some(Value::Object(map)) => map,
        None => serde_json::Map::new(),
        Some(other) => return other,
    };
    if method == "elicitation/create"
        && params.get("mode").and_then(Value::as_str) == Some("url")
        && !params.contains_key("elicitationId")
    {
        params.insert("elicitationId".into(), Value::String(uuid()));
    }
    let meta = params.entry("_meta").or_insert_with(|| json!({}));
    if let Value::Object(meta) = meta {
        meta.insert("progressToken".into(), id.into());
    }
    Value::Object(params)
}

/// A random UUID (version 4) as text.
fn uuid() -> String {
    let mut bytes = [0_u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        // Uniqueness, not secrecy, is what an elicitation id needs.
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        bytes = nanos.to_le_bytes();
    }
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex = bytes.iter().fold(String::with_capacity(32), |mut hex, b| {
        let _ = write!(hex, "{b:02x}");
        hex
    });
    format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
}

/// One leg's answer, within `limit` of the last sign of life (sending, or a progress
/// notification about it).
async fn wait(mut leg: Leg, limit: Duration) -> Result<Value, String> {
    loop {
        tokio::select! {
            biased;
            answer = &mut leg.answer => {
                return match answer {
                    Ok(Ok(result)) => Ok(result),
                    Ok(Err(error)) => Err(format!("the client answered {} ({})", error.message, error.code)),
                    Err(_) => Err("the session ended".into()),
                };
            }
            () = leg.progress.notified() => {}
            () = tokio::time::sleep(limit) => {
                return Err(format!("no answer within {} s", limit.as_secs_f64()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legs_carry_their_progress_token_and_url_elicitations_an_id() {
        let form = with_token("elicitation/create", Some(json!({"message": "m", "requestedSchema": {}})), 7);
        assert_eq!(form, json!({"message": "m", "requestedSchema": {}, "_meta": {"progressToken": 7}}));
        let url = with_token("elicitation/create", Some(json!({"mode": "url", "message": "m", "url": "https://x"})), 8);
        let id = url["elicitationId"].as_str().expect("an elicitationId");
        assert_eq!(id.len(), 36);
        assert_eq!(id.as_bytes()[14], b'4');
        assert_eq!(url["_meta"], json!({"progressToken": 8}));
        assert_eq!(with_token("roots/list", None, 9), json!({"_meta": {"progressToken": 9}}));
    }
}
