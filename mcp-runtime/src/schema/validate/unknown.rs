//! Keys the schema does not accept: one issue per unknown key, the sentence that says what
//! its object accepts (`opts accepts: a, b.`, or `With mode "byId" …` in the branch a tag
//! picked: [`TagScope`]), and the accepted key it is probably a misspelling of. `walk` finds
//! them (`additionalProperties`).

use serde_json::Value;

use super::issue::{Hint, Issue, Seg, dotted};

/// Unknown keys of the object at `path` were found in the branch picked by `tag`.
pub(super) struct TagScope {
    pub(super) path: Vec<Seg>,
    /// `With mode "byId" `.
    pub(super) prefix: String,
}

/// One issue per unknown key of the object at `path` (schema `node`).
pub(super) fn unknown_keys<'k>(
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
