//! The endpoint: its state (the server, the sessions, the limits on calls, listens and bodies,
//! the replay budget), and the rungs every request climbs first: Host/Origin, the bearer
//! token, the version header of a GET or DELETE, then the method, which sends it on to
//! `post`, `get` or `lifecycle` (DELETE).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, Request};
use axum::response::Response;
use http::{Method, StatusCode, header};

use super::refuse::{method_not_allowed, refuse, unauthorized, unsupported_version};
use super::session::HttpSession;
use super::stream::Budget;
use super::{VERSION_HEADER, header_str, lock};
use crate::features::Shared;
use crate::rpc::era::{LEGACY_VERSIONS, MODERN_VERSIONS};

/// The endpoint's state: the server, the live sessions, and the shutdown signal.
pub(super) struct Endpoint {
    pub(super) shared: Arc<Shared>,
    pub(super) sessions: Mutex<HashMap<Box<str>, Arc<HttpSession>>>,
    /// Set when the server stops: standalone streams end.
    pub(super) stopping: tokio::sync::watch::Sender<bool>,
    /// Started with the first request: ends idle sessions, and itself once the endpoint is gone.
    pub(super) reaper: std::sync::Once,
    /// Calls running at once, at most `max_in_flight`; past it a call is refused
    /// (`server_busy`, retryable).
    pub(super) calls: Arc<tokio::sync::Semaphore>,
    /// Listen streams open at once, at most `max_listens`: they take no call slot.
    pub(super) listens: Arc<tokio::sync::Semaphore>,
    /// Request bodies being read at once.
    pub(super) bodies: tokio::sync::Semaphore,
    /// Bytes of sent SSE events kept for replay, over every session.
    pub(super) replay: Arc<AtomicUsize>,
    /// When each source of refused requests was last logged: one WARN a minute each.
    pub(super) warned: Mutex<HashMap<String, Instant>>,
}

impl Endpoint {
    pub(super) fn sessions(&self) -> std::sync::MutexGuard<'_, HashMap<Box<str>, Arc<HttpSession>>> {
        lock(&self.sessions)
    }

    /// The replay budgets: per stream, and the process's total with what it holds now.
    pub(super) fn replay_budget(&self) -> Budget {
        let options = &self.shared.options.http;
        Budget { per_stream: options.limits.replay_bytes_per_stream, total: options.limits.replay_bytes_total }
    }

    pub(super) async fn handle(self: Arc<Self>, request: Request) -> Response {
        self.reaper.call_once(|| {
            tokio::spawn(Self::reap(Arc::downgrade(&self)));
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
            host.is_some_and(|host| {
                options.limits.allowed_hosts.iter().any(|h| h.eq_ignore_ascii_case(&host) || h == "*")
            })
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
            let allowed = if options.limits.allowed_origins.is_empty() {
                origin_host.is_some_and(host_ok)
            } else {
                options.limits.allowed_origins.iter().any(|o| {
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
}
