//! The builder's settings of Streamable HTTP: sessions, the origin checks, authorization and
//! every limit a client meets over HTTP.

use std::time::Duration;

use crate::server::ServerBuilder;

impl ServerBuilder {
    /// Streamable HTTP without sessions (default: with them). Each POST stands alone: no
    /// `initialize` is needed before a call, no `Mcp-Session-Id` is minted, GET and DELETE
    /// are 405. Any replica behind a load balancer can answer any request.
    /// `notifications/cancelled` and `logging/setLevel` reach nothing across requests: a
    /// client cancels a call by closing its response.
    ///
    /// A 2025-era client cannot be asked anything here (no server-to-client round trip fits in
    /// one request): tools that ask ([`Ctx::ask`](crate::Ctx::ask),
    /// [`Ctx::consent`](crate::Ctx::consent), `#[tool(asks)]`) work for 2026-07-28 clients only,
    /// and `build()` logs a warning naming them (an error with
    /// [`ServerBuilder::deny_stateless_asks`]).
    pub fn stateless_http(mut self, stateless: bool) -> Self {
        self.options.http.stateless = stateless;
        self
    }

    /// Makes `build()` fail, instead of warning, when the server serves HTTP without sessions
    /// and a tool asks the client (default off). Such a tool can never finish for a 2025-era
    /// client there: it is refused with `client_capability_missing` saying so. Turn this on
    /// when every client must be able to use every tool.
    pub fn deny_stateless_asks(mut self, deny: bool) -> Self {
        self.options.http.deny_stateless_asks = deny;
        self
    }

    /// The `Host` names the HTTP endpoint answers, any port (default: `localhost`,
    /// `127.0.0.1`, `::1`: DNS-rebinding protection for a server on your machine). Add the
    /// names a deployment is reached by; `"*"` allows any. Others get 403.
    pub fn allowed_hosts<S: Into<String>>(mut self, hosts: impl IntoIterator<Item = S>) -> Self {
        self.options.http.limits.allowed_hosts = hosts.into_iter().map(Into::into).collect();
        self
    }

    /// The `Origin`s browsers may call the HTTP endpoint from (`https://app.example.com`, or
    /// a host name for any scheme and port). Default: origins whose host is an allowed host.
    /// A request without `Origin` (not from a browser) is not checked.
    pub fn allowed_origins<S: Into<String>>(mut self, origins: impl IntoIterator<Item = S>) -> Self {
        self.options.http.limits.allowed_origins = origins.into_iter().map(Into::into).collect();
        self
    }

