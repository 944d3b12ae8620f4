//! `tools/list`: each tool's descriptor, serialized once per era into pages, and the
//! cursors that name the pages.

use std::sync::Arc;

use mcp_core::{Icon, ToolAnnotations};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::rpc::jsonrpc::RpcError;

use super::{CacheScope, Options, Registered, Server};

/// A tool as `tools/list` describes it, serialized straight from the registry.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Descriptor<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    description: &'a str,
    input_schema: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_schema: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    annotations: Option<&'a ToolAnnotations>,
    #[serde(skip_serializing_if = "<[Icon]>::is_empty")]
    icons: &'a [Icon],
    #[serde(rename = "_meta", skip_serializing_if = "Meta::is_empty")]
    meta: Meta<'a>,
}

/// `_meta` entries, in declaration order.
struct Meta<'a>(&'a [(&'static str, Value)]);

impl Meta<'_> {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl serde::Serialize for Meta<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

fn descriptor(tool: &Registered) -> Descriptor<'_> {
    let spec = &tool.spec;
    Descriptor {
        name: spec.name,
        title: spec.title,
        description: spec.description,
        input_schema: &tool.input_schema,
        output_schema: tool.descriptor_output.as_ref(),
        annotations: spec.annotations.as_ref(),
        icons: &spec.icons,
        meta: Meta(&spec.meta),
    }
}

/// One `tools/list` result; a modern one also carries `resultType`, the cache hints and
/// the server's name.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct ListPage<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    result_type: Option<&'static str>,
    tools: &'a [Descriptor<'a>],
    #[serde(skip_serializing_if = "Option::is_none")]
    next_cursor: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ttl_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_scope: Option<CacheScope>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<crate::rpc::era::ResultMeta<'a>>,
}

/// The `tools/list` pages: legacy ones, or modern ones naming the server (`server_info`).
pub(super) fn list_pages(
    tools: &[Arc<Registered>],
    options: &Options,
    server_info: Option<&RawValue>,
) -> Vec<Box<RawValue>> {
    let listed: Vec<Descriptor<'_>> = tools.iter().filter(|t| t.disabled.is_none()).map(|t| descriptor(t)).collect();
    let size = options.page_size.unwrap_or(usize::MAX).min(listed.len().max(1));
    let chunks: Vec<&[Descriptor<'_>]> = if listed.is_empty() { vec![&[][..]] } else { listed.chunks(size).collect() };
    let count = chunks.len();
    chunks
        .into_iter()
        .enumerate()
        .map(|(i, tools)| {
            let next_cursor = (i + 1 < count).then(|| cursor_for(i + 1));
            let page = ListPage {
                result_type: server_info.map(|_| "complete"),
                tools,
                next_cursor,
                ttl_ms: server_info.map(|_| options.cache_ttl_ms),
                cache_scope: server_info.map(|_| options.cache_scope),
                meta: server_info.map(crate::rpc::era::ResultMeta::new),
            };
            serde_json::value::to_raw_value(&page)
                .unwrap_or_else(|_| unreachable!("descriptors serialize: string keys, JSON values"))
        })
        .collect()
}

impl Server {
    /// The descriptors `tools/list` sends (all pages), for inspection and tests.
    pub fn tool_descriptors(&self) -> Vec<Value> {
        let descriptor =
            |tool| serde_json::to_value(descriptor(tool)).unwrap_or_else(|_| unreachable!("descriptors serialize"));
        self.shared.tools().all.iter().filter(|t| t.disabled.is_none()).map(|t| descriptor(t)).collect()
    }
}

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
