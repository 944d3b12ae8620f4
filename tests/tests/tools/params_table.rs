//! Plain parameters are read by a table (`ToolDef::PARAMS`) and generic runtime code, unless
//! one has an attribute only a derived arguments struct understands. The two must not differ:
//! each tool here is written twice, once as the table reads it and once with a no-op
//! `#[schemars(with = "..")]` that makes the macro derive the struct, and the two must give the
//! same input schema, byte for byte, and the same answer to every call.

// Eight parameters: every kind the table reads, in one tool.
#![allow(clippy::too_many_arguments)]

use mcp_runtime::__private::{InputSpec, ToolDef};
use mcp_runtime::prelude::*;
use mcp_runtime::schemars::generate::SchemaSettings;
use serde_json::{Value, json};

/// A nested argument type.
#[derive(Debug, Deserialize, Serialize, JsonSchema, Default)]
pub(crate) struct Point {
    /// Across.
    x: i32,
    /// Down.
    y: i32,
}

fn five() -> i64 {
    5
}

/// Every kind of plain parameter the table reads.
#[tool(name = "t")]
fn table(
    /// An integer.
    n: i64,
    /// # A title
    /// and a description.
    label: Option<String>,
    #[serde(default)] count: u32,
    /// With a default of five.
    #[serde(default = "five")]
    start: i64,
    #[serde(rename = "type")] kind: String,
    r#ref: Vec<u8>,
    /// A point.
    #[serde(default)]
    at: Option<Point>,
    ratio: f64,
) -> String {
    let bytes = r#ref;
    format!("{n} {label:?} {count} {start} {kind} {bytes:?} {at:?} {ratio}")
}

/// Every kind of plain parameter the table reads.
#[tool(name = "t")]
fn derived(
    /// An integer.
    #[schemars(with = "i64")]
    n: i64,
    /// # A title
    /// and a description.
    label: Option<String>,
    #[serde(default)] count: u32,
    /// With a default of five.
    #[serde(default = "five")]
    start: i64,
    #[serde(rename = "type")] kind: String,
    r#ref: Vec<u8>,
    /// A point.
    #[serde(default)]
    at: Option<Point>,
    ratio: f64,
) -> String {
    let bytes = r#ref;
    format!("{n} {label:?} {count} {start} {kind} {bytes:?} {at:?} {ratio}")
}

/// Unknown keys allowed.
#[tool(name = "u", allow_unknown_args)]
fn table_open(a: u8, b: Option<bool>) -> String {
    format!("{a} {b:?}")
}

/// Unknown keys allowed.
#[tool(name = "u", allow_unknown_args)]
fn derived_open(#[schemars(with = "u8")] a: u8, b: Option<bool>) -> String {
    format!("{a} {b:?}")
}

fn raw_schema<T: ToolDef>() -> Value {
    let InputSpec::Params(f) = T::INFO.input else { panic!("plain parameters") };
    f(&mut SchemaSettings::draft2020_12().into_generator()).to_value()
}

#[test]
fn the_table_makes_the_derived_structs_schema() {
    assert_eq!(table::PARAMS.len(), 8, "the table reads `table`");
    assert!(derived::PARAMS.is_empty(), "`derived` derives its struct");
    let schema = raw_schema::<table>();
    assert_eq!(serde_json::to_string(&schema).unwrap(), serde_json::to_string(&raw_schema::<derived>()).unwrap());
    assert_eq!(schema["required"], json!(["n", "type", "ref", "ratio"]));
    assert_eq!(schema["properties"]["label"]["title"], "A title");
    assert_eq!(schema["properties"]["start"]["default"], 5);
    assert_eq!(raw_schema::<table_open>(), raw_schema::<derived_open>());
}

#[test]
fn the_table_reads_every_call_as_the_derived_struct_does() {
    let a = Server::builder("a", "0").tool(table).tool(table_open).build().unwrap();
    let b = Server::builder("b", "0").tool(derived).tool(derived_open).build().unwrap();
    let calls = [
        json!({"n": 1, "type": "k", "ref": [1, 2], "ratio": 0.5}),
        json!({"n": 1.0, "type": "k", "ref": [1.0, 2], "ratio": 1, "count": 3.0, "label": null, "at": {"x": 1, "y": 2.0}}),
        json!({"n": 1, "type": "k", "ref": [], "ratio": 0.5, "start": null}),
        json!({"n": 1, "type": "k", "ref": [300], "ratio": 0.5}),
        json!({"n": 1, "type": "k", "ref": [1], "ratio": 0.5, "at": {"x": 1}}),
        json!({"n": 1.5, "type": "k", "ref": [-1], "ratio": 0.5}),
        json!({"ref": [-1], "type": 3, "n": "x", "ratio": 0.5}),
        json!({"n": 1, "ref": [1], "ratio": 0.5}),
        json!({"n": 1, "type": "k", "ref": [1], "ratio": 0.5, "kind": "x"}),
        json!({"zz": 1, "n": 9_223_372_036_854_775_808_u64, "type": "k", "ref": [1], "ratio": 0.5}),
        json!({"n": 1, "type": "k", "ref": [1], "ratio": 0.5, "at": null, "count": -1}),
        // Past the schema, refused by serde (an i64 out of range), one or two at a time.
        json!({"n": 9_223_372_036_854_775_808_u64, "type": "k", "ref": [1], "ratio": 0.5}),
        json!({"start": 9_223_372_036_854_775_808_u64, "type": "k", "ref": [1], "ratio": 0.5, "n": 9_223_372_036_854_775_808_u64}),
        json!({"n": 9_223_372_036_854_775_808_u64, "type": "k", "ref": [1], "ratio": 0.5, "start": 9_223_372_036_854_775_808_u64}),
        json!([1, "k"]),
        json!("n"),
        json!({}),
    ];
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    for args in calls {
        for name in ["t", "u"] {
            let args = if name == "u" {
                json!({"a": args.get("n").cloned(), "b": args.get("ratio").cloned(), "zz": 1})
            } else {
                args.clone()
            };
            let ours = without_request_id(serde_json::to_value(rt.block_on(a.call(name, args.clone()))).unwrap());
            let theirs = without_request_id(serde_json::to_value(rt.block_on(b.call(name, args.clone()))).unwrap());
            assert_eq!(ours, theirs, "{name} {args}");
        }
    }
    // Serde's order: the first key sent that cannot be read is the one reported.
    let big = 9_223_372_036_854_775_808_u64;
    for (args, path) in [
        (json!({"start": big, "type": "k", "ref": [1], "ratio": 0.5, "n": big}), "start"),
        (json!({"n": big, "type": "k", "ref": [1], "ratio": 0.5, "start": big}), "n"),
    ] {
        let result = serde_json::to_value(rt.block_on(a.call("t", args))).unwrap();
        let issues = &result["structuredContent"]["error"]["data"]["issues"];
        assert_eq!(
            issues,
            &json!([{"path": [path], "keyword": "deserialize", "message": "does not match the schema (deserialize)"}])
        );
    }
}

/// The result without its request id (each call has its own).
fn without_request_id(mut result: Value) -> Value {
    if let Some(text) = result["content"][0]["text"].as_str() {
        let kept = text.split(" · request ").next().unwrap_or(text).to_owned();
        result["content"][0]["text"] = Value::from(kept);
    }
    if let Some(data) = result["structuredContent"]["error"]["data"].as_object_mut() {
        data.remove("requestId");
    }
    result
}
