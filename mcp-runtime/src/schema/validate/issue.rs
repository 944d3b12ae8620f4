//! One problem with the arguments ([`Issue`]) at its path ([`Seg`]s), what it contributes to
//! the recovery hint ([`Hint`]), and its detail line (`<path>: <text>`, cut at
//! [`LINE_CHARS`]). `walk` makes issues; `refusal` renders them.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::rpc::envelope::display_name;

/// A detail line longer than this is cut and ends with `…`.
const LINE_CHARS: usize = 1024;

/// One step of an instance path. Keys are kept as sent and sanitised when shown.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Seg {
    Key(String),
    Index(usize),
}

/// One problem with the arguments.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Issue {
    pub(super) path: Vec<Seg>,
    pub(super) keyword: Cow<'static, str>,
    /// The text, without the path.
    pub(super) message: String,
    pub(super) hint: Hint,
}

/// What an issue contributes to the recovery hint (docs/errors.md#invalid-arguments-the-detail-and-the-hint).
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Hint {
    /// An unknown key; the sentence that says what its object accepts (`opts accepts: a.`),
    /// and the accepted key it is probably a misspelling of.
    Unknown { accepts: String, near: Option<String> },
    /// A wrong type: the end of `Send <path> …` (`as a number, not a string`).
    Type(String),
    /// A value out of its range or length: the end of `Send <path> …` (`as an integer from 1
    /// to 50`), naming every bound of the schema.
    Bound(String),
    /// Another value to send: the end of `Send <path> …` (`as a multiple of 0.5`).
    Send(String),
    /// A value that is not one of an `enum`'s or a `const`'s: the values (as JSON), and the
    /// one the value sent probably means (`Did you mean "memory"?`).
    Choice { values: Vec<String>, near: Option<String> },
    /// Sentences of their own (what the closest shape of a union needs).
    Text(String),
    /// A missing required field.
    Missing,
    /// Nothing more precise to say: send the value its schema describes.
    Restate,
}

impl Issue {
    pub(super) fn new(path: Vec<Seg>, keyword: impl Into<Cow<'static, str>>, message: String, hint: Hint) -> Self {
        Issue { path, keyword: keyword.into(), message, hint }
    }

    /// The line with the path relative to the first `base` segments.
    pub(super) fn line_from(&self, base: usize) -> String {
        let path = self.path.get(base..).unwrap_or_default();
        if path.is_empty() { self.message.clone() } else { format!("{}: {}", dotted(path), self.message) }
    }

    /// Appends the issue's line, `<path>: <text>` (no path at the root), cut at
    /// [`LINE_CHARS`], to `out`.
    pub(super) fn write_line(&self, out: &mut String, base: usize) {
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
pub(super) fn dotted(path: &[Seg]) -> String {
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
pub(super) fn cut_from(out: &mut String, start: usize) {
    if let Some((at, _)) = out[start..].char_indices().nth(LINE_CHARS) {
        out.truncate(start + at);
        out.push('…');
    }
}
