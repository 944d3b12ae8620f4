//! The cursors of every list (`tools/list`, `prompts/list`, `resources/list`, …): opaque
//! to clients, each names a page made once.

use serde_json::Value;

use crate::rpc::jsonrpc::RpcError;

/// Cursors are opaque to clients: `page-<n>`.
pub(crate) fn cursor_for(page: usize) -> String {
    format!("page-{page}")
}

/// The page (of `pages`) a list request's `cursor` names: 0 without one; `-32602` for a
/// cursor this server did not hand out, saying to `restart` (list again without a cursor).
pub(crate) fn page_index(params: Option<&Value>, pages: usize, restart: &str) -> Result<usize, RpcError> {
    match params.and_then(|p| p.get("cursor")) {
        None | Some(Value::Null) => Ok(0),
        Some(Value::String(cursor)) => {
            cursor.strip_prefix("page-").and_then(|n| n.parse().ok()).filter(|&p| p > 0 && p < pages).ok_or_else(|| {
                RpcError::invalid_params(format!(
                    "Invalid params: unknown cursor; {restart} without a cursor to start over"
                ))
            })
        }
        Some(_) => Err(RpcError::invalid_params("Invalid params: `cursor` must be a string")),
    }
}
