//! Who is asking: what one request knows of its client, and in which era it speaks.
//!
//! The era is a property of the request, not of the connection. A request whose `_meta`
//! claims a 2026-07-28 revision is *modern*: it carries its own envelope (version,
//! capabilities, client info, log level) and nothing else about the client counts. Any other
//! request is *legacy* (2025): it reads what its session's `initialize` declared. Every layer
//! below the session reads the era from the one [`Client`] value the session hands it.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::rpc::jsonrpc::{self, RpcError};

/// MCP Apps' identifier, under `capabilities.extensions` (`features::apps` serves it).
pub(crate) const APPS_EXTENSION: &str = "io.modelcontextprotocol/ui";
/// The MIME type of an MCP Apps view.
pub(crate) const APPS_MIME_TYPE: &str = "text/html;profile=mcp-app";
use crate::rpc::pending::Pending;

/// Modern revisions served: `server/discover`'s `supportedVersions`, and `-32022`'s
/// `data.supported`.
pub(crate) const MODERN_VERSIONS: [&str; 1] = ["2026-07-28"];
/// Legacy revisions served (negotiated by `initialize`), newest first.
pub(crate) const LEGACY_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
const CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
const LOG_LEVEL_KEY: &str = "io.modelcontextprotocol/logLevel";

/// MCP log levels, from least to most severe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// Debugging detail.
    Debug,
    /// Informational.
    Info,
    /// Normal but significant.
    Notice,
    /// A warning.
    Warning,
    /// An error.
    Error,
    /// A critical condition.
    Critical,
    /// Action must be taken at once.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LogLevel {
    const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    fn from_u8(n: u8) -> LogLevel {
        LogLevel::ALL.get(usize::from(n)).copied().unwrap_or(LogLevel::Emergency)
    }
}

/// The protocol era a request speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Era {
    /// 2025-11-25 and before: `initialize` opens a session whose values every request shares.
    Legacy,
    /// 2026-07-28: every request carries its protocol version and the client's capabilities.
    Modern,
}

/// A modern request's envelope (`params._meta`), as sent.
#[derive(Debug)]
pub(crate) struct Envelope {
    pub(crate) version: &'static str,
    pub(crate) capabilities: Value,
    pub(crate) info: Option<Value>,
    /// No `logLevel`: no `notifications/message` for this request.
    pub(crate) log_level: Option<LogLevel>,
}

/// What a session's `initialize` declared, and its `logging/setLevel`.
#[derive(Debug)]
pub(crate) struct Legacy {
    version: OnceLock<&'static str>,
    info: OnceLock<Value>,
    capabilities: OnceLock<Value>,
    log_level: AtomicU8,
    /// The requests this session's calls sent to the client (the legacy shim's legs).
    pub(crate) pending: Pending,
    /// A request served alone, over HTTP without sessions: nothing was declared, and the
    /// server cannot send the client a request and wait for its answer.
    per_request: bool,
}

impl Default for Legacy {
    fn default() -> Self {
        Legacy {
            version: OnceLock::new(),
            info: OnceLock::new(),
            capabilities: OnceLock::new(),
            log_level: AtomicU8::new(LogLevel::Info as u8),
            pending: Pending::default(),
            per_request: false,
        }
    }
}

impl Legacy {
    /// The client of one request served over HTTP without sessions.
    #[cfg(feature = "http")]
    pub(crate) fn per_request() -> Self {
        Legacy { per_request: true, ..Legacy::default() }
    }

    /// Records what `initialize` declared (once).
    pub(crate) fn declare(&self, version: &'static str, info: Option<Value>, capabilities: Option<Value>) {
        let _ = self.version.set(version);
        if let Some(info) = info {
            let _ = self.info.set(info);
        }
        // A session's view is what it declared: nothing declared is `{}`, not "no view" (which
        // is a request served alone).
        let _ = self.capabilities.set(capabilities.unwrap_or_else(|| Value::Object(serde_json::Map::new())));
    }

