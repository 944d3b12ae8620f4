//! Properties of argument validation over random arguments, through the in-process
//! production pipeline (`Server::call`): for every fixture tool, the runtime never panics,
//! every `invalid_arguments` refusal is well formed (a non-empty hint, the text and the
//! structured error agree, at most 30 issues, no control characters) and echoes no value
//! the caller sent; and arguments valid for the tool's Rust types are never refused.
//!
//! The reason is read where the model reads it: the terms line of the error text
//! (`(reason invalid_arguments · request XXXXX-XXXXX)`, docs/errors.md#the-envelopes-rules). A tool that declares an
//! output schema sends no `structuredContent` on errors, so a property that read the reason
//! from `structuredContent.error.data.reason` would never see such a tool refuse anything.
//! The structured error of those tools is checked on a twin server built with
//! `structured_errors_always(true)`, whose text must be the same.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use mcp_runtime::Server;
use mcp_tests::client::ErrorText;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{Map, Value, json};

/// Every string value sent starts with this; none may appear in a refusal.
const MARK: &str = "val_";
/// A number sent now and then; it may not appear in a refusal either.
const MARK_NUMBER: i64 = 7_777_777;

fn server() -> Server {
    mcp_tests::fixture::builder(false).build().expect("the fixture server builds")
}

/// The fixture with `structuredContent.error` on every error, output schema or not.
fn structured_server() -> Server {
    mcp_tests::fixture::builder(false).structured_errors_always(true).build().expect("the fixture server builds")
}

/// The reason an error result's text names, as the model reads it; `None` for a result
/// that is no error, or an error without a reason.
fn reason(result: &Value) -> Result<Option<String>, TestCaseError> {
    let text = ErrorText::of(result).map_err(TestCaseError::fail)?;
    Ok(text.and_then(|t| t.reason).map(str::to_owned))
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_time().build().expect("a runtime")
}

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config { cases, failure_persistence: None, ..Config::default() })
}

fn marked() -> impl Strategy<Value = String> {
    "[a-z0-9]{4,8}".prop_map(|s| format!("{MARK}{s}"))
}

/// Keys: every property name of every fixture schema, unknown ones, and hostile ones.
fn key(names: Vec<String>) -> impl Strategy<Value = String> {
    prop_oneof![
        6 => proptest::sample::select(names),
        2 => "[a-z]{1,6}",
        1 => "[a-z]{0,3}[\u{0}-\u{1f}\u{7f}][a-z]{0,3}",
        1 => "[a-z]{140,300}",
        1 => Just("0".to_owned()),
    ]
}

/// Leaves: values near what the schemas want, values far from it, and marked values.
fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        1 => Just(Value::Null),
        1 => any::<bool>().prop_map(Value::from),
        1 => (-3_i64..60).prop_map(Value::from),
        1 => (-5_i32..5).prop_map(|n| Value::from(f64::from(n) * 0.5)),
        1 => (-1000.0_f64..1000.0).prop_map(Value::from),
        1 => Just(json!(MARK_NUMBER)),
        1 => Just(json!(9_223_372_036_854_775_808_u64)),
        1 => Just(json!(1e20)),
        3 => marked().prop_map(Value::from),
        1 => proptest::sample::select(vec!["", "os", "cpu", "x", "y", "v1", "ABC", "byId", "byName", "a@b.example"])
            .prop_map(Value::from),
    ]
}

fn value(names: Vec<String>) -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 24, 4, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::vec((key(names.clone()), inner), 0..4)
                .prop_map(|entries| Value::Object(entries.into_iter().collect())),
        ]
    })
}

fn arguments(names: Vec<String>) -> impl Strategy<Value = Value> {
    proptest::collection::vec((key(names.clone()), value(names)), 0..6)
        .prop_map(|entries| Value::Object(entries.into_iter().collect::<Map<String, Value>>()))
}

