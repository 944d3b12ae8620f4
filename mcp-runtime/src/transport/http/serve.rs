//! Serving: the `Server` methods that mount the endpoint (`http_router`, the
//! `.well-known` routes) or serve it (the accept loop with its connection limits and
//! timeouts, and the graceful shutdown). Each request then goes to `Endpoint::handle`.

use std::collections::HashMap;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, Request};
use axum::response::Response;
use http::{HeaderValue, header};

use super::endpoint::Endpoint;
use crate::server::{Error, Server};

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

    /// Serves Streamable HTTP at `http://<addr>/mcp` until SIGINT or SIGTERM. Then it stops
    /// accepting, lets requests in progress finish within the shutdown grace, and returns.
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
        let open = Arc::new(tokio::sync::Semaphore::new(options.limits.max_connections));
        let graceful = hyper_util::server::graceful::GracefulShutdown::new();
        let mut http1 = hyper::server::conn::http1::Builder::new();
        http1.timer(hyper_util::rt::TokioTimer::new()).header_read_timeout(options.limits.header_timeout);
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
        let grace = options.limits.shutdown_grace;
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
