//! The grammar of `#[tool(...)]` and `#[errors(...)]`, as typed structs that keep every
//! literal and span so that later stages can point at the user's token.
//!
//! Parsing never stops at the first mistake in a value: a value of the wrong kind is
//! reported at its token and the key is skipped, so that one build lists every mistake.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::parse::{Parse as _, ParseStream};
use syn::spanned::Spanned;
use syn::{Expr, Ident, Lit, LitBool, LitInt, LitStr, Path, Token};

use crate::ctxt::Ctxt;
use crate::text::did_you_mean;

/// `#[name]` or `#[some::path::name]`: the SDK's attributes may be named by path
/// (`#[mcp_runtime::errors(...)]`).
pub(crate) fn is_attr(attr: &syn::Attribute, name: &str) -> bool {
    attr.path().segments.last().is_some_and(|s| s.ident == name)
}

/// Which attribute a fn carries: they share the pipeline, and differ in keys and output.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Kind {
    #[default]
    Tool,
    Resource,
    Prompt,
}

impl Kind {
    /// The attribute's name: `tool`, `resource`, `prompt`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Tool => "tool",
            Kind::Resource => "resource",
            Kind::Prompt => "prompt",
        }
    }

    fn keys(self) -> &'static [&'static str] {
        match self {
            Kind::Tool => TOOL_KEYS,
            Kind::Resource => RESOURCE_KEYS,
            Kind::Prompt => PROMPT_KEYS,
        }
    }
}

/// Keys of `#[resource(...)]`.
pub(crate) const RESOURCE_KEYS: &[&str] = &[
    "uri",
    "uri_template",
    "name",
    "title",
    "description",
    "mime_type",
    "size",
    "annotations",
    "icons",
    "list",
    "complete",
    "scopes",
    "contract",
    "crate",
    "ui",
];
/// Keys of `#[prompt(...)]`.
pub(crate) const PROMPT_KEYS: &[&str] =
    &["name", "title", "description", "icons", "complete", "scopes", "contract", "crate"];

/// Keys of `#[tool(...)]`.
pub(crate) const TOOL_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "annotations",
    "icons",
    "meta",
    "allow_unknown_args",
    "repair",
    "needs_session",
    "asks",
    "app_data",
    "timeout_ms",
    "task",
    "scopes",
    "contract",
    "crate",
    "ui",
    "visibility",
];
const ANNOTATION_KEYS: &[&str] = &["title", "read_only_hint", "destructive_hint", "idempotent_hint", "open_world_hint"];
const ICON_KEYS: &[&str] = &["src", "mime_type", "sizes", "theme"];
/// Keys of a resource's `ui(...)`.
const UI_KEYS: &[&str] = &["csp", "permissions", "domain", "prefers_border"];
/// Keys of `ui(csp(...))`.
const CSP_KEYS: &[&str] = &["connect_domains", "resource_domains", "frame_domains", "base_uri_domains"];
/// What `ui(permissions(...))` may ask for.
pub(crate) const PERMISSIONS: &[&str] = &["camera", "microphone", "geolocation", "clipboard_write"];
/// Who `#[tool(visibility(...))]` may name.
pub(crate) const VISIBILITY: &[&str] = &["model", "app"];
/// Keys of `#[errors(...)]`; the first four are required.
pub(crate) const ERRORS_KEYS: &[&str] = &["reason", "code", "when", "recovery", "retryable", "severity", "thrown_by"];

/// `#[tool(...)]`, `#[resource(...)]` or `#[prompt(...)]`.
#[derive(Default)]
pub(crate) struct ToolAttr {
    pub(crate) kind: Kind,
    /// `#[resource]`: the fixed URI, or the template.
    pub(crate) uri: Option<LitStr>,
    pub(crate) uri_template: Option<LitStr>,
    pub(crate) mime_type: Option<LitStr>,
    pub(crate) size: Option<LitInt>,
    /// `list = fn`: a template's instances.
    pub(crate) list: Option<Path>,
    /// `complete(arg = fn, ..)`.
    pub(crate) complete: Vec<(Ident, Path)>,
    /// `#[resource(annotations(..))]`: for the content, not the tool hints.
    pub(crate) resource_annotations: Option<ResourceAnnotations>,
    pub(crate) name: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) annotations: Option<Annotations>,
    pub(crate) icons: Vec<IconAttr>,
    pub(crate) meta: Vec<(LitStr, Lit)>,
    pub(crate) allow_unknown_args: bool,
    /// `repair = false`: arguments that fail the input schema are refused as sent, never
    /// repaired (`repair` alone, or `repair = true`, is the default).
    pub(crate) repair: Option<bool>,
    pub(crate) needs_session: bool,
    /// `asks` / `asks = false`: whether the handler asks the client (elicitation, sampling,
    /// roots, consent); without it, read from the body.
    pub(crate) asks: Option<bool>,
    /// `app_data(Db, Config)`: the app data types the handler reads; `build()` fails naming
    /// one that was not registered.
    pub(crate) app_data: Vec<syn::Type>,
    pub(crate) timeout_ms: Option<LitInt>,
    /// `task = "optional" | "required"`: the tool may (must) run as a task (checked in
    /// `validate`).
    pub(crate) task: Option<LitStr>,
    /// `scopes("notes:write", ..)`: the scopes written as string literals.
    pub(crate) scopes: Vec<LitStr>,
    /// `contract = Shared` or `contract = (A, B)`: the shared contracts the item composes.
    pub(crate) contracts: Vec<Path>,
    pub(crate) krate: Option<Path>,
    /// `#[resource(ui)]` or `#[resource(ui(..))]`: an MCP Apps view.
    pub(crate) view: Option<UiAttr>,
    /// `#[tool(ui = "ui://..")]`: the view a host renders the tool's results in.
    pub(crate) ui: Option<LitStr>,
    /// `#[tool(visibility(model, app))]`: who may call the tool; the key's span.
    pub(crate) visibility: Option<(Span, Vec<Ident>)>,
}

