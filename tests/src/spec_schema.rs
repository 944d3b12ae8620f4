//! Checks a message a server wrote against the official JSON Schema of the MCP revision in
//! use: `tests/spec/schema-<version>.json`, generated from the spec repository's
//! `schema.ts` (see `tests/spec/README.md`) and embedded here, so no test needs the network,
//! npm or Node.
//!
//! [`check_message`] sorts a message by its shape and checks:
//!
//! - a **response** (`result` or `error`): the envelope against `JSONRPCResultResponse` or
//!   `JSONRPCErrorResponse`; a result, when the request's method is given, against the
//!   definition [`result_definition`] names for that method; an error whose code has its own
//!   definition (`-32042` in 2025-11-25; `-32020`, `-32021`, `-32022` in 2026-07-28) against
//!   that definition too;
//! - a **notification** (`method`, no `id`): against the member of the revision's
//!   `ServerNotification` union with that `method`;
//! - a **request** (`method` and `id`): against the member of `ServerRequest` with that
//!   `method` (2025-11-25; 2026-07-28 has no requests from server to client: they travel
//!   inside an `InputRequiredResult`).
//!
//! The notification and request members are read from the schema's unions, so they follow
//! the committed schema; the method → result table is [`result_definition`]'s. Formats
//! (`uri`, `uri-template`, ...) are checked too, as the spec repository checks its examples.
//!
//! ```
//! use mcp_tests::spec_schema::{Version, check_message};
//! use serde_json::json;
//!
//! let response = json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}});
//! assert!(check_message(Version::V2025_11_25, Some("tools/call"), &response).is_ok());
//! // 2026-07-28 requires `resultType` on every result.
//! let err = check_message(Version::V2026_07_28, Some("tools/call"), &response).unwrap_err();
//! assert!(err.contains("CallToolResult"), "{err}");
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::sync::LazyLock;

use jsonschema::error::ValidationErrorKind;
use jsonschema::{ValidationError, ValidatorMap};
use serde_json::Value;

/// A protocol revision with a committed schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Version {
    /// `2025-11-25`: `initialize` handshake, results without `resultType`.
    V2025_11_25,
    /// `2026-07-28`: no handshake (`server/discover`), `resultType` on every result.
    V2026_07_28,
}

impl Version {
    /// Every revision with a committed schema, oldest first.
    pub const ALL: [Version; 2] = [Version::V2025_11_25, Version::V2026_07_28];

    /// The revision as the protocol writes it, e.g. `"2025-11-25"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Version::V2025_11_25 => "2025-11-25",
            Version::V2026_07_28 => "2026-07-28",
        }
    }

    /// The revision a `protocolVersion` string names, if it has a committed schema.
    pub fn from_protocol_version(version: &str) -> Option<Version> {
        Version::ALL.into_iter().find(|v| v.as_str() == version)
    }

    fn schema(self) -> &'static Schema {
        static V2025_11_25: LazyLock<Schema> =
            LazyLock::new(|| Schema::compile(Version::V2025_11_25, include_str!("../spec/schema-2025-11-25.json")));
        static V2026_07_28: LazyLock<Schema> =
            LazyLock::new(|| Schema::compile(Version::V2026_07_28, include_str!("../spec/schema-2026-07-28.json")));
        match self {
            Version::V2025_11_25 => &V2025_11_25,
            Version::V2026_07_28 => &V2026_07_28,
        }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Checks one message the server wrote (a parsed JSON-RPC line or body) against the schema of
