//! Argument and output validation against the compiled schemas, and the texts of
//! `invalid_arguments` / `invalid_output` (ERRORS.md §5). Runs only on the failure path:
//! a valid call costs one `is_valid`.
//!
//! The validator decides *what* failed (its errors are the facts); the schema as listed
//! decides *how it reads*: issues are ordered by the schema's property order, `$ref`s are
//! resolved so that texts name the caller's fields, a `required` field says which values it
//! takes, and a tagged union (serde's internally tagged enum) is resolved by its tag.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use jsonschema::ValidationError;
use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::paths::Location;
use mcp_core::ToolError;
use serde::Deserialize as _;
use serde::de::{self, DeserializeOwned, DeserializeSeed, Visitor};
use serde_json::{Map, Value, json};

use crate::rpc::envelope::display_name;

/// Lines the detail renders (and the hint is built from).
const DETAIL_LINES: usize = 10;
/// Entries of `data.issues`.
const LISTED_ISSUES: usize = 30;
/// A detail line longer than this is cut and ends with `…`.
const LINE_CHARS: usize = 1024;
/// Validator errors turned into issues; later ones are only counted (` (+N more)`).
const KEPT_ERRORS: usize = 256;
/// A failing value with more JSON nodes than this is described by its first error alone.
/// jsonschema gathers every error before returning any (some 450 bytes each), so a 4 MiB
/// array of wrong elements would otherwise take a gigabyte and seconds to render ten lines.
const FULL_REPORT_NODES: usize = 64 * 1024;

/// One step of an instance path. Keys are kept as sent and sanitised when shown.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Seg {
    Key(String),
    Index(usize),
}

/// One problem with the arguments.
#[derive(Clone, Debug, PartialEq)]
struct Issue {
    path: Vec<Seg>,
    keyword: Cow<'static, str>,
    /// The text, without the path.
    message: String,
    hint: Hint,
}

/// What an issue contributes to the recovery hint (ERRORS.md §5, rules 1–7).
#[derive(Clone, Debug, PartialEq)]
enum Hint {
    /// An unknown key; the sentence that says what its object accepts (`opts accepts: a.`),
    /// and the accepted key it is probably a misspelling of.
    Unknown { accepts: String, near: Option<String> },
    /// A wrong type: the end of `Send <path> …` (`as a number, not a string`).
    Type(String),
    /// A value out of its range or length: the end of `Send <path> …` (`as an integer from 1
    /// to 50`), naming every bound of the schema.
    Bound(String),
    /// A missing required field.
    Missing,
    /// Restated as its detail line.
    Restate,
}

impl Issue {
    fn new(path: Vec<Seg>, keyword: impl Into<Cow<'static, str>>, message: String, hint: Hint) -> Self {
        Issue { path, keyword: keyword.into(), message, hint }
    }

    /// `<path>: <text>` (no path at the root), cut at [`LINE_CHARS`].
    fn line(&self) -> String {
        let mut out = String::with_capacity(self.message.len() + 16 * self.path.len());
        self.write_line(&mut out, 0);
        out
    }

    /// The line with the path relative to the first `base` segments.
    fn line_from(&self, base: usize) -> String {
        let path = self.path.get(base..).unwrap_or_default();
        if path.is_empty() { self.message.clone() } else { format!("{}: {}", dotted(path), self.message) }
    }

    /// Appends [`Issue::line`] to `out`, without building it separately.
    fn write_line(&self, out: &mut String, base: usize) {
        let start = out.len();
        let path = self.path.get(base..).unwrap_or_default();
        if !path.is_empty() {
            push_dotted(out, path);
            out.push_str(": ");
        }
        out.push_str(&self.message);
        cut_from(out, start);
    }
}

/// `opts.b`, `items.1.name`: keys sanitised (control characters removed, length-capped).
fn dotted(path: &[Seg]) -> String {
    let mut out = String::new();
    push_dotted(&mut out, path);
    out
}

fn push_dotted(out: &mut String, path: &[Seg]) {
    for (i, seg) in path.iter().enumerate() {
        if i > 0 {
            out.push('.');
        }
        match seg {
            // Most keys are short and clean: no copy to sanitise them.
            Seg::Key(k) if k.len() <= 128 && !k.chars().any(char::is_control) => out.push_str(k),
            Seg::Key(k) => out.push_str(&display_name(k)),
            Seg::Index(i) => {
                let _ = write!(out, "{i}");
            }
        }
    }
}

/// Cuts what was appended to `out` since `start` at [`LINE_CHARS`] characters, then `…`.
fn cut_from(out: &mut String, start: usize) {
    if let Some((at, _)) = out[start..].char_indices().nth(LINE_CHARS) {
        out.truncate(start + at);
        out.push('…');
    }
}

/// The `invalid_arguments` failure for arguments that failed the input schema, and the
/// `data.issues` list.
pub(crate) fn invalid_arguments(
    tool: &str,
    validator: &jsonschema::Validator,
    schema: &Value,
    args: &Value,
) -> (ToolError, Value) {
    let (issues, more) = input_issues(validator, schema, args);
    (refusal(tool, &issues, more), issues_json(&issues))
}

/// The issues of arguments that fail `schema`, in the detail's order (never empty), and how
/// many errors beyond [`KEPT_ERRORS`] were only counted.
fn input_issues(validator: &jsonschema::Validator, schema: &Value, args: &Value) -> (Vec<Issue>, usize) {
    let walk = Walk::new(schema, args);
    let (mut issues, more) = collect(&walk, validator, args);
    walk.tidy(&mut issues, Some(schema), Some(args), 0);
    if issues.is_empty() {
        // The validator rejected the arguments without saying why: still say something.
        issues.push(Issue::new(Vec::new(), "schema", "does not match the schema (schema)".into(), Hint::Restate));
    }
    (issues, more)
}

/// The issues of the first [`KEPT_ERRORS`] errors of `value`, and the number of errors
/// after them; only the first error when `value` is larger than [`FULL_REPORT_NODES`].
fn collect(walk: &Walk<'_>, validator: &jsonschema::Validator, value: &Value) -> (Vec<Issue>, usize) {
    let mut issues = Vec::new();
    if !fewer_nodes_than(value, FULL_REPORT_NODES) {
        if let Err(error) = validator.validate(value) {
            walk.collect(&error, None, &mut issues);
        }
        return (issues, 0);
    }
    let mut more = 0;
    for (n, error) in validator.iter_errors(value).enumerate() {
        if n < KEPT_ERRORS {
            walk.collect(&error, None, &mut issues);
        } else {
            more += 1;
        }
    }
    (issues, more)
}

/// Whether `value` has fewer than `limit` nodes; stops counting at the limit.
fn fewer_nodes_than(value: &Value, limit: usize) -> bool {
    fn count(value: &Value, left: &mut usize) -> bool {
        if *left == 0 {
            return false;
        }
        *left -= 1;
        match value {
            Value::Array(items) => items.iter().all(|v| count(v, left)),
            Value::Object(map) => map.values().all(|v| count(v, left)),
            _ => true,
        }
    }
    count(value, &mut { limit })
}

