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
/// Entries of `data.issues`.
pub(super) const LISTED_ISSUES: usize = 30;

/// The envelope's error for these issues (and `more` counted beyond them): message, hint
/// and reason.
pub(super) fn refusal(tool: &str, issues: &[Issue], more: usize) -> ToolError {
    let detail = detail(issues, more);
    let hint = hint(issues, &detail);
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

/// The recovery hint, from the issues the detail renders (docs/errors.md#invalid-arguments-the-detail-and-the-hint).
pub(super) fn hint(issues: &[Issue], detail: &str) -> String {
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
pub(super) fn and_list(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}
