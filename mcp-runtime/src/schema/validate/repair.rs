//! Input repairs (docs/errors.md#repairs): the mistakes models make that have one reading,
//! undone before a refusal. A string holding a number or a boolean where the schema wants
//! one, a lone value where it wants an array (a list of one), and `null` for an optional
//! field (absent). Only where the schema does not accept the value as sent (its `type` says
//! so), inside nested objects, arrays, tagged unions and an `Option<T>`'s `T`.
//! `features::tools::call` runs this only after validation failed, and keeps the repaired
//! arguments only when they then validate: a valid call never gets here, and a repair never
//! makes an invalid call pass.

use std::fmt;

use serde_json::{Map, Number, Value};

use super::issue::{Seg, dotted};
use super::walk::Walk;
use super::words::has_type;

/// How deep the repair walks into a value (deeper parts are left as sent).
const MAX_DEPTH: usize = 64;

/// What a repair did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RepairKind {
    /// `"5"` read as `5` where the schema wants a number or an integer.
    NumberFromString,
    /// `"true"` read as `true` where the schema wants a boolean.
    BooleanFromString,
    /// A lone value where the schema wants an array: a list of one.
    ListOfOne,
    /// `null` for an optional field that does not take `null`: the field is absent.
    NullAsAbsent,
}

impl RepairKind {
    /// The kind's name in logs and docs.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            RepairKind::NumberFromString => "number_from_string",
            RepairKind::BooleanFromString => "boolean_from_string",
            RepairKind::ListOfOne => "list_of_one",
            RepairKind::NullAsAbsent => "null_as_absent",
        }
    }
}

/// One repair: its kind and the argument's path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Repair {
    pub(crate) kind: RepairKind,
    pub(crate) path: Vec<Seg>,
}

impl fmt::Display for Repair {
    /// `number_from_string at a`, `list_of_one at items.0.tags` (`at the arguments` at the root).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{} at the arguments", self.kind.as_str())
        } else {
            write!(f, "{} at {}", self.kind.as_str(), dotted(&self.path))
        }
    }
}

/// The repaired copy of `args` and what was repaired, or `None` when nothing was. The copy
/// is not checked here: the caller validates it.
pub(crate) fn repair(schema: &Value, args: &Value) -> Option<(Value, Vec<Repair>)> {
    let walk = Walk::new(schema, args);
    let mut value = args.clone();
    let mut repairs = Vec::new();
    let mut path = Vec::new();
    repair_at(&walk, schema, &mut value, &mut path, &mut repairs, 0);
    (!repairs.is_empty()).then_some((value, repairs))
}

/// The JSON types `node` names (`type`), empty when it names none.
fn types(node: &Value) -> Vec<&str> {
    match node.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Whether `node` may accept `null`: its type, enum or const says so, a branch of its union
/// does, or it constrains nothing that would refuse it.
fn may_take_null<'s>(walk: &Walk<'s>, node: &'s Value, depth: usize) -> bool {
    let node = walk.resolve(node);
    if depth > MAX_DEPTH {
        return true;
    }
    match node {
        Value::Bool(b) => return *b,
        Value::Object(map) if map.is_empty() => return true,
        _ => {}
    }
    let ty = types(node);
    if !ty.is_empty() {
        return ty.contains(&"null");
    }
    if let Some(values) = node.get("enum").and_then(Value::as_array) {
        return values.contains(&Value::Null);
    }
    if let Some(c) = node.get("const") {
        return c.is_null();
    }
    if let Some(branches) = walk.union_of(node) {
        return branches.iter().any(|b| may_take_null(walk, b, depth + 1));
    }
    if let Some(all) = node.get("allOf").and_then(Value::as_array) {
        return all.iter().all(|m| may_take_null(walk, m, depth + 1));
    }
    // `$ref` that did not resolve, `not`, and the like: leave the value alone.
    true
}

/// The number `s` holds, when it is one in JSON's own notation (no spaces, no `+`, no hex).
fn number_in(s: &str) -> Option<Number> {
    if s.trim() != s {
        return None;
    }
    serde_json::from_str::<Value>(s).ok().and_then(|v| match v {
        Value::Number(n) => Some(n),
        _ => None,
    })
}

