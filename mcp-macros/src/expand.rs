//! Code generation. Sees only validated input and cannot fail.
//!
//! For `fn fetch_items` it emits, in this order:
//! 1. `struct fetch_items;`, the value `Server::builder().tool(fetch_items)` takes, with the
//!    fn's docs;
//! 2. `impl fetch_items { fn handler(..) }`: the fn as written, callable in unit tests;
//! 3. with `#[errors]`: the reason enum `FetchItemsError` and its static contract table;
//! 4. `const _: () = { .. }`: the arguments struct (derives `Deserialize` + `JsonSchema`) and
//!    the `ToolDef` impl that tells the runtime the tool's name, schemas and how to call it.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::{Ident, Lit, LitStr};

use crate::ast::{ParamKind, Tool};
use crate::attr::{CodeValue, ErrorsAttr};
use crate::text::pascal_case;
use crate::validate::tool_name;

pub(crate) fn krate(tool: &Tool<'_>) -> TokenStream {
    tool.attr.krate.as_ref().map_or_else(|| quote!(::mcp_runtime), |p| quote!(#p))
}

/// `fetch_items` → `FetchItemsError`.
pub(crate) fn reason_enum_ident(tool: &Tool<'_>) -> Ident {
    let fn_name = tool.original.sig.ident.to_string();
    let fn_name = fn_name.strip_prefix("r#").unwrap_or(&fn_name);
    format_ident!("{}Error", pascal_case(fn_name), span = tool.original.sig.ident.span())
}

/// Everything `#[tool]` emits for a valid item.
pub(crate) fn expand(tool: &Tool<'_>) -> TokenStream {
    let public = public_items(tool);
    let private = private_items(tool);
    quote! {
        #public
        #private
    }
}

/// The items a caller names: the tool value, its handler and its reason enum. Also emitted
/// when the item has errors, so that one mistake does not cascade into unresolved names.
pub(crate) fn public_items(tool: &Tool<'_>) -> TokenStream {
    let item = tool.original;
    let vis = &item.vis;
    let name = &item.sig.ident;
    let docs = tool.kept_attrs.iter().filter(|a| a.path().is_ident("doc"));
    let other_attrs = tool.kept_attrs.iter().filter(|a| !a.path().is_ident("doc"));
    let mut sig = item.sig.clone();
    sig.ident = Ident::new("handler", name.span());
    for (input, param) in sig.inputs.iter_mut().zip(tool.params.iter().map(Some).chain(std::iter::repeat(None))) {
        if let (syn::FnArg::Typed(t), Some(p)) = (input, param) {
            t.attrs = p.kept_attrs.iter().map(|a| (*a).clone()).collect();
        }
    }
    let block = &item.block;
    let handler_doc = format!(
        " The handler of tool `{}`, as written. Call it directly in unit tests; `#[tool]` serves it through [`ToolDef`]({}::__private::ToolDef).",
        tool_name(tool),
        krate(tool)
    );
    let reasons = reason_enum(tool);
    quote! {
        #(#docs)*
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, Default)]
        #vis struct #name;

        impl #name {
            #[doc = #handler_doc]
            #(#other_attrs)*
            #vis #sig #block
        }

        #reasons
    }
}

