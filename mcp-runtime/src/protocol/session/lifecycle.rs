//! The requests a session answers at once, on the reader: the lifecycle methods of each era
//! (2025: `initialize`, `ping`, `logging/setLevel`, `resources/subscribe`; 2026-07-28:
//! `server/discover`), `tools/list` and the other lists, and the capabilities both
//! handshakes declare. `handle` routes them here after classifying the request.

use std::sync::atomic::Ordering;

use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::{Session, value};
use crate::features::page::page_index;
use crate::protocol::router;
use crate::rpc::era::{Client, Era, LEGACY_VERSIONS, LogLevel, MODERN_VERSIONS};
use crate::rpc::jsonrpc::{self, RpcError};

/// Whether the hooks that count sessions ([`crate::Hook::counts_sessions`]: `RateLimit`) let
/// the caller on `channel` open one: asked by the HTTP endpoint for a 2025 `initialize`
/// before it mints a session. `Err` is the JSON-RPC error to answer with, the one a refused
/// `resources/read` gets (the failure's code, `-32023` for a rate limit under the draft
/// switch, and the envelope's `data`).
#[cfg(feature = "http")]
pub(crate) async fn admit_opening(
    shared: &crate::features::Shared,
    channel: &crate::rpc::channel::Channel,
) -> Result<(), RpcError> {
    use crate::hooks::{HookRequest, Refused};
    use crate::rpc::envelope::{Origin, Site, fail_rpc};
    use crate::rpc::request_id::RequestId;
    let hooks = &shared.observer.hooks;
    if !hooks.counts_sessions() {
        return Ok(());
    }
    let client = Client::Legacy(std::sync::Arc::default());
    let request = HookRequest::new("initialize", "", None, channel, &client, &shared.stores);
    let site = Site::bare("session", "initialize", shared.options.drafts);
    let request_id = RequestId::generate();
    match hooks.before_session(&request).await {
        Ok(()) => Ok(()),
        Err(Refused::By(err)) => Err(fail_rpc(site, err, request_id, Origin::Refusal, None)),
        Err(Refused::Panicked(payload)) => {
            tracing::error!(target: "mcp_runtime::hooks", %request_id, payload = crate::rpc::catch::panic_text(&*payload), "a hook's before() panicked on initialize");
            let err = mcp_core::ToolError::internal("Opening the session failed unexpectedly.")
                .reason("internal_error")
                .hint("Retry once; if it fails again, report the request id to the server operator.");
            Err(fail_rpc(site, err, request_id, Origin::Fault, None))
        }
    }
}

impl Session {
    /// A 2025 request answered at once.
    pub(super) fn legacy(
        &self,
        id: &RawValue,
        method: &str,
        params: Option<&RawValue>,
        client: &Client,
    ) -> Result<Vec<u8>, RpcError> {
        match method {
            "initialize" => self.initialize(value(params)).map(|r| jsonrpc::success(id, &r)),
            "ping" => Ok(jsonrpc::success(id, &json!({}))),
            "tools/list" => self.tools_list(id, params, false),
            "logging/setLevel" => {
                Self::set_level(value(params).as_ref(), client).map(|()| jsonrpc::success(id, &json!({})))
            }
            "resources/subscribe" | "resources/unsubscribe" if !self.shared.resources.is_empty() => self
                .subscribe(method == "resources/subscribe", value(params).as_ref())
                .map(|()| jsonrpc::success(id, &json!({}))),
            other => self.feature(id, other, params, client),
        }
    }

    /// A 2026-07-28 request answered at once.
    pub(super) fn modern(
        &self,
        id: &RawValue,
        method: &str,
        params: Option<&RawValue>,
        client: &Client,
    ) -> Result<Vec<u8>, RpcError> {
        match method {
            "server/discover" => Ok(jsonrpc::success(id, &self.discover())),
            "tools/list" => self.tools_list(id, params, true),
            other => self.feature(id, other, params, client),
        }
    }

    /// `tools/list` in either era: the page the cursor names, of what this caller may see.
    fn tools_list(&self, id: &RawValue, params: Option<&RawValue>, modern: bool) -> Result<Vec<u8>, RpcError> {
        let tools = self.shared.tools();
        let pages = self.shared.list_pages_for(&tools, self.channel.principal(), modern);
        page(&pages, value(params).as_ref()).map(|p| jsonrpc::success(id, &p))
    }

