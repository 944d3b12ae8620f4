//! `tools/list`: each tool's descriptor, serialized once per era into pages, and the
//! cursors that name the pages.

use std::sync::Arc;

use mcp_core::{Icon, ToolAnnotations};
use serde_json::Value;
use serde_json::value::RawValue;

use super::Registered;
use crate::features::page::cursor_for;
use crate::options::{CacheScope, Options};

/// A tool as `tools/list` describes it, serialized straight from the registry.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Descriptor<'a> {
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

/// The `_meta` key under which `tools/list` carries a tool's declared failure modes
/// (issue 33 item 11), unless the server was built with
/// [`list_failures(false)`](crate::ServerBuilder::list_failures).
///
/// Its value is an array with one object per declared reason, in the order of the contract
/// table (a tool's own `#[errors(...)]`, then its shared contract's), each with the members
/// a failure of that reason carries (docs/errors.md#errors--one-per-failure-mode):
///
/// | member | type | what |
/// |---|---|---|
/// | `reason` | string | `data.reason` of the failure |
/// | `code` | integer | `structuredContent.error.code` (docs/errors.md#codes) |
/// | `retryable` | boolean, only when declared | `data.retryable` |
/// | `when` | string | when it happens: the failure's default message |
/// | `recovery` | string | the caller's next move: the failure's recovery hint |
///
/// A tool without declared failures has no such key. The key is namespaced (reverse DNS of
/// the crate's registry page), so it cannot clash with the protocol's own `_meta` keys.
///
/// ```json
/// "_meta": {"io.crates.mcp-runtime/failures": [
///   {"reason": "no_match", "code": -32001, "retryable": false,
///    "when": "No item has this id.", "recovery": "Call search_items to find a valid id."}
/// ]}
/// ```
pub const FAILURES_META_KEY: &str = "io.crates.mcp-runtime/failures";

/// `_meta` entries, in declaration order, then the declared failure modes when listed.
struct Meta<'a>(&'a [(&'static str, Value)], Option<&'a Value>);

impl Meta<'_> {
    fn is_empty(&self) -> bool {
        self.0.is_empty() && self.1.is_none()
    }
}

impl serde::Serialize for Meta<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let failures = self.1.map(|f| (&FAILURES_META_KEY, f));
        serializer.collect_map(self.0.iter().map(|(k, v)| (k, v)).chain(failures))
    }
}

/// The `_meta` value of a tool's declared failure modes ([`FAILURES_META_KEY`]): `None` for
/// a tool that declares none, or when the author's own `meta(..)` names the key.
pub(crate) fn failures_meta(spec: &super::tool::ToolSpec) -> Option<Value> {
    if spec.contract.is_empty() || spec.meta.iter().any(|(k, _)| *k == FAILURES_META_KEY) {
        return None;
    }
    let entries = spec.contract.iter().map(|e| {
        let mut entry = serde_json::Map::new();
        entry.insert("reason".into(), e.reason.into());
        entry.insert("code".into(), e.code.as_i32().into());
        if let Some(retryable) = e.retryable {
            entry.insert("retryable".into(), retryable.into());
        }
        entry.insert("when".into(), e.when.into());
        entry.insert("recovery".into(), e.recovery.into());
        Value::Object(entry)
    });
    Some(Value::Array(entries.collect()))
}

/// What `tools/list` says of `tool`.
pub(crate) fn descriptor(tool: &Registered) -> Descriptor<'_> {
    let spec = &tool.spec;
    Descriptor {
        name: spec.name,
        title: spec.title,
        description: spec.description,
        input_schema: &tool.input_schema,
        output_schema: tool.descriptor_output.as_ref(),
        annotations: spec.annotations.as_ref(),
        icons: &spec.icons,
        meta: Meta(&spec.meta, tool.failures_meta.as_ref()),
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
pub(crate) fn list_pages(
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