/// A resource's `ui(...)`: what the view declares for its host (`_meta.ui`).
pub(crate) struct UiAttr {
    /// `csp(connect_domains(..), ..)`, by key of [`CSP_KEYS`].
    pub(crate) csp: Vec<(&'static str, Vec<LitStr>)>,
    /// `permissions(camera, ..)`.
    pub(crate) permissions: Vec<Ident>,
    pub(crate) domain: Option<LitStr>,
    pub(crate) prefers_border: Option<LitBool>,
}

#[derive(Default)]
pub(crate) struct Annotations {
    pub(crate) title: Option<LitStr>,
    pub(crate) read_only_hint: Option<LitBool>,
    pub(crate) destructive_hint: Option<LitBool>,
    pub(crate) idempotent_hint: Option<LitBool>,
    pub(crate) open_world_hint: Option<LitBool>,
}

/// `annotations(audience(user, assistant), priority = 0.5, last_modified = "…")` of a resource.
#[derive(Default)]
pub(crate) struct ResourceAnnotations {
    /// `user` / `assistant`.
    pub(crate) audience: Vec<Ident>,
    pub(crate) priority: Option<syn::LitFloat>,
    pub(crate) last_modified: Option<LitStr>,
}

const RESOURCE_ANNOTATION_KEYS: &[&str] = &["audience", "priority", "last_modified"];

#[derive(Default)]
pub(crate) struct IconAttr {
    pub(crate) src: Option<LitStr>,
    pub(crate) mime_type: Option<LitStr>,
    pub(crate) sizes: Option<LitStr>,
    pub(crate) theme: Option<LitStr>,
}

/// One `#[errors(...)]`.
pub(crate) struct ErrorsAttr {
    /// The attribute's path (`errors`), for "missing key" errors.
    pub(crate) span: Span,
    pub(crate) reason: Option<LitStr>,
    pub(crate) code: Option<CodeValue>,
    pub(crate) when: Option<LitStr>,
    pub(crate) recovery: Option<LitStr>,
    pub(crate) retryable: Option<LitBool>,
    pub(crate) severity: Option<SeverityValue>,
    pub(crate) thrown_by_service: bool,
    /// Keys that were present but misspelt (`reson`) or had a value of the wrong kind: they
    /// are not reported as missing as well.
    pub(crate) attempted: Vec<&'static str>,
}

/// `code = NotFound` or `code = -32042`.
pub(crate) enum CodeValue {
    Named(Ident),
    Number(i32),
}

/// The named error codes with their numbers, in table order (kept in step with
/// `mcp_core::ErrorCode::NAMED`; a unit test compares them).
pub(crate) const CODES: &[(&str, i32)] = &[
    ("ParseError", -32700),
    ("InvalidRequest", -32600),
    ("MethodNotFound", -32601),
    ("InvalidParams", -32602),
    ("InternalError", -32603),
    ("ServiceUnavailable", -32000),
    ("NotFound", -32001),
    ("Conflict", -32002),
    ("RateLimited", -32003),
    ("Timeout", -32004),
    ("Forbidden", -32005),
    ("Unauthorized", -32006),
    ("ValidationError", -32007),
    ("ConfigurationError", -32008),
    ("InitializationFailed", -32009),
    ("DatabaseError", -32010),
    ("RequestCancelled", -32011),
    ("SerializationError", -32070),
    ("UnknownError", -32099),
];
/// `severity = warning` (or `"warning"`).
pub(crate) struct SeverityValue {
    pub(crate) name: String,
    pub(crate) span: Span,
}

/// Remembers which keys one attribute used, to report duplicates at the second use with a
/// note at the first.
struct Seen<'a> {
    attr: &'static str,
    keys: Vec<(String, Span)>,
    cx: &'a Ctxt,
}

