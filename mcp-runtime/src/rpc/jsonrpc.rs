//! JSON-RPC 2.0 framing: what one incoming line is, and the bytes of what goes out.

use std::borrow::Cow;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;

/// One incoming line, classified. `params` stay unparsed (borrowed from the line) until
/// the method that reads them knows what shape it wants.
#[derive(Debug)]
pub(crate) enum Incoming<'a> {
    Request {
        /// As sent (a string or a number, echoed byte for byte).
        id: &'a RawValue,
        method: Cow<'a, str>,
        params: Option<&'a RawValue>,
    },
    Notification {
        method: Cow<'a, str>,
        params: Option<&'a RawValue>,
    },
    /// A response from the client (`result`/`error`, no `method`): the answer to a request
    /// this server sent (the legacy shim's), routed by its id.
    Response {
        id: Option<&'a RawValue>,
        result: Option<&'a RawValue>,
        error: Option<&'a RawValue>,
    },
    /// Not a JSON-RPC message: answered with -32600, with the id when it could be read.
    Invalid {
        id: Option<Box<RawValue>>,
        message: Cow<'static, str>,
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

/// A request's `_meta`, when its params are an object whose `_meta` is one: read by the era
/// (its per-request claims) and by the observer (trace context).
pub(crate) fn meta(params: Option<&RawValue>) -> Option<&RawValue> {
    #[derive(Deserialize)]
    struct Params<'a> {
        #[serde(default, borrow, rename = "_meta", deserialize_with = "present")]
        meta: Option<&'a RawValue>,
    }
    let params = params.filter(|p| is_object(p))?;
    // A member named `_meta` is written `"_meta"`, or with an escape in its name: params with
    // neither (most calls) have none, found without parsing them.
    let text = params.get();
    if !text.contains("\"_meta\"") && !text.contains('\\') {
        return None;
    }
    serde_json::from_str::<Params<'_>>(text).ok()?.meta.filter(|m| is_object(m))
}

/// The longest id (and progress token) accepted, in bytes of JSON text: the server keeps each
/// one while its call runs.
pub(crate) const MAX_ID_BYTES: usize = 4096;

fn invalid(id: Option<&RawValue>, message: impl Into<Cow<'static, str>>) -> Incoming<'static> {
    Incoming::Invalid { id: id.map(ToOwned::to_owned), message: message.into() }
}

/// A JSON-RPC id: a string or a number (any JSON number: it is echoed as sent), not too long.
pub(crate) fn valid_id(raw: &RawValue) -> Result<&RawValue, Cow<'static, str>> {
    let text = raw.get();
    if !(text.starts_with('"') || text.starts_with('-') || text.starts_with(|c: char| c.is_ascii_digit())) {
        return Err("Invalid request: `id` must be a string or a number".into());
    }
    if text.len() > MAX_ID_BYTES {
        return Err(format!("Invalid request: `id` is longer than {MAX_ID_BYTES} bytes").into());
    }
    Ok(raw)
}

pub(crate) fn parse(line: &[u8]) -> Incoming<'_> {
    // A derived `Deserialize` also accepts a JSON array (fields by position), so a batch must
    // be caught before `Raw` reads it: `["2.0", 1, "ping"]` is not a ping.
    if line.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') {
        return if not_json(line) {
            Incoming::ParseError
        } else {
            invalid(None, "Invalid request: JSON-RPC batches are not supported; send one message per line")
        };
    }
    let raw: Raw<'_> = match serde_json::from_slice(line) {
        Ok(raw) => raw,
        Err(error) => {
            return if not_json(line) {
                Incoming::ParseError
            } else if line.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') {
                // Every member is read raw, so an object fails only on a repeated member (its
                // id, when readable, is still the one to answer with) or on a member name
                // that is no text: an escaped surrogate without its pair, `"\ud800"`, which
                // the JSON grammar allows and no name of ours holds (found by fuzzing).
                if error.to_string().starts_with("duplicate field") {
                    Incoming::Invalid {
                        id: id_of_repeated(line),
                        message: "Invalid request: a member appears more than once".into(),
                    }
                } else {
                    invalid(None, "Invalid request: a member name holds an unpaired surrogate (\\ud800-\\udfff)")
                }
            } else {
                invalid(None, "Invalid request: a JSON-RPC message is a JSON object")
            };
        }
    };
    // `null` is no id; nor is an object, an array or a boolean.
    let id = raw.id.map(valid_id);
    let reply_to = id.as_ref().and_then(|id| id.as_ref().ok().copied());
    if raw.jsonrpc.map(RawValue::get) != Some("\"2.0\"") {
        return invalid(reply_to, "Invalid request: `jsonrpc` must be \"2.0\"");
    }
    // A response is never answered, whatever its id (`null` is the id of an error response
    // to a message the client could not read).
    if raw.method.is_none() && (raw.result.is_some() || raw.error.is_some()) {
        return Incoming::Response { id: reply_to, result: raw.result, error: raw.error };
    }
    let id = match id {
        None => None,
        Some(Ok(id)) => Some(id),
        Some(Err(message)) => return invalid(None, message),
    };
    let Some(method) = raw.method else {
        return invalid(reply_to, "Invalid request: no `method`");
    };
    // Borrowed from the line unless the name has escapes.
    let method = match serde_json::from_str::<&str>(method.get()) {
        Ok(borrowed) => Cow::Borrowed(borrowed),
        Err(_) => match serde_json::from_str::<String>(method.get()) {
            Ok(owned) => Cow::Owned(owned),
            // A string the JSON grammar allows, but no text: an unpaired surrogate escape.
            Err(_) if method.get().starts_with('"') => {
                return invalid(reply_to, "Invalid request: `method` holds an unpaired surrogate (\\ud800-\\udfff)");
            }
            Err(_) => return invalid(reply_to, "Invalid request: `method` must be a string"),
        },
    };
    match id {
        Some(id) => Incoming::Request { id, method, params: raw.params },
        None => Incoming::Notification { method, params: raw.params },
    }
}