/// Every property name in a schema, at any depth.
fn property_names(schema: &Value, out: &mut BTreeSet<String>) {
    match schema {
        Value::Object(map) => {
            if let Some(Value::Object(props)) = map.get("properties") {
                out.extend(props.keys().cloned());
            }
            map.values().for_each(|v| property_names(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| property_names(v, out)),
        _ => {}
    }
}

/// Whether a handler would take long, wait for the client, or panic with these arguments:
/// such calls are not about argument validation, and are skipped.
fn slow_or_panicking(tool: &str, args: &Value) -> bool {
    let empty = args.as_object().is_some_and(Map::is_empty);
    let over = |key: &str, limit: f64| args.get(key).and_then(Value::as_f64).is_some_and(|n| n > limit);
    match tool {
        "boom" | "wait_cancel" => empty,
        "sleep_ms" => over("ms", 100.0),
        "work" => over("steps", 1000.0),
        _ => false,
    }
}

/// Runs one call in process; `None` when its handler did not finish within a second (a
/// refusal never runs the handler, so it always finishes).
fn call(rt: &tokio::runtime::Runtime, server: &Server, tool: &str, args: &Value) -> Option<Value> {
    let result =
        rt.block_on(async { tokio::time::timeout(Duration::from_secs(1), server.call(tool, args.clone())).await });
    let result = result.ok()?;
    Some(serde_json::to_value(result).expect("a result serializes"))
}

fn has_control(s: &str) -> bool {
    s.chars().any(char::is_control)
}

/// The checks every `invalid_arguments` refusal must pass. `result` is what a client gets;
/// `structured` is the same call's result on the twin server with structured errors always
/// on (the same as `result` for a tool without an output schema).
fn check_refusal(
    tool: &str,
    args: &Value,
    result: &Value,
    structured: &Value,
    output_schema: bool,
) -> Result<(), TestCaseError> {
    let context = format!("{tool} {args}\n{result:#}\n{structured:#}");
    // What the model reads: the text.
    let text = result["content"][0]["text"].as_str().expect("a text");
    let read = ErrorText::parse(text).map_err(TestCaseError::fail)?;
    prop_assert_eq!(read.reason, Some("invalid_arguments"), "{}", context);
    prop_assert_eq!(read.retryable, None, "{}", context);
    let prefix = format!("Invalid arguments for tool {tool}: ");
    prop_assert!(read.message.starts_with(&prefix), "{}", context);
    prop_assert!(!has_control(read.message), "control characters: {}", context);
    // Every refusal says what to do on a `Recovery:` line of its own (issue 42).
    prop_assert!(read.hint.is_some_and(|h| !h.is_empty() && !has_control(h)), "no Recovery line: {}", context);
    // A tool with an output schema sends the text alone; any other the structured error too.
    prop_assert_eq!(result.get("structuredContent").is_none(), output_schema, "{}", context);
    // The twin says the same, word for word but the request id.
    let twin_text = structured["content"][0]["text"].as_str().expect("a text");
    let twin_id = ErrorText::parse(twin_text).map_err(TestCaseError::fail)?.request_id;
    prop_assert_eq!(twin_text.replace(twin_id, "<RID>"), text.replace(read.request_id, "<RID>"), "{}", context);

    let error = &structured["structuredContent"]["error"];
    let data = &error["data"];
    let message = error["message"].as_str().expect("a message");
    let hint = data["recovery"]["hint"].as_str().unwrap_or_default();
    prop_assert_eq!(error["code"].clone(), json!(-32602), "{}", context);
    prop_assert_eq!(data["reason"].clone(), json!("invalid_arguments"), "{}", context);
    prop_assert!(!hint.is_empty(), "empty hint: {}", context);
    prop_assert!(!has_control(hint), "control characters: {}", context);
    // The text says what the structured error says.
    let recovery = if message.trim().contains(hint) { String::new() } else { format!("\n\nRecovery: {hint}") };
    let rid = data["requestId"].as_str().expect("a request id");
    let expected = format!("Error: {message}{recovery}\n\n(reason invalid_arguments · request {rid})");
    prop_assert_eq!(twin_text, expected.as_str(), "{}", context);
    let issues = data["issues"].as_array().expect("issues");
    prop_assert!(!issues.is_empty() && issues.len() <= 30, "{}", context);
    for issue in issues {
        let keys: Vec<&str> = issue.as_object().expect("an issue").keys().map(String::as_str).collect();
        prop_assert_eq!(keys, vec!["path", "keyword", "message"], "{}", context);
        let text = issue["message"].as_str().expect("a message");
        prop_assert!(!text.is_empty() && !has_control(text), "{}", context);
        for seg in issue["path"].as_array().expect("a path") {
            prop_assert!(seg.is_u64() || seg.as_str().is_some_and(|s| !has_control(s)), "{}", context);
        }
    }
    // No value the caller sent: marked strings and the marked number never show.
    for whole in [result.to_string(), structured.to_string()] {
        prop_assert!(!whole.contains(MARK), "a sent value leaked: {}", context);
        prop_assert!(!whole.contains(&MARK_NUMBER.to_string()), "a sent number leaked: {}", context);
    }
    Ok(())
}

#[test]
fn random_arguments_are_refused_safely() {
    let server = server();
    let twin = structured_server();
    let rt = runtime();
    let descriptors = server.tool_descriptors();
    let tools: Vec<String> = descriptors.iter().map(|d| d["name"].as_str().expect("a name").to_owned()).collect();
    let with_output: BTreeSet<&str> = descriptors
        .iter()
        .filter(|d| d.get("outputSchema").is_some())
        .map(|d| d["name"].as_str().expect("a name"))
        .collect();
    // Random arguments rarely hold every required property: each of these tools is refused.
    let must_refuse: BTreeSet<&str> = descriptors
        .iter()
        .filter(|d| d["inputSchema"]["required"].as_array().is_some_and(|r| !r.is_empty()))
        .map(|d| d["name"].as_str().expect("a name"))
        .collect();
    let mut names = BTreeSet::new();
    for d in &descriptors {
        property_names(&d["inputSchema"], &mut names);
    }
    let names: Vec<String> = names.into_iter().collect();
    // Per tool: calls that reached argument validation, and refusals checked.
    let counts = std::cell::RefCell::new(BTreeMap::<String, (u32, u32)>::new());
    let strategy = (proptest::sample::select(tools), arguments(names));
    let outcome = runner(1024).run(&strategy, |(tool, args)| {
        if slow_or_panicking(&tool, &args) {
            return Ok(());
        }
        let Some(result) = call(&rt, &server, &tool, &args) else { return Ok(()) };
        let reason = reason(&result)?;
        // A tool the in-process caller lacks the scopes for is refused before its arguments
        // are read: that call never reaches argument validation.
        if reason.as_deref() == Some("insufficient_scope") {
            return Ok(());
        }
        let mut counts = counts.borrow_mut();
        let (reached, refused) = counts.entry(tool.clone()).or_default();
        *reached += 1;
        if reason.as_deref() == Some("invalid_arguments") {
            *refused += 1;
            let structured = call(&rt, &twin, &tool, &args).expect("a refusal finishes");
            check_refusal(&tool, &args, &result, &structured, with_output.contains(tool.as_str()))?;
        }
        Ok(())
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
    let counts = counts.into_inner();
    // The generator reaches the refusal path often (about half the calls; a third at least),
    // and refusals are checked for every tool that takes required arguments or declares an
    // output schema (when its calls reached argument validation at all).
    let (reached, refused) = counts.values().fold((0, 0), |(a, b), (r, f)| (a + r, b + f));
    assert!(
        refused * 3 > reached && reached > 800,
        "only {refused} of {reached} random calls that reached argument validation were refused"
    );
    let unchecked: Vec<&str> = must_refuse
        .union(&with_output)
        .copied()
        .filter(|t| counts.get(*t).is_some_and(|(reached, refused)| *reached > 0 && *refused == 0))
        .collect();
    assert!(unchecked.is_empty(), "no refusal of {unchecked:?} was checked: {counts:?}");
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![marked(), "[ -~]{0,12}", Just("é ü 🙂".to_owned())]
}

/// An integer, sometimes written as an integral float (`3.0`), which the schema accepts.
#[allow(clippy::cast_precision_loss)] // The ranges used are within 2^53: the floats are exact.
fn integer(range: std::ops::Range<i64>) -> impl Strategy<Value = Value> {
    (range, any::<bool>()).prop_map(|(n, float)| if float { json!(n as f64) } else { json!(n) })
}

/// Arguments valid for each tool's Rust types (the tools whose handlers run quickly).
fn valid_call() -> impl Strategy<Value = (&'static str, Value)> {
    let kind = proptest::sample::select(vec!["x", "y"]);
    prop_oneof![
        text().prop_map(|t| ("echo", json!({"text": t}))),
        (any::<i64>(), integer(-1_000_000_000_000..1_000_000_000_000))
            .prop_map(|(a, b)| ("add", json!({"a": a, "b": b}))),
        ("[a-z]{1,8}", proptest::option::of(integer(1..51))).prop_map(|(q, limit)| {
            let mut args = json!({"query": q});
            if let Some(limit) = limit {
                args["limit"] = limit;
            }
            ("search_docs", args)
        }),
        integer(0..4).prop_map(|ms| ("sleep_ms", json!({"ms": ms}))),
        (proptest::collection::vec(text(), 0..4), proptest::option::of(marked()))
            .prop_map(|(ids, mode)| ("fetch_items", json!({"ids": ids, "mode": mode}))),
        text().prop_map(|k| ("bad_output", json!({"kind": k}))),
        text().prop_map(|p| ("file_size", json!({"path": p}))),
        (-90.0_f64..90.0, -180.0_f64..180.0).prop_map(|(lat, lon)| ("locate", json!({"lat": lat, "lon": lon}))),
        proptest::sample::select(vec!["os", "cpu", "memory"]).prop_map(|w| ("facet", json!({"what": w}))),
        (
            text(),
            proptest::option::of(proptest::option::of(integer(-1000..1000))),
            proptest::option::of(proptest::collection::vec(text(), 0..4)),
        )
            .prop_map(|(a, rows, items)| {
                let mut args = json!({"opts": {"a": a}});
                if let Some(rows) = rows {
                    args["rows"] = rows.unwrap_or(Value::Null);
                }
                if let Some(items) = items {
                    args["items"] = items.into_iter().map(|name| json!({"name": name})).collect();
                }
                ("configure", args)
            }),
        // No key beyond the branch's: unknown keys are refused at every level of the input,
        // in a union's branches too (issue 33 item 6).
        (kind, -100.0_f64..100.0).prop_map(|(kind, n)| ("choose", json!({"spec": {"kind": kind, "n": n}}))),
        text().prop_map(|other| ("choose", json!({"spec": {"other": other}}))),
        ("[A-Z]{3}", proptest::collection::btree_set(text(), 1..=3), "[a-z]{1,8}", -20_i32..20, 1_u32..1000,).prop_map(
            |(code, tags, user, halves, thousandths)| {
                let args = json!({
                    "tag": "v1",
                    "code": code,
                    "tags": tags,
                    "email": format!("{user}@example.com"),
                    "step": f64::from(halves) * 0.5,
                    "ratio": f64::from(thousandths) / 1000.0,
                });
                ("register", args)
            }
        ),
        text().prop_map(|id| ("find", json!({"mode": "byId", "id": id}))),
        text().prop_map(|name| ("find", json!({"name": name, "mode": "byName"}))),
    ]
}

#[test]
fn valid_arguments_are_never_refused() {
    let server = server();
    let rt = runtime();
    let outcome = runner(512).run(&valid_call(), |(tool, args)| {
        let Some(result) = call(&rt, &server, tool, &args) else {
            return Err(TestCaseError::fail(format!("{tool} {args} did not finish")));
        };
        let reason = reason(&result)?;
        prop_assert!(
            !matches!(reason.as_deref(), Some("invalid_arguments" | "unknown_tool")),
            "{} {} was refused: {:#}",
            tool,
            args,
            result
        );
        Ok(())
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
}

/// One mistake a model makes with a root argument (issue 42).
#[derive(Clone, Copy, Debug)]
enum Mistake {
    /// Two neighbouring letters of the key swapped.
    Swap,
    /// One letter of the key dropped.
    Drop,
    /// A key near this one added beside it (its value copied).
    Extra,
    /// The key left out.
    Missing,
    /// A number or a boolean sent as a string: repaired.
    Stringify,
    /// A list of one sent as its lone value: repaired.
    Unwrap,
    /// `null` sent.
    Null,
    /// An object sent instead.
    Object,
}

/// `args` with `mistake` made at the root key picked by `pick`, at letter `at`; `None` when
/// the mistake does not apply (no such key, a key too short, a value of another type).
fn make(args: &Value, mistake: Mistake, pick: prop::sample::Index, at: prop::sample::Index) -> Option<Value> {
    let map = args.as_object()?;
    let keys: Vec<&String> = map.keys().collect();
    if keys.is_empty() {
        return None;
    }
    let key = keys[pick.index(keys.len())].clone();
    let value = map[&key].clone();
    let chars: Vec<char> = key.chars().collect();
    let mut out = map.clone();
    let renamed = |out: &mut Map<String, Value>, to: String| {
        if to == key || map.contains_key(&to) {
            return false;
        }
        out.remove(&key);
        out.insert(to, value.clone());
        true
    };
    match mistake {
        Mistake::Swap => {
            if chars.len() < 3 {
                return None;
            }
            let i = at.index(chars.len() - 1);
            let mut c = chars.clone();
            c.swap(i, i + 1);
            renamed(&mut out, c.into_iter().collect()).then_some(())?;
        }
        Mistake::Drop => {
            if chars.len() < 3 {
                return None;
            }
            let mut c = chars.clone();
            c.remove(at.index(chars.len()));
            renamed(&mut out, c.into_iter().collect()).then_some(())?;
        }
        Mistake::Extra => {
            let near = format!("{key}s");
            if map.contains_key(&near) {
                return None;
            }
            out.insert(near, value);
        }
        Mistake::Missing => {
            out.remove(&key);
        }
        Mistake::Stringify => match value {
            Value::Number(n) => {
                out.insert(key, Value::String(n.to_string()));
            }
            Value::Bool(b) => {
                out.insert(key, Value::String(b.to_string()));
            }
            _ => return None,
        },
        Mistake::Unwrap => match value {
            Value::Array(mut items) if items.len() == 1 && !items[0].is_null() && !items[0].is_array() => {
                out.insert(key, items.remove(0));
            }
            _ => return None,
        },
        Mistake::Null => {
            out.insert(key, Value::Null);
        }
        Mistake::Object => {
            out.insert(key, json!({}));
        }
    }
    Some(Value::Object(out))
}

/// The keys a hint suggests: each `Did you mean <key>?` (values are quoted: not keys) and
/// each `Rename <a> to <key>.`, the last segment of a dotted path.
fn suggested_keys(hint: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in hint.split("Did you mean ").skip(1) {
        let Some(list) = part.split('?').next() else { continue };
        for item in list.split(", ").flat_map(|i| i.split(" and ")) {
            let key = item.split(" for ").next().unwrap_or_default();
            if !key.starts_with('"') {
                out.push(key.rsplit('.').next().unwrap_or_default().to_owned());
            }
        }
    }
    for part in hint.split("Rename ").skip(1) {
        if let Some(target) = part.split(" to ").nth(1).and_then(|t| t.split(". ").next()) {
            let target = target.trim_end_matches('.');
            out.push(target.rsplit('.').next().unwrap_or_default().to_owned());
        }
    }
    out
}

/// A result with its request id (an error's) as `<RID>`.
fn normalised(mut result: Value) -> Value {
    if result["isError"] == json!(true) {
        mcp_tests::client::take_request_id(&mut result);
    }
    result
}

/// Issue 42: valid arguments of each tool with one random mistake at the root. No suggestion
/// ever names a key the arguments already have; every refusal has a `Recovery:` line; and a
/// mistake repairs undo (a number or boolean sent as a string, a list of one sent as its
/// value) is repaired: the call is answered exactly as the valid call is, so the repaired
/// value validated and the handler read the typed value.
#[test]
fn single_mistakes_get_right_hints_or_repairs() {
    let server = server();
    let rt = runtime();
    let mistakes = proptest::sample::select(vec![
        Mistake::Swap,
        Mistake::Drop,
        Mistake::Extra,
        Mistake::Missing,
        Mistake::Stringify,
        Mistake::Unwrap,
        Mistake::Null,
        Mistake::Object,
    ]);
    let counts = std::cell::RefCell::new((0_u32, 0_u32, 0_u32));
    let strategy = (valid_call(), mistakes, any::<prop::sample::Index>(), any::<prop::sample::Index>());
    let outcome = runner(768).run(&strategy, |((tool, valid), mistake, pick, at)| {
        let Some(args) = make(&valid, mistake, pick, at) else { return Ok(()) };
        let (Some(result), Some(expected)) = (call(&rt, &server, tool, &args), call(&rt, &server, tool, &valid)) else {
            return Ok(());
        };
        let context = format!("{tool} {valid} with {mistake:?}: {args}\n{result:#}");
        let mut counts = counts.borrow_mut();
        if reason(&result)?.as_deref() == Some("invalid_arguments") {
            counts.0 += 1;
            let text = result["content"][0]["text"].as_str().expect("a text");
            let read = ErrorText::parse(text).map_err(TestCaseError::fail)?;
            let hint = read.hint.unwrap_or_default();
            prop_assert!(!hint.is_empty(), "no Recovery line: {}", context);
            let sent = args.as_object().expect("an object");
            for key in suggested_keys(hint) {
                prop_assert!(!sent.contains_key(&key), "suggests {} which was sent: {}", key, context);
            }
            if matches!(mistake, Mistake::Swap | Mistake::Drop | Mistake::Extra)
                && (hint.contains("Did you mean") || hint.contains("Rename "))
            {
                counts.2 += 1;
            }
        }
        if matches!(mistake, Mistake::Stringify | Mistake::Unwrap) && args != valid {
            counts.1 += 1;
            prop_assert_eq!(normalised(result), normalised(expected), "{}", context);
        }
        Ok(())
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
    let (refused, repaired, suggested) = counts.into_inner();
    assert!(
        refused > 100 && repaired > 10 && suggested > 5,
        "refused {refused}, repaired {repaired}, suggested {suggested}"
    );
}