/// The envelope's error for these issues (and `more` counted beyond them): message, hint
/// and reason.
fn refusal(tool: &str, issues: &[Issue], more: usize) -> ToolError {
    let detail = detail(issues, more);
    let hint = hint(issues, &detail);
    ToolError::invalid_params(format!("Invalid arguments for tool {tool}: {detail}"))
        .reason("invalid_arguments")
        .hint(hint)
}

/// `data.issues`: the first [`LISTED_ISSUES`] issues as `{path, keyword, message}`, texts
/// cut like detail lines.
fn issues_json(issues: &[Issue]) -> Value {
    Value::Array(
        issues
            .iter()
            .take(LISTED_ISSUES)
            .map(|i| {
                let path: Vec<Value> = i
                    .path
                    .iter()
                    .map(|s| match s {
                        Seg::Key(k) => Value::from(display_name(k)),
                        Seg::Index(n) => Value::from(*n),
                    })
                    .collect();
                let mut message = i.message.clone();
                cut_from(&mut message, 0);
                let mut issue = Map::with_capacity(3);
                issue.insert("path".into(), Value::Array(path));
                issue.insert("keyword".into(), Value::from(i.keyword.as_ref()));
                issue.insert("message".into(), Value::String(message));
                Value::Object(issue)
            })
            .collect(),
    )
}

/// The first [`DETAIL_LINES`] lines joined by `, `, then ` (+N more)`, `N` counting the
/// `more` issues that were not kept.
fn detail(issues: &[Issue], more: usize) -> String {
    let mut out = String::with_capacity(64 * issues.len().min(DETAIL_LINES));
    for (i, issue) in issues.iter().take(DETAIL_LINES).enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        issue.write_line(&mut out, 0);
    }
    let total = issues.len() + more;
    if total > DETAIL_LINES {
        let _ = write!(out, " (+{} more)", total - DETAIL_LINES);
    }
    out
}

/// One sentence of the hint, before rendering.
enum Sentence {
    Text {
        text: String,
        restatement: bool,
    },
    Provide(Vec<String>),
    /// Unknown keys of one object: their paths, what it accepts, and each suggestion as
    /// (suggested key, unknown key).
    Unknown {
        parent: Vec<Seg>,
        keys: Vec<String>,
        accepts: String,
        nears: Vec<(String, String)>,
    },
}

/// The recovery hint, from the issues the detail renders (ERRORS.md §5, rules 1–7).
fn hint(issues: &[Issue], detail: &str) -> String {
    let mut sentences: Vec<Sentence> = Vec::new();
    for issue in issues.iter().take(DETAIL_LINES) {
        match &issue.hint {
            Hint::Missing => {
                let name = dotted(&issue.path);
                match sentences.iter_mut().find_map(|s| if let Sentence::Provide(l) = s { Some(l) } else { None }) {
                    Some(list) => list.push(name),
                    None => sentences.push(Sentence::Provide(vec![name])),
                }
            }
            Hint::Unknown { accepts, near } => {
                let (parent, key) = match issue.path.split_last() {
                    Some((last, parent)) => (parent.to_vec(), dotted(std::slice::from_ref(last))),
                    None => (Vec::new(), String::new()),
                };
                let name = dotted(&issue.path);
                let near = near.clone().map(|near| (near, key));
                let group = sentences.iter_mut().find_map(|s| match s {
                    Sentence::Unknown { parent: p, keys, nears, .. } if *p == parent => Some((keys, nears)),
                    _ => None,
                });
                match group {
                    Some((keys, nears)) => {
                        keys.push(name);
                        nears.extend(near);
                    }
                    None => sentences.push(Sentence::Unknown {
                        parent,
                        keys: vec![name],
                        accepts: accepts.clone(),
                        nears: near.into_iter().collect(),
                    }),
                }
            }
            Hint::Type(tail) | Hint::Bound(tail) => {
                let name = if issue.path.is_empty() { "the arguments".to_owned() } else { dotted(&issue.path) };
                sentences.push(Sentence::Text { text: format!("Send {name} {tail}."), restatement: false });
            }
            Hint::Restate => sentences.push(Sentence::Text { text: issue.line(), restatement: true }),
        }
    }
    if sentences.iter().all(|s| matches!(s, Sentence::Text { restatement: true, .. })) {
        return detail.to_owned();
    }
    let mut out: Vec<String> = Vec::with_capacity(sentences.len());
    for sentence in sentences {
        let text = match sentence {
            Sentence::Text { text, restatement: false } => text,
            Sentence::Text { mut text, restatement: true } => {
                if !text.ends_with('.') {
                    text.push('.');
                }
                text
            }
            Sentence::Provide(names) => format!("Provide {}.", and_list(&names)),
            Sentence::Unknown { keys, accepts, nears, .. } => {
                let noun = if keys.len() == 1 { "key" } else { "keys" };
                let mut text = format!("Unknown {noun} {}. {accepts}", keys.join(", "));
                match nears.as_slice() {
                    [] => {}
                    [(near, _)] if keys.len() == 1 => {
                        let _ = write!(text, " Did you mean {near}?");
                    }
                    nears => {
                        let each: Vec<String> = nears.iter().map(|(near, key)| format!("{near} for {key}")).collect();
                        let _ = write!(text, " Did you mean {}?", and_list(&each));
                    }
                }
                text
            }
        };
        if !out.contains(&text) {
            out.push(text);
        }
    }
    out.join(" ")
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The JSON type name of a value; every number is a `number`.
fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Whether `value` is of JSON Schema type `ty` (`integer`: an integral number).
fn has_type(value: &Value, ty: &str) -> bool {
    match (ty, value) {
        ("integer", Value::Number(n)) => n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0),
        (ty, v) => ty == json_type(v),
    }
}

fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" }
}

/// `expected number, received string` and its hint `as a number, not a string`.
fn type_issue(path: Vec<Seg>, expected: &[String], instance: &Value) -> Issue {
    let received = json_type(instance);
    let message = format!("expected {}, received {received}", expected.join(" or "));
    let tail = match expected.iter().find(|t| *t != "null").map(String::as_str) {
        Some("integer") if instance.is_number() => "as an integer, not a fractional number".to_owned(),
        wanted => {
            let wanted = wanted.map_or_else(|| "null".to_owned(), |t| format!("{} {t}", article(t)));
            let sent = if instance.is_null() { "null".to_owned() } else { format!("{} {received}", article(received)) };
            format!("as {wanted}, not {sent}")
        }
    };
    Issue::new(path, "type", message, Hint::Type(tail))
}

