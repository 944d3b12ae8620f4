//! Keys the schema does not accept: one issue per unknown key, the sentence that says what
//! its object accepts (`opts accepts: a, b.`, or `With mode "byId" …` in the branch a tag
//! picked: [`TagScope`]), and the accepted key it is probably a misspelling of. `walk` finds
//! them (`additionalProperties`).

use serde_json::{Map, Value};

use super::issue::{Hint, Issue, Seg, dotted};
use super::words::has_type;

/// Unknown keys of the object at `path` were found in the branch picked by `tag`.
pub(super) struct TagScope {
    pub(super) path: Vec<Seg>,
    /// `With mode "byId" `.
    pub(super) prefix: String,
}

/// One issue per unknown key of the object at `path` (schema `node`, `sent` as sent;
/// `resolve` follows a schema's `$ref`).
pub(super) fn unknown_keys<'s, 'k>(
    path: Vec<Seg>,
    keys: impl Iterator<Item = &'k str>,
    node: Option<&'s Value>,
    sent: Option<&Map<String, Value>>,
    resolve: &dyn Fn(&'s Value) -> &'s Value,
    tag: Option<&TagScope>,
    out: &mut Vec<Issue>,
) {
    let accepts = accepts(node, &path, tag);
    let props = node.and_then(|n| n.get("properties")).and_then(Value::as_object);
    for key in keys {
        // Never a key the object already has, nor one whose schema cannot take the value.
        let value = sent.and_then(|m| m.get(key));
        let names: Vec<&str> = props
            .map(|p| {
                p.iter()
                    .filter(|(name, _)| !sent.is_some_and(|m| m.contains_key(name.as_str())))
                    .filter(|(_, schema)| value.is_none_or(|v| fits(resolve(schema), v)))
                    .map(|(name, _)| name.as_str())
                    .collect()
            })
            .unwrap_or_default();
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

/// Whether `value` could be meant for a property of schema `schema` (resolved): its `type`
/// takes the value, or the value as repaired (`"5"` for a number, `"true"` for a boolean, a
/// lone value for an array); a schema without a `type` takes anything here.
fn fits(schema: &Value, value: &Value) -> bool {
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => return true,
    };
    types.iter().any(|t| {
        has_type(value, t)
            || match (*t, value) {
                ("number" | "integer", Value::String(s)) => s.parse::<f64>().is_ok(),
                ("boolean", Value::String(s)) => s == "true" || s == "false",
                ("array", v) => !v.is_null(),
                _ => false,
            }
    })
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
