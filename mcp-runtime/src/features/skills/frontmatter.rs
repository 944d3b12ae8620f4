//! A `SKILL.md`'s YAML frontmatter as the JSON object `skills/list` carries verbatim: the
//! block between the leading `---` lines, read as the YAML a skill's frontmatter is written
//! in (block mappings, block sequences of scalars, plain and quoted scalars, `|` and `>`
//! block scalars; scalars typed as YAML 1.2's core schema types them). What this reader
//! cannot render faithfully (flow collections, anchors, aliases, tags, multi-line plain
//! scalars) is refused with the line, never guessed: a host compares the entry's
//! frontmatter with its own parse of the file, so a wrong rendering would fail every load.

use serde_json::{Map, Number, Value};

/// The frontmatter of `text` (a `SKILL.md`) as a JSON object, or why it cannot be read.
pub(crate) fn parse(text: &str) -> Result<Map<String, Value>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    if lines.next() != Some("---") {
        return Err(
            "SKILL.md must begin with YAML frontmatter: a `---` line, the fields, and a closing `---` line".into()
        );
    }
    let mut body = Vec::new();
    let mut closed = false;
    for line in lines {
        if line.trim_end_matches([' ', '\t']) == "---" {
            closed = true;
            break;
        }
        body.push(line);
    }
    if !closed {
        return Err("the frontmatter has no closing `---` line".into());
    }
    let lines: Vec<Line<'_>> = body.iter().enumerate().map(|(i, text)| Line { number: i + 2, text }).collect();
    let mut at = 0;
    let map = mapping(&lines, &mut at, 0)?;
    if let Some(line) = next(&lines, &mut at) {
        return Err(line.error("unexpected indentation"));
    }
    Ok(map)
}

/// The next line that is neither blank nor a comment, from `at` (which moves to it).
fn next<'l, 'a>(lines: &'l [Line<'a>], at: &mut usize) -> Option<&'l Line<'a>> {
    while lines.get(*at).is_some_and(Line::blank) {
        *at += 1;
    }
    lines.get(*at)
}

struct Line<'a> {
    number: usize,
    text: &'a str,
}

impl Line<'_> {
    fn blank(&self) -> bool {
        let t = self.text.trim_start_matches([' ', '\t']);
        t.is_empty() || t.starts_with('#')
    }

    fn indent(&self) -> usize {
        self.text.len() - self.text.trim_start_matches(' ').len()
    }

    fn content(&self) -> &str {
        &self.text[self.indent()..]
    }

    fn error(&self, what: &str) -> String {
        format!("frontmatter line {}: {what}", self.number)
    }
}

/// A block mapping whose keys are at `indent`.
fn mapping(lines: &[Line<'_>], at: &mut usize, indent: usize) -> Result<Map<String, Value>, String> {
    let mut map = Map::new();
    while let Some(line) = next(lines, at) {
        if line.indent() < indent {
            break;
        }
        if line.indent() > indent {
            return Err(line.error(
                "unexpected indentation (a plain value cannot continue on the next line; quote it or use `>`)",
            ));
        }
        if line.content().starts_with('\t') {
            return Err(line.error("a tab in indentation; indent with spaces"));
        }
        let (key, rest) = key(line)?;
        if map.contains_key(&key) {
            return Err(line.error(&format!("the key `{key}` appears twice")));
        }
        *at += 1;
        let value = value(lines, at, indent, line, rest)?;
        map.insert(key, value);
    }
    Ok(map)
}

/// The key of a `key: value` line and the text after the colon.
fn key<'a>(line: &'a Line<'_>) -> Result<(String, &'a str), String> {
    let content = line.content();
    if content.starts_with(['"', '\'']) {
        let (key, rest) = quoted(content).map_err(|e| line.error(&e))?;
        let rest = rest.trim_start_matches([' ', '\t']);
        return match rest.strip_prefix(':') {
            Some(after) if after.is_empty() || after.starts_with([' ', '\t']) => Ok((key, after)),
            _ => Err(line.error("expected `:` after the key")),
        };
    }
    if is_item(content) || content.starts_with(['[', '{', '?', '&', '*', '!', '|', '>']) {
        return Err(line.error("expected a `key: value` line"));
    }
    let colon = content
        .match_indices(':')
        .map(|(i, _)| i)
        .find(|&i| content[i + 1..].is_empty() || content[i + 1..].starts_with([' ', '\t']))
        .ok_or_else(|| line.error("expected a `key: value` line"))?;
    let key = content[..colon].trim_end();
    if key.is_empty() || key.contains(" #") {
        return Err(line.error("expected a `key: value` line"));
    }
    Ok((key.to_owned(), &content[colon + 1..]))
}

