//! The numeric error codes of `structuredContent.error.code` (docs/errors.md#codes).

use std::fmt;

/// An error code as it appears in `structuredContent.error.code`.
///
/// The named codes form one table shared with other MCP frameworks, so that clients switch
/// on the same numbers; [`ErrorCode::Other`] carries any other integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// -32700: the line was not JSON.
    ParseError,
    /// -32600: not a JSON-RPC request.
    InvalidRequest,
    /// -32601: the method does not exist.
    MethodNotFound,
    /// -32602: the parameters or arguments are wrong.
    InvalidParams,
    /// -32603: the server failed.
    InternalError,
    /// -32000: a dependency is down or restarting.
    ServiceUnavailable,
    /// -32001: what was asked for does not exist.
    NotFound,
    /// -32002: the request conflicts with the current state.
    Conflict,
    /// -32003: too many requests.
    RateLimited,
    /// -32004: the work did not finish in time.
    Timeout,
    /// -32005: the caller may not do this.
    Forbidden,
    /// -32006: the caller is not authenticated.
    Unauthorized,
    /// -32007: the input is semantically invalid.
    ValidationError,
    /// -32008: the server is misconfigured.
    ConfigurationError,
    /// -32009: the server did not start properly.
    InitializationFailed,
    /// -32010: the database failed.
    DatabaseError,
    /// -32011: the request was cancelled.
    RequestCancelled,
    /// -32070: data could not be (de)serialized.
    SerializationError,
    /// -32099: nothing better is known.
    UnknownError,
    /// Any other integer code.
    Other(i32),
}

impl ErrorCode {
    /// Every named code with its name, in table order.
    pub const NAMED: [(&'static str, ErrorCode); 19] = [
        ("ParseError", Self::ParseError),
        ("InvalidRequest", Self::InvalidRequest),
        ("MethodNotFound", Self::MethodNotFound),
        ("InvalidParams", Self::InvalidParams),
        ("InternalError", Self::InternalError),
        ("ServiceUnavailable", Self::ServiceUnavailable),
        ("NotFound", Self::NotFound),
        ("Conflict", Self::Conflict),
        ("RateLimited", Self::RateLimited),
        ("Timeout", Self::Timeout),
        ("Forbidden", Self::Forbidden),
        ("Unauthorized", Self::Unauthorized),
        ("ValidationError", Self::ValidationError),
        ("ConfigurationError", Self::ConfigurationError),
        ("InitializationFailed", Self::InitializationFailed),
        ("DatabaseError", Self::DatabaseError),
        ("RequestCancelled", Self::RequestCancelled),
        ("SerializationError", Self::SerializationError),
        ("UnknownError", Self::UnknownError),
    ];

    /// The number sent on the wire.
    pub const fn as_i32(self) -> i32 {
        match self {
            Self::ParseError => -32700,
            Self::InvalidRequest => -32600,
            Self::MethodNotFound => -32601,
            Self::InvalidParams => -32602,
            Self::InternalError => -32603,
            Self::ServiceUnavailable => -32000,
            Self::NotFound => -32001,
            Self::Conflict => -32002,
            Self::RateLimited => -32003,
            Self::Timeout => -32004,
            Self::Forbidden => -32005,
            Self::Unauthorized => -32006,
            Self::ValidationError => -32007,
            Self::ConfigurationError => -32008,
            Self::InitializationFailed => -32009,
            Self::DatabaseError => -32010,
            Self::RequestCancelled => -32011,
            Self::SerializationError => -32070,
            Self::UnknownError => -32099,
            Self::Other(n) => n,
        }
    }

    /// The code for a number: a named code when the table has it, else [`ErrorCode::Other`].
    pub fn from_i32(n: i32) -> Self {
        Self::NAMED.iter().map(|&(_, c)| c).find(|c| c.as_i32() == n).unwrap_or(Self::Other(n))
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match Self::NAMED.iter().find(|(_, c)| c == self) {
            Some((name, c)) => write!(f, "{name} ({})", c.as_i32()),
            None => write!(f, "{}", self.as_i32()),
        }
    }
}

impl serde::Serialize for ErrorCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_i32(self.as_i32())
    }
}

impl<'de> serde::Deserialize<'de> for ErrorCode {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        i32::deserialize(d).map(Self::from_i32)
    }
}

#[cfg(test)]
mod tests {
    use super::ErrorCode;

    #[test]
    fn named_codes_round_trip_through_their_numbers() {
        for (_, code) in ErrorCode::NAMED {
            assert_eq!(ErrorCode::from_i32(code.as_i32()), code);
        }
        assert_eq!(ErrorCode::from_i32(-1), ErrorCode::Other(-1));
        assert_eq!(ErrorCode::NotFound.to_string(), "NotFound (-32001)");
    }
}