    /// A feature method answered at once (a list), in either era; anything else is not found.
    fn feature(
        &self,
        id: &RawValue,
        method: &str,
        params: Option<&RawValue>,
        client: &Client,
    ) -> Result<Vec<u8>, RpcError> {
        match router::answer(&self.shared, client, self.channel.principal(), method, value(params).as_ref()) {
            Some(answer) => answer.map(|result| jsonrpc::success(id, &result)),
            None => Err(RpcError::method_not_found(&crate::rpc::envelope::display_name(method))),
        }
    }

    /// `server/discover`: the versions, and the capabilities whose methods work here.
    fn discover(&self) -> Value {
        let shared = &self.shared;
        let mut result = json!({
            "resultType": "complete",
            "supportedVersions": MODERN_VERSIONS,
            "capabilities": self.capabilities(Era::Modern),
            "ttlMs": shared.options.cache_ttl_ms,
            "cacheScope": shared.options.cache_scope,
        });
        if let Some(text) = &shared.instructions {
            result["instructions"] = Value::from(text.as_str());
        }
        result["_meta"] = json!({"io.modelcontextprotocol/serverInfo": &*shared.server_info});
        result
    }

    /// What this server offers: tools and logging, and the features it has, with the change
    /// notifications this client can hear.
    fn capabilities(&self, era: Era) -> Value {
        // Changes reach a modern client on its listen stream, a 2025 session through its
        // forwarding task; a request served alone (stateless HTTP) has no way to hear them.
        let told = era == Era::Modern || !self.state.per_request;
        let mut capabilities = serde_json::Map::new();
        capabilities.insert("tools".into(), json!({"listChanged": told}));
        capabilities.insert("logging".into(), json!({}));
        router::capabilities(&self.shared, told, &mut capabilities);
        if era == Era::Modern && self.shared.has_task_tools() {
            // Tasks are an extension of 2026-07-28 (a 2025 `initialize` never offers them).
            // Beside the others this server declares (skills).
            crate::features::declare_extension(&mut capabilities, crate::tasks::EXTENSION, json!({}));
        }
        Value::Object(capabilities)
    }

    fn initialize(&self, params: Option<Value>) -> Result<Value, RpcError> {
        let params = params.unwrap_or(Value::Null);
        let Some(requested) = params.get("protocolVersion").and_then(Value::as_str) else {
            return Err(RpcError::invalid_params("Invalid params: initialize needs `protocolVersion` (a string)"));
        };
        if self.state.initialized.swap(true, Ordering::AcqRel) {
            return Err(RpcError::invalid_request(
                "Invalid request: the session is already initialized; initialize is sent once",
            ));
        }
        let version = LEGACY_VERSIONS.iter().find(|v| **v == requested).copied().unwrap_or(LEGACY_VERSIONS[0]);
        self.state.legacy.declare(version, params.get("clientInfo").cloned(), params.get("capabilities").cloned());
        self.start_forwarding();
        let shared = &self.shared;
        let mut result = json!({
            "protocolVersion": version,
            "capabilities": self.capabilities(Era::Legacy),
            "serverInfo": {"name": shared.name, "version": shared.version},
        });
        if let Some(text) = &shared.instructions {
            result["instructions"] = Value::from(text.as_str());
        }
        Ok(result)
    }

    fn set_level(params: Option<&Value>, client: &Client) -> Result<(), RpcError> {
        let level = params
            .and_then(|p| p.get("level"))
            .and_then(|l| serde_json::from_value::<LogLevel>(l.clone()).ok())
            .ok_or_else(|| {
                RpcError::invalid_params(
                    "Invalid params: `level` must be one of debug, info, notice, warning, error, critical, alert, emergency",
                )
            })?;
        if let Client::Legacy(legacy) = client {
            legacy.set_level(level);
        }
        Ok(())
    }
}

/// A `tools/list` page by its cursor.
fn page<'p>(pages: &'p [Box<RawValue>], params: Option<&Value>) -> Result<&'p RawValue, RpcError> {
    Ok(&pages[page_index(params, pages.len(), "call tools/list")?])
}