/// `"os"|"cpu"|"memory"`.
fn alternatives<'v>(values: impl IntoIterator<Item = &'v Value>) -> String {
    values.into_iter().map(Value::to_string).collect::<Vec<_>>().join("|")
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The text of a keyword failure (the table of the hints issue); `node` is the schema the
/// keyword belongs to, when known.
fn keyword_text(kind: &ValidationErrorKind, node: Option<&Value>) -> String {
    match kind {
        ValidationErrorKind::Enum { options } => match options.as_ref() {
            Value::Array(values) => format!("expected one of {}", alternatives(values)),
            other => format!("expected one of {other}"),
        },
        ValidationErrorKind::Constant { expected_value } => format!("expected {expected_value}"),
        ValidationErrorKind::Minimum { limit } => format!("must be at least {limit}"),
        ValidationErrorKind::Maximum { limit } => format!("must be at most {limit}"),
        ValidationErrorKind::ExclusiveMinimum { limit } => format!("must be greater than {limit}"),
        ValidationErrorKind::ExclusiveMaximum { limit } => format!("must be less than {limit}"),
        ValidationErrorKind::MinLength { limit } => {
            format!("must have at least {}", plural(*limit, "character", "characters"))
        }
        ValidationErrorKind::MaxLength { limit } => {
            format!("must have at most {}", plural(*limit, "character", "characters"))
        }
        ValidationErrorKind::Pattern { pattern } => format!("must match the pattern {pattern}"),
        ValidationErrorKind::MinItems { limit } => format!("must have at least {}", plural(*limit, "item", "items")),
        ValidationErrorKind::MaxItems { limit } => format!("must have at most {}", plural(*limit, "item", "items")),
        ValidationErrorKind::UniqueItems => "must not contain duplicate items".into(),
        ValidationErrorKind::Format { format } => format!("must be a valid {format}"),
        ValidationErrorKind::MultipleOf { multiple_of } => {
            // As the schema writes it (`2`, not `2.0`).
            let n = node.and_then(|n| n.get("multipleOf")).cloned().unwrap_or_else(|| Value::from(*multiple_of));
            format!("must be a multiple of {n}")
        }
        other => format!("does not match the schema ({})", other.keyword()),
    }
}

/// The values an enum-like schema takes: an `enum`, a `const`, or a union whose every
/// branch is one of those (schemars' form of an enum with documented variants).
struct Choices<'s> {
    values: Vec<&'s Value>,
    /// The JSON types the branches name (empty: not known).
    types: Vec<&'s str>,
}

/// How one tagged union is told apart: the property every branch pins to a value.
struct Tagged<'s> {
    property: &'s str,
    tags: Vec<&'s Value>,
}

/// Unknown keys of the object at `path` were found in the branch picked by `tag`.
struct TagScope {
    path: Vec<Seg>,
    /// `With mode "byId" `.
    prefix: String,
}

/// For each argument object (by address), its keys' positions as sent.
type SentOrder<'s> = HashMap<*const Map<String, Value>, HashMap<&'s str, usize>>;

/// The schema as listed and the arguments, read together.
struct Walk<'s> {
    root: &'s Value,
    args: &'s Value,
    /// Each object's keys by their position as sent, built when first needed (an
    /// argument object may have very many keys).
    sent_order: RefCell<SentOrder<'s>>,
    /// Objects (and the schema that refused them) whose keys were all reported unknown.
    expanded: RefCell<HashSet<(Vec<Seg>, String)>>,
}

impl<'s> Walk<'s> {
    fn new(root: &'s Value, args: &'s Value) -> Self {
        Walk { root, args, sent_order: RefCell::default(), expanded: RefCell::default() }
    }

    /// Where `key` was sent in `object` (after every key when it was not).
    fn sent_position(&self, object: &'s Map<String, Value>, key: &str) -> usize {
        let mut cache = self.sent_order.borrow_mut();
        let positions = cache
            .entry(std::ptr::from_ref(object))
            .or_insert_with(|| object.keys().enumerate().map(|(i, k)| (k.as_str(), i)).collect());
        positions.get(key).copied().unwrap_or(usize::MAX)
    }

    /// Follows local `$ref`s (bounded, so a cycle cannot hang).
    fn resolve(&self, mut node: &'s Value) -> &'s Value {
        for _ in 0..32 {
            let target = node
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix('#'))
                .and_then(|pointer| self.root.pointer(pointer));
            match target {
                Some(t) => node = t,
                None => break,
            }
        }
        node
    }

