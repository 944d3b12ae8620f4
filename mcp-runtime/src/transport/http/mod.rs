//! Streamable HTTP (MCP 2025-11-25 and 2026-07-28): one endpoint. POST carries one client
//! message; a request is answered `application/json`, or `text/event-stream` when
//! notifications (or a paused stream) come before its answer; a notification or response gets
//! 202. With sessions, `initialize` mints an `Mcp-Session-Id`, GET opens the session's
//! standalone stream or resumes a request's stream (`Last-Event-ID`), DELETE ends the
//! session. Without sessions (stateless), every POST stands alone and GET/DELETE are 405.
//! A 2026-07-28 request belongs to no session: its stream is not resumable, and closing it
//! cancels the call. So does closing the stream of any request without sessions (a 2025
//! request to a stateless server).
//!
//! The transport moves messages and knows nothing of tools: each POST gets a view of its
//! session whose outbox is that POST's response, and the session does the rest, as on stdio.
//! The principal the token check found rides in the request's extensions; a session belongs
//! to the principal that opened it.
//!
//! The ladder, in order: Host/Origin (403), the bearer token when the server has
//! `Authorization` (`auth`: 401 with a `WWW-Authenticate` challenge; 403 for scopes every
//! request needs), method (405; GET/DELETE with a 2026-07-28 version header too), `Accept` (406), `Content-Type` (415), body size (413), JSON (400, -32700),
//! JSON-RPC shape (400, -32600), then by era. 2026-07-28 (the body's `_meta` claim): version
//! header vs body and `Mcp-Method`/`Mcp-Name` vs body (400, -32020), malformed envelope (400,
//! -32602), unsupported version (400, -32022); past it, -32601 is 404 and -32021 is 400.
//! 2025: session (400 missing, 404 unknown), `MCP-Protocol-Version` (400). Everything else,
//! handler-level failures included, is 200.

mod settings;

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, Request};
use axum::response::Response;
use http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use serde_json::value::RawValue;

use crate::auth::bearer::Refused;
use crate::auth::principal::{self, Principal};
use crate::context::ctx::CancelState;
use crate::protocol::session::{Admit, Next, Seen, Session, State};
use crate::rpc::channel::{Channel, peer_of};
use crate::rpc::era::{self, Era, LEGACY_VERSIONS, MODERN_VERSIONS};
use crate::rpc::jsonrpc::{self, Incoming, RpcError};
use crate::rpc::outbox::{Kind, Outbox};
use crate::server::{Error, Server, Shared};

const SESSION_HEADER: &str = "mcp-session-id";
const VERSION_HEADER: &str = "mcp-protocol-version";
const LAST_EVENT_HEADER: &str = "last-event-id";
const METHOD_HEADER: &str = "mcp-method";
const NAME_HEADER: &str = "mcp-name";
/// Events kept per request stream for a client that resumes it.
const REPLAY_EVENTS: usize = 256;
/// Request streams kept for resumption per session, at most.
const MAX_STREAMS: usize = 1024;
/// How long a request stream stays resumable after its call ended.
const STREAM_RETENTION: Duration = Duration::from_secs(300);
/// A comment on idle standalone streams, so that proxies do not cut them.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The session a POST belongs to (none without sessions), and the id of one just minted.
type Found = (Option<Arc<HttpSession>>, Option<String>);

/// The endpoint's state: the server, the live sessions, and the shutdown signal.
struct Endpoint {
    shared: Arc<Shared>,
    sessions: Mutex<HashMap<Box<str>, Arc<HttpSession>>>,
    /// Set when the server stops: standalone streams end.
    stopping: tokio::sync::watch::Sender<bool>,
    /// Started with the first request: ends idle sessions, and itself once the endpoint is gone.
    reaper: std::sync::Once,
    /// Calls running at once, at most `max_in_flight`; past it a call is refused
    /// (`server_busy`, retryable).
    calls: Arc<tokio::sync::Semaphore>,
    /// Listen streams open at once, at most `max_listens`: they take no call slot.
    listens: Arc<tokio::sync::Semaphore>,
    /// Request bodies being read at once.
    bodies: tokio::sync::Semaphore,
    /// Bytes of sent SSE events kept for replay, over every session.
    replay: Arc<AtomicUsize>,
    /// When each source of refused requests was last logged: one WARN a minute each.
    warned: Mutex<HashMap<String, Instant>>,
}

/// A session over HTTP: its state, and its request streams kept for resumption.
struct HttpSession {
    /// The binding of the principal that opened it (`principal::binding`): a request of
    /// another principal does not find it.
    owner: String,
    /// Who holds it, for the cap on sessions per client: the principal, or the address of an
    /// unauthenticated caller.
    client: Box<str>,
    state: Arc<State>,
    /// Messages outside any request (resource updates), read by the standalone stream.
    standalone: Arc<Outbox>,
    last_used: Mutex<Instant>,
    streams: Mutex<HashMap<u64, Arc<StreamLog>>>,
    next_stream: AtomicU64,
    /// Times the session for `mcp.server.session.duration`, until it is dropped.
    clock: Option<crate::observe::SessionClock>,
}

impl Drop for HttpSession {
    fn drop(&mut self) {
        if let Some(clock) = self.clock.take() {
            clock.end(self.state.protocol_version());
        }
    }
}

/// One request's stream: its outbox, and the events already sent, for a client that
/// resumes it. Ids are `<stream>-<seq>`; `<stream>-0` is the priming event.
///
/// Whichever attachment reads moves the outbox's lines into `events` under its lock, and every
/// attachment reads `events` from its own position: a line is never lost between a dropped
/// connection and the one that resumes it.
struct StreamLog {
    id: u64,
    outbox: Arc<Outbox>,
    events: Mutex<Events>,
    /// Bumped when a client attaches: an older attachment stops reading.
    generation: AtomicU64,
}

/// A stream's events, the last [`REPLAY_EVENTS`] of them, within the replay budgets once sent.
struct Events {
    kept: VecDeque<Event>,
    next_seq: u64,
    /// When the call was answered (or ended unanswered): the stream is complete.
    ended: Option<Instant>,
    /// Bytes of `kept`, counted in the endpoint's total too (given back on drop).
    bytes: usize,
    total: Arc<AtomicUsize>,
}

impl Drop for Events {
    fn drop(&mut self) {
        self.total.fetch_sub(self.bytes, Ordering::Relaxed);
    }
}

struct Event {
    seq: u64,
    /// Empty for the end of an unanswered call.
    bytes: Bytes,
    /// The answer, or the end of an unanswered call: nothing follows.
    last: bool,
}

