//! The words of one failed keyword: a value's JSON type, `expected number, received
//! string` and its hint, the text of every other keyword, and the bounds a value out of its
//! range must meet (`as an integer from 1 to 50`). `walk` picks the words for each error.

use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde_json::Value;

use super::issue::{Hint, Issue, Seg};

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
pub(super) fn has_type(value: &Value, ty: &str) -> bool {
    match (ty, value) {
        ("integer", Value::Number(n)) => n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0),
        (ty, v) => ty == json_type(v),
    }
}

fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" }
}

/// `expected number, received string` and its hint `as a number, not a string`.
pub(super) fn type_issue(path: Vec<Seg>, expected: &[String], instance: &Value) -> Issue {
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

/// The hint of a keyword failure that is not a range or a length (those are [`bounds`]):
/// the value to send instead, or what to send it as.
pub(super) fn keyword_hint(kind: &ValidationErrorKind, node: Option<&Value>, instance: &Value) -> Hint {
    match kind {
        ValidationErrorKind::Enum { options } => match options.as_ref() {
            Value::Array(values) => choice(values, instance),
            _ => Hint::Restate,
        },
        ValidationErrorKind::Constant { expected_value } => {
            choice(std::slice::from_ref(expected_value.as_ref()), instance)
        }
        ValidationErrorKind::Pattern { pattern } => Hint::Send(format!("as a string matching the pattern {pattern}")),
        ValidationErrorKind::Format { format } => Hint::Send(format!("as a valid {format}")),
        ValidationErrorKind::MultipleOf { multiple_of } => {
            let n = node.and_then(|n| n.get("multipleOf")).cloned().unwrap_or_else(|| Value::from(*multiple_of));
            Hint::Send(format!("as a multiple of {n}"))
        }
        ValidationErrorKind::UniqueItems => Hint::Send("without duplicate items".into()),
        _ => Hint::Restate,
    }
}

/// The hint for a value that is not one of `values`: them, and the one `instance` probably
/// means.
pub(super) fn choice<'v>(values: impl IntoIterator<Item = &'v Value> + Clone, instance: &Value) -> Hint {
    let near = near_value(instance, values.clone()).map(Value::to_string);
    Hint::Choice { values: values.into_iter().map(Value::to_string).collect(), near }
}

/// The value of `values` a string `sent` probably means: the first equal to it but for
/// case, else the closest within edit distance 2 and closer than it is long (as for keys);
/// ties go to the schema's order. Only strings are compared.
pub(super) fn near_value<'v>(sent: &Value, values: impl IntoIterator<Item = &'v Value>) -> Option<&'v Value> {
    let sent = sent.as_str()?;
    let len = sent.chars().count();
    if len > 130 {
        return None;
    }
    let strings: Vec<(&Value, &str)> = values.into_iter().filter_map(|v| v.as_str().map(|s| (v, s))).collect();
    if let Some((v, _)) = strings.iter().copied().find(|(_, s)| s.to_lowercase() == sent.to_lowercase() && *s != sent) {
        return Some(v);
    }
    let mut best: Option<(usize, &Value)> = None;
    for (v, s) in strings {
        let d = crate::rpc::envelope::levenshtein(sent, s);
        if d > 0 && d <= 2 && d < len && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, v));
        }
    }
    best.map(|(_, v)| v)
}

/// `"os"|"cpu"|"memory"`.
pub(super) fn alternatives<'v>(values: impl IntoIterator<Item = &'v Value>) -> String {
    values.into_iter().map(Value::to_string).collect::<Vec<_>>().join("|")
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The text of a keyword failure (the table of the hints issue); `node` is the schema the
/// keyword belongs to, when known.
pub(super) fn keyword_text(kind: &ValidationErrorKind, node: Option<&Value>) -> String {
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

/// The end of `Send <path> …` for a value out of its range or length, with every bound the
/// schema sets: `as an integer from 1 to 50`, `as a number greater than 0`, `as a string of
/// at most 64 characters`, `as a list of 1 to 5 items`. `None` for other keywords.
pub(super) fn bounds(kind: &ValidationErrorKind, node: Option<&Value>) -> Option<String> {
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

/// The expected types in the schema's order (the validator's set is unordered).
pub(super) fn expected_types(node: Option<&Value>, kind: &TypeKind) -> Vec<String> {
    match node.and_then(|n| n.get("type")) {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        _ => match kind {
            TypeKind::Single(t) => vec![t.to_string()],
            TypeKind::Multiple(set) => set.iter().map(|t| t.to_string()).collect(),
        },
    }
}