    /// The revision `initialize` negotiated, once it did.
    pub(crate) fn version(&self) -> Option<&'static str> {
        self.version.get().copied()
    }

    pub(crate) fn set_level(&self, level: LogLevel) {
        self.log_level.store(level as u8, Ordering::Relaxed);
    }
}

/// The client as one request sees it.
#[derive(Clone, Debug)]
pub(crate) enum Client {
    Legacy(Arc<Legacy>),
    Modern(Arc<Envelope>),
}

impl Client {
    pub(crate) fn era(&self) -> Era {
        match self {
            Client::Legacy(_) => Era::Legacy,
            Client::Modern(_) => Era::Modern,
        }
    }

    /// The revision this request speaks: the modern claim, or what `initialize` negotiated.
    pub(crate) fn protocol_version(&self) -> Option<&'static str> {
        match self {
            Client::Legacy(legacy) => legacy.version(),
            Client::Modern(envelope) => Some(envelope.version),
        }
    }

    /// A 2025 request served over HTTP without sessions: no server-to-client round trip can
    /// be made for it, and its client's capabilities are not known.
    pub(crate) fn is_per_request(&self) -> bool {
        matches!(self, Client::Legacy(legacy) if legacy.per_request)
    }

    pub(crate) fn capabilities(&self) -> Option<&Value> {
        match self {
            Client::Legacy(legacy) => legacy.capabilities.get(),
            Client::Modern(envelope) => Some(&envelope.capabilities),
        }
    }

    /// Whether the client declared MCP Apps ([`APPS_EXTENSION`]) with the views' MIME type
    /// among its `mimeTypes` (which the extension requires).
    pub(crate) fn shows_apps(&self) -> bool {
        self.capabilities()
            .and_then(|c| c.get("extensions")?.get(APPS_EXTENSION)?.get("mimeTypes")?.as_array())
            .is_some_and(|types| types.iter().any(|t| t.as_str() == Some(APPS_MIME_TYPE)))
    }

    pub(crate) fn info(&self) -> Option<&Value> {
        match self {
            Client::Legacy(legacy) => legacy.info.get(),
            Client::Modern(envelope) => envelope.info.as_ref(),
        }
    }

    /// Whether a record at `level` goes to the client: at or above the session's level
    /// (legacy, `info` until `logging/setLevel`), or this request's `logLevel` (modern; none
    /// without one).
    pub(crate) fn wants(&self, level: LogLevel) -> bool {
        match self {
            Client::Legacy(legacy) => level >= LogLevel::from_u8(legacy.log_level.load(Ordering::Relaxed)),
            Client::Modern(envelope) => envelope.log_level.is_some_and(|min| level >= min),
        }
    }
}

/// What a request's `_meta` claims about its era.
#[derive(Debug)]
pub(crate) enum Claim {
    /// No protocol version in `_meta` (or no `_meta`).
    None,
    /// A legacy revision named in `_meta`: legacy traffic.
    Legacy,
    /// A supported modern revision, with its envelope.
    Modern(Envelope),
}

/// The envelope members of a request's `_meta`, each kept as raw JSON text.
#[derive(Deserialize)]
struct Meta<'a> {
    #[serde(
        default,
        borrow,
        rename = "io.modelcontextprotocol/protocolVersion",
        deserialize_with = "jsonrpc::present"
    )]
    version: Option<&'a RawValue>,
    #[serde(
        default,
        borrow,
        rename = "io.modelcontextprotocol/clientCapabilities",
        deserialize_with = "jsonrpc::present"
    )]
    capabilities: Option<&'a RawValue>,
    #[serde(default, borrow, rename = "io.modelcontextprotocol/clientInfo", deserialize_with = "jsonrpc::present")]
    info: Option<&'a RawValue>,
    #[serde(default, borrow, rename = "io.modelcontextprotocol/logLevel", deserialize_with = "jsonrpc::present")]
    log_level: Option<&'a RawValue>,
}

