//! What `#[resource]` and `#[prompt]` emit besides the public items they share with
//! `#[tool]`: a `const _: () = { .. }` holding the `ResourceDef` / `PromptDef` impl, the fn
//! that reads each parameter from its text and calls the handler, and the completers'
//! adapters. Parameters are read one by one at their own spans (`TextValue`), so a type that
//! cannot come from text is an error at that type.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;

use crate::ast::{ParamKind, Tool};
use crate::attr::Kind;
use crate::expand::tokens::{description, option, scopes, string};

pub(crate) fn items(tool: &Tool<'_>) -> TokenStream {
    let krate = &tool.krate;
    let p = quote!(#krate::__private);
    let name = &tool.original.sig.ident;
    let attr = &tool.attr;

    // Each parameter: the context, or a value read from its text at its type's span.
    let mut reads = Vec::new();
    let mut call_args = Vec::new();
    let mut arguments = Vec::new();
    let mut ctx_ty = None;
    for (i, param) in tool.params.iter().enumerate() {
        let ty = &param.ty;
        if param.kind == ParamKind::Context {
            ctx_ty = Some(quote!(#ty));
            let read = quote_spanned!(ty.span()=> __mcp_call.context::<#ty>());
            reads.push(quote!(let __mcp_ctx = #read;));
            call_args.push(quote!(&__mcp_ctx));
            continue;
        }
        let binding = format_ident!("__mcp_arg{i}");
        let key = param.name.clone().unwrap_or_default();
        let read = quote_spanned!(ty.span()=> __mcp_call.text::<#ty>(#key));
        // A prompt's `#[cfg]`'d parameter: off, it is neither an argument nor in the call. (A
        // resource's cannot be: its URI template names it either way.)
        let cfgs = &param.cfgs;
        reads.push(quote!(#(#cfgs)* let #binding = #read?;));
        call_args.push(quote!(#(#cfgs)* #binding));
        let doc = option(crate::text::doc_text(&param.field_attrs.iter().map(|a| (*a).clone()).collect::<Vec<_>>()));
        let required = quote_spanned!(ty.span()=> <#ty as #krate::TextValue>::REQUIRED);
        arguments.push(quote!(#(#cfgs)* #p::PromptArgument { name: #key, description: #doc, required: #required }));
    }

    let await_ = tool.original.sig.asyncness.map(|_| quote!(.await));
    let unwrap = unwrap_result(tool, krate);
    let ret_span = tool.ret.span;
    let contract = contract(tool, krate, ctx_ty.as_ref());
    let wire_name = &tool.name;
    let title = option(attr.title.as_ref());
    let description = description(tool);
    let icons = icons(tool, krate);
    let scopes = scopes(tool);

    let (complete, complete_defs) = completers(tool, krate);

    let (def_trait, spec_ty, body_ty, into, fields, extra) = match attr.kind {
        Kind::Resource => {
            let (fields, list_def) = resource_fields(tool, krate);
            (
                quote!(#p::ResourceDef),
                quote!(#p::ResourceSpec),
                quote!(#p::ResourceBody),
                quote_spanned!(ret_span=> #krate::IntoResource::into_resource(__mcp_out)),
                fields,
                list_def,
            )
        }
        Kind::Prompt => (
            quote!(#p::PromptDef),
            quote!(#p::PromptSpec),
            quote!(#krate::PromptResult),
            quote_spanned!(ret_span=> #krate::IntoPrompt::into_prompt(__mcp_out)),
            quote! {
                arguments: ::std::vec![#(#arguments),*],
                get: __mcp_run,
            },
            TokenStream::new(),
        ),
        Kind::Tool => unreachable!("tools expand in `expand`"),
    };

    quote! {
        const _: () = {
            impl #def_trait for #name {
                fn spec() -> #spec_ty {
                    #spec_ty {
                        name: #wire_name,
                        title: #title,
                        description: #description,
                        icons: #icons,
                        module: ::core::module_path!(),
                        contract: #contract,
                        complete: ::std::vec![#(#complete),*],
                        scopes: #scopes,
                        #fields
                    }
                }
            }

            /// One request: each parameter read from its text, the handler run, its value
            /// turned into the result.
            fn __mcp_run(__mcp_call: #p::Call) -> #p::BoxFuture<'static, ::core::result::Result<#body_ty, #krate::ToolError>> {
                ::std::boxed::Box::pin(async move {
                    #(#reads)*
                    let __mcp_out = #name::handler(#(#call_args),*) #await_;
                    #unwrap
                    ::core::result::Result::Ok(#into)
                })
            }

            #extra
            #(#complete_defs)*
        };
    }
}

/// Each `complete(arg = fn)`: the `(name, adapter)` pair of the spec, and the adapter, which
/// reads the typed value and calls `fn(&ctx, value)`.
fn completers(tool: &Tool<'_>, krate: &TokenStream) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let p = quote!(#krate::__private);
    let attr = &tool.attr;
    let completers: Vec<_> = attr
        .complete
        .iter()
        .enumerate()
        .map(|(i, (arg, path))| {
            let f = format_ident!("__mcp_complete{i}");
            let arg = arg.unraw().to_string();
            // Spanned at the path: a completer of the wrong shape is an error there.
            let out = quote_spanned!(path.span()=> #path(&__mcp_ctx, __mcp_value));
            // Spanned at the path too, `.await` included: a completer that returns neither
            // values nor a future of them is an error at the completer, not at the attribute.
            let complete = quote_spanned!(path.span()=> (&&#p::CompletionOf::of(&__mcp_out)).complete(__mcp_out).await);
            let run = quote! {
                use #p::probes::*;
                let __mcp_out = #out;
                #complete
            };
            let def = quote! {
                fn #f(__mcp_call: #p::Call) -> #p::BoxFuture<'static, ::core::result::Result<::std::vec::Vec<::std::string::String>, #krate::ToolError>> {
                    ::std::boxed::Box::pin(async move {
                        let __mcp_ctx = __mcp_call.context::<#krate::Ctx>();
                        let __mcp_value = __mcp_call.text::<::std::string::String>("value")?;
                        #run
                    })
                }
            };
            (quote!((#arg, #f as #p::Completer)), def)
        })
        .collect();

    completers.into_iter().unzip()
}

/// The `ResourceSpec` fields of its address, and the `list` adapter when there is one.
fn resource_fields(tool: &Tool<'_>, krate: &TokenStream) -> (TokenStream, TokenStream) {
    let p = quote!(#krate::__private);
    let attr = &tool.attr;
    let (uri, template) = match (&attr.uri, &attr.uri_template) {
        (Some(uri), _) => (uri.value(), false),
        (None, Some(template)) => (template.value(), true),
        (None, None) => unreachable!("validated: a resource has a uri or a template"),
    };
    let mime = match (&attr.mime_type, &attr.view) {
        (None, Some(_)) => quote!(::core::option::Option::Some(#krate::apps::MIME_TYPE)),
        (mime, _) => option(mime.as_ref()),
    };
    let ui = option(attr.view.as_ref().map(|ui| view(ui, krate)));
    let size = option(attr.size.as_ref().map(|s| quote!(#s as u64)));
    let annotations = option(attr.resource_annotations.as_ref().map(|a| {
        let audience = (!a.audience.is_empty()).then(|| {
            let roles = a.audience.iter().map(|who| if who == "user" { quote!(User) } else { quote!(Assistant) });
            quote!(::std::vec![#(#krate::Role::#roles),*])
        });
        let audience = option(audience);
        let priority = option(a.priority.as_ref());
        let last_modified = option(a.last_modified.as_ref().map(string));
        quote!(#krate::Annotations { audience: #audience, priority: #priority, last_modified: #last_modified })
    }));
    let (list, list_def) = match &attr.list {
        Some(path) => {
            let run = quote_spanned!(path.span()=> #krate::IntoListing::into_listing(#path(&__mcp_ctx).await));
            (
                quote!(::core::option::Option::Some(__mcp_list)),
                quote! {
                    fn __mcp_list(__mcp_call: #p::Call) -> #p::BoxFuture<'static, ::core::result::Result<::std::vec::Vec<#krate::Resource>, #krate::ToolError>> {
                        ::std::boxed::Box::pin(async move {
                            let __mcp_ctx = __mcp_call.context::<#krate::Ctx>();
                            #run
                        })
                    }
                },
            )
        }
        None => (quote!(::core::option::Option::None), TokenStream::new()),
    };
    let fields = quote! {
        uri: #uri,
        template: #template,
        mime_type: #mime,
        size: #size,
        annotations: #annotations,
        read: __mcp_run,
        list: #list,
        ui: #ui,
    };
    (fields, list_def)
}

/// A view's `ui(..)` as a constant `UiResource`.
fn view(ui: &crate::attr::UiAttr, krate: &TokenStream) -> TokenStream {
    let apps = quote!(#krate::apps);
    let domains = |key: &str| {
        let origins = ui.csp.iter().filter(|(k, _)| *k == key).flat_map(|(_, o)| o);
        quote!(&[#(#origins),*])
    };
    let (connect, resource, frame, base) = (
        domains("connect_domains"),
        domains("resource_domains"),
        domains("frame_domains"),
        domains("base_uri_domains"),
    );
    let permissions = ui.permissions.iter().map(|p| {
        let variant = match p.to_string().as_str() {
            "camera" => quote!(Camera),
            "microphone" => quote!(Microphone),
            "geolocation" => quote!(Geolocation),
            _ => quote!(ClipboardWrite),
        };
        quote_spanned!(p.span()=> #apps::Permission::#variant)
    });
    let domain = option(ui.domain.as_ref());
    let border = option(ui.prefers_border.as_ref());
    quote! {
        #apps::UiResource {
            connect_domains: #connect,
            resource_domains: #resource,
            frame_domains: #frame,
            base_uri_domains: #base,
            permissions: &[#(#permissions),*],
            domain: #domain,
            prefers_border: #border,
        }
    }
}

/// The contract table: the item's reason enum's (its own `#[errors]`, or `contract = (A, B)`),
/// else `contract = X`, else the one its context names (`&Ctx<X>`). With both `contract = X`
/// and a context, they must agree.
fn contract(tool: &Tool<'_>, krate: &TokenStream, ctx: Option<&TokenStream>) -> TokenStream {
    let p = quote!(#krate::__private);
    let probe_traits = quote!(use #p::probes::*;);
    if tool.has_reason_enum() {
        let e = &tool.reason_enum;
        return quote!(<#e as #krate::Contract>::ENTRIES);
    }
    match (tool.attr.contracts.first(), ctx) {
        (Some(path), Some(ty)) => {
            // Spanned at the path: a context of another contract is an error there.
            let check =
                quote_spanned!(syn::spanned::Spanned::span(path)=> (&&#p::ContractOf::<#ty>::new()).check::<#path>());
            quote!({ #probe_traits #check; <#path as #krate::Contract>::ENTRIES })
        }
        (Some(path), None) => quote!(<#path as #krate::Contract>::ENTRIES),
        (None, Some(ty)) => quote!({ #probe_traits (&&#p::ContractOf::<#ty>::new()).entries() }),
        (None, None) => quote!(&[]),
    }
}

/// The `match` that turns a handler's `Err` into a `ToolError` (`?`-like: plain errors are
/// classified), spanned at the error type; nothing for a handler without `Result`.
fn unwrap_result(tool: &Tool<'_>, krate: &TokenStream) -> Option<TokenStream> {
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

/// `icons(...)` as a `Vec<Icon>` expression.
fn icons(tool: &Tool<'_>, krate: &TokenStream) -> TokenStream {
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
