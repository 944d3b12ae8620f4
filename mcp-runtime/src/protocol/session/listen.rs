//! A 2026-07-28 listen stream (`subscriptions/listen`), run by `run`: the acknowledgement,
//! then the list changes, resource updates and task states it asked for, tagged with the
//! stream's id, until the client cancels it or the transport ends.

use std::sync::Arc;

use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::{Session, closed};
use crate::context::ctx::CancelState;
use crate::hooks::Answer;
use crate::observe::Watch;
use crate::protocol::router::Listening;
use crate::rpc::era::{self, Complete};
use crate::rpc::jsonrpc;
use crate::state::bus::Event;

impl Session {
    /// `notifications/tasks` on a listen stream: the followed task's `DetailedTask`, when it
    /// changed since the last one sent (`followed`: the task and that revision).
    async fn task_notification(&self, followed: &mut (String, Option<u64>), tag: &Value) {
        let Some(record) = self.shared.tasks.detailed(&followed.0, self.channel.principal()).await else { return };
        if followed.1 == Some(record.rev) {
            return;
        }
        followed.1 = Some(record.rev);
        let mut params = record.detailed();
        params.insert("_meta".into(), tag.clone());
        self.channel.notify(jsonrpc::notification("notifications/tasks", &params));
    }

    /// A listen stream: the acknowledgement, then the list changes and resource updates it
    /// asked for (raised on this replica or, through the bus, on another), tagged with the
    /// stream's id, until the client cancels it (no answer) or the transport ends (the
    /// graceful listen result).
    pub(super) async fn listen(
        self: Arc<Self>,
        id: Box<RawValue>,
        tools: bool,
        more: Listening,
        task_ids: Vec<String>,
        cancel: Arc<CancelState>,
        watch: Watch,
    ) {
        let tag = json!({era::SUBSCRIPTION_KEY: &*id});
        let bus = &self.shared.notices.bus;
        let mut events = bus.subscribe();
        // What another replica does after the acknowledgement must reach this stream.
        bus.ready().await;
        // The tasks followed: those of this caller that exist, each with the revision last sent.
        // A task the store cannot say is there is not called absent: the listen fails, retryably.
        let mut followed: Vec<(String, Option<u64>)> = Vec::with_capacity(task_ids.len());
        for task in &task_ids {
            match self.shared.tasks.find(task, self.channel.principal()).await {
                Ok(Some(_)) => followed.push((task.clone(), None)),
                Ok(None) => {}
                Err(e) => {
                    let e = crate::tasks::unavailable("subscriptions/listen", e);
                    self.in_flight_map().remove(id.get());
                    self.end(watch, None, Answer::Error(&e));
                    self.send(jsonrpc::error(Some(&id), &e));
                    return;
                }
            }
        }
        let mut honoured = serde_json::Map::new();
        if tools {
            honoured.insert("toolsListChanged".into(), Value::Bool(true));
        }
        more.honoured(&mut honoured);
        if !task_ids.is_empty() {
            honoured.insert("taskIds".into(), json!(followed.iter().map(|(t, _)| t).collect::<Vec<_>>()));
        }
        self.channel.notify(jsonrpc::notification(
            "notifications/subscriptions/acknowledged",
            &json!({"_meta": tag, "notifications": honoured}),
        ));
        // Each followed task's state now, then every change.
        for task in &mut followed {
            self.task_notification(task, &tag).await;
        }
        let notify = |method: &str| self.channel.notify(jsonrpc::notification(method, &json!({"_meta": tag})));
        let updated = |uri: &str| {
            self.channel
                .notify(jsonrpc::notification("notifications/resources/updated", &json!({"uri": uri, "_meta": tag})));
        };
        let mut closing = self.closing.clone();
        let graceful = loop {
            tokio::select! {
                biased;
                () = cancel.cancelled() => break false,
                () = closed(closing.as_mut()) => break true,
                event = crate::state::bus::recv(&mut events) => match event {
                    Some(Event::ToolsChanged) if tools => notify("notifications/tools/list_changed"),
                    Some(Event::PromptsChanged) if more.prompts => notify("notifications/prompts/list_changed"),
                    Some(Event::ResourcesChanged) if more.resources => notify("notifications/resources/list_changed"),
                    Some(Event::ResourceUpdated(uri)) if more.subscriptions.contains(&uri) => updated(&uri),
                    Some(Event::Task(task)) => {
                        if let Some(at) = followed.iter().position(|(t, _)| **t == *task) {
                            self.task_notification(&mut followed[at], &tag).await;
                        }
                    }
                    Some(Event::Missed) => {
                        // Events were missed: everything this stream asked for may have changed.
                        tracing::debug!(request = id.get(), "a listen stream missed events; telling it of everything it asked for");
                        if tools {
                            notify("notifications/tools/list_changed");
                        }
                        if more.prompts {
                            notify("notifications/prompts/list_changed");
                        }
                        if more.resources {
                            notify("notifications/resources/list_changed");
                        }
                        for uri in &more.subscriptions {
                            updated(uri);
                        }
                        for task in &mut followed {
                            self.task_notification(task, &tag).await;
                        }
                    }
                    Some(_) => {}
                    None => break true,
                },
            }
        };
        self.in_flight_map().remove(id.get());
        if graceful {
            self.end(watch, None, Answer::Result);
            let empty = serde_json::Map::new();
            self.send(jsonrpc::success(&id, &Complete::listen_end(&empty, &self.shared.server_info, &id)));
        } else {
            self.end(watch, None, Answer::Cancelled);
            tracing::debug!(request = id.get(), "listen stream cancelled by the client");
            self.channel.unanswered();
        }
    }
}