    /// The schema a keyword belongs to, from the keyword's canonical location.
    fn node_of(&self, keyword_location: &Location) -> Option<&'s Value> {
        let pointer = keyword_location.as_str();
        let parent = &pointer[..pointer.rfind('/').unwrap_or(0)];
        self.root.pointer(parent)
    }

    /// The instance path of an error, with array indices told apart from keys by the
    /// arguments themselves.
    fn path_of(&self, location: &Location) -> Vec<Seg> {
        let mut at = Some(self.args);
        let mut path = Vec::new();
        for raw in location.as_str().split('/').skip(1) {
            let raw = raw.replace("~1", "/").replace("~0", "~");
            let seg = match (at, raw.parse::<usize>()) {
                (Some(Value::Array(_)), Ok(i)) => Seg::Index(i),
                _ => Seg::Key(raw),
            };
            at = at.and_then(|v| match &seg {
                Seg::Index(i) => v.get(*i),
                Seg::Key(k) => v.get(k),
            });
            path.push(seg);
        }
        path
    }

    fn instance_at(&self, path: &[Seg]) -> Option<&'s Value> {
        path.iter().try_fold(self.args, |v, seg| match seg {
            Seg::Index(i) => v.get(*i),
            Seg::Key(k) => v.get(k),
        })
    }

    fn union_of(&self, node: &'s Value) -> Option<&'s [Value]> {
        let node = self.resolve(node);
        node.get("oneOf").or_else(|| node.get("anyOf")).and_then(Value::as_array).map(Vec::as_slice)
    }

    /// `Some` when every branch pins the same property to a value of its own.
    fn tagged(&self, branches: &'s [Value]) -> Option<Tagged<'s>> {
        let first = self.resolve(branches.first()?);
        first.get("properties")?.as_object()?.keys().find_map(|property| {
            let tags: Vec<&Value> = branches.iter().map(|b| self.pinned(b, property)).collect::<Option<_>>()?;
            let distinct = tags.iter().enumerate().all(|(i, t)| !tags[..i].contains(t));
            distinct.then_some(Tagged { property, tags })
        })
    }

    fn pinned(&self, branch: &'s Value, property: &str) -> Option<&'s Value> {
        let schema = self.resolve(self.resolve(branch).get("properties")?.get(property)?);
        schema.get("const").or_else(|| match schema.get("enum")?.as_array()?.as_slice() {
            [only] => Some(only),
            _ => None,
        })
    }

    /// The values an enum-like schema takes, if it is one.
    fn choices(&self, node: &'s Value) -> Option<Choices<'s>> {
        let node = self.resolve(node);
        let mut out = Choices { values: Vec::new(), types: Vec::new() };
        let own = |schema: &'s Value, out: &mut Choices<'s>| -> bool {
            if let Some(c) = schema.get("const") {
                out.values.push(c);
            } else if let Some(values) = schema.get("enum").and_then(Value::as_array) {
                out.values.extend(values);
            } else {
                return false;
            }
            match schema.get("type") {
                Some(Value::String(t)) => out.types.push(t),
                Some(Value::Array(ts)) => out.types.extend(ts.iter().filter_map(Value::as_str)),
                _ => {}
            }
            true
        };
        if own(node, &mut out) {
            return Some(out);
        }
        let branches = self.union_of(node)?;
        branches.iter().all(|b| own(self.resolve(b), &mut out)).then_some(out)
    }

    /// `. Expected one of "a"|"b"` / `. Expected "x"` for a missing enum or const field.
    fn expectation(&self, field: Option<&'s Value>) -> String {
        match field.and_then(|f| self.choices(f)) {
            Some(c) if c.values.len() == 1 => format!(". Expected {}", c.values[0]),
            Some(c) => format!(". Expected one of {}", alternatives(c.values)),
            None => String::new(),
        }
    }

    /// The property `key` of the object schema `node` (searching `allOf` members and the
    /// branch a tagged union's tag picks): its position and its schema.
    fn property(&self, node: &'s Value, instance: Option<&Value>, key: &str) -> Option<(usize, &'s Value)> {
        let node = self.resolve(node);
        if let Some(props) = node.get("properties").and_then(Value::as_object)
            && let Some(found) = props.iter().position(|(k, _)| k == key).zip(props.get(key))
        {
            return Some(found);
        }
        if let Some(all) = node.get("allOf").and_then(Value::as_array)
            && let Some(found) = all.iter().find_map(|member| self.property(member, instance, key))
        {
            return Some(found);
        }
        let branches = self.union_of(node)?;
        let tagged = self.tagged(branches)?;
        let tag = instance?.get(tagged.property)?;
        let i = tagged.tags.iter().position(|t| *t == tag)?;
        self.property(&branches[i], instance, key)
    }

    /// The sort key of a path below `node`/`instance`: at each level a property's position
    /// in the schema, or after every property an unknown key's position in the arguments.
    fn order_key(&self, mut node: Option<&'s Value>, mut instance: Option<&'s Value>, rel: &[Seg]) -> Vec<(u8, usize)> {
        let mut key = Vec::with_capacity(rel.len());
        for seg in rel {
            match seg {
                Seg::Key(k) => {
                    if let Some((i, schema)) = node.and_then(|n| self.property(n, instance, k)) {
                        key.push((0, i));
                        node = Some(schema);
                    } else {
                        let sent = instance.and_then(Value::as_object).map(|m| self.sent_position(m, k));
                        key.push((1, sent.unwrap_or(usize::MAX)));
                        node = node.and_then(|n| self.resolve(n).get("additionalProperties"));
                    }
                    instance = instance.and_then(|v| v.get(k));
                }
                Seg::Index(i) => {
                    key.push((0, *i));
                    node = node
                        .map(|n| self.resolve(n))
                        .and_then(|n| n.get("prefixItems").and_then(|p| p.get(*i)).or_else(|| n.get("items")));
                    instance = instance.and_then(|v| v.get(*i));
                }
            }
        }
        key
    }

    /// Orders issues found below `path[..base]` (schema `node`, value `instance`), lets a
    /// type failure hide its path's other failures, and drops repeats.
    fn tidy(&self, issues: &mut Vec<Issue>, node: Option<&'s Value>, instance: Option<&'s Value>, base: usize) {
        let mut keyed: Vec<(Vec<(u8, usize)>, Issue)> = issues
            .drain(..)
            .map(|i| (self.order_key(node, instance, i.path.get(base..).unwrap_or_default()), i))
            .collect();
        keyed.sort_by(|a, b| a.0.cmp(&b.0));
        // Issues at one path are neighbours now: settle each run of equal keys on its own,
        // deciding by reference, then moving the kept issues (no clones).
        let mut keep = Vec::with_capacity(keyed.len());
        let mut run_start = 0;
        for (j, (key, issue)) in keyed.iter().enumerate() {
            if keyed[run_start].0 != *key {
                run_start = j;
            }
            let run_end = run_start + keyed[run_start..].iter().take_while(|(k, _)| k == key).count();
            let run = &keyed[run_start..run_end];
            let typed = run.iter().any(|(_, i)| i.keyword == "type" && i.path == issue.path);
            let hidden = typed && issue.keyword != "type";
            let repeat =
                run[..j - run_start].iter().zip(&keep[run_start..]).any(|((_, other), kept)| *kept && other == issue);
            keep.push(!hidden && !repeat);
        }
        issues.extend(keyed.into_iter().zip(keep).filter_map(|((_, issue), kept)| kept.then_some(issue)));
    }

    /// The issues one validator error stands for, appended to `out` (not yet ordered).
    fn collect(&self, error: &ValidationError<'_>, tag: Option<&TagScope>, out: &mut Vec<Issue>) {
        let path = self.path_of(error.instance_path());
        let node = self.node_of(error.schema_path());
        match error.kind() {
            ValidationErrorKind::Required { property } => {
                let name = property.as_str().unwrap_or_default();
                let field = node.and_then(|n| n.get("properties")).and_then(|p| p.get(name));
                let message = format!("missing required field{}", self.expectation(field));
                let mut path = path;
                path.push(Seg::Key(name.to_owned()));
                out.push(Issue::new(path, "required", message, Hint::Missing));
            }
            ValidationErrorKind::AdditionalProperties { unexpected } => {
                unknown_keys(path, unexpected.iter().map(String::as_str), node, tag, out);
            }
            // `additionalProperties: false` beside no `properties` fails as a false schema
            // at the object, for one of its keys: every key of that object is unknown.
            ValidationErrorKind::FalseSchema if error.schema_path().as_str().ends_with("/additionalProperties") => {
                let refusal = (path.clone(), error.schema_path().as_str().to_owned());
                if !self.expanded.borrow_mut().insert(refusal) {
                    return;
                }
                let declared = node.and_then(|n| n.get("properties")).and_then(Value::as_object);
                match (self.instance_at(&path).and_then(Value::as_object), path.split_last()) {
                    (Some(sent), _) => {
                        let keys = sent.keys().filter(|k| !declared.is_some_and(|d| d.contains_key(*k)));
                        unknown_keys(path, keys.map(String::as_str), node, tag, out);
                    }
                    // Should the validator point at the key instead of its object.
                    (None, Some((Seg::Key(key), parent))) => {
                        unknown_keys(parent.to_vec(), std::iter::once(key.as_str()), node, tag, out);
                    }
                    (None, _) => out.push(Issue::new(
                        path,
                        "falseSchema",
                        "does not match the schema (falseSchema)".into(),
                        Hint::Restate,
                    )),
                }
            }
            ValidationErrorKind::Type { kind } => {
                let expected = expected_types(node, kind);
                out.push(type_issue(path, &expected, error.instance()));
            }
            ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
                let keyword = error.kind().keyword().to_owned();
                self.union(path, &keyword, node, error.instance(), context, out);
            }
            kind => {
                let message = keyword_text(kind, node);
                let hint = bounds(kind, node).map_or(Hint::Restate, Hint::Bound);
                out.push(Issue::new(path, kind.keyword().to_owned(), message, hint));
            }
        }
    }

    /// A failed `anyOf`/`oneOf` at `path`: an enum in disguise, a tagged union resolved by
    /// its tag, or the failing branches restated.
    fn union(
        &self,
        path: Vec<Seg>,
        keyword: &str,
        node: Option<&'s Value>,
        instance: &Value,
        context: &[Vec<ValidationError<'static>>],
        out: &mut Vec<Issue>,
    ) {
        let branches = node.and_then(|n| n.get(keyword)).and_then(Value::as_array).map(Vec::as_slice);
        if let Some(choices) = node.and_then(|n| self.choices(n)) {
            let issue = if choices.types.is_empty() || choices.types.iter().any(|t| has_type(instance, t)) {
                Issue::new(path, "enum", format!("expected one of {}", alternatives(choices.values)), Hint::Restate)
            } else {
                let mut types: Vec<String> = Vec::new();
                for t in choices.types {
                    if !types.iter().any(|x| x == t) {
                        types.push(t.to_owned());
                    }
                }
                type_issue(path, &types, instance)
            };
            out.push(issue);
            return;
        }
        if let Some(branches) = branches
            && let Some(tagged) = self.tagged(branches)
        {
            self.by_tag(path, &tagged, instance, context, out);
            return;
        }
        out.push(self.restated_union(path, keyword, branches, context));
    }

    /// A tagged union: the tag's branch with the ordinary rules, or what the tag must be.
    fn by_tag(
        &self,
        path: Vec<Seg>,
        tagged: &Tagged<'s>,
        instance: &Value,
        context: &[Vec<ValidationError<'static>>],
        out: &mut Vec<Issue>,
    ) {
        let Some(object) = instance.as_object() else {
            out.push(type_issue(path, &["object".to_owned()], instance));
            return;
        };
        let mut tag_path = path.clone();
        tag_path.push(Seg::Key(tagged.property.to_owned()));
        let choices = alternatives(tagged.tags.iter().copied());
        let Some(sent) = object.get(tagged.property) else {
            let message = format!("missing required field. Expected one of {choices}");
            out.push(Issue::new(tag_path, "required", message, Hint::Missing));
            return;
        };
        let Some(i) = tagged.tags.iter().position(|t| *t == sent) else {
            out.push(Issue::new(tag_path, "enum", format!("expected one of {choices}"), Hint::Restate));
            return;
        };
        let scope = TagScope { prefix: format!("With {} {} ", tagged.property, tagged.tags[i]), path };
        for error in context.get(i).map(Vec::as_slice).unwrap_or_default() {
            self.collect(error, Some(&scope), out);
        }
    }

    /// An untagged union: each failing branch's issues (paths relative to the union)
    /// joined by `; `, branches joined by ` or `.
    fn restated_union(
        &self,
        path: Vec<Seg>,
        keyword: &str,
        branches: Option<&'s [Value]>,
        context: &[Vec<ValidationError<'static>>],
    ) -> Issue {
        let base = path.len();
        let instance = self.instance_at(&path);
        let mut rendered: Vec<(String, bool)> = Vec::with_capacity(context.len());
        for (i, errors) in context.iter().enumerate() {
            let mut issues = Vec::new();
            for error in errors {
                self.collect(error, None, &mut issues);
            }
            self.tidy(&mut issues, branches.and_then(|b| b.get(i)), instance, base);
            // A branch that fails for other reasons is not the one the caller meant: its
            // unknown keys are the other branches' keys, noise. Shown when they are all it has.
            if issues.iter().any(|x| x.keyword != "additionalProperties") {
                issues.retain(|x| x.keyword != "additionalProperties");
            }
            if issues.is_empty() {
                continue;
            }
            let root_type_only = issues.iter().all(|x| x.keyword == "type" && x.path.len() == base);
            let text = issues.iter().map(|x| x.line_from(base)).collect::<Vec<_>>().join("; ");
            rendered.push((text, root_type_only));
        }
        if rendered.iter().any(|(_, root_type_only)| !root_type_only) {
            rendered.retain(|(_, root_type_only)| !root_type_only);
        }
        let mut texts: Vec<String> = Vec::with_capacity(rendered.len());
        for (text, _) in rendered {
            if !texts.contains(&text) {
                texts.push(text);
            }
        }
        let message =
            if texts.is_empty() { format!("does not match the schema ({keyword})") } else { texts.join(" or ") };
        Issue::new(path, keyword.to_owned(), message, Hint::Restate)
    }
}

/// One issue per unknown key of the object at `path` (schema `node`).
fn unknown_keys<'k>(
    path: Vec<Seg>,
    keys: impl Iterator<Item = &'k str>,
    node: Option<&Value>,
    tag: Option<&TagScope>,
    out: &mut Vec<Issue>,
) {
    let accepts = accepts(node, &path, tag);
    let names: Vec<&str> = node
        .and_then(|n| n.get("properties"))
        .and_then(Value::as_object)
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    for key in keys {
        let near = near_key(key, &names).map(str::to_owned);
        let mut path = path.clone();
        path.push(Seg::Key(key.to_owned()));
        out.push(Issue::new(
            path,
            "additionalProperties",
            "unknown key".into(),
            Hint::Unknown { accepts: accepts.clone(), near },
        ));
    }
}

/// The accepted key `key` is probably a misspelling of: the closest within edit distance 2
/// (case-sensitive, as the caller sent it) and closer than the key is long, so that a
/// one-letter key is not "corrected" into another; ties go to the schema's order.
fn near_key<'n>(key: &str, names: &[&'n str]) -> Option<&'n str> {
    let len = key.chars().count();
    if len > 130 {
        return None;
    }
    let mut best: Option<(usize, &str)> = None;
    for name in names {
        let d = crate::rpc::envelope::levenshtein(key, name);
        if d <= 2 && d < len && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, name));
        }
    }
    best.map(|(_, name)| name)
}

