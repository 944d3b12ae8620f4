//! `invalid_arguments` over real pipes (docs/errors.md#invalid-arguments-the-detail-and-the-hint): for each keyword of the table and
//! each hint rule, the whole `content[0].text` and the whole `structuredContent.error` of
//! a call whose arguments fail the input schema. Also: the handler never runs, integral
//! floats reach integer parameters, and arguments serde cannot read are refused alike.

use mcp_tests::client::{Client, take_request_id};
use serde_json::{Value, json};

fn server() -> Client {
    // The first wave's envelopes, byte for byte: `structuredContent.error` on every error.
    let mut c = Client::spawn(env!("CARGO_BIN_EXE_fixture-server"), &[("FIXTURE_STRUCTURED_ERRORS", "always")]);
    c.initialize();
    c
}

/// What the hint of a case is: every refusal has one of its own, shown on a `Recovery:`
/// line (issue 42).
enum Hint {
    Own(String),
}

/// One call: the tool, its arguments, the detail, the hint and `data.issues`.
struct Case {
    tool: &'static str,
    args: Value,
    detail: String,
    hint: Hint,
    issues: Value,
}

fn case(tool: &'static str, args: Value, detail: &str, hint: Hint, issues: Value) -> Case {
    Case { tool, args, detail: detail.to_owned(), hint, issues }
}

/// The whole `CallToolResult` a case must produce, request id normalised to `<RID>`.
fn expected(c: &Case) -> Value {
    let message = format!("Invalid arguments for tool {}: {}", c.tool, c.detail);
    let Hint::Own(hint) = &c.hint;
    let recovery = format!("\n\nRecovery: {hint}");
    let text = format!("Error: {message}{recovery}\n\n(reason invalid_arguments · request <RID>)");
    json!({
        "content": [{"type": "text", "text": text}],
        "structuredContent": {"error": {"code": -32602, "message": message, "data": {
            "reason": "invalid_arguments",
            "recovery": {"hint": hint},
            "issues": c.issues,
            "requestId": "<RID>",
        }}},
        "isError": true,
    })
}

fn issue(path: Value, keyword: &str, message: &str) -> Value {
    json!({"path": path, "keyword": keyword, "message": message})
}

fn check(c: &mut Client, cases: &[Case]) {
    for case in cases {
        let mut result = c.call(case.tool, case.args.clone());
        take_request_id(&mut result);
        assert_eq!(result, expected(case), "{} {}", case.tool, case.args);
    }
}

/// `required`: the field is named; an `enum` or `const` field says what it takes.
#[test]
fn missing_fields() {
    let cases = [
        case(
            "locate",
            json!({}),
            "lat: missing required field, lon: missing required field",
            Hint::Own("Provide lat and lon.".into()),
            json!([
                issue(json!(["lat"]), "required", "missing required field"),
                issue(json!(["lon"]), "required", "missing required field"),
            ]),
        ),
        case(
            "register",
            json!({"code": "ABC"}),
            "tag: missing required field. Expected \"v1\", tags: missing required field, email: missing required field, step: missing required field, ratio: missing required field",
            Hint::Own("Provide tag, tags, email, step and ratio.".into()),
            json!([
                issue(json!(["tag"]), "required", "missing required field. Expected \"v1\""),
                issue(json!(["tags"]), "required", "missing required field"),
                issue(json!(["email"]), "required", "missing required field"),
                issue(json!(["step"]), "required", "missing required field"),
                issue(json!(["ratio"]), "required", "missing required field"),
            ]),
        ),
        // An enum field (a plain `enum`), and a nested one (a `oneOf` of `const`s, behind a
        // `$ref`) cannot be shown missing through a union, so `facet` shows the enum.
        case(
            "facet",
            json!({}),
            "what: missing required field. Expected one of \"os\"|\"cpu\"|\"memory\"",
            Hint::Own("Provide what.".into()),
            json!([issue(
                json!(["what"]),
                "required",
                "missing required field. Expected one of \"os\"|\"cpu\"|\"memory\""
            )]),
        ),
        case(
            "configure",
            json!({"opts": {}}),
            "opts.a: missing required field",
            Hint::Own("Provide opts.a.".into()),
            json!([issue(json!(["opts", "a"]), "required", "missing required field")]),
        ),
        case(
            "configure",
            json!({"opts": {"a": "x"}, "items": [{"name": "n"}, {}]}),
            "items.1.name: missing required field",
            Hint::Own("Provide items.1.name.".into()),
            json!([issue(json!(["items", 1, "name"]), "required", "missing required field")]),
        ),
    ];
    check(&mut server(), &cases);
}

