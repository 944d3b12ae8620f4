//! Small text helpers: case conversion, edit distance, doc comments.

/// `fetch_items` → `FetchItems`; `no_match` → `NoMatch`.
pub(crate) fn pascal_case(snake: &str) -> String {
    snake
        .split('_')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
        })
        .collect()
}

/// `NoSuchNote` → `no_such_note`.
pub(crate) fn snake_case(pascal: &str) -> String {
    let mut out = String::new();
    for (i, ch) in pascal.chars().enumerate() {
        if ch.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(ch.to_ascii_lowercase());
        } else {
            out.push(ch);
        }
    }
    out
}

/// Levenshtein distance (insert, delete, substitute = 1).
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// The candidate that `word` is an abbreviation of (`warn` → `warning`, `mime` →
/// `mime_type`), else the closest within distance 2 (case-insensitively), for a did-you-mean.
/// An abbreviation wins over a closer spelling: `mime` is `mime_type`, not `name`.
pub(crate) fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = word.to_ascii_lowercase();
    candidates
        .into_iter()
        .map(|c| {
            let abbreviates = lower.len() >= 3 && c.to_ascii_lowercase().starts_with(&lower);
            (edit_distance(&lower, &c.to_ascii_lowercase()), abbreviates, c)
        })
        .filter(|(d, abbreviates, _)| *d <= 2 || *abbreviates)
        .min_by_key(|(d, abbreviates, _)| (!abbreviates, *d))
        .map(|(_, _, c)| c)
}

/// A `did you mean` suffix, or nothing.
pub(crate) fn suggestion<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    did_you_mean(word, candidates).map(|c| format!("; did you mean `{c}`?")).unwrap_or_default()
}

/// A description taken from doc attributes.
pub(crate) enum Doc {
    /// Every line is a string literal (`///` comments): the text, reflowed, without the
    /// sections written for Rust readers (see [`doc_text`]).
    Text(String),
    /// A line is a macro call (`#[doc = include_str!("..")]`, `#[doc = concat!(..)]`): the
    /// lines joined by `\n` in `::core::concat!(..)`, which rustc expands to one string at
    /// compile time, as written (no reflow, no sections left out: the macro knows no text).
    Expr(proc_macro2::TokenStream),
}

impl quote::ToTokens for Doc {
    fn to_tokens(&self, tokens: &mut proc_macro2::TokenStream) {
        match self {
            Doc::Text(text) => text.to_tokens(tokens),
            Doc::Expr(expr) => expr.to_tokens(tokens),
        }
    }
}