fn reason_enum(tool: &Tool<'_>) -> TokenStream {
    if tool.errors.is_empty() {
        return TokenStream::new();
    }
    let krate = krate(tool);
    let vis = &tool.original.vis;
    let enum_ident = reason_enum_ident(tool);
    let entries: Vec<(&ErrorsAttr, &LitStr, Ident)> = tool
        .errors
        .iter()
        .filter_map(|e| {
            let reason = e.reason.as_ref()?;
            let variant = syn::parse_str::<Ident>(&pascal_case(&reason.value())).ok()?;
            Some((e, reason, Ident::new(&variant.to_string(), reason.span())))
        })
        .collect();
    let enum_doc = format!(
        " The failure reasons of tool `{}`, declared with `#[errors(...)]`. Pass one to `ctx.fail`.",
        tool_name(tool)
    );
    let variants = entries.iter().map(|(e, reason, variant)| {
        let doc = format!(" `{}`: {}", reason.value(), e.when.as_ref().map(LitStr::value).unwrap_or_default());
        quote!(#[doc = #doc] #variant)
    });
    let table = entries.iter().map(|(e, reason, _)| entry_tokens(&krate, reason, e));
    let as_str_arms = entries.iter().map(|(_, reason, variant)| quote!(Self::#variant => #reason));
    quote! {
        #[doc = #enum_doc]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        // A reason raised only by a service (`thrown_by = service`) is never constructed here.
        #[allow(dead_code)]
        #vis enum #enum_ident {
            #(#variants,)*
        }

        impl #enum_ident {
            /// The reason string sent in `data.reason`.
            #vis const fn as_str(self) -> &'static str {
                match self {
                    #(#as_str_arms,)*
                }
            }
        }

        impl #krate::Contract for #enum_ident {
            const ENTRIES: &'static [#krate::ContractEntry] = &[#(#table,)*];

            fn entry(self) -> &'static #krate::ContractEntry {
                // Variants are declared in table order.
                &Self::ENTRIES[self as usize]
            }
        }
    }
}

