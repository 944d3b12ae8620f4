//! Seen in production: what a request leaves behind once answered. A span by the
//! OpenTelemetry conventions for MCP (`span`, its trace context in `context`), the
//! conventions' metrics and ours (`metrics`), their OTLP export (`export`), and the
//! `after` of the server's hooks.
//!
//! The session begins a [`Watch`] when it takes a request and ends it where it answers:
//! one call each. A server with no hooks and no exporter, under no subscriber that wants
//! the span, pays the span's disabled check and nothing else: no clock read, no allocation.

pub(crate) mod span;

#[cfg(feature = "otel")]
mod context;
#[cfg(feature = "otel")]
pub(crate) mod export;
#[cfg(feature = "otel")]
pub(crate) mod metrics;
#[cfg(feature = "otel")]
pub(crate) mod queue;

use std::borrow::Cow;
#[cfg(feature = "otel")]
use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;
use serde_json::value::RawValue;
use tracing::Span;

use crate::hooks::{Answer, HookRequest, Hooks, Outcome};
use crate::rpc::channel::{Channel, Transport};
use crate::rpc::era::Client;

/// What watches a server's requests: its hooks, and its metrics when it exports them.
pub(crate) struct Observer {
    pub(crate) hooks: Hooks,
    /// Characters a span keeps of a value a client chose
    /// ([`ServerBuilder::span_value_chars`](crate::ServerBuilder::span_value_chars)).
    pub(crate) value_chars: usize,
    /// What hooks read of the state store (`HookRequest::state_store`).
    pub(crate) stores: std::sync::Arc<crate::state::store::Stores>,
    #[cfg(feature = "otel")]
    pub(crate) metrics: Option<Arc<metrics::Metrics>>,
}

/// One request being watched, from when the session took it to its answer.
pub(crate) struct Watch {
    span: Span,
    /// When the request was taken, when metrics or hooks need the duration.
    started: Option<Instant>,
    /// The method, as metrics and hooks name it (`_OTHER` for one not served).
    method: &'static str,
    /// The tool, prompt or resource the request names, when metrics or hooks need it.
    target: Option<Box<str>>,
    /// The arguments, when a hook's `after` reads them.
    arguments: Option<Value>,
    /// The instruments whose active calls count this call, until it ends.
    #[cfg(feature = "otel")]
    active: Option<Arc<metrics::Metrics>>,
}

impl Observer {
    /// Begins watching a request (`id` is `None` for one whose id could not be read).
    pub(crate) fn begin(
        &self,
        method: &str,
        id: Option<&RawValue>,
        params: Option<&RawValue>,
        channel: &Channel,
    ) -> Watch {
        let span = span::server(&span::Start { method, id }, params, channel);
        let method = known(method);
        #[cfg(feature = "otel")]
        let active = self.metrics.as_ref().filter(|_| crate::hooks::wraps(method)).map(|m| {
            m.call_started(method);
            Arc::clone(m)
        });
        Watch {
            span,
            started: self.timed().then(Instant::now),
            method,
            target: None,
            arguments: None,
            #[cfg(feature = "otel")]
            active,
        }
    }

    /// Whether anything but a span needs the request's duration and names.
    fn timed(&self) -> bool {
        #[cfg(feature = "otel")]
        if self.metrics.is_some() {
            return true;
        }
        !self.hooks.is_empty()
    }

    /// Starts timing a session (a stdio connection, a 2025 HTTP session), for
    /// `mcp.server.session.duration`.
    #[cfg_attr(not(feature = "otel"), allow(clippy::unused_self))]
    pub(crate) fn session(&self, transport: Transport) -> SessionClock {
        SessionClock {
            #[cfg(feature = "otel")]
            metrics: self.metrics.clone().map(|m| (m, Instant::now(), transport)),
            #[cfg(not(feature = "otel"))]
            _transport: transport,
        }
    }
}

impl Watch {
    /// The request's span: the work of the request runs in it.
    pub(crate) fn span(&self) -> &Span {
        &self.span
    }

    /// The request names a tool (`tools/call`) or a prompt (`prompts/get`), with these
    /// arguments.
    pub(crate) fn names(&mut self, observer: &Observer, name: &str, arguments: Option<&Value>) {
        span::target(&self.span, self.method, name);
        if self.started.is_some() {
            self.target = Some(name.into());
        }
        if observer.hooks.wants_arguments() {
            self.arguments = arguments.cloned();
        }
    }

    /// The request reads a resource.
    pub(crate) fn reads(&mut self, observer: &Observer, uri: &str) {
        span::resource(&self.span, uri, observer.value_chars);
        if self.started.is_some() {
            self.target = Some(uri.into());
        }
    }