/// A request's `_meta`, when its params are an object whose `_meta` is one.
fn meta(params: Option<&RawValue>) -> Option<Meta<'_>> {
    serde_json::from_str(jsonrpc::meta(params)?.get()).ok()
}

/// Reads the era claim of a request's params. `-32602` for a malformed claim (a version that
/// is not a string; a modern claim without a `clientCapabilities` object; a bad `logLevel`),
/// `-32022` for a version this server does not serve.
pub(crate) fn claim(params: Option<&RawValue>) -> Result<Claim, RpcError> {
    let Some(meta) = meta(params) else { return Ok(Claim::None) };
    let Some(version) = version_of(&meta)? else { return Ok(Claim::None) };
    if LEGACY_VERSIONS.contains(&version.as_str()) {
        return Ok(Claim::Legacy);
    }
    let Some(version) = MODERN_VERSIONS.iter().find(|v| **v == version).copied() else {
        return Err(unsupported_version(&version));
    };
    let capabilities = match meta.capabilities {
        Some(raw) if jsonrpc::is_object(raw) => serde_json::from_str(raw.get()).unwrap_or(Value::Null),
        Some(_) => {
            return Err(RpcError::invalid_params(format!(
                "Invalid params: `_meta[\"{CAPABILITIES_KEY}\"]` must be an object (`{{}}` for none)"
            )));
        }
        None => {
            return Err(RpcError::invalid_params(format!(
                "Invalid params: a {version} request carries `_meta[\"{CAPABILITIES_KEY}\"]` (`{{}}` for none)"
            )));
        }
    };
    // Self-reported and never a security input: kept when it is an object, ignored otherwise.
    let info = meta.info.filter(|raw| jsonrpc::is_object(raw)).and_then(|raw| serde_json::from_str(raw.get()).ok());
    let log_level = match meta.log_level {
        None => None,
        Some(raw) => Some(serde_json::from_str::<LogLevel>(raw.get()).map_err(|_| {
            RpcError::invalid_params(format!(
                "Invalid params: `_meta[\"{LOG_LEVEL_KEY}\"]` must be one of debug, info, notice, warning, error, critical, alert, emergency"
            ))
        })?),
    };
    Ok(Claim::Modern(Envelope { version, capabilities, info, log_level }))
}

/// The protocol version a request's `_meta` names: `Ok(None)` when it names none, `Err` when
/// it is not a string.
#[cfg(feature = "http")]
pub(crate) fn claimed_version(params: Option<&RawValue>) -> Result<Option<String>, RpcError> {
    meta(params).map_or(Ok(None), |meta| version_of(&meta))
}

fn version_of(meta: &Meta<'_>) -> Result<Option<String>, RpcError> {
    meta.version.map(|raw| serde_json::from_str::<String>(raw.get()).map_err(|_| not_a_string())).transpose()
}

fn not_a_string() -> RpcError {
    RpcError::invalid_params(format!("Invalid params: `_meta[\"{VERSION_KEY}\"]` must be a string"))
}

/// `-32022`: a claimed version this server does not serve.
pub(crate) fn unsupported_version(requested: &str) -> RpcError {
    RpcError {
        code: -32022,
        message: format!(
            "Unsupported protocol version {requested:?}; this server speaks {}",
            MODERN_VERSIONS.join(", ")
        ),
        data: Some(serde_json::json!({"supported": MODERN_VERSIONS, "requested": requested})),
    }
}

/// The `_meta` key a modern result names its server with.
pub(crate) const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";
/// The `_meta` key a listen stream's messages carry.
pub(crate) const SUBSCRIPTION_KEY: &str = "io.modelcontextprotocol/subscriptionId";

/// A modern result's `_meta`: the server's name, then the result's own entries.
pub(crate) struct ResultMeta<'a> {
    server_info: &'a RawValue,
    subscription: Option<&'a RawValue>,
    rest: Option<&'a serde_json::Map<String, Value>>,
}

impl<'a> ResultMeta<'a> {
    pub(crate) fn new(server_info: &'a RawValue) -> Self {
        ResultMeta { server_info, subscription: None, rest: None }
    }
}

