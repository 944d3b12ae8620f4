//! Where one request's messages go: the outbox its transport drains (the stdio connection's
//! one, or the response of one HTTP POST), and the HTTP request it came in, if any. What a
//! call sends while it runs (logs, progress) and its answer go through here.

use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::auth::principal::Principal;
use crate::rpc::era::{Client, LogLevel};
use crate::rpc::jsonrpc;
use crate::rpc::outbox::{Kind, Outbox};

pub(crate) struct Channel {
    /// Outgoing lines; `None` for in-process calls.
    out: Option<Arc<Outbox>>,
    /// The HTTP request the messages answer (its headers and extensions), over HTTP.
    http: Option<Arc<http::request::Parts>>,
    /// Whether the client can answer a request of ours while the call waits (not over an
    /// in-process `Connection`, whose `send` runs each call to its end).
    answers: bool,
    /// Who sent the request: the principal the HTTP request carries in its extensions (put
    /// there by the transport's token check, or by the author's middleware); none on stdio.
    principal: Option<Principal>,
    /// The server's local principal, the sender when `principal` is none and no
    /// authorization is configured for the transport.
    local: Option<Arc<Principal>>,
    /// The 2025 HTTP session the request belongs to.
    session: Option<Arc<str>>,
    /// The stdio connection (a number of this process), 0 elsewhere.
    connection: u64,
    /// An in-process request's (`Server::call`): what the session writes is read back by
    /// the caller, never sent.
    in_process: bool,
}

/// How a request reached the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Transport {
    /// Newline-delimited JSON-RPC on a byte stream: stdio ([`Server::serve_stdio`](crate::Server::serve_stdio)),
    /// or the streams given to [`Server::serve`](crate::Server::serve).
    Stdio,
    /// Streamable HTTP.
    Http,
    /// An in-process call ([`Server::call`](crate::Server::call), a `Connection`).
    InProcess,
}

impl Channel {
    pub(crate) fn new(out: Option<Arc<Outbox>>, http: Option<Arc<http::request::Parts>>) -> Self {
        let principal = http.as_ref().and_then(|parts| parts.extensions.get::<Principal>().cloned());
        Channel { out, http, answers: true, principal, local: None, session: None, connection: 0, in_process: false }
    }

    /// The channel of an in-process request (`Server::call`): its answer is written to
    /// `out` for the caller to read; nothing can answer a request of ours meanwhile.
    pub(crate) fn in_process(out: Arc<Outbox>) -> Self {
        Channel { in_process: true, ..Channel::new(Some(out), None).without_answers() }
    }

    /// The channel of a request of the 2025 HTTP session `id`.
    #[cfg(feature = "http")]
    pub(crate) fn in_session(mut self, id: Arc<str>) -> Self {
        self.session = Some(id);
        self
    }

    /// The channel of the stdio connection numbered `n`.
    pub(crate) fn on_connection(mut self, n: u64) -> Self {
        self.connection = n;
        self
    }

    /// How the requests arrived.
    pub(crate) fn transport(&self) -> Transport {
        match (&self.out, &self.http) {
            _ if self.in_process => Transport::InProcess,
            (None, _) => Transport::InProcess,
            (Some(_), Some(_)) => Transport::Http,
            (Some(_), None) => Transport::Stdio,
        }
    }

    /// The 2025 HTTP session of the requests, if any.
    pub(crate) fn session(&self) -> Option<&str> {
        self.session.as_deref()
    }

    /// The stdio connection's number (0 for other transports).
    pub(crate) fn connection(&self) -> u64 {
        self.connection
    }

    /// Makes `local` the sender of the requests that carry no principal.
    pub(crate) fn with_local(mut self, local: Option<Arc<Principal>>) -> Self {
        self.local = local;
        self
    }

    /// Makes `principal` the sender of the requests (a test context's or client's).
    pub(crate) fn set_principal(&mut self, principal: Principal) {
        self.principal = Some(principal);
    }

    /// Who sent the request: the principal an authorization layer found, else the server's
    /// local principal where no authorization is configured.
    pub(crate) fn principal(&self) -> Option<&Principal> {
        self.principal.as_ref().or(self.local.as_deref())
    }

    /// The principal an authorization layer found (or a test gave), not the local one.
    pub(crate) fn authenticated(&self) -> Option<&Principal> {
        self.principal.as_ref()
    }