    /// The request was answered (or cancelled): the span's outcome, the metrics, the hooks'
    /// `after`. `serves(method, name)` says whether the server has the tool or prompt named
    /// (only such names are metric attributes).
    pub(crate) fn end(
        mut self,
        observer: &Observer,
        channel: &Channel,
        client: Option<&Client>,
        answer: Answer<'_>,
        serves: &dyn Fn(&str, &str) -> bool,
    ) {
        if self.span.is_disabled() && self.started.is_none() {
            return;
        }
        if let Some(client) = client {
            // Read at the end: `initialize` is the request that sets the version.
            span::client(&self.span, client, channel);
        }
        let envelope = envelope(answer);
        let envelope = envelope.as_deref();
        span::finish(&self.span, answer, envelope, observer.value_chars);
        let Some(started) = self.started else { return };
        let duration = started.elapsed();
        let target = self.target.take();
        #[cfg(feature = "otel")]
        if let Some(active) = self.active.take() {
            active.call_ended(self.method);
        }
        #[cfg(feature = "otel")]
        if let Some(metrics) = &observer.metrics {
            let outcome = Outcome::new(answer, envelope, duration);
            metrics.operation(&metrics::Operation {
                method: self.method,
                target: target.as_deref().filter(|t| serves(self.method, t)),
                client,
                channel,
                answer,
                reason: outcome.reason(),
                seconds: duration.as_secs_f64(),
            });
        }
        #[cfg(not(feature = "otel"))]
        let _ = serves;
        // A call that went on as a task: its hooks see the task's end (`protocol::tasked`).
        let hooked = !observer.hooks.is_empty() && crate::hooks::wraps(self.method) && !matches!(answer, Answer::Task);
        if let Some(client) = client.filter(|_| hooked) {
            let request = HookRequest::new(
                self.method,
                target.as_deref().unwrap_or(""),
                self.arguments.as_ref(),
                channel,
                client,
                &observer.stores,
            );
            observer.hooks.after(&request, &Outcome::new(answer, envelope, duration));
        }
    }
}

/// A tool execution error's envelope: its `structuredContent.error`, or, for a tool with an
/// `outputSchema` (whose errors carry no `structuredContent`), the one `fail` made on this
/// thread, read back from where it noted it.
fn envelope(answer: Answer<'_>) -> Option<Cow<'_, Value>> {
    let Answer::Tool(result) = answer else { return None };
    if result.is_error != Some(true) {
        return None;
    }
    match &result.structured_content {
        Some(content) => content.get("error").map(Cow::Borrowed),
        None => crate::rpc::envelope::stripped_error(result).map(Cow::Owned),
    }
}

/// A task's handler ended with this answer: recorded on the task's span ([`span::task`]) as
/// a request's answer is on its own. The envelope, for the hooks once the task ends.
pub(crate) fn task_answered(observer: &Observer, span: &Span, answer: Answer<'_>) -> Option<Value> {
    let envelope = task_envelope(answer);
    if !span.is_disabled() {
        span::finish(span, answer, envelope.as_ref(), observer.value_chars);
    }
    envelope
}

/// A task's answer's envelope (see [`envelope`]), kept until the task ends.
pub(crate) fn task_envelope(answer: Answer<'_>) -> Option<Value> {
    envelope(answer).map(Cow::into_owned)
}

#[cfg(feature = "otel")]
impl Drop for Watch {
    /// A call dropped before its end (its task aborted) is no longer active.
    fn drop(&mut self) {
        if let Some(metrics) = self.active.take() {
            metrics.call_ended(self.method);
        }
    }
}

/// A session being timed; see [`Observer::session`].
pub(crate) struct SessionClock {
    #[cfg(feature = "otel")]
    metrics: Option<(Arc<metrics::Metrics>, Instant, Transport)>,
    #[cfg(not(feature = "otel"))]
    _transport: Transport,
}

impl SessionClock {
    /// The session ended; it spoke `version` (the one `initialize` negotiated).
    #[cfg_attr(not(feature = "otel"), allow(clippy::unused_self))]
    pub(crate) fn end(self, version: Option<&'static str>) {
        #[cfg(feature = "otel")]
        if let Some((metrics, started, transport)) = self.metrics {
            metrics.session(started.elapsed().as_secs_f64(), transport, version);
        }
        #[cfg(not(feature = "otel"))]
        let _ = version;
    }
}

/// The method as a `'static` name, `_OTHER` for one this runtime does not serve (a caller's
/// string is no metric attribute).
fn known(method: &str) -> &'static str {
    const SERVED: [&str; 15] = [
        "initialize",
        "ping",
        "tools/list",
        "tools/call",
        "logging/setLevel",
        "resources/list",
        "resources/read",
        "resources/templates/list",
        "resources/subscribe",
        "resources/unsubscribe",
        "prompts/list",
        "prompts/get",
        "completion/complete",
        "server/discover",
        "subscriptions/listen",
    ];
    SERVED.iter().find(|m| **m == method).copied().unwrap_or("_OTHER")
}