impl Server {
    /// The Streamable HTTP endpoint as an axum `Router` with one route, `/`: mount it where
    /// you like (`Router::new().nest("/mcp", server.http_router())`), with your middleware
    /// in front. The server's HTTP settings ([`ServerBuilder::stateless_http`](crate::ServerBuilder::stateless_http), allowed
    /// hosts and origins, limits) apply.
    pub fn http_router(&self) -> axum::Router {
        Self::router_with(Arc::new(self.endpoint()))
    }

    /// The routes a client discovers the server's authorization with: the protected resource
    /// metadata (RFC 9728) at `/.well-known/oauth-protected-resource` and at the same path
    /// suffixed with the resource's (`/.well-known/oauth-protected-resource/mcp`). Merge it
    /// at the root of your app beside [`Server::http_router`]:
    /// `Router::new().nest("/mcp", server.http_router()).merge(server.well_known_router())`.
    /// Empty without [`ServerBuilder::authorization`](crate::ServerBuilder::authorization).
    pub fn well_known_router(&self) -> axum::Router {
        let mut router = axum::Router::new();
        let Some(auth) = &self.shared.options.http.authorization else { return router };
        let document = Bytes::from(auth.metadata().to_string());
        for path in auth.metadata_paths() {
            let document = document.clone();
            router = router.route(
                &path,
                axum::routing::get(move || {
                    let document = document.clone();
                    async move {
                        let mut response = Response::new(Body::from(document));
                        let headers = response.headers_mut();
                        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
                        // Browser-based clients read it from another origin.
                        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
                        response
                    }
                }),
            );
        }
        router
    }

    fn endpoint(&self) -> Endpoint {
        self.shared.stores.sealer.warn_once_if_ephemeral();
        Endpoint {
            shared: Arc::clone(&self.shared),
            sessions: Mutex::new(HashMap::new()),
            stopping: tokio::sync::watch::channel(false).0,
            reaper: std::sync::Once::new(),
            calls: Arc::new(tokio::sync::Semaphore::new(self.shared.options.max_in_flight)),
            listens: Arc::new(tokio::sync::Semaphore::new(self.shared.options.http.max_listens)),
            bodies: tokio::sync::Semaphore::new(self.shared.options.http.max_bodies),
            replay: Arc::new(AtomicUsize::new(0)),
            warned: Mutex::new(HashMap::new()),
        }
    }

    fn router_with(endpoint: Arc<Endpoint>) -> axum::Router {
        axum::Router::new().route(
            "/",
            axum::routing::any(move |request: Request| {
                let endpoint = Arc::clone(&endpoint);
                async move { endpoint.handle(request).await }
            }),
        )
    }

    /// Serves Streamable HTTP at `http://<addr>/mcp` until SIGINT or SIGTERM. Then it stops
    /// accepting, lets requests in progress finish within the shutdown grace, and returns.
    pub async fn serve_http(self, addr: impl tokio::net::ToSocketAddrs) -> Result<(), Error> {
        self.serve_http_with(addr, |mcp| mcp).await
    }

    /// Serves Streamable HTTP at `http://<addr>/mcp` as [`Server::serve_http`] does, with
    /// `wrap` applied to the MCP route first: your middleware in front of it (your own
    /// authentication inserting a [`Principal`], a request log), served with the server's
    /// connection limits and timeouts.
    ///
    /// ```no_run
    /// # async fn run(server: mcp_runtime::Server) -> Result<(), mcp_runtime::Error> {
    /// use axum::middleware::{self, Next};
    /// use mcp_runtime::Principal;
    ///
    /// async fn who(mut request: axum::extract::Request, next: Next) -> axum::response::Response {
    ///     // Your check of the caller goes here.
    ///     request.extensions_mut().insert(Principal::new("user-42").with_scopes(["notes:read"]));
    ///     next.run(request).await
    /// }
    /// server.serve_http_with("127.0.0.1:8080", |mcp| mcp.layer(middleware::from_fn(who))).await
    /// # }
    /// ```
    pub async fn serve_http_with(
        self,
        addr: impl tokio::net::ToSocketAddrs,
        wrap: impl FnOnce(axum::Router) -> axum::Router,
    ) -> Result<(), Error> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        tracing::info!(target: "mcp_runtime::http", address = %listener.local_addr()?, stateless = self.shared.options.http.stateless, "serving MCP over HTTP at /mcp");
        self.serve_listener(listener, crate::transport::shutdown_signal(), wrap).await
    }

    /// Serves Streamable HTTP at `/mcp` on a bound listener until `shutdown` resolves, then
    /// as [`Server::serve_http`].
    pub async fn serve_http_on(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<(), Error> {
        self.serve_listener(listener, shutdown, |mcp| mcp).await
    }

    /// The accept loop: each connection gets the header timeout (and as long between its
    /// requests), at most `max_connections` are open at once (further ones wait in the
    /// listen backlog), and each request carries the peer's address (`ConnectInfo`).
    async fn serve_listener(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
        wrap: impl FnOnce(axum::Router) -> axum::Router,
    ) -> Result<(), Error> {
        let endpoint = Arc::new(self.endpoint());
        let app = axum::Router::new()
            .nest("/mcp", wrap(Self::router_with(Arc::clone(&endpoint))))
            .merge(self.well_known_router());
        let options = &self.shared.options.http;
        let open = Arc::new(tokio::sync::Semaphore::new(options.max_connections));
        let graceful = hyper_util::server::graceful::GracefulShutdown::new();
        let mut http1 = hyper::server::conn::http1::Builder::new();
        http1.timer(hyper_util::rt::TokioTimer::new()).header_read_timeout(options.header_timeout);
        tokio::pin!(shutdown);
        let mut last_error: Option<Instant> = None;
        loop {
            let permit = tokio::select! {
                permit = Arc::clone(&open).acquire_owned() => permit,
                () = &mut shutdown => break,
            };
            let Ok(permit) = permit else { break };
            let (stream, peer) = tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok(accepted) => accepted,
                    Err(e) => {
                        // Out of file descriptors, most often: wait for some to close.
                        if last_error.is_none_or(|at| at.elapsed() > Duration::from_secs(60)) {
                            tracing::warn!(target: "mcp_runtime::http", error = %e, "accepting a connection failed; retrying (lower ServerBuilder::max_connections below the file limit)");
                            last_error = Some(Instant::now());
                        }
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                },
                () = &mut shutdown => break,
            };
            let _ = stream.set_nodelay(true);
            let app = app.clone();
            let service = hyper::service::service_fn(move |mut request: http::Request<hyper::body::Incoming>| {
                request.extensions_mut().insert(ConnectInfo(peer));
                let mut app = app.clone();
                async move { tower_service::Service::call(&mut app, request).await }
            });
            let connection = graceful.watch(http1.serve_connection(hyper_util::rt::TokioIo::new(stream), service));
            tokio::spawn(async move {
                let _permit = permit;
                if let Err(e) = connection.await {
                    tracing::debug!(target: "mcp_runtime::http", error = %e, %peer, "connection ended with an error");
                }
            });
        }
        drop(listener);
        tracing::info!(target: "mcp_runtime::http", "shutting down: no new connections; requests in progress may finish");
        endpoint.stopping.send_replace(true);
        let grace = options.shutdown_grace;
        tokio::select! {
            () = graceful.shutdown() => {}
            () = tokio::time::sleep(grace) => {
                tracing::warn!(target: "mcp_runtime::http", ?grace, "shutdown grace over; closing the connections left");
            }
        }
        // Sessions still open end with the server: their durations are recorded, then flushed.
        endpoint.sessions().clear();
        crate::transport::flush_telemetry().await;
        Ok(())
    }
}