    /// A channel whose client cannot answer requests while a call waits: the legacy shim
    /// fails at once instead of waiting.
    pub(crate) fn without_answers(mut self) -> Self {
        self.answers = false;
        self
    }

    /// `true` when the messages go out as JSON-RPC (not an in-process call).
    pub(crate) fn is_wire(&self) -> bool {
        self.out.is_some() && !self.in_process
    }

    pub(crate) fn http(&self) -> Option<&http::request::Parts> {
        self.http.as_deref()
    }

    /// The address the HTTP request came from, when the accept loop recorded it.
    pub(crate) fn peer(&self) -> Option<std::net::IpAddr> {
        peer_of(self.http.as_deref()?)
    }

    /// Who sent the request, for per-caller limits ([`crate::auth::principal::client_key`]).
    pub(crate) fn caller(&self) -> String {
        crate::auth::principal::client_key(self.authenticated(), self.peer())
    }

    /// Queues an answer.
    pub(crate) fn send(&self, line: Vec<u8>) {
        if let Some(out) = &self.out {
            out.response(line);
        }
    }

    /// Queues a request to the client (the legacy shim's): never dropped. `false` when the
    /// messages go nowhere (an in-process call), so no answer can come.
    pub(crate) fn request(&self, line: Vec<u8>) -> bool {
        match &self.out {
            Some(out) if self.answers => {
                out.request(line);
                true
            }
            _ => false,
        }
    }

    /// Queues a notification; it is dropped while the client does not read its output.
    pub(crate) fn notify(&self, line: Vec<u8>) {
        if let Some(out) = &self.out {
            out.notification(line);
        }
    }

    /// Ends the HTTP response the messages ride on, if any; the client resumes the stream
    /// with `Last-Event-ID` and gets what was sent meanwhile.
    pub(crate) fn pause(&self) {
        if let Some(out) = &self.out {
            out.mark(Kind::Pause);
        }
    }

    /// Marks the end of a request that gets no answer (it was cancelled).
    pub(crate) fn unanswered(&self) {
        if let Some(out) = &self.out {
            out.mark(Kind::Unanswered);
        }
    }

    /// `true` when a record at `level` would reach the client.
    pub(crate) fn wants(&self, client: &Client, level: LogLevel) -> bool {
        self.out.is_some() && client.wants(level)
    }

    /// `notifications/message`, when the client wants `level`.
    pub(crate) fn log(&self, client: &Client, level: LogLevel, logger: &str, data: Value) {
        #[derive(Serialize)]
        struct Message<'a> {
            level: LogLevel,
            logger: &'a str,
            data: Value,
        }
        if self.wants(client, level) {
            self.notify(jsonrpc::notification("notifications/message", &Message { level, logger, data }));
        }
    }

    pub(crate) fn progress(&self, token: &RawValue, progress: f64, total: Option<f64>, message: Option<&str>) {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Params<'a> {
            progress_token: &'a RawValue,
            progress: f64,
            #[serde(skip_serializing_if = "Option::is_none")]
            total: Option<f64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            message: Option<&'a str>,
        }
        self.notify(jsonrpc::notification(
            "notifications/progress",
            &Params { progress_token: token, progress, total, message },
        ));
    }
}

/// A mirror header's value, decoded from its `=?base64?…?=` form when it has one; `Err` for
/// a value that is not visible ASCII or whose base64 is not UTF-8.
pub(crate) fn mirror(headers: &http::HeaderMap, name: &str) -> Option<Result<String, ()>> {
    use base64::Engine as _;
    let raw = headers.get(name)?;
    let Ok(text) = raw.to_str() else { return Some(Err(())) };
    let text = text.trim();
    Some(match text.strip_prefix("=?base64?").and_then(|t| t.strip_suffix("?=")) {
        Some(encoded) => base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .ok_or(()),
        None => Ok(text.to_owned()),
    })
}

/// The address a request came from, when the server that runs the router records it
/// ([`Server::serve_http`](crate::Server::serve_http) does; behind your own,
/// `into_make_service_with_connect_info`).
pub(crate) fn peer_of(request: &http::request::Parts) -> Option<std::net::IpAddr> {
    #[cfg(feature = "http")]
    {
        use axum::extract::ConnectInfo;
        request.extensions.get::<ConnectInfo<std::net::SocketAddr>>().map(|ConnectInfo(addr)| addr.ip())
    }
    #[cfg(not(feature = "http"))]
    {
        let _ = request;
        None
    }
}