/// `version`.
///
/// `request_method` is the method of the request a response answers; with `None` a result is
/// checked only as far as the envelope's generic `Result` goes (an error response needs no
/// method). It is not used for notifications and requests.
///
/// A method that the revision does not define (for example `ping` or `initialize` in
/// 2026-07-28) is an error, not a pass: the revision has no result to check it against.
///
/// # Errors
/// A report naming the revision and each definition the message fails, with every violation
/// and the JSON pointer (from the message's root) where it is.
pub fn check_message(version: Version, request_method: Option<&str>, message: &Value) -> Result<(), String> {
    let schema = version.schema();
    let Some(object) = message.as_object() else {
        return Err(format!("{version}: a JSON-RPC message is an object, not {}", json_kind(message)));
    };
    let mut failures = Failures::new(version, describe_message(request_method, message));
    if let Some(method) = object.get("method") {
        let Some(method) = method.as_str() else {
            let envelope = if object.contains_key("id") { "JSONRPCRequest" } else { "JSONRPCNotification" };
            schema.check(envelope, message, "", &mut failures);
            return failures.finish();
        };
        if object.contains_key("id") {
            if let Some(definition) = schema.server_requests.get(method) {
                schema.check(definition, message, "", &mut failures);
            } else {
                schema.check("JSONRPCRequest", message, "", &mut failures);
                failures.note(format!(
                    "`{method}` is not a request a server sends in {version}; {}",
                    known_list("ServerRequest", &schema.server_requests)
                ));
            }
        } else if let Some(definition) = schema.server_notifications.get(method) {
            schema.check(definition, message, "", &mut failures);
        } else {
            schema.check("JSONRPCNotification", message, "", &mut failures);
            failures.note(format!(
                "`{method}` is not a notification a server sends in {version}; {}",
                known_list("ServerNotification", &schema.server_notifications)
            ));
        }
    } else if let Some(error) = object.get("error") {
        if object.contains_key("result") {
            failures.note("JSON-RPC 2.0: a response carries `result` or `error`, never both".to_owned());
        }
        schema.check("JSONRPCErrorResponse", message, "", &mut failures);
        let code = error.get("code").and_then(Value::as_i64);
        if let Some(definition) = code.and_then(|code| error_definition(version, code)) {
            schema.check(definition, message, "", &mut failures);
        }
    } else if let Some(result) = object.get("result") {
        schema.check("JSONRPCResultResponse", message, "", &mut failures);
        if let Some(method) = request_method {
            match result_definition(version, method, result) {
                Some(definition) => schema.check(definition, result, "/result", &mut failures),
                None => failures.note(format!(
                    "{version} defines no result for a `{method}` request (its methods: {})",
                    result_methods(version).join(", ")
                )),
            }
        }
    } else {
        failures.note(
            "neither a request or notification (no `method`) nor a response (no `result`, no `error`)".to_owned(),
        );
    }
    failures.finish()
}

/// Checks `instance` against the schema definition `definition` (a key of `$defs`, e.g.
/// `"CallToolResult"`) of `version`.
///
/// # Errors
/// The violations, as [`check_message`] reports them; also when the revision has no such
/// definition.
pub fn check_definition(version: Version, definition: &str, instance: &Value) -> Result<(), String> {
    let mut failures = Failures::new(version, format!("value checked as {definition}"));
    version.schema().check(definition, instance, "", &mut failures);
    failures.finish()
}

/// The definition a result for a request of `method` is checked against, or `None` when the
/// revision defines no such request.
///
/// | method | 2025-11-25 | 2026-07-28 |
/// | --- | --- | --- |
/// | `initialize` | `InitializeResult` | — |
/// | `ping`, `logging/setLevel`, `resources/subscribe`, `resources/unsubscribe` | `EmptyResult` | — |
/// | `server/discover` | — | `DiscoverResult` |
/// | `subscriptions/listen` | — | `SubscriptionsListenResult` |
/// | `tools/list` | `ListToolsResult` | `ListToolsResult` |
/// | `tools/call` | `CallToolResult` | `CallToolResult` / `InputRequiredResult` |
/// | `prompts/list` | `ListPromptsResult` | `ListPromptsResult` |
/// | `prompts/get` | `GetPromptResult` | `GetPromptResult` / `InputRequiredResult` |
/// | `resources/list` | `ListResourcesResult` | `ListResourcesResult` |
/// | `resources/templates/list` | `ListResourceTemplatesResult` | `ListResourceTemplatesResult` |
/// | `resources/read` | `ReadResourceResult` | `ReadResourceResult` / `InputRequiredResult` |
/// | `completion/complete` | `CompleteResult` | `CompleteResult` |
/// | `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel` | `GetTaskResult`, `GetTaskPayloadResult`, `ListTasksResult`, `CancelTaskResult` | — |
///
/// Where 2026-07-28 allows `X | InputRequiredResult` (its `XResultResponse`), the result's
/// `resultType` picks the member: `"input_required"` → `InputRequiredResult`, anything else
/// (or none) → `X`. The schema's own union would let any object with a string `resultType`
/// pass, since every other field of `InputRequiredResult` is optional (at `b0f60ba5` the spec
/// repository's own `read-resource-result-response.json` example, which lacks the `ttlMs` and
/// `cacheScope` that `ReadResourceResult` requires, passes only that way).
///
/// A task-augmented 2025-11-25 `tools/call` (answered with a `CreateTaskResult`) is not
/// covered: check it with [`check_definition`].
pub fn result_definition(version: Version, method: &str, result: &Value) -> Option<&'static str> {
    let &(_, definition, may_need_input) = result_table(version).iter().find(|(m, _, _)| *m == method)?;
    if may_need_input && result.get("resultType").and_then(Value::as_str) == Some("input_required") {
        Some("InputRequiredResult")
    } else {
        Some(definition)
    }
}