/// Ends sessions idle past the limit (checked twice per idle period, at most once a minute),
/// and lets go of request streams complete for longer than their retention.
async fn reap(endpoint: std::sync::Weak<Endpoint>) {
    loop {
        let idle = match endpoint.upgrade() {
            Some(endpoint) => endpoint.shared.options.http.session_idle,
            None => return,
        };
        tokio::time::sleep((idle / 2).clamp(Duration::from_millis(50), Duration::from_secs(60))).await;
        let Some(endpoint) = endpoint.upgrade() else { return };
        let mut ended = Vec::new();
        {
            let mut sessions = endpoint.sessions();
            sessions.retain(|_, s| {
                let keep = s.idle_for() < idle || s.busy();
                if keep {
                    s.prune_streams();
                } else {
                    ended.push(Arc::clone(s));
                }
                keep
            });
        }
        if !ended.is_empty() {
            tracing::debug!(target: "mcp_runtime::http", ended = ended.len(), "idle sessions ended");
        }
        // Dropped outside the lock: their buffers are freed here.
        for session in ended {
            session.end();
        }
    }
}

impl HttpSession {
    fn new(owner: String, client: Box<str>, shared: &Shared) -> Self {
        let standalone = Arc::new(Outbox::coalescing(shared.options.http.max_detached_notifications));
        HttpSession {
            clock: Some(shared.observer.session(crate::rpc::channel::Transport::Http)),
            owner,
            client,
            state: Arc::new(State::with_standalone(Arc::clone(&standalone))),
            standalone,
            last_used: Mutex::new(Instant::now()),
            streams: Mutex::new(HashMap::new()),
            next_stream: AtomicU64::new(1),
        }
    }

    fn touch(&self) {
        *lock(&self.last_used) = Instant::now();
    }

    fn idle_for(&self) -> Duration {
        lock(&self.last_used).elapsed()
    }

    /// A new request stream whose first event is the priming one (an id to resume from, and
    /// how long to wait first); streams complete for longer than the retention are dropped.
    fn open_stream(&self, outbox: Arc<Outbox>, endpoint: &Endpoint) -> Arc<StreamLog> {
        let id = self.next_stream.fetch_add(1, Ordering::Relaxed);
        let retry_ms = endpoint.shared.options.http.retry_ms;
        let priming =
            Event { seq: 0, bytes: Bytes::from(format!("id: {id}-0\nretry: {retry_ms}\ndata: \n\n")), last: false };
        let total = Arc::clone(&endpoint.replay);
        total.fetch_add(priming.bytes.len(), Ordering::Relaxed);
        let events =
            Events { bytes: priming.bytes.len(), kept: VecDeque::from([priming]), next_seq: 1, ended: None, total };
        let log = Arc::new(StreamLog { id, outbox, events: Mutex::new(events), generation: AtomicU64::new(0) });
        self.prune_streams();
        let mut streams = lock(&self.streams);
        if streams.len() >= MAX_STREAMS {
            // The oldest goes: ids grow, so it has the smallest.
            if let Some(oldest) = streams.keys().min().copied() {
                streams.remove(&oldest);
            }
        }
        streams.insert(id, Arc::clone(&log));
        log
    }

    /// Drops the request streams complete for longer than the retention, read or not.
    fn prune_streams(&self) {
        lock(&self.streams).retain(|_, s| s.outbox.finished().is_none_or(|at| at.elapsed() < STREAM_RETENTION));
    }

    /// Whether a request of this session runs or waits (its answer is not queued yet); an
    /// answer no one reads does not keep it busy.
    fn busy(&self) -> bool {
        self.state.running()
    }

