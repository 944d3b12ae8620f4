//! Every rule that can be checked at compile time, each reported at the offending token.

use crate::ast::{ParamKind, Tool};
use crate::attr::{CodeValue, ERRORS_KEYS};
use crate::ctxt::Ctxt;
use crate::text::suggestion;

/// Named codes of ERRORS.md §2 (kept in step with `mcp_core::ErrorCode::NAMED`).
pub(crate) const CODE_NAMES: &[&str] = &[
    "ParseError",
    "InvalidRequest",
    "MethodNotFound",
    "InvalidParams",
    "InternalError",
    "ServiceUnavailable",
    "NotFound",
    "Conflict",
    "RateLimited",
    "Timeout",
    "Forbidden",
    "Unauthorized",
    "ValidationError",
    "ConfigurationError",
    "InitializationFailed",
    "DatabaseError",
    "RequestCancelled",
    "SerializationError",
    "UnknownError",
];
pub(crate) const SEVERITIES: &[&str] = &["debug", "info", "notice", "warning"];

pub(crate) fn validate(cx: &Ctxt, tool: &Tool<'_>) {
    signature(cx, tool);
    tool_keys(cx, tool);
    errors(cx, tool);
}

/// The tool's name on the wire.
pub(crate) fn tool_name(tool: &Tool<'_>) -> String {
    tool.attr.name.as_ref().map_or_else(|| tool.original.sig.ident.unraw_string(), syn::LitStr::value)
}

trait Unraw {
    fn unraw_string(&self) -> String;
}

impl Unraw for syn::Ident {
    fn unraw_string(&self) -> String {
        let s = self.to_string();
        s.strip_prefix("r#").map(str::to_owned).unwrap_or(s)
    }
}

fn signature(cx: &Ctxt, tool: &Tool<'_>) {
    let sig = &tool.original.sig;
    if !sig.generics.params.is_empty() {
        cx.error_spanned_by(
            &sig.generics,
            "a `#[tool]` fn cannot be generic: its schemas are generated for concrete types",
        );
    }
    if let Some(c) = &sig.constness {
        cx.error_spanned_by(c, "a `#[tool]` fn cannot be `const`");
    }
    if let Some(v) = &sig.variadic {
        cx.error_spanned_by(v, "a `#[tool]` fn cannot be variadic");
    }
    let contexts: Vec<_> = tool.params.iter().filter(|p| p.kind == ParamKind::Context).collect();
    for extra in contexts.iter().skip(1) {
        cx.error_spanned_by(
            &extra.original.ty,
            "a `#[tool]` fn takes at most one by-reference (context) parameter, `&Ctx<..>`",
        );
    }
    let inputs: Vec<_> = tool.params.iter().filter(|p| p.kind == ParamKind::Input).collect();
    for extra in inputs.iter().skip(1) {
        cx.error_at(
            extra.input_marker.unwrap_or_else(proc_macro2::Span::call_site),
            "only one parameter can be the whole `#[input]`",
        );
    }
    if let Some(input) = inputs.first() {
        for arg in tool.params.iter().filter(|p| p.kind == ParamKind::Arg) {
            cx.error_spanned_by(
                &arg.original.pat,
                "a tool with an `#[input]` struct takes no other arguments: move this field into the struct",
            );
        }
        for a in &input.field_attrs {
            cx.error_spanned_by(
                a,
                "put `///`, `#[serde]` and `#[schemars]` on the `#[input]` struct's fields, not on the parameter",
            );
        }
    }
}

