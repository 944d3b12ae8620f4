//! The failure reasons of a tool: its reason enum (`fn fetch_items` → `FetchItemsError`, one
//! variant per `#[errors]`), `as_str` and its `Contract` impl holding the static contract
//! table; the check that the context names that enum; and the warnings for declared reasons
//! the handler never raises. A `#[contract]` enum gets the same `as_str` and `Contract` impl
//! ([`contract_impls`]).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::{Ident, LitStr};

use crate::ast::{ParamKind, Tool};
use crate::attr::{CODES, CodeValue, ErrorsAttr};
use crate::expand::tokens::option;
use crate::text::pascal_case;

/// With `#[errors]`, the context must be `Ctx<ReasonEnum>`: checked at the context's type,
/// and emitted before the handler, so that this error comes before the one `ctx.fail(..)`
/// then raises in the body.
pub(super) fn context_check(tool: &Tool<'_>) -> TokenStream {
    let Some(ctx) = tool.params.iter().find(|p| p.kind == ParamKind::Context) else { return TokenStream::new() };
    if !tool.has_reason_enum() {
        return TokenStream::new();
    }
    let krate = &tool.krate;
    let ty = &ctx.ty;
    let reasons = &tool.reason_enum;
    let check = quote_spanned!(syn::spanned::Spanned::span(ty)=> #krate::__private::context_of::<#ty, #reasons>());
    quote!(const _: () = #check;)
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
pub(super) fn reason_enum(tool: &Tool<'_>, with_table: bool) -> TokenStream {
    if !tool.has_reason_enum() {
        return TokenStream::new();
    }
    let krate = &tool.krate;
    let vis = &tool.original.vis;
    let enum_ident = &tool.reason_enum;
    let entries = reason_variants(tool);
    let enum_doc = if tool.errors.is_empty() {
        let shown: Vec<String> =
            tool.attr.contracts.iter().map(|p| format!("`{}`", quote!(#p).to_string().replace(' ', ""))).collect();
        format!(
            " The failure reasons of {} `{}`: those of the shared contracts {}. Pass one of theirs to `ctx.fail`.",
            tool.attr.kind.name(),
            tool.name,
            shown.join(", ")
        )
    } else {
        format!(
            " The failure reasons of {} `{}`, declared with `#[errors(...)]`. Pass one to `ctx.fail`.",
            tool.attr.kind.name(),
            tool.name
        )
    };
    let mut variants: Vec<TokenStream> = entries
        .iter()
        .map(|(e, reason, variant)| {
            let doc = format!(" `{}`: {}", reason.value(), e.when.as_ref().map(LitStr::value).unwrap_or_default());
            quote!(#[doc = #doc] #variant)
        })
        .collect();
    if !with_table {
        variants.extend(tool.undeclared.iter().map(|(v, _)| quote!(#[doc(hidden)] #v)));
    }
    let impls = if with_table {
        let vis = quote!(#vis);
        let shared = Shared { paths: &tool.attr.contracts, tool: &tool.name };
        contract_impls(
            krate,
            &vis,
            enum_ident,
            entries.iter().map(|(e, reason, variant)| (variant, *reason, *e)),
            Some(&shared),
        )
    } else {
        // Reasons the handler names but does not declare (already reported) get a variant, and
        // the shared contracts (each once) their `ReasonOf`, so that the body adds no second
        // error.
        let undeclared = &tool.undeclared;
        let mut shared: Vec<&syn::Path> = Vec::new();
        for path in &tool.attr.contracts {
            if !shared.iter().any(|seen| quote!(#seen).to_string() == quote!(#path).to_string()) {
                shared.push(path);
            }
        }
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

            #(
                /// The shared contract's reasons are this tool's too: `ctx.fail` takes them.
                impl #krate::ReasonOf<#enum_ident> for #shared {}
            )*
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

/// The shared contracts a tool composes with its own reasons (`#[tool(contract = Shared)]`
/// with `#[errors]`, or `contract = (A, B)`), and the tool's name, for the duplicate checks'
/// messages.
pub(crate) struct Shared<'a> {
    pub(crate) paths: &'a [syn::Path],
    pub(crate) tool: &'a str,
}

/// `as_str` and the `Contract` impl with its static table, for a reason enum whose variants
/// are declared in table order (a tool's generated enum, or a `#[contract]` enum).
///
/// With `shared`, the table is the enum's own entries then each shared contract's, in the
/// order written (a constant made by a `const fn`: still a static table), the shared
/// contracts' reasons are reasons of this enum's tool (`ReasonOf`), and a reason declared
/// twice is a compile error: an own reason a shared contract declares too at the own reason,
/// a reason two shared contracts declare at the second one's path. (The macro cannot see
/// another item's reasons: these are constants, evaluated by the compiler.)
pub(crate) fn contract_impls<'e>(
    krate: &TokenStream,
    vis: &TokenStream,
    ident: &Ident,
    entries: impl Iterator<Item = (&'e Ident, &'e LitStr, &'e ErrorsAttr)> + Clone,
    shared: Option<&Shared<'_>>,
) -> TokenStream {
    let arms = entries.clone().map(|(variant, reason, _)| quote!(Self::#variant => #reason));
    let own = entries.clone().count();
    let table = entries.clone().map(|(_, reason, e)| entry_tokens(krate, reason, e));
    let (table, composed) = match shared {
        Some(Shared { paths, tool }) if !paths.is_empty() => {
            let theirs: Vec<TokenStream> =
                paths.iter().map(|path| quote!(<#path as #krate::Contract>::ENTRIES)).collect();
            let shown: Vec<String> = paths.iter().map(|path| quote!(#path).to_string().replace(' ', "")).collect();
            let mut checks = Vec::new();
            for (entries_of, name) in theirs.iter().zip(&shown) {
                for (_, reason, _) in entries.clone() {
                    let value = reason.value();
                    let message = format!(
                        "reason `{value}` of tool `{tool}` is declared twice: by its `#[errors(...)]` and by the shared contract `{name}`; remove the `#[errors]` entry (the contract's applies), or give it a reason of its own"
                    );
                    // Spanned at the tool's reason: the error is reported there.
                    checks.push(quote_spanned! {reason.span()=>
                        const _: () = if #krate::__private::declares(#entries_of, #reason) {
                            ::core::panic!(#message)
                        };
                    });
                }
            }
            for (j, later) in paths.iter().enumerate() {
                for i in 0..j {
                    let (first, second) = (&shown[i], &shown[j]);
                    let before = "reason `";
                    let after = format!(
                        "` of tool `{tool}` is declared twice: by the shared contract `{first}` and by the shared contract `{second}`; remove it from one of them, or compose only one of them"
                    );
                    let (a, b) = (&theirs[i], &theirs[j]);
                    // Spanned at the second contract's path: the error is reported there. The
                    // reason is found by the compiler, so the message is built in the constant.
                    checks.push(quote_spanned! {syn::spanned::Spanned::span(later)=>
                        const _: () = if let ::core::option::Option::Some(__mcp_reason) = #krate::__private::shared_reason(#a, #b) {
                            ::core::panic!("{}", #krate::__private::Message::new(&[#before, __mcp_reason, #after]).as_str())
                        };
                    });
                }
            }
            let parts = (own > 0).then(|| quote!(&[#(#table,)*])).into_iter().chain(theirs.iter().cloned());
            let table = quote! {
                &#krate::__private::concat_entries::<{ #own #(+ #theirs.len())* }>(&[#(#parts),*])
            };
            let composed = quote! {
                #(
                    /// The shared contract's reasons are this tool's too: `ctx.fail` takes them.
                    impl #krate::ReasonOf<#ident> for #paths {}
                )*

                #(#checks)*
            };
            (table, composed)
        }
        _ => (quote!(&[#(#table,)*]), TokenStream::new()),
    };
    // Variants are declared in table order, before any shared contract's entries.
    let entry = if own > 0 { quote!(&Self::ENTRIES[self as usize]) } else { quote!(match self {}) };
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
                #entry
            }
        }

        #composed
    }
}

/// One `ContractEntry { .. }` of the static contract table.
pub(crate) fn entry_tokens(krate: &TokenStream, reason: &LitStr, e: &ErrorsAttr) -> TokenStream {
    let code = match &e.code {
        Some(CodeValue::Named(ident)) => quote!(#krate::ErrorCode::#ident),
        // What `ErrorCode::from_i32` gives, computed here because the table is a constant.
        Some(CodeValue::Number(n)) => {
            if let Some((name, _)) = CODES.iter().find(|(_, number)| number == n) {
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

/// A declared reason the handler never names (neither `Reason::Variant` nor `"reason"`)
/// and that is not `thrown_by = service` is likely dead. A proc macro cannot raise a warning
/// on stable, so the expansion uses a `#[deprecated]` associated constant of the reason enum,
/// named after the reason, at the reason's literal: rustc reports
/// ``use of deprecated associated constant `FetchItemsError::queue_full`: <note>``.
pub(super) fn unused_reason_warnings(tool: &Tool<'_>) -> TokenStream {
    let block = &tool.original.block;
    let mut idents = Vec::new();
    let mut strings = Vec::new();
    collect_tokens(quote!(#block), &mut idents, &mut strings);
    let enum_ident = &tool.reason_enum;
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
                tool.name,
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