/// The value after `key:` on `line` (at `indent`): inline, a block scalar, or the nested
/// block that follows.
fn value(lines: &[Line<'_>], at: &mut usize, indent: usize, line: &Line<'_>, rest: &str) -> Result<Value, String> {
    let rest = rest.trim_start_matches([' ', '\t']);
    if rest.is_empty() || rest.starts_with('#') {
        return match next(lines, at) {
            Some(below) if below.indent() > indent && is_item(below.content()) => {
                let own = below.indent();
                sequence(lines, at, own)
            }
            Some(below) if below.indent() == indent && is_item(below.content()) => sequence(lines, at, indent),
            Some(below) if below.indent() > indent => {
                let own = below.indent();
                Ok(Value::Object(mapping(lines, at, own)?))
            }
            _ => Ok(Value::Null),
        };
    }
    if let Some(header) = rest.strip_prefix(['|', '>']) {
        return block_scalar(lines, at, indent, line, rest.starts_with('|'), header);
    }
    scalar(rest).map_err(|e| line.error(&e))
}

fn is_item(content: &str) -> bool {
    content == "-" || content.starts_with("- ")
}

/// A block sequence of scalars whose `-` are at `indent`.
fn sequence(lines: &[Line<'_>], at: &mut usize, indent: usize) -> Result<Value, String> {
    let mut items = Vec::new();
    while let Some(line) = next(lines, at) {
        if line.indent() != indent || !is_item(line.content()) {
            if line.indent() > indent {
                return Err(line.error("unexpected indentation in a list (items are scalars, one per line)"));
            }
            break;
        }
        *at += 1;
        let item = line.content()[1..].trim_start_matches([' ', '\t']);
        if item.is_empty() || item.starts_with('#') {
            return Err(line.error("an empty list item; write the value after `- `"));
        }
        if item.starts_with(['|', '>']) || key(&Line { number: line.number, text: item }).is_ok() {
            return Err(
                line.error("list items other than scalars are not supported here; write one value per `- ` line")
            );
        }
        items.push(scalar(item).map_err(|e| line.error(&e))?);
    }
    Ok(Value::Array(items))
}

/// A `|` (literal) or `>` (folded) block scalar, with `-` (strip) or default (clip) chomping.
fn block_scalar(
    lines: &[Line<'_>],
    at: &mut usize,
    indent: usize,
    line: &Line<'_>,
    literal: bool,
    header: &str,
) -> Result<Value, String> {
    let header = header.split(" #").next().unwrap_or("").trim_end();
    let strip = match header {
        "" => false,
        "-" => true,
        _ => return Err(line.error("only `|`, `|-`, `>` and `>-` block scalars are supported")),
    };
    // Every line more indented than the key is the block's (blank lines and `#` too), up to
    // the first less-indented line that is not blank.
    let mut parts: Vec<&str> = Vec::new();
    let mut block_indent = None;
    let mut end = *at;
    while let Some(next) = lines.get(end) {
        let empty = next.text.trim_matches(' ').is_empty();
        if !empty && next.indent() <= indent {
            break;
        }
        end += 1;
        if empty {
            parts.push("");
            continue;
        }
        let own = *block_indent.get_or_insert(next.indent());
        if next.indent() < own {
            return Err(next.error("a block scalar's lines must share its first line's indentation"));
        }
        if !literal && next.indent() > own {
            return Err(next.error("more-indented lines in a `>` block are not supported; use `|`"));
        }
        parts.push(&next.text[own..]);
    }
    *at = end;
    // Trailing blank lines belong to no line of the block (clip and strip chomping drop them).
    while parts.last() == Some(&"") {
        parts.pop();
    }
    let mut text = String::new();
    if literal {
        text = parts.join("\n");
    } else {
        let mut after_break = true;
        for part in &parts {
            if part.is_empty() {
                text.push('\n');
                after_break = true;
            } else {
                if !after_break {
                    text.push(' ');
                }
                text.push_str(part);
                after_break = false;
            }
        }
    }
    if !strip && !parts.is_empty() {
        text.push('\n');
    }
    Ok(Value::String(text))
}

/// One scalar: quoted, or plain (typed as the YAML 1.2 core schema types it).
fn scalar(text: &str) -> Result<Value, String> {
    if text.starts_with(['"', '\'']) {
        let (value, rest) = quoted(text)?;
        let rest = rest.trim_start_matches([' ', '\t']);
        if !rest.is_empty() && !rest.starts_with('#') {
            return Err("text after a quoted value".into());
        }
        return Ok(Value::String(value));
    }
    if text.starts_with(['[', '{']) {
        return Err("flow collections (`[..]`, `{..}`) are not supported; write one item per line".into());
    }
    if text.starts_with(['&', '*', '!', '@', '`', '%']) {
        return Err(format!("a value may not begin with `{}`; quote it", &text[..1]));
    }
    let plain = match text.find(" #").or_else(|| text.find("\t#")) {
        Some(comment) => &text[..comment],
        None => text,
    }
    .trim_end();
    if plain.contains(": ") || plain.ends_with(':') {
        return Err("a plain value containing `: `; quote it".into());
    }
    Ok(typed(plain))
}

/// A plain scalar as the YAML 1.2 core schema resolves it.
fn typed(plain: &str) -> Value {
    match plain {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        _ => {}
    }
    let digits = plain.strip_prefix(['-', '+']).unwrap_or(plain);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        if let Ok(n) = plain.parse::<i64>() {
            return Value::Number(n.into());
        }
    }
    let float = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'-' | b'+'))
        && digits.bytes().next().is_some_and(|b| b.is_ascii_digit() || b == b'.');
    if float {
        if let Some(n) = plain.parse::<f64>().ok().and_then(Number::from_f64) {
            return Value::Number(n);
        }
    }
    Value::String(plain.to_owned())
}