fn tool_keys(cx: &Ctxt, tool: &Tool<'_>) {
    let name = tool_name(tool);
    let valid = !name.is_empty()
        && name.chars().count() <= 128
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
    if !valid {
        let msg = format!("invalid tool name `{name}`: use 1 to 128 characters of `A-Z a-z 0-9 _ . -`");
        match &tool.attr.name {
            Some(lit) => cx.error_spanned_by(lit, msg),
            None => cx.error_spanned_by(&tool.original.sig.ident, msg),
        }
    }
    match &tool.attr.description {
        Some(d) if d.value().trim().is_empty() => cx.error_spanned_by(d, "`description` is empty; say what the tool does"),
        Some(_) => {}
        None if tool.docs.is_none() => cx.error_spanned_by(
            &tool.original.sig.ident,
            "a `#[tool]` needs a description, which the model reads to choose it: add a doc comment `/// What this tool does.` above the fn, or `#[tool(description = \"…\")]`",
        ),
        None => {}
    }
    if let Some(t) = &tool.attr.timeout_ms {
        match t.base10_parse::<u64>() {
            Ok(0) => cx.error_spanned_by(t, "`timeout_ms` must be at least 1"),
            Ok(_) => {}
            Err(e) => cx.error_spanned_by(t, format!("`timeout_ms` must be a whole number of milliseconds: {e}")),
        }
    }
    if let (Some(path), Some(first)) = (&tool.attr.contract, tool.errors.first()) {
        cx.error_spanned_by(
            path,
            "a tool takes its failure modes either from `#[errors(...)]` or from a shared `contract = ...`, not both",
        );
        cx.error_at(first.span, "note: `#[errors]` used here");
    }
}

fn errors(cx: &Ctxt, tool: &Tool<'_>) {
    let mut seen: Vec<(String, proc_macro2::Span)> = Vec::new();
    for e in &tool.errors {
        error_entry(cx, e);
        if let Some(reason) = &e.reason {
            let value = reason.value();
            if let Some((_, first)) = seen.iter().find(|(r, _)| *r == value) {
                cx.error_spanned_by(
                    reason,
                    format!("duplicate reason `{value}`; each failure mode of a tool has its own reason"),
                );
                cx.error_at(*first, format!("note: `{value}` first declared here"));
            } else {
                seen.push((value, reason.span()));
            }
        }
    }
}

/// The rules of one `#[errors(...)]` entry (ERRORS.md §4).
pub(crate) fn error_entry(cx: &Ctxt, e: &crate::attr::ErrorsAttr) {
    {
        let missing: Vec<&str> = [
            ("reason", e.reason.is_none()),
            ("code", e.code.is_none()),
            ("when", e.when.is_none()),
            ("recovery", e.recovery.is_none()),
        ]
        .into_iter()
        .filter_map(|(k, m)| m.then_some(k))
        .collect();
        if !missing.is_empty() {
            let list = missing.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
            let keys = ERRORS_KEYS[..4].iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
            cx.error_at(e.span, format!("`errors` is missing {list}; every failure mode declares {keys}"));
        }
        if let Some(reason) = &e.reason {
            let value = reason.value();
            let snake = value.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                && value.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
            if !snake {
                let fixed = crate::text::snake_case(&value).to_lowercase().replace([' ', '-'], "_").replace("__", "_");
                cx.error_spanned_by(
                    reason,
                    format!("reason `{value}` must be snake_case (`^[a-z][a-z0-9_]*$`), e.g. `{fixed}`"),
                );
            }
        }
        if let Some(CodeValue::Named(ident)) = &e.code {
            let name = ident.to_string();
            if !CODE_NAMES.contains(&name.as_str()) {
                cx.error_spanned_by(
                    ident,
                    format!("unknown error code `{name}`; use a name from the code table (`NotFound`, `RateLimited`, …) or an integer{}", suggestion(&name, CODE_NAMES.iter().copied())),
                );
            }
        }
        if let Some(when) = &e.when
            && when.value().trim().is_empty()
        {
            cx.error_spanned_by(when, "`when` is empty; describe in one sentence when this failure happens");
        }
        if let Some(recovery) = &e.recovery {
            let words = recovery.value().split_whitespace().count();
            if words < 5 {
                cx.error_spanned_by(
                    recovery,
                    format!("`recovery` has {words} word{}; tell the caller its next move in at least 5 words, naming a tool or an argument it can use", if words == 1 { "" } else { "s" }),
                );
            }
        }
        if let Some(sev) = &e.severity
            && !SEVERITIES.contains(&sev.name.as_str())
        {
            cx.error_at(
                sev.span,
                format!(
                    "unknown severity `{}`; expected one of `debug`, `info`, `notice`, `warning`{}",
                    sev.name,
                    suggestion(&sev.name, SEVERITIES.iter().copied())
                ),
            );
        }
    }
}
