//! The model of an annotated item: for a fn, what each parameter is, what it returns, which
//! attributes go where; for a `#[contract]` enum, its variants and their reasons. Holds
//! references to the original syntax so that errors point at it.
//!
//! Every name the later stages use is computed here, once: the name on the wire, the reason
//! enum's, each parameter's (raw identifiers lose their `r#` here, with syn's
//! [`IdentExt::unraw`], and nowhere else), and the runtime's path.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Attribute, FnArg, Ident, ItemFn, LitStr, Pat, Type};

use crate::attr::{self, ErrorsAttr, Kind, ToolAttr};
use crate::ctxt::Ctxt;
use crate::text::{pascal_case, snake_case};

pub(crate) struct Tool<'a> {
    pub(crate) original: &'a ItemFn,
    pub(crate) attr: ToolAttr,
    /// The runtime's path in the generated code: `crate = path` when given, else
    /// [`runtime_path`].
    pub(crate) krate: TokenStream,
    /// The name on the wire: `name = ".."`, else the fn's name.
    pub(crate) name: String,
    /// The reason enum `#[errors]` (or `contract = (A, B)`) makes: `fn fetch_items` →
    /// `FetchItemsError`, at the fn name's span.
    pub(crate) reason_enum: Ident,
    pub(crate) errors: Vec<ErrorsAttr>,
    /// `Reason::Variant` paths in the body that name the reason enum with a variant no
    /// `#[errors]` declares, each with its `snake_case` reason (empty without `#[errors]`).
    pub(crate) undeclared: Vec<(Ident, String)>,
    /// Attributes of the fn other than `#[errors]`, kept on the handler (docs included).
    pub(crate) kept_attrs: Vec<&'a Attribute>,
    /// The description the doc attributes give, if any.
    pub(crate) docs: Option<crate::text::Doc>,
    pub(crate) params: Vec<Param<'a>>,
    pub(crate) ret: Ret,
    /// A fn that is not `async` uses `.await` (outside `async` blocks): it needs `async`. The
    /// fallback expansion adds it, so that rustc's E0728 does not follow the macro's error.
    pub(crate) awaits_without_async: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum ParamKind {
    /// A by-value parameter: one property of the input object.
    Arg,
    /// `#[input]`: the whole input object.
    Input,
    /// A by-reference parameter (`&Ctx<R>`): injected by the runtime.
    Context,
}

pub(crate) struct Param<'a> {
    pub(crate) original: &'a syn::PatType,
    pub(crate) kind: ParamKind,
    /// The binding (`ids`), when the pattern is a plain identifier.
    pub(crate) ident: Option<Ident>,
    /// The binding's name without `r#` (`r#type` → `type`): the property, variable or
    /// argument it is.
    pub(crate) name: Option<String>,
    /// The argument type, or for a context parameter the referenced type (`Ctx<R>`).
    pub(crate) ty: Type,
    /// `///`, `#[serde]` and `#[schemars]`: they describe the property, so they move to the
    /// generated field.
    pub(crate) field_attrs: Vec<&'a Attribute>,
    /// Every other attribute stays on the handler's parameter.
    pub(crate) kept_attrs: Vec<&'a Attribute>,
    /// The `#[cfg(..)]` among them: they also go on what the expansion generates for the
    /// parameter (its field, its schema, its argument in the handler's call).
    pub(crate) cfgs: Vec<&'a Attribute>,
    /// The `#[input]` marker, for spans.
    pub(crate) input_marker: Option<&'a Attribute>,
}

/// What the fn returns: `T`, or `Result<T, E>` (a path whose last segment is `Result`,
/// which includes aliases such as `anyhow::Result<T>`).
pub(crate) struct Ret {
    /// The return type as written (`()` when the fn returns nothing).
    pub(crate) ty: Type,
    /// The success type (`()` when the fn returns nothing).
    pub(crate) ok: Type,
    pub(crate) is_result: bool,
    /// The return type (its first token: spans are single tokens on stable).
    pub(crate) span: Span,
    /// The error type of a `Result<T, E>`, else the return type.
    pub(crate) err_span: Span,
}

pub(crate) fn from_syn<'a>(cx: &Ctxt, kind: Kind, args: proc_macro2::TokenStream, item: &'a ItemFn) -> Tool<'a> {
    let attr = attr::parse_tool_attr(cx, kind, args);
    let mut errors = Vec::new();
    let mut kept_attrs = Vec::new();
    for a in &item.attrs {
        if attr::is_attr(a, "errors") {
            errors.push(attr::parse_errors_attr(cx, a));
        } else if attr::is_attr(a, kind.name()) {
            let name = kind.name();
            cx.error_spanned_by(a, format!("`#[{name}]` is applied twice; keep one and merge their keys"));
        } else {
            kept_attrs.push(a);
        }
    }
    let params = item.sig.inputs.iter().filter_map(|arg| param(cx, arg)).collect();
    let ident = &item.sig.ident;
    let reason_enum = format_ident!("{}Error", pascal_case(&ident.unraw().to_string()), span = ident.span());
    let undeclared = undeclared_reasons(&errors, &reason_enum, &item.block);
    Tool {
        original: item,
        krate: attr.krate.as_ref().map_or_else(runtime_path, |p| quote!(#p)),
        name: attr.name.as_ref().map_or_else(|| ident.unraw().to_string(), LitStr::value),
        reason_enum,
        attr,
        errors,
        undeclared,
        kept_attrs,
        docs: crate::text::doc_text(&item.attrs),
        params,
        ret: ret(&item.sig.output),
        awaits_without_async: item.sig.asyncness.is_none() && first_await(&item.block).is_some(),
    }
}

impl Tool<'_> {
    /// Whether the item has a reason enum of its own ([`Tool::reason_enum`]): with
    /// `#[errors]`, or composing several shared contracts (`contract = (A, B)`), whose reasons
    /// it then takes. One shared contract and no `#[errors]`: that contract is the item's.
    pub(crate) fn has_reason_enum(&self) -> bool {
        !self.errors.is_empty() || self.attr.contracts.len() > 1
    }
}

