//! POST: the rungs of a posted message (`Accept`, `Content-Type`, the body's size and time,
//! JSON, JSON-RPC, then its era: `era`, and its session: `lifecycle`), the view of its
//! session that runs it, and its answer: JSON, or an SSE stream (`stream`) when notifications
//! or a pause come first.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::response::Response;
use http::{HeaderMap, HeaderValue, StatusCode, header};

use super::endpoint::Endpoint;
use super::era::era_of;
use super::refuse::{refuse, refuse_unreadable, refuse_with, status_only, unsupported_version};
use super::session::HttpSession;
use super::stream::{CancelOnDrop, plain, resumable, sse};
use super::{SESSION_HEADER, VERSION_HEADER, header_str};
use crate::protocol::session::{Admit, Next, Seen, Session, State};
use crate::rpc::channel::Channel;
use crate::rpc::era::{Era, LEGACY_VERSIONS, MODERN_VERSIONS};
use crate::rpc::jsonrpc::{self, Incoming};
use crate::rpc::outbox::{Kind, Outbox};

impl Endpoint {
    pub(super) async fn post(self: Arc<Self>, request: Request) -> Response {
        let options = &self.shared.options.http;
        let (parts, body) = request.into_parts();
        let parts = Arc::new(parts);
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
        let (session, minted) = match self.session_of_post(&parts, initialize, modern, id.as_deref()).await {
            Ok(found) => found,
            Err(refused) => return *refused,
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
        let mut channel = Channel::new(Some(Arc::clone(&outbox)), Some(parts));
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
            // A fn without `async` known to be quick runs here, in this request's task, in one
            // poll (as stdio runs it on its loop): no task to spawn, no wake-up to hand the
            // answer over. Anything else, or one that did not finish, runs in a task of its own.
            let quick = job.runs_inline(&view.shared);
            let mut call = Box::pin(Arc::clone(&view).run_call(id, job, cancel));
            let done = quick
                && std::future::Future::poll(
                    call.as_mut(),
                    &mut std::task::Context::from_waker(std::task::Waker::noop()),
                )
                .is_ready();
            if !done {
                // A first poll's waker is a no-op: the task polls the call again at once.
                tokio::spawn(async move {
                    let _slot = slot;
                    call.await;
                });
            }
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
            axum::body::to_bytes(body, options.limits.max_body_bytes).await
        };
        match tokio::time::timeout(options.limits.body_timeout, read).await {
            Ok(Ok(bytes)) => Ok(bytes),
            Ok(Err(_)) => Err(Box::new(refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                None,
                -32600,
                &format!("Payload too large: a message is at most {} bytes", options.limits.max_body_bytes),
            ))),
            Err(_) => Err(Box::new(refuse(
                StatusCode::REQUEST_TIMEOUT,
                None,
                -32600,
                &format!(
                    "Request timeout: the body did not arrive within {} ms; send it whole, then retry",
                    options.limits.body_timeout.as_millis()
                ),
            ))),
        }
    }
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
                    Some((session, endpoint)) => resumable(
                        session.open_stream(outbox, endpoint.shared.options.http.limits.retry_ms, &endpoint.replay),
                        0,
                        endpoint.replay_budget(),
                    ),
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