/// The end of `Send <path> …` for a value out of its range or length, with every bound the
/// schema sets: `as an integer from 1 to 50`, `as a number greater than 0`, `as a string of
/// at most 64 characters`, `as a list of 1 to 5 items`. `None` for other keywords.
fn bounds(kind: &ValidationErrorKind, node: Option<&Value>) -> Option<String> {
    let get = |key: &str| node.and_then(|n| n.get(key)).filter(|v| v.is_number()).map(ToString::to_string);
    let count = |key: &str, failed: Option<u64>| get(key).or_else(|| failed.map(|n| n.to_string()));
    // Both bounds when they make a range (a schema may contradict itself: then the one that
    // failed).
    let ordered = |min: &str, max: &str| min.parse::<f64>().ok() <= max.parse::<f64>().ok();
    let sized = |what: &str, min: Option<String>, max: Option<String>, failed_min: bool, unit: (&str, &str)| {
        let noun = |n: &str| if n == "1" { unit.0 } else { unit.1 };
        let (min, max) = match (min, max) {
            (Some(min), Some(max)) if !ordered(&min, &max) => {
                if failed_min {
                    (Some(min), None)
                } else {
                    (None, Some(max))
                }
            }
            bounds => bounds,
        };
        let size = match (min, max) {
            (Some(min), Some(max)) if min == max => format!("exactly {max} {}", noun(&max)),
            (Some(min), Some(max)) => format!("{min} to {max} {}", noun(&max)),
            (Some(min), None) => format!("at least {min} {}", noun(&min)),
            (None, Some(max)) => format!("at most {max} {}", noun(&max)),
            (None, None) => return None,
        };
        Some(format!("as {what} of {size}"))
    };
    match kind {
        ValidationErrorKind::Minimum { .. }
        | ValidationErrorKind::Maximum { .. }
        | ValidationErrorKind::ExclusiveMinimum { .. }
        | ValidationErrorKind::ExclusiveMaximum { .. } => {
            let ty = match node.and_then(|n| n.get("type")) {
                Some(Value::String(t)) if t == "integer" => "an integer",
                Some(Value::Array(ts)) if ts.iter().any(|t| t == "integer") => "an integer",
                _ => "a number",
            };
            let lower = get("minimum")
                .map(|n| (format!("no less than {n}"), n, true))
                .or_else(|| get("exclusiveMinimum").map(|n| (format!("greater than {n}"), n, false)));
            let upper = get("maximum")
                .map(|n| (format!("no greater than {n}"), n, true))
                .or_else(|| get("exclusiveMaximum").map(|n| (format!("less than {n}"), n, false)));
            let range = match (lower, upper) {
                (Some((_, min, true)), Some((_, max, true))) if ordered(&min, &max) => format!("from {min} to {max}"),
                (Some((lower, ..)), Some((upper, ..))) => format!("{lower} and {upper}"),
                (Some((one, ..)), None) | (None, Some((one, ..))) => one,
                (None, None) => return None,
            };
            Some(format!("as {ty} {range}"))
        }
        ValidationErrorKind::MinLength { limit } | ValidationErrorKind::MaxLength { limit } => {
            let failed = |min: bool| (min == matches!(kind, ValidationErrorKind::MinLength { .. })).then_some(*limit);
            let (min, max) = (count("minLength", failed(true)), count("maxLength", failed(false)));
            sized("a string", min, max, failed(true).is_some(), ("character", "characters"))
        }
        ValidationErrorKind::MinItems { limit } | ValidationErrorKind::MaxItems { limit } => {
            let failed = |min: bool| (min == matches!(kind, ValidationErrorKind::MinItems { .. })).then_some(*limit);
            let (min, max) = (count("minItems", failed(true)), count("maxItems", failed(false)));
            sized("a list", min, max, failed(true).is_some(), ("item", "items"))
        }
        _ => None,
    }
}

