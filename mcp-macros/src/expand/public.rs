//! The items a caller names: the tool value (`fn fetch_items() -> fetch_items`), its type
//! with the handler as written (`fetch_items::handler`), and its reason enum. Emitted for a
//! valid item and, unchanged, when it has mistakes, so that names still resolve.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::Ident;

use crate::ast::Tool;
use crate::attr::Kind;
use crate::expand::reasons::reason_enum;

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
        tool.name,
    );
    // The user's doc is for the value: what rustdoc shows under the fn's name. Without one
    // (`description = ".."`), a generated line, so that `#![deny(missing_docs)]` holds.
    let mut docs: Vec<TokenStream> = docs.map(ToTokens::to_token_stream).collect();
    if docs.is_empty() {
        let doc = format!(" The {kind} `{}`: register it with `Server::builder(..).{kind}({name})`.", tool.name);
        docs.push(quote!(#[doc = #doc]));
    }
    // The handler's doc is generated, so it has no `# Errors` or `# Panics` section to write,
    // and its shape is the tool's, not a choice: arguments are owned (deserialized), and the
    // value goes to the runtime. Clippy's lints on those are allowed on it.
    let type_doc = format!(" The type of {kind} `{}`: it holds the handler and implements `{def}`.", tool.name);
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