/// `type`: expected and received JSON types; the hint says what to send instead.
#[test]
fn wrong_types() {
    let cases = [
        case(
            "locate",
            json!({"lat": "x"}),
            "lat: expected number, received string, lon: missing required field",
            Hint::Own("Send lat as a number, not a string. Provide lon.".into()),
            json!([
                issue(json!(["lat"]), "type", "expected number, received string"),
                issue(json!(["lon"]), "required", "missing required field"),
            ]),
        ),
        // Issues follow the schema's order, not the caller's.
        case(
            "locate",
            json!({"lon": [1], "lat": null}),
            "lat: expected number, received null, lon: expected number, received array",
            Hint::Own("Send lat as a number, not null. Send lon as a number, not an array.".into()),
            json!([
                issue(json!(["lat"]), "type", "expected number, received null"),
                issue(json!(["lon"]), "type", "expected number, received array"),
            ]),
        ),
        // A fraction sent to an integer field; `Option<i64>` expects two types.
        case(
            "configure",
            json!({"opts": {"a": "x"}, "rows": 2.5}),
            "rows: expected integer, received number",
            Hint::Own("Send rows as an integer, not a fractional number.".into()),
            json!([issue(json!(["rows"]), "type", "expected integer, received number")]),
        ),
        case(
            "configure",
            json!({"opts": "x", "rows": "2", "items": 3}),
            "opts: expected object, received string, rows: expected integer, received string, items: expected array, received number",
            Hint::Own(
                "Send opts as an object, not a string. Send rows as an integer, not a string. Send items as an array, not a number.".into(),
            ),
            json!([
                issue(json!(["opts"]), "type", "expected object, received string"),
                issue(json!(["rows"]), "type", "expected integer, received string"),
                issue(json!(["items"]), "type", "expected array, received number"),
            ]),
        ),
        // An integral number is received as `number`; a type failure hides the `const`
        // failure at the same path.
        case(
            "register",
            json!({"tag": 1, "code": true, "tags": ["a"], "email": {}, "step": 1, "ratio": 0.5}),
            "tag: expected string, received number, code: expected string, received boolean, email: expected string, received object",
            Hint::Own(
                "Send tag as a string, not a number. Send code as a string, not a boolean. Send email as a string, not an object.".into(),
            ),
            json!([
                issue(json!(["tag"]), "type", "expected string, received number"),
                issue(json!(["code"]), "type", "expected string, received boolean"),
                issue(json!(["email"]), "type", "expected string, received object"),
            ]),
        ),
        // An enum (plain `enum`) sent the wrong type: the type is what to act on.
        case(
            "facet",
            json!({"what": false}),
            "what: expected string, received boolean",
            Hint::Own("Send what as a string, not a boolean.".into()),
            json!([issue(json!(["what"]), "type", "expected string, received boolean")]),
        ),
    ];
    check(&mut server(), &cases);
}

/// `additionalProperties`: one issue per unknown key, after the level's property issues,
/// in the caller's order; the hint names what the object accepts.
#[test]
fn unknown_keys() {
    let cases = [
        case(
            "search_docs",
            json!({"query": "ok", "salt": true}),
            "salt: unknown key",
            Hint::Own("Unknown key salt. This tool accepts: query, limit.".into()),
            json!([issue(json!(["salt"]), "additionalProperties", "unknown key")]),
        ),
        case(
            "search_docs",
            json!({"extra": 1, "query": "ok", "bbox": [0]}),
            "extra: unknown key, bbox: unknown key",
            Hint::Own("Unknown keys extra, bbox. This tool accepts: query, limit.".into()),
            json!([
                issue(json!(["extra"]), "additionalProperties", "unknown key"),
                issue(json!(["bbox"]), "additionalProperties", "unknown key"),
            ]),
        ),
        // A tool without parameters.
        case(
            "boom",
            json!({"x": 1, "y": 2}),
            "x: unknown key, y: unknown key",
            Hint::Own("Unknown keys x, y. This tool takes no arguments.".into()),
            json!([
                issue(json!(["x"]), "additionalProperties", "unknown key"),
                issue(json!(["y"]), "additionalProperties", "unknown key"),
            ]),
        ),
        case(
            "configure",
            json!({"opts": {"a": "x", "b": 1}}),
            "opts.b: unknown key",
            Hint::Own("Unknown key opts.b. opts accepts: a.".into()),
            json!([issue(json!(["opts", "b"]), "additionalProperties", "unknown key")]),
        ),
        case(
            "configure",
            json!({"opts": {"c": 1, "a": "x", "b": 2}}),
            "opts.c: unknown key, opts.b: unknown key",
            Hint::Own("Unknown keys opts.c, opts.b. opts accepts: a.".into()),
            json!([
                issue(json!(["opts", "c"]), "additionalProperties", "unknown key"),
                issue(json!(["opts", "b"]), "additionalProperties", "unknown key"),
            ]),
        ),
        // Every level: nested issues in their parent's place, unknown keys after the
        // level's properties, rules in the issues' order.
        case(
            "configure",
            json!({"q": 1, "items": [{"name": "x"}, {"zz": 1}], "rows": 2.5, "opts": {"b": 1, "a": 5}}),
            "opts.a: expected string, received number, opts.b: unknown key, rows: expected integer, received number, items.1.name: missing required field, items.1.zz: unknown key, q: unknown key",
            Hint::Own(
                "Send opts.a as a string, not a number. Unknown key opts.b. opts accepts: a. Send rows as an integer, not a fractional number. Provide items.1.name. Unknown key items.1.zz. items.1 accepts: name. Unknown key q. This tool accepts: opts, rows, items.".into(),
            ),
            json!([
                issue(json!(["opts", "a"]), "type", "expected string, received number"),
                issue(json!(["opts", "b"]), "additionalProperties", "unknown key"),
                issue(json!(["rows"]), "type", "expected integer, received number"),
                issue(json!(["items", 1, "name"]), "required", "missing required field"),
                issue(json!(["items", 1, "zz"]), "additionalProperties", "unknown key"),
                issue(json!(["q"]), "additionalProperties", "unknown key"),
            ]),
        ),
    ];
    check(&mut server(), &cases);
}