/// `This tool accepts: query, limit.`, `opts accepts: a.`, `With mode "byId" this tool
/// accepts: mode, id.`
fn accepts(node: Option<&Value>, path: &[Seg], tag: Option<&TagScope>) -> String {
    let names: Vec<&str> = node
        .and_then(|n| n.get("properties"))
        .and_then(Value::as_object)
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let prefix = tag.filter(|t| t.path == path).map(|t| t.prefix.as_str());
    let owner = match (path.is_empty(), prefix.is_some()) {
        (true, false) => "This tool".to_owned(),
        (true, true) => "this tool".to_owned(),
        (false, _) => dotted(path),
    };
    let sentence = match (path.is_empty(), names.is_empty()) {
        (true, true) => format!("{owner} takes no arguments."),
        (false, true) => format!("{owner} accepts no keys."),
        (_, false) => format!("{owner} accepts: {}.", names.join(", ")),
    };
    format!("{}{sentence}", prefix.unwrap_or_default())
}

/// The expected types in the schema's order (the validator's set is unordered).
fn expected_types(node: Option<&Value>, kind: &TypeKind) -> Vec<String> {
    match node.and_then(|n| n.get("type")) {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        _ => match kind {
            TypeKind::Single(t) => vec![t.to_string()],
            TypeKind::Multiple(set) => set.iter().map(|t| t.to_string()).collect(),
        },
    }
}

/// Why a structured value does not conform to the output schema: the failing path and
/// keyword, never the value.
pub(crate) fn output_detail(validator: &jsonschema::Validator, value: &Value) -> Option<String> {
    if validator.is_valid(value) {
        return None;
    }
    // The output schema is not at hand: issues keep the validator's order.
    let walk = Walk::new(&Value::Null, value);
    let (mut issues, more) = collect(&walk, validator, value);
    walk.tidy(&mut issues, None, Some(value), 0);
    Some(detail(&issues, more))
}

/// Reads arguments that passed the schema into the tool's Rust type. A number the schema
/// accepted as an integer (`1.0`) is read as that integer; arguments serde still cannot
/// read (the schema is looser than the type) are an `invalid_arguments` failure naming the
/// path serde stopped at.
pub(crate) fn deserialize_args<A: DeserializeOwned>(tool: &str, args: &Value) -> Result<A, ToolError> {
    match deserialize_property(args, None) {
        Ok(value) => Ok(value),
        Err(path) => Err(deserialize_failure(tool, path)),
    }
}

/// Reads property `key` of the arguments object `args` (it is there; the whole arguments
/// without a key) as [`deserialize_args`] reads them: an integral float is read as an
/// integer. Else where serde stopped.
pub(crate) fn deserialize_property<T: DeserializeOwned>(args: &Value, key: Option<&str>) -> Result<T, Vec<Seg>> {
    let mut out = None;
    let read = read_tracked(args, key, &mut |tracked| {
        out = Some(T::deserialize(tracked)?);
        Ok(())
    });
    match out {
        Some(value) => Ok(value),
        None => Err(read.err().unwrap_or_default()),
    }
}

/// Runs `read` on a [`Tracked`] deserializer over the arguments (over property `key` of
/// them, when given), which notes where serde stops. On a failure there, every integral
/// float of that argument becomes an integer in a copy, and the copy is read again; else
/// the path serde stopped at. Not generic, as [`Tracked`] is not: what each input type adds
/// to a build is its own `Deserialize` impl, compiled once, for this one deserializer.
fn read_tracked(
    args: &Value,
    key: Option<&str>,
    read: &mut dyn FnMut(Tracked<'_, '_>) -> Result<(), serde_json::Error>,
) -> Result<(), Vec<Seg>> {
    let mut copy: Option<Value> = None;
    loop {
        let whole = copy.as_ref().unwrap_or(args);
        let failed = RefCell::new(None);
        let root = Chain::Root;
        let (value, chain) = match key {
            Some(key) => (&whole[key], Chain::Key(&root, key)),
            None => (whole, Chain::Root),
        };
        let Err(error) = read(Tracked { value, chain: &chain, failed: &failed }) else { return Ok(()) };
        let path = failed.into_inner().unwrap_or_default();
        if !integralise(copy.get_or_insert_with(|| args.clone()), &path) {
            tracing::debug!(%error, "arguments passed the schema but not serde");
            return Err(path);
        }
    }
}

/// The failure of arguments that passed the schema but that serde cannot read, stopping at
/// `path`.
pub(crate) fn deserialize_failure(tool: &str, path: Vec<Seg>) -> ToolError {
    let issue = Issue::new(path, "deserialize", "does not match the schema (deserialize)".into(), Hint::Restate);
    let issues = [issue];
    refusal(tool, &issues, 0).data(json!({"issues": issues_json(&issues)}))
}