/// The id of an object with a repeated member, when it has exactly one valid `id`.
fn id_of_repeated(line: &[u8]) -> Option<Box<RawValue>> {
    struct Ids(Vec<Box<RawValue>>);
    impl<'de> Deserialize<'de> for Ids {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct Visit;
            impl<'de> serde::de::Visitor<'de> for Visit {
                type Value = Ids;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("an object")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Ids, A::Error> {
                    let mut ids = Vec::new();
                    while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                        if key == "id" {
                            ids.push(map.next_value::<Box<RawValue>>()?);
                        } else {
                            map.next_value::<serde::de::IgnoredAny>()?;
                        }
                    }
                    Ok(Ids(ids))
                }
            }
            d.deserialize_map(Visit)
        }
    }
    let Ids(mut ids) = serde_json::from_slice(line).ok()?;
    if ids.len() != 1 {
        return None;
    }
    let id = ids.pop()?;
    valid_id(&id).is_ok().then_some(id)
}

/// Not JSON at all (-32700), as opposed to JSON that is not a JSON-RPC message (-32600).
/// Skipping a value does not check that its strings are UTF-8, so that is checked first.
fn not_json(line: &[u8]) -> bool {
    std::str::from_utf8(line).is_err() || serde_json::from_slice::<serde::de::IgnoredAny>(line).is_err()
}

#[derive(Serialize)]
struct Success<'a, T: Serialize> {
    jsonrpc: &'static str,
    id: &'a RawValue,
    result: T,
}

#[derive(Serialize)]
struct Failure<'a> {
    jsonrpc: &'static str,
    /// `None` is `null`: the request's id could not be read.
    id: Option<&'a RawValue>,
    error: ErrorObject<'a>,
}

#[derive(Serialize)]
struct ErrorObject<'a> {
    code: i32,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<&'a serde_json::Value>,
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

pub(crate) fn success(id: &RawValue, result: &impl Serialize) -> Vec<u8> {
    line(&Success { jsonrpc: "2.0", id, result })
}

pub(crate) fn failure(id: Option<&RawValue>, code: i32, message: &str) -> Vec<u8> {
    line(&Failure { jsonrpc: "2.0", id, error: ErrorObject { code, message, data: None } })
}

/// An error that answers no request (no `id` member at all).
#[cfg(feature = "http")]
pub(crate) fn error_without_id(error: &RpcError) -> Vec<u8> {
    #[derive(Serialize)]
    struct Unaddressed<'a> {
        jsonrpc: &'static str,
        error: ErrorObject<'a>,
    }
    let RpcError { code, message, data } = error;
    line(&Unaddressed { jsonrpc: "2.0", error: ErrorObject { code: *code, message, data: data.as_ref() } })
}

/// The answer to a request that failed with `error`.
pub(crate) fn error(id: Option<&RawValue>, error: &RpcError) -> Vec<u8> {
    let RpcError { code, message, data } = error;
    line(&Failure { jsonrpc: "2.0", id, error: ErrorObject { code: *code, message, data: data.as_ref() } })
}

/// A request this server sends to the client (the legacy shim's legs).
pub(crate) fn request(id: u64, method: &str, params: Option<&serde_json::Value>) -> Vec<u8> {
    #[derive(Serialize)]
    struct Request<'a> {
        jsonrpc: &'static str,
        id: u64,
        method: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        params: Option<&'a serde_json::Value>,
    }
    let mut line = serde_json::to_vec(&Request { jsonrpc: "2.0", id, method, params }).unwrap_or_default();
    line.push(b'\n');
    line
}

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
    /// Structured detail (`error.data`).
    pub data: Option<serde_json::Value>,
}

