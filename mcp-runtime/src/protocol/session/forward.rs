//! What a 2025 session hears outside its requests: the resources it subscribed to
//! (`resources/subscribe`), and the task that sends it list changes and their updates, raised
//! on this replica or, through the bus, on another. Started by `initialize` (`lifecycle`); a
//! 2026-07-28 client hears the same on a listen stream (`listen`) instead.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde_json::{Value, json};

use super::{Session, State, closed};
use crate::rpc::channel::Channel;
use crate::rpc::jsonrpc::{self, RpcError};
use crate::state::bus::Event;

/// The most resources one 2025 session may subscribe to at once.
const MAX_SUBSCRIPTIONS: usize = 1024;

impl Session {
    /// Starts the task that sends a 2025 session what it cannot ask for: list changes and
    /// updates of the resources it subscribed to, on stdio's output or an HTTP session's
    /// standalone stream.
    pub(super) fn start_forwarding(&self) {
        let out = match (&self.state.standalone, self.channel.http()) {
            (Some(standalone), _) => Arc::new(Channel::new(Some(Arc::clone(standalone)), None)),
            (None, None) => Arc::clone(&self.channel),
            // Served per request: no stream outlives the request.
            (None, Some(_)) => return,
        };
        if self.state.per_request || self.state.forwarding.swap(true, Ordering::AcqRel) {
            return;
        }
        let watches = Watches {
            events: self.shared.notices.bus.subscribe(),
            alive: self.state.alive.subscribe(),
            closing: self.closing.clone(),
        };
        tokio::spawn(forward(Arc::downgrade(&self.state), out, watches));
    }

    /// `resources/subscribe` and `resources/unsubscribe` (2025): the URI is remembered for
    /// this session, and the forwarding task sends `notifications/resources/updated` when the
    /// server announces it.
    pub(super) fn subscribe(&self, on: bool, params: Option<&Value>) -> Result<(), RpcError> {
        let Some(uri) = params.and_then(|p| p.get("uri")).and_then(Value::as_str) else {
            return Err(RpcError::invalid_params("Invalid params: needs params {uri} (a string)"));
        };
        let mut subscribed = self.state.subscriptions.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if on {
            let Some(scopes) = self.shared.resources.scopes_of(uri) else {
                return Err(RpcError {
                    code: -32002,
                    message: format!("Resource not found: {}", crate::rpc::envelope::display_name(uri)),
                    data: Some(json!({"uri": uri})),
                });
            };
            // Watching a resource tells when it changes: the same scopes as reading it.
            let name = crate::rpc::envelope::display_name(uri);
            if let Err(err) = crate::auth::principal::require(self.channel.principal(), scopes, &name) {
                let site = crate::rpc::envelope::Site::bare("resource", &name, self.shared.options.drafts);
                let request_id = crate::rpc::request_id::RequestId::generate();
                return Err(crate::rpc::envelope::fail_rpc(
                    site,
                    err,
                    request_id,
                    crate::rpc::envelope::Origin::Refusal,
                    None,
                ));
            }
            if subscribed.len() >= MAX_SUBSCRIPTIONS && !subscribed.contains(uri) {
                return Err(RpcError::invalid_params(format!(
                    "Invalid params: a session subscribes to at most {MAX_SUBSCRIPTIONS} resources; unsubscribe from one first"
                )));
            }
            subscribed.insert(uri.to_owned());
        } else {
            subscribed.remove(uri);
        }
        drop(subscribed);
        Ok(())
    }
}

/// What a 2025 session's forwarding task waits on.
struct Watches {
    /// The server's bus: changes raised here or on another replica.
    events: tokio::sync::broadcast::Receiver<Event>,
    /// Fails when the session's state is dropped.
    alive: tokio::sync::watch::Receiver<()>,
    closing: Option<tokio::sync::watch::Receiver<bool>>,
}

/// Sends a 2025 session `notifications/{tools,prompts,resources}/list_changed` and
/// `notifications/resources/updated` for the URIs it subscribed to, until its transport ends
/// or the session is gone.
async fn forward(state: std::sync::Weak<State>, channel: Arc<Channel>, mut w: Watches) {
    let list_changed = |method: &str| channel.notify(jsonrpc::notification(method, &json!({})));
    loop {
        let event = tokio::select! {
            () = closed(w.closing.as_mut()) => return,
            _ = w.alive.changed() => return,
            event = crate::state::bus::recv(&mut w.events) => event,
        };
        match event {
            Some(Event::ToolsChanged) => list_changed("notifications/tools/list_changed"),
            Some(Event::PromptsChanged) => list_changed("notifications/prompts/list_changed"),
            Some(Event::ResourcesChanged) => list_changed("notifications/resources/list_changed"),
            Some(Event::ResourceUpdated(uri)) => {
                let Some(state) = state.upgrade() else { return };
                let subscribed =
                    state.subscriptions.lock().unwrap_or_else(std::sync::PoisonError::into_inner).contains(&*uri);
                if subscribed {
                    channel.notify(jsonrpc::notification("notifications/resources/updated", &json!({"uri": &*uri})));
                }
            }
            Some(Event::Missed) => {
                // Events were missed: every list and every subscribed resource may have changed.
                let Some(state) = state.upgrade() else { return };
                tracing::warn!(
                    "changes came faster than this session took them, or from a replica that was out of reach; telling it of everything"
                );
                for method in [
                    "notifications/tools/list_changed",
                    "notifications/prompts/list_changed",
                    "notifications/resources/list_changed",
                ] {
                    list_changed(method);
                }
                let subscriptions = state.subscriptions.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                for uri in subscriptions.iter() {
                    channel.notify(jsonrpc::notification("notifications/resources/updated", &json!({"uri": uri})));
                }
            }
            // Tasks are 2026-07-28 only: a 2025 session hears nothing of them.
            Some(Event::Task(_)) => {}
            None => return,
        }
    }
}