/// Method, result definition, and whether the result may instead be an `InputRequiredResult`.
type ResultTable = &'static [(&'static str, &'static str, bool)];

const RESULTS_2025_11_25: ResultTable = &[
    ("initialize", "InitializeResult", false),
    ("ping", "EmptyResult", false),
    ("logging/setLevel", "EmptyResult", false),
    ("tools/list", "ListToolsResult", false),
    ("tools/call", "CallToolResult", false),
    ("prompts/list", "ListPromptsResult", false),
    ("prompts/get", "GetPromptResult", false),
    ("resources/list", "ListResourcesResult", false),
    ("resources/templates/list", "ListResourceTemplatesResult", false),
    ("resources/read", "ReadResourceResult", false),
    ("resources/subscribe", "EmptyResult", false),
    ("resources/unsubscribe", "EmptyResult", false),
    ("completion/complete", "CompleteResult", false),
    ("tasks/get", "GetTaskResult", false),
    ("tasks/result", "GetTaskPayloadResult", false),
    ("tasks/list", "ListTasksResult", false),
    ("tasks/cancel", "CancelTaskResult", false),
];

const RESULTS_2026_07_28: ResultTable = &[
    ("server/discover", "DiscoverResult", false),
    ("tools/list", "ListToolsResult", false),
    ("tools/call", "CallToolResult", true),
    ("prompts/list", "ListPromptsResult", false),
    ("prompts/get", "GetPromptResult", true),
    ("resources/list", "ListResourcesResult", false),
    ("resources/templates/list", "ListResourceTemplatesResult", false),
    ("resources/read", "ReadResourceResult", true),
    ("completion/complete", "CompleteResult", false),
    ("subscriptions/listen", "SubscriptionsListenResult", false),
];

fn result_table(version: Version) -> ResultTable {
    match version {
        Version::V2025_11_25 => RESULTS_2025_11_25,
        Version::V2026_07_28 => RESULTS_2026_07_28,
    }
}

fn result_methods(version: Version) -> Vec<&'static str> {
    result_table(version).iter().map(|(method, _, _)| *method).collect()
}

/// The definition of a whole error response with this code, where the revision has one.
fn error_definition(version: Version, code: i64) -> Option<&'static str> {
    match (version, code) {
        (Version::V2025_11_25, -32042) => Some("URLElicitationRequiredError"),
        (Version::V2026_07_28, -32020) => Some("HeaderMismatchError"),
        (Version::V2026_07_28, -32021) => Some("MissingRequiredClientCapabilityError"),
        (Version::V2026_07_28, -32022) => Some("UnsupportedProtocolVersionError"),
        _ => None,
    }
}

/// One revision's schema: a validator for every definition, and the server-sent
/// notifications and requests by method.
struct Schema {
    validators: ValidatorMap,
    /// `method` → member of the `ServerNotification` union.
    server_notifications: BTreeMap<String, String>,
    /// `method` → member of the `ServerRequest` union (empty where the revision has none).
    server_requests: BTreeMap<String, String>,
}

impl Schema {
    fn compile(version: Version, text: &str) -> Schema {
        let document: Value =
            serde_json::from_str(text).unwrap_or_else(|e| panic!("tests/spec/schema-{version}.json is not JSON: {e}"));
        let validators = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .should_validate_formats(true)
            .build_map(&document)
            .unwrap_or_else(|e| panic!("tests/spec/schema-{version}.json does not compile: {e}"));
        let schema = Schema {
            validators,
            server_notifications: union_by_method(&document, "ServerNotification"),
            server_requests: union_by_method(&document, "ServerRequest"),
        };
        for (_, definition, _) in result_table(version) {
            assert!(
                schema.validators.contains_key(&pointer(definition)),
                "tests/spec/schema-{version}.json has no definition {definition}"
            );
        }
        schema
    }