/// Issue 33 item 6: an unknown key near an accepted one gets a did-you-mean after its
/// object's sentence, at any level; a key far from every accepted one gets none.
#[test]
fn unknown_keys_near_accepted_ones() {
    let cases = [
        case(
            "search_docs",
            json!({"query": "ok", "limt": 3}),
            "limt: unknown key",
            Hint::Own("Unknown key limt. This tool accepts: query, limit. Did you mean limit?".into()),
            json!([issue(json!(["limt"]), "additionalProperties", "unknown key")]),
        ),
        case(
            "configure",
            json!({"opts": {"a": "x"}, "items": [{"nmae": "x"}]}),
            "items.0.name: missing required field, items.0.nmae: unknown key",
            // Next to the missing key it resembles: one sentence (issue 42).
            Hint::Own("Rename items.0.nmae to items.0.name.".into()),
            json!([
                issue(json!(["items", 0, "name"]), "required", "missing required field"),
                issue(json!(["items", 0, "nmae"]), "additionalProperties", "unknown key"),
            ]),
        ),
    ];
    check(&mut server(), &cases);
}

/// An item of `import`: no `deny_unknown_fields`, as most types are written.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Entry {
    /// Its name.
    name: String,
    /// Its tags.
    #[serde(default)]
    tags: Vec<String>,
    /// Free-form extras: this type opts out, and keeps every key it is sent.
    #[serde(default)]
    extra: Option<Extra>,
}

/// Accepts keys it does not know (the per-type opt-out).
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[schemars(extend("additionalProperties" = true))]
struct Extra {
    /// A note.
    #[allow(dead_code)]
    note: Option<String>,
}

/// Imports entries; says how many tags each had.
#[mcp_runtime::tool]
fn import(
    /// The entries.
    items: Vec<Entry>,
) -> String {
    items
        .iter()
        .map(|e| format!("{}:{}{}", e.name, e.tags.len(), if e.extra.is_some() { "+" } else { "" }))
        .collect::<Vec<_>>()
        .join(",")
}

/// Issue 33 item 6: a typo in a nested object is refused, not silently dropped (the
/// first-hour user's `{"items": [{"tag": ["a"]}]}` imported the item without its tags);
/// the listed schema says so; a type that opts out keeps accepting unknown keys.
#[tokio::test]
async fn unknown_keys_are_refused_at_every_level() {
    let server = mcp_runtime::Server::builder("t", "0").tool(import).build().expect("builds");
    let result = server.call("import", json!({"items": [{"name": "a", "tag": ["x"]}]})).await;
    let mut result = serde_json::to_value(result).expect("serializes");
    take_request_id(&mut result);
    let detail = "items.0.tag: unknown key";
    let hint = "Unknown key items.0.tag. items.0 accepts: name, tags, extra. Did you mean tags?";
    assert_eq!(
        result,
        json!({
            "content": [{"type": "text", "text": format!("Error: Invalid arguments for tool import: {detail}\n\nRecovery: {hint}\n\n(reason invalid_arguments · request <RID>)")}],
            "structuredContent": {"error": {"code": -32602, "message": format!("Invalid arguments for tool import: {detail}"), "data": {
                "reason": "invalid_arguments",
                "recovery": {"hint": hint},
                "issues": [issue(json!(["items", 0, "tag"]), "additionalProperties", "unknown key")],
                "requestId": "<RID>",
            }}},
            "isError": true,
        })
    );
    let ok =
        server.call("import", json!({"items": [{"name": "a", "tags": ["x"], "extra": {"note": "n", "any": 1}}]})).await;
    assert_eq!(ok.first_text(), Some("a:1+"), "{ok:?}");
    let schema = &server.tool_descriptors()[0]["inputSchema"];
    assert_eq!(schema["additionalProperties"], json!(false), "{schema}");
    assert_eq!(schema["$defs"]["Entry"]["additionalProperties"], json!(false), "{schema}");
    assert_eq!(schema["$defs"]["Extra"]["additionalProperties"], json!(true), "{schema}");
}

/// Keys are shown sanitised: control characters removed, cut at 128 characters.
#[test]
fn unknown_keys_are_shown_sanitised() {
    let long = "k".repeat(200);
    let shown = format!("{}…", "k".repeat(128));
    let mut args = json!({"query": "ok", "s\u{7}al\u{1b}t\n": 1});
    args[long.as_str()] = json!(2);
    let cases = [case(
        "search_docs",
        args,
        &format!("salt: unknown key, {shown}: unknown key"),
        Hint::Own(format!("Unknown keys salt, {shown}. This tool accepts: query, limit.")),
        json!([
            issue(json!(["salt"]), "additionalProperties", "unknown key"),
            issue(json!([shown]), "additionalProperties", "unknown key"),
        ]),
    )];
    check(&mut server(), &cases);
}

/// `enum` and `const`, in their several schema forms.
#[test]
fn enums_and_consts() {
    let cases = [
        case(
            "facet",
            json!({"what": "gpu"}),
            "what: expected one of \"os\"|\"cpu\"|\"memory\"",
            Hint::Own("Send what as one of \"os\", \"cpu\" or \"memory\". Did you mean \"cpu\"?".into()),
            json!([issue(json!(["what"]), "enum", "expected one of \"os\"|\"cpu\"|\"memory\"")]),
        ),
        case(
            "facet",
            json!({"what": "OS"}),
            "what: expected one of \"os\"|\"cpu\"|\"memory\"",
            Hint::Own("Send what as one of \"os\", \"cpu\" or \"memory\". Did you mean \"os\"?".into()),
            json!([issue(json!(["what"]), "enum", "expected one of \"os\"|\"cpu\"|\"memory\"")]),
        ),
        case(
            "register",
            json!({"tag": "v2", "code": "ABC", "tags": ["a"], "email": "a@b.example", "step": 1, "ratio": 0.5}),
            "tag: expected \"v1\"",
            Hint::Own("Send tag as \"v1\".".into()),
            json!([issue(json!(["tag"]), "const", "expected \"v1\"")]),
        ),
        case(
            "register",
            json!({"tag": "V1", "code": "ABC", "tags": ["a"], "email": "a@b.example", "step": 1, "ratio": 0.5}),
            "tag: expected \"v1\"",
            Hint::Own("Send tag as \"v1\".".into()),
            json!([issue(json!(["tag"]), "const", "expected \"v1\"")]),
        ),
    ];
    check(&mut server(), &cases);
}

