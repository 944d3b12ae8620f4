//! The grammar of `#[tool(...)]` and `#[errors(...)]`, as typed structs that keep every
//! literal and span so that later stages can point at the user's token.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::parse::ParseStream;
use syn::{Expr, Ident, Lit, LitBool, LitInt, LitStr, Path, Token};

use crate::ctxt::Ctxt;
use crate::text::suggestion;

/// Keys of `#[tool(...)]`.
pub(crate) const TOOL_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "annotations",
    "icons",
    "meta",
    "allow_unknown_args",
    "timeout_ms",
    "contract",
    "crate",
];
const ANNOTATION_KEYS: &[&str] = &["title", "read_only_hint", "destructive_hint", "idempotent_hint", "open_world_hint"];
const ICON_KEYS: &[&str] = &["src", "mime_type", "sizes", "theme"];
/// Keys of `#[errors(...)]`.
pub(crate) const ERRORS_KEYS: &[&str] = &["reason", "code", "when", "recovery", "retryable", "severity", "thrown_by"];

/// `#[tool(...)]`.
#[derive(Default)]
pub(crate) struct ToolAttr {
    pub(crate) name: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) annotations: Option<Annotations>,
    pub(crate) icons: Vec<IconAttr>,
    pub(crate) meta: Vec<(LitStr, Lit)>,
    pub(crate) allow_unknown_args: bool,
    pub(crate) timeout_ms: Option<LitInt>,
    pub(crate) contract: Option<Path>,
    pub(crate) krate: Option<Path>,
}

#[derive(Default)]
pub(crate) struct Annotations {
    pub(crate) title: Option<LitStr>,
    pub(crate) read_only_hint: Option<LitBool>,
    pub(crate) destructive_hint: Option<LitBool>,
    pub(crate) idempotent_hint: Option<LitBool>,
    pub(crate) open_world_hint: Option<LitBool>,
}

#[derive(Default)]
pub(crate) struct IconAttr {
    pub(crate) src: Option<LitStr>,
    pub(crate) mime_type: Option<LitStr>,
    pub(crate) sizes: Option<LitStr>,
    pub(crate) theme: Option<LitStr>,
}

/// One `#[errors(...)]`.
pub(crate) struct ErrorsAttr {
    /// The attribute itself, for "missing key" errors.
    pub(crate) span: Span,
    pub(crate) reason: Option<LitStr>,
    pub(crate) code: Option<CodeValue>,
    pub(crate) when: Option<LitStr>,
    pub(crate) recovery: Option<LitStr>,
    pub(crate) retryable: Option<LitBool>,
    pub(crate) severity: Option<SeverityValue>,
    pub(crate) thrown_by_service: bool,
}

/// `code = NotFound` or `code = -32042`.
pub(crate) enum CodeValue {
    Named(Ident),
    Number(i32),
}

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

