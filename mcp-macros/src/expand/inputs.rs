//! How a tool's `run` reads the handler's parameters: the table of plain parameters
//! (`PARAMS`), or the derived arguments struct when a parameter has an attribute the table
//! cannot express, or the whole `#[input]` struct; each argument type checked at its span.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::{Ident, LitStr};

use crate::ast::{ParamKind, Tool};
use crate::expand::tokens::option;

/// How the generated `run` reads the handler's parameters.
pub(super) struct Inputs {
    /// The arguments struct, when the fn has plain arguments.
    pub(super) args_struct: TokenStream,
    /// The `ToolInfo::input` value, unless the tool takes no input.
    pub(super) input_spec: Option<TokenStream>,
    /// The statements of `run` that read the arguments (and check their types).
    pub(super) read: TokenStream,
    /// `const PARAMS`, when the plain parameters are read by their table.
    pub(super) params_const: TokenStream,
    /// The handler's arguments, in the fn's parameter order.
    pub(super) call_args: Vec<TokenStream>,
    /// The context parameter's type (`Ctx<R>` for `&Ctx<R>`), if there is one.
    pub(super) ctx: Option<TokenStream>,
}

pub(super) fn inputs(tool: &Tool<'_>, krate: &TokenStream) -> Inputs {
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
    let mut name = param.name.clone().unwrap_or_default();
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
