//! Schemas as written and portable: named subschemas stay in `$defs` behind `$ref` (so a
//! recursive input type works, and its hints name paths through the recursion); optional
//! parameters are simply not required (no `null` in their type, and a `null` sent for one
//! is read as absent); only standard `format`s are listed.

use mcp_tests::client::{Client, take_request_id};
use serde_json::{Value, json};

fn server() -> Client {
    let mut c = Client::spawn(env!("CARGO_BIN_EXE_fixture-server"), &[]);
    c.initialize();
    c
}

fn listed(c: &mut Client, name: &str) -> Value {
    let resp = c.roundtrip("tools/list", json!({}));
    resp["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("{name} is listed"))
        .clone()
}

#[test]
fn a_recursive_input_type_is_listed_with_defs_and_ref() {
    let mut c = server();
    let tool = listed(&mut c, "tree_sum");
    assert_eq!(
        tool["inputSchema"],
        json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {"root": {"$ref": "#/$defs/Node", "description": "The root of the tree."}},
            "required": ["root"],
            "$defs": {"Node": {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "value": {"type": "integer", "description": "This node's value."},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}, "description": "The node's children."},
                },
                "required": ["value", "children"],
                "description": "A node of a tree of integers.",
            }},
        })
    );
}

#[test]
fn a_recursive_input_is_validated_and_summed() {
    let mut c = server();
    let tree = json!({"root": {"value": 1, "children": [
        {"value": 2, "children": [{"value": 3, "children": []}]},
        {"value": -10, "children": []},
    ]}});
    assert_eq!(
        c.call("tree_sum", tree),
        json!({"content": [{"type": "text", "text": "{\"sum\":-4}"}], "structuredContent": {"sum": -4}})
    );
}

#[test]
fn hints_name_paths_through_the_recursion() {
    let mut c = server();
    let tree = json!({"root": {"value": 1, "children": [
        {"value": 2, "children": [
            {"value": 3, "children": []},
            {"value": "four", "children": [], "name": "x"},
        ]},
    ]}});
    let mut result = c.call("tree_sum", tree);
    take_request_id(&mut result);
    assert_eq!(
        result,
        json!({
            "content": [{"type": "text", "text": "Error: Invalid arguments for tool tree_sum: root.children.0.children.1.value: expected integer, received string, root.children.0.children.1.name: unknown key\n\nRecovery: Send root.children.0.children.1.value as an integer, not a string. Unknown key root.children.0.children.1.name. root.children.0.children.1 accepts: value, children.\n\n(reason invalid_arguments · request <RID>)"}],
            "isError": true,
        })
    );
}

#[test]
fn null_for_an_optional_parameter_means_absent() {
    let mut c = server();
    let with_null = c.call("search_docs", json!({"query": "q", "limit": null}));
    let without = c.call("search_docs", json!({"query": "q"}));
    assert_eq!(with_null, without);
    assert_eq!(with_null["structuredContent"]["hits"].as_array().map(Vec::len), Some(3));
    // A required parameter is not optional: `null` is still refused.
    let refused = c.call("search_docs", json!({"query": null}));
    assert_eq!(refused["isError"], json!(true), "{refused}");
}

/// Every type array and every `format` in `schema`, with where it is.
fn unportable(schema: &Value, at: &str, out: &mut Vec<String>) {
    const STANDARD: [&str; 19] = [
        "date-time",
        "date",
        "time",
        "duration",
        "email",
        "idn-email",
        "hostname",
        "idn-hostname",
        "ipv4",
        "ipv6",
        "uri",
        "uri-reference",
        "iri",
        "iri-reference",
        "uuid",
        "uri-template",
        "json-pointer",
        "relative-json-pointer",
        "regex",
    ];
    match schema {
        Value::Object(map) => {
            for (key, value) in map {
                let here = format!("{at}/{key}");
                match (key.as_str(), value) {
                    ("type", Value::Array(_)) => out.push(format!("{here}: {value}")),
                    ("format", Value::String(f)) if !STANDARD.contains(&f.as_str()) => {
                        out.push(format!("{here}: {f}"));
                    }
                    ("const" | "enum" | "default" | "examples", _) => {}
                    _ => unportable(value, &here, out),
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                unportable(item, &format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn every_fixture_schema_is_portable() {
    let server = mcp_tests::fixture::builder(false).build().expect("builds");
    let mut found = Vec::new();
    for tool in server.tool_descriptors() {
        unportable(&tool["inputSchema"], &format!("{}/inputSchema", tool["name"]), &mut found);
        if let Some(output) = tool.get("outputSchema") {
            unportable(output, &format!("{}/outputSchema", tool["name"]), &mut found);
        }
    }
    assert!(found.is_empty(), "unportable schema parts:\n{}", found.join("\n"));
}

/// A filter with an optional field inside.
#[derive(mcp_runtime::prelude::Deserialize, mcp_runtime::prelude::JsonSchema)]
struct Filter {
    /// At most this many.
    limit: Option<u32>,
}

/// Echoes the filter's limit.
#[mcp_runtime::tool]
fn filtered(
    /// The filter.
    filter: Filter,
) -> String {
    format!("{:?}", filter.limit)
}

#[tokio::test]
async fn a_nested_optional_field_still_takes_null() {
    let server = mcp_runtime::Server::builder("t", "0").tool(filtered).build().expect("builds");
    let listed = &server.tool_descriptors()[0]["inputSchema"];
    // The nested `Option` keeps `null`, as a branch of its own (no type array).
    assert_eq!(listed["$defs"]["Filter"]["properties"]["limit"]["anyOf"][1], json!({"type": "null"}));
    for (args, text) in [
        (json!({"filter": {"limit": null}}), "None"),
        (json!({"filter": {"limit": 3}}), "Some(3)"),
        (json!({"filter": {}}), "None"),
    ] {
        let result = server.call("filtered", args.clone()).await;
        assert_eq!(result.first_text(), Some(text), "{args}");
    }
}
