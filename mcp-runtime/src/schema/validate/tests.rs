use serde_json::{Value, json};

use super::deserialize::{as_integer, integralise};
use super::issue::{Hint, Issue};
use super::refusal::{DETAIL_LINES, LISTED_ISSUES, and_list, detail, hint, issues_json};
use super::words::type_issue;
use super::*;

/// As the server compiles input schemas.
fn compile(schema: &Value) -> jsonschema::Validator {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(schema)
        .expect("schema compiles")
}

/// Detail, hint and `data.issues` of `args` against `schema`.
fn refuse(schema: &Value, args: &Value) -> (String, String, Value) {
    let validator = compile(schema);
    assert!(!validator.is_valid(args), "{args} is valid");
    let (issues, more) = input_issues(&validator, schema, args);
    let detail = detail(&issues, more);
    let hint = hint(&issues);
    (detail, hint, issues_json(&issues))
}

#[test]
fn errors_past_the_kept_ones_are_counted_not_kept() {
    let schema = json!({"type": "object", "properties": {"ids": {"type": "array", "items": {"type": "string"}}}});
    let args = json!({"ids": vec![0; 1000]});
    let (issues, more) = input_issues(&compile(&schema), &schema, &args);
    assert_eq!((issues.len(), more), (KEPT_ERRORS, 1000 - KEPT_ERRORS));
    let (detail, _, listed) = refuse(&schema, &args);
    let lines: Vec<String> = (0..DETAIL_LINES).map(|i| format!("ids.{i}: expected string, received number")).collect();
    assert_eq!(detail, format!("{} (+990 more)", lines.join(", ")));
    assert_eq!(listed.as_array().map(Vec::len), Some(LISTED_ISSUES));

    // Past FULL_REPORT_NODES, only the first error is gathered.
    let args = json!({"ids": vec![0; FULL_REPORT_NODES]});
    let (issues, more) = input_issues(&compile(&schema), &schema, &args);
    assert_eq!((issues.len(), more), (1, 0));
    assert_eq!(refuse(&schema, &args).0, "ids.0: expected string, received number");
    assert!(fewer_nodes_than(&json!([1, [2]]), 4) && !fewer_nodes_than(&json!([1, [2]]), 3));
}

fn object(properties: &Value, required: &[&str]) -> Value {
    json!({"type": "object", "additionalProperties": false, "properties": properties, "required": required})
}

/// Issue 33 item 6: an unknown key near an accepted one (edit distance at most 2, less
/// than its length) gets a did-you-mean after the sentence of its object; at every level.
#[test]
fn unknown_keys_near_accepted_ones_get_a_did_you_mean() {
    let item = json!({"type": "object", "additionalProperties": false, "properties": {"name": {"type": "string"}, "tags": {"type": "array"}}});
    let schema = object(&json!({"items": {"type": "array", "items": item}, "limit": {"type": "integer"}}), &[]);
    let (detail, hint, _) = refuse(&schema, &json!({"items": [{"name": "a", "tag": ["x"]}]}));
    assert_eq!(detail, "items.0.tag: unknown key");
    assert_eq!(hint, "Unknown key items.0.tag. items.0 accepts: name, tags. Did you mean tags?");
    let (_, hint, _) = refuse(&schema, &json!({"limt": 1, "itmes": [], "x": 1}));
    assert_eq!(
        hint,
        "Unknown keys limt, itmes, x. This tool accepts: items, limit. Did you mean limit for limt and items for itmes?"
    );
    // One letter is no misspelling of another; far names are not suggested.
    let (_, hint, _) = refuse(&object(&json!({"a": {}}), &[]), &json!({"b": 1}));
    assert_eq!(hint, "Unknown key b. This tool accepts: a.");
    let (_, hint, _) = refuse(&schema, &json!({"salt": 1}));
    assert_eq!(hint, "Unknown key salt. This tool accepts: items, limit.");
}