fn private_items(tool: &Tool<'_>) -> TokenStream {
    let krate = krate(tool);
    let p = quote!(#krate::__private);
    let name = &tool.original.sig.ident;
    let wire_name = tool_name(tool);

    // What the handler receives, in the fn's parameter order.
    let mut ctx_ty = quote!(#krate::Ctx);
    let mut ctx_binding = quote!(_);
    let mut call_args = Vec::new();
    let mut fields = Vec::new();
    let mut bindings = Vec::new();
    let mut input_ty = None;
    for param in &tool.params {
        match param.kind {
            ParamKind::Context => {
                let ty = &param.ty;
                ctx_ty = quote_spanned!(param.original.ty.span_hint()=> #ty);
                ctx_binding = quote!(__mcp_ctx);
                call_args.push(quote!(&__mcp_ctx));
            }
            ParamKind::Input => {
                input_ty = Some(&param.ty);
                call_args.push(quote!(__mcp_input));
            }
            ParamKind::Arg => {
                let ident = param.ident.clone().unwrap_or_else(|| Ident::new("__mcp_unnamed", Span::call_site()));
                let ty = &param.ty;
                let attrs = &param.field_attrs;
                fields.push(quote!(#(#attrs)* #ident: #ty));
                bindings.push(ident.clone());
                call_args.push(quote!(#ident));
            }
        }
    }

    let serde_crate = format!("{}::__private::serde", krate.to_string().replace(' ', ""));
    let schemars_crate = format!("{}::schemars", krate.to_string().replace(' ', ""));
    let deny = (!tool.attr.allow_unknown_args).then(|| quote!(#[serde(deny_unknown_fields)]));
    let (args_struct, input_spec, args_ty, args_pattern) = if let Some(ty) = input_ty {
        (
            TokenStream::new(),
            quote!(#p::InputSpec::Whole(|g| g.root_schema_for::<#ty>())),
            quote!(#ty),
            quote!(__mcp_input),
        )
    } else if fields.is_empty() {
        (TokenStream::new(), quote!(#p::InputSpec::Empty), quote!(#p::NoArgs), quote!(_))
    } else {
        let doc = format!(" The arguments of tool `{wire_name}`: one field per parameter of the fn.");
        let st = quote! {
            #[doc = #doc]
            #[derive(#p::serde::Deserialize, #krate::schemars::JsonSchema)]
            #[serde(crate = #serde_crate)]
            #deny
            #[schemars(crate = #schemars_crate)]
            struct __McpArgs {
                #(#fields,)*
            }
        };
        (
            st,
            quote!(#p::InputSpec::Params(|g| g.root_schema_for::<__McpArgs>())),
            quote!(__McpArgs),
            quote!(__McpArgs { #(#bindings),* }),
        )
    };

    let await_ = tool.original.sig.asyncness.map(|_| quote!(.await));
    let ok = &tool.ret.ok;
    let ret_span = tool.ret.span;
    let unwrap_result = tool.ret.is_result.then(|| {
        quote_spanned! {ret_span=>
            // `?`-like: the error converts into `ToolError` (plain errors are classified).
            let __mcp_out = match __mcp_out {
                ::core::result::Result::Ok(value) => value,
                ::core::result::Result::Err(error) => {
                    return ::core::result::Result::Err(::core::convert::Into::<#krate::ToolError>::into(error));
                }
            };
        }
    });
    let kind = quote_spanned!(ret_span=> (&&#p::Kind::<#ok>::new()));

    let title = opt_str(tool.attr.title.as_ref());
    let description =
        tool.attr.description.as_ref().map_or_else(|| tool.docs.clone().unwrap_or_default(), LitStr::value);
    let annotations = annotations(tool, &krate);
    let icons = tool.attr.icons.iter().map(|i| {
        let src = i.src.as_ref().map(LitStr::value).unwrap_or_default();
        let mime = opt_string(i.mime_type.as_ref());
        let sizes = match &i.sizes {
            Some(s) => {
                let list = s.value();
                let parts = list.split_whitespace();
                quote!(::core::option::Option::Some(::std::vec![#(::std::string::String::from(#parts)),*]))
            }
            None => quote!(::core::option::Option::None),
        };
        let theme = opt_string(i.theme.as_ref());
        quote!(#krate::Icon { src: ::std::string::String::from(#src), mime_type: #mime, sizes: #sizes, theme: #theme })
    });
    let meta = tool.attr.meta.iter().map(|(k, v)| {
        let v = match v {
            Lit::Str(s) => quote!(#p::Value::from(#s)),
            other => quote!(#p::Value::from(#other)),
        };
        quote!((#k, #v))
    });
    let timeout = match &tool.attr.timeout_ms {
        Some(t) => quote!(::core::option::Option::Some(#t)),
        None => quote!(::core::option::Option::None),
    };
    let contract = if let Some(path) = &tool.attr.contract {
        quote!(<#path as #krate::Contract>::ENTRIES)
    } else if tool.errors.is_empty() {
        quote!(&[])
    } else {
        let e = reason_enum_ident(tool);
        quote!(<#e as #krate::Contract>::ENTRIES)
    };
    let allow_unknown = tool.attr.allow_unknown_args;
    let unused = unused_reason_warnings(tool);

    quote! {
        const _: () = {
            #args_struct

            impl #p::ToolDef for #name {
                fn spec() -> #p::ToolSpec {
                    #p::ToolSpec {
                        name: #wire_name,
                        title: #title,
                        description: #description,
                        annotations: #annotations,
                        icons: ::std::vec![#(#icons),*],
                        meta: ::std::vec![#(#meta),*],
                        input: #input_spec,
                        allow_unknown_args: #allow_unknown,
                        output_schema: __mcp_output_schema,
                        timeout_ms: #timeout,
                        contract: #contract,
                        call: __mcp_call,
                    }
                }
            }

            /// The output schema, chosen by the return type: text and content blocks have
            /// none; a `Serialize + JsonSchema` type has its schema.
            fn __mcp_output_schema(g: &mut #krate::schemars::SchemaGenerator) -> ::core::option::Option<#krate::schemars::Schema> {
                #[allow(unused_imports)]
                use #p::{ContentKind as _, StructuredKind as _};
                #kind.output_schema(g)
            }

            /// One call: arguments (already validated against the input schema) are
            /// deserialized, the handler runs, its value becomes the result.
            fn __mcp_call(__mcp_call: #p::Call) -> #p::BoxFuture<'static, ::core::result::Result<#p::Output, #krate::ToolError>> {
                ::std::boxed::Box::pin(async move {
                    #[allow(unused_imports)]
                    use #p::{ContentKind as _, StructuredKind as _};
                    let (#ctx_binding, #args_pattern) = __mcp_call.parts::<#ctx_ty, #args_ty>()?;
                    let __mcp_out = #name::handler(#(#call_args),*) #await_;
                    #unwrap_result
                    #kind.finish(__mcp_out)
                })
            }

            #unused
        };
    }
}

trait SpanHint {
    fn span_hint(&self) -> Span;
}

impl SpanHint for syn::Type {
    fn span_hint(&self) -> Span {
        syn::spanned::Spanned::span(self)
    }
}

/// One `ContractEntry { .. }` of the static contract table.
pub(crate) fn entry_tokens(krate: &TokenStream, reason: &LitStr, e: &ErrorsAttr) -> TokenStream {
    let code = match &e.code {
        Some(CodeValue::Named(ident)) => quote!(#krate::ErrorCode::#ident),
        Some(CodeValue::Number(n)) => quote!(#krate::ErrorCode::from_i32(#n)),
        None => quote!(#krate::ErrorCode::InternalError),
    };
    let when = e.when.as_ref().map(LitStr::value).unwrap_or_default();
    let recovery = e.recovery.as_ref().map(LitStr::value).unwrap_or_default();
    let retryable = match &e.retryable {
        Some(b) => quote!(::core::option::Option::Some(#b)),
        None => quote!(::core::option::Option::None),
    };
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
    match severity {
        Some("debug") => quote!(::core::option::Option::Some(#krate::Severity::Debug)),
        Some("info") => quote!(::core::option::Option::Some(#krate::Severity::Info)),
        Some("notice") => quote!(::core::option::Option::Some(#krate::Severity::Notice)),
        Some("warning") => quote!(::core::option::Option::Some(#krate::Severity::Warning)),
        _ => quote!(::core::option::Option::None),
    }
}

fn opt_str(s: Option<&LitStr>) -> TokenStream {
    match s {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    }
}

fn opt_string(s: Option<&LitStr>) -> TokenStream {
    match s {
        Some(s) => quote!(::core::option::Option::Some(::std::string::String::from(#s))),
        None => quote!(::core::option::Option::None),
    }
}

fn annotations(tool: &Tool<'_>, krate: &TokenStream) -> TokenStream {
    let Some(a) = &tool.attr.annotations else {
        return quote!(::core::option::Option::None);
    };
    let b = |v: Option<&syn::LitBool>| match v {
        Some(v) => quote!(::core::option::Option::Some(#v)),
        None => quote!(::core::option::Option::None),
    };
    let title = opt_string(a.title.as_ref());
    let (ro, de, id, ow) = (
        b(a.read_only_hint.as_ref()),
        b(a.destructive_hint.as_ref()),
        b(a.idempotent_hint.as_ref()),
        b(a.open_world_hint.as_ref()),
    );
    quote! {
        ::core::option::Option::Some(#krate::ToolAnnotations {
            title: #title,
            read_only_hint: #ro,
            destructive_hint: #de,
            idempotent_hint: #id,
            open_world_hint: #ow,
        })
    }
}

/// A declared reason the handler never names (neither `Reason::Variant` nor `"reason"`)
/// and that is not `thrown_by = service` is likely dead: warn through a deprecated item,
/// the one warning a proc macro can raise on stable, spanned at the reason.
fn unused_reason_warnings(tool: &Tool<'_>) -> TokenStream {
    let block = &tool.original.block;
    let mut idents = Vec::new();
    let mut strings = Vec::new();
    collect_tokens(quote!(#block), &mut idents, &mut strings);
    let warnings = tool.errors.iter().filter(|e| !e.thrown_by_service).filter_map(|e| {
        let reason = e.reason.as_ref()?;
        let value = reason.value();
        let variant = pascal_case(&value);
        if idents.contains(&variant) || strings.contains(&value) {
            return None;
        }
        let note = format!(
            "declared reason `{value}` is never raised in the handler of tool `{}`: raise it with `ctx.fail({}::{variant})`, or mark it `thrown_by = service` when a service below the handler raises it",
            tool_name(tool),
            reason_enum_ident(tool),
        );
        let marker = format_ident!("{}", value, span = reason.span());
        Some(quote_spanned! {reason.span()=>
            #[allow(non_upper_case_globals)]
            #[deprecated(note = #note)]
            const #marker: () = ();
            let () = #marker;
        })
    });
    let warnings: Vec<_> = warnings.collect();
    if warnings.is_empty() {
        return TokenStream::new();
    }
    quote! {
        const _: () = {
            #(#warnings)*
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
