//! Argument and output validation against the compiled schemas, and the texts of
//! `invalid_arguments` / `invalid_output` (ERRORS.md §5). Runs only on the failure path:
//! a valid call costs one `is_valid`.

use jsonschema::error::{TypeKind, ValidationErrorKind};
use mcp_core::{ErrorCode, ToolError};
use serde_json::{Value, json};

use crate::server::Registered;

/// One problem with the arguments.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Issue {
    pub(crate) path: Vec<String>,
    pub(crate) keyword: String,
    pub(crate) message: String,
}

impl Issue {
    fn line(&self) -> String {
        if self.path.is_empty() { self.message.clone() } else { format!("{}: {}", self.path.join("."), self.message) }
    }
}

/// The `invalid_arguments` failure for arguments that failed the input schema, and the
/// `data.issues` list.
pub(crate) fn invalid_arguments(tool: &Registered, args: &Value) -> (ToolError, Value) {
    let issues: Vec<Issue> = tool.input_validator.iter_errors(args).flat_map(|e| issues_of(&e)).collect();
    let detail = detail(&issues);
    let error = ToolError::invalid_params(format!("Invalid arguments for tool {}: {detail}", tool.spec.name))
        .reason("invalid_arguments")
        .hint(detail);
    (error, issues_json(&issues))
}

fn issues_json(issues: &[Issue]) -> Value {
    Value::Array(
        issues.iter().take(30).map(|i| json!({"path": i.path, "keyword": i.keyword, "message": i.message})).collect(),
    )
}

fn detail(issues: &[Issue]) -> String {
    let mut lines: Vec<String> = issues.iter().take(10).map(Issue::line).collect();
    let mut out = lines.drain(..).collect::<Vec<_>>().join(", ");
    if issues.len() > 10 {
        out.push_str(&format!(" (+{} more)", issues.len() - 10));
    }
    out
}

fn path_of(e: &jsonschema::ValidationError<'_>) -> Vec<String> {
    let pointer = e.instance_path().to_string();
    pointer.split('/').skip(1).map(|s| s.replace("~1", "/").replace("~0", "~")).collect()
}

fn issues_of(e: &jsonschema::ValidationError<'_>) -> Vec<Issue> {
    let path = path_of(e);
    let (keyword, message) = match e.kind() {
        ValidationErrorKind::Required { property } => {
            let mut p = path.clone();
            p.push(property.as_str().unwrap_or_default().to_owned());
            return vec![Issue { path: p, keyword: "required".into(), message: "missing required field".into() }];
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            return unexpected
                .iter()
                .map(|k| {
                    let mut p = path.clone();
                    p.push(k.clone());
                    Issue { path: p, keyword: "additionalProperties".into(), message: "unknown key".into() }
                })
                .collect();
        }
        ValidationErrorKind::Type { kind } => {
            ("type".to_owned(), format!("expected {}, received {}", expected_types(kind), json_type(e.instance())))
        }
        other => (e.kind().keyword().to_owned(), keyword_text(other)),
    };
    vec![Issue { path, keyword, message }]
}

fn expected_types(kind: &TypeKind) -> String {
    match kind {
        TypeKind::Single(t) => t.to_string(),
        TypeKind::Multiple(set) => set.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(" or "),
    }
}

pub(crate) fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn keyword_text(kind: &ValidationErrorKind) -> String {
    match kind {
        ValidationErrorKind::Enum { options } => format!("expected one of {}", alternatives(options)),
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
            format!("must be a multiple of {}", Value::from(*multiple_of))
        }
        other => format!("does not match the schema ({})", other.keyword()),
    }
}

fn alternatives(options: &Value) -> String {
    match options {
        Value::Array(values) => values.iter().map(Value::to_string).collect::<Vec<_>>().join("|"),
        other => other.to_string(),
    }
}

/// Arguments that passed the schema but that serde cannot read.
pub(crate) fn deserialize_failure(tool: &str, error: &serde_json::Error) -> ToolError {
    tracing::debug!(tool, %error, "arguments passed the schema but not serde");
    let detail = "does not match the schema (deserialize)";
    ToolError::new(ErrorCode::InvalidParams, format!("Invalid arguments for tool {tool}: {detail}"))
        .reason("invalid_arguments")
        .hint(detail)
}

/// Why a structured value does not conform to the output schema: the failing path and
/// keyword, never the value.
pub(crate) fn output_detail(validator: &jsonschema::Validator, value: &Value) -> Option<String> {
    if validator.is_valid(value) {
        return None;
    }
    let issues: Vec<Issue> = validator.iter_errors(value).flat_map(|e| issues_of(&e)).collect();
    Some(detail(&issues))
}