#[test]
fn lengths_and_counts_say_one_or_many() {
    let schema = object(
        &json!({
            "s": {"type": "string", "minLength": 2, "maxLength": 1},
            "t": {"type": "string", "maxLength": 3},
            "l": {"type": "array", "minItems": 2},
            "m": {"type": "array", "maxItems": 1},
        }),
        &[],
    );
    let (detail, hint, issues) = refuse(&schema, &json!({"m": [1, 2], "l": [1], "t": "abcd", "s": "x"}));
    let expected = "s: must have at least 2 characters, t: must have at most 3 characters, l: must have at least 2 items, m: must have at most 1 item";
    assert_eq!(detail, expected);
    // Issue 33 item 10: a length or count out of bounds gets a sentence of its own (a
    // `Recovery:` line), naming every bound the schema sets.
    assert_eq!(
        hint,
        "Send s as a string of at least 2 characters. Send t as a string of at most 3 characters. Send l as a list of at least 2 items. Send m as a list of at most 1 item."
    );
    assert_eq!(
        issues,
        json!([
            {"path": ["s"], "keyword": "minLength", "message": "must have at least 2 characters"},
            {"path": ["t"], "keyword": "maxLength", "message": "must have at most 3 characters"},
            {"path": ["l"], "keyword": "minItems", "message": "must have at least 2 items"},
            {"path": ["m"], "keyword": "maxItems", "message": "must have at most 1 item"},
        ])
    );
    let (detail, hint, _) = refuse(&schema, &json!({"s": "xyz"}));
    assert_eq!(detail, "s: must have at most 1 character");
    assert_eq!(hint, "Send s as a string of at most 1 character.");
    let ranged = object(
        &json!({
            "name": {"type": "string", "minLength": 1, "maxLength": 64},
            "tags": {"type": "array", "minItems": 1, "maxItems": 1},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50},
            "ratio": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
            "floor": {"type": ["integer", "null"], "minimum": 3},
            "cap": {"type": "number", "exclusiveMaximum": 0.5},
        }),
        &[],
    );
    let (detail, hint, _) =
        refuse(&ranged, &json!({"name": "", "tags": [], "limit": 51, "ratio": 0, "floor": 2, "cap": 0.5}));
    assert_eq!(
        detail,
        "name: must have at least 1 character, tags: must have at least 1 item, limit: must be at most 50, ratio: must be greater than 0, floor: must be at least 3, cap: must be less than 0.5"
    );
    assert_eq!(
        hint,
        "Send name as a string of 1 to 64 characters. Send tags as a list of exactly 1 item. Send limit as an integer from 1 to 50. Send ratio as a number greater than 0 and no greater than 1. Send floor as an integer no less than 3. Send cap as a number less than 0.5."
    );
}

#[test]
fn numbers_render_as_the_schema_writes_them() {
    let schema =
        object(&json!({"n": {"type": "integer", "multipleOf": 2}, "f": {"type": "number", "minimum": 0.25}}), &[]);
    let (detail, _, _) = refuse(&schema, &json!({"n": 3, "f": 0.1}));
    assert_eq!(detail, "n: must be a multiple of 2, f: must be at least 0.25");
}

#[test]
fn other_keywords_are_named() {
    let schema = json!({"type": "object", "properties": {"o": {"type": "object", "minProperties": 1}, "x": {"not": {"type": "string"}}}});
    let (detail, hint, issues) = refuse(&schema, &json!({"x": "s", "o": {}}));
    assert_eq!(detail, "o: does not match the schema (minProperties), x: does not match the schema (not)");
    assert_eq!(
        hint,
        "Send o as the input schema in tools/list describes. Send x as the input schema in tools/list describes."
    );
    assert_eq!(
        issues,
        json!([
            {"path": ["o"], "keyword": "minProperties", "message": "does not match the schema (minProperties)"},
            {"path": ["x"], "keyword": "not", "message": "does not match the schema (not)"},
        ])
    );
}

