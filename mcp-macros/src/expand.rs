//! Code generation. Sees only validated input and cannot fail.
//!
//! For `fn fetch_items` it emits, in this order:
//! 1. `fn fetch_items() -> fetch_items`, the value `Server::builder(..).tool(fetch_items)`
//!    takes, with the fn's docs. It is a fn item, not a unit struct or a `const`: a unit
//!    struct, a tuple struct or a `const` in the value namespace turns every `let fetch_items
//!    = ..` and every parameter `fetch_items` of the module into a pattern that matches it,
//!    where a fn is shadowed by them like any other fn. The builder takes `fn() -> T` and reads
//!    `T`'s impl.
//! 2. `struct fetch_items {}` with `impl fetch_items { fn handler(..) }`: the type, in the type
//!    namespace only (a struct with braces is no value), so `fetch_items::handler(..)` calls the
//!    fn as written, in unit tests;
//! 3. with `#[errors]`: the reason enum `FetchItemsError` and its static contract table;
//! 4. `const _: () = { .. }`: the `ToolDef` impl that tells the runtime the tool's name,
//!    schemas and how to call it. Plain parameters are a table in it (`PARAMS`: name, doc,
//!    type, default), read by generic runtime code; only when one has an attribute the table
//!    cannot express (any `#[schemars]`, a `#[serde]` key other than `default` / `rename`)
//!    does the block also hold an arguments struct deriving `Deserialize` + `JsonSchema`.
//!
//! Every name the expansion binds or defines besides those two is `__mcp_`-prefixed (`__mcp` for
//! the runtime's `__private` module, `__McpArgs` for the arguments struct), so that no tool,
//! parameter or item of the user's is taken for one of them.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::{Ident, LitStr};

use crate::ast::{ParamKind, Tool};
use crate::attr::{CodeValue, ErrorsAttr, Kind};
use crate::text::pascal_case;
use crate::validate::tool_name;