    fn check(&self, definition: &str, instance: &Value, prefix: &str, failures: &mut Failures) {
        let Some(validator) = self.validators.get(&pointer(definition)) else {
            failures.note(format!("the schema has no definition {definition}"));
            return;
        };
        let mut lines = Vec::new();
        for error in validator.iter_errors(instance) {
            describe(&error, prefix, 1, &mut lines);
        }
        if !lines.is_empty() {
            let at = if prefix.is_empty() { String::new() } else { format!(" (at {prefix})") };
            failures.sections.push(format!("does not match {definition}{at}:\n{}", lines.join("\n")));
        }
    }
}

fn pointer(definition: &str) -> String {
    format!("#/$defs/{definition}")
}

/// `method` constant → member name, for each member of the union `$defs/<union>`.
fn union_by_method(document: &Value, union: &str) -> BTreeMap<String, String> {
    let defs = &document["$defs"];
    let members = defs[union]["anyOf"].as_array().map(Vec::as_slice).unwrap_or_default();
    members
        .iter()
        .filter_map(|member| member["$ref"].as_str()?.strip_prefix("#/$defs/"))
        .filter_map(|name| Some((defs[name]["properties"]["method"]["const"].as_str()?.to_owned(), name.to_owned())))
        .collect()
}

fn known_list(union: &str, members: &BTreeMap<String, String>) -> String {
    if members.is_empty() {
        format!("the schema has no {union}")
    } else {
        format!("{union} has: {}", members.keys().map(String::as_str).collect::<Vec<_>>().join(", "))
    }
}

/// One line per violation, `<JSON pointer from the message's root>: <what is wrong>`; a
/// failed `anyOf` / `oneOf` lists the violations of its nearest branch (fewest violations)
/// beneath it.
fn describe(error: &ValidationError<'_>, prefix: &str, depth: usize, lines: &mut Vec<String>) {
    let indent = "  ".repeat(depth);
    let location = error.instance_path().to_string();
    let path = if prefix.is_empty() && location.is_empty() { "/".to_owned() } else { format!("{prefix}{location}") };
    let nearest = match error.kind() {
        ValidationErrorKind::AnyOf { context } => nearest_branch("anyOf", context),
        ValidationErrorKind::OneOfNotValid { context } => nearest_branch("oneOf", context),
        _ => None,
    };
    match nearest {
        Some((keyword, index, count, errors)) => {
            lines.push(format!(
                "{indent}{path}: matches none of the {count} `{keyword}` branches; the nearest (#{index}, `{}`) fails with:",
                error.schema_path()
            ));
            for inner in errors {
                describe(inner, prefix, depth + 1, lines);
            }
        }
        None => lines.push(format!("{indent}{path}: {}", shorten(&error.to_string()))),
    }
}

