//! What every replica of a server hears: the tool, prompt and resource lists changed, a
//! resource was updated, a task's record changed. The bus sits beside the state store: in
//! this process by default (a broadcast channel), and on Redis pub/sub too when the store is
//! a `RedisStore`, so that a `write_note` on one replica reaches a listen stream held by
//! another.
//!
//! An event is published once and delivered to this process's listeners at once; with a
//! link, it also goes to the other replicas, whose own copies come back tagged with this
//! process's origin and are dropped here. Delivery is best effort: a listener that falls
//! behind, or a link that was down, gets [`Event::Missed`] and acts as if everything it
//! cares about changed. Task runners do not rely on it alone: they also read their record
//! every second.

use std::sync::Arc;

#[cfg(feature = "redis")]
use serde_json::{Value, json};
use tokio::sync::broadcast;

/// Events a listener may miss before it gets [`Event::Missed`] instead.
const CAPACITY: usize = 1024;

/// Something every replica's listeners may need to hear.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Event {
    /// The tool list changed (`notifications/tools/list_changed`).
    ToolsChanged,
    /// The prompt list changed.
    PromptsChanged,
    /// The resource list changed.
    ResourcesChanged,
    /// The contents of the resource at this URI changed.
    ResourceUpdated(Arc<str>),
    /// The record of the task with this id changed (a new status, an answer, a cancel).
    Task(Arc<str>),
    /// Events may have been missed: act as if every event of interest happened (a listener
    /// that fell behind, or a link that was down).
    Missed,
}

#[cfg(feature = "redis")]
impl Event {
    /// The event on the wire between replicas: `{"o": origin, "e": kind, "v"?: value}`.
    pub(crate) fn encode(&self, origin: &str) -> String {
        let (kind, value) = match self {
            Event::ToolsChanged => ("tools", None),
            Event::PromptsChanged => ("prompts", None),
            Event::ResourcesChanged => ("resources", None),
            Event::ResourceUpdated(uri) => ("resource", Some(&**uri)),
            Event::Task(id) => ("task", Some(&**id)),
            Event::Missed => ("missed", None),
        };
        match value {
            Some(value) => json!({"o": origin, "e": kind, "v": value}),
            None => json!({"o": origin, "e": kind}),
        }
        .to_string()
    }

    /// An event from another replica, and the origin it names; `None` for anything else
    /// (garbage on the channel is ignored, never trusted).
    pub(crate) fn decode(text: &str) -> Option<(String, Event)> {
        let value: Value = serde_json::from_str(text).ok()?;
        let origin = value.get("o")?.as_str()?.to_owned();
        let text = || value.get("v").and_then(Value::as_str).map(Arc::from);
        let event = match value.get("e")?.as_str()? {
            "tools" => Event::ToolsChanged,
            "prompts" => Event::PromptsChanged,
            "resources" => Event::ResourcesChanged,
            "resource" => Event::ResourceUpdated(text()?),
            "task" => Event::Task(text()?),
            "missed" => Event::Missed,
            _ => return None,
        };
        Some((origin, event))
    }
}

/// How events travel to the other replicas (Redis pub/sub: `state::redis`).
pub(crate) trait Link: Send + Sync {
    /// Sends `event` to the other replicas.
    fn publish(&self, event: &Event);
    /// Starts (once) delivering the other replicas' events to `local`.
    fn receive_into(&self, local: &broadcast::Sender<Event>);
    /// Resolves once the other replicas' events arrive, or after a short wait.
    fn ready(&self) -> crate::state::store::BoxFuture<'_, ()>;
}

/// The bus of one server: its listeners in this process, and the link to the other
/// replicas when there is one.
pub(crate) struct Bus {
    local: broadcast::Sender<Event>,
    link: Option<Box<dyn Link>>,
}

impl Default for Bus {
    /// This process only.
    fn default() -> Self {
        Bus { local: broadcast::Sender::new(CAPACITY), link: None }
    }
}

