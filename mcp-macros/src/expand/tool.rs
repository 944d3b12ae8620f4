//! The `ToolDef` impl of a `#[tool]`, in `const _: () = { .. }`: its `ToolInfo` (name,
//! description, hints, contract table, ..), `run`, which reads the arguments and starts the
//! handler, `finish`, which turns its value into the output, and the output schema.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::Ident;

use crate::ast::Tool;
use crate::expand::inputs::{Inputs, inputs};
use crate::expand::tokens::{description, option, scopes};

pub(super) fn items(tool: &Tool<'_>) -> TokenStream {
    let krate = &tool.krate;
    let name = &tool.original.sig.ident;
    let Inputs { args_struct, input_spec, read, params_const, call_args, ctx } = inputs(tool, krate);
    let args_param = if input_spec.is_none() { quote!(_) } else { quote!(__mcp_args) };
    let info = info(tool, krate, input_spec);

    // The context: the handler's, or a bare `Ctx` the handler does not see.
    let (ctx_ty, ctx_param) = match &ctx {
        Some(ty) => (ty.clone(), quote!(__mcp_ctx)),
        None => (quote!(#krate::Ctx), quote!(_)),
    };
    // With both `contract = X` and a context: they must agree, checked at the path.
    let contract_check = match (tool.attr.contracts.first(), &ctx) {
        (Some(path), Some(ty)) if !tool.has_reason_enum() => {
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
    let wire_name = &tool.name;
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
    if attr.ui.is_some() || attr.visibility.is_some() {
        let uri = option(attr.ui.as_ref());
        let who = attr.visibility.iter().flat_map(|(_, who)| who).map(ToString::to_string);
        fields.push(quote!(ui: ::core::option::Option::Some(#krate::apps::ToolUi { resource_uri: #uri, visibility: &[#(#who),*] })));
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
    if attr.repair == Some(false) {
        fields.push(quote!(repair: false));
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
    // Without `#[errors]` or `contract = ..`, the runtime takes the context's contract.
    let contract = if tool.has_reason_enum() {
        let e = &tool.reason_enum;
        Some(quote!(<#e as #krate::Contract>::ENTRIES))
    } else {
        attr.contracts.first().map(|path| quote!(<#path as #krate::Contract>::ENTRIES))
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
