//! The server's options and limits, with their defaults: one value shared by both
//! transports, set through the builder.

use std::time::Duration;

/// Server options with their defaults.
#[derive(Clone, Debug)]
#[allow(clippy::struct_excessive_bools)] // independent settings, not states
pub(crate) struct Options {
    pub(crate) page_size: Option<usize>,
    pub(crate) max_line_bytes: usize,
    pub(crate) max_in_flight: usize,
    /// The most tasks one `subscriptions/listen` may follow (`notifications.taskIds`).
    pub(crate) max_listen_tasks: usize,
    /// The most resources one `subscriptions/listen` may subscribe to
    /// (`notifications.resourceSubscriptions`).
    pub(crate) max_listen_subscriptions: usize,
    /// The most bytes the URIs of one `subscriptions/listen` may add up to.
    pub(crate) max_listen_subscription_bytes: usize,
    pub(crate) max_queued_bytes: usize,
    pub(crate) eof_grace: Duration,
    pub(crate) flush_grace: Duration,
    pub(crate) cancel_grace: Duration,
    /// Characters a span records of a value a client chose.
    pub(crate) span_value_chars: usize,
    /// How long the last export of spans and metrics may take when the server stops serving.
    pub(crate) otel_flush_grace: Duration,
    /// Bytes the spans waiting for export may hold (the process's queue), when set.
    #[cfg(feature = "otel")]
    pub(crate) otel_queue_bytes: Option<usize>,
    /// How long the legacy shim waits for each answer (progress restarts it).
    pub(crate) ask_timeout: Duration,
    pub(crate) default_timeout: Option<Duration>,
    pub(crate) strict_resolution: bool,
    pub(crate) structured_errors: bool,
    /// Bytes of a plain error's cause chain sent in its message (0: none).
    pub(crate) error_causes: usize,
    /// `ttlMs` and `cacheScope` of modern list results.
    pub(crate) cache_ttl_ms: u64,
    pub(crate) cache_scope: CacheScope,
    /// `tools/list` leaves out the tools whose scopes the caller lacks.
    pub(crate) hide_unauthorized_tools: bool,
    /// The caller of requests that arrive where no authorization is configured (marked
    /// local).
    pub(crate) local_principal: std::sync::Arc<crate::auth::principal::Principal>,
    /// Unredeemed consent records one caller may hold.
    pub(crate) consents_per_caller: usize,
    /// `tools/list` carries each tool's declared failure modes in its `_meta`
    /// ([`FAILURES_META_KEY`](crate::FAILURES_META_KEY)).
    pub(crate) list_failures: bool,
    /// The draft failure standards the server speaks (`tool_failure_meta`,
    /// `rate_limited_code`).
    pub(crate) drafts: crate::rpc::envelope::Drafts,
    /// Arguments that fail the input schema are repaired when they then validate
    /// (`ServerBuilder::repair_inputs`).
    pub(crate) repair_inputs: bool,
    /// How `#[tool(task = ..)]` tools' tasks behave.
    pub(crate) tasks: crate::tasks::Settings,
    pub(crate) http: HttpOptions,
}

impl Options {
    /// The local principal of a request that came over HTTP (`http`) or not: none over HTTP
    /// with authorization configured (every request there carries a token's principal).
    #[cfg_attr(not(feature = "http"), allow(clippy::unnecessary_wraps))] // `None` over HTTP
    pub(crate) fn local_principal(&self, http: bool) -> Option<std::sync::Arc<crate::auth::principal::Principal>> {
        #[cfg(feature = "http")]
        if http && self.http.authorization.is_some() {
            return None;
        }
        let _ = http;
        Some(std::sync::Arc::clone(&self.local_principal))
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            page_size: None,
            max_line_bytes: 4 * 1024 * 1024,
            max_in_flight: 4096,
            max_listen_tasks: 256,
            max_listen_subscriptions: 256,
            max_listen_subscription_bytes: 64 * 1024,
            max_queued_bytes: 4 * 1024 * 1024,
            eof_grace: Duration::from_secs(2),
            flush_grace: Duration::from_secs(2),
            cancel_grace: Duration::from_millis(250),
            span_value_chars: 1024,
            otel_flush_grace: Duration::from_secs(2),
            #[cfg(feature = "otel")]
            otel_queue_bytes: None,
            ask_timeout: Duration::from_secs(600),
            default_timeout: None,
            strict_resolution: false,
            structured_errors: false,
            error_causes: 0,
            cache_ttl_ms: 0,
            cache_scope: CacheScope::Private,
            hide_unauthorized_tools: false,
            local_principal: std::sync::Arc::new(crate::auth::principal::Principal::local()),
            consents_per_caller: crate::state::store::DEFAULT_CONSENTS_PER_CALLER,
            list_failures: true,
            drafts: crate::rpc::envelope::Drafts::default(),
            repair_inputs: true,
            tasks: crate::tasks::Settings::default(),
            http: HttpOptions::default(),
        }
    }
}

