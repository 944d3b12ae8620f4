//! RFC 6570 URI templates, the part resources use: `{name}` (one percent-encoded value that
//! never spans a `/`, `?` or `#`) and `{+path}` (reserved expansion: a value that may hold
//! `/`). Matching reads a URI back into the variables' values, percent-decoded.

/// A parsed template: literal text and variables, alternating (two variables never touch,
/// or their values could not be told apart).
#[derive(Debug)]
pub(crate) struct UriTemplate {
    parts: Vec<Part>,
}

#[derive(Debug, PartialEq)]
enum Part {
    Literal(String),
    Var { name: String, reserved: bool },
}

impl UriTemplate {
    /// Parses `template`, or says what is wrong with it.
    pub(crate) fn parse(template: &str) -> Result<UriTemplate, String> {
        let mut parts = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                parts.push(Part::Literal(rest[..open].to_owned()));
            }
            let Some(close) = rest[open..].find('}') else {
                return Err(format!("`{template}` has a `{{` without its `}}`"));
            };
            let expr = &rest[open + 1..open + close];
            let (reserved, name) = match expr.strip_prefix('+') {
                Some(name) => (true, name),
                None => (false, expr),
            };
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(format!(
                    "`{{{expr}}}` in `{template}` is not a variable this SDK reads: write `{{name}}` or `{{+path}}` (letters, digits and `_`)"
                ));
            }
            if matches!(parts.last(), Some(Part::Var { .. })) {
                return Err(format!(
                    "`{template}` puts two variables side by side: separate them with literal text, such as `/`"
                ));
            }
            if parts.iter().any(|p| matches!(p, Part::Var { name: n, .. } if n == name)) {
                return Err(format!("`{template}` uses `{{{name}}}` twice"));
            }
            parts.push(Part::Var { name: name.to_owned(), reserved });
            rest = &rest[open + close + 1..];
        }
        if rest.contains('}') {
            return Err(format!("`{template}` has a `}}` without its `{{`"));
        }
        if !rest.is_empty() {
            parts.push(Part::Literal(rest.to_owned()));
        }
        Ok(UriTemplate { parts })
    }

    /// The variables' names, in order.
    pub(crate) fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Var { name, .. } => Some(name.as_str()),
            Part::Literal(_) => None,
        })
    }

    /// The variables' values in `uri`, in order, percent-decoded; `None` when `uri` does not
    /// have this template's shape (or a value is empty or not UTF-8 once decoded).
    pub(crate) fn matches(&self, uri: &str) -> Option<Vec<String>> {
        let mut values = Vec::new();
        let mut at = 0;
        for (i, part) in self.parts.iter().enumerate() {
            match part {
                Part::Literal(text) => {
                    if !uri[at..].starts_with(text.as_str()) {
                        return None;
                    }
                    at += text.len();
                }
                Part::Var { reserved, .. } => {
                    let ends_at = match self.parts.get(i + 1) {
                        Some(Part::Literal(next)) => at + uri[at..].find(next.as_str())?,
                        _ => uri.len(),
                    };
                    let raw = &uri[at..ends_at];
                    let stops = |c: char| c == '?' || c == '#' || (!reserved && c == '/');
                    if raw.is_empty() || raw.contains(stops) {
                        return None;
                    }
                    values.push(percent_decode(raw)?);
                    at = ends_at;
                }
            }
        }
        (at == uri.len()).then_some(values)
    }
}

/// `%41` → `A`; `None` for a broken escape or bytes that are not UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    if !text.contains('%') {
        return Some(text.to_owned());
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            // Two hex digits: `from_str_radix` alone would take `%+1` as 0x01.
            if !hex.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
            let hex = std::str::from_utf8(hex).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(template: &str, uri: &str) -> Option<Vec<String>> {
        UriTemplate::parse(template).unwrap().matches(uri)
    }

    #[test]
    fn simple_variables_match_one_segment() {
        assert_eq!(values("test://template/{id}/data", "test://template/123/data"), Some(vec!["123".into()]));
        assert_eq!(values("notes://{name}", "notes://todo.md"), Some(vec!["todo.md".into()]));
        assert_eq!(values("notes://{name}", "notes://a/b"), None);
        assert_eq!(values("notes://{name}", "notes://"), None);
        assert_eq!(values("notes://{name}", "other://x"), None);
        assert_eq!(values("test://template/{id}/data", "test://template/123/data/more"), None);
        assert_eq!(values("a://{x}?q", "a://1?q"), Some(vec!["1".into()]));
        assert_eq!(values("a://{x}", "a://1?q"), None);
    }

    #[test]
    fn values_are_percent_decoded() {
        assert_eq!(values("notes://{name}", "notes://my%20note"), Some(vec!["my note".into()]));
        // An encoded `/` is data: the value holds it, and confinement decides what it means.
        assert_eq!(values("notes://{name}", "notes://..%2F..%2Fetc"), Some(vec!["../../etc".into()]));
        assert_eq!(values("notes://{name}", "notes://%E2%9C%93"), Some(vec!["✓".into()]));
        assert_eq!(values("notes://{name}", "notes://%zz"), None);
        assert_eq!(values("notes://{name}", "notes://%2"), None);
        assert_eq!(values("notes://{name}", "notes://%FF"), None);
        assert_eq!(values("notes://{name}", "notes://%+1"), None);
        assert_eq!(values("notes://{name}", "notes://%-1"), None);
    }

    #[test]
    fn reserved_variables_span_segments() {
        assert_eq!(values("file:///{+path}", "file:///a/b/c.txt"), Some(vec!["a/b/c.txt".into()]));
        assert_eq!(
            values("repo://{owner}/{+path}", "repo://me/src/lib.rs"),
            Some(vec!["me".into(), "src/lib.rs".into()])
        );
    }

    #[test]
    fn bad_templates_say_what_is_wrong() {
        for (template, says) in [
            ("a://{x", "without its `}`"),
            ("a://x}", "without its `{`"),
            ("a://{}", "not a variable"),
            ("a://{?q}", "not a variable"),
            ("a://{x}{y}", "side by side"),
            ("a://{x}/{x}", "twice"),
        ] {
            let err = UriTemplate::parse(template).unwrap_err();
            assert!(err.contains(says), "{template}: {err}");
        }
        let t = UriTemplate::parse("repo://{owner}/{+path}").unwrap();
        assert_eq!(t.variables().collect::<Vec<_>>(), ["owner", "path"]);
    }
}
