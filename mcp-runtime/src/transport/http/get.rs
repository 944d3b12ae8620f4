//! GET: the session's standalone stream (its messages outside any request, and keep-alive
//! comments), or a request stream resumed after `Last-Event-ID`. Past the ladder's common
//! rungs (`endpoint`), a GET needs an `Accept` of SSE and a session of its caller.

use std::convert::Infallible;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::response::Response;
use http::{StatusCode, header};

use super::endpoint::Endpoint;
use super::refuse::refuse;
use super::stream::{KEEP_ALIVE, event_id, resumable, sse, trimmed};
use super::{LAST_EVENT_HEADER, header_str, lock};
use crate::auth::principal::Principal;
use crate::rpc::outbox::Kind;

impl Endpoint {
    /// GET: the session's standalone stream, or a request stream resumed after
    /// `Last-Event-ID`.
    pub(super) fn get(&self, request: &Request) -> Response {
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
}