impl<'a> Seen<'a> {
    fn new(cx: &'a Ctxt, attr: &'static str) -> Self {
        Seen { attr, keys: Vec::new(), cx }
    }

    /// `false` (and an error) when `key` was used before.
    fn first(&mut self, key: &str, span: Span) -> bool {
        if let Some((_, first)) = self.keys.iter().find(|(k, _)| k == key) {
            self.cx.error_at(span, format!("duplicate `{}` key `{key}`; remove one of them", self.attr));
            self.cx.error_at(*first, format!("note: `{key}` first used here"));
            return false;
        }
        self.keys.push((key.to_owned(), span));
        true
    }
}

fn key_of(meta: &ParseNestedMeta<'_>) -> (String, Span) {
    let path = &meta.path;
    let span = path.segments.first().map_or_else(Span::call_site, |s| s.ident.span());
    (quote::quote!(#path).to_string().replace(' ', ""), span)
}

/// Reports an unknown key; returns the key it is probably a misspelling of.
fn unknown_key(cx: &Ctxt, attr: &str, key: &str, span: Span, keys: &[&'static str]) -> Option<&'static str> {
    let list = keys.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
    let guess = did_you_mean(key, keys.iter().copied());
    let hint = guess.map(|g| format!("; did you mean `{g}`?")).unwrap_or_default();
    cx.error_at(span, format!("unknown `{attr}` key `{key}`; expected one of {list}{hint}"));
    guess
}

/// Skips a key's value (`= …` or `(…)`) so that parsing goes on after an error.
fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        let _: Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _group: proc_macro2::Group = meta.input.parse()?;
    }
    Ok(())
}

/// The expression after `key =`, without invisible groups. A missing `=` is reported (with
/// `example`, the key written correctly) and gives `None`.
fn value(cx: &Ctxt, meta: &ParseNestedMeta<'_>, key: &str, example: &str) -> syn::Result<Option<Expr>> {
    if !meta.input.peek(Token![=]) {
        cx.error_spanned_by(&meta.path, format!("`{key}` takes a value: `{example}`"));
        skip_value(meta)?;
        return Ok(None);
    }
    let mut expr: Expr = meta.value()?.parse()?;
    while let Expr::Group(g) = expr {
        expr = *g.expr;
    }
    Ok(Some(expr))
}

fn str_value(cx: &Ctxt, meta: &ParseNestedMeta<'_>, key: &str, example: &str) -> syn::Result<Option<LitStr>> {
    Ok(match value(cx, meta, key, example)? {
        Some(Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. })) => Some(s),
        Some(other) => {
            cx.error_spanned_by(other, format!("`{key}` takes a string literal: `{example}`"));
            None
        }
        None => None,
    })
}

fn bool_value(cx: &Ctxt, meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<Option<LitBool>> {
    Ok(match value(cx, meta, key, &format!("{key} = true"))? {
        Some(Expr::Lit(syn::ExprLit { lit: Lit::Bool(b), .. })) => Some(b),
        Some(other) => {
            cx.error_spanned_by(other, format!("`{key}` takes `true` or `false`, without quotes: `{key} = true`"));
            None
        }
        None => None,
    })
}

fn path_value(cx: &Ctxt, meta: &ParseNestedMeta<'_>, key: &str, example: &str) -> syn::Result<Option<Path>> {
    Ok(match value(cx, meta, key, example)? {
        Some(Expr::Path(p)) if p.qself.is_none() && p.attrs.is_empty() => Some(p.path),
        Some(Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. })) => {
            cx.error_spanned_by(&s, format!("`{key}` takes a path, not a string: `{key} = {}`", s.value()));
            None
        }
        Some(other) => {
            cx.error_spanned_by(other, format!("`{key}` takes a path: `{example}`"));
            None
        }
        None => None,
    })
}