impl RpcError {
    pub(crate) fn invalid_params(message: impl Into<String>) -> Self {
        RpcError { code: -32602, message: message.into(), data: None }
    }

    pub(crate) fn method_not_found(method: &str) -> Self {
        RpcError { code: -32601, message: format!("Method not found: {method}"), data: None }
    }

    /// `-32020`: an HTTP header disagrees with the body (2026-07-28).
    pub(crate) fn header_mismatch(message: impl std::fmt::Display) -> Self {
        RpcError { code: -32020, message: format!("Header mismatch: {message}"), data: None }
    }

    pub(crate) fn invalid_request(message: impl Into<String>) -> Self {
        RpcError { code: -32600, message: message.into(), data: None }
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
    fn meta_is_found_however_its_name_is_written_and_only_at_the_top() {
        let meta_of = |params: &str| {
            let raw = RawValue::from_string(params.to_owned()).expect("json");
            meta(Some(&raw)).map(|m| m.get().to_owned())
        };
        assert_eq!(meta_of(r#"{"name":"add","_meta":{"k":1}}"#).as_deref(), Some(r#"{"k":1}"#));
        assert_eq!(meta_of(r#"{"name":"add","\u005fmeta":{"k":2}}"#).as_deref(), Some(r#"{"k":2}"#));
        assert_eq!(meta_of(r#"{"arguments":{"_meta":{"k":3}}}"#), None, "a nested `_meta` is the tool's");
        assert_eq!(meta_of(r#"{"name":"add","arguments":{"a":1}}"#), None);
        assert_eq!(meta_of(r#"{"name":"a\"b","_meta":7}"#), None, "not an object");
    }

    #[test]
    fn lines_are_classified() {
        assert_eq!(kind("nope"), "ParseError");
        assert!(kind("[1]").contains("batches"));
        assert!(kind(r#"["2.0", 5, "ping"]"#).contains("batches"));
        assert!(kind(" []").contains("batches"));
        assert_eq!(kind("[1,"), "ParseError");
        assert!(kind(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#).starts_with("Request"));
        assert!(kind(r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#).contains("string or a number"));
        assert!(kind("3").contains("JSON object"));
        assert!(kind(r#"{"jsonrpc":"1.0","id":4,"method":"ping"}"#).contains("RawValue(4)"));
        assert!(kind(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#).contains("string or a number"));
        assert!(kind(r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#).contains("id: None"));
        assert!(kind(r#"{"jsonrpc":"2.0","id":6,"method":"ping","method":"ping"}"#).contains("RawValue(6)"));
        assert!(kind(r#"{"jsonrpc":"2.0","id":6,"id":7,"method":"ping"}"#).contains("id: None"));
        assert!(kind(r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#).starts_with("Request"));
        assert!(kind(r#"{"jsonrpc":"2.0","method":"x"}"#).starts_with("Notification"));
        assert_eq!(
            kind(r#"{"jsonrpc":"2.0","id":9,"result":{}}"#),
            "Response { id: Some(RawValue(9)), result: Some(RawValue({})), error: None }"
        );
        assert!(
            kind(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#)
                .starts_with("Response { id: None, result: None, error: Some(")
        );
        assert_eq!(format!("{:?}", parse(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}")), "ParseError");
        assert!(kind(r#"{"jsonrpc":"2.0","id":9}"#).contains("no `method`"));
        // The JSON grammar allows an unpaired surrogate; a name holding one is none of ours.
        assert!(kind(r#"{"jsonrpc":"2.0","x\ud800":1,"method":"ping"}"#).contains("unpaired surrogate"));
        assert!(kind(r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x\ud800":1}}"#).starts_with("Request"));
        assert!(kind(r#"{"jsonrpc":"2.0","id":"\ud800","method":"ping"}"#).starts_with("Request"));
        assert!(kind(r#"{"jsonrpc":"2.0","method":"notifica\ud800tions/x"}"#).contains("`method` holds an unpaired"));
        assert!(kind(r#"{"jsonrpc":"2.0","id":2,"method":7}"#).contains("`method` must be a string"));
    }

    #[test]
    fn ids_are_echoed_exactly() {
        let id = |text: &str| RawValue::from_string(text.to_owned()).expect("JSON");
        let out = success(&id("\"x-1\""), &json!({}));
        assert_eq!(out, b"{\"jsonrpc\":\"2.0\",\"id\":\"x-1\",\"result\":{}}\n");
        let out = success(&id("-0"), &json!({}));
        assert_eq!(out, b"{\"jsonrpc\":\"2.0\",\"id\":-0,\"result\":{}}\n");
        let out = failure(Some(&id("7")), -32601, "Method not found: x");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32601,\"message\":\"Method not found: x\"}}\n"
        );
    }
}