/// The branch of a failed `anyOf` / `oneOf` with the fewest violations: keyword, its index,
/// the number of branches, and its violations.
fn nearest_branch<'e>(
    keyword: &'static str,
    context: &'e [Vec<ValidationError<'static>>],
) -> Option<(&'static str, usize, usize, &'e [ValidationError<'static>])> {
    let (index, errors) = context.iter().enumerate().min_by_key(|(_, errors)| errors.len())?;
    (!errors.is_empty()).then_some((keyword, index, context.len(), errors.as_slice()))
}

/// Long messages quote the whole offending value; keep the first 300 characters.
fn shorten(message: &str) -> String {
    const LIMIT: usize = 300;
    match message.char_indices().nth(LIMIT) {
        Some((cut, _)) => format!("{}…", &message[..cut]),
        None => message.to_owned(),
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn describe_message(request_method: Option<&str>, message: &Value) -> String {
    match (message.get("method").and_then(Value::as_str), request_method) {
        (Some(method), _) => format!("`{method}` message"),
        (None, Some(method)) => format!("response to `{method}`"),
        (None, None) => "response".to_owned(),
    }
}

/// What is wrong with one message, section by section.
struct Failures {
    version: Version,
    what: String,
    sections: Vec<String>,
}

impl Failures {
    fn new(version: Version, what: String) -> Failures {
        Failures { version, what, sections: Vec::new() }
    }

    fn note(&mut self, text: String) {
        self.sections.push(text);
    }

    fn finish(self) -> Result<(), String> {
        if self.sections.is_empty() {
            Ok(())
        } else {
            Err(format!("{} fails the MCP {} schema:\n- {}", self.what, self.version, self.sections.join("\n- ")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const V25: Version = Version::V2025_11_25;
    const V26: Version = Version::V2026_07_28;

    fn response(result: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": 1, "result": result})
    }

    fn error_response(error: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": 1, "error": error})
    }

    fn notification(method: &str, params: Value) -> Value {
        json!({"jsonrpc": "2.0", "method": method, "params": params})
    }

    #[track_caller]
    fn pass(version: Version, method: Option<&str>, message: &Value) {
        if let Err(report) = check_message(version, method, message) {
            panic!("expected {message} to pass, got:\n{report}");
        }
    }

    /// Fails unless the report names every one of `needles`; returns the report.
    #[track_caller]
    fn fail(version: Version, method: Option<&str>, message: &Value, needles: &[&str]) -> String {
        let Err(report) = check_message(version, method, message) else {
            panic!("expected {message} to fail the {version} schema, but it passed");
        };
        for needle in needles {
            assert!(report.contains(needle), "report lacks {needle:?}:\n{report}");
        }
        report
    }

    fn text_result() -> Value {
        json!({"content": [{"type": "text", "text": "4"}], "structuredContent": {"sum": 4}, "isError": false})
    }

    fn discover_result() -> Value {
        json!({
            "resultType": "complete",
            "supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {"listChanged": true}},
            "ttlMs": 60000,
            "cacheScope": "public",
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "fixture", "version": "0.1.0"}}
        })
    }

    #[test]
    fn a_2025_tools_call_result_passes_and_one_without_content_fails() {
        pass(V25, Some("tools/call"), &response(text_result()));
        let report = fail(
            V25,
            Some("tools/call"),
            &response(json!({"isError": true})),
            &[
                "response to `tools/call` fails the MCP 2025-11-25 schema",
                "CallToolResult (at /result)",
                "/result: \"content\" is a required property",
            ],
        );
        assert!(!report.contains("JSONRPCResultResponse"), "the envelope is fine:\n{report}");
    }

    #[test]
    fn a_bad_content_block_is_reported_at_its_path_with_the_nearest_branch() {
        let result = json!({"content": [{"type": "text", "text": "ok"}, {"type": "text", "text": 5}]});
        let report = fail(V25, Some("tools/call"), &response(result), &["/result/content/1: matches none of the"]);
        // The nearest branch is TextContent, whose only violation is the type of `text`.
        assert!(report.contains("/result/content/1/text: 5 is not of type \"string\""), "{report}");
        assert!(!report.contains("/result/content/0"), "{report}");
    }

    #[test]
    fn structured_content_is_an_object_in_2025_and_any_value_in_2026() {
        let array = json!({"content": [], "structuredContent": [1, 2]});
        fail(V25, Some("tools/call"), &response(array.clone()), &["/result/structuredContent"]);
        let mut array_2026 = array;
        array_2026["resultType"] = json!("complete");
        pass(V26, Some("tools/call"), &response(array_2026));
    }

    #[test]
    fn a_2026_result_needs_result_type() {
        fail(
            V26,
            Some("tools/call"),
            &response(text_result()),
            &["does not match CallToolResult (at /result)", "/result: \"resultType\" is a required property"],
        );
        let mut complete = text_result();
        complete["resultType"] = json!("complete");
        pass(V26, Some("tools/call"), &response(complete));
        // Without a method only the envelope is checked, and its `Result` requires it too.
        fail(
            V26,
            None,
            &response(json!({"content": []})),
            &["JSONRPCResultResponse", "\"resultType\" is a required property"],
        );
        pass(V25, None, &response(json!({})));
    }

    #[test]
    fn result_type_input_required_selects_input_required_result() {
        let input_required = json!({
            "resultType": "input_required",
            "inputRequests": {
                "confirm": {
                    "method": "elicitation/create",
                    "params": {"message": "Proceed?", "requestedSchema": {"type": "object", "properties": {}}}
                }
            },
            "requestState": "opaque"
        });
        assert_eq!(result_definition(V26, "tools/call", &input_required), Some("InputRequiredResult"));
        pass(V26, Some("tools/call"), &response(input_required.clone()));
        pass(V26, Some("prompts/get"), &response(input_required.clone()));
        pass(V26, Some("resources/read"), &response(input_required.clone()));
        // Only tools/call, prompts/get and resources/read may ask for input.
        fail(
            V26,
            Some("tools/list"),
            &response(input_required.clone()),
            &["ListToolsResult", "\"tools\" is a required property"],
        );
        let mut bad = input_required;
        bad["inputRequests"]["confirm"]["method"] = json!("tools/call");
        fail(V26, Some("tools/call"), &response(bad), &["InputRequiredResult", "/result/inputRequests/confirm"]);
        // Any other resultType is checked as the method's own result.
        let other = json!({"resultType": "complete"});
        assert_eq!(result_definition(V26, "tools/call", &other), Some("CallToolResult"));
        fail(V26, Some("tools/call"), &response(other), &["\"content\" is a required property"]);
    }

    #[test]
    fn discover_result_requires_ttl_ms_and_cache_scope() {
        pass(V26, Some("server/discover"), &response(discover_result()));
        for field in ["ttlMs", "cacheScope", "supportedVersions", "capabilities", "resultType"] {
            let mut result = discover_result();
            result.as_object_mut().map(|o| o.remove(field));
            fail(
                V26,
                Some("server/discover"),
                &response(result),
                &["DiscoverResult", &format!("/result: \"{field}\" is a required property")],
            );
        }
        let mut negative = discover_result();
        negative["ttlMs"] = json!(-1);
        fail(V26, Some("server/discover"), &response(negative), &["/result/ttlMs"]);
        let mut fractional = discover_result();
        fractional["ttlMs"] = json!(1.5);
        fail(V26, Some("server/discover"), &response(fractional), &["/result/ttlMs"]);
        let mut scope = discover_result();
        scope["cacheScope"] = json!("shared");
        fail(V26, Some("server/discover"), &response(scope), &["/result/cacheScope"]);
    }

    #[test]
    fn list_results_in_2026_are_cacheable() {
        let tools = json!({"name": "add", "inputSchema": {"type": "object"}});
        pass(V25, Some("tools/list"), &response(json!({"tools": [tools]})));
        fail(
            V26,
            Some("tools/list"),
            &response(json!({"resultType": "complete", "tools": [tools]})),
            &["ListToolsResult", "\"ttlMs\" is a required property", "\"cacheScope\" is a required property"],
        );
        pass(
            V26,
            Some("tools/list"),
            &response(json!({"resultType": "complete", "tools": [tools], "ttlMs": 0, "cacheScope": "private"})),
        );
        // A tool's inputSchema must be an object schema.
        fail(
            V25,
            Some("tools/list"),
            &response(json!({"tools": [{"name": "x", "inputSchema": {"type": "string"}}]})),
            &["/result/tools/0/inputSchema/type"],
        );
    }

    #[test]
    fn unsupported_protocol_version_error_needs_supported_and_requested() {
        let error = |data: Value| {
            error_response(json!({"code": -32022, "message": "Unsupported protocol version", "data": data}))
        };
        pass(V26, None, &error(json!({"supported": ["2026-07-28"], "requested": "1999-01-01"})));
        pass(V26, Some("tools/call"), &error(json!({"supported": ["2026-07-28"], "requested": "1999-01-01"})));
        fail(
            V26,
            None,
            &error(json!({"supported": ["2026-07-28"]})),
            &["UnsupportedProtocolVersionError", "/error/data: \"requested\" is a required property"],
        );
        fail(V26, None, &error(json!({"requested": "1999-01-01"})), &["\"supported\" is a required property"]);
        let no_data = error_response(json!({"code": -32022, "message": "Unsupported protocol version"}));
        fail(V26, None, &no_data, &["UnsupportedProtocolVersionError", "\"data\" is a required property"]);
        // 2025-11-25 gives -32022 no meaning.
        pass(V25, None, &no_data);
    }

    #[test]
    fn other_error_responses() {
        let invalid_params = error_response(json!({"code": -32602, "message": "Unknown tool: nope"}));
        pass(V25, Some("tools/call"), &invalid_params);
        pass(V26, Some("tools/call"), &invalid_params);
        // A parse error answers no request: `id` may be absent.
        pass(V26, None, &json!({"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}}));
        fail(
            V25,
            None,
            &error_response(json!({"code": "-32602", "message": "x"})),
            &["JSONRPCErrorResponse", "/error/code"],
        );
        fail(V25, None, &error_response(json!({"code": -32603})), &["/error: \"message\" is a required property"]);
        fail(
            V26,
            None,
            &error_response(json!({"code": -32021, "message": "needs elicitation", "data": {}})),
            &["MissingRequiredClientCapabilityError", "\"requiredCapabilities\" is a required property"],
        );
        fail(
            V25,
            None,
            &error_response(json!({"code": -32042, "message": "URL elicitation required"})),
            &["URLElicitationRequiredError"],
        );
        fail(
            V25,
            None,
            &json!({"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "x"}}),
            &["never both"],
        );
    }

    #[test]
    fn envelope_violations() {
        fail(
            V25,
            Some("ping"),
            &json!({"jsonrpc": "1.0", "id": 1, "result": {}}),
            &["JSONRPCResultResponse", "/jsonrpc"],
        );
        fail(V25, Some("ping"), &json!({"jsonrpc": "2.0", "result": {}}), &["\"id\" is a required property"]);
        fail(V25, Some("ping"), &json!({"jsonrpc": "2.0", "id": null, "result": {}}), &["/id"]);
        fail(V25, None, &json!([1]), &["is an object, not an array"]);
        fail(V25, None, &json!({"jsonrpc": "2.0", "id": 1}), &["neither a request or notification"]);
    }

    #[test]
    fn methods_a_revision_lacks_fail() {
        pass(V25, Some("ping"), &response(json!({})));
        pass(V25, Some("logging/setLevel"), &response(json!({})));
        fail(
            V26,
            Some("ping"),
            &response(json!({"resultType": "complete"})),
            &["2026-07-28 defines no result for a `ping` request"],
        );
        fail(V26, Some("initialize"), &response(json!({"resultType": "complete"})), &["no result for a `initialize`"]);
        fail(V25, Some("server/discover"), &response(discover_result()), &["no result for a `server/discover`"]);
    }

    #[test]
    fn initialize_result() {
        let result = json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {"listChanged": true}, "logging": {}, "resources": {"subscribe": true, "listChanged": true}, "prompts": {"listChanged": true}, "completions": {}},
            "serverInfo": {"name": "fixture", "version": "0.1.0"},
            "instructions": "Adds numbers."
        });
        pass(V25, Some("initialize"), &response(result.clone()));
        let mut no_info = result;
        no_info.as_object_mut().map(|o| o.remove("serverInfo"));
        fail(
            V25,
            Some("initialize"),
            &response(no_info),
            &["InitializeResult", "\"serverInfo\" is a required property"],
        );
    }

    #[test]
    fn subscriptions_listen_result_and_acknowledgement() {
        let closed = json!({"resultType": "complete", "_meta": {"io.modelcontextprotocol/subscriptionId": 7}});
        pass(V26, Some("subscriptions/listen"), &response(closed));
        fail(
            V26,
            Some("subscriptions/listen"),
            &response(json!({"resultType": "complete"})),
            &["SubscriptionsListenResult", "\"_meta\" is a required property"],
        );
        fail(
            V26,
            Some("subscriptions/listen"),
            &response(json!({"resultType": "complete", "_meta": {}})),
            &["\"io.modelcontextprotocol/subscriptionId\" is a required property"],
        );

        let ack = notification(
            "notifications/subscriptions/acknowledged",
            json!({
                "notifications": {"toolsListChanged": true, "resourceSubscriptions": ["file:///a.txt"]},
                "_meta": {"io.modelcontextprotocol/subscriptionId": 7}
            }),
        );
        pass(V26, None, &ack);
        fail(
            V26,
            None,
            &notification("notifications/subscriptions/acknowledged", json!({})),
            &["SubscriptionsAcknowledgedNotification", "/params: \"notifications\" is a required property"],
        );
        fail(V25, None, &ack, &["not a notification a server sends in 2025-11-25"]);
    }

    #[test]
    fn notifications() {
        for version in Version::ALL {
            pass(version, None, &notification("notifications/message", json!({"level": "info", "data": {"n": 1}})));
            fail(
                version,
                None,
                &notification("notifications/message", json!({"level": "verbose", "data": 1})),
                &["LoggingMessageNotification", "/params/level"],
            );
            fail(
                version,
                None,
                &notification("notifications/message", json!({"level": "info"})),
                &["\"data\" is a required property"],
            );
            pass(
                version,
                None,
                &notification("notifications/progress", json!({"progressToken": "t", "progress": 0.5, "total": 1})),
            );
            fail(
                version,
                None,
                &notification("notifications/progress", json!({"progressToken": "t"})),
                &["ProgressNotification", "\"progress\" is a required property"],
            );
            pass(version, None, &json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}));
            fail(
                version,
                None,
                &json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": []}),
                &["ToolListChangedNotification", "/params"],
            );
            fail(
                version,
                None,
                &notification("notifications/initialized", json!({})),
                &["`notifications/initialized` is not a notification a server sends", "notifications/progress"],
            );
        }
        pass(V25, None, &notification("notifications/elicitation/complete", json!({"elicitationId": "e1"})));
        fail(
            V26,
            None,
            &notification("notifications/elicitation/complete", json!({"elicitationId": "e1"})),
            &["not a notification a server sends in 2026-07-28"],
        );
    }

    #[test]
    fn server_requests() {
        pass(V25, None, &json!({"jsonrpc": "2.0", "id": "s1", "method": "ping"}));
        pass(V25, None, &json!({"jsonrpc": "2.0", "id": 2, "method": "roots/list"}));
        fail(
            V25,
            None,
            &json!({"jsonrpc": "2.0", "id": 3, "method": "elicitation/create", "params": {}}),
            &["ElicitRequest"],
        );
        fail(
            V25,
            None,
            &json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "x"}}),
            &["not a request a server sends in 2025-11-25"],
        );
        fail(V26, None, &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}), &["the schema has no ServerRequest"]);
    }

    #[test]
    fn unions_are_read_from_the_schema() {
        let methods = |version: Version| version.schema().server_notifications.keys().cloned().collect::<Vec<_>>();
        assert_eq!(
            methods(V25),
            [
                "notifications/cancelled",
                "notifications/elicitation/complete",
                "notifications/message",
                "notifications/progress",
                "notifications/prompts/list_changed",
                "notifications/resources/list_changed",
                "notifications/resources/updated",
                "notifications/tasks/status",
                "notifications/tools/list_changed",
            ]
        );
        assert_eq!(
            methods(V26),
            [
                "notifications/cancelled",
                "notifications/message",
                "notifications/progress",
                "notifications/prompts/list_changed",
                "notifications/resources/list_changed",
                "notifications/resources/updated",
                "notifications/subscriptions/acknowledged",
                "notifications/tools/list_changed",
            ]
        );
        assert_eq!(V25.schema().server_requests.len(), 8);
        assert!(V26.schema().server_requests.is_empty());
    }

    /// The 2026 table against the schema's own `<X>ResultResponse` definitions: the same
    /// result, and `InputRequiredResult` allowed exactly where the schema's union has it.
    #[test]
    fn the_2026_result_table_agrees_with_the_result_response_definitions() {
        let document: Value =
            serde_json::from_str(include_str!("../spec/schema-2026-07-28.json")).expect("the schema is JSON");
        let defs = &document["$defs"];
        let mut seen = 0;
        for &(method, definition, may_need_input) in RESULTS_2026_07_28 {
            let Some(envelope) = defs.get(format!("{definition}Response")) else { continue };
            seen += 1;
            let result = &envelope["properties"]["result"];
            let mut refs: Vec<&str> = match result["anyOf"].as_array() {
                Some(members) => members.iter().filter_map(|m| m["$ref"].as_str()).collect(),
                None => result["$ref"].as_str().into_iter().collect(),
            };
            refs.sort_unstable();
            let mut expected = vec![format!("#/$defs/{definition}")];
            if may_need_input {
                expected.push("#/$defs/InputRequiredResult".to_owned());
            }
            expected.sort_unstable();
            assert_eq!(refs, expected, "{method}: {definition}Response");
        }
        assert_eq!(seen, RESULTS_2026_07_28.len(), "every 2026 result has a <X>ResultResponse definition");
    }

    #[test]
    fn check_definition_and_versions() {
        assert!(check_definition(V25, "CreateTaskResult", &json!({})).is_err());
        let report = check_definition(V25, "NoSuchThing", &json!({})).expect_err("no such definition");
        assert!(report.contains("no definition NoSuchThing"), "{report}");
        assert_eq!(Version::from_protocol_version("2026-07-28"), Some(V26));
        assert_eq!(Version::from_protocol_version("2025-06-18"), None);
        assert_eq!(V25.to_string(), "2025-11-25");
    }
}