/// Valid `register` arguments with `over` applied.
fn register(over: &Value) -> Value {
    let mut args =
        json!({"tag": "v1", "code": "ABC", "tags": ["a"], "email": "a@b.example", "step": 1.5, "ratio": 0.5});
    for (k, v) in over.as_object().expect("object") {
        args[k] = v.clone();
    }
    args
}

/// The numeric, string and array keywords. A pattern, a format, a multiple or duplicates
/// alone are restatements: the hint is the detail and there is no `Recovery:` line. A range
/// or a length (issue 33 item 10) gets a sentence of its own naming every bound the schema
/// sets: the `Recovery:` line says what to send.
#[test]
#[allow(clippy::too_many_lines)] // one case per kind of constraint, read top to bottom
fn bounds_patterns_and_formats() {
    // Each of those has a sentence of its own too (issue 42): every refusal has a
    // `Recovery:` line.
    let one = |tool, args, path: &str, keyword: &str, text: &str| {
        let hint = match keyword {
            "pattern" => format!("Send {path} as a string matching the pattern ^[A-Z]{{3}}$."),
            "format" => format!("Send {path} as a valid email."),
            "multipleOf" => format!("Send {path} as a multiple of 0.5."),
            _ => format!("Send {path} without duplicate items."),
        };
        case(tool, args, &format!("{path}: {text}"), Hint::Own(hint), json!([issue(json!([path]), keyword, text)]))
    };
    let bound = |tool, args, path: &str, keyword: &str, text: &str, hint: &str| {
        case(
            tool,
            args,
            &format!("{path}: {text}"),
            Hint::Own(hint.into()),
            json!([issue(json!([path]), keyword, text)]),
        )
    };
    let limit = "Send limit as an integer from 1 to 50.";
    let ratio = "Send ratio as a number greater than 0 and less than 1.";
    let query = "Send query as a string of at least 1 character.";
    let tags = "Send tags as a list of 1 to 3 items.";
    let cases = [
        bound("search_docs", json!({"query": "x", "limit": 99}), "limit", "maximum", "must be at most 50", limit),
        bound("search_docs", json!({"query": "x", "limit": 51}), "limit", "maximum", "must be at most 50", limit),
        bound("search_docs", json!({"query": "x", "limit": 0}), "limit", "minimum", "must be at least 1", limit),
        bound("search_docs", json!({"query": "x", "limit": -3}), "limit", "minimum", "must be at least 1", limit),
        bound("register", register(&json!({"ratio": 0})), "ratio", "exclusiveMinimum", "must be greater than 0", ratio),
        bound(
            "register",
            register(&json!({"ratio": -0.5})),
            "ratio",
            "exclusiveMinimum",
            "must be greater than 0",
            ratio,
        ),
        bound("register", register(&json!({"ratio": 1})), "ratio", "exclusiveMaximum", "must be less than 1", ratio),
        bound("register", register(&json!({"ratio": 7.25})), "ratio", "exclusiveMaximum", "must be less than 1", ratio),
        bound("search_docs", json!({"query": ""}), "query", "minLength", "must have at least 1 character", query),
        bound(
            "search_docs",
            json!({"query": "", "limit": 3}),
            "query",
            "minLength",
            "must have at least 1 character",
            query,
        ),
        one("register", register(&json!({"code": "abc"})), "code", "pattern", "must match the pattern ^[A-Z]{3}$"),
        one("register", register(&json!({"code": "ABCD"})), "code", "pattern", "must match the pattern ^[A-Z]{3}$"),
        bound("register", register(&json!({"tags": []})), "tags", "minItems", "must have at least 1 item", tags),
        bound(
            "register",
            register(&json!({"tags": ["a", "b", "c", "d"]})),
            "tags",
            "maxItems",
            "must have at most 3 items",
            tags,
        ),
        one(
            "register",
            register(&json!({"tags": ["a", "a"]})),
            "tags",
            "uniqueItems",
            "must not contain duplicate items",
        ),
        one(
            "register",
            register(&json!({"tags": ["b", "c", "b"]})),
            "tags",
            "uniqueItems",
            "must not contain duplicate items",
        ),
        one("register", register(&json!({"email": "nope"})), "email", "format", "must be a valid email"),
        one("register", register(&json!({"email": "a@"})), "email", "format", "must be a valid email"),
        one("register", register(&json!({"step": 0.7})), "step", "multipleOf", "must be a multiple of 0.5"),
        one("register", register(&json!({"step": 1.2})), "step", "multipleOf", "must be a multiple of 0.5"),
        // Several of them: one sentence each.
        case(
            "register",
            json!({"tag": "v2", "code": "abc", "tags": ["a", "a", "b"], "email": "nope", "step": 0.7, "ratio": 0.5}),
            "tag: expected \"v1\", code: must match the pattern ^[A-Z]{3}$, tags: must not contain duplicate items, email: must be a valid email, step: must be a multiple of 0.5",
            Hint::Own("Send tag as \"v1\". Send code as a string matching the pattern ^[A-Z]{3}$. Send tags without duplicate items. Send email as a valid email. Send step as a multiple of 0.5.".into()),
            json!([
                issue(json!(["tag"]), "const", "expected \"v1\""),
                issue(json!(["code"]), "pattern", "must match the pattern ^[A-Z]{3}$"),
                issue(json!(["tags"]), "uniqueItems", "must not contain duplicate items"),
                issue(json!(["email"]), "format", "must be a valid email"),
                issue(json!(["step"]), "multipleOf", "must be a multiple of 0.5"),
            ]),
        ),
        // With bounds among them: each bound has its sentence.
        case(
            "register",
            json!({"tag": "v2", "code": "abc", "tags": ["a", "a", "b", "c"], "email": "nope", "step": 0.7, "ratio": 1}),
            "tag: expected \"v1\", code: must match the pattern ^[A-Z]{3}$, tags: must have at most 3 items, tags: must not contain duplicate items, email: must be a valid email, step: must be a multiple of 0.5, ratio: must be less than 1",
            Hint::Own(format!(
                "Send tag as \"v1\". Send code as a string matching the pattern ^[A-Z]{{3}}$. {tags} Send tags without duplicate items. Send email as a valid email. Send step as a multiple of 0.5. {ratio}"
            )),
            json!([
                issue(json!(["tag"]), "const", "expected \"v1\""),
                issue(json!(["code"]), "pattern", "must match the pattern ^[A-Z]{3}$"),
                issue(json!(["tags"]), "maxItems", "must have at most 3 items"),
                issue(json!(["tags"]), "uniqueItems", "must not contain duplicate items"),
                issue(json!(["email"]), "format", "must be a valid email"),
                issue(json!(["step"]), "multipleOf", "must be a multiple of 0.5"),
                issue(json!(["ratio"]), "exclusiveMaximum", "must be less than 1"),
            ]),
        ),
    ];
    check(&mut server(), &cases);
}

