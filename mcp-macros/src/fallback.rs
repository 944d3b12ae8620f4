//! What `#[tool]` (`#[resource]`, `#[prompt]`) and `#[contract]` emit when the item has
//! mistakes: the user's items (so that names still resolve and the IDE keeps working), the
//! errors, and stubs of the impls callers rely on (a `ToolDef` so that `.tool(name)`, a
//! `Contract` so that `Ctx<MyErrors>`, add no second, misleading error).

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::{Contract, Tool};
use crate::attr::Kind;
use crate::expand::{public_items, without_errors};

pub(crate) fn fallback(tool: &Tool<'_>, errors: &syn::Error) -> TokenStream {
    let errors = errors.to_compile_error();
    if tool.original.sig.receiver().is_some() {
        // A method: `#[tool]` sits in an `impl` block, where the tool's items cannot go.
        // Keep the method as written, without the attributes only `#[tool]` understands.
        let mut item = tool.original.clone();
        item.attrs.retain(|a| !crate::attr::is_attr(a, "errors"));
        for input in &mut item.sig.inputs {
            if let syn::FnArg::Typed(t) = input {
                t.attrs.retain(|a| !a.path().is_ident("input"));
            }
        }
        return quote!(#item #errors);
    }
    let public = public_items(tool, false);
    let krate = &tool.krate;
    let name = &tool.original.sig.ident;
    let message = format!("this {} did not compile", tool.attr.kind.name());
    let (def, spec) = match tool.attr.kind {
        Kind::Tool => {
            let p = quote!(#krate::__private);
            return quote! {
                #public
                #errors
                impl #p::ToolDef for #name {
                    const INFO: #p::ToolInfo = #p::ToolInfo::new("", "", "");
                    type Ctx = #krate::Ctx;
                    type Ret = ();
                    fn run(_: &Self::Ctx, _: #p::Args) -> ::core::result::Result<::core::future::Ready<()>, #krate::ToolError> {
                        ::core::unreachable!(#message)
                    }
                    fn finish((): ()) -> ::core::result::Result<#p::Output, #krate::ToolError> {
                        ::core::unreachable!(#message)
                    }
                    fn output_schema(_: &mut #krate::schemars::SchemaGenerator) -> ::core::option::Option<#krate::schemars::Schema> {
                        ::core::unreachable!(#message)
                    }
                }
            };
        }
        Kind::Resource => (quote!(ResourceDef), quote!(ResourceSpec)),
        Kind::Prompt => (quote!(PromptDef), quote!(PromptSpec)),
    };
    quote! {
        #public
        #errors
        impl #krate::__private::#def for #name {
            fn spec() -> #krate::__private::#spec {
                ::core::unreachable!(#message)
            }
        }
    }
}

/// A `#[contract]` enum with mistakes: the enum, the errors, and `as_str` and `Contract`
/// stubs.
pub(crate) fn contract_fallback(contract: &Contract<'_>, errors: &syn::Error) -> TokenStream {
    let errors = errors.to_compile_error();
    let item = without_errors(contract.original);
    let krate = &contract.krate;
    let ident = &item.ident;
    quote! {
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #item

        #errors

        impl #ident {
            /// The reason string sent in `data.reason`.
            pub const fn as_str(self) -> &'static str {
                ::core::panic!("this contract did not compile")
            }
        }

        impl #krate::Contract for #ident {
            const ENTRIES: &'static [#krate::ContractEntry] = &[];

            fn entry(self) -> &'static #krate::ContractEntry {
                ::core::unreachable!("this contract did not compile")
            }
        }
    }
}
