//! The issues of a failure as the envelope shows them: the detail (the first lines joined),
//! the recovery hint built from them (docs/errors.md#invalid-arguments-the-detail-and-the-hint), `data.issues`, and the
//! `invalid_arguments` error that carries them. The last step of a refused call's path
//! through `validate`.

use std::fmt::Write as _;

use mcp_core::ToolError;
use serde_json::{Map, Value};

use super::issue::{Hint, Issue, Seg, cut_from, dotted};
use crate::rpc::envelope::display_name;

/// Lines the detail renders (and the hint is built from).
pub(super) const DETAIL_LINES: usize = 10;
/// Values of an `enum` a hint names; beyond, it says how many there are.
const LISTED_CHOICES: usize = 10;
/// Entries of `data.issues`.
pub(super) const LISTED_ISSUES: usize = 30;

/// The envelope's error for these issues (and `more` counted beyond them): message, hint
/// and reason.
pub(super) fn refusal(tool: &str, issues: &[Issue], more: usize) -> ToolError {
    let detail = detail(issues, more);
    let hint = hint(issues);
    ToolError::invalid_params(format!("Invalid arguments for tool {tool}: {detail}"))
        .reason("invalid_arguments")
        .hint(hint)
}

/// `data.issues`: the first [`LISTED_ISSUES`] issues as `{path, keyword, message}`, texts
/// cut like detail lines.
pub(super) fn issues_json(issues: &[Issue]) -> Value {
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
pub(super) fn detail(issues: &[Issue], more: usize) -> String {
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
    Text(String),
    Provide(Vec<String>),
    /// Unknown keys of one object: their paths, what it accepts, and each suggestion as
    /// (suggested key, unknown key, unknown key's path).
    Unknown {
        parent: Vec<Seg>,
        keys: Vec<String>,
        accepts: String,
        nears: Vec<(String, String, String)>,
    },
}

/// How an issue's path is named in a sentence.
fn named(path: &[Seg]) -> String {
    if path.is_empty() { "the arguments".to_owned() } else { dotted(path) }
}

/// The recovery hint, from the issues the detail renders (docs/errors.md#invalid-arguments-the-detail-and-the-hint):
/// never empty, and never a restatement of the detail (every refusal has a `Recovery:` line).
pub(super) fn hint(issues: &[Issue]) -> String {
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
                let near = near.clone().map(|near| (near, key, name.clone()));
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
            Hint::Type(tail) | Hint::Bound(tail) | Hint::Send(tail) => {
                sentences.push(Sentence::Text(format!("Send {} {tail}.", named(&issue.path))));
            }
            Hint::Choice { values, near } => {
                let name = named(&issue.path);
                let text = match (values.as_slice(), near) {
                    ([only], _) => format!("Send {name} as {only}."),
                    // A long list is the detail's to show (cut), not the hint's.
                    (values, None) if values.len() > LISTED_CHOICES => {
                        format!("Send {name} as one of the {} values its schema lists.", values.len())
                    }
                    (values, Some(near)) if values.len() > LISTED_CHOICES => {
                        format!(
                            "Send {name} as one of the {} values its schema lists. Did you mean {near}?",
                            values.len()
                        )
                    }
                    (values, None) => format!("Send {name} as one of {}.", or_list(values)),
                    (values, Some(near)) => {
                        format!("Send {name} as one of {}. Did you mean {near}?", or_list(values))
                    }
                };
                sentences.push(Sentence::Text(text));
            }
            Hint::Text(text) => sentences.push(Sentence::Text(text.clone())),
            Hint::Restate => sentences.push(Sentence::Text(format!(
                "Send {} as the input schema in tools/list describes.",
                named(&issue.path)
            ))),
        }
    }
    renames(&mut sentences);
    let mut out: Vec<String> = Vec::with_capacity(sentences.len());
    for sentence in sentences {
        let text = match sentence {
            Sentence::Text(text) => text,
            Sentence::Provide(names) if names.is_empty() => continue,
            Sentence::Provide(names) => format!("Provide {}.", and_list(&names)),
            Sentence::Unknown { keys, .. } if keys.is_empty() => continue,
            Sentence::Unknown { keys, accepts, nears, .. } => {
                let noun = if keys.len() == 1 { "key" } else { "keys" };
                let mut text = format!("Unknown {noun} {}. {accepts}", keys.join(", "));
                match nears.as_slice() {
                    [] => {}
                    [(near, ..)] if keys.len() == 1 => {
                        let _ = write!(text, " Did you mean {near}?");
                    }
                    nears => {
                        let each: Vec<String> =
                            nears.iter().map(|(near, key, _)| format!("{near} for {key}")).collect();
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

/// An unknown key that resembles a missing required key of its object is that key
/// misspelt: one sentence, `Rename qeury to query.`, in place of the unknown key's (and the
/// missing key leaves the `Provide` list).
fn renames(sentences: &mut Vec<Sentence>) {
    let Some(provide) = sentences.iter().position(|s| matches!(s, Sentence::Provide(_))) else {
        return;
    };
    let mut missing = match &mut sentences[provide] {
        Sentence::Provide(names) => std::mem::take(names),
        _ => Vec::new(),
    };
    let mut out = Vec::with_capacity(sentences.len());
    for mut sentence in sentences.drain(..) {
        if let Sentence::Unknown { parent, keys, nears, .. } = &mut sentence {
            let prefix = dotted(parent);
            nears.retain(|(near, _, full)| {
                let target = if prefix.is_empty() { near.clone() } else { format!("{prefix}.{near}") };
                let Some(at) = missing.iter().position(|m| *m == target) else {
                    return true;
                };
                missing.remove(at);
                keys.retain(|k| k != full);
                out.push(Sentence::Text(format!("Rename {full} to {target}.")));
                false
            });
        }
        out.push(sentence);
    }
    if let Some(Sentence::Provide(names)) = out.iter_mut().find(|s| matches!(s, Sentence::Provide(_))) {
        *names = missing;
    }
    *sentences = out;
}

/// `a`, `a or b`, `a, b or c`.
pub(super) fn or_list(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// `a`, `a and b`, `a, b and c`.
pub(super) fn and_list(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}