/// Restatements mixed with framework sentences end with `.`.
#[test]
fn restatements_mixed_with_other_sentences() {
    let cases = [
        case(
            "search_docs",
            json!({"query": "", "salt": 1}),
            "query: must have at least 1 character, salt: unknown key",
            Hint::Own("Send query as a string of at least 1 character. Unknown key salt. This tool accepts: query, limit.".into()),
            json!([
                issue(json!(["query"]), "minLength", "must have at least 1 character"),
                issue(json!(["salt"]), "additionalProperties", "unknown key"),
            ]),
        ),
        case(
            "register",
            json!({"code": "ABCD", "tags": [], "email": 3, "step": 0.7, "ratio": 0.5}),
            "tag: missing required field. Expected \"v1\", code: must match the pattern ^[A-Z]{3}$, tags: must have at least 1 item, email: expected string, received number, step: must be a multiple of 0.5",
            Hint::Own(
                "Provide tag. Send code as a string matching the pattern ^[A-Z]{3}$. Send tags as a list of 1 to 3 items. Send email as a string, not a number. Send step as a multiple of 0.5.".into(),
            ),
            json!([
                issue(json!(["tag"]), "required", "missing required field. Expected \"v1\""),
                issue(json!(["code"]), "pattern", "must match the pattern ^[A-Z]{3}$"),
                issue(json!(["tags"]), "minItems", "must have at least 1 item"),
                issue(json!(["email"]), "type", "expected string, received number"),
                issue(json!(["step"]), "multipleOf", "must be a multiple of 0.5"),
            ]),
        ),
    ];
    check(&mut server(), &cases);
}

/// Untagged unions (issue 42): the detail names the closest shape (the branch with the
/// fewest issues) and its issues, paths relative to the union; the hint says what that shape
/// needs and which other shapes there are. A value of a type no shape takes is a type failure.
#[test]
fn untagged_unions() {
    let anyof = |args, text: &str, hint: &str| {
        case(
            "choose",
            args,
            &format!("spec: {text}"),
            Hint::Own(hint.into()),
            json!([issue(json!(["spec"]), "anyOf", text)]),
        )
    };
    let cases = [
        anyof(
            json!({"spec": {"kind": "z", "n": "1"}}),
            "matches none of its 2 shapes; closest {kind, n}: kind: expected one of \"x\"|\"y\"; n: expected number, received string",
            "Send spec.kind as one of \"x\" or \"y\". Send spec.n as a number, not a string. Or send spec as {other}.",
        ),
        anyof(
            json!({"spec": {}}),
            "matches none of its 2 shapes; closest {other}: other: missing required field",
            "Provide spec.other. Or send spec as {kind, n}.",
        ),
        // A `oneOf` of `const`s sent the wrong type reads as a type failure.
        anyof(
            json!({"spec": {"kind": 5, "n": 1}}),
            "matches none of its 2 shapes; closest {kind, n}: kind: expected string, received number",
            "Send spec.kind as a string, not a number. Or send spec as {other}.",
        ),
        // The issue's row: an unknown key in the closest shape.
        anyof(
            json!({"spec": {"kind": "x", "n": 1, "note": "z"}}),
            "matches none of its 2 shapes; closest {kind, n}: note: unknown key",
            "Unknown key spec.note. spec accepts: kind, n. Or send spec as {other}.",
        ),
        // No shape takes a string or an array: the type is what to fix.
        anyof(json!({"spec": "s"}), "expected object, received string", "Send spec as an object, not a string."),
        anyof(json!({"spec": [1]}), "expected object, received array", "Send spec as an object, not an array."),
    ];
    check(&mut server(), &cases);
}

