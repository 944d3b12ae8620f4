//! Serving: the `Server` methods that mount the endpoint (`http_router`, the
//! `.well-known` routes) or serve it (the accept loop with its connection limits and
//! timeouts, and the graceful shutdown). Each request then goes to `Endpoint::handle`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, Request};
use axum::response::Response;
use http::{HeaderValue, StatusCode, header};

use super::endpoint::Endpoint;
use crate::server::{Error, Server};
use crate::transport::Stop;

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
            listens: Arc::new(tokio::sync::Semaphore::new(self.shared.options.http.limits.max_listens)),
            bodies: tokio::sync::Semaphore::new(self.shared.options.http.limits.max_bodies),
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

    /// Serves Streamable HTTP at `http://<addr>/mcp` until SIGINT or SIGTERM, with the
    /// liveness and readiness probes at `/healthz` and `/readyz`
    /// ([`ServerBuilder::health_paths`](crate::ServerBuilder::health_paths)). On SIGTERM it
    /// drains: readiness 503 and `Connection: close` for the
    /// [drain delay](crate::ServerBuilder::drain_delay), then it stops accepting, answers every
    /// request it accepted, ends listen streams, gives running tasks the rest of the
    /// [shutdown grace](crate::ServerBuilder::shutdown_grace) and releases those still running
    /// as `failed`, retryable; then it flushes telemetry and returns (`docs/http.md#deploying`).
    /// SIGINT skips the delay.
    pub async fn serve_http(self, addr: impl tokio::net::ToSocketAddrs) -> Result<(), Error> {
        self.serve_http_with(addr, |mcp| mcp).await
    }

    /// Serves Streamable HTTP at `http://<addr>/mcp` as [`Server::serve_http`] does, with
    /// `wrap` applied to the MCP route first: your middleware in front of it (your own
    /// authentication inserting a [`Principal`](crate::Principal), a request log), served with the server's
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
        // Before the line that says it serves: a SIGTERM any time after it drains.
        let stop = crate::transport::stop_signal();
        let listener = tokio::net::TcpListener::bind(addr).await?;
        tracing::info!(target: "mcp_runtime::http", address = %listener.local_addr()?, stateless = self.shared.options.http.stateless, "serving MCP over HTTP at /mcp");
        self.serve_listener(listener, stop, wrap).await
    }

    /// Serves Streamable HTTP at `/mcp` on a bound listener until `shutdown` resolves, then
    /// drains and stops as [`Server::serve_http`] does on SIGTERM (the drain delay first).
    pub async fn serve_http_on(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<(), Error> {
        let shutdown = async move {
            shutdown.await;
            Stop::Drain
        };
        self.serve_listener(listener, shutdown, |mcp| mcp).await
    }

    /// The probes: `live` answers 200 while the process serves; `ready` 200 while it does not
    /// drain and its state store answers (within 2 s), else 503. Paths that are empty or
    /// would shadow `/mcp` or `/.well-known/` are not served.
    fn health_router(&self, draining: Arc<AtomicBool>) -> axum::Router {
        let options = &self.shared.options.http;
        let usable = |path: &str| {
            let ok = path.starts_with('/')
                && path != "/mcp"
                && !path.starts_with("/mcp/")
                && !path.starts_with("/.well-known/");
            if !ok && !path.is_empty() {
                tracing::warn!(target: "mcp_runtime::http", path, "a probe path must start with `/` and stay clear of /mcp and /.well-known/; that probe is not served");
            }
            ok
        };
        let mut router = axum::Router::new();
        let (live, ready) = (options.limits.live_path.as_str(), options.limits.ready_path.as_str());
        if usable(live) && live != ready {
            router = router.route(live, axum::routing::get(|| async { probe(StatusCode::OK, "live") }));
        }
        if usable(ready) {
            let store = Arc::clone(&self.shared.stores.store);
            router = router.route(
                ready,
                axum::routing::get(move || {
                    let (store, draining) = (Arc::clone(&store), Arc::clone(&draining));
                    async move {
                        if draining.load(Ordering::Acquire) {
                            return probe(StatusCode::SERVICE_UNAVAILABLE, "draining");
                        }
                        match tokio::time::timeout(Duration::from_secs(2), store.ping()).await {
                            Ok(Ok(())) => probe(StatusCode::OK, "ready"),
                            Ok(Err(e)) => {
                                tracing::debug!(target: "mcp_runtime::http", error = %e, "not ready: the state store does not answer");
                                probe(StatusCode::SERVICE_UNAVAILABLE, "store_unavailable")
                            }
                            Err(_) => probe(StatusCode::SERVICE_UNAVAILABLE, "store_unavailable"),
                        }
                    }
                }),
            );
        }
        router
    }

    /// The accept loop: each connection gets the header timeout (and as long between its
    /// requests), at most `max_connections` are open at once (further ones wait in the
    /// listen backlog), and each request carries the peer's address (`ConnectInfo`). Then the
    /// drain (`docs/http.md#deploying`): the delay (readiness 503, `Connection: close`), no
    /// more connections, the accepted requests answered and listen streams ended within the
    /// grace, the tasks still running then released, telemetry flushed.
    async fn serve_listener(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl std::future::Future<Output = Stop> + Send + 'static,
        wrap: impl FnOnce(axum::Router) -> axum::Router,
    ) -> Result<(), Error> {
        let endpoint = Arc::new(self.endpoint());
        let draining = Arc::new(AtomicBool::new(false));
        let app = axum::Router::new()
            .nest("/mcp", wrap(Self::router_with(Arc::clone(&endpoint))))
            .merge(self.well_known_router())
            .merge(self.health_router(Arc::clone(&draining)));
        let options = &self.shared.options.http;
        let mut http1 = hyper::server::conn::http1::Builder::new();
        http1.timer(hyper_util::rt::TokioTimer::new()).header_read_timeout(options.limits.header_timeout);
        let accept = Accept {
            listener,
            conns: Conns {
                open: Arc::new(tokio::sync::Semaphore::new(options.limits.max_connections)),
                graceful: hyper_util::server::graceful::GracefulShutdown::new(),
                http1,
                app,
                draining: Arc::clone(&draining),
                unwatched: Arc::new(()),
            },
        };
        let stop = accept.until(shutdown).await;
        draining.store(true, Ordering::Release);
        if stop == Some(Stop::Drain) && !options.limits.drain_delay.is_zero() {
            tracing::info!(target: "mcp_runtime::http", delay = ?options.limits.drain_delay, "draining: readiness is 503 and every response closes its connection; serving on until the delay is over");
            accept.until(tokio::time::sleep(options.limits.drain_delay)).await;
        }
        let (graceful, unwatched) = accept.close().await;
        tracing::info!(target: "mcp_runtime::http", "shutting down: no new connections; requests in progress may finish");
        let grace = options.limits.shutdown_grace;
        let deadline = tokio::time::Instant::now() + grace;
        endpoint.stopping.send_replace(true);
        let answered = async {
            graceful.shutdown().await;
            while Arc::strong_count(&unwatched) > 1 {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        };
        tokio::select! {
            () = answered => {}
            () = tokio::time::sleep_until(deadline) => {
                tracing::warn!(target: "mcp_runtime::http", ?grace, "shutdown grace over; closing the connections left");
            }
        }
        // Tasks this replica runs have the rest of the grace; those still running are
        // released as failed, so that their clients need not wait for the lease to lapse.
        let tasks = &self.shared.tasks;
        while tasks.running() > 0 && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        if tasks.running() > 0 {
            let released = tokio::time::timeout(Duration::from_secs(5), tasks.release_running()).await;
            tracing::info!(target: "mcp_runtime::http", released = released.unwrap_or(0), "tasks still running at the end of the grace released as failed (replica_shutdown)");
        }
        // Sessions still open end with the server: their durations are recorded, then flushed.
        endpoint.sessions().clear();
        crate::transport::flush_telemetry(self.shared.options.otel_flush_grace).await;
        Ok(())
    }
}

/// The accept loop's parts, kept across its two phases (serving, then draining).
struct Accept {
    listener: tokio::net::TcpListener,
    conns: Conns,
}

/// What serves each accepted connection.
struct Conns {
    open: Arc<tokio::sync::Semaphore>,
    graceful: hyper_util::server::graceful::GracefulShutdown,
    http1: hyper::server::conn::http1::Builder,
    app: axum::Router,
    /// Set once the server drains: every response then says `Connection: close`.
    draining: Arc<AtomicBool>,
    /// Held by each connection accepted while draining.
    unwatched: Arc<()>,
}

impl Accept {
    /// Accepts connections until `stop` resolves: its output (`None` when the connection
    /// limit's semaphore closed).
    async fn until<T>(&self, stop: impl std::future::Future<Output = T>) -> Option<T> {
        tokio::pin!(stop);
        let mut last_error: Option<Instant> = None;
        loop {
            let permit = tokio::select! {
                permit = Arc::clone(&self.conns.open).acquire_owned() => permit,
                out = &mut stop => return Some(out),
            };
            let Ok(permit) = permit else { return None };
            let (stream, peer) = tokio::select! {
                accepted = self.listener.accept() => match accepted {
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
                out = &mut stop => return Some(out),
            };
            self.conns.serve(stream, peer, Some(permit));
        }
    }

    /// Stops accepting without resetting a connection a client may have sent a request on.
    /// The kernel resets every connection still queued on a listener that closes, and a
    /// proxy goes on opening connections until one is refused, so: new connection attempts
    /// are dropped first (Linux: a socket filter on SYN; the client's retry a second later
    /// meets the closed port, refused, or the replica's successor), the handshakes already
    /// under way finish into the backlog, and the backlog is taken and served until it has
    /// stayed empty for [`SETTLE`]; then the listener closes. Where the filter cannot be set,
    /// the backlog is taken once. The connections' shutdown, and the count of those accepted
    /// while draining.
    async fn close(self) -> (hyper_util::server::graceful::GracefulShutdown, Arc<()>) {
        let Accept { listener, conns } = self;
        let settle = if refuse_new_connections(&listener) { SETTLE } else { Duration::ZERO };
        match listener.into_std() {
            Ok(listener) => {
                let mut quiet_since = Instant::now();
                loop {
                    // Non-blocking (as tokio left it): `accept` ends the sweep once the backlog is empty.
                    while let Ok((stream, peer)) = listener.accept() {
                        quiet_since = Instant::now();
                        match stream.set_nonblocking(true).and_then(|()| tokio::net::TcpStream::from_std(stream)) {
                            Ok(stream) => conns.serve(stream, peer, Arc::clone(&conns.open).try_acquire_owned().ok()),
                            Err(e) => {
                                tracing::debug!(target: "mcp_runtime::http", error = %e, "a connection in the backlog could not be served");
                            }
                        }
                    }
                    if quiet_since.elapsed() >= settle {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
            }
            Err(e) => tracing::debug!(target: "mcp_runtime::http", error = %e, "the listen backlog could not be taken"),
        }
        (conns.graceful, conns.unwatched)
    }
}

/// How long the backlog must stay empty, new connections refused, before the listener
/// closes: a handshake under way finishes within a round trip.
const SETTLE: Duration = Duration::from_millis(50);

/// Drops every SYN that reaches `listener` from now on (a classic BPF filter on the TCP
/// flags; the segments of handshakes under way pass), so that no new connection enters its
/// backlog. `false` where that cannot be done.
#[cfg(target_os = "linux")]
fn refuse_new_connections(listener: &tokio::net::TcpListener) -> bool {
    use socket2::SockFilter;
    // BPF_LD|BPF_B|BPF_ABS, BPF_JMP|BPF_JSET|BPF_K, BPF_RET|BPF_K: load the TCP flags byte
    // (offset 13 of the TCP header, where a socket filter's packet starts); SYN set → keep
    // 0 bytes (drop), else keep the whole packet.
    const FILTER: [SockFilter; 4] = [
        SockFilter::new(0x30, 0, 0, 13),
        SockFilter::new(0x45, 0, 1, 0x02),
        SockFilter::new(0x06, 0, 0, 0),
        SockFilter::new(0x06, 0, 0, u32::MAX),
    ];
    match socket2::SockRef::from(listener).attach_filter(&FILTER) {
        Ok(()) => true,
        Err(e) => {
            tracing::debug!(target: "mcp_runtime::http", error = %e, "new connections could not be refused before the listener closes");
            false
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn refuse_new_connections(_: &tokio::net::TcpListener) -> bool {
    false
}

impl Conns {
    /// Serves one accepted connection (holding its connection slot, when it has one).
    fn serve(
        &self,
        stream: tokio::net::TcpStream,
        peer: std::net::SocketAddr,
        permit: Option<tokio::sync::OwnedSemaphorePermit>,
    ) {
        let _ = stream.set_nodelay(true);
        let (app, draining) = (self.app.clone(), Arc::clone(&self.draining));
        let service = hyper::service::service_fn(move |mut request: http::Request<hyper::body::Incoming>| {
            request.extensions_mut().insert(ConnectInfo(peer));
            let mut app = app.clone();
            let draining = Arc::clone(&draining);
            async move {
                let mut response = tower_service::Service::call(&mut app, request).await?;
                // Draining: hyper closes the connection once this response is written, so
                // nobody sends another request on a connection about to close.
                if draining.load(Ordering::Acquire) {
                    response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
                }
                Ok::<_, std::convert::Infallible>(response)
            }
        });
        let connection = self.http1.serve_connection(hyper_util::rt::TokioIo::new(stream), service);
        if self.draining.load(Ordering::Acquire) {
            // Accepted while draining: every response closes it, so it is not told to shut
            // down (hyper would close it before its first request is read); it is counted,
            // and waited for within the grace.
            let open = Arc::clone(&self.unwatched);
            tokio::spawn(async move {
                let (_permit, _open) = (permit, open);
                if let Err(e) = connection.await {
                    tracing::debug!(target: "mcp_runtime::http", error = %e, %peer, "connection ended with an error");
                }
            });
            return;
        }
        let connection = self.graceful.watch(connection);
        tokio::spawn(async move {
            let _permit = permit;
            if let Err(e) = connection.await {
                tracing::debug!(target: "mcp_runtime::http", error = %e, %peer, "connection ended with an error");
            }
        });
    }
}

/// A probe's answer: its status and `{"status": …}`.
fn probe(status: StatusCode, word: &'static str) -> Response {
    let mut response = Response::new(Body::from(format!("{{\"status\":\"{word}\"}}")));
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}