    /// The session ended (DELETE, idle, evicted): its calls are cancelled, its streams let go.
    fn end(&self) {
        self.state.cancel_all();
        lock(&self.streams).clear();
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The key of the session used least recently among those that run no request (of `client`
/// only, when given); `None` when each runs one.
fn least_recently_used(sessions: &HashMap<Box<str>, Arc<HttpSession>>, client: Option<&str>) -> Option<Box<str>> {
    sessions
        .iter()
        .filter(|(_, s)| client.is_none_or(|c| *s.client == *c) && !s.busy())
        .max_by_key(|(_, s)| s.idle_for())
        .map(|(key, _)| key.clone())
}

/// 400 for an `MCP-Protocol-Version` this server does not speak, naming those it does.
fn unsupported_version(id: Option<&RawValue>, version: &str) -> Response {
    refuse(
        StatusCode::BAD_REQUEST,
        id,
        -32600,
        &format!(
            "Bad request: unsupported MCP-Protocol-Version {version:?}; supported: {}",
            LEGACY_VERSIONS.iter().chain(&MODERN_VERSIONS).copied().collect::<Vec<_>>().join(", ")
        ),
    )
}

/// An HTTP error response: status, and a JSON-RPC error body with the request's id, or
/// without an `id` member when the refusal answers no JSON-RPC request (a method, a header,
/// a body never read: MCP's schema makes `id` optional on errors, never `null`).
fn refuse(status: StatusCode, id: Option<&RawValue>, code: i32, message: &str) -> Response {
    let error = RpcError { code, message: message.to_owned(), data: None };
    refuse_with(status, id, &error)
}

/// A body that is not JSON, or JSON-RPC whose id could not be read: `id: null`, as JSON-RPC
/// 2.0 requires of such an answer.
fn refuse_unreadable(code: i32, message: &str) -> Response {
    let mut body = jsonrpc::failure(None, code, message);
    body.pop();
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = StatusCode::BAD_REQUEST;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

fn status_only(status: StatusCode) -> Response {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = status;
    response
}

fn method_not_allowed(allow: &'static str) -> Response {
    let mut response = refuse(StatusCode::METHOD_NOT_ALLOWED, None, -32000, "Method not allowed");
    response.headers_mut().insert(header::ALLOW, HeaderValue::from_static(allow));
    response
}

fn header_str<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// The host of a `Host` value or an authority: `[::1]:8080` → `::1`, `Example.com:1` →
/// `example.com`. `None` when it is not one: an IPv6 host is `[v6]` or `[v6]:port`, nothing
/// else after the bracket.
fn host_of(authority: &str) -> Option<String> {
    let is_port = |port: &str| port.bytes().all(|b| b.is_ascii_digit());
    let host = if let Some(rest) = authority.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        if !(after.is_empty() || after.strip_prefix(':').is_some_and(is_port)) {
            return None;
        }
        host
    } else {
        authority.rsplit_once(':').map_or(authority, |(h, port)| if is_port(port) { h } else { authority })
    };
    Some(host.to_ascii_lowercase())
}

impl Endpoint {
    fn sessions(&self) -> std::sync::MutexGuard<'_, HashMap<Box<str>, Arc<HttpSession>>> {
        lock(&self.sessions)
    }

    async fn handle(self: Arc<Self>, request: Request) -> Response {
        self.reaper.call_once(|| {
            tokio::spawn(reap(Arc::downgrade(&self)));
        });
        let options = &self.shared.options.http;
        if let Some(refused) = self.check_origin(&request) {
            return refused;
        }
        if matches!(*request.method(), Method::GET | Method::DELETE)
            && let Some(version) = header_str(request.headers(), VERSION_HEADER)
            && !LEGACY_VERSIONS.contains(&version)
            && !MODERN_VERSIONS.contains(&version)
        {
            return unsupported_version(None, version);
        }
        let mut request = request;
        if let Some(auth) = &options.authorization {
            match auth.authenticate(request.headers().get(header::AUTHORIZATION)).await {
                Ok(principal) => {
                    request.extensions_mut().insert(principal);
                }
                Err(refused) => return unauthorized(auth, &refused),
            }
        }
        let modern = header_str(request.headers(), VERSION_HEADER).is_some_and(|v| MODERN_VERSIONS.contains(&v));
        match *request.method() {
            Method::POST => self.post(request).await,
            // 2026-07-28 has no sessions and no standalone stream: POST only.
            Method::GET | Method::DELETE if options.stateless || modern => method_not_allowed("POST"),
            Method::GET => self.get(&request),
            Method::DELETE => self.delete(&request),
            _ => method_not_allowed(if options.stateless { "POST" } else { "GET, POST, DELETE" }),
        }
    }

    /// DNS rebinding: `Host` (or the URI's authority) and `Origin` must be allowed.
    fn check_origin(&self, request: &Request) -> Option<Response> {
        let options = &self.shared.options.http;
        let headers = request.headers();
        let authority = header_str(headers, header::HOST.as_str())
            .map(str::to_owned)
            .or_else(|| request.uri().authority().map(|a| a.as_str().to_owned()));
        let host_ok = |host: Option<String>| {
            host.is_some_and(|host| options.allowed_hosts.iter().any(|h| h.eq_ignore_ascii_case(&host) || h == "*"))
        };
        let Some(authority) = authority else {
            return Some(refuse(StatusCode::BAD_REQUEST, None, -32600, "Bad request: no Host header"));
        };
        if !host_ok(host_of(&authority)) {
            if self.first_warning(request, &authority) {
                tracing::warn!(target: "mcp_runtime::http", host = %authority, "refused a request for a host that is not allowed (DNS rebinding protection); allow it with ServerBuilder::allowed_hosts (further refusals from this source are not logged for a minute)");
            }
            return Some(refuse(StatusCode::FORBIDDEN, None, -32600, "Forbidden: Host not allowed"));
        }
        if let Some(origin) = header_str(headers, header::ORIGIN.as_str()) {
            let origin_host = origin.split_once("://").map(|(_, rest)| host_of(rest.split('/').next().unwrap_or(rest)));
            let allowed = if options.allowed_origins.is_empty() {
                origin_host.is_some_and(host_ok)
            } else {
                options.allowed_origins.iter().any(|o| {
                    o.eq_ignore_ascii_case(origin)
                        || (!o.contains("://")
                            && origin_host
                                .as_ref()
                                .is_some_and(|h| h.as_deref().is_some_and(|h| h.eq_ignore_ascii_case(o))))
                })
            };
            if !allowed {
                if self.first_warning(request, origin) {
                    tracing::warn!(target: "mcp_runtime::http",
                        origin,
                        "refused a request from an origin that is not allowed; allow it with ServerBuilder::allowed_origins (further refusals from this source are not logged for a minute)"
                    );
                }
                return Some(refuse(StatusCode::FORBIDDEN, None, -32600, "Forbidden: Origin not allowed"));
            }
        }
        None
    }

    /// Whether a refusal from this source (the caller's address, else the refused value) is
    /// the first in a minute: a client cannot flood the log.
    fn first_warning(&self, request: &Request, value: &str) -> bool {
        const QUIET: Duration = Duration::from_secs(60);
        let source = match request.extensions().get::<ConnectInfo<SocketAddr>>() {
            Some(ConnectInfo(addr)) => addr.ip().to_string(),
            None => value.chars().take(256).collect(),
        };
        let now = Instant::now();
        let mut warned = lock(&self.warned);
        if warned.len() >= 4096 {
            warned.retain(|_, at| now.duration_since(*at) < QUIET);
        }
        match warned.get(&source) {
            Some(at) if now.duration_since(*at) < QUIET => false,
            // Full of sources seen within the minute: log no more of them until it passes.
            None if warned.len() >= 4096 => false,
            _ => {
                warned.insert(source, now);
                true
            }
        }
    }

    async fn post(self: Arc<Self>, request: Request) -> Response {
        let options = &self.shared.options.http;
        let (parts, body) = request.into_parts();
        if let Some(refused) = refuse_post_headers(&parts.headers) {
            return refused;
        }
        let bytes = match self.read_body(body).await {
            Ok(bytes) => bytes,
            Err(refused) => return *refused,
        };
        // The ladder's JSON-RPC rungs: what the message is, and its id; then its era.
        let mut listen = false;
        let (id, is_request, initialize, modern) = match jsonrpc::parse(&bytes) {
            Incoming::ParseError => return refuse_unreadable(-32700, "Parse error"),
            Incoming::Invalid { id: None, message } => return refuse_unreadable(-32600, &message),
            Incoming::Invalid { id: Some(id), message } => {
                return refuse(StatusCode::BAD_REQUEST, Some(&id), -32600, &message);
            }
            Incoming::Request { id, method, params } => {
                let modern = match era_of(&parts.headers, &method, params) {
                    Ok(era) => era == Era::Modern,
                    Err(e) => return refuse_with(StatusCode::BAD_REQUEST, Some(id), &e),
                };
                listen = method == "subscriptions/listen";
                (Some(id.to_owned()), true, method == "initialize", modern)
            }
            Incoming::Notification { .. } | Incoming::Response { .. } => {
                let modern = header_str(&parts.headers, VERSION_HEADER).is_some_and(|v| MODERN_VERSIONS.contains(&v));
                (None, false, false, modern)
            }
        };
        if !modern
            && !initialize
            && let Some(version) = header_str(&parts.headers, VERSION_HEADER)
            && !LEGACY_VERSIONS.contains(&version)
        {
            return unsupported_version(id.as_deref(), version);
        }
        // A modern message belongs to no session: an `Mcp-Session-Id` is ignored, none is minted.
        let (session, minted) = if modern {
            (None, None)
        } else {
            match self.session_for(&parts, initialize, id.as_deref()) {
                Ok(found) => found,
                Err(refused) => return *refused,
            }
        };
        if let Some(session) = &session {
            session.touch();
        }
        let state = session.as_ref().map_or_else(|| Arc::new(State::per_request()), |s| Arc::clone(&s.state));
        // The session's id, as minted or as the request names it.
        let session_id: Option<Arc<str>> = session
            .as_ref()
            .and_then(|_| minted.as_deref().or_else(|| header_str(&parts.headers, SESSION_HEADER)))
            .map(Arc::from);
        let outbox = Arc::new(Outbox::default());
        let mut channel = Channel::new(Some(Arc::clone(&outbox)), Some(Arc::new(parts)));
        if let Some(id) = session_id {
            channel = channel.in_session(id);
        }
        let view = Arc::new(Session::new(Arc::clone(&self.shared), state, channel, Some(self.stopping.subscribe())));
        // A listen waits for changes, not for the server: it takes a listen slot, not a call's.
        let slots = if listen { &self.listens } else { &self.calls };
        let slot = Arc::clone(slots).try_acquire_owned().ok();
        let admit = Admit { answer: true, run: slot.is_some(), refuse: true };
        // Closing the response of a request that belongs to no session (a 2026-07-28 one, or
        // any over HTTP without sessions) is its cancellation: nothing else can reach the call
        // (no session to carry `notifications/cancelled`, no stream to resume). This guard goes
        // with the response, and cancels the call when it is dropped before the call ends.
        let mut guard = None;
        if let Next::Call { id, job, cancel } = view.handle(&bytes, admit, Seen::Fresh) {
            if session.is_none() {
                guard = Some(CancelOnDrop(Arc::clone(&cancel)));
            }
            let call = Arc::clone(&view).run_call(id, job, cancel);
            tokio::spawn(async move {
                let _slot = slot;
                call.await;
            });
        }
        // A refused `initialize` (bad params) leaves no session behind.
        let minted = match (minted, &session) {
            (Some(key), Some(session)) if !session.state.is_initialized() => {
                self.sessions().remove(key.as_str());
                None
            }
            (minted, _) => minted,
        };
        let mut response = if is_request {
            let resumable = session.as_deref().filter(|_| !options.stateless);
            answer(outbox, resumable.map(|s| (s, &*self)), modern, guard).await
        } else {
            // A notification or a response: accepted, nothing to answer.
            status_only(StatusCode::ACCEPTED)
        };
        if let Some(id) = minted.and_then(|k| HeaderValue::from_str(&k).ok()) {
            response.headers_mut().insert(SESSION_HEADER, id);
        }
        response
    }

    /// The request's body, read within the body timeout while a body slot is free: 413 past
    /// the size cap, 408 past the timeout (its bytes are freed at once).
    async fn read_body(&self, body: Body) -> Result<Bytes, Box<Response>> {
        let options = &self.shared.options.http;
        let read = async {
            let _turn = self.bodies.acquire().await;
            axum::body::to_bytes(body, options.max_body_bytes).await
        };
        match tokio::time::timeout(options.body_timeout, read).await {
            Ok(Ok(bytes)) => Ok(bytes),
            Ok(Err(_)) => Err(Box::new(refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                None,
                -32600,
                &format!("Payload too large: a message is at most {} bytes", options.max_body_bytes),
            ))),
            Err(_) => Err(Box::new(refuse(
                StatusCode::REQUEST_TIMEOUT,
                None,
                -32600,
                &format!(
                    "Request timeout: the body did not arrive within {} ms; send it whole, then retry",
                    options.body_timeout.as_millis()
                ),
            ))),
        }
    }

    /// The session a POST belongs to: minted by `initialize` (its id to send back), required
    /// afterwards; a throwaway one when stateless.
    fn session_for(
        &self,
        parts: &http::request::Parts,
        initialize: bool,
        id: Option<&RawValue>,
    ) -> Result<Found, Box<Response>> {
        let options = &self.shared.options.http;
        if options.stateless {
            return Ok((None, None));
        }
        let principal = parts.extensions.get::<Principal>();
        if !initialize {
            return Ok((Some(self.session_of(&parts.headers, principal, id)?), None));
        }
        let owner = principal::binding(principal);
        let client: Box<str> = principal::client_key(principal, peer_of(parts)).into();
        let evicted;
        let mut ended = None;
        let session = Arc::new(HttpSession::new(owner, client, &self.shared));
        let key = session_id();
        {
            let mut sessions = self.sessions();
            // One client's sessions make room among themselves; past the cap on all of them,
            // the least recently used goes. A session that runs a request is never ended.
            let mine = sessions.values().filter(|s| s.client == session.client).count();
            evicted = if mine >= options.max_sessions_per_client {
                Some(least_recently_used(&sessions, Some(&session.client)))
            } else if sessions.len() >= options.max_sessions {
                Some(least_recently_used(&sessions, None))
            } else {
                None
            };
            match &evicted {
                Some(None) => {
                    drop(sessions);
                    let per_client = mine >= options.max_sessions_per_client;
                    tracing::warn!(target: "mcp_runtime::http",
                        max = if per_client { options.max_sessions_per_client } else { options.max_sessions },
                        per_client,
                        "refused initialize: every session runs a request"
                    );
                    return Err(Box::new(refuse(
                        StatusCode::SERVICE_UNAVAILABLE,
                        id,
                        -32000,
                        if per_client {
                            "Service unavailable: this client's sessions are all busy; end one (DELETE) or retry later"
                        } else {
                            "Service unavailable: too many live sessions; retry later"
                        },
                    )));
                }
                Some(Some(old)) => ended = sessions.remove(old),
                None => {}
            }
            sessions.insert(key.clone().into(), Arc::clone(&session));
        }
        if let Some(old) = ended {
            old.end();
            tracing::debug!(target: "mcp_runtime::http", client = %old.client, "ended the least recently used idle session to make room");
        }
        Ok((Some(session), Some(key)))
    }

    /// GET: the session's standalone stream, or a request stream resumed after
    /// `Last-Event-ID`.
    fn get(&self, request: &Request) -> Response {
        let headers = request.headers();
        if !header_str(headers, header::ACCEPT.as_str())
            .is_some_and(|a| a.contains("text/event-stream") || a.contains("*/*"))
        {
            return refuse(
                StatusCode::NOT_ACCEPTABLE,
                None,
                -32600,
                "Not acceptable: GET opens an SSE stream; accept text/event-stream",
            );
        }
        let session = match self.session_of(headers, request.extensions().get::<Principal>(), None) {
            Ok(session) => session,
            Err(response) => return *response,
        };
        session.touch();
        if let Some(last) = header_str(headers, LAST_EVENT_HEADER) {
            let Some((stream, next)) = event_id(last) else {
                return refuse(
                    StatusCode::BAD_REQUEST,
                    None,
                    -32600,
                    "Bad request: Last-Event-ID is not an event id of this server (`<stream>-<seq>`, as its events carry)",
                );
            };
            let Some(log) = lock(&session.streams).get(&stream).cloned() else {
                return refuse(StatusCode::NOT_FOUND, None, -32001, "Stream not found: it ended or expired");
            };
            if !log.replayable_from(next) {
                return refuse(
                    StatusCode::NOT_FOUND,
                    None,
                    -32001,
                    "Stream not found: the events after that id are no longer kept (past the replay budget); send the request again",
                );
            }
            return sse(resumable(log, next, self.replay_budget()));
        }
        // The standalone stream: the session's messages outside any request (resource
        // updates it subscribed to), and keep-alive comments; it ends when the session does
        // or the server stops.
        let stopping = self.stopping.subscribe();
        let outbox = Arc::clone(&session.standalone);
        let session = Arc::downgrade(&session);
        let body = futures_util::stream::unfold(false, move |done| {
            let session = session.clone();
            let outbox = Arc::clone(&outbox);
            let mut stopping = stopping.clone();
            async move {
                if done {
                    return None;
                }
                loop {
                    let mut batch = Vec::new();
                    outbox.take(usize::MAX, |line| {
                        if line.kind == Kind::Notification {
                            batch.extend_from_slice(&[b"data: ", trimmed(&line.bytes), b"\n\n"].concat());
                        }
                    });
                    if !batch.is_empty() {
                        return Some((Ok::<_, Infallible>(Bytes::from(batch)), false));
                    }
                    tokio::select! {
                        () = outbox.ready() => continue,
                        () = tokio::time::sleep(KEEP_ALIVE) => {}
                        _ = stopping.wait_for(|s| *s) => return None,
                    }
                    session.upgrade()?;
                    return Some((Ok::<_, Infallible>(Bytes::from_static(b": keep-alive\n\n")), false));
                }
            }
        });
        sse(Body::from_stream(body))
    }

    /// The replay budgets: per stream, and the process's total with what it holds now.
    fn replay_budget(&self) -> Budget {
        let options = &self.shared.options.http;
        Budget { per_stream: options.replay_bytes_per_stream, total: options.replay_bytes_total }
    }

    fn delete(&self, request: &Request) -> Response {
        let Some(key) = header_str(request.headers(), SESSION_HEADER) else {
            return refuse(StatusCode::BAD_REQUEST, None, -32600, "Bad request: Mcp-Session-Id header is required");
        };
        let owner = principal::binding(request.extensions().get::<Principal>());
        let mut sessions = self.sessions();
        let ended = match sessions.get(key) {
            Some(session) if session.owner == owner => sessions.remove(key),
            _ => None,
        };
        drop(sessions);
        match ended {
            Some(session) => {
                // Its calls stop now and give back their slots.
                session.end();
                status_only(StatusCode::OK)
            }
            None => refuse(StatusCode::NOT_FOUND, None, -32001, "Session not found"),
        }
    }

    /// The live session a request names (`Mcp-Session-Id`): missing → 400, unknown or ended
    /// → 404, answered with the request's id when there is one.
    fn session_of(
        &self,
        headers: &HeaderMap,
        principal: Option<&Principal>,
        id: Option<&RawValue>,
    ) -> Result<Arc<HttpSession>, Box<Response>> {
        let Some(key) = header_str(headers, SESSION_HEADER) else {
            return Err(Box::new(refuse(
                StatusCode::BAD_REQUEST,
                id,
                -32600,
                "Bad request: Mcp-Session-Id header is required (send initialize first)",
            )));
        };
        // A session opened by another principal is not found: its id alone gives no access.
        let owner = principal::binding(principal);
        self.sessions().get(key).filter(|s| s.owner == owner).cloned().ok_or_else(|| {
            Box::new(refuse(
                StatusCode::NOT_FOUND,
                id,
                -32001,
                "Session not found: it ended or never existed; send initialize to start a new one",
            ))
        })
    }
}

/// A request the authorization check refused: 401 with a challenge that names the
/// protected resource metadata (and `invalid_token` when a token was sent), or 403
/// `insufficient_scope` for a token without the scopes every request needs.
fn unauthorized(auth: &crate::auth::bearer::Authorization, refused: &Refused) -> Response {
    let (status, challenge, message) = match refused {
        Refused::NoToken => (
            StatusCode::UNAUTHORIZED,
            auth.challenge(None),
            "Unauthorized: send an OAuth bearer token (Authorization: Bearer …)",
        ),
        Refused::Invalid(problem) => (
            StatusCode::UNAUTHORIZED,
            auth.challenge(Some(*problem)),
            "Unauthorized: the bearer token is not valid for this server; obtain a new one",
        ),
        Refused::Scope => (
            StatusCode::FORBIDDEN,
            auth.scope_challenge(),
            "Forbidden: the bearer token lacks a scope this server requires",
        ),
    };
    let mut response = refuse(status, None, -32600, message);
    if let Ok(value) = HeaderValue::from_str(&challenge) {
        response.headers_mut().insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

/// `Accept` must take both JSON and SSE (406); the body must be JSON (415).
fn refuse_post_headers(headers: &HeaderMap) -> Option<Response> {
    let accept = header_str(headers, header::ACCEPT.as_str()).unwrap_or("");
    let takes = |kind: &str| accept.contains(kind) || accept.contains("*/*");
    if !takes("application/json") || !takes("text/event-stream") {
        return Some(refuse(
            StatusCode::NOT_ACCEPTABLE,
            None,
            -32600,
            "Not acceptable: the client must accept both application/json and text/event-stream",
        ));
    }
    let content_type = header_str(headers, header::CONTENT_TYPE.as_str()).unwrap_or("");
    if !content_type.trim_start().to_ascii_lowercase().starts_with("application/json") {
        return Some(refuse(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            None,
            -32600,
            "Unsupported media type: send application/json",
        ));
    }
    None
}

/// A fresh session id: 32 characters from the OS's cryptographic source (visible ASCII).
fn session_id() -> String {
    crate::rpc::request_id::RequestId::token(32)
}

/// The response to a request sent by POST: JSON when its answer comes first, else an SSE stream
/// that ends after the answer (or when the handler pauses it), resumable when `session` is
/// given (only such a stream is kept for resumption). A modern request's protocol errors
/// keep their HTTP status (-32601 is 404, -32021 is 400); `guard` rides with the response.
async fn answer(
    outbox: Arc<Outbox>,
    session: Option<(&HttpSession, &Endpoint)>,
    modern: bool,
    guard: Option<CancelOnDrop>,
) -> Response {
    loop {
        match outbox.peek() {
            Some(Kind::Answer) => {
                let mut line = outbox.pop().map(|l| l.bytes).unwrap_or_default();
                line.pop();
                let status = if modern { modern_status(&line) } else { StatusCode::OK };
                let mut response = Response::new(Body::from(line));
                *response.status_mut() = status;
                response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
                return response;
            }
            // Cancelled before anything was sent: an empty stream.
            Some(Kind::Unanswered) => return sse(Body::empty()),
            Some(Kind::Notification | Kind::Pause) => {
                return sse(match session {
                    Some((session, endpoint)) => {
                        resumable(session.open_stream(outbox, endpoint), 0, endpoint.replay_budget())
                    }
                    None => plain(outbox, guard),
                });
            }
            None => outbox.ready().await,
        }
    }
}

/// The HTTP status of a modern request's JSON answer: 200, except the protocol errors the
/// 2026-07-28 transport maps (a handler-level -32602 stays 200).
fn modern_status(line: &[u8]) -> StatusCode {
    #[derive(serde::Deserialize)]
    struct Answer {
        error: Option<Code>,
    }
    #[derive(serde::Deserialize)]
    struct Code {
        code: i32,
    }
    if !line.windows(9).any(|w| w == b"\"error\":{") {
        return StatusCode::OK;
    }
    match serde_json::from_slice::<Answer>(line).ok().and_then(|a| a.error).map(|e| e.code) {
        Some(-32601) => StatusCode::NOT_FOUND,
        Some(-32020 | -32021) => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    }
}

/// Cancels a call without a session when its response is dropped: the client closed the
/// stream.
struct CancelOnDrop(Arc<CancelState>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// The era a posted request claims (its body's `_meta`), checked against its headers: a
/// version header that disagrees with the body, or a modern request whose `Mcp-Method` or
/// `Mcp-Name` disagrees with it, is `-32020`; a malformed or unsupported claim is the
/// session's `-32602`/`-32022`, answered here with 400.
fn era_of(headers: &HeaderMap, method: &str, params: Option<&RawValue>) -> Result<Era, RpcError> {
    let header = header_str(headers, VERSION_HEADER);
    let Some(body) = era::claimed_version(params)? else {
        if header.is_some_and(|v| MODERN_VERSIONS.contains(&v)) {
            return Err(RpcError::invalid_params(
                "Invalid params: a 2026-07-28 request carries \"io.modelcontextprotocol/protocolVersion\" and \"io.modelcontextprotocol/clientCapabilities\" in `params._meta`",
            ));
        }
        return Ok(Era::Legacy);
    };
    if header != Some(body.as_str()) {
        let header = header.map_or_else(|| "missing".to_owned(), |h| format!("{h:?}"));
        return Err(RpcError::header_mismatch(format!(
            "MCP-Protocol-Version header {header} does not match the body's protocol version {body:?}; send the same version in both"
        )));
    }
    if LEGACY_VERSIONS.contains(&body.as_str()) {
        return Ok(Era::Legacy);
    }
    era::claim(params)?;
    match crate::rpc::channel::mirror(headers, METHOD_HEADER) {
        Some(Ok(sent)) if sent == method => {}
        sent => {
            return Err(RpcError::header_mismatch(format!(
                "Mcp-Method header {} does not match the body's method {method:?}; send the method in both",
                shown_header(sent)
            )));
        }
    }
    let named = match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        // SEP-2663: so that a load balancer can route a task's requests by its id.
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    };
    if let Some(key) = named {
        // Only `name` and `uri` are read; the arguments are skipped, not built into a tree.
        #[derive(serde::Deserialize)]
        struct Named<'a> {
            #[serde(default, borrow, deserialize_with = "jsonrpc::present")]
            name: Option<&'a RawValue>,
            #[serde(default, borrow, deserialize_with = "jsonrpc::present")]
            uri: Option<&'a RawValue>,
            #[serde(default, borrow, rename = "taskId", deserialize_with = "jsonrpc::present")]
            task_id: Option<&'a RawValue>,
        }
        let value = params
            .and_then(|p| serde_json::from_str::<Named<'_>>(p.get()).ok())
            .and_then(|n| match key {
                "name" => n.name,
                "uri" => n.uri,
                _ => n.task_id,
            })
            .and_then(|raw| serde_json::from_str::<String>(raw.get()).ok());
        match (crate::rpc::channel::mirror(headers, NAME_HEADER), value) {
            (Some(Ok(sent)), Some(value)) if sent == value => {}
            (_, None) => {}
            (sent, Some(value)) => {
                return Err(RpcError::header_mismatch(format!(
                    "Mcp-Name header {} does not match the body's `{key}` {value:?}; send it in both",
                    shown_header(sent)
                )));
            }
        }
    }
    Ok(Era::Modern)
}

fn shown_header(sent: Option<Result<String, ()>>) -> String {
    match sent {
        None => "missing".into(),
        Some(Err(())) => "unreadable".into(),
        Some(Ok(value)) => format!("{value:?}"),
    }
}

/// An HTTP error response carrying a JSON-RPC error (its code, message and data).
fn refuse_with(status: StatusCode, id: Option<&RawValue>, error: &RpcError) -> Response {
    let mut body = match id {
        Some(id) => jsonrpc::error(Some(id), error),
        None => jsonrpc::error_without_id(error),
    };
    body.pop();
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

fn sse(body: Body) -> Response {
    let mut response = Response::new(body);
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// An SSE body without resumption (stateless, and every modern request): the outbox's
/// lines as events without ids, until the answer; a keep-alive comment when nothing was
/// sent for a while (a listen stream may wait long). `guard` lives as long as the body.
fn plain(outbox: Arc<Outbox>, guard: Option<CancelOnDrop>) -> Body {
    let body = futures_util::stream::unfold((outbox, guard, false), |(outbox, guard, done)| async move {
        if done {
            return None;
        }
        loop {
            let Some(line) = outbox.pop() else {
                if tokio::time::timeout(KEEP_ALIVE, outbox.ready()).await.is_err() {
                    return Some((
                        Ok::<_, Infallible>(Bytes::from_static(b": keep-alive\n\n")),
                        (outbox, guard, false),
                    ));
                }
                continue;
            };
            match line.kind {
                Kind::Pause => {}
                Kind::Unanswered => return None,
                Kind::Answer | Kind::Notification => {
                    let last = line.kind == Kind::Answer;
                    let event = Bytes::from([b"data: ", trimmed(&line.bytes), b"\n\n"].concat());
                    return Some((Ok::<_, Infallible>(event), (outbox, guard, last)));
                }
            }
        }
    });
    Body::from_stream(body)
}

/// A line without its newline.
fn trimmed(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\n").unwrap_or(line)
}

/// How many bytes of sent events may be kept for replay: per stream, and in the process.
#[derive(Clone, Copy)]
struct Budget {
    per_stream: usize,
    total: usize,
}

/// `<stream>-<seq>` as this server writes event ids: the stream and the next event to send.
/// Digits only; an id past the last one there can be is not an id of this server.
fn event_id(last: &str) -> Option<(u64, u64)> {
    let (stream, seq) = last.split_once('-')?;
    let number = |digits: &str| {
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits.parse::<u64>().ok()
    };
    Some((number(stream)?, number(seq)?.checked_add(1)?))
}

impl StreamLog {
    /// Whether every event from `next` on is still kept or yet to come.
    fn replayable_from(&self, next: u64) -> bool {
        let events = lock(&self.events);
        events.kept.front().map_or(events.next_seq, |e| e.seq) <= next
    }
}

/// An attachment to a resumable stream, from event `next` on: it replays what is kept, then
/// follows the call, until its last event, a pause, or a newer attachment. Once sent, events
/// past the replay budget are let go.
fn resumable(log: Arc<StreamLog>, next: u64, budget: Budget) -> Body {
    let mine = log.generation.fetch_add(1, Ordering::AcqRel) + 1;
    // An older attachment waiting for lines wakes, sees it is replaced, and passes the wake on.
    log.outbox.wake();
    let body = futures_util::stream::unfold((log, next, false), move |(log, mut next, done)| async move {
        if done {
            return None;
        }
        loop {
            let (batch, end) = {
                let mut events = lock(&log.events);
                if log.generation.load(Ordering::Acquire) != mine {
                    drop(events);
                    log.outbox.wake();
                    return None;
                }
                let paused = pump(&log, &mut events);
                let mut batch = Vec::new();
                let mut end = false;
                let from = next;
                for event in events.kept.iter().filter(|e| e.seq >= from) {
                    next = event.seq + 1;
                    batch.extend_from_slice(&event.bytes);
                    if event.last {
                        end = true;
                        break;
                    }
                }
                events.let_go(next, budget);
                // Nothing left to send: the call ended, or paused this attachment.
                let drained = next >= events.next_seq;
                (batch, end || (drained && (paused || events.ended.is_some())))
            };
            if !batch.is_empty() {
                return Some((Ok::<_, Infallible>(Bytes::from(batch)), (log, next, end)));
            }
            if end {
                return None;
            }
            log.outbox.ready().await;
        }
    });
    Body::from_stream(body)
}

impl Events {
    fn push(&mut self, event: Event) {
        self.bytes += event.bytes.len();
        self.total.fetch_add(event.bytes.len(), Ordering::Relaxed);
        self.kept.push_back(event);
    }

    fn pop(&mut self) {
        if let Some(event) = self.kept.pop_front() {
            self.bytes -= event.bytes.len();
            self.total.fetch_sub(event.bytes.len(), Ordering::Relaxed);
        }
    }

    /// Lets go of the oldest events sent (those before `sent`) while the stream or the process
    /// keeps more than its budget, or the stream more than [`REPLAY_EVENTS`].
    fn let_go(&mut self, sent: u64, budget: Budget) {
        while self.kept.front().is_some_and(|e| e.seq < sent)
            && (self.bytes > budget.per_stream
                || self.total.load(Ordering::Relaxed) > budget.total
                || self.kept.len() > REPLAY_EVENTS)
        {
            self.pop();
        }
    }
}

/// Moves the outbox's lines into the stream's events, up to a pause (which ends the
/// attachment reading now; the lines after it wait for the next one). Whether it paused.
fn pump(log: &StreamLog, events: &mut Events) -> bool {
    while let Some(line) = log.outbox.pop() {
        let (bytes, last) = match line.kind {
            Kind::Pause => return true,
            Kind::Unanswered => (Bytes::new(), true),
            Kind::Notification => (frame(log.id, events.next_seq, &line.bytes), false),
            Kind::Answer => (frame(log.id, events.next_seq, &line.bytes), true),
        };
        events.push(Event { seq: events.next_seq, bytes, last });
        events.next_seq += 1;
        if last {
            events.ended = Some(Instant::now());
        }
    }
    false
}

/// One message as an SSE event with its id.
fn frame(stream: u64, seq: u64, line: &[u8]) -> Bytes {
    Bytes::from([format!("id: {stream}-{seq}\ndata: ").as_bytes(), trimmed(line), b"\n\n"].concat())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_read_without_their_port() {
        assert_eq!(host_of("localhost:3000").as_deref(), Some("localhost"));
        assert_eq!(host_of("[::1]:8080").as_deref(), Some("::1"));
        assert_eq!(host_of("[::1]").as_deref(), Some("::1"));
        assert_eq!(host_of("Example.COM").as_deref(), Some("example.com"));
        assert_eq!(host_of("127.0.0.1").as_deref(), Some("127.0.0.1"));
        // Anything after the bracket but a port is not a host.
        assert_eq!(host_of("[::1]evil.com"), None);
        assert_eq!(host_of("[::1]:80x"), None);
        assert_eq!(host_of("[::1"), None);
    }

    #[test]
    fn event_ids_are_read_strictly() {
        assert_eq!(event_id("3-0"), Some((3, 1)));
        assert_eq!(event_id("12-255"), Some((12, 256)));
        assert_eq!(event_id("1-18446744073709551615"), None, "no event follows the last id");
        assert_eq!(event_id("+1-+0"), None);
        assert_eq!(event_id("1-"), None);
        assert_eq!(event_id("-1"), None);
        assert_eq!(event_id("1-2-3"), None);
        assert_eq!(event_id("99999999999999999999-1"), None);
    }

    #[test]
    fn session_ids_are_visible_ascii_and_fresh() {
        let a = session_id();
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|b| (0x21..=0x7e).contains(&b)));
        assert_ne!(a, session_id());
    }
}