/// The span of the first `.await` in `block` that is not inside an `async` block, closure or
/// fn (where `.await` is allowed without the tool fn being `async`).
fn first_await(block: &syn::Block) -> Option<Span> {
    fn scan(tokens: proc_macro2::TokenStream) -> Option<Span> {
        use proc_macro2::{Delimiter, TokenTree};
        let mut after_dot = false;
        let mut in_async = false;
        for tt in tokens {
            match &tt {
                // `async { .. }`, `async move { .. }`, `async fn f() { .. }`, `async || { .. }`:
                // everything up to and including the next `{ .. }` is skipped.
                TokenTree::Group(g) if in_async && g.delimiter() == Delimiter::Brace => in_async = false,
                _ if in_async => {}
                TokenTree::Ident(i) if i == "await" && after_dot => return Some(i.span()),
                TokenTree::Ident(i) if i == "async" => in_async = true,
                TokenTree::Group(g) => {
                    if let Some(span) = scan(g.stream()) {
                        return Some(span);
                    }
                }
                _ => {}
            }
            after_dot = matches!(&tt, TokenTree::Punct(p) if p.as_char() == '.');
        }
        None
    }
    let stmts = &block.stmts;
    scan(quote::quote!(#(#stmts)*))
}

fn param<'a>(cx: &Ctxt, arg: &'a FnArg) -> Option<Param<'a>> {
    let pat_type = match arg {
        FnArg::Receiver(r) => {
            cx.error_spanned_by(
                r,
                "`#[tool]` goes on a free fn, not a method; share state with `Server::builder(..).app_data(value)` and read it with `ctx.app_data::<T>()`",
            );
            return None;
        }
        FnArg::Typed(t) => t,
    };
    let mut field_attrs = Vec::new();
    let mut kept_attrs = Vec::new();
    let mut input_marker = None;
    for a in &pat_type.attrs {
        if a.path().is_ident("input") {
            if !matches!(a.meta, syn::Meta::Path(_)) {
                cx.error_spanned_by(a, "`#[input]` takes no arguments");
            }
            input_marker = Some(a);
        } else if a.path().is_ident("doc") || a.path().is_ident("serde") || a.path().is_ident("schemars") {
            field_attrs.push(a);
        } else {
            kept_attrs.push(a);
        }
    }
    let ident = match &*pat_type.pat {
        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => Some(p.ident.clone()),
        _ => None,
    };
    let (kind, ty) = match &*pat_type.ty {
        Type::Reference(r) => {
            if let Some(m) = input_marker {
                cx.error_spanned_by(m, "`#[input]` marks a by-value parameter; take the input struct by value");
            }
            if r.mutability.is_some() {
                cx.error_spanned_by(r, "the context parameter is shared: take it as `&Ctx<..>`, not `&mut`");
            }
            (ParamKind::Context, (*r.elem).clone())
        }
        ty => {
            let kind = if input_marker.is_some() { ParamKind::Input } else { ParamKind::Arg };
            if kind == ParamKind::Arg && ident.is_none() {
                cx.error_spanned_by(
                    &pat_type.pat,
                    "a `#[tool]` argument is named after its binding: use a plain identifier here, or mark a struct parameter `#[input]` to destructure it",
                );
            }
            (kind, ty.clone())
        }
    };
    let cfgs = kept_attrs.iter().copied().filter(|a| a.path().is_ident("cfg")).collect();
    let name = ident.as_ref().map(|i| i.unraw().to_string());
    Some(Param { original: pat_type, kind, ident, name, ty, field_attrs, kept_attrs, cfgs, input_marker })
}