/// `Option<Struct>`: `anyOf [{$ref}, {type: null}]`.
fn optional_struct() -> Value {
    json!({
        "type": "object",
        "properties": {"o": {"anyOf": [{"$ref": "#/$defs/S"}, {"type": "null"}]}},
        "$defs": {"S": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a"]}},
    })
}

#[test]
fn a_branch_failing_only_on_its_root_type_is_dropped_when_another_failed_below() {
    let (detail, hint, issues) = refuse(&optional_struct(), &json!({"o": {"b": "x"}}));
    assert_eq!(detail, "o: a: missing required field; b: expected integer, received string");
    assert_eq!(hint, "Provide o.a. Send o.b as an integer, not a string.");
    assert_eq!(
        issues,
        json!([{"path": ["o"], "keyword": "anyOf", "message": "a: missing required field; b: expected integer, received string"}])
    );
    // Both fail on the root type: the types they take.
    let (detail, hint, _) = refuse(&optional_struct(), &json!({"o": 5}));
    assert_eq!(detail, "o: expected object or null, received number");
    assert_eq!(hint, "Send o as an object, not a number.");
}

#[test]
fn untagged_one_ofs_read_like_any_ofs() {
    let schema = object(
        &json!({"v": {"oneOf": [
            {"type": "string", "minLength": 2},
            {"type": "array", "items": {"type": "integer"}},
        ]}}),
        &[],
    );
    let (detail, hint, issues) = refuse(&schema, &json!({"v": ["a", 1, true]}));
    let message = "matches none of its 2 shapes; closest an array: 0: expected integer, received string; 2: expected integer, received boolean";
    assert_eq!(detail, format!("v: {message}"));
    assert_eq!(
        hint,
        "Send v.0 as an integer, not a string. Send v.2 as an integer, not a boolean. Or send v as a string."
    );
    assert_eq!(issues, json!([{"path": ["v"], "keyword": "oneOf", "message": message}]));
    // The array branch fails only on its root type; the string branch got past it.
    let (detail, hint, _) = refuse(&schema, &json!({"v": "a"}));
    assert_eq!(detail, "v: matches none of its 2 shapes; closest a string: must have at least 2 characters");
    assert_eq!(hint, "Send v as a string of at least 2 characters. Or send v as an array.");
    let (detail, hint, _) = refuse(&schema, &json!({"v": 1}));
    assert_eq!(detail, "v: expected string or array, received number");
    assert_eq!(hint, "Send v as a string, not a number.");
}

#[test]
fn nested_tagged_unions_are_resolved_by_their_tag() {
    let schema = object(
        &json!({"q": {"oneOf": [
            {"type": "object", "additionalProperties": false, "properties": {"kind": {"const": "a"}, "x": {"type": "integer"}}, "required": ["kind", "x"]},
            {"type": "object", "additionalProperties": false, "properties": {"kind": {"enum": ["b"]}, "y": {"type": "string"}}, "required": ["kind"]},
        ]}}),
        &["q"],
    );
    let (detail, hint, _) = refuse(&schema, &json!({"q": {"kind": "a", "x": 1.5, "z": 1}}));
    assert_eq!(detail, "q.x: expected integer, received number, q.z: unknown key");
    assert_eq!(
        hint,
        "Send q.x as an integer, not a fractional number. Unknown key q.z. With kind \"a\" q accepts: kind, x."
    );
    let (detail, hint, _) = refuse(&schema, &json!({"q": {"y": "s"}}));
    assert_eq!(detail, "q.kind: missing required field. Expected one of \"a\"|\"b\"");
    assert_eq!(hint, "Provide q.kind.");
    let (detail, hint, _) = refuse(&schema, &json!({"q": []}));
    assert_eq!(detail, "q: expected object, received array");
    assert_eq!(hint, "Send q as an object, not an array.");
}

fn restated(n: usize) -> Vec<Issue> {
    (0..n).map(|i| Issue::new(vec![Seg::Index(i)], "maximum", "must be at most 1".into(), Hint::Restate)).collect()
}

#[test]
fn a_hint_never_restates_the_detail() {
    let issues = restated(12);
    let detail = detail(&issues, 0);
    let lines: Vec<String> = (0..10).map(|i| format!("{i}: must be at most 1")).collect();
    assert_eq!(detail, format!("{} (+2 more)", lines.join(", ")));
    let sentences: Vec<String> =
        (0..10).map(|i| format!("Send {i} as the input schema in tools/list describes.")).collect();
    assert_eq!(hint(&issues), sentences.join(" "));
    // The eleventh issue is not in the hint.
    let mut issues = restated(10);
    issues.push(Issue::new(vec![Seg::Key("x".into())], "required", "missing required field".into(), Hint::Missing));
    assert_eq!(hint(&issues), sentences.join(" "));
}

#[test]
fn repeated_sentences_appear_once() {
    let same = Issue::new(vec![Seg::Key("a".into())], "x", "does not match the schema (x)".into(), Hint::Restate);
    let missing = Issue::new(vec![Seg::Key("b".into())], "required", "missing required field".into(), Hint::Missing);
    let issues = [same.clone(), missing, same];
    assert_eq!(hint(&issues), "Send a as the input schema in tools/list describes. Provide b.");
}

#[test]
fn long_lines_are_cut() {
    let values: Vec<String> = (0..300).map(|i| format!("value{i:03}")).collect();
    let schema = object(&json!({"e": {"enum": values}}), &[]);
    let (detail, hint, issues) = refuse(&schema, &json!({"e": "other"}));
    let full =
        format!("e: expected one of {}", values.iter().map(|v| format!("\"{v}\"")).collect::<Vec<_>>().join("|"));
    let cut: String = full.chars().take(1024).collect();
    assert_eq!(detail, format!("{cut}…"));
    assert_eq!(hint, "Send e as one of the 300 values its schema lists.");
    let message: String = full["e: ".len()..].chars().take(1024).collect();
    assert_eq!(issues[0]["message"], json!(format!("{message}…")));
}

#[test]
fn a_and_an_and_lists() {
    assert_eq!(and_list(&["a".into()]), "a");
    assert_eq!(and_list(&["a".into(), "b".into()]), "a and b");
    assert_eq!(and_list(&["a".into(), "b".into(), "c".into()]), "a, b and c");
    let t = |expected: &[&str], v: Value| match type_issue(
        Vec::new(),
        &expected.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>(),
        &v,
    )
    .hint
    {
        Hint::Type(tail) => tail,
        other => panic!("{other:?}"),
    };
    assert_eq!(t(&["integer"], json!(1.5)), "as an integer, not a fractional number");
    assert_eq!(t(&["null", "object"], json!([])), "as an object, not an array");
    assert_eq!(t(&["boolean"], json!(null)), "as a boolean, not null");
    assert_eq!(t(&["integer"], json!("1")), "as an integer, not a string");
    assert_eq!(t(&["null"], json!(1)), "as null, not a number");
}

#[derive(Debug, serde::Deserialize, PartialEq)]
struct Outer {
    items: Vec<Inner>,
    choice: Option<Choice>,
}

#[derive(Debug, serde::Deserialize, PartialEq)]
struct Inner {
    n: u8,
}

#[derive(Debug, serde::Deserialize, PartialEq)]
enum Choice {
    Count(i32),
    Pair { a: i64 },
}

/// One deserializer reads what `serde_json`'s `&Value` reads of arguments that passed
/// a schema schemars wrote: map keys that are numbers or booleans written as strings,
/// enums as keys, tuple structs from arrays; a struct only from an object.
#[test]
fn the_tracked_deserializer_reads_what_value_reads() {
    use std::collections::BTreeMap;
    #[derive(Debug, serde::Deserialize, PartialEq, PartialOrd, Ord, Eq)]
    enum Side {
        Left,
    }
    #[derive(Debug, serde::Deserialize, PartialEq)]
    struct Pair(u8, String);
    #[derive(Debug, serde::Deserialize, PartialEq)]
    struct Point {
        x: i32,
        y: i32,
    }
    let ids: BTreeMap<u32, String> = deserialize_args("t", &json!({"7": "a", "12": "b"})).expect("readable");
    assert_eq!(ids, BTreeMap::from([(7, "a".to_owned()), (12, "b".to_owned())]));
    let flags: BTreeMap<bool, i8> = deserialize_args("t", &json!({"true": -1})).expect("readable");
    assert_eq!(flags, BTreeMap::from([(true, -1)]));
    let sides: BTreeMap<Side, f64> = deserialize_args("t", &json!({"Left": 0.5})).expect("readable");
    assert_eq!(sides, BTreeMap::from([(Side::Left, 0.5)]));
    let pair: Pair = deserialize_args("t", &json!([1, "x"])).expect("readable");
    assert_eq!(pair, Pair(1, "x".into()));
    let point: Point = deserialize_args("t", &json!({"x": 1, "y": 2})).expect("readable");
    assert_eq!(point, Point { x: 1, y: 2 });
    // Where a key is not the number the type wants, the path names it.
    let error = deserialize_args::<BTreeMap<u32, String>>("t", &json!({"x": "a"})).expect_err("unreadable");
    assert_eq!(error.message_str(), "Invalid arguments for tool t: x: does not match the schema (deserialize)");
    // A struct from a scalar is refused, not read through another visitor method.
    for other in [json!(null), json!(true), json!(1), json!("p"), json!([1, 2])] {
        assert!(deserialize_args::<Point>("t", &other).is_err(), "{other}");
    }
}

#[test]
fn integral_floats_are_read_as_integers_where_serde_needs_them() {
    let args = json!({"items": [{"n": 1.0}, {"n": 2}], "choice": {"Pair": {"a": -3.0}}});
    let read: Outer = deserialize_args("t", &args).expect("readable");
    assert_eq!(read, Outer { items: vec![Inner { n: 1 }, Inner { n: 2 }], choice: Some(Choice::Pair { a: -3 }) });
    let read: Outer = deserialize_args("t", &json!({"items": [], "choice": {"Count": 4.0}})).expect("readable");
    assert_eq!(read.choice, Some(Choice::Count(4)));
}

#[test]
fn what_serde_cannot_read_is_refused_at_its_path() {
    let refused = |args: Value| {
        let error = deserialize_args::<Outer>("t", &args).expect_err("unreadable");
        (error.message_str().to_owned(), error.hint_str().map(str::to_owned), error.data_map().clone())
    };
    let (message, hint, data) = refused(json!({"items": [{"n": 1}, {"n": 300}], "choice": null}));
    assert_eq!(message, "Invalid arguments for tool t: items.1.n: does not match the schema (deserialize)");
    assert_eq!(
        hint.as_deref(),
        Some("Send items.1.n as another value: this one fits the input schema but not the tool's own type.")
    );
    let issues = json!({"issues": [{"path": ["items", 1, "n"], "keyword": "deserialize", "message": "does not match the schema (deserialize)"}]});
    assert_eq!(Value::Object(data), issues);
    let (message, _, _) = refused(json!({"items": [], "choice": {"Count": 1.5}}));
    assert_eq!(message, "Invalid arguments for tool t: choice.Count: does not match the schema (deserialize)");
    let (message, _, _) = refused(json!({"items": [], "choice": {"Other": 1}}));
    assert_eq!(message, "Invalid arguments for tool t: choice.Other: does not match the schema (deserialize)");
    let (message, _, _) = refused(json!("x"));
    assert_eq!(message, "Invalid arguments for tool t: does not match the schema (deserialize)");
}

#[test]
fn one_retry_reads_every_integral_float_of_the_argument() {
    let mut args = json!({"xs": [1.0, 2.0, [3.0]], "y": 4.0});
    assert!(integralise(&mut args, &[Seg::Key("xs".into()), Seg::Index(0)]));
    assert_eq!(args, json!({"xs": [1, 2, [3]], "y": 4.0}), "the whole argument, not just the element");
    let read: Vec<i64> = deserialize_args("t", &Value::Array(vec![json!(1.0); 20_000])).expect("readable");
    assert_eq!(read.len(), 20_000);
}

#[test]
fn integral_floats_outside_the_integers_stay_floats() {
    assert_eq!(as_integer(&json!(2.0)), Some(json!(2)));
    assert_eq!(as_integer(&json!(-9_223_372_036_854_775_808.0)), Some(json!(i64::MIN)));
    assert_eq!(as_integer(&json!(1e19)), Some(json!(10_000_000_000_000_000_000_u64)));
    assert_eq!(as_integer(&json!(1e20)), None);
    assert_eq!(as_integer(&json!(0.5)), None);
    assert_eq!(as_integer(&json!(3)), None);
}

#[test]
fn output_issues_keep_the_validator_order() {
    let schema =
        json!({"type": "object", "properties": {"count": {"type": "integer", "maximum": 10}}, "required": ["count"]});
    let validator = compile(&schema);
    assert_eq!(output_detail(&validator, &json!({"count": 11})).as_deref(), Some("count: must be at most 10"));
    assert_eq!(output_detail(&validator, &json!({})).as_deref(), Some("count: missing required field"));
    assert_eq!(output_detail(&validator, &json!({"count": 1})), None);
}

/// What `repair` makes of `args`, and whether the repaired value validates: `None` when
/// nothing was repaired.
fn repaired(schema: &Value, args: &Value) -> Option<(Value, Vec<String>, bool)> {
    let (value, repairs) = repair(schema, args)?;
    let valid = compile(schema).is_valid(&value);
    Some((value, repairs.iter().map(ToString::to_string).collect(), valid))
}

#[test]
fn repairs_have_one_reading_and_only_where_the_schema_refuses_the_value() {
    let schema = object(
        &json!({
            "n": {"type": "integer"},
            "x": {"type": "number"},
            "on": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "integer"}},
            "s": {"type": "string"},
            "either": {"type": ["string", "integer"]},
            "opt": {"type": "integer"},
        }),
        &["n"],
    );
    let (value, repairs, valid) =
        repaired(&schema, &json!({"n": "5", "x": "-1.5e1", "on": "false", "tags": "7", "opt": null}))
            .expect("repaired");
    assert_eq!(value, json!({"n": 5, "x": -15.0, "on": false, "tags": [7]}));
    assert_eq!(
        repairs,
        [
            "null_as_absent at opt",
            "number_from_string at n",
            "number_from_string at x",
            "boolean_from_string at on",
            "list_of_one at tags",
            "number_from_string at tags.0",
        ]
    );
    assert!(valid);
    // A value the schema takes as sent is left alone: a string where a string is wanted,
    // a string where either is wanted.
    assert_eq!(repaired(&schema, &json!({"n": 1, "s": "5", "either": "5"})), None);
    // No second reading: a fraction is no integer, spaces and `+` are no JSON number,
    // `"True"` is no boolean, a required field's `null` is not absent.
    for args in
        [json!({"n": "1.5"}), json!({"n": " 5"}), json!({"n": "+5"}), json!({"n": 1, "on": "True"}), json!({"n": null})]
    {
        assert_eq!(repaired(&schema, &args), None, "{args}");
    }
}

