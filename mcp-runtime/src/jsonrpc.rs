//! JSON-RPC 2.0 framing: what one incoming line is, and the bytes of what goes out.

use std::borrow::Cow;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

/// One incoming line, classified. `params` stay unparsed (borrowed from the line) until
/// the method that reads them knows what shape it wants.
#[derive(Debug)]
pub(crate) enum Incoming<'a> {
    Request {
        id: Value,
        method: Cow<'a, str>,
        params: Option<&'a RawValue>,
    },
    Notification {
        method: Cow<'a, str>,
        params: Option<&'a RawValue>,
    },
    /// A response from the client (`result`/`error`, no `method`).
    Response,
    /// Not a JSON-RPC message: answered with -32600, with the id when it could be read.
    Invalid {
        id: Value,
        message: &'static str,
    },
    /// Not JSON: -32700, id null.
    ParseError,
}

/// The members of a message, each kept as raw JSON text; `Some` whenever the key is present,
/// `null` included.
#[derive(Deserialize)]
struct Raw<'a> {
    #[serde(default, borrow, deserialize_with = "present")]
    jsonrpc: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    method: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    params: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    error: Option<&'a RawValue>,
}

/// `Some(raw)` whenever the key is present, `null` included.
pub(crate) fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// `true` when the raw JSON text is an object (it has been parsed, so its first byte tells).
pub(crate) fn is_object(raw: &RawValue) -> bool {
    raw.get().starts_with('{')
}

pub(crate) fn parse(line: &[u8]) -> Incoming<'_> {
    // A derived `Deserialize` also accepts a JSON array (fields by position), so a batch must
    // be caught before `Raw` reads it: `["2.0", 1, "ping"]` is not a ping.
    if line.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') {
        return if not_json(line) {
            Incoming::ParseError
        } else {
            Incoming::Invalid {
                id: Value::Null,
                message: "Invalid request: JSON-RPC batches are not supported; send one message per line",
            }
        };
    }
    let raw: Raw<'_> = match serde_json::from_slice(line) {
        Ok(raw) => raw,
        Err(_) => {
            return if not_json(line) {
                Incoming::ParseError
            } else if line.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') {
                // Every member is read raw, so an object fails only on a repeated member.
                Incoming::Invalid { id: Value::Null, message: "Invalid request: a member appears more than once" }
            } else {
                Incoming::Invalid { id: Value::Null, message: "Invalid request: a JSON-RPC message is a JSON object" }
            };
        }
    };
    // JSON-RPC ids here are strings or integers; `1.5` is not an id.
    let id = match raw.id.map(|r| serde_json::from_str::<Value>(r.get())) {
        None => None,
        Some(Ok(id @ Value::String(_))) => Some(id),
        Some(Ok(Value::Number(n))) if n.is_i64() || n.is_u64() => Some(Value::Number(n)),
        Some(_) => Some(Value::Null),
    };
    let id_ok = id.as_ref().is_none_or(|id| !id.is_null());
    let reply_to = id.clone().unwrap_or(Value::Null);
    if raw.jsonrpc.map(RawValue::get) != Some("\"2.0\"") {
        return Incoming::Invalid { id: reply_to, message: "Invalid request: `jsonrpc` must be \"2.0\"" };
    }
    // A response is never answered, whatever its id (`null` is the id of an error response
    // to a message the client could not read).
    if raw.method.is_none() && (raw.result.is_some() || raw.error.is_some()) {
        return Incoming::Response;
    }
    if !id_ok {
        return Incoming::Invalid { id: reply_to, message: "Invalid request: `id` must be a string or an integer" };
    }
    let Some(method) = raw.method else {
        return Incoming::Invalid { id: reply_to, message: "Invalid request: no `method`" };
    };
    // Borrowed from the line unless the name has escapes.
    let method = match serde_json::from_str::<&str>(method.get()) {
        Ok(borrowed) => Cow::Borrowed(borrowed),
        Err(_) => match serde_json::from_str::<String>(method.get()) {
            Ok(owned) => Cow::Owned(owned),
            Err(_) => return Incoming::Invalid { id: reply_to, message: "Invalid request: `method` must be a string" },
        },
    };
    match id {
        Some(id) => Incoming::Request { id, method, params: raw.params },
        None => Incoming::Notification { method, params: raw.params },
    }
}