impl Serialize for ResultMeta<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry(SERVER_INFO_KEY, self.server_info)?;
        if let Some(id) = self.subscription {
            map.serialize_entry(SUBSCRIPTION_KEY, id)?;
        }
        for (k, v) in self.rest.into_iter().flatten() {
            if k != SERVER_INFO_KEY && k != SUBSCRIPTION_KEY {
                map.serialize_entry(k, v)?;
            }
        }
        map.end()
    }
}

/// A modern complete result: `resultType`, the result's members, and `_meta` naming the
/// server (merged with the result's own `_meta`, taken out of it beforehand).
#[derive(Serialize)]
pub(crate) struct Complete<'a, T: Serialize> {
    #[serde(rename = "resultType")]
    result_type: &'static str,
    #[serde(flatten)]
    result: &'a T,
    #[serde(rename = "_meta")]
    meta: ResultMeta<'a>,
}

impl<'a, T: Serialize> Complete<'a, T> {
    pub(crate) fn new(
        result: &'a T,
        server_info: &'a RawValue,
        rest: Option<&'a serde_json::Map<String, Value>>,
    ) -> Self {
        Complete { result_type: "complete", result, meta: ResultMeta { server_info, subscription: None, rest } }
    }

    /// A `CreateTaskResult`: `resultType: "task"` and the task's members.
    pub(crate) fn task(result: &'a T, server_info: &'a RawValue) -> Self {
        Complete { result_type: "task", result, meta: ResultMeta { server_info, subscription: None, rest: None } }
    }

    /// The graceful end of a listen stream: an empty result naming its subscription.
    pub(crate) fn listen_end(result: &'a T, server_info: &'a RawValue, subscription: &'a RawValue) -> Self {
        Complete {
            result_type: "complete",
            result,
            meta: ResultMeta { server_info, subscription: Some(subscription), rest: None },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim_of(params: &str) -> Result<Claim, RpcError> {
        let raw: Box<RawValue> = serde_json::from_str(params).unwrap();
        claim(Some(&raw))
    }

    #[test]
    fn claims_are_read_from_meta() {
        assert!(matches!(claim_of(r#"{"name":"x"}"#), Ok(Claim::None)));
        assert!(matches!(claim_of(r#"{"_meta":{"progressToken":1}}"#), Ok(Claim::None)));
        assert!(matches!(
            claim_of(r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}"#),
            Ok(Claim::Legacy)
        ));
        let modern = claim_of(
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}},"io.modelcontextprotocol/logLevel":"warning"}}"#,
        );
        let Ok(Claim::Modern(envelope)) = modern else { panic!("{modern:?}") };
        assert_eq!(envelope.capabilities, serde_json::json!({"sampling": {}}));
        assert_eq!(envelope.log_level, Some(LogLevel::Warning));
        assert!(envelope.info.is_none());
    }

    #[test]
    fn bad_claims_are_refused_with_their_code() {
        let code = |p| claim_of(p).map(|_| ()).unwrap_err().code;
        assert_eq!(code(r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":7}}"#), -32602);
        assert_eq!(code(r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#), -32602);
        assert_eq!(
            code(
                r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}}"#
            ),
            -32602
        );
        let unknown = claim_of(r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999.0.0"}}"#).unwrap_err();
        assert_eq!(unknown.code, -32022);
        assert_eq!(unknown.data, Some(serde_json::json!({"supported": ["2026-07-28"], "requested": "v999.0.0"})));
    }

    #[test]
    fn thresholds_follow_the_era() {
        let legacy = Client::Legacy(Arc::default());
        assert!(!legacy.wants(LogLevel::Debug));
        assert!(legacy.wants(LogLevel::Info));
        let silent = Client::Modern(Arc::new(Envelope {
            version: "2026-07-28",
            capabilities: Value::Null,
            info: None,
            log_level: None,
        }));
        assert!(!silent.wants(LogLevel::Emergency));
    }
}
