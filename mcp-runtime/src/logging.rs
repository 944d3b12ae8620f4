//! Logs: the server's own records go to stderr through `tracing` (stdout belongs to the
//! protocol); `ctx.log` records also go to the client as `notifications/message`, and so do
//! `tracing` events emitted while a handler runs (the [`client_log_layer`]).

use std::cell::RefCell;
use std::fmt::Write as _;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use serde_json::{Map, Value};
use tracing::field::{Field, Visit};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

use crate::context::LogLevel;
use crate::session::Session;

/// Installs the default `tracing` subscriber: records to stderr (at `info` and above unless
/// `RUST_LOG` says otherwise), and [`client_log_layer`] so that `tracing` events inside a
/// handler also reach the client. Call it once at the start of `main`; it does nothing if a
/// subscriber is already installed.
pub fn init_stderr_logging() {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let stderr = tracing_subscriber::fmt::layer().with_writer(std::io::stderr).with_ansi(false).with_filter(filter);
    let _ = tracing_subscriber::registry().with(stderr).with(client_log_layer()).try_init();
}

/// A `tracing` layer that forwards events emitted while a tool handler runs to that call's
/// client as `notifications/message` (`logger` = the event's target), at or above the
/// session's level. Add it to your own subscriber if you do not use
/// [`init_stderr_logging`]. Outside a handler it is disabled and costs one thread-local read.
pub fn client_log_layer<S>() -> impl Layer<S> + Send + Sync + 'static
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    ClientLog.with_filter(tracing_subscriber::filter::filter_fn(|meta| {
        !meta.target().starts_with("mcp_runtime") && CURRENT.with(|c| c.borrow().is_some())
    }))
}

struct ClientLog;

impl<S: tracing::Subscriber> Layer<S> for ClientLog {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: tracing_subscriber::layer::Context<'_, S>) {
        let Some(session) = CURRENT.with(|c| c.borrow().clone()) else { return };
        let level = match *event.metadata().level() {
            tracing::Level::ERROR => LogLevel::Error,
            tracing::Level::WARN => LogLevel::Warning,
            tracing::Level::INFO => LogLevel::Info,
            tracing::Level::DEBUG | tracing::Level::TRACE => LogLevel::Debug,
        };
        if !session.wants(level) {
            return;
        }
        let mut fields = Fields::default();
        event.record(&mut fields);
        let data = if fields.rest.is_empty() {
            Value::String(fields.message)
        } else {
            let mut map = Map::new();
            map.insert("message".into(), Value::String(fields.message));
            map.extend(fields.rest);
            Value::Object(map)
        };
        session.log_to_client(level, event.metadata().target(), data);
    }
}

#[derive(Default)]
struct Fields {
    message: String,
    rest: Map<String, Value>,
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message.push_str(value);
        } else {
            self.rest.insert(field.name().into(), Value::from(value));
        }
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.rest.insert(field.name().into(), Value::from(value));
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.rest.insert(field.name().into(), Value::from(value));
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        self.rest.insert(field.name().into(), Value::from(value));
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.rest.insert(field.name().into(), Value::from(value));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.message, "{value:?}");
        } else {
            self.rest.insert(field.name().into(), Value::from(format!("{value:?}")));
        }
    }
}

thread_local! {
    /// The session of the handler being polled on this thread, if any.
    static CURRENT: RefCell<Option<Arc<Session>>> = const { RefCell::new(None) };
}

/// Marks the session as current while the handler future is polled, so that the layer
/// knows where a `tracing` event inside the handler belongs.
pub(crate) struct InCall<F> {
    pub(crate) session: Arc<Session>,
    pub(crate) inner: F,
}

impl<F: Future + Unpin> Future for InCall<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = &mut *self;
        let previous = CURRENT.with(|c| c.replace(Some(Arc::clone(&this.session))));
        let _restore = Restore(previous);
        Pin::new(&mut this.inner).poll(cx)
    }
}

struct Restore(Option<Arc<Session>>);

impl Drop for Restore {
    fn drop(&mut self) {
        let previous = self.0.take();
        CURRENT.with(|c| *c.borrow_mut() = previous);
    }
}

/// The stderr copy of a record a handler sent to the client (the call's span adds the
/// request id).
pub(crate) fn stderr_record(level: LogLevel, tool: &str, data: &Value) {
    macro_rules! record {
        ($level:expr) => {
            tracing::event!(target: "mcp_runtime::client_log", $level, logger = tool, mcp_level = ?level, "{}", data)
        };
    }
    match level {
        LogLevel::Debug => record!(tracing::Level::DEBUG),
        LogLevel::Info | LogLevel::Notice => record!(tracing::Level::INFO),
        LogLevel::Warning => record!(tracing::Level::WARN),
        LogLevel::Error | LogLevel::Critical | LogLevel::Alert | LogLevel::Emergency => record!(tracing::Level::ERROR),
    }
}
