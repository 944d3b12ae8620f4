//! The era a posted request claims, checked against its headers (the 2026-07-28 rungs of the
//! ladder): the version header against the body, and `Mcp-Method`/`Mcp-Name` against the
//! method and what it names. `post` answers a mismatch with 400.

use http::HeaderMap;
use serde_json::value::RawValue;

use super::{METHOD_HEADER, NAME_HEADER, VERSION_HEADER, header_str};
use crate::rpc::era::{self, Era, LEGACY_VERSIONS, MODERN_VERSIONS};
use crate::rpc::jsonrpc::{self, RpcError};

/// The era a posted request claims (its body's `_meta`), checked against its headers: a
/// version header that disagrees with the body, or a modern request whose `Mcp-Method` or
/// `Mcp-Name` disagrees with it, is `-32020`; a malformed or unsupported claim is the
/// session's `-32602`/`-32022`, answered here with 400.
pub(super) fn era_of(headers: &HeaderMap, method: &str, params: Option<&RawValue>) -> Result<Era, RpcError> {
    let header = header_str(headers, VERSION_HEADER);
    let Some(body) = era::claimed_version(params)? else {
        if header.is_some_and(|v| MODERN_VERSIONS.contains(&v)) {
            return Err(RpcError::invalid_params(
                "Invalid params: a 2026-07-28 request carries \"io.modelcontextprotocol/protocolVersion\" and \"io.modelcontextprotocol/clientCapabilities\" in `params._meta`",
            ));
        }
        return Ok(Era::Legacy);
    };
    if header != Some(body.as_str()) {
        let header = header.map_or_else(|| "missing".to_owned(), |h| format!("{h:?}"));
        return Err(RpcError::header_mismatch(format!(
            "MCP-Protocol-Version header {header} does not match the body's protocol version {body:?}; send the same version in both"
        )));
    }
    if LEGACY_VERSIONS.contains(&body.as_str()) {
        return Ok(Era::Legacy);
    }
    era::claim(params)?;
    match crate::rpc::channel::mirror(headers, METHOD_HEADER) {
        Some(Ok(sent)) if sent == method => {}
        sent => {
            return Err(RpcError::header_mismatch(format!(
                "Mcp-Method header {} does not match the body's method {method:?}; send the method in both",
                shown_header(sent)
            )));
        }
    }
    let named = match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        // SEP-2663: so that a load balancer can route a task's requests by its id.
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    };
    if let Some(key) = named {
        // Only `name` and `uri` are read; the arguments are skipped, not built into a tree.
        #[derive(serde::Deserialize)]
        struct Named<'a> {
            #[serde(default, borrow, deserialize_with = "jsonrpc::present")]
            name: Option<&'a RawValue>,
            #[serde(default, borrow, deserialize_with = "jsonrpc::present")]
            uri: Option<&'a RawValue>,
            #[serde(default, borrow, rename = "taskId", deserialize_with = "jsonrpc::present")]
            task_id: Option<&'a RawValue>,
        }
        let value = params
            .and_then(|p| serde_json::from_str::<Named<'_>>(p.get()).ok())
            .and_then(|n| match key {
                "name" => n.name,
                "uri" => n.uri,
                _ => n.task_id,
            })
            .and_then(|raw| serde_json::from_str::<String>(raw.get()).ok());
        match (crate::rpc::channel::mirror(headers, NAME_HEADER), value) {
            (Some(Ok(sent)), Some(value)) if sent == value => {}
            (_, None) => {}
            (sent, Some(value)) => {
                return Err(RpcError::header_mismatch(format!(
                    "Mcp-Name header {} does not match the body's `{key}` {value:?}; send it in both",
                    shown_header(sent)
                )));
            }
        }
    }
    Ok(Era::Modern)
}

fn shown_header(sent: Option<Result<String, ()>>) -> String {
    match sent {
        None => "missing".into(),
        Some(Err(())) => "unreadable".into(),
        Some(Ok(value)) => format!("{value:?}"),
    }
}