/// Turns the integral float at `path`, and every other one in the same argument, into an
/// integer (else every one below `path`); whether anything changed. The whole argument at
/// once: one retry per argument, where one per element would make a list of a million
/// `1.0`s cost a million deserializations.
fn integralise(args: &mut Value, path: &[Seg]) -> bool {
    fn at<'v>(value: &'v mut Value, path: &[Seg]) -> Option<&'v mut Value> {
        path.iter().try_fold(value, |v, seg| match seg {
            Seg::Index(i) => v.get_mut(*i),
            Seg::Key(k) => v.get_mut(k),
        })
    }
    let Some(target) = at(args, path) else { return false };
    if as_integer(target).is_none() {
        return integralise_all(target);
    }
    // The argument: the first key of the path (the root when it is not an object).
    let argument = match path.first() {
        Some(Seg::Key(_)) => &path[..1],
        _ => &[],
    };
    at(args, argument).is_some_and(integralise_all)
}

fn integralise_all(value: &mut Value) -> bool {
    match value {
        Value::Array(items) => items.iter_mut().fold(false, |changed, v| integralise_all(v) | changed),
        Value::Object(map) => map.values_mut().fold(false, |changed, v| integralise_all(v) | changed),
        other => match as_integer(other) {
            Some(int) => {
                *other = int;
                true
            }
            None => false,
        },
    }
}

/// An integral float as an integer, when one fits in `i64` or `u64`.
fn as_integer(value: &Value) -> Option<Value> {
    const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;
    const TWO_POW_64: f64 = 18_446_744_073_709_551_616.0;
    let n = value.as_number().filter(|n| n.is_f64())?.as_f64()?;
    if n.fract() != 0.0 || !n.is_finite() {
        return None;
    }
    // The range checks make these casts exact.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    if (-TWO_POW_63..TWO_POW_63).contains(&n) {
        Some(Value::from(n as i64))
    } else if (0.0..TWO_POW_64).contains(&n) {
        Some(Value::from(n as u64))
    } else {
        None
    }
}

/// Where a [`Tracked`] deserializer is in the arguments.
enum Chain<'a> {
    Root,
    Key(&'a Chain<'a>, &'a str),
    Index(&'a Chain<'a>, usize),
}

impl Chain<'_> {
    fn path(&self) -> Vec<Seg> {
        let mut path = Vec::new();
        let mut at = self;
        loop {
            match at {
                Chain::Root => break,
                Chain::Key(parent, k) => {
                    path.push(Seg::Key((*k).to_owned()));
                    at = parent;
                }
                Chain::Index(parent, i) => {
                    path.push(Seg::Index(*i));
                    at = parent;
                }
            }
        }
        path.reverse();
        path
    }
}

type Failed = RefCell<Option<Vec<Seg>>>;

/// Records the innermost path at which deserialization failed.
fn note<T>(chain: &Chain<'_>, failed: &Failed, result: Result<T, serde_json::Error>) -> Result<T, serde_json::Error> {
    if result.is_err() {
        fail_at(chain, failed);
    }
    result
}

fn fail_at(chain: &Chain<'_>, failed: &Failed) {
    let mut slot = failed.borrow_mut();
    if slot.is_none() {
        *slot = Some(chain.path());
    }
}

/// A deserializer over a borrowed `Value` that remembers where it failed. What it reads, and
/// how, is what `serde_json`'s `&Value` deserializer reads.
struct Tracked<'a, 'de> {
    value: &'de Value,
    chain: &'a Chain<'a>,
    failed: &'a Failed,
}

macro_rules! delegate {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
            note(self.chain, self.failed, self.value.$method(visitor))
        }
    )*};
}

/// The error of a struct read from `value`, not an object.
fn not_a_struct(value: &Value, expected: &dyn de::Expected) -> serde_json::Error {
    let unexpected = match value {
        Value::Bool(b) => de::Unexpected::Bool(*b),
        Value::String(s) => de::Unexpected::Str(s),
        Value::Number(_) => de::Unexpected::Other("number"),
        Value::Array(_) => de::Unexpected::Seq,
        _ => de::Unexpected::Unit,
    };
    de::Error::invalid_type(unexpected, expected)
}

impl<'a, 'de> Tracked<'a, 'de> {
    fn map(&self, map: &'de Map<String, Value>) -> TrackedMap<'a, 'de> {
        TrackedMap { iter: map.iter(), pending: None, chain: self.chain, failed: self.failed }
    }

    fn seq(&self, items: &'de [Value]) -> TrackedSeq<'a, 'de> {
        TrackedSeq { iter: items.iter().enumerate(), chain: self.chain, failed: self.failed }
    }
}

impl<'de> de::Deserializer<'de> for Tracked<'_, 'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
        let result = match self.value {
            Value::Object(map) => visitor.visit_map(self.map(map)),
            Value::Array(items) => visitor.visit_seq(self.seq(items)),
            // As `&Value` reads them, without instantiating its map and array code again.
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => n.deserialize_any(visitor),
            Value::String(s) => visitor.visit_borrowed_str(s),
        };
        note(self.chain, self.failed, result)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
        let (chain, failed) = (self.chain, self.failed);
        let result = if self.value.is_null() { visitor.visit_none() } else { visitor.visit_some(self) };
        note(chain, failed, result)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        let (chain, failed) = (self.chain, self.failed);
        note(chain, failed, visitor.visit_newtype_struct(self))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        let result = match self.value {
            Value::Object(map) if map.len() == 1 => {
                let (key, value) = map.iter().next().unwrap_or_else(|| unreachable!("one entry"));
                visitor.visit_enum(TrackedEnum { key, value, chain: self.chain, failed: self.failed })
            }
            other => other.deserialize_enum(name, variants, visitor),
        };
        note(self.chain, self.failed, result)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        // An object, and nothing else, so that no other `visit_*` method of a struct's visitor
        // is compiled. (`&Value` also reads a struct from an array of its fields, but a struct
        // whose schema schemars wrote admits only objects, so the arguments never hold one.)
        let result = match self.value {
            Value::Object(map) => visitor.visit_map(self.map(map)),
            other => Err(not_a_struct(other, &visitor)),
        };
        note(self.chain, self.failed, result)
    }

    delegate! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128 deserialize_f32
        deserialize_f64 deserialize_char deserialize_str deserialize_string deserialize_bytes
        deserialize_byte_buf deserialize_unit deserialize_identifier deserialize_ignored_any
    }

    serde::forward_to_deserialize_any! { unit_struct seq tuple tuple_struct map }
}

struct TrackedMap<'a, 'de> {
    iter: serde_json::map::Iter<'de>,
    pending: Option<(&'de str, &'de Value)>,
    chain: &'a Chain<'a>,
    failed: &'a Failed,
}

impl<'de> TrackedMap<'_, 'de> {
    /// The next entry's key; its value is pending.
    fn advance(&mut self) -> Option<&'de str> {
        let (key, value) = self.iter.next()?;
        self.pending = Some((key, value));
        Some(key)
    }
}

/// A map key as `serde_json` reads one: a string, or a number or `bool` written as one (the
/// keys of a `HashMap<u32, _>`).
struct Key<'de>(&'de str);

