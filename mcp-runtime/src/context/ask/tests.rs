use std::sync::Arc;

use schemars::JsonSchema;
use serde_json::{Value, json};

use super::form::form_of;
use super::*;
use crate::rpc::era::Client;
use crate::rpc::request_id::RequestId;
use crate::state::seal::Sealer;

#[test]
fn capabilities_are_found_by_dotted_path() {
    let caps = json!({"sampling": {}, "elicitation": {}, "roots": {"listChanged": true}});
    assert!(has_capability(&caps, "sampling"));
    assert!(has_capability(&caps, "roots.listChanged"));
    // A bare `elicitation` is form elicitation; it is not URL elicitation.
    assert!(has_capability(&caps, "elicitation.form"));
    assert!(!has_capability(&caps, "elicitation.url"));
    assert!(!has_capability(&caps, "sampling.tools"));
    assert!(!has_capability(&json!({}), "sampling"));
    assert!(!has_capability(&json!({"sampling": null}), "sampling"));
    assert!(!has_capability(&json!({"elicitation": {"url": {}}}), "elicitation.form"));
}

#[test]
fn answers_are_kept_only_when_declared() {
    let answers = json!({
        "confirm": {"action": "accept", "content": {"ok": true}},
        "link": {"action": "accept"},
        "summary": {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"},
        "tooly": {"role": "assistant", "content": [{"type": "tool_use", "id": "1", "name": "x", "input": {}}], "model": "m"},
        "where": {"roots": [{"uri": "file:///p"}]},
        "wrapped": {"result": {"action": "accept"}},
        "number": 12345,
    });
    let keys = |caps: Option<Value>| {
        let inputs = Inputs::for_test(answers.clone(), None, caps.as_ref());
        let mut keys: Vec<String> = inputs.answers.keys().cloned().collect();
        keys.sort();
        keys
    };
    assert_eq!(keys(Some(json!({"elicitation": {}}))), ["confirm", "link"]);
    assert_eq!(keys(Some(json!({"elicitation": {"url": {}}}))), ["link"]);
    assert_eq!(keys(Some(json!({"sampling": {}}))), ["summary"]);
    assert_eq!(keys(Some(json!({"sampling": {"tools": {}}}))), ["summary", "tooly"]);
    assert_eq!(keys(Some(json!({"roots": {}}))), ["where"]);
    assert!(keys(Some(json!({"experimental": {"x": {}}}))).is_empty());
    assert!(keys(None).is_empty());
    let inputs = Inputs::for_test(answers, None, Some(&json!({})));
    let mut dropped = inputs.dropped().to_vec();
    dropped.sort();
    assert_eq!(dropped, ["number", "wrapped"]);
}

#[derive(serde::Deserialize, JsonSchema)]
#[allow(dead_code)]
enum Colour {
    Red,
    Green,
}

#[derive(serde::Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Good {
    /// Your name.
    name: String,
    age: Option<u32>,
    score: f64,
    ok: bool,
    colour: Colour,
    colours: Vec<Colour>,
}

#[derive(serde::Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Nested {
    inner: Good,
}

#[test]
fn form_schemas_are_flat_and_primitive() {
    let form = form_of::<Good>();
    let schema = form.schema.as_ref().unwrap();
    assert_eq!(
        schema,
        &json!({"type": "object", "properties": {
            "name": {"type": "string", "description": "Your name."},
            "age": {"type": "integer", "minimum": 0},
            "score": {"type": "number"},
            "ok": {"type": "boolean"},
            "colour": {"type": "string", "enum": ["Red", "Green"]},
            "colours": {"type": "array", "items": {"type": "string", "enum": ["Red", "Green"]}},
        }, "required": ["name", "score", "ok", "colour", "colours"]})
    );
    let err = form_of::<Nested>().schema.clone().unwrap_err();
    assert!(
        err.ends_with(
            "field `inner` has type `object`; elicitation allows string, number, integer, boolean and enum lists"
        ),
        "{err}"
    );
}

#[test]
fn typed_answers_are_validated() {
    let caps = json!({"elicitation": {}});
    let answer = |content: Value| {
        Inputs::for_test(json!({"f": {"action": "accept", "content": content}}), None, Some(&caps)).form::<Good>("f")
    };
    let good = json!({"name": "a", "score": 1.5, "ok": true, "colour": "Red", "colours": ["Green"]});
    assert!(matches!(answer(good), Elicited::Accepted(Good { ok: true, .. })));
    assert_eq!(answer(json!({"name": "a"})).map_missing(), "missing");
    let declined = Inputs::for_test(json!({"f": {"action": "decline"}}), None, Some(&caps));
    assert_eq!(declined.form::<Good>("f").map_missing(), "declined");
}

impl<T> Elicited<T> {
    fn map_missing(&self) -> &'static str {
        match self {
            Elicited::Accepted(_) => "accepted",
            Elicited::Declined => "declined",
            Elicited::Cancelled => "cancelled",
            Elicited::Missing => "missing",
        }
    }
}

#[test]
fn the_modern_gate_names_every_missing_capability() {
    let client = |caps: Value| {
        Client::Modern(Arc::new(crate::rpc::era::Envelope {
            version: "2026-07-28",
            capabilities: caps,
            info: None,
            log_level: None,
        }))
    };
    let ask = || {
        Ask::new()
            .elicit("confirm", Elicitation::form("Sure?", json!({"type": "object", "properties": {}})))
            .sample("tools", Sampling::new(10).user("x").param("tools", json!([])))
            .list_roots("where")
    };
    let sealer = Sealer::ephemeral(crate::state::seal::DEFAULT_TTL);
    let operation = Operation::named("tools/call", "t");
    let sealing =
        Sealing { sealer: &sealer, principal: None, operation: &operation, request_id: RequestId::generate() };
    let modern = |ask, client: &Client, tool| modern(ask, client, tool, &sealing);
    let err = modern(ask(), &client(json!({"sampling": {}})), "t").unwrap_err();
    assert_eq!(err.code, -32021);
    assert_eq!(
        err.message,
        "Cannot request input 'confirm' (elicitation/create): the request's client capabilities do not declare the required capability"
    );
    assert_eq!(
        err.data,
        Some(json!({"requiredCapabilities": {"elicitation": {"form": {}}, "sampling": {"tools": {}}, "roots": {}}}))
    );
    assert!(modern(ask(), &client(json!({"elicitation": {}, "sampling": {"tools": {}}, "roots": {}})), "t").is_ok());
    assert_eq!(modern(Ask::new(), &client(json!({})), "t").unwrap_err().code, -32603);
}
