//! How the endpoint's sessions begin, are found and end: `initialize` mints one (within the
//! caps on sessions, evicting the least recently used idle one), a later request finds its own
//! by `Mcp-Session-Id` and principal, and DELETE, idleness (`reap`) or eviction ends it.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::Request;
use axum::response::Response;
use http::{HeaderMap, StatusCode};
use serde_json::value::RawValue;

use super::endpoint::Endpoint;
use super::refuse::{refuse, refuse_with, status_only};
use super::session::HttpSession;
use super::{SESSION_HEADER, header_str};
use crate::auth::principal::{self, Principal};
use crate::rpc::channel::{Channel, peer_of};
use crate::rpc::outbox::Outbox;

/// The session a POST belongs to (none without sessions), and the id of one just minted.
type Found = (Option<Arc<HttpSession>>, Option<String>);

impl Endpoint {
    /// The session a POST belongs to, as [`Endpoint::session_for`] finds or mints it, once an
    /// `initialize` was let open one ([`Endpoint::admit_opening`]). A modern message belongs
    /// to no session: an `Mcp-Session-Id` is ignored, none is minted.
    pub(super) async fn session_of_post(
        &self,
        parts: &Arc<http::request::Parts>,
        initialize: bool,
        modern: bool,
        id: Option<&RawValue>,
    ) -> Result<Found, Box<Response>> {
        if modern {
            return Ok((None, None));
        }
        if initialize {
            self.admit_opening(parts, id).await?;
        }
        self.session_for(parts, initialize, id)
    }

    /// Whether the caller of this `initialize` may open a session: it spends what a call would
    /// of the caller's budget (`RateLimit`, a hook that counts sessions), asked before anything
    /// is minted, so a refused opening evicts no session either. Refused, it is answered as a
    /// refused call is over HTTP: 200, the JSON-RPC error in the body.
    pub(super) async fn admit_opening(
        &self,
        parts: &Arc<http::request::Parts>,
        id: Option<&RawValue>,
    ) -> Result<(), Box<Response>> {
        if !self.shared.observer.hooks.counts_sessions() {
            return Ok(());
        }
        let channel = Channel::new(Some(Arc::new(Outbox::default())), Some(Arc::clone(parts)))
            .with_local(self.shared.options.local_principal(true));
        crate::protocol::session::admit_opening(&self.shared, &channel)
            .await
            .map_err(|e| Box::new(refuse_with(StatusCode::OK, id, &e)))
    }

    /// The session a POST belongs to: minted by `initialize` (its id to send back), required
    /// afterwards; a throwaway one when stateless.
    pub(super) fn session_for(
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
            evicted = if mine >= options.limits.max_sessions_per_client {
                Some(least_recently_used(&sessions, Some(&session.client)))
            } else if sessions.len() >= options.limits.max_sessions {
                Some(least_recently_used(&sessions, None))
            } else {
                None
            };
            match &evicted {
                Some(None) => {
                    drop(sessions);
                    let per_client = mine >= options.limits.max_sessions_per_client;
                    tracing::warn!(target: "mcp_runtime::http",
                        max = if per_client { options.limits.max_sessions_per_client } else { options.limits.max_sessions },
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

    /// The live session a request names (`Mcp-Session-Id`): missing → 400, unknown or ended
    /// → 404, answered with the request's id when there is one.
    pub(super) fn session_of(
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

    pub(super) fn delete(&self, request: &Request) -> Response {
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

    /// Ends sessions idle past the limit (checked twice per idle period, at most once a minute),
    /// and lets go of request streams complete for longer than their retention.
    pub(super) async fn reap(endpoint: std::sync::Weak<Self>) {
        loop {
            let idle = match endpoint.upgrade() {
                Some(endpoint) => endpoint.shared.options.http.limits.session_idle,
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

/// A fresh session id: 32 characters from the OS's cryptographic source (visible ASCII).
fn session_id() -> String {
    crate::rpc::request_id::RequestId::token(32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_are_visible_ascii_and_fresh() {
        let a = session_id();
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|b| (0x21..=0x7e).contains(&b)));
        assert_ne!(a, session_id());
    }
}