fn ret(output: &syn::ReturnType) -> Ret {
    let syn::ReturnType::Type(_, ty) = output else {
        let span = output.span();
        let unit: Type = syn::parse_quote!(());
        return Ret { ty: unit.clone(), ok: unit, is_result: false, span, err_span: span };
    };
    if let Type::Path(p) = &**ty
        && p.qself.is_none()
        && let Some(last) = p.path.segments.last()
        && last.ident == "Result"
        && let syn::PathArguments::AngleBracketed(args) = &last.arguments
        && let Some(syn::GenericArgument::Type(ok)) = args.args.first()
    {
        // `Result<T, E>`, or an alias with the error fixed (`io::Result<T>`).
        let err_span = match args.args.iter().nth(1) {
            Some(syn::GenericArgument::Type(err)) => err.span(),
            _ => ty.span(),
        };
        return Ret { ty: (**ty).clone(), ok: ok.clone(), is_result: true, span: ty.span(), err_span };
    }
    Ret { ty: (**ty).clone(), ok: (**ty).clone(), is_result: false, span: ty.span(), err_span: ty.span() }
}

/// The runtime under the name the crate being compiled gives it in its Cargo.toml
/// (`mcp = { package = "mcp-runtime" }` → `::mcp`), read by `proc-macro-crate`; `::mcp_runtime`
/// when that cannot be read, and in the runtime's own doctests and examples (where the
/// manifest is the runtime's, and `::mcp_runtime` is the runtime).
pub(crate) fn runtime_path() -> TokenStream {
    if let Ok(proc_macro_crate::FoundCrate::Name(name)) = proc_macro_crate::crate_name("mcp-runtime")
        && let Ok(ident) = syn::parse_str::<Ident>(&name)
    {
        return quote!(::#ident);
    }
    quote!(::mcp_runtime)
}

/// `Reason::Variant` paths in the handler's body that name the tool's reason enum with a
/// variant it does not declare (an `UpperCamelCase` name: associated items such as `as_str` or
/// `ENTRIES` are left alone), each with its `snake_case` reason. Empty for a tool without
/// `#[errors]`, whose reason enum does not exist.
fn undeclared_reasons(errors: &[ErrorsAttr], reason_enum: &Ident, block: &syn::Block) -> Vec<(Ident, String)> {
    use proc_macro2::TokenTree;
    fn scan(tokens: TokenStream, enum_name: &str, declared: &[String], out: &mut Vec<Ident>) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        for (i, tt) in tokens.iter().enumerate() {
            match tt {
                TokenTree::Group(g) => scan(g.stream(), enum_name, declared, out),
                TokenTree::Ident(e) if *e == enum_name => {
                    if let [TokenTree::Punct(c1), TokenTree::Punct(c2), TokenTree::Ident(v), ..] = &tokens[i + 1..]
                        && c1.as_char() == ':'
                        && c2.as_char() == ':'
                        && v.to_string().starts_with(|c: char| c.is_ascii_uppercase())
                        && v.to_string().chars().any(|c| c.is_ascii_lowercase())
                        && !declared.contains(&v.to_string())
                        && !out.iter().any(|o| o == v)
                    {
                        out.push(v.clone());
                    }
                }
                _ => {}
            }
        }
    }
    if errors.is_empty() {
        return Vec::new();
    }
    let declared: Vec<String> =
        errors.iter().filter_map(|e| e.reason.as_ref()).map(|r| pascal_case(&r.value())).collect();
    let mut out = Vec::new();
    let stmts = &block.stmts;
    scan(quote!(#(#stmts)*), &reason_enum.to_string(), &declared, &mut out);
    out.into_iter().map(|v| (v.clone(), snake_case(&v.to_string()))).collect()
}

/// A `#[contract]` enum: a set of failure modes shared by several tools.
pub(crate) struct Contract<'a> {
    pub(crate) original: &'a syn::ItemEnum,
    /// The runtime's path: `#[contract(crate = path)]`, else [`runtime_path`].
    pub(crate) krate: TokenStream,
    pub(crate) variants: Vec<Variant<'a>>,
}

/// One variant of a `#[contract]` enum: one failure mode.
pub(crate) struct Variant<'a> {
    pub(crate) original: &'a syn::Variant,
    /// Its `#[errors(...)]` attributes (one, when valid). The first one's `reason` is filled
    /// in from the variant's name (`NoSuchNote` → `no_such_note`) when not written out.
    pub(crate) errors: Vec<ErrorsAttr>,
}

impl Variant<'_> {
    /// The variant's one `#[errors]`, when it has exactly one.
    pub(crate) fn entry(&self) -> Option<&ErrorsAttr> {
        match self.errors.as_slice() {
            [one] => Some(one),
            _ => None,
        }
    }
}

pub(crate) fn contract_from_syn<'a>(cx: &Ctxt, args: TokenStream, item: &'a syn::ItemEnum) -> Contract<'a> {
    let krate = attr::parse_contract_attr(cx, args).map_or_else(runtime_path, |p| quote!(#p));
    let variants = item
        .variants
        .iter()
        .map(|variant| {
            let mut errors: Vec<ErrorsAttr> = variant
                .attrs
                .iter()
                .filter(|a| attr::is_attr(a, "errors"))
                .map(|a| attr::parse_errors_attr(cx, a))
                .collect();
            if let [e] = errors.as_mut_slice() {
                e.reason.get_or_insert_with(|| {
                    LitStr::new(&snake_case(&variant.ident.unraw().to_string()), variant.ident.span())
                });
            }
            Variant { original: variant, errors }
        })
        .collect();
    Contract { original: item, krate, variants }
}