impl Bus {
    /// A bus whose events also travel over `link` to the other replicas.
    #[cfg(feature = "redis")]
    pub(crate) fn linked(link: Box<dyn Link>) -> Self {
        Bus { link: Some(link), ..Bus::default() }
    }

    /// Tells every listener, here and (with a link) on the other replicas.
    pub(crate) fn publish(&self, event: Event) {
        if let Some(link) = &self.link {
            link.publish(&event);
        }
        // No receiver means nobody listens here: nothing to tell.
        let _ = self.local.send(event);
    }

    /// A listener: every event published from now on, here or (with a link) on another
    /// replica. The first one starts receiving from the link.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Event> {
        if let Some(link) = &self.link {
            link.receive_into(&self.local);
        }
        self.local.subscribe()
    }

    /// Resolves once events from the other replicas arrive here (at once without a link),
    /// or after a short wait when the link is down: a listen stream acknowledges only then,
    /// so that what another replica does after the acknowledgement reaches it.
    pub(crate) async fn ready(&self) {
        if let Some(link) = &self.link {
            link.ready().await;
        }
    }
}

/// A listener's next event: [`Event::Missed`] when it fell behind (more events came than it
/// took), `None` once the bus is gone.
pub(crate) async fn recv(events: &mut broadcast::Receiver<Event>) -> Option<Event> {
    match events.recv().await {
        Ok(event) => Some(event),
        Err(broadcast::error::RecvError::Lagged(_)) => Some(Event::Missed),
        Err(broadcast::error::RecvError::Closed) => None,
    }
}

/// A random tag for this process's messages on a link: its own echoes are dropped.
#[cfg(feature = "redis")]
pub(crate) fn origin() -> String {
    use std::fmt::Write as _;
    let mut bytes = [0_u8; 8];
    // Uniqueness, not secrecy, is what an origin needs; the clock is a fallback only.
    if getrandom::fill(&mut bytes).is_err() {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        bytes = u64::try_from(nanos % u128::from(u64::MAX)).unwrap_or_default().to_le_bytes();
    }
    bytes.iter().fold(String::with_capacity(16), |mut hex, b| {
        let _ = write!(hex, "{b:02x}");
        hex
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(feature = "redis")]
    fn events_travel_as_small_json_and_garbage_is_ignored() {
        for event in [
            Event::ToolsChanged,
            Event::PromptsChanged,
            Event::ResourcesChanged,
            Event::ResourceUpdated(Arc::from("notes://a b")),
            Event::Task(Arc::from("0123abcd")),
            Event::Missed,
        ] {
            let text = event.encode("me");
            assert_eq!(Event::decode(&text), Some(("me".to_owned(), event)), "{text}");
        }
        assert_eq!(Event::ToolsChanged.encode("o1"), r#"{"o":"o1","e":"tools"}"#);
        for garbage in [
            "",
            "null",
            "{}",
            r#"{"o":"x"}"#,
            r#"{"o":"x","e":"nope"}"#,
            r#"{"o":"x","e":"resource"}"#,
            r#"{"o":"x","e":"task"}"#,
        ] {
            assert_eq!(Event::decode(garbage), None, "{garbage}");
        }
    }

    #[tokio::test]
    async fn a_listener_hears_what_is_published_after_it_subscribed() {
        let bus = Bus::default();
        bus.publish(Event::ToolsChanged);
        let mut listener = bus.subscribe();
        bus.ready().await;
        bus.publish(Event::ResourceUpdated(Arc::from("x://1")));
        assert_eq!(listener.recv().await.unwrap(), Event::ResourceUpdated(Arc::from("x://1")));
        assert!(listener.try_recv().is_err(), "nothing before the subscription");
    }

    #[test]
    #[cfg(feature = "redis")]
    fn origins_differ() {
        assert_ne!(origin(), origin());
        assert_eq!(origin().len(), 16);
    }
}