/// Tagged unions (serde's internally tagged enum as the whole input): resolved by the tag.
#[test]
fn tagged_unions() {
    let cases = [
        case(
            "find",
            json!({"mode": "byId", "idd": "1"}),
            "id: missing required field, idd: unknown key",
            // An unknown key that resembles a missing one is that key misspelt (issue 42).
            Hint::Own("Rename idd to id.".into()),
            json!([
                issue(json!(["id"]), "required", "missing required field"),
                issue(json!(["idd"]), "additionalProperties", "unknown key"),
            ]),
        ),
        case(
            "find",
            json!({"name": 5, "mode": "byName", "id": "x"}),
            "name: expected string, received number, id: unknown key",
            Hint::Own(
                "Send name as a string, not a number. Unknown key id. With mode \"byName\" this tool accepts: mode, name.".into(),
            ),
            json!([
                issue(json!(["name"]), "type", "expected string, received number"),
                issue(json!(["id"]), "additionalProperties", "unknown key"),
            ]),
        ),
        case(
            "find",
            json!({"id": "1"}),
            "mode: missing required field. Expected one of \"byId\"|\"byName\"",
            Hint::Own("Provide mode.".into()),
            json!([issue(json!(["mode"]), "required", "missing required field. Expected one of \"byId\"|\"byName\"")]),
        ),
        case(
            "find",
            json!({}),
            "mode: missing required field. Expected one of \"byId\"|\"byName\"",
            Hint::Own("Provide mode.".into()),
            json!([issue(json!(["mode"]), "required", "missing required field. Expected one of \"byId\"|\"byName\"")]),
        ),
        case(
            "find",
            json!({"mode": "byEmail", "email": "e"}),
            "mode: expected one of \"byId\"|\"byName\"",
            Hint::Own("Send mode as one of \"byId\" or \"byName\".".into()),
            json!([issue(json!(["mode"]), "enum", "expected one of \"byId\"|\"byName\"")]),
        ),
        case(
            "find",
            json!({"mode": 3}),
            "mode: expected one of \"byId\"|\"byName\"",
            Hint::Own("Send mode as one of \"byId\" or \"byName\".".into()),
            json!([issue(json!(["mode"]), "enum", "expected one of \"byId\"|\"byName\"")]),
        ),
    ];
    check(&mut server(), &cases);
}

/// At most 10 lines then ` (+N more)`; the hint from those 10; `data.issues` the first 30.
#[test]
fn long_lists_are_cut() {
    let items: Vec<Value> = (0..35).map(|_| json!({})).collect();
    let lines: Vec<String> = (0..10).map(|i| format!("items.{i}.name: missing required field")).collect();
    let names: Vec<String> = (0..10).map(|i| format!("items.{i}.name")).collect();
    let hint = format!("Provide {} and {}.", names[..9].join(", "), names[9]);
    let issues: Vec<Value> =
        (0..30).map(|i| issue(json!(["items", i, "name"]), "required", "missing required field")).collect();
    let cases = [case(
        "configure",
        json!({"opts": {"a": "x"}, "items": items}),
        &format!("{} (+25 more)", lines.join(", ")),
        Hint::Own(hint),
        Value::Array(issues),
    )];
    check(&mut server(), &cases);

    // Eleven issues: the eleventh is counted, not rendered, and not in the hint.
    let items: Vec<Value> = (0..10).map(|_| json!({"name": 1})).collect();
    let lines: Vec<String> = (0..10).map(|i| format!("items.{i}.name: expected string, received number")).collect();
    let hint: Vec<String> = (0..10).map(|i| format!("Send items.{i}.name as a string, not a number.")).collect();
    let mut issues: Vec<Value> =
        (0..10).map(|i| issue(json!(["items", i, "name"]), "type", "expected string, received number")).collect();
    issues.push(issue(json!(["extra"]), "additionalProperties", "unknown key"));
    let cases = [case(
        "configure",
        json!({"opts": {"a": "x"}, "items": items, "extra": true}),
        &format!("{} (+1 more)", lines.join(", ")),
        Hint::Own(hint.join(" ")),
        Value::Array(issues),
    )];
    check(&mut server(), &cases);
}

/// A number the schema accepts as an integer reaches the handler as that integer.
#[test]
fn integral_floats_are_integers() {
    let mut c = server();
    let result = c.call("add", json!({"a": 1.0, "b": 2}));
    assert_eq!(result, json!({"content": [{"type": "text", "text": "{\"sum\":3}"}], "structuredContent": {"sum": 3}}));
    let result = c.call("add", json!({"a": -4.0, "b": 1e3}));
    assert_eq!(
        result,
        json!({"content": [{"type": "text", "text": "{\"sum\":996}"}], "structuredContent": {"sum": 996}})
    );
    let result = c.call("search_docs", json!({"query": "q", "limit": 2.0}));
    let hits = json!({"hits": ["hit 1 for q", "hit 2 for q"]});
    assert_eq!(result, json!({"content": [{"type": "text", "text": hits.to_string()}], "structuredContent": hits}));
    let result = c.call("configure", json!({"opts": {"a": "x"}, "rows": 7.0, "items": [{"name": "n"}]}));
    assert_eq!(result, json!({"content": [{"type": "text", "text": "a=x rows=7 items=n"}]}));
}

/// The hint of an argument serde cannot read.
fn serde_hint(path: &str) -> String {
    format!("Send {path} as another value: this one fits the input schema but not the tool's own type.")
}

