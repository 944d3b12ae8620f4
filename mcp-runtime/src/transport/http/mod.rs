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
//!
//! The files, in a request's path: `serve` mounts the endpoint or runs the accept loop, and
//! hands each request to `endpoint`, which holds the endpoint's state and climbs the rungs
//! every request shares (Host/Origin, the token, the method). A POST goes on to `post`
//! (headers, body, JSON-RPC, its answer), which checks a 2026-07-28 request's headers with
//! `era`; a GET to `get` (the standalone stream, or a stream resumed). `lifecycle` mints,
//! finds and ends the sessions (DELETE, idleness, eviction); `session` is one session and the
//! request streams it keeps; `stream` writes the SSE bodies and replays them. Every refusal
//! is built in `refuse`. `settings` holds the builder's HTTP settings.

mod endpoint;
mod era;
mod get;
mod lifecycle;
mod post;
mod refuse;
mod serve;
mod session;
mod settings;
mod stream;

use std::sync::Mutex;

use http::HeaderMap;

// The headers the parts read (`post` also writes `Mcp-Session-Id`).
const SESSION_HEADER: &str = "mcp-session-id";
const VERSION_HEADER: &str = "mcp-protocol-version";
const LAST_EVENT_HEADER: &str = "last-event-id";
const METHOD_HEADER: &str = "mcp-method";
const NAME_HEADER: &str = "mcp-name";

/// A mutex's guard, poisoned or not: a panic while it was held does not stop the endpoint.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A header's value, when it is there and visible ASCII.
fn header_str<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}