    /// The largest HTTP request body (default 4 MiB); a larger one gets 413.
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.options.http.limits.max_body_bytes = bytes;
        self
    }

    /// How long an HTTP session may sit unused before it ends (default 30 min), and how many
    /// may be live at once (default 10,000). At the cap, `initialize` ends the least recently
    /// used session that runs no call; when every session runs one, it gets 503.
    pub fn http_sessions(mut self, idle: Duration, max: usize) -> Self {
        self.options.http.limits.session_idle = idle;
        self.options.http.limits.max_sessions = max.max(1);
        self
    }

    /// How many HTTP sessions one client may hold (default 100): the caller's principal, or
    /// its address when unauthenticated. At the cap, its `initialize` ends its own least
    /// recently used session that runs no call (503 when each runs one): one client cannot
    /// crowd the others out.
    pub fn max_sessions_per_client(mut self, max: usize) -> Self {
        self.options.http.limits.max_sessions_per_client = max.max(1);
        self
    }

    /// How long a connection may take to send a request's headers, and sit idle between
    /// requests (default 10 s); then it is closed. Applies to [`Server::serve_http`](crate::Server::serve_http) and its
    /// variants (behind your own server, set your server's).
    pub fn http_header_timeout(mut self, limit: Duration) -> Self {
        self.options.http.limits.header_timeout = limit;
        self
    }

    /// How long a request's body may take to arrive (default 30 s): past it the request gets
    /// 408 and its bytes are freed.
    pub fn http_body_timeout(mut self, limit: Duration) -> Self {
        self.options.http.limits.body_timeout = limit;
        self
    }

    /// How many connections [`Server::serve_http`](crate::Server::serve_http) keeps open at once (default 1024); further
    /// ones wait in the listen backlog until one closes. Keep it below the process's file
    /// limit (`ulimit -n`).
    pub fn max_connections(mut self, max: usize) -> Self {
        self.options.http.limits.max_connections = max.max(1);
        self
    }

    /// How many request bodies are read at once (default 64, each at most
    /// [`max_body_bytes`](Self::max_body_bytes)); further requests wait for a turn within
    /// their body timeout.
    pub fn max_bodies_reading(mut self, max: usize) -> Self {
        self.options.http.limits.max_bodies = max.max(1);
        self
    }

    /// How many 2026-07-28 `subscriptions/listen` streams may be open at once (default 1024).
    /// They take no call slot ([`max_in_flight`](Self::max_in_flight)); past the cap a listen
    /// is refused `server_busy`, retryable.
    pub fn max_listens(mut self, max: usize) -> Self {
        self.options.http.limits.max_listens = max.max(1);
        self
    }

    /// Bytes of sent SSE events a 2025 request stream keeps for a client that resumes it
    /// (default 1 MiB). Events past it are let go once sent; resuming before them gets 404.
    pub fn sse_replay_bytes_per_stream(mut self, bytes: usize) -> Self {
        self.options.http.limits.replay_bytes_per_stream = bytes;
        self
    }

    /// Bytes of sent SSE events kept for replay in the whole process (default 16 MiB): past
    /// it, a stream lets its sent events go.
    pub fn sse_replay_bytes_total(mut self, bytes: usize) -> Self {
        self.options.http.limits.replay_bytes_total = bytes;
        self
    }

    /// How many notifications wait for a 2025 HTTP session whose standalone stream (GET) is
    /// not open (default 256). List changes and resource updates are coalesced (one pending
    /// per kind and URI); past the cap, further ones are dropped, counted and logged.
    pub fn max_detached_notifications(mut self, max: usize) -> Self {
        self.options.http.limits.max_detached_notifications = max;
        self
    }

    /// How long, once the server stops accepting, the requests it accepted and then its
    /// running tasks may take to finish (default 10 s); a task still running then is
    /// released at once as `failed`, retryable, reason `replica_shutdown` (see
    /// [`drain_delay`](Self::drain_delay) and `docs/http.md#deploying`).
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.options.http.limits.shutdown_grace = grace;
        self
    }

    /// How long [`Server::serve_http`](crate::Server::serve_http) goes on serving after
    /// SIGTERM (or the `shutdown` future of [`Server::serve_http_on`](crate::Server::serve_http_on))
    /// before it stops accepting (default 5 s): its readiness probe answers 503 at once, so
    /// that a load balancer that probes it stops sending, and every response carries
    /// `Connection: close`, so that no client or proxy sends another request on a connection
    /// the server is about to close. SIGINT (Ctrl-C at a terminal) skips the delay. Then the
    /// [`shutdown_grace`](Self::shutdown_grace) begins.
    pub fn drain_delay(mut self, delay: Duration) -> Self {
        self.options.http.limits.drain_delay = delay;
        self
    }

    /// The paths of the probes [`Server::serve_http`](crate::Server::serve_http) answers
    /// beside `/mcp`, outside its authorization and Host checks (default `/healthz` and
    /// `/readyz`): `live` is 200 while the process serves; `ready` is 200 while the server
    /// is not draining and its state store answers, 503 otherwise. Each is a path from the
    /// root (`/…`).
    pub fn health_paths(mut self, live: impl Into<String>, ready: impl Into<String>) -> Self {
        self.options.http.limits.live_path = live.into();
        self.options.http.limits.ready_path = ready.into();
        self
    }

    /// Makes the HTTP transport an OAuth 2.1 resource server: every request needs a bearer
    /// token that `authorization`'s validator accepts (401 with a `WWW-Authenticate`
    /// challenge otherwise), the protected resource metadata is served at
    /// `/.well-known/oauth-protected-resource`, and handlers see the caller with
    /// [`Ctx::principal`](crate::Ctx::principal). Without it, HTTP requests (like stdio and
    /// in-process ones, which this does not guard) are from the local principal
    /// ([`local_principal`](crate::ServerBuilder::local_principal)).
    pub fn authorization(mut self, authorization: crate::auth::bearer::Authorization) -> Self {
        self.options.http.authorization = Some(authorization);
        self
    }
}
