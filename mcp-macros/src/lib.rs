//! The `#[tool]`, `#[errors]` and `#[contract]` attributes of the MCP tool SDK.
//!
//! Use them through `mcp_runtime` (`use mcp_runtime::prelude::*;`), whose documentation
//! describes every key; the generated code names only `::mcp_runtime` paths.
//!
//! Each attribute runs three stages: `ast` models the item (keeping spans), `validate`
//! reports every mistake at its token in one build, `expand` generates code from the
//! validated model and cannot fail.

mod ast;
mod attr;
mod contract;
mod ctxt;
mod expand;
mod fallback;
mod text;
mod validate;

use proc_macro::TokenStream;

/// Turns a fn into an MCP tool: see `mcp_runtime`'s crate documentation for the keys.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    let item = match syn::parse::<syn::ItemFn>(input.clone()) {
        Ok(item) => item,
        Err(_) => {
            let input = proc_macro2::TokenStream::from(input);
            let err = syn::Error::new_spanned(
                &input,
                "`#[tool]` goes on a fn item: `/// What it does.` `#[tool] async fn name(..) -> T { .. }`",
            )
            .to_compile_error();
            return quote::quote!(#input #err).into();
        }
    };
    let cx = ctxt::Ctxt::new();
    let model = ast::from_syn(&cx, args.into(), &item);
    validate::validate(&cx, &model);
    match cx.check() {
        Ok(()) => expand::expand(&model).into(),
        Err(errors) => fallback::fallback(&model, &errors).into(),
    }
}

/// Declares one failure mode of a `#[tool]` fn. It is read by `#[tool]`, so it goes below it.
#[proc_macro_attribute]
pub fn errors(_args: TokenStream, input: TokenStream) -> TokenStream {
    let input = proc_macro2::TokenStream::from(input);
    let err = syn::Error::new(
        proc_macro2::Span::call_site(),
        "`#[errors(...)]` is read by `#[tool]`: put `#[tool]` first, then the `#[errors(...)]` attributes",
    )
    .to_compile_error();
    quote::quote!(#input #err).into()
}

/// Declares a set of failure modes on an enum, shared by several tools (`#[tool(contract =
/// MyErrors)]`) and raised by services without a `ctx` (`ToolError::from(MyErrors::X)`).
#[proc_macro_attribute]
pub fn contract(args: TokenStream, input: TokenStream) -> TokenStream {
    match syn::parse::<syn::ItemEnum>(input) {
        Ok(item) => contract::expand(args.into(), item).into(),
        Err(e) => {
            syn::Error::new(e.span(), "`#[contract]` goes on an enum whose unit variants are the failure reasons")
                .to_compile_error()
                .into()
        }
    }
}
