//! Argument and output validation against the compiled schemas, and the texts of
//! `invalid_arguments` / `invalid_output` (docs/errors.md#invalid-arguments-the-detail-and-the-hint). Runs only on the failure path:
//! a valid call costs one `is_valid`.
//!
//! The validator decides *what* failed (its errors are the facts); the schema as listed
//! decides *how it reads*: issues are ordered by the schema's property order, `$ref`s are
//! resolved so that texts name the caller's fields, a `required` field says which values it
//! takes, and a tagged union (serde's internally tagged enum) is resolved by its tag.
//!
//! This file holds the entry points (`features::tools::call` calls [`invalid_arguments`],
//! `features::tools::run` calls [`output_detail`]) and the gathering of a value's errors. A
//! failure then passes, in order: `walk` (each validator error read against the schema as
//! listed, into issues, ordered), `unknown` (a key the schema does not accept: what its
//! object accepts, and the key it is probably a misspelling of), `words` (the text of one
//! failed keyword), `issue` (one issue and its line) and `refusal` (the issues as the
//! envelope's message, hint and `data.issues`). Before a refusal, `features::tools::call`
//! tries `repair` (the mistakes with one reading, docs/errors.md#repairs) and re-validates.
//! Arguments that passed are read into the tool's type by `deserialize`.

use mcp_core::ToolError;
use serde_json::Value;

use issue::{Hint, Issue};
use refusal::{detail, issues_json, refusal};
use walk::Walk;

mod deserialize;
mod issue;
mod refusal;
mod repair;
mod unknown;
mod walk;
mod words;

#[cfg(test)]
mod tests;

pub(crate) use deserialize::{deserialize_args, deserialize_failure, deserialize_property};
pub(crate) use issue::Seg;
pub(crate) use repair::{Repair, repair};

/// Validator errors turned into issues; later ones are only counted (` (+N more)`).
const KEPT_ERRORS: usize = 256;
/// A failing value with more JSON nodes than this is described by its first error alone.
/// jsonschema gathers every error before returning any (some 450 bytes each), so a 4 MiB
/// array of wrong elements would otherwise take a gigabyte and seconds to render ten lines.
const FULL_REPORT_NODES: usize = 64 * 1024;

/// The `invalid_arguments` failure for arguments that failed the input schema, and the
/// `data.issues` list.
pub(crate) fn invalid_arguments(
    tool: &str,
    validator: &jsonschema::Validator,
    schema: &Value,
    args: &Value,
) -> (ToolError, Value) {
    let (issues, more) = input_issues(validator, schema, args);
    (refusal(tool, &issues, more), issues_json(&issues))
}

/// The issues of arguments that fail `schema`, in the detail's order (never empty), and how
/// many errors beyond [`KEPT_ERRORS`] were only counted.
fn input_issues(validator: &jsonschema::Validator, schema: &Value, args: &Value) -> (Vec<Issue>, usize) {
    let walk = Walk::new(schema, args);
    let (mut issues, more) = collect(&walk, validator, args);
    walk.tidy(&mut issues, Some(schema), Some(args), 0);
    if issues.is_empty() {
        // The validator rejected the arguments without saying why: still say something.
        issues.push(Issue::new(Vec::new(), "schema", "does not match the schema (schema)".into(), Hint::Restate));
    }
    (issues, more)
}

/// The issues of the first [`KEPT_ERRORS`] errors of `value`, and the number of errors
/// after them; only the first error when `value` is larger than [`FULL_REPORT_NODES`].
fn collect(walk: &Walk<'_>, validator: &jsonschema::Validator, value: &Value) -> (Vec<Issue>, usize) {
    let mut issues = Vec::new();
    if !fewer_nodes_than(value, FULL_REPORT_NODES) {
        if let Err(error) = validator.validate(value) {
            walk.collect(&error, None, &mut issues);
        }
        return (issues, 0);
    }
    let mut more = 0;
    for (n, error) in validator.iter_errors(value).enumerate() {
        if n < KEPT_ERRORS {
            walk.collect(&error, None, &mut issues);
        } else {
            more += 1;
        }
    }
    (issues, more)
}

/// Whether `value` has fewer than `limit` nodes; stops counting at the limit.
fn fewer_nodes_than(value: &Value, limit: usize) -> bool {
    fn count(value: &Value, left: &mut usize) -> bool {
        if *left == 0 {
            return false;
        }
        *left -= 1;
        match value {
            Value::Array(items) => items.iter().all(|v| count(v, left)),
            Value::Object(map) => map.values().all(|v| count(v, left)),
            _ => true,
        }
    }
    count(value, &mut { limit })
}

/// Why a structured value does not conform to the output schema: the failing path and
/// keyword, never the value.
pub(crate) fn output_detail(validator: &jsonschema::Validator, value: &Value) -> Option<String> {
    if validator.is_valid(value) {
        return None;
    }
    // The output schema is not at hand: issues keep the validator's order.
    let walk = Walk::new(&Value::Null, value);
    let (mut issues, more) = collect(&walk, validator, value);
    walk.tidy(&mut issues, None, Some(value), 0);
    Some(detail(&issues, more))
}