/// The text of the doc attributes, as a description: one leading space cut from each line,
/// the lines of a paragraph joined by spaces (source wrapping is not meaning), paragraphs
/// separated by a blank line; list items, indented lines and code fences keep their own
/// lines. The `# Errors`, `# Panics` and `# Safety` sections (what clippy asks of a Rust fn's
/// doc, for its Rust callers) are left out: the model reads the rest. `None` without docs.
pub(crate) fn doc_text(attrs: &[syn::Attribute]) -> Option<Doc> {
    let values: Vec<&syn::Expr> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => Some(&nv.value),
            _ => None,
        })
        .collect();
    let literal = |e: &syn::Expr| match e {
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value()),
        _ => None,
    };
    let strip = |l: String| l.strip_prefix(' ').map(str::to_owned).unwrap_or(l);
    if let Some(lines) = values.iter().map(|e| literal(e)).collect::<Option<Vec<_>>>() {
        let lines: Vec<String> = lines.into_iter().map(strip).collect();
        let text = reflow(&without_rust_sections(&lines));
        return (!text.is_empty()).then_some(Doc::Text(text));
    }
    let parts = values.iter().enumerate().map(|(i, e)| {
        let part = match literal(e) {
            Some(text) => quote::ToTokens::into_token_stream(strip(text)),
            None => quote::ToTokens::into_token_stream(*e),
        };
        if i == 0 { part } else { quote::quote!("\n", #part) }
    });
    Some(Doc::Expr(quote::quote!(::core::concat!(#(#parts),*))))
}

/// The lines without the `# Errors`, `# Panics` and `# Safety` sections: each from its heading
/// (any level, outside code fences) to the next heading of the same or a higher level.
fn without_rust_sections(lines: &[String]) -> Vec<String> {
    const SECTIONS: &[&str] = &["errors", "panics", "safety"];
    let mut out = Vec::new();
    let mut in_fence = false;
    // The level of the section being left out.
    let mut skipping: Option<usize> = None;
    for line in lines {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
        } else if !in_fence && let Some((level, title)) = heading(trimmed) {
            if skipping.is_some_and(|skipped| level <= skipped) {
                skipping = None;
            }
            if skipping.is_none() && SECTIONS.contains(&title.to_ascii_lowercase().as_str()) {
                skipping = Some(level);
            }
        }
        if skipping.is_none() {
            out.push(line.clone());
        }
    }
    out
}

/// `## Title` → `(2, "Title")`.
fn heading(line: &str) -> Option<(usize, &str)> {
    let level = line.chars().take_while(|c| *c == '#').count();
    let rest = &line[level..];
    ((1..=6).contains(&level) && rest.starts_with(' ')).then(|| (level, rest.trim()))
}

fn reflow(lines: &[String]) -> String {
    let mut out = String::new();
    let mut in_fence = false;
    let mut previous_joins = false;
    for line in lines {
        let trimmed = line.trim();
        let fence = trimmed.starts_with("```");
        let own_line = in_fence
            || fence
            || line.starts_with("    ")
            || line.starts_with('\t')
            || trimmed.starts_with("- ")
            || trimmed.starts_with("* ")
            || trimmed.starts_with('|')
            || trimmed.starts_with('#')
            || trimmed.split_once(". ").is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        if trimmed.is_empty() {
            if !out.is_empty() && !out.ends_with("\n\n") {
                out.push_str("\n\n");
            }
            previous_joins = false;
        } else if previous_joins && !own_line {
            out.push(' ');
            out.push_str(trimmed);
        } else {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(if in_fence || fence { line.as_str() } else { trimmed });
            previous_joins = !own_line || trimmed.starts_with("- ") || trimmed.starts_with("* ");
        }
        if fence {
            in_fence = !in_fence;
            previous_joins = false;
        }
    }
    out.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_join_wrapped_lines_and_keep_structure() {
        let lines = |text: &str| text.lines().map(str::to_owned).collect::<Vec<_>>();
        assert_eq!(
            reflow(&lines("Lists every note with its time of\nlast change.")),
            "Lists every note with its time of last change."
        );
        assert_eq!(reflow(&lines("First paragraph\nwrapped.\n\nSecond.")), "First paragraph wrapped.\n\nSecond.");
        assert_eq!(
            reflow(&lines("Modes:\n- byId: one id,\n  continued\n- byName: a name\n1. first\n2. second")),
            "Modes:\n- byId: one id, continued\n- byName: a name\n1. first\n2. second"
        );
        assert_eq!(
            reflow(&lines("Example:\n```\nlet x = 1;\n    indented\n```\nAfter.")),
            "Example:\n```\nlet x = 1;\n    indented\n```\nAfter."
        );
        assert_eq!(reflow(&lines("")), "");
    }

    #[test]
    fn descriptions_leave_out_the_sections_for_rust_readers() {
        let lines = |text: &str| text.lines().map(str::to_owned).collect::<Vec<_>>();
        let kept = |text: &str| reflow(&without_rust_sections(&lines(text)));
        assert_eq!(
            kept("Fetches a note.\n\n# Errors\n\nWhen it is missing.\n\n# Example\nfetch(\"a\")"),
            "Fetches a note.\n\n# Example\nfetch(\"a\")"
        );
        assert_eq!(kept("Reads.\n# Panics\nNever.\n## Details\nstill panics\n# Safety\nnone"), "Reads.");
        assert_eq!(kept("Reads.\n## errors\nx\n# Notes\ny"), "Reads.\n# Notes\ny");
        // A `#` line inside a code fence is code (a hidden line of a doctest), not a heading.
        assert_eq!(kept("Runs.\n```\n# Errors\n```\nAfter."), "Runs.\n```\n# Errors\n```\nAfter.");
        assert_eq!(kept("# Errors\nOnly errors."), "");
        assert_eq!(kept("#Errors is not a heading."), "#Errors is not a heading.");
    }

    #[test]
    fn cases_and_distance() {
        assert_eq!(pascal_case("fetch_items"), "FetchItems");
        assert_eq!(pascal_case("no_match2"), "NoMatch2");
        assert_eq!(snake_case("NoSuchNote"), "no_such_note");
        assert_eq!(edit_distance("reson", "reason"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(did_you_mean("NotFund", ["Conflict", "NotFound"]), Some("NotFound"));
        assert_eq!(did_you_mean("zzzzzz", ["reason"]), None);
        assert_eq!(did_you_mean("warn", ["debug", "info", "notice", "warning"]), Some("warning"));
        assert_eq!(did_you_mean("in", ["info", "notice"]), Some("info"));
        assert_eq!(did_you_mean("crit", ["debug", "info", "notice", "warning"]), None);
        // An abbreviation wins over a closer spelling of another key.
        assert_eq!(did_you_mean("mime", ["uri", "name", "mime_type"]), Some("mime_type"));
    }
}