/// `contract = Shared`, or `contract = (A, B)`: several shared contracts composed. Each is a
/// path; anything else is reported at its token and left out.
fn contracts_value(cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<Path>> {
    const EXAMPLE: &str = "contract = MyErrors";
    let one = |expr: Expr| match expr {
        Expr::Path(p) if p.qself.is_none() && p.attrs.is_empty() => Some(p.path),
        Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => {
            cx.error_spanned_by(&s, format!("`contract` takes a path, not a string: `contract = {}`", s.value()));
            None
        }
        other => {
            cx.error_spanned_by(
                other,
                format!("`contract` takes a path: `{EXAMPLE}`, or several: `contract = (A, B)`"),
            );
            None
        }
    };
    Ok(match value(cx, meta, "contract", EXAMPLE)? {
        Some(Expr::Tuple(t)) if t.elems.is_empty() => {
            cx.error_spanned_by(&t, "`contract = ()` names no contract: `contract = (A, B)`, or remove it");
            Vec::new()
        }
        Some(Expr::Tuple(t)) => t.elems.into_iter().filter_map(one).collect(),
        Some(Expr::Paren(p)) => one(*p.expr).into_iter().collect(),
        Some(other) => one(other).into_iter().collect(),
        None => Vec::new(),
    })
}

/// `key(...)`: a list. Anything else is reported and skipped; `false` then.
fn expect_list(cx: &Ctxt, meta: &ParseNestedMeta<'_>, key: &str, example: &str) -> syn::Result<bool> {
    if meta.input.peek(syn::token::Paren) {
        return Ok(true);
    }
    cx.error_spanned_by(&meta.path, format!("`{key}` takes a list in parentheses: `{example}`"));
    skip_value(meta)?;
    Ok(false)
}

pub(crate) fn parse_tool_attr(cx: &Ctxt, kind: Kind, tokens: proc_macro2::TokenStream) -> ToolAttr {
    let mut attr = ToolAttr { kind, ..ToolAttr::default() };
    let mut seen = Seen::new(cx, kind.name());
    let parser = syn::meta::parser(|meta| {
        let (key, span) = key_of(&meta);
        if !kind.keys().contains(&key.as_str()) {
            unknown_key(cx, kind.name(), &key, span, kind.keys());
            return skip_value(&meta);
        }
        if !seen.first(&key, span) {
            return skip_value(&meta);
        }
        match key.as_str() {
            "name" => attr.name = str_value(cx, &meta, "name", "name = \"search_docs\"")?,
            "title" => attr.title = str_value(cx, &meta, "title", "title = \"Search the docs\"")?,
            "description" => {
                attr.description = str_value(cx, &meta, "description", "description = \"What the tool does.\"")?;
            }
            // A flag, or `= true` / `= false`.
            "allow_unknown_args" => attr.allow_unknown_args = flag(cx, &meta, "allow_unknown_args")?.unwrap_or(false),
            "repair" => attr.repair = flag(cx, &meta, "repair")?,
            "needs_session" => attr.needs_session = flag(cx, &meta, "needs_session")?.unwrap_or(false),
            "asks" => attr.asks = flag(cx, &meta, "asks")?,
            "timeout_ms" => {
                attr.timeout_ms = match value(cx, &meta, "timeout_ms", "timeout_ms = 30000")? {
                    Some(Expr::Lit(syn::ExprLit { lit: Lit::Int(i), .. })) => Some(i),
                    Some(other) => {
                        cx.error_spanned_by(
                            other,
                            "`timeout_ms` takes a whole number of milliseconds: `timeout_ms = 30000`",
                        );
                        None
                    }
                    None => None,
                };
            }
            "task" => attr.task = str_value(cx, &meta, "task", "task = \"optional\"")?,
            "contract" => attr.contracts = contracts_value(cx, &meta)?,
            "scopes" => attr.scopes = parse_scopes(cx, &meta)?,
            "app_data" => attr.app_data = parse_app_data(cx, &meta)?,
            "uri" => attr.uri = str_value(cx, &meta, "uri", "uri = \"notes://index\"")?,
            "uri_template" => {
                attr.uri_template = str_value(cx, &meta, "uri_template", "uri_template = \"notes://{name}\"")?;
            }
            "mime_type" => attr.mime_type = str_value(cx, &meta, "mime_type", "mime_type = \"text/markdown\"")?,
            "size" => {
                attr.size = match value(cx, &meta, "size", "size = 1024")? {
                    Some(Expr::Lit(syn::ExprLit { lit: Lit::Int(i), .. })) => Some(i),
                    Some(other) => {
                        cx.error_spanned_by(other, "`size` takes a whole number of bytes: `size = 1024`");
                        None
                    }
                    None => None,
                };
            }
            "list" => attr.list = path_value(cx, &meta, "list", "list = list_notes")?,
            "complete" => {
                if expect_list(cx, &meta, "complete", "complete(name = note_names)")? {
                    parse_complete(cx, &meta, &mut attr.complete)?;
                }
            }
            "crate" => attr.krate = path_value(cx, &meta, "crate", "crate = my_runtime")?,
            "annotations" if kind == Kind::Resource => {
                if expect_list(cx, &meta, "annotations", "annotations(audience(user), priority = 0.5)")? {
                    attr.resource_annotations = Some(parse_resource_annotations(cx, &meta)?);
                }
            }
            "annotations" => {
                if expect_list(cx, &meta, "annotations", "annotations(read_only_hint = true)")? {
                    attr.annotations = Some(parse_annotations(cx, &meta)?);
                }
            }
            "icons" => {
                if expect_list(cx, &meta, "icons", "icons(icon(src = \"https://…\", mime_type = \"image/png\"))")? {
                    parse_icons(cx, &meta, &mut attr.icons)?;
                }
            }
            "ui" if kind == Kind::Resource => attr.view = Some(parse_view(cx, &meta)?),
            "ui" => attr.ui = str_value(cx, &meta, "ui", "ui = \"ui://chart/view.html\"")?,
            "visibility" => attr.visibility = parse_visibility(cx, &meta, span)?,
            "meta" => {
                if expect_list(cx, &meta, "meta", "meta(\"com.example/owner\" = \"docs\")")? {
                    let content;
                    syn::parenthesized!(content in meta.input);
                    attr.meta = parse_meta_pairs(cx, &content)?;
                }
            }
            _ => unreachable!("every key of the kind's keys is handled"),
        }
        Ok(())
    });
    if let Err(e) = syn::parse::Parser::parse2(parser, tokens) {
        cx.syn_error(e);
    }
    attr
}

/// `visibility(model, app)`: who may call the tool (checked in `validate`), with the key's span.
fn parse_visibility(cx: &Ctxt, meta: &ParseNestedMeta<'_>, span: Span) -> syn::Result<Option<(Span, Vec<Ident>)>> {
    if !expect_list(cx, meta, "visibility", "visibility(model, app)")? {
        return Ok(None);
    }
    let content;
    syn::parenthesized!(content in meta.input);
    let mut who = Vec::new();
    for item in content.parse_terminated(Expr::parse, Token![,])? {
        match item {
            Expr::Path(p) if p.path.get_ident().is_some() => who.extend(p.path.get_ident().cloned()),
            other => cx.error_spanned_by(other, "name `model`, `app` or both: `visibility(app)`"),
        }
    }
    Ok(Some((span, who)))
}

/// A resource's `ui` (bare) or `ui(csp(..), permissions(..), domain = "..", prefers_border = ..)`.
fn parse_view(cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<UiAttr> {
    let mut out = UiAttr { csp: Vec::new(), permissions: Vec::new(), domain: None, prefers_border: None };
    if !meta.input.peek(syn::token::Paren) {
        if meta.input.peek(Token![=]) {
            cx.error_spanned_by(
                &meta.path,
                "a resource's `ui` is bare, or a list: `ui`, or `ui(prefers_border = true)`",
            );
            skip_value(meta)?;
        }
        return Ok(out);
    }
    each_key(cx, meta, "ui", UI_KEYS, |key, inner| {
        match key {
            "csp" => {
                if expect_list(cx, inner, "csp", "csp(connect_domains(\"https://api.example.com\"))")? {
                    each_key(cx, inner, "csp", CSP_KEYS, |key, list| {
                        let example = format!("{key}(\"https://api.example.com\")");
                        if expect_list(cx, list, key, &example)? {
                            out.csp.push((key, string_list(cx, list, key, &example)?));
                        }
                        Ok(())
                    })?;
                }
            }
            "permissions" => {
                if expect_list(cx, inner, "permissions", "permissions(clipboard_write)")? {
                    inner.parse_nested_meta(|p| {
                        match p.path.get_ident() {
                            Some(ident) if PERMISSIONS.contains(&ident.to_string().as_str()) => {
                                out.permissions.push(ident.clone());
                            }
                            _ => {
                                let (key, span) = key_of(&p);
                                let list = PERMISSIONS.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
                                let guess = did_you_mean(&key, PERMISSIONS.iter().copied());
                                let hint = guess.map(|g| format!("; did you mean `{g}`?")).unwrap_or_default();
                                cx.error_at(span, format!("a view may ask for {list}, not `{key}`{hint}"));
                            }
                        }
                        Ok(())
                    })?;
                }
            }
            "domain" => out.domain = str_value(cx, inner, "domain", "domain = \"charts.example.com\"")?,
            "prefers_border" => out.prefers_border = bool_value(cx, inner, "prefers_border")?,
            _ => unreachable!("every ui key is handled"),
        }
        Ok(())
    })?;
    Ok(out)
}

/// `key("a", "b")`: string literals; anything else is reported at its token and left out.
fn string_list(cx: &Ctxt, meta: &ParseNestedMeta<'_>, key: &str, example: &str) -> syn::Result<Vec<LitStr>> {
    let content;
    syn::parenthesized!(content in meta.input);
    let items = content.parse_terminated(Expr::parse, Token![,])?;
    if items.is_empty() {
        cx.error_spanned_by(&meta.path, format!("`{key}(...)` is empty; name at least one: `{example}`, or remove it"));
    }
    let mut out = Vec::new();
    for item in items {
        match item {
            Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => out.push(s),
            other => cx.error_spanned_by(other, format!("`{key}` takes string literals: `{example}`")),
        }
    }
    Ok(out)
}

/// A flag key: bare (`true`), or `key = true` / `key = false`; `None` when the value is not
/// a `bool` (reported).
fn flag(cx: &Ctxt, meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<Option<bool>> {
    if meta.input.peek(Token![=]) { Ok(bool_value(cx, meta, key)?.map(|b| b.value)) } else { Ok(Some(true)) }
}

/// `app_data(Db, Config)`: the types the handler reads with `ctx.app_data::<T>()`.
fn parse_app_data(cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<syn::Type>> {
    if !expect_list(cx, meta, "app_data", "app_data(Db, Config)")? {
        return Ok(Vec::new());
    }
    let content;
    syn::parenthesized!(content in meta.input);
    let types = content.parse_terminated(syn::Type::parse, Token![,])?;
    if types.is_empty() {
        cx.error_spanned_by(
            &meta.path,
            "`app_data(...)` is empty; name the types the handler reads with `ctx.app_data::<T>()`: `app_data(Db)`, or remove it",
        );
    }
    Ok(types.into_iter().collect())
}

/// `scopes("notes:read", "notes:write")`: string literals. Anything else is reported at its
/// token and skipped.
fn parse_scopes(cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<LitStr>> {
    if !expect_list(cx, meta, "scopes", "scopes(\"notes:write\")")? {
        return Ok(Vec::new());
    }
    let content;
    syn::parenthesized!(content in meta.input);
    let items = content.parse_terminated(Expr::parse, Token![,])?;
    if items.is_empty() {
        cx.error_spanned_by(
            &meta.path,
            "`scopes(...)` is empty; name at least one scope: `scopes(\"notes:write\")`, or remove it",
        );
    }
    let mut scopes = Vec::new();
    for item in items {
        match item {
            Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => scopes.push(s),
            Expr::Path(p) if p.path.get_ident().is_some() => {
                let name = quote::ToTokens::to_token_stream(&p).to_string();
                cx.error_spanned_by(p, format!("`scopes` takes string literals: `scopes(\"{name}\")`"));
            }
            other => cx.error_spanned_by(other, "`scopes` takes string literals: `scopes(\"notes:write\")`"),
        }
    }
    Ok(scopes)
}

/// `complete(arg = fn, ..)`.
fn parse_complete(cx: &Ctxt, meta: &ParseNestedMeta<'_>, into: &mut Vec<(Ident, Path)>) -> syn::Result<()> {
    meta.parse_nested_meta(|inner| {
        let Some(arg) = inner.path.get_ident().cloned() else {
            cx.error_spanned_by(&inner.path, "name one parameter: `complete(name = note_names)`");
            return skip_value(&inner);
        };
        if let Some(path) = path_value(cx, &inner, &arg.to_string(), "complete(name = note_names)")? {
            into.push((arg, path));
        }
        Ok(())
    })
}

/// `name(key = .., ..)`: each of `keys` at most once, in any order, handed to `each` as
/// written in `keys`; an unknown or repeated key is reported and skipped. The keys seen.
fn each_key(
    cx: &Ctxt,
    meta: &ParseNestedMeta<'_>,
    name: &'static str,
    keys: &[&'static str],
    mut each: impl FnMut(&'static str, &ParseNestedMeta<'_>) -> syn::Result<()>,
) -> syn::Result<Vec<&'static str>> {
    let mut seen = Seen::new(cx, name);
    let mut known = Vec::new();
    meta.parse_nested_meta(|inner| {
        let (key, span) = key_of(&inner);
        let Some(k) = keys.iter().copied().find(|k| *k == key) else {
            unknown_key(cx, name, &key, span, keys);
            return skip_value(&inner);
        };
        if !seen.first(&key, span) {
            return skip_value(&inner);
        }
        known.push(k);
        each(k, &inner)
    })?;
    Ok(known)
}

fn parse_annotations(cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<Annotations> {
    let mut out = Annotations::default();
    each_key(cx, meta, "annotations", ANNOTATION_KEYS, |key, inner| {
        match key {
            "title" => out.title = str_value(cx, inner, "title", "title = \"Search the docs\"")?,
            "read_only_hint" => out.read_only_hint = bool_value(cx, inner, "read_only_hint")?,
            "destructive_hint" => out.destructive_hint = bool_value(cx, inner, "destructive_hint")?,
            "idempotent_hint" => out.idempotent_hint = bool_value(cx, inner, "idempotent_hint")?,
            "open_world_hint" => out.open_world_hint = bool_value(cx, inner, "open_world_hint")?,
            _ => unreachable!("every annotation key is handled"),
        }
        Ok(())
    })?;
    Ok(out)
}

fn parse_resource_annotations(cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<ResourceAnnotations> {
    let mut out = ResourceAnnotations::default();
    each_key(cx, meta, "annotations", RESOURCE_ANNOTATION_KEYS, |key, inner| {
        match key {
            "audience" => {
                if expect_list(cx, inner, "audience", "audience(user, assistant)")? {
                    inner.parse_nested_meta(|who| {
                        match who.path.get_ident() {
                            Some(ident) if ident == "user" || ident == "assistant" => out.audience.push(ident.clone()),
                            _ => cx.error_spanned_by(&who.path, "the audience is `user`, `assistant` or both"),
                        }
                        Ok(())
                    })?;
                }
            }
            "priority" => match value(cx, inner, "priority", "priority = 0.5")? {
                Some(Expr::Lit(syn::ExprLit { lit: Lit::Float(f), .. }))
                    if f.base10_parse::<f64>().is_ok_and(|p| (0.0..=1.0).contains(&p)) =>
                {
                    out.priority = Some(f);
                }
                Some(other) => cx.error_spanned_by(other, "`priority` is a number from 0.0 to 1.0: `priority = 0.5`"),
                None => {}
            },
            "last_modified" => {
                out.last_modified = str_value(cx, inner, "last_modified", "last_modified = \"2025-01-12T15:00:58Z\"")?;
            }
            _ => unreachable!("every resource annotation key is handled"),
        }
        Ok(())
    })?;
    Ok(out)
}

fn parse_icons(cx: &Ctxt, meta: &ParseNestedMeta<'_>, icons: &mut Vec<IconAttr>) -> syn::Result<()> {
    meta.parse_nested_meta(|icon| {
        if !icon.path.is_ident("icon") || !icon.input.peek(syn::token::Paren) {
            let (k, s) = key_of(&icon);
            cx.error_at(s, format!("expected `icon(src = \"…\", mime_type = \"…\")` inside `icons(...)`, found `{k}`"));
            return skip_value(&icon);
        }
        icons.push(parse_icon(cx, &icon)?);
        Ok(())
    })
}

fn parse_icon(cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<IconAttr> {
    let mut out = IconAttr::default();
    let seen = each_key(cx, meta, "icon", ICON_KEYS, |key, inner| {
        match key {
            "src" => out.src = str_value(cx, inner, "src", "src = \"https://example.com/icon.png\"")?,
            "mime_type" => out.mime_type = str_value(cx, inner, "mime_type", "mime_type = \"image/png\"")?,
            "sizes" => out.sizes = str_value(cx, inner, "sizes", "sizes = \"48x48 96x96\"")?,
            "theme" => out.theme = str_value(cx, inner, "theme", "theme = \"light\"")?,
            _ => unreachable!("every icon key is handled"),
        }
        Ok(())
    })?;
    if out.src.is_none() && !seen.contains(&"src") {
        cx.error_spanned_by(&meta.path, "`icon(...)` needs `src = \"…\"` (an https: or data: URI)");
    }
    Ok(out)
}

/// `meta("com.example/owner" = "docs", retries = 3)`: keys are strings or identifiers,
/// values are literals. A malformed pair is reported and the rest of the list skipped.
fn parse_meta_pairs(cx: &Ctxt, input: ParseStream<'_>) -> syn::Result<Vec<(LitStr, Lit)>> {
    let mut out = Vec::new();
    let result = (|| -> syn::Result<()> {
        while !input.is_empty() {
            let key = if input.peek(LitStr) {
                input.parse::<LitStr>()?
            } else {
                let ident: Ident = input.parse()?;
                LitStr::new(&ident.to_string(), ident.span())
            };
            input.parse::<Token![=]>()?;
            let value: Expr = input.parse()?;
            match value {
                Expr::Lit(syn::ExprLit {
                    lit: lit @ (Lit::Str(_) | Lit::Int(_) | Lit::Float(_) | Lit::Bool(_)),
                    ..
                }) => {
                    out.push((key, lit));
                }
                other => cx.error_spanned_by(
                    other,
                    format!("`meta` values are string, number or boolean literals: `{} = \"…\"`", key.value()),
                ),
            }
            if input.is_empty() {
                break;
            }
            input.parse::<Token![,]>()?;
        }
        Ok(())
    })();
    if let Err(e) = result {
        cx.syn_error(e);
        let _rest: proc_macro2::TokenStream = input.parse()?;
    }
    Ok(out)
}

pub(crate) fn parse_errors_attr(cx: &Ctxt, attr: &syn::Attribute) -> ErrorsAttr {
    let mut out = ErrorsAttr {
        span: attr.path().span(),
        reason: None,
        code: None,
        when: None,
        recovery: None,
        retryable: None,
        severity: None,
        thrown_by_service: false,
        attempted: Vec::new(),
    };
    let mut seen = Seen::new(cx, "errors");
    let result = attr.parse_nested_meta(|meta| {
        let (key, span) = key_of(&meta);
        let Some(&known) = ERRORS_KEYS.iter().find(|k| **k == key) else {
            out.attempted.extend(unknown_key(cx, "errors", &key, span, ERRORS_KEYS));
            return skip_value(&meta);
        };
        out.attempted.push(known);
        if !seen.first(&key, span) {
            return skip_value(&meta);
        }
        match known {
            "reason" => out.reason = str_value(cx, &meta, "reason", "reason = \"no_match\"")?,
            "when" => out.when = str_value(cx, &meta, "when", "when = \"None of the requested ids exist.\"")?,
            "recovery" => {
                out.recovery = str_value(cx, &meta, "recovery", "recovery = \"Call search_items to find valid ids.\"")?;
            }
            "retryable" => out.retryable = bool_value(cx, &meta, "retryable")?,
            "code" => out.code = value(cx, &meta, "code", "code = NotFound")?.and_then(|e| code(cx, e)),
            "severity" => {
                out.severity = match value(cx, &meta, "severity", "severity = warning")? {
                    Some(Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. })) => {
                        Some(SeverityValue { name: s.value(), span: s.span() })
                    }
                    Some(Expr::Path(p)) if p.path.get_ident().is_some() => {
                        let i = p.path.get_ident().unwrap_or_else(|| unreachable!());
                        Some(SeverityValue { name: i.to_string(), span: i.span() })
                    }
                    Some(other) => {
                        cx.error_spanned_by(
                            other,
                            "`severity` takes one of `debug`, `info`, `notice`, `warning`: `severity = warning`",
                        );
                        None
                    }
                    None => None,
                };
            }
            "thrown_by" => match value(cx, &meta, "thrown_by", "thrown_by = service")? {
                Some(Expr::Path(p)) if p.path.is_ident("service") => out.thrown_by_service = true,
                Some(other) => {
                    let found = quote::ToTokens::to_token_stream(&other).to_string();
                    cx.error_spanned_by(
                        other,
                        format!("`thrown_by` takes `service`, found `{found}`; write `thrown_by = service`"),
                    );
                }
                None => {}
            },
            _ => unreachable!("every key of ERRORS_KEYS is handled"),
        }
        Ok(())
    });
    if let Err(e) = result {
        cx.syn_error(e);
    }
    out
}

/// `NotFound`, `-32042` or `32042`. Anything else is reported and gives `None`.
fn code(cx: &Ctxt, expr: Expr) -> Option<CodeValue> {
    let int = |e: &Expr| match e {
        Expr::Lit(syn::ExprLit { lit: Lit::Int(i), .. }) => Some(i.base10_parse::<i128>()),
        _ => None,
    };
    let number = match &expr {
        Expr::Unary(syn::ExprUnary { op: syn::UnOp::Neg(_), expr: inner, .. }) => int(inner).map(|n| n.map(|n| -n)),
        other => int(other),
    };
    match (number, &expr) {
        (Some(Ok(n)), _) => {
            if let Ok(n) = i32::try_from(n) {
                return Some(CodeValue::Number(n));
            }
            cx.error_spanned_by(expr, "`code` must fit in an i32 (-2147483648 to 2147483647)");
        }
        (Some(Err(e)), _) => cx.error_spanned_by(expr, format!("`code` must be an integer: {e}")),
        (None, Expr::Path(p)) if p.qself.is_none() && p.path.get_ident().is_some() => {
            return p.path.get_ident().cloned().map(CodeValue::Named);
        }
        (None, Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. })) if syn::parse_str::<Ident>(&s.value()).is_ok() => {
            cx.error_spanned_by(s, format!("`code` takes the code's name without quotes: `code = {}`", s.value()));
        }
        (None, _) => {
            cx.error_spanned_by(expr, "`code` takes a code name such as `NotFound`, or an integer such as `-32042`");
        }
    }
    None
}

/// `#[contract(crate = path)]`: the path, when given (a mistake is reported).
pub(crate) fn parse_contract_attr(cx: &Ctxt, tokens: proc_macro2::TokenStream) -> Option<Path> {
    struct CrateArg(Path);
    impl syn::parse::Parse for CrateArg {
        fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
            input.parse::<Token![crate]>()?;
            input.parse::<Token![=]>()?;
            Ok(CrateArg(input.parse()?))
        }
    }
    if tokens.is_empty() {
        return None;
    }
    match syn::parse2::<CrateArg>(tokens) {
        Ok(CrateArg(path)) => Some(path),
        Err(e) => {
            cx.syn_error(e);
            None
        }
    }
}