/// Arguments that pass the schema but not serde (the schema is looser than the type).
#[test]
fn arguments_serde_cannot_read() {
    let line = "does not match the schema (deserialize)";
    let cases = [
        // 2^63 is an integer to the schema and too large for `i64`.
        case(
            "add",
            json!({"a": 1, "b": 9_223_372_036_854_775_808_u64}),
            &format!("b: {line}"),
            Hint::Own(serde_hint("b")),
            json!([issue(json!(["b"]), "deserialize", line)]),
        ),
        // 1e20 is integral, and too large for `u64`.
        case(
            "sleep_ms",
            json!({"ms": 1e20}),
            &format!("ms: {line}"),
            Hint::Own(serde_hint("ms")),
            json!([issue(json!(["ms"]), "deserialize", line)]),
        ),
        // 1e19 is integral, an integer to the schema, and too large for `i64` even as one.
        case(
            "add",
            json!({"a": 1e19, "b": 1}),
            &format!("a: {line}"),
            Hint::Own(serde_hint("a")),
            json!([issue(json!(["a"]), "deserialize", line)]),
        ),
    ];
    check(&mut server(), &cases);
}

/// The handler never runs: `boom` panics when it runs, and is refused before.
#[test]
fn the_handler_never_runs() {
    let mut c = server();
    let mut result = c.call("boom", json!({"x": 1}));
    take_request_id(&mut result);
    assert_eq!(result["structuredContent"]["error"]["data"]["reason"], json!("invalid_arguments"));
    // A failure last: once its record shows, whatever the refused call logged has shown too
    // (one queue writes the records in order).
    c.call("fetch_items", json!({"ids": []}));
    assert!(c.wait_for_stderr("No data for 0 ids", 1), "the last failure is logged:\n{}", c.stderr());
    assert!(!c.stderr().contains("secret panic payload"), "{}", c.stderr());
    assert!(!c.stderr().contains("handler panicked"), "{}", c.stderr());
}

/// Very many issues: 20,000 unknown keys and 20,000 items missing a field are refused with
/// the first ones shown and the rest counted. (How long that takes is a figure of
/// `cargo bench -p mcp-tests --bench timings`, not a test: a duration says more about the
/// machine than about the code.)
#[test]
fn very_many_issues_are_refused_with_the_first_ones_shown() {
    let mut c = server();
    let mut args = serde_json::Map::new();
    args.insert("query".into(), json!("q"));
    for i in 0..20_000 {
        args.insert(format!("k{i}"), json!(i));
    }
    let keys: Vec<String> = (0..10).map(|i| format!("k{i}")).collect();
    let lines: Vec<String> = keys.iter().map(|k| format!("{k}: unknown key")).collect();
    let issues: Vec<Value> =
        (0..30).map(|i| issue(json!([format!("k{i}")]), "additionalProperties", "unknown key")).collect();
    let unknown = case(
        "search_docs",
        Value::Object(args),
        &format!("{} (+19990 more)", lines.join(", ")),
        Hint::Own(format!("Unknown keys {}. This tool accepts: query, limit.", keys.join(", "))),
        Value::Array(issues),
    );
    let items: Vec<Value> = (0..20_000).map(|_| json!({})).collect();
    let lines: Vec<String> = (0..10).map(|i| format!("items.{i}.name: missing required field")).collect();
    let names: Vec<String> = (0..10).map(|i| format!("items.{i}.name")).collect();
    let issues: Vec<Value> =
        (0..30).map(|i| issue(json!(["items", i, "name"]), "required", "missing required field")).collect();
    let missing = case(
        "configure",
        json!({"opts": {"a": "x"}, "items": items}),
        &format!("{} (+19990 more)", lines.join(", ")),
        Hint::Own(format!("Provide {} and {}.", names[..9].join(", "), names[9])),
        Value::Array(issues),
    );
    check(&mut c, &[unknown, missing]);
}

/// Issue 42's table, each row as a model sends it to `fixture-server`: the refusals say
/// what to change and never suggest a wrong fix; the mistakes with one reading are repaired.
#[test]
fn issue_42_table() {
    let cases = [
        // Never a key the caller already sent (`lat` is there).
        case(
            "locate",
            json!({"lat": 1.25, "lon": 2.5, "alt": 300}),
            "alt: unknown key",
            Hint::Own("Unknown key alt. This tool accepts: lat, lon.".into()),
            json!([issue(json!(["alt"]), "additionalProperties", "unknown key")]),
        ),
        // An enum value: case first.
        case(
            "facet",
            json!({"what": "Memory"}),
            "what: expected one of \"os\"|\"cpu\"|\"memory\"",
            Hint::Own("Send what as one of \"os\", \"cpu\" or \"memory\". Did you mean \"memory\"?".into()),
            json!([issue(json!(["what"]), "enum", "expected one of \"os\"|\"cpu\"|\"memory\"")]),
        ),
        // A tag value: the same.
        case(
            "find",
            json!({"mode": "byid", "id": "7"}),
            "mode: expected one of \"byId\"|\"byName\"",
            Hint::Own("Send mode as one of \"byId\" or \"byName\". Did you mean \"byId\"?".into()),
            json!([issue(json!(["mode"]), "enum", "expected one of \"byId\"|\"byName\"")]),
        ),
        // An unknown key next to the missing key it resembles: rename it.
        case(
            "search_docs",
            json!({"qeury": "rust"}),
            "query: missing required field, qeury: unknown key",
            Hint::Own("Rename qeury to query.".into()),
            json!([
                issue(json!(["query"]), "required", "missing required field"),
                issue(json!(["qeury"]), "additionalProperties", "unknown key"),
            ]),
        ),
        // Never a key whose type cannot take the value sent (`limit` is an integer).
        case(
            "search_docs",
            json!({"query": "q", "limt": "many"}),
            "limt: unknown key",
            Hint::Own("Unknown key limt. This tool accepts: query, limit.".into()),
            json!([issue(json!(["limt"]), "additionalProperties", "unknown key")]),
        ),
    ];
    let mut c = server();
    check(&mut c, &cases);

    // `"5"` is 5, and a lone value where a list is wanted is a list of one: the call succeeds,
    // the handler reads the typed value, and the log record of the call names each repair.
    let result = c.call("add", json!({"a": "5", "b": 3}));
    assert_eq!(result, json!({"content": [{"type": "text", "text": "{\"sum\":8}"}], "structuredContent": {"sum": 8}}));
    let result = c.call("register", register(&json!({"tags": "alpha"})));
    assert_eq!(result, json!({"content": [{"type": "text", "text": "ok"}]}));
    let result = c.call("configure", json!({"opts": {"a": "x"}, "rows": "7", "items": {"name": "n"}}));
    assert_eq!(result, json!({"content": [{"type": "text", "text": "a=x rows=7 items=n"}]}));
    for repairs in
        ["number_from_string at a", "list_of_one at tags", "number_from_string at rows, list_of_one at items"]
    {
        assert!(c.wait_for_stderr(repairs, 1), "no record of {repairs}:\n{}", c.stderr());
    }
    let stderr = c.stderr();
    let line = stderr.lines().find(|l| l.contains("number_from_string at a")).unwrap_or_default();
    assert!(line.contains("arguments repaired") && line.contains("add"), "{line}");
}