macro_rules! parsed_key {
    ($($method:ident $visit:ident $ty:ty)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
            match self.0.parse::<$ty>() {
                Ok(value) => visitor.$visit(value),
                Err(_) => Err(de::Error::invalid_type(de::Unexpected::Str(self.0), &visitor)),
            }
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Key<'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
        visitor.visit_borrowed_str(self.0)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        de::value::BorrowedStrDeserializer::new(self.0).deserialize_enum(name, variants, visitor)
    }

    parsed_key! {
        deserialize_bool visit_bool bool
        deserialize_i8 visit_i8 i8 deserialize_i16 visit_i16 i16 deserialize_i32 visit_i32 i32
        deserialize_i64 visit_i64 i64 deserialize_i128 visit_i128 i128
        deserialize_u8 visit_u8 u8 deserialize_u16 visit_u16 u16 deserialize_u32 visit_u32 u32
        deserialize_u64 visit_u64 u64 deserialize_u128 visit_u128 u128
        deserialize_f32 visit_f32 f32 deserialize_f64 visit_f64 f64
    }

    serde::forward_to_deserialize_any! {
        char str string bytes byte_buf unit unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

impl<'de> de::MapAccess<'de> for TrackedMap<'_, 'de> {
    type Error = serde_json::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, serde_json::Error> {
        let Some(key) = self.advance() else { return Ok(None) };
        let result = seed.deserialize(Key(key));
        if result.is_err() {
            fail_at(&Chain::Key(self.chain, key), self.failed);
        }
        result.map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, serde_json::Error> {
        let Some((key, value)) = self.pending.take() else {
            return Err(de::Error::custom("a map value was read before its key"));
        };
        let chain = Chain::Key(self.chain, key);
        seed.deserialize(Tracked { value, chain: &chain, failed: self.failed })
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

struct TrackedSeq<'a, 'de> {
    iter: std::iter::Enumerate<std::slice::Iter<'de, Value>>,
    chain: &'a Chain<'a>,
    failed: &'a Failed,
}

impl<'de> de::SeqAccess<'de> for TrackedSeq<'_, 'de> {
    type Error = serde_json::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, serde_json::Error> {
        let Some((i, value)) = self.iter.next() else { return Ok(None) };
        let chain = Chain::Index(self.chain, i);
        seed.deserialize(Tracked { value, chain: &chain, failed: self.failed }).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

/// An externally tagged enum written as `{"Variant": value}`.
struct TrackedEnum<'a, 'de> {
    key: &'de str,
    value: &'de Value,
    chain: &'a Chain<'a>,
    failed: &'a Failed,
}

impl<'de> de::EnumAccess<'de> for TrackedEnum<'_, 'de> {
    type Error = serde_json::Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self), serde_json::Error> {
        let chain = Chain::Key(self.chain, self.key);
        let variant = seed.deserialize(de::value::BorrowedStrDeserializer::new(self.key));
        let variant = note(&chain, self.failed, variant)?;
        Ok((variant, self))
    }
}

impl<'de> de::VariantAccess<'de> for TrackedEnum<'_, 'de> {
    type Error = serde_json::Error;

    fn unit_variant(self) -> Result<(), serde_json::Error> {
        let chain = Chain::Key(self.chain, self.key);
        <()>::deserialize(Tracked { value: self.value, chain: &chain, failed: self.failed })
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, serde_json::Error> {
        let chain = Chain::Key(self.chain, self.key);
        seed.deserialize(Tracked { value: self.value, chain: &chain, failed: self.failed })
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, serde_json::Error> {
        let chain = Chain::Key(self.chain, self.key);
        de::Deserializer::deserialize_any(Tracked { value: self.value, chain: &chain, failed: self.failed }, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        let chain = Chain::Key(self.chain, self.key);
        de::Deserializer::deserialize_any(Tracked { value: self.value, chain: &chain, failed: self.failed }, visitor)
    }
}

#[cfg(test)]
mod tests {
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
        let hint = hint(&issues, &detail);
        (detail, hint, issues_json(&issues))
    }

    #[test]
    fn errors_past_the_kept_ones_are_counted_not_kept() {
        let schema = json!({"type": "object", "properties": {"ids": {"type": "array", "items": {"type": "string"}}}});
        let args = json!({"ids": vec![0; 1000]});
        let (issues, more) = input_issues(&compile(&schema), &schema, &args);
        assert_eq!((issues.len(), more), (KEPT_ERRORS, 1000 - KEPT_ERRORS));
        let (detail, _, listed) = refuse(&schema, &args);
        let lines: Vec<String> =
            (0..DETAIL_LINES).map(|i| format!("ids.{i}: expected string, received number")).collect();
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
        assert_eq!(hint, detail);
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
        assert_eq!(hint, detail);
        assert_eq!(
            issues,
            json!([{"path": ["o"], "keyword": "anyOf", "message": "a: missing required field; b: expected integer, received string"}])
        );
        // Both fail on the root type: both stay.
        let (detail, _, _) = refuse(&optional_struct(), &json!({"o": 5}));
        assert_eq!(detail, "o: expected object, received number or expected null, received number");
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
        assert_eq!(detail, "v: 0: expected integer, received string; 2: expected integer, received boolean");
        assert_eq!(hint, detail);
        assert_eq!(
            issues,
            json!([{"path": ["v"], "keyword": "oneOf", "message": "0: expected integer, received string; 2: expected integer, received boolean"}])
        );
        // The array branch fails only on its root type; the string branch got past it.
        let (detail, _, _) = refuse(&schema, &json!({"v": "a"}));
        assert_eq!(detail, "v: must have at least 2 characters");
        let (detail, _, _) = refuse(&schema, &json!({"v": 1}));
        assert_eq!(detail, "v: expected string, received number or expected array, received number");
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
    fn an_all_restatement_hint_is_the_detail_with_its_count() {
        let issues = restated(12);
        let detail = detail(&issues, 0);
        let lines: Vec<String> = (0..10).map(|i| format!("{i}: must be at most 1")).collect();
        assert_eq!(detail, format!("{} (+2 more)", lines.join(", ")));
        assert_eq!(hint(&issues, &detail), detail);
        // The eleventh issue is not in the hint, even when it would not be a restatement.
        let mut issues = restated(10);
        issues.push(Issue::new(vec![Seg::Key("x".into())], "required", "missing required field".into(), Hint::Missing));
        let shown = super::detail(&issues, 0);
        assert_eq!(hint(&issues, &shown), shown);
    }

    #[test]
    fn repeated_sentences_appear_once() {
        let same = Issue::new(vec![Seg::Key("a".into())], "x", "does not match the schema (x)".into(), Hint::Restate);
        let missing =
            Issue::new(vec![Seg::Key("b".into())], "required", "missing required field".into(), Hint::Missing);
        let issues = [same.clone(), missing, same];
        let detail = detail(&issues, 0);
        assert_eq!(hint(&issues, &detail), "a: does not match the schema (x). Provide b.");
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
        assert_eq!(hint, detail);
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
        assert_eq!(hint.as_deref(), Some("items.1.n: does not match the schema (deserialize)"));
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
        let schema = json!({"type": "object", "properties": {"count": {"type": "integer", "maximum": 10}}, "required": ["count"]});
        let validator = compile(&schema);
        assert_eq!(output_detail(&validator, &json!({"count": 11})).as_deref(), Some("count: must be at most 10"));
        assert_eq!(output_detail(&validator, &json!({})).as_deref(), Some("count: missing required field"));
        assert_eq!(output_detail(&validator, &json!({"count": 1})), None);
    }
}