/// A quoted scalar at the start of `text`, and what follows it.
fn quoted(text: &str) -> Result<(String, &str), String> {
    let mut chars = text.char_indices();
    let Some((_, quote)) = chars.next() else { return Err("an empty value".into()) };
    let mut out = String::new();
    while let Some((i, c)) = chars.next() {
        match (quote, c) {
            ('\'', '\'') => {
                if text[i + 1..].starts_with('\'') {
                    chars.next();
                    out.push('\'');
                } else {
                    return Ok((out, &text[i + 1..]));
                }
            }
            ('"', '"') => return Ok((out, &text[i + 1..])),
            ('"', '\\') => {
                let escaped = match chars.next().map(|(_, e)| e) {
                    Some('n') => '\n',
                    Some('t') => '\t',
                    Some('r') => '\r',
                    Some('0') => '\0',
                    Some(e @ ('"' | '\\' | '/' | ' ')) => e,
                    Some('u') => {
                        let hex: String = chars.by_ref().take(4).map(|(_, h)| h).collect();
                        u32::from_str_radix(&hex, 16)
                            .ok()
                            .and_then(char::from_u32)
                            .ok_or_else(|| format!("`\\u{hex}` is not a character"))?
                    }
                    Some(other) => return Err(format!("the escape `\\{other}` is not supported")),
                    None => return Err("an unterminated quoted value".into()),
                };
                out.push(escaped);
            }
            _ => out.push(c),
        }
    }
    Err("an unterminated quoted value (a quoted value must end on its line)".into())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::parse;

    fn read(yaml: &str) -> serde_json::Value {
        serde_json::Value::Object(parse(&format!("---\n{yaml}\n---\n# Body\n")).unwrap())
    }

    #[test]
    fn renders_what_a_yaml_parser_would() {
        let yaml = "name: pdf-processing\ndescription: 'Extract, fill: and ''assemble'' PDFs'\nlicense: Apache-2.0 # a comment\nversion: 2\nratio: 1.5\nbeta: true\nnothing:\nmetadata:\n  author: \"Ann \\\"A\\\" Lee\"\n  tier: 3\n  nested:\n    deep: x\nallowed-tools:\n  - Bash(git:*)\n  - Read\ntags:\n- a\n- '2'\nnotes: |\n  line one\n\n  line two\nsummary: >-\n  folded\n  text\n";
        assert_eq!(
            read(yaml),
            json!({
                "name": "pdf-processing",
                "description": "Extract, fill: and 'assemble' PDFs",
                "license": "Apache-2.0",
                "version": 2,
                "ratio": 1.5,
                "beta": true,
                "nothing": null,
                "metadata": {"author": "Ann \"A\" Lee", "tier": 3, "nested": {"deep": "x"}},
                "allowed-tools": ["Bash(git:*)", "Read"],
                "tags": ["a", "2"],
                "notes": "line one\n\nline two\n",
                "summary": "folded text",
            })
        );
    }

    #[test]
    fn refuses_what_it_cannot_render() {
        for (yaml, why) in [
            ("name: [a, b]", "flow collections"),
            ("name: &anchor x", "quote it"),
            ("name: a\n  continued", "line 3: unexpected indentation"),
            ("name: a\nname: b", "appears twice"),
            ("name: 'open", "unterminated"),
            ("- a", "expected a `key: value` line"),
            ("name: a: b", "quote it"),
        ] {
            let err = parse(&format!("---\n{yaml}\n---\n")).unwrap_err();
            assert!(err.contains(why), "{yaml:?}: {err}");
        }
        assert!(parse("# no frontmatter\n").unwrap_err().contains("must begin with YAML frontmatter"));
        assert!(parse("---\nname: a\n").unwrap_err().contains("no closing"));
        assert_eq!(parse("\u{feff}---\r\nname: a\r\n---\r\n").unwrap()["name"], "a");
    }
}