/// Repairs off server-wide (`FIXTURE_REPAIR=0`): the same calls are refused as sent.
#[test]
fn repairs_off_refuse_as_sent() {
    let mut c = Client::spawn(
        env!("CARGO_BIN_EXE_fixture-server"),
        &[("FIXTURE_STRUCTURED_ERRORS", "always"), ("FIXTURE_REPAIR", "0")],
    );
    c.initialize();
    let cases = [
        case(
            "add",
            json!({"a": "5", "b": 3}),
            "a: expected integer, received string",
            Hint::Own("Send a as an integer, not a string.".into()),
            json!([issue(json!(["a"]), "type", "expected integer, received string")]),
        ),
        case(
            "register",
            register(&json!({"tags": "alpha"})),
            "tags: expected array, received string",
            Hint::Own("Send tags as an array, not a string.".into()),
            json!([issue(json!(["tags"]), "type", "expected array, received string")]),
        ),
    ];
    check(&mut c, &cases);
    assert!(!c.stderr().contains("arguments repaired"), "{}", c.stderr());
}

/// A window of `plan`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Window {
    /// Where it starts.
    start: u32,
    /// Where it ends, if it does.
    #[serde(default)]
    end: Option<u32>,
    /// Its flags.
    flags: Vec<bool>,
}

/// A shape of `plan` (a tagged union).
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "camelCase", deny_unknown_fields)]
enum Shape {
    /// A circle.
    Circle {
        /// Its radius.
        r: f64,
    },
    /// A square.
    Square {
        /// Its side.
        side: f64,
    },
}

/// Plans windows in a shape; says what it read.
#[mcp_runtime::tool]
fn plan(
    /// The windows.
    windows: Vec<Window>,
    /// The shape.
    shape: Shape,
) -> String {
    let windows: Vec<String> = windows
        .iter()
        .map(|w| format!("{}-{} {:?}", w.start, w.end.map_or_else(|| "open".to_owned(), |e| e.to_string()), w.flags))
        .collect();
    let shape = match shape {
        Shape::Circle { r } => format!("circle {r}"),
        Shape::Square { side } => format!("square {side}"),
    };
    format!("{} / {shape}", windows.join(", "))
}

/// `plan` refusing as sent: `#[tool(repair = false)]`.
#[mcp_runtime::tool(repair = false)]
fn plan_as_sent(
    /// The windows.
    windows: Vec<Window>,
) -> String {
    windows.len().to_string()
}

/// Repairs reach nested objects, arrays and the branch a tag picks; the handler reads the
/// typed value. A tool (`repair = false`) or a server (`repair_inputs(false)`) turns them off.
#[tokio::test]
async fn repairs_reach_nested_values() {
    let args = json!({
        "windows": {"start": "3", "end": null, "flags": "true"},
        "shape": {"kind": "circle", "r": "1.5"},
    });
    let server = mcp_runtime::Server::builder("t", "0").tool(plan).tool(plan_as_sent).build().expect("builds");
    let result = server.call("plan", args.clone()).await;
    assert_eq!(result.first_text(), Some("3-open [true] / circle 1.5"), "{result:?}");
    // `"1.5"` is no integer: `start` cannot be repaired, and nothing is.
    let result = server
        .call("plan", json!({"windows": [{"start": "1.5", "flags": []}], "shape": {"kind": "square", "side": 1}}))
        .await;
    let mut result = serde_json::to_value(result).expect("serializes");
    take_request_id(&mut result);
    assert_eq!(
        result["structuredContent"]["error"]["message"],
        json!("Invalid arguments for tool plan: windows.0.start: expected integer, received string")
    );
    let result = server.call("plan_as_sent", json!({"windows": {"start": 1, "flags": []}})).await;
    let result = serde_json::to_value(result).expect("serializes");
    assert_eq!(
        result["structuredContent"]["error"]["message"],
        json!("Invalid arguments for tool plan_as_sent: windows: expected array, received object")
    );
    let off = mcp_runtime::Server::builder("t", "0").tool(plan).repair_inputs(false).build().expect("builds");
    let result = serde_json::to_value(off.call("plan", args).await).expect("serializes");
    assert_eq!(result["structuredContent"]["error"]["data"]["reason"], json!("invalid_arguments"), "{result}");
}