/// The runtime's path: `crate = path` when given, else [`runtime_path`].
pub(crate) fn krate(tool: &Tool<'_>) -> TokenStream {
    tool.attr.krate.as_ref().map_or_else(runtime_path, |p| quote!(#p))
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

/// `fetch_items` → `FetchItemsError`.
pub(crate) fn reason_enum_ident(tool: &Tool<'_>) -> Ident {
    let fn_name = tool.original.sig.ident.to_string();
    let fn_name = fn_name.strip_prefix("r#").unwrap_or(&fn_name);
    format_ident!("{}Error", pascal_case(fn_name), span = tool.original.sig.ident.span())
}

/// Everything `#[tool]` emits for a valid item.
pub(crate) fn expand(tool: &Tool<'_>) -> TokenStream {
    let context_check = context_check(tool);
    let public = public_items(tool, true);
    let private = match tool.attr.kind {
        Kind::Tool => private_items(tool),
        Kind::Resource | Kind::Prompt => crate::family::items(tool),
    };
    let unraised = unused_reason_warnings(tool);
    quote! {
        #context_check
        #public
        #private
        #unraised
    }
}

/// With `#[errors]`, the context must be `Ctx<ReasonEnum>`: checked at the context's type,
/// and emitted before the handler, so that this error comes before the one `ctx.fail(..)`
/// then raises in the body.
fn context_check(tool: &Tool<'_>) -> TokenStream {
    let Some(ctx) = tool.params.iter().find(|p| p.kind == ParamKind::Context) else { return TokenStream::new() };
    if tool.errors.is_empty() {
        return TokenStream::new();
    }
    let krate = krate(tool);
    let ty = &ctx.ty;
    let reasons = reason_enum_ident(tool);
    let check = quote_spanned!(syn::spanned::Spanned::span(ty)=> #krate::__private::context_of::<#ty, #reasons>());
    quote!(const _: () = #check;)
}

/// The items a caller names: the tool value, its handler and its reason enum. Also emitted
/// when the item has errors, so that one mistake does not cascade into unresolved names.
pub(crate) fn public_items(tool: &Tool<'_>, valid: bool) -> TokenStream {
    let item = tool.original;
    let vis = &item.vis;
    let name = &item.sig.ident;
    let docs = tool.kept_attrs.iter().filter(|a| a.path().is_ident("doc"));
    let other_attrs = tool.kept_attrs.iter().filter(|a| !a.path().is_ident("doc"));
    let mut sig = item.sig.clone();
    sig.ident = Ident::new("handler", name.span());
    if !valid && tool.awaits_without_async {
        // Already reported at the fn: as `async`, the body adds no second error.
        sig.asyncness = Some(syn::Token![async](sig.fn_token.span));
    }
    for (input, param) in sig.inputs.iter_mut().zip(tool.params.iter().map(Some).chain(std::iter::repeat(None))) {
        if let (syn::FnArg::Typed(t), Some(p)) = (input, param) {
            t.attrs = p.kept_attrs.iter().map(|a| (*a).clone()).collect();
        }
    }
    let block = &item.block;
    let kind = tool.attr.kind.name();
    let def = match tool.attr.kind {
        Kind::Tool => "ToolDef",
        Kind::Resource => "ResourceDef",
        Kind::Prompt => "PromptDef",
    };
    let handler_doc = format!(
        " The handler of {kind} `{}`, as written. Call it directly in unit tests; the server calls it through the {kind}'s `{def}` impl.",
        tool_name(tool),
    );
    // The user's doc is for the value: what rustdoc shows under the fn's name. Without one
    // (`description = ".."`), a generated line, so that `#![deny(missing_docs)]` holds.
    let mut docs: Vec<TokenStream> = docs.map(ToTokens::to_token_stream).collect();
    if docs.is_empty() {
        let doc = format!(" The {kind} `{}`: register it with `Server::builder(..).{kind}({name})`.", tool_name(tool));
        docs.push(quote!(#[doc = #doc]));
    }
    // The handler's doc is generated, so it has no `# Errors` or `# Panics` section to write,
    // and its shape is the tool's, not a choice: arguments are owned (deserialized), and the
    // value goes to the runtime. Clippy's lints on those are allowed on it.
    let type_doc = format!(" The type of {kind} `{}`: it holds the handler and implements `{def}`.", tool_name(tool));
    let reasons = reason_enum(tool, valid);
    quote! {
        #(#docs)*
        #[allow(clippy::must_use_candidate)]
        #vis const fn #name() -> #name {
            #name {}
        }

        #[doc = #type_doc]
        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        #vis struct #name {}

        impl #name {
            #[doc = #handler_doc]
            #[allow(
                clippy::missing_errors_doc,
                clippy::missing_panics_doc,
                clippy::must_use_candidate,
                clippy::needless_pass_by_value
            )]
            #(#other_attrs)*
            #vis #sig #block
        }

        #reasons
    }
}

/// The reason enum's variants: one per declared reason, in declaration order. Reasons that
/// failed validation are left out, so that the fallback expansion adds no second error.
fn reason_variants<'t>(tool: &'t Tool<'_>) -> Vec<(&'t ErrorsAttr, &'t LitStr, Ident)> {
    let mut out: Vec<(&ErrorsAttr, &LitStr, Ident)> = Vec::new();
    for e in &tool.errors {
        let Some(reason) = e.reason.as_ref() else { continue };
        let Ok(variant) = syn::parse_str::<Ident>(&pascal_case(&reason.value())) else { continue };
        if out.iter().all(|(_, _, v)| *v != variant) {
            out.push((e, reason, Ident::new(&variant.to_string(), reason.span())));
        }
    }
    out
}

/// With `#[errors]`: the reason enum, `as_str`, and its `Contract` impl (the static
/// table). `with_table` is false in the fallback expansion, where entries may be invalid.
fn reason_enum(tool: &Tool<'_>, with_table: bool) -> TokenStream {
    if tool.errors.is_empty() {
        return TokenStream::new();
    }
    let krate = krate(tool);
    let vis = &tool.original.vis;
    let enum_ident = reason_enum_ident(tool);
    let entries = reason_variants(tool);
    let enum_doc = format!(
        " The failure reasons of {} `{}`, declared with `#[errors(...)]`. Pass one to `ctx.fail`.",
        tool.attr.kind.name(),
        tool_name(tool)
    );
    let mut variants: Vec<TokenStream> = entries
        .iter()
        .map(|(e, reason, variant)| {
            let doc = format!(" `{}`: {}", reason.value(), e.when.as_ref().map(LitStr::value).unwrap_or_default());
            quote!(#[doc = #doc] #variant)
        })
        .collect();
    if !with_table {
        variants.extend(crate::validate::undeclared_reasons(tool).into_iter().map(|(v, _)| quote!(#[doc(hidden)] #v)));
    }
    let impls = if with_table {
        let vis = quote!(#vis);
        let shared = tool.attr.contract.as_ref().map(|path| Shared { path, tool: tool_name(tool) });
        contract_impls(
            &krate,
            &vis,
            &enum_ident,
            entries.iter().map(|(e, reason, variant)| (variant, *reason, *e)),
            shared.as_ref(),
        )
    } else {
        // Reasons the handler names but does not declare (already reported) get a variant, so
        // that the body adds no second error.
        let undeclared = crate::validate::undeclared_reasons(tool);
        let as_str_arms = entries
            .iter()
            .map(|(_, reason, variant)| quote!(Self::#variant => #reason))
            .chain(undeclared.iter().map(|(variant, reason)| quote!(Self::#variant => #reason)));
        quote! {
            impl #enum_ident {
                /// The reason string sent in `data.reason`.
                #vis const fn as_str(self) -> &'static str {
                    match self {
                        #(#as_str_arms,)*
                    }
                }
            }

            impl #krate::Contract for #enum_ident {
                const ENTRIES: &'static [#krate::ContractEntry] = &[];

                fn entry(self) -> &'static #krate::ContractEntry {
                    ::core::unreachable!("this tool did not compile")
                }
            }
        }
    };
    quote! {
        #[doc = #enum_doc]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        // A reason raised only by a service (`thrown_by = service`) is never constructed here.
        #[allow(dead_code)]
        #vis enum #enum_ident {
            #(#variants,)*
        }

        #impls
    }
}

/// The shared contract a tool adds its own reasons to (`#[tool(contract = Shared)]` with
/// `#[errors]`), and the tool's name, for the duplicate check's message.
pub(crate) struct Shared<'a> {
    pub(crate) path: &'a syn::Path,
    pub(crate) tool: String,
}

/// `as_str` and the `Contract` impl with its static table, for a reason enum whose variants
/// are declared in table order (a tool's generated enum, or a `#[contract]` enum).
///
/// With `shared`, the table is the enum's own entries then the shared contract's (a constant
/// made by a `const fn`: still a static table), the shared contract's reasons are reasons of
/// this enum's tool (`ReasonOf`), and each own reason the shared contract declares too is a
/// compile error at the reason.
pub(crate) fn contract_impls<'e>(
    krate: &TokenStream,
    vis: &TokenStream,
    ident: &Ident,
    entries: impl Iterator<Item = (&'e Ident, &'e LitStr, &'e ErrorsAttr)> + Clone,
    shared: Option<&Shared<'_>>,
) -> TokenStream {
    let arms = entries.clone().map(|(variant, reason, _)| quote!(Self::#variant => #reason));
    let table = entries.clone().map(|(_, reason, e)| entry_tokens(krate, reason, e));
    let (table, composed) = match shared {
        None => (quote!(&[#(#table,)*]), TokenStream::new()),
        Some(Shared { path, tool }) => {
            let own = entries.clone().count();
            let theirs = quote!(<#path as #krate::Contract>::ENTRIES);
            let shown = quote!(#path).to_string().replace(' ', "");
            let duplicates = entries.map(|(_, reason, _)| {
                let value = reason.value();
                let message = format!(
                    "reason `{value}` of tool `{tool}` is declared twice: by its `#[errors(...)]` and by the shared contract `{shown}`; remove the `#[errors]` entry (the contract's applies), or give it a reason of its own"
                );
                // Spanned at the tool's reason: the error is reported there.
                quote_spanned! {reason.span()=>
                    const _: () = if #krate::__private::declares(#theirs, #reason) {
                        ::core::panic!(#message)
                    };
                }
            });
            let table = quote! {
                &#krate::__private::concat_entries::<{ #own + #theirs.len() }>(&[#(#table,)*], #theirs)
            };
            let composed = quote! {
                /// The shared contract's reasons are this tool's too: `ctx.fail` takes them.
                impl #krate::ReasonOf<#ident> for #path {}

                #(#duplicates)*
            };
            (table, composed)
        }
    };
    quote! {
        impl #ident {
            /// The reason string sent in `data.reason`.
            #vis const fn as_str(self) -> &'static str {
                match self {
                    #(#arms,)*
                }
            }
        }

        impl #krate::Contract for #ident {
            const ENTRIES: &'static [#krate::ContractEntry] = #table;

            fn entry(self) -> &'static #krate::ContractEntry {
                // Variants are declared in table order, before any shared contract's entries.
                &Self::ENTRIES[self as usize]
            }
        }

        #composed
    }
}

/// How the generated `run` reads the handler's parameters.
struct Inputs {
    /// The arguments struct, when the fn has plain arguments.
    args_struct: TokenStream,
    /// The `ToolInfo::input` value, unless the tool takes no input.
    input_spec: Option<TokenStream>,
    /// The statements of `run` that read the arguments (and check their types).
    read: TokenStream,
    /// `const PARAMS`, when the plain parameters are read by their table.
    params_const: TokenStream,
    /// The handler's arguments, in the fn's parameter order.
    call_args: Vec<TokenStream>,
    /// The context parameter's type (`Ctx<R>` for `&Ctx<R>`), if there is one.
    ctx: Option<TokenStream>,
}

fn inputs(tool: &Tool<'_>, krate: &TokenStream) -> Inputs {
    let mut ctx: Option<&syn::Type> = None;
    let mut input: Option<(&syn::Type, Span)> = None;
    let mut call_args = Vec::new();
    let mut fields = Vec::new();
    let mut bindings = Vec::new();
    // The plain parameters as table rows; `None` once one needs the derived struct.
    let mut rows = Some(Vec::new());
    // Argument types checked for `Deserialize` one by one, at their own spans, with their
    // `#[cfg]`s.
    let mut checked: Vec<(&syn::Type, Span, &[&syn::Attribute])> = Vec::new();
    for param in &tool.params {
        let ty_span = syn::spanned::Spanned::span(&param.ty);
        match param.kind {
            ParamKind::Context => {
                // The referenced type: `Ctx<R>` for `&Ctx<R>`.
                ctx = Some(&param.ty);
                call_args.push(quote!(__mcp_ctx));
            }
            ParamKind::Input => {
                input = Some((&param.ty, ty_span));
                // Spanned at the input's type: a type without `Deserialize` is an error there.
                let ty = &param.ty;
                call_args.push(quote_spanned!(ty_span=> __mcp_args.parse::<#ty>()?));
            }
            ParamKind::Arg => {
                let ident = param.ident.clone().unwrap_or_else(|| Ident::new("__mcp_unnamed", Span::call_site()));
                let ty = &param.ty;
                let attrs = &param.field_attrs;
                // `#[cfg(..)]` goes on each thing made of the parameter, so that when it is off
                // the parameter is in neither the schema nor the call.
                let cfgs = &param.cfgs;
                if !serde_reads_it_otherwise(&param.field_attrs) {
                    checked.push((ty, ty_span, cfgs));
                }
                fields.push(quote!(#(#cfgs)* #(#attrs)* #ident: #ty));
                // A table row is read by its index, which a `#[cfg]` before it would shift:
                // such parameters are read by the derived struct, whose fields take `#[cfg]`.
                rows = rows.filter(|_| cfgs.is_empty()).and_then(|mut rows: Vec<Row<'_>>| {
                    rows.push(row(param, &ident)?);
                    Some(rows)
                });
                bindings.push(quote!(#(#cfgs)* #ident));
                call_args.push(quote!(#(#cfgs)* #ident));
            }
        }
    }

    // The schema functions are paths, not closures: a closure spanned at user tokens would
    // draw clippy lints in the user's crate.
    let mut params_const = TokenStream::new();
    let (args_struct, input_spec, read) = if let Some((ty, _)) = input {
        // Read in the handler's call (see `ParamKind::Input` above).
        (TokenStream::new(), Some(quote!(__mcp::InputSpec::Whole(__mcp::root_schema::<#ty>))), TokenStream::new())
    } else if fields.is_empty() {
        (TokenStream::new(), None, TokenStream::new())
    } else if let Some(rows) = rows {
        let table = table(&rows);
        params_const = table.params_const;
        (table.defaults, Some(quote!(__mcp::InputSpec::Params(__mcp::params_schema::<Self>))), table.read)
    } else {
        let serde_crate = format!("{}::__private::serde", krate.to_string().replace(' ', ""));
        let schemars_crate = format!("{}::schemars", krate.to_string().replace(' ', ""));
        let deny = (!tool.attr.allow_unknown_args).then(|| quote!(#[serde(deny_unknown_fields)]));
        // The `Deserialize` impl is bounded on each checked argument type, so that a type
        // without `Deserialize` fails only its own check (at its type), not serde's generated
        // code three times over.
        let bound = checked
            .iter()
            // A `#[cfg]`'d type may not exist when it is off: its check stands alone.
            .filter(|(_, _, cfgs)| cfgs.is_empty())
            .map(|(ty, _, _)| format!("{}: {serde_crate}::Deserialize<'de>", quote!(#ty)))
            .collect::<Vec<_>>()
            .join(", ");
        // No doc comment: it would only become a schema `description` that the runtime drops.
        let args_struct = quote! {
            // schemars' derive writes `Some(..)`, `.into()`, `.to_string()`, ..: here they
            // resolve in a module with `#![no_implicit_prelude]` too.
            #[allow(unused_imports)]
            use __mcp::derive_prelude::*;

            #[derive(__mcp::serde::Deserialize, #krate::schemars::JsonSchema)]
            #[serde(crate = #serde_crate)]
            #[serde(bound(deserialize = #bound))]
            #deny
            #[schemars(crate = #schemars_crate)]
            struct __McpArgs {
                #(#fields,)*
            }
        };
        // Each argument type is checked at its span; the arguments struct then goes through
        // a probe that adds no second error when one of them failed.
        let checks = checked.iter().map(|(ty, span, cfgs)| {
            let check = quote_spanned!(*span=> (&&__mcp::ArgOf::<#ty>::new()).check(););
            quote!(#(#cfgs)* #check)
        });
        let read = quote! {
            #(#checks)*
            let __McpArgs { #(#bindings),* } = (&&__mcp::ArgsOf::<__McpArgs>::new()).parse(__mcp_args)?;
        };
        (args_struct, Some(quote!(__mcp::InputSpec::Params(__mcp::root_schema::<__McpArgs>))), read)
    };
    Inputs { args_struct, input_spec, read, params_const, call_args, ctx: ctx.map(|ty| quote!(#ty)) }
}

/// A plain parameter the table can describe: its attributes are doc comments and at most
/// `#[serde(default)]`, `#[serde(default = "path")]` and `#[serde(rename = "name")]`.
struct Row<'a> {
    param: &'a crate::ast::Param<'a>,
    ident: Ident,
    /// The property's name.
    name: String,
    /// The doc comment as schemars reads it: one string, or `concat!(..)` of the lines.
    doc: Option<TokenStream>,
    /// `#[serde(default)]`: the `default` key's span, and the path of `default = "path"`.
    default: Option<(Span, Option<syn::ExprPath>)>,
}

/// The parameter as a table row, or `None` when it has an attribute only the derived
/// arguments struct understands (any other serde key, any `#[schemars]`).
fn row<'a>(param: &'a crate::ast::Param<'a>, ident: &Ident) -> Option<Row<'a>> {
    let mut name = ident.unraw().to_string();
    let mut default = None;
    let mut lines: Vec<syn::Expr> = Vec::new();
    for attr in &param.field_attrs {
        if attr.path().is_ident("doc") {
            // As schemars' derive reads doc comments: name-value ones only.
            if let syn::Meta::NameValue(nv) = &attr.meta {
                lines.push(nv.value.clone());
            }
            continue;
        }
        if !attr.path().is_ident("serde") {
            return None;
        }
        let mut understood = true;
        let parsed = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("default") {
                let path = if meta.input.peek(syn::Token![=]) {
                    let lit: LitStr = meta.value()?.parse()?;
                    Some(lit.parse::<syn::ExprPath>()?)
                } else {
                    None
                };
                default = Some((syn::spanned::Spanned::span(&meta.path), path));
            } else if meta.path.is_ident("rename") && meta.input.peek(syn::Token![=]) {
                name = meta.value()?.parse::<LitStr>()?.value();
            } else {
                understood = false;
                if meta.input.peek(syn::Token![=]) {
                    let _: syn::Expr = meta.value()?.parse()?;
                } else if meta.input.peek(syn::token::Paren) {
                    let _: proc_macro2::Group = meta.input.parse()?;
                }
            }
            Ok(())
        });
        if parsed.is_err() || !understood {
            return None;
        }
    }
    let doc = doc(&lines);
    Some(Row { param, ident: ident.clone(), name, doc, default })
}

/// Doc lines joined as schemars' derive joins them: one leading space dropped, `\n` between.
fn doc(lines: &[syn::Expr]) -> Option<TokenStream> {
    if lines.is_empty() {
        return None;
    }
    let literal = |e: &syn::Expr| match e {
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value()),
        _ => None,
    };
    let strip = |s: String| s.strip_prefix(' ').map(str::to_owned).unwrap_or(s);
    if let Some(texts) = lines.iter().map(literal).collect::<Option<Vec<_>>>() {
        let text = texts.into_iter().map(strip).collect::<Vec<_>>().join("\n");
        return Some(quote!(#text));
    }
    let parts = lines.iter().map(|e| match literal(e) {
        Some(text) => strip(text).into_token_stream(),
        None => e.to_token_stream(),
    });
    Some(quote!(::core::concat!(#(#parts),*)))
}

/// What the table of plain parameters generates.
struct Table {
    /// `const PARAMS: &'static [Param] = &[..];`, in the `ToolDef` impl.
    params_const: TokenStream,
    /// One `fn __mcp_default_<i>` per `#[serde(default)]` parameter: its default as JSON.
    defaults: TokenStream,
    /// The statements of `run` that read the parameters.
    read: TokenStream,
}

fn table(rows: &[Row<'_>]) -> Table {
    let mut entries = Vec::new();
    let mut defaults = TokenStream::new();
    let mut reads = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let ty = &row.param.ty;
        let ty_span = syn::spanned::Spanned::span(ty);
        let name = &row.name;
        let ident = &row.ident;
        let doc = option(row.doc.as_ref());
        // At the type: a type without `JsonSchema` is an error there.
        let param_type = quote_spanned!(ty_span=> __mcp::ParamType::of::<#ty>());
        let default = match &row.default {
            None => {
                reads.push(
                    quote_spanned!(ty_span=> let #ident = (&&__mcp::ArgOf::<#ty>::new()).read(&mut __mcp_params, #i);),
                );
                quote!(::core::option::Option::None)
            }
            Some((span, path)) => {
                // At `default`: a type without `Default` is an error there.
                let f = path.as_ref().map_or_else(
                    || quote_spanned!(*span=> <#ty as ::core::default::Default>::default),
                    ToTokens::to_token_stream,
                );
                let read = quote_spanned!(ty_span=> (&&__mcp::ArgOf::<#ty>::new()).read_or);
                reads.push(quote!(let #ident = #read(&mut __mcp_params, #i, #f);));
                let default_fn = format_ident!("__mcp_default_{}", i);
                defaults.extend(quote! {
                    // The schema's `default` of `#ident`.
                    fn #default_fn() -> ::core::option::Option<__mcp::Value> {
                        (&&__mcp::DefaultOf::<#ty>::new()).json(#f)
                    }
                });
                quote!(::core::option::Option::Some(#default_fn))
            }
        };
        entries.push(quote! {
            __mcp::Param { name: #name, doc: #doc, ty: #param_type, default: #default }
        });
    }
    let idents = rows.iter().map(|r| &r.ident);
    let somes = rows.iter().map(|r| {
        let ident = &r.ident;
        quote!(::core::option::Option::Some(#ident))
    });
    let read = quote! {
        let mut __mcp_params = __mcp_args.params::<Self>();
        #(#reads)*
        let (#(#somes,)*) = (#(#idents,)*) else {
            return __mcp::Err(__mcp_params.failure());
        };
    };
    let params_const = quote! {
        const PARAMS: &'static [__mcp::Param] = &[#(#entries),*];
    };
    Table { params_const, defaults, read }
}

/// Whether serde reads a field without its type's `Deserialize` (`with`, `deserialize_with`,
/// `skip`, `skip_deserializing`): such a field's type is not checked.
fn serde_reads_it_otherwise(attrs: &[&syn::Attribute]) -> bool {
    const KEYS: &[&str] = &["with", "deserialize_with", "skip", "skip_deserializing"];
    attrs.iter().filter(|a| a.path().is_ident("serde")).any(|a| {
        let mut found = false;
        let _ = a.parse_nested_meta(|meta| {
            found |= KEYS.iter().any(|k| meta.path.is_ident(k));
            if meta.input.peek(syn::Token![=]) {
                let _: syn::Expr = meta.value()?.parse()?;
            } else if meta.input.peek(syn::token::Paren) {
                let _: proc_macro2::Group = meta.input.parse()?;
            }
            Ok(())
        });
        found
    })
}

fn private_items(tool: &Tool<'_>) -> TokenStream {
    let krate = krate(tool);
    let name = &tool.original.sig.ident;
    let Inputs { args_struct, input_spec, read, params_const, call_args, ctx } = inputs(tool, &krate);
    let args_param = if input_spec.is_none() { quote!(_) } else { quote!(__mcp_args) };
    let info = info(tool, &krate, input_spec);

    // The context: the handler's, or a bare `Ctx` the handler does not see.
    let (ctx_ty, ctx_param) = match &ctx {
        Some(ty) => (ty.clone(), quote!(__mcp_ctx)),
        None => (quote!(#krate::Ctx), quote!(_)),
    };
    // With both `contract = X` and a context: they must agree, checked at the path.
    let contract_check = match (&tool.attr.contract, &ctx) {
        (Some(path), Some(ty)) if tool.errors.is_empty() => {
            let check = quote_spanned!(syn::spanned::Spanned::span(path)=> (&&__mcp::ContractOf::<#ty>::new()).check::<#path>());
            quote!(#check;)
        }
        _ => TokenStream::new(),
    };
    let handler = quote!(#name::handler(#(#call_args),*));
    let ok = &tool.ret.ok;
    let ret_span = tool.ret.span;
    let unwrap = tool.ret.is_result.then(|| {
        // A type without a conversion gets one error there, saying how to convert it.
        let convert = quote_spanned!(tool.ret.err_span=> (&&__mcp::ErrorOf::of(&__mcp_error)).convert(__mcp_error));
        quote! {
            let __mcp_out = match __mcp_out {
                ::core::result::Result::Ok(__mcp_value) => __mcp_value,
                ::core::result::Result::Err(__mcp_error) => return ::core::result::Result::Err(#convert),
            };
        }
    });
    // The return type picks plain content or structured output (see the runtime's `output`
    // module); a type that is neither is an error at the return type.
    let convert = quote_spanned!(ret_span=> (&&__mcp::Kind::<#ok>::new()).finish(__mcp_out));
    let output_schema = quote_spanned!(ret_span=> (&&__mcp::Kind::<#ok>::new()).output_schema(__mcp_gen));
    // An `async` fn's future is the call's, and its value is converted when it is done. A fn
    // without `async` runs here, in the call's first poll, and its value is converted at once:
    // the future holds the output, not the handler's value (which need not be `Send`).
    let (ret, started, finish) = if tool.original.sig.asyncness.is_some() {
        let ret = &tool.ret.ty;
        (quote!(#ret), quote!(__mcp::Ok(#handler)), quote!(#unwrap #convert))
    } else {
        let started = quote! {
            let __mcp_out = #handler;
            #unwrap
            ::core::result::Result::Ok(::core::future::ready(#convert))
        };
        (quote!(__mcp::Finished), started, quote!(__mcp_out))
    };
    quote! {
        const _: () = {
            // The probes: each resolves to a working method, or to an error at the user's type.
            use #krate::__private::{self as __mcp, probes::*};

            #args_struct

            impl __mcp::ToolDef for #name {
                const INFO: __mcp::ToolInfo = #info;
                #params_const
                type Ctx = #ctx_ty;
                type Ret = #ret;

                fn run(#ctx_param: &Self::Ctx, #args_param: __mcp::Args) -> __mcp::Started<impl __mcp::Running<Self::Ret>> {
                    #contract_check
                    #read
                    #started
                }

                fn finish(__mcp_out: Self::Ret) -> __mcp::Finished {
                    #finish
                }

                fn output_schema(__mcp_gen: &mut __mcp::SchemaGenerator) -> __mcp::OutputSchema {
                    #output_schema
                }
            }
        };
    }
}

/// The tool's `ToolInfo`: the fields that differ from `ToolInfo::new`'s.
fn info(tool: &Tool<'_>, krate: &TokenStream, input: Option<TokenStream>) -> TokenStream {
    let attr = &tool.attr;
    let wire_name = tool_name(tool);
    let description = description(tool);
    let mut fields = Vec::new();
    if let Some(title) = &attr.title {
        fields.push(quote!(title: ::core::option::Option::Some(#title)));
    }
    if let Some(a) = &attr.annotations {
        let hints = [
            ("title", a.title.as_ref().map(ToTokens::to_token_stream)),
            ("read_only_hint", a.read_only_hint.as_ref().map(ToTokens::to_token_stream)),
            ("destructive_hint", a.destructive_hint.as_ref().map(ToTokens::to_token_stream)),
            ("idempotent_hint", a.idempotent_hint.as_ref().map(ToTokens::to_token_stream)),
            ("open_world_hint", a.open_world_hint.as_ref().map(ToTokens::to_token_stream)),
        ];
        let set = hints.into_iter().filter_map(|(key, value)| {
            let key = Ident::new(key, Span::call_site());
            value.map(|v| quote!(#key: ::core::option::Option::Some(#v)))
        });
        fields.push(quote!(annotations: ::core::option::Option::Some(__mcp::Hints { #(#set,)* ..__mcp::Hints::NONE })));
    }
    if !attr.icons.is_empty() {
        let icons = attr.icons.iter().map(|i| {
            let src = &i.src;
            let mime = option(i.mime_type.as_ref());
            let sizes = option(i.sizes.as_ref().map(|s| {
                let sizes = s.value();
                let sizes = sizes.split_whitespace();
                quote!(&[#(#sizes),*])
            }));
            let theme = option(i.theme.as_ref());
            quote!(__mcp::IconInfo { src: #src, mime_type: #mime, sizes: #sizes, theme: #theme })
        });
        fields.push(quote!(icons: &[#(#icons),*]));
    }
    if !attr.meta.is_empty() {
        let value = quote!(__mcp::Value);
        let meta = attr.meta.iter().map(|(k, v)| quote!((#k, <#value as ::core::convert::From<_>>::from(#v))));
        fields.push(quote!(meta: || ::std::vec![#(#meta),*]));
    }
    if let Some(timeout) = &attr.timeout_ms {
        fields.push(quote!(timeout_ms: ::core::option::Option::Some(#timeout)));
    }
    if let Some(task) = &attr.task {
        let support = Ident::new(if task.value() == "required" { "Required" } else { "Optional" }, task.span());
        fields.push(quote!(task: ::core::option::Option::Some(__mcp::TaskSupport::#support)));
    }
    if !attr.scopes.is_empty() {
        let scopes = scopes(tool);
        fields.push(quote!(scopes: #scopes));
    }
    if let Some(input) = input {
        fields.push(quote!(input: #input));
    }
    if attr.allow_unknown_args {
        fields.push(quote!(allow_unknown_args: true));
    }
    if attr.needs_session {
        fields.push(quote!(needs_session: true));
    }
    if attr.asks.unwrap_or_else(|| asks_in_body(tool)) {
        fields.push(quote!(asks: true));
    }
    if !attr.app_data.is_empty() {
        // Each at its type: a type that cannot be app data is an error there.
        let needs = attr
            .app_data
            .iter()
            .map(|ty| quote_spanned!(syn::spanned::Spanned::span(ty)=> __mcp::app_data_of::<#ty> as __mcp::AppDataOf));
        fields.push(quote!(app_data: &[#(#needs),*]));
    }
    if tool.original.sig.asyncness.is_none() {
        // A fn without `async` may block: the runtime may run it on a blocking thread.
        fields.push(quote!(blocking: true));
    }
    // Without `#[errors]` or `contract = X`, the runtime takes the context's contract.
    let contract = if tool.errors.is_empty() {
        attr.contract.as_ref().map(|path| quote!(<#path as #krate::Contract>::ENTRIES))
    } else {
        let e = reason_enum_ident(tool);
        Some(quote!(<#e as #krate::Contract>::ENTRIES))
    };
    if let Some(contract) = contract {
        fields.push(quote!(contract: ::core::option::Option::Some(#contract)));
    }
    let new = quote!(__mcp::ToolInfo::new(#wire_name, #description, ::core::module_path!()));
    if fields.is_empty() { new } else { quote!(__mcp::ToolInfo { #(#fields,)* ..#new }) }
}

/// Whether the handler's body asks the client: a method call `.ask(..)` or `.consent(..)`
/// (what `Ctx` ends a call asking with). An ask made elsewhere (a helper fn) is declared with
/// `#[tool(asks)]`; `#[tool(asks = false)]` overrides a call of another type's method so named.
fn asks_in_body(tool: &Tool<'_>) -> bool {
    fn scan(tokens: TokenStream) -> bool {
        use proc_macro2::TokenTree;
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        tokens.iter().enumerate().any(|(i, tt)| match tt {
            TokenTree::Group(g) => scan(g.stream()),
            TokenTree::Ident(method) if method == "ask" || method == "consent" => {
                let after_dot = i > 0 && matches!(&tokens[i - 1], TokenTree::Punct(p) if p.as_char() == '.');
                let called = matches!(tokens.get(i + 1), Some(TokenTree::Group(g)) if g.delimiter() == proc_macro2::Delimiter::Parenthesis);
                after_dot && called
            }
            _ => false,
        })
    }
    let stmts = &tool.original.block.stmts;
    scan(quote!(#(#stmts)*))
}

/// The description: `description = ".."`, else the doc attributes' text (a string, or
/// `concat!(..)` of lines where one is a macro call), else empty (a resource or prompt may go
/// without; a tool's lack of one is an error).
pub(crate) fn description(tool: &Tool<'_>) -> TokenStream {
    match (&tool.attr.description, &tool.docs) {
        (Some(key), _) => key.value().into_token_stream(),
        (None, Some(doc)) => doc.into_token_stream(),
        (None, None) => quote!(""),
    }
}

/// The contract table: the item's own `#[errors]`, else `contract = X`, else the one its
/// context names (`&Ctx<X>`). With both `contract = X` and a context, they must agree.
pub(crate) fn contract(tool: &Tool<'_>, krate: &TokenStream, ctx: Option<&TokenStream>) -> TokenStream {
    let p = quote!(#krate::__private);
    let probe_traits = quote!(use #p::probes::*;);
    if tool.errors.is_empty() {
        match (&tool.attr.contract, ctx) {
            (Some(path), Some(ty)) => {
                // Spanned at the path: a context of another contract is an error there.
                let check = quote_spanned!(syn::spanned::Spanned::span(path)=> (&&#p::ContractOf::<#ty>::new()).check::<#path>());
                quote!({ #probe_traits #check; <#path as #krate::Contract>::ENTRIES })
            }
            (Some(path), None) => quote!(<#path as #krate::Contract>::ENTRIES),
            (None, Some(ty)) => quote!({ #probe_traits (&&#p::ContractOf::<#ty>::new()).entries() }),
            (None, None) => quote!(&[]),
        }
    } else {
        let e = reason_enum_ident(tool);
        quote!(<#e as #krate::Contract>::ENTRIES)
    }
}

/// The `match` that turns a handler's `Err` into a `ToolError` (`?`-like: plain errors are
/// classified), spanned at the error type; nothing for a handler without `Result`.
pub(crate) fn unwrap_result(tool: &Tool<'_>, krate: &TokenStream) -> Option<TokenStream> {
    let p = quote!(#krate::__private);
    tool.ret.is_result.then(|| {
        // A type without a conversion gets one error there, saying how to convert it.
        let into = quote_spanned!(tool.ret.err_span=> (&&#p::ErrorOf::of(&__mcp_error)).convert(__mcp_error));
        quote! {
            let __mcp_out = match __mcp_out {
                ::core::result::Result::Ok(__mcp_value) => __mcp_value,
                ::core::result::Result::Err(__mcp_error) => {
                    use #p::probes::*;
                    return ::core::result::Result::Err(#into);
                }
            };
        }
    })
}

/// One `ContractEntry { .. }` of the static contract table.
pub(crate) fn entry_tokens(krate: &TokenStream, reason: &LitStr, e: &ErrorsAttr) -> TokenStream {
    let code = match &e.code {
        Some(CodeValue::Named(ident)) => quote!(#krate::ErrorCode::#ident),
        // What `ErrorCode::from_i32` gives, computed here because the table is a constant.
        Some(CodeValue::Number(n)) => {
            if let Some((name, _)) = crate::validate::CODES.iter().find(|(_, number)| number == n) {
                let name = Ident::new(name, Span::call_site());
                quote!(#krate::ErrorCode::#name)
            } else {
                let n = proc_macro2::Literal::i32_unsuffixed(*n);
                quote!(#krate::ErrorCode::Other(#n))
            }
        }
        None => quote!(#krate::ErrorCode::InternalError),
    };
    let when = e.when.as_ref().map(LitStr::value).unwrap_or_default();
    let recovery = e.recovery.as_ref().map(LitStr::value).unwrap_or_default();
    let retryable = option(e.retryable.as_ref());
    let severity = severity_tokens(krate, e.severity.as_ref().map(|s| s.name.as_str()));
    quote! {
        #krate::ContractEntry {
            reason: #reason,
            code: #code,
            when: #when,
            recovery: #recovery,
            retryable: #retryable,
            severity: #severity,
        }
    }
}

fn severity_tokens(krate: &TokenStream, severity: Option<&str>) -> TokenStream {
    let variant = match severity {
        Some("debug") => Some(quote!(Debug)),
        Some("info") => Some(quote!(Info)),
        Some("notice") => Some(quote!(Notice)),
        Some("warning") => Some(quote!(Warning)),
        _ => None,
    };
    option(variant.map(|v| quote!(#krate::Severity::#v)))
}

/// `Some(value)` or `None`, by absolute path.
pub(crate) fn option(value: Option<impl ToTokens>) -> TokenStream {
    value.map_or_else(|| quote!(::core::option::Option::None), |value| quote!(::core::option::Option::Some(#value)))
}

/// An owned `String` from a literal.
pub(crate) fn string(s: &LitStr) -> TokenStream {
    quote!(::std::borrow::ToOwned::to_owned(#s))
}

/// `scopes(..)` as a `&'static [&'static str]`.
pub(crate) fn scopes(tool: &Tool<'_>) -> TokenStream {
    let scopes = &tool.attr.scopes;
    quote!(&[#(#scopes),*])
}

/// `icons(...)` as a `Vec<Icon>` expression.
pub(crate) fn icons(tool: &Tool<'_>, krate: &TokenStream) -> TokenStream {
    let icons = tool.attr.icons.iter().map(|i| {
        let src = i.src.as_ref().map(string);
        let mime = option(i.mime_type.as_ref().map(string));
        let sizes = option(i.sizes.as_ref().map(|s| {
            let sizes = s.value();
            let sizes = sizes.split_whitespace();
            quote!(::std::vec![#(::std::borrow::ToOwned::to_owned(#sizes)),*])
        }));
        let theme = option(i.theme.as_ref().map(string));
        quote!(#krate::Icon { src: #src, mime_type: #mime, sizes: #sizes, theme: #theme })
    });
    quote!(::std::vec![#(#icons),*])
}

/// A declared reason the handler never names (neither `Reason::Variant` nor `"reason"`)
/// and that is not `thrown_by = service` is likely dead. A proc macro cannot raise a warning
/// on stable, so the expansion uses a `#[deprecated]` associated constant of the reason enum,
/// named after the reason, at the reason's literal: rustc reports
/// ``use of deprecated associated constant `FetchItemsError::queue_full`: <note>``.
fn unused_reason_warnings(tool: &Tool<'_>) -> TokenStream {
    let block = &tool.original.block;
    let mut idents = Vec::new();
    let mut strings = Vec::new();
    collect_tokens(quote!(#block), &mut idents, &mut strings);
    let enum_ident = reason_enum_ident(tool);
    let unraised: Vec<_> = reason_variants(tool)
        .into_iter()
        .filter(|(e, reason, variant)| {
            !e.thrown_by_service && !idents.contains(&variant.to_string()) && !strings.contains(&reason.value())
        })
        .map(|(_, reason, variant)| {
            let value = reason.value();
            let note = format!(
                "declared reason `{value}` is never raised in the handler of {} `{}`: raise it with `ctx.fail({enum_ident}::{variant})`, or mark it `thrown_by = service` when a service below the handler raises it",
                tool.attr.kind.name(),
                tool_name(tool),
            );
            // Keywords (`type`) and the enum's own `as_str` get a trailing `_`.
            let marker = if syn::parse_str::<Ident>(&value).is_ok() && value != "as_str" {
                Ident::new(&value, reason.span())
            } else {
                format_ident!("{}_", value, span = reason.span())
            };
            (reason.span(), marker, note)
        })
        .collect();
    if unraised.is_empty() {
        return TokenStream::new();
    }
    let consts = unraised.iter().map(|(_, marker, note)| {
        quote! {
            #[deprecated(note = #note)]
            const #marker: () = ();
        }
    });
    let uses = unraised.iter().map(|(span, marker, _)| quote_spanned!(*span=> let () = #enum_ident::#marker;));
    quote! {
        // Warns about declared reasons the handler never raises.
        #[allow(non_upper_case_globals)]
        impl #enum_ident {
            #(#consts)*
        }
        const _: () = {
            #(#uses)*
        };
    }
}

fn collect_tokens(tokens: TokenStream, idents: &mut Vec<String>, strings: &mut Vec<String>) {
    for tt in tokens {
        match tt {
            proc_macro2::TokenTree::Ident(i) => idents.push(i.to_string()),
            proc_macro2::TokenTree::Literal(l) => {
                if let Ok(s) = syn::parse_str::<LitStr>(&l.to_string()) {
                    strings.push(s.value());
                }
            }
            proc_macro2::TokenTree::Group(g) => collect_tokens(g.stream(), idents, strings),
            proc_macro2::TokenTree::Punct(_) => {}
        }
    }
}