/// Streamable HTTP settings, part of the server's options.
#[derive(Clone, Debug, Default)]
pub(crate) struct HttpOptions {
    pub(crate) stateless: bool,
    /// Without sessions, a tool that asks fails `build()` instead of a warning.
    pub(crate) deny_stateless_asks: bool,
    /// What only the HTTP transport reads: its checks and limits.
    #[cfg(feature = "http")]
    pub(crate) limits: Limits,
    /// Bearer tokens required, and the protected resource metadata served.
    #[cfg(feature = "http")]
    pub(crate) authorization: Option<crate::auth::bearer::Authorization>,
}

/// The HTTP transport's checks and limits (`ServerBuilder::allowed_hosts` and the rest of
/// `transport/http/settings.rs`), read by the HTTP transport only.
#[cfg(feature = "http")]
#[derive(Clone, Debug)]
pub(crate) struct Limits {
    /// Accepted `Host` names (any port); loopback by default.
    pub(crate) allowed_hosts: Vec<String>,
    /// Accepted `Origin`s (`scheme://host[:port]`, or a host name for any scheme and port);
    /// when empty, an `Origin` is accepted when its host is an allowed host.
    pub(crate) allowed_origins: Vec<String>,
    pub(crate) max_body_bytes: usize,
    pub(crate) session_idle: Duration,
    pub(crate) max_sessions: usize,
    /// Sessions one client may hold (by principal, or by address when unauthenticated).
    pub(crate) max_sessions_per_client: usize,
    /// How long a connection may take to send a request's headers (and may sit idle between
    /// requests).
    pub(crate) header_timeout: Duration,
    /// How long a request's body may take to arrive.
    pub(crate) body_timeout: Duration,
    /// Connections open at once; past it, new ones wait in the listen backlog.
    pub(crate) max_connections: usize,
    /// Request bodies being read at once; past it, a request waits (within its body timeout).
    pub(crate) max_bodies: usize,
    /// `subscriptions/listen` streams open at once (they take no call slot).
    pub(crate) max_listens: usize,
    /// Bytes of sent SSE events kept for replay per stream, and in the whole process.
    pub(crate) replay_bytes_per_stream: usize,
    pub(crate) replay_bytes_total: usize,
    /// Notifications waiting for a session whose standalone stream is not open.
    pub(crate) max_detached_notifications: usize,
    /// The `retry` an SSE stream announces, in milliseconds.
    pub(crate) retry_ms: u64,
    pub(crate) shutdown_grace: Duration,
    /// After SIGTERM, how long the server goes on serving (readiness 503, every response
    /// `Connection: close`) before it stops accepting.
    pub(crate) drain_delay: Duration,
    /// The liveness and readiness probes' paths.
    pub(crate) live_path: String,
    pub(crate) ready_path: String,
}

#[cfg(feature = "http")]
impl Default for Limits {
    fn default() -> Self {
        Limits {
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "::1".into()],
            allowed_origins: Vec::new(),
            max_body_bytes: 4 * 1024 * 1024,
            session_idle: Duration::from_secs(30 * 60),
            max_sessions: 10_000,
            max_sessions_per_client: 100,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            max_connections: 1024,
            max_bodies: 64,
            max_listens: 1024,
            replay_bytes_per_stream: 1024 * 1024,
            replay_bytes_total: 16 * 1024 * 1024,
            max_detached_notifications: 256,
            retry_ms: 1000,
            shutdown_grace: Duration::from_secs(10),
            drain_delay: Duration::from_secs(5),
            live_path: "/healthz".into(),
            ready_path: "/readyz".into(),
        }
    }
}

/// Who may cache a list result (`cacheScope`, 2026-07-28).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// Only this caller: the default, and the only choice for lists that vary by caller.
    Private,
    /// Any caller: the result is the same for everyone.
    Public,
}