#[test]
fn repairs_reach_nested_objects_arrays_and_tagged_branches() {
    let schema = json!({
        "type": "object",
        "properties": {
            "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
            "pick": {"oneOf": [
                {"type": "object", "properties": {"mode": {"const": "a"}, "n": {"type": "integer"}}, "required": ["mode", "n"]},
                {"type": "object", "properties": {"mode": {"const": "b"}, "on": {"type": "boolean"}}, "required": ["mode", "on"]},
            ]},
        },
        "$defs": {"Item": {"type": "object", "properties": {"id": {"type": "integer"}, "note": {"type": "string"}}, "required": ["id"]}},
    });
    let (value, repairs, valid) =
        repaired(&schema, &json!({"items": {"id": "3", "note": null}, "pick": {"mode": "b", "on": "true"}}))
            .expect("repaired");
    assert_eq!(value, json!({"items": [{"id": 3}], "pick": {"mode": "b", "on": true}}));
    assert_eq!(
        repairs,
        [
            "list_of_one at items",
            "null_as_absent at items.0.note",
            "number_from_string at items.0.id",
            "boolean_from_string at pick.on"
        ]
    );
    assert!(valid);
    // `Option<Item>`: `Item` or `null`.
    let schema = json!({
        "type": "object",
        "properties": {"item": {"anyOf": [{"$ref": "#/$defs/Item"}, {"type": "null"}]}},
        "$defs": {"Item": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}},
    });
    let (value, repairs, valid) = repaired(&schema, &json!({"item": {"id": "4"}})).expect("repaired");
    assert_eq!(
        (value, repairs, valid),
        (json!({"item": {"id": 4}}), vec!["number_from_string at item.id".to_owned()], true)
    );
}

#[test]
fn suggestions_never_name_a_key_sent_or_one_that_cannot_take_the_value() {
    let schema =
        object(&json!({"lat": {"type": "number"}, "lon": {"type": "number"}, "limit": {"type": "integer"}}), &[]);
    let (_, hint, _) = refuse(&schema, &json!({"lat": 1, "lon": 2, "alt": 3}));
    assert_eq!(hint, "Unknown key alt. This tool accepts: lat, lon, limit.");
    let (_, hint, _) = refuse(&schema, &json!({"limt": "many"}));
    assert_eq!(hint, "Unknown key limt. This tool accepts: lat, lon, limit.");
    let (_, hint, _) = refuse(&schema, &json!({"limt": 3}));
    assert_eq!(hint, "Unknown key limt. This tool accepts: lat, lon, limit. Did you mean limit?");
    // Beside the missing key it resembles: one sentence.
    let schema = object(&json!({"query": {"type": "string"}, "extra": {"type": "string"}}), &["query"]);
    let (_, hint, _) = refuse(&schema, &json!({"qeury": "q", "zz": 1}));
    assert_eq!(hint, "Rename qeury to query. Unknown key zz. This tool accepts: query, extra.");
}
