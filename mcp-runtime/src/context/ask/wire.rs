//! The 2026-07-28 leg: a retry's `inputResponses` and `requestState` read once per call (the
//! state opened), an ask turned into the `input_required` result (the state sealed) after
//! the gate, and an ask made during a task. `dispatch`, `router` and `tasked` call here; a
//! 2025 session's ask goes through `shim` instead.

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::gate::gate;
use super::inputs::{Inputs, build};
use super::operation::Sealing;
use super::request::{Ask, InputRequest};
use crate::rpc::era::{Client, Era, ResultMeta};
use crate::rpc::jsonrpc::{self, RpcError};

/// A retry's `inputResponses` and `requestState`, read once per call: `-32602` when they are
/// malformed (not an object), or when the state does not open (not a string, not sealed by
/// this server's keys, changed, expired, or sealed for another caller or operation). A 2025
/// request's are ignored: its handler sees only what the shim collects.
pub(crate) fn incoming(
    client: &Client,
    sealing: &Sealing<'_>,
    responses: Option<&RawValue>,
    state: Option<&RawValue>,
) -> Result<Inputs, RpcError> {
    if client.era() != Era::Modern {
        return Ok(Inputs::default());
    }
    let state = match state {
        None => None,
        Some(raw) => {
            let token = serde_json::from_str::<&str>(raw.get())
                .map(std::borrow::Cow::Borrowed)
                .or_else(|_| serde_json::from_str::<String>(raw.get()).map(std::borrow::Cow::Owned))
                .map_err(|_| sealing.refuse(&"not a string"))?;
            let binding = sealing.operation.binding(sealing.principal);
            Some(sealing.sealer.open(&token, &binding).map_err(|why| sealing.refuse(&why))?)
        }
    };
    let answers = match responses {
        None => Vec::new(),
        Some(raw) if jsonrpc::is_object(raw) => {
            let map: Map<String, Value> = serde_json::from_str(raw.get())
                .map_err(|_| RpcError::invalid_params("Invalid params: `inputResponses` must be an object"))?;
            map.into_iter().collect()
        }
        Some(_) => {
            return Err(RpcError::invalid_params(
                "Invalid params: `inputResponses` must be an object of answers keyed like the server's `inputRequests`",
            ));
        }
    };
    Ok(build(client.capabilities(), answers, state))
}

/// [`incoming`] for a request whose params were read as a tree (`prompts/get`,
/// `resources/read`).
pub(crate) fn inputs_of(client: &Client, sealing: &Sealing<'_>, params: Option<&Value>) -> Result<Inputs, RpcError> {
    let raw = |key: &str| params.and_then(|p| p.get(key)).and_then(|v| serde_json::value::to_raw_value(v).ok());
    incoming(client, sealing, raw("inputResponses").as_deref(), raw("requestState").as_deref())
}

/// An ask as a 2026-07-28 `input_required` result.
#[derive(Debug)]
pub(crate) struct Asked {
    requests: Map<String, Value>,
    state: Option<String>,
}

/// The modern leg: the at-least-one rule (`-32603`: the handler's bug), then the gate against
/// this request's capabilities (`-32021` naming every missing capability).
pub(crate) fn modern(ask: Ask, client: &Client, tool: &str, sealing: &Sealing<'_>) -> Result<Asked, RpcError> {
    gate(&ask, client, tool)?;
    let requests = wire(ask.requests).collect();
    // The one place outgoing state is written: sealed, bound to this caller and operation.
    let state = match ask.state {
        None => None,
        Some(state) => Some(sealing.sealer.seal(&state, &sealing.operation.binding(sealing.principal)).ok_or_else(
            || RpcError {
                code: -32603,
                message: format!(
                    "Internal error: tool {tool} returned a requestState of {} bytes, too large to seal within {} KiB; \
                     keep the state small (an id) and put the rest in ctx.state()",
                    state.len(),
                    crate::state::seal::MAX_TOKEN_BYTES / 1024
                ),
                data: None,
            },
        )?),
    };
    Ok(Asked { requests, state })
}

/// What a task keeps of an ask: the requests by the handler's keys, and the state.
pub(crate) type TaskAsk = (Vec<(String, Value)>, Option<String>);

/// An ask made during a task: the same rules as [`modern`]; the requests by the handler's
/// keys, and the state as written (a task keeps it in its record: it never travels).
pub(crate) fn for_task(ask: Ask, client: &Client, tool: &str) -> Result<TaskAsk, RpcError> {
    gate(&ask, client, tool)?;
    Ok((wire(ask.requests).collect(), ask.state))
}

/// The requests of an ask as the wire shows them: `{method, params?}` by key.
fn wire(requests: Vec<(String, InputRequest)>) -> impl Iterator<Item = (String, Value)> {
    requests.into_iter().map(|(key, InputRequest { method, params })| {
        let mut request = Map::with_capacity(2);
        request.insert("method".into(), method.into());
        if let Some(params) = params {
            request.insert("params".into(), params);
        }
        (key, Value::Object(request))
    })
}

/// The `input_required` result.
pub(crate) fn render<'a>(asked: &'a Asked, server_info: &'a RawValue) -> impl Serialize + 'a {
    #[derive(Serialize)]
    struct InputRequired<'a> {
        #[serde(rename = "resultType")]
        result_type: &'static str,
        #[serde(rename = "inputRequests", skip_serializing_if = "Map::is_empty")]
        requests: &'a Map<String, Value>,
        #[serde(rename = "requestState", skip_serializing_if = "Option::is_none")]
        state: Option<&'a str>,
        #[serde(rename = "_meta")]
        meta: ResultMeta<'a>,
    }
    InputRequired {
        result_type: "input_required",
        requests: &asked.requests,
        state: asked.state.as_deref(),
        meta: ResultMeta::new(server_info),
    }
}