fn repair_at<'s>(
    walk: &Walk<'s>,
    node: &'s Value,
    value: &mut Value,
    path: &mut Vec<Seg>,
    out: &mut Vec<Repair>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let node = walk.resolve(node);
    if let Some(all) = node.get("allOf").and_then(Value::as_array) {
        for member in all {
            repair_at(walk, member, value, path, out, depth + 1);
        }
    }
    // `Option<T>`'s union (`T` or `null`): a value that is not `null` is `T`'s.
    if let Some(branches) = walk.union_of(node)
        && !value.is_null()
        && let [only] = branches.iter().filter(|b| types(walk.resolve(b)) != ["null"]).collect::<Vec<_>>().as_slice()
        && branches.len() == 2
    {
        repair_at(walk, only, value, path, out, depth + 1);
        return;
    }
    let ty = types(node);
    if !ty.is_empty() && !ty.iter().any(|t| has_type(value, t)) {
        let repaired = match &*value {
            Value::String(s) => {
                let number = (ty.contains(&"number") || ty.contains(&"integer"))
                    .then(|| number_in(s))
                    .flatten()
                    .map(Value::Number)
                    .filter(|n| ty.iter().any(|t| has_type(n, t)));
                let boolean = || match (ty.contains(&"boolean"), s.as_str()) {
                    (true, "true") => Some(Value::Bool(true)),
                    (true, "false") => Some(Value::Bool(false)),
                    _ => None,
                };
                number
                    .map(|n| (n, RepairKind::NumberFromString))
                    .or_else(|| boolean().map(|b| (b, RepairKind::BooleanFromString)))
            }
            _ => None,
        };
        if let Some((repaired, kind)) = repaired {
            *value = repaired;
            out.push(Repair { kind, path: path.clone() });
            return;
        }
        if ty.contains(&"array") && !value.is_null() && !value.is_array() {
            *value = Value::Array(vec![value.take()]);
            out.push(Repair { kind: RepairKind::ListOfOne, path: path.clone() });
        }
    }
    match value {
        Value::Object(map) => repair_object(walk, node, map, path, out, depth),
        Value::Array(items) => {
            let each = node.get("items").filter(|i| i.is_object());
            let prefix = node.get("prefixItems").and_then(Value::as_array);
            for (i, item) in items.iter_mut().enumerate() {
                if let Some(schema) = prefix.and_then(|p| p.get(i)).or(each) {
                    path.push(Seg::Index(i));
                    repair_at(walk, schema, item, path, out, depth + 1);
                    path.pop();
                }
            }
        }
        _ => {}
    }
}

/// The properties of an object `node` describes, and the branch its tag picks in a tagged
/// union.
fn repair_object<'s>(
    walk: &Walk<'s>,
    node: &'s Value,
    map: &mut Map<String, Value>,
    path: &mut Vec<Seg>,
    out: &mut Vec<Repair>,
    depth: usize,
) {
    if let Some(props) = node.get("properties").and_then(Value::as_object) {
        let required = node.get("required").and_then(Value::as_array);
        let is_required = |key: &str| required.is_some_and(|r| r.iter().any(|k| k == key));
        let dropped: Vec<String> = map
            .iter()
            .filter(|(key, v)| {
                v.is_null()
                    && !is_required(key)
                    && props.get(key.as_str()).is_some_and(|schema| !may_take_null(walk, schema, depth + 1))
            })
            .map(|(key, _)| key.clone())
            .collect();
        for key in dropped {
            map.remove(&key);
            path.push(Seg::Key(key));
            out.push(Repair { kind: RepairKind::NullAsAbsent, path: path.clone() });
            path.pop();
        }
        for (key, child) in map.iter_mut() {
            if let Some(schema) = props.get(key) {
                path.push(Seg::Key(key.clone()));
                repair_at(walk, schema, child, path, out, depth + 1);
                path.pop();
            }
        }
    }
    // A tagged union: the branch the tag picks (an untagged one is left alone: which
    // branch the caller meant is a guess).
    if let Some(branches) = walk.union_of(node)
        && let Some(tagged) = walk.tagged(branches)
        && let Some(tag) = map.get(tagged.property)
        && let Some(i) = tagged.tags.iter().position(|t| *t == tag)
        && let Some(branch) = branches.get(i)
    {
        let mut object = Value::Object(std::mem::take(map));
        repair_at(walk, branch, &mut object, path, out, depth + 1);
        if let Value::Object(back) = object {
            *map = back;
        }
    }
}