/// Not JSON at all (-32700), as opposed to JSON that is not a JSON-RPC message (-32600).
/// Skipping a value does not check that its strings are UTF-8, so that is checked first.
fn not_json(line: &[u8]) -> bool {
    std::str::from_utf8(line).is_err() || serde_json::from_slice::<serde::de::IgnoredAny>(line).is_err()
}

#[derive(Serialize)]
struct Success<'a, T: Serialize> {
    jsonrpc: &'static str,
    id: &'a Value,
    result: T,
}

#[derive(Serialize)]
struct Failure<'a> {
    jsonrpc: &'static str,
    id: &'a Value,
    error: ErrorObject<'a>,
}

#[derive(Serialize)]
struct ErrorObject<'a> {
    code: i32,
    message: &'a str,
}

#[derive(Serialize)]
struct Notification<'a, T: Serialize> {
    jsonrpc: &'static str,
    method: &'a str,
    params: T,
}

fn line(value: &impl Serialize) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    // Serializing our own types into a Vec cannot fail (no maps with non-string keys).
    if serde_json::to_writer(&mut out, value).is_err() {
        out.clear();
        out.extend_from_slice(br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error: response could not be serialized"}}"#);
    }
    out.push(b'\n');
    out
}

pub(crate) fn success(id: &Value, result: &impl Serialize) -> Vec<u8> {
    line(&Success { jsonrpc: "2.0", id, result })
}

pub(crate) fn failure(id: &Value, code: i32, message: &str) -> Vec<u8> {
    line(&Failure { jsonrpc: "2.0", id, error: ErrorObject { code, message } })
}

/// How every notification this server writes begins (field order is fixed by `Notification`).
pub(crate) const NOTIFICATION_PREFIX: &[u8] = br#"{"jsonrpc":"2.0","method""#;

pub(crate) fn notification(method: &str, params: &impl Serialize) -> Vec<u8> {
    line(&Notification { jsonrpc: "2.0", method, params })
}

/// A protocol error to answer a request with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RpcError {
    /// The JSON-RPC code (-32700..-32600).
    pub code: i32,
    /// The message.
    pub message: String,
}

impl RpcError {
    pub(crate) fn invalid_params(message: impl Into<String>) -> Self {
        RpcError { code: -32602, message: message.into() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn kind(line: &str) -> String {
        format!("{:?}", parse(line.as_bytes()))
    }

    #[test]
    fn lines_are_classified() {
        assert_eq!(kind("nope"), "ParseError");
        assert!(kind("[1]").contains("batches"));
        assert!(kind(r#"["2.0", 5, "ping"]"#).contains("batches"));
        assert!(kind(" []").contains("batches"));
        assert_eq!(kind("[1,"), "ParseError");
        assert!(kind(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#).contains("string or an integer"));
        assert!(kind("3").contains("JSON object"));
        assert!(kind(r#"{"jsonrpc":"1.0","id":4,"method":"ping"}"#).contains("Number(4)"));
        assert!(kind(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#).contains("string or an integer"));
        assert!(kind(r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#).contains("id: Null"));
        assert!(kind(r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#).starts_with("Request"));
        assert!(kind(r#"{"jsonrpc":"2.0","method":"x"}"#).starts_with("Notification"));
        assert_eq!(kind(r#"{"jsonrpc":"2.0","id":9,"result":{}}"#), "Response");
        assert_eq!(kind(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#), "Response");
        assert_eq!(format!("{:?}", parse(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}")), "ParseError");
        assert!(kind(r#"{"jsonrpc":"2.0","id":9}"#).contains("no `method`"));
    }

    #[test]
    fn ids_are_echoed_exactly() {
        let out = success(&json!("x-1"), &json!({}));
        assert_eq!(out, b"{\"jsonrpc\":\"2.0\",\"id\":\"x-1\",\"result\":{}}\n");
        let out = failure(&json!(7), -32601, "Method not found: x");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32601,\"message\":\"Method not found: x\"}}\n"
        );
    }
}
