//! The refusals: the HTTP error responses every rung of the ladder answers with (a status,
//! and a JSON-RPC error body), and the 202/200 without a body.

use axum::body::Body;
use axum::response::Response;
use http::{HeaderValue, StatusCode, header};
use serde_json::value::RawValue;

use crate::auth::bearer::Refused;
use crate::rpc::era::{LEGACY_VERSIONS, MODERN_VERSIONS};
use crate::rpc::jsonrpc::{self, RpcError};

/// An HTTP error response: status, and a JSON-RPC error body with the request's id, or
/// without an `id` member when the refusal answers no JSON-RPC request (a method, a header,
/// a body never read: MCP's schema makes `id` optional on errors, never `null`).
pub(super) fn refuse(status: StatusCode, id: Option<&RawValue>, code: i32, message: &str) -> Response {
    let error = RpcError { code, message: message.to_owned(), data: None };
    refuse_with(status, id, &error)
}

/// An HTTP error response carrying a JSON-RPC error (its code, message and data).
pub(super) fn refuse_with(status: StatusCode, id: Option<&RawValue>, error: &RpcError) -> Response {
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

/// A body that is not JSON, or JSON-RPC whose id could not be read: `id: null`, as JSON-RPC
/// 2.0 requires of such an answer.
pub(super) fn refuse_unreadable(code: i32, message: &str) -> Response {
    let mut body = jsonrpc::failure(None, code, message);
    body.pop();
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = StatusCode::BAD_REQUEST;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

pub(super) fn status_only(status: StatusCode) -> Response {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = status;
    response
}

pub(super) fn method_not_allowed(allow: &'static str) -> Response {
    let mut response = refuse(StatusCode::METHOD_NOT_ALLOWED, None, -32000, "Method not allowed");
    response.headers_mut().insert(header::ALLOW, HeaderValue::from_static(allow));
    response
}

/// 400 for an `MCP-Protocol-Version` this server does not speak, naming those it does.
pub(super) fn unsupported_version(id: Option<&RawValue>, version: &str) -> Response {
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

/// A request the authorization check refused: 401 with a challenge that names the
/// protected resource metadata (and `invalid_token` when a token was sent), or 403
/// `insufficient_scope` for a token without the scopes every request needs.
pub(super) fn unauthorized(auth: &crate::auth::bearer::Authorization, refused: &Refused) -> Response {
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