fn unknown_key(cx: &Ctxt, attr: &str, key: &str, span: Span, keys: &[&str]) {
    let list = keys.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
    cx.error_at(
        span,
        format!("unknown `{attr}` key `{key}`; expected one of {list}{}", suggestion(key, keys.iter().copied())),
    );
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

pub(crate) fn parse_tool_attr(cx: &Ctxt, tokens: proc_macro2::TokenStream) -> ToolAttr {
    let mut attr = ToolAttr::default();
    let mut seen = Seen::new(cx, "tool");
    let parser = syn::meta::parser(|meta| {
        let (key, span) = key_of(&meta);
        if !TOOL_KEYS.contains(&key.as_str()) {
            unknown_key(cx, "tool", &key, span, TOOL_KEYS);
            return skip_value(&meta);
        }
        if !seen.first(&key, span) {
            return skip_value(&meta);
        }
        match key.as_str() {
            "name" => attr.name = Some(meta.value()?.parse()?),
            "title" => attr.title = Some(meta.value()?.parse()?),
            "description" => attr.description = Some(meta.value()?.parse()?),
            "allow_unknown_args" => attr.allow_unknown_args = true,
            "timeout_ms" => attr.timeout_ms = Some(meta.value()?.parse()?),
            "contract" => attr.contract = Some(meta.value()?.parse()?),
            "crate" => attr.krate = Some(meta.value()?.parse()?),
            "annotations" => attr.annotations = Some(parse_annotations(cx, &meta)?),
            "icons" => {
                meta.parse_nested_meta(|icon| {
                    if !icon.path.is_ident("icon") {
                        let (k, s) = key_of(&icon);
                        cx.error_at(
                            s,
                            format!("expected `icon(src = \"…\", mime_type = \"…\")` inside `icons(...)`, found `{k}`"),
                        );
                        return skip_value(&icon);
                    }
                    attr.icons.push(parse_icon(cx, &icon)?);
                    Ok(())
                })?;
            }
            "meta" => {
                let content;
                syn::parenthesized!(content in meta.input);
                attr.meta = parse_meta_pairs(&content)?;
            }
            _ => unreachable!("every key of TOOL_KEYS is handled"),
        }
        Ok(())
    });
    if let Err(e) = syn::parse::Parser::parse2(parser, tokens) {
        cx.syn_error(e);
    }
    attr
}

fn parse_annotations(cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<Annotations> {
    let mut out = Annotations::default();
    let mut seen = Seen::new(cx, "annotations");
    meta.parse_nested_meta(|inner| {
        let (key, span) = key_of(&inner);
        if !ANNOTATION_KEYS.contains(&key.as_str()) {
            unknown_key(cx, "annotations", &key, span, ANNOTATION_KEYS);
            return skip_value(&inner);
        }
        if !seen.first(&key, span) {
            return skip_value(&inner);
        }
        match key.as_str() {
            "title" => out.title = Some(inner.value()?.parse()?),
            "read_only_hint" => out.read_only_hint = Some(inner.value()?.parse()?),
            "destructive_hint" => out.destructive_hint = Some(inner.value()?.parse()?),
            "idempotent_hint" => out.idempotent_hint = Some(inner.value()?.parse()?),
            "open_world_hint" => out.open_world_hint = Some(inner.value()?.parse()?),
            _ => unreachable!("every annotation key is handled"),
        }
        Ok(())
    })?;
    Ok(out)
}

fn parse_icon(cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<IconAttr> {
    let mut out = IconAttr::default();
    let mut seen = Seen::new(cx, "icon");
    meta.parse_nested_meta(|inner| {
        let (key, span) = key_of(&inner);
        if !ICON_KEYS.contains(&key.as_str()) {
            unknown_key(cx, "icon", &key, span, ICON_KEYS);
            return skip_value(&inner);
        }
        if !seen.first(&key, span) {
            return skip_value(&inner);
        }
        let value: LitStr = inner.value()?.parse()?;
        match key.as_str() {
            "src" => out.src = Some(value),
            "mime_type" => out.mime_type = Some(value),
            "sizes" => out.sizes = Some(value),
            "theme" => out.theme = Some(value),
            _ => unreachable!("every icon key is handled"),
        }
        Ok(())
    })?;
    if out.src.is_none() {
        cx.error_spanned_by(&meta.path, "`icon(...)` needs `src = \"…\"` (an https: or data: URI)");
    }
    Ok(out)
}

/// `meta("com.example/owner" = "docs", retries = 3)`: keys are strings or identifiers,
/// values are literals.
fn parse_meta_pairs(input: ParseStream<'_>) -> syn::Result<Vec<(LitStr, Lit)>> {
    let mut out = Vec::new();
    while !input.is_empty() {
        let key = if input.peek(LitStr) {
            input.parse::<LitStr>()?
        } else {
            let ident: Ident = input.parse()?;
            LitStr::new(&ident.to_string(), ident.span())
        };
        input.parse::<Token![=]>()?;
        let value: Lit = input.parse()?;
        if !matches!(value, Lit::Str(_) | Lit::Int(_) | Lit::Float(_) | Lit::Bool(_)) {
            return Err(syn::Error::new_spanned(value, "`meta` values are strings, numbers or booleans"));
        }
        out.push((key, value));
        if input.is_empty() {
            break;
        }
        input.parse::<Token![,]>()?;
    }
    Ok(out)
}

pub(crate) fn parse_errors_attr(cx: &Ctxt, attr: &syn::Attribute) -> ErrorsAttr {
    use syn::spanned::Spanned;
    let mut out = ErrorsAttr {
        span: attr.span(),
        reason: None,
        code: None,
        when: None,
        recovery: None,
        retryable: None,
        severity: None,
        thrown_by_service: false,
    };
    let mut seen = Seen::new(cx, "errors");
    let result = attr.parse_nested_meta(|meta| {
        let (key, span) = key_of(&meta);
        if !ERRORS_KEYS.contains(&key.as_str()) {
            unknown_key(cx, "errors", &key, span, ERRORS_KEYS);
            return skip_value(&meta);
        }
        if !seen.first(&key, span) {
            return skip_value(&meta);
        }
        match key.as_str() {
            "reason" => out.reason = Some(meta.value()?.parse()?),
            "when" => out.when = Some(meta.value()?.parse()?),
            "recovery" => out.recovery = Some(meta.value()?.parse()?),
            "retryable" => out.retryable = Some(meta.value()?.parse()?),
            "code" => out.code = Some(parse_code(meta.value()?)?),
            "severity" => {
                let value = meta.value()?;
                out.severity = Some(if value.peek(LitStr) {
                    let s: LitStr = value.parse()?;
                    SeverityValue { name: s.value(), span: s.span() }
                } else {
                    let i: Ident = value.parse()?;
                    SeverityValue { name: i.to_string(), span: i.span() }
                });
            }
            "thrown_by" => {
                let who: Ident = meta.value()?.parse()?;
                if who == "service" {
                    out.thrown_by_service = true;
                } else {
                    cx.error_at(
                        who.span(),
                        format!("`thrown_by` takes `service`, found `{who}`; write `thrown_by = service`"),
                    );
                }
            }
            _ => unreachable!("every key of ERRORS_KEYS is handled"),
        }
        Ok(())
    });
    if let Err(e) = result {
        cx.syn_error(e);
    }
    out
}

fn parse_code(input: ParseStream<'_>) -> syn::Result<CodeValue> {
    let expr: Expr = input.parse()?;
    let number = |e: &Expr| -> Option<i64> {
        match e {
            Expr::Lit(syn::ExprLit { lit: Lit::Int(i), .. }) => i.base10_parse::<i64>().ok(),
            Expr::Unary(syn::ExprUnary { op: syn::UnOp::Neg(_), expr, .. }) => match &**expr {
                Expr::Lit(syn::ExprLit { lit: Lit::Int(i), .. }) => i.base10_parse::<i64>().ok().map(|n| -n),
                _ => None,
            },
            _ => None,
        }
    };
    if let Some(n) = number(&expr) {
        let n = i32::try_from(n).map_err(|_| syn::Error::new_spanned(&expr, "`code` must fit in an i32"))?;
        return Ok(CodeValue::Number(n));
    }
    match &expr {
        Expr::Path(p) if p.path.get_ident().is_some() => {
            Ok(CodeValue::Named(p.path.get_ident().cloned().unwrap_or_else(|| unreachable!())))
        }
        _ => Err(syn::Error::new_spanned(
            expr,
            "expected a code name such as `NotFound`, or an integer such as `-32042`",
        )),
    }
}
