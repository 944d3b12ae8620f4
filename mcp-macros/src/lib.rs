//! The attributes of the MCP tool SDK:
//!
//! - `#[tool]` on an `async fn`: an MCP tool (its parameters are the input schema, its return
//!   type the output schema, its doc comment the description); `#[input]` on one parameter
//!   takes the whole input object as a struct;
//! - `#[errors(...)]` below `#[tool]` (or `#[resource]`, `#[prompt]`): one declared failure
//!   mode, a variant of the item's reason enum (`fn fetch_items` → `FetchItemsError`);
//! - `#[contract]` on an enum: failure modes shared by several tools
//!   (`#[tool(contract = MyErrors)]`) and raised by services without a `ctx`;
//! - `#[resource]` on a fn: an MCP resource at a URI or a URI template;
//! - `#[prompt]` on a fn: an MCP prompt whose arguments are the fn's parameters.
//!
//! Use them through `mcp_runtime` (`use mcp_runtime::prelude::*;`), whose guide describes
//! every key; the generated code names only the runtime's paths, under the name the user's
//! Cargo.toml gives it (`::mcp_runtime` unless renamed), or the path given with
//! `#[tool(crate = …)]`, and `::core` / `::std`.
//!
//! Each attribute runs three stages: `ast` models the item and computes every name once
//! (keeping spans), `validate` reports every mistake at its token in one build, `expand`
//! generates code from the validated model and cannot fail (one file per generated
//! artefact); with mistakes, `fallback` emits the item, the errors and stubs instead.

#![deny(missing_docs)]

mod ast;
mod attr;
mod ctxt;
mod expand;
mod fallback;
mod text;
mod validate;

#[cfg(test)]
mod tests;

use proc_macro::TokenStream;
use proc_macro2::Span;
use quote::quote;

use crate::attr::Kind;

/// Turns a fn into an MCP tool: its parameters are the input schema, its return type the
/// output schema, its doc comment the description. Every key, with examples:
/// `mcp_runtime::guide::tools` (the guide's chapter "Tools and schemas", `docs/tools.md`).
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    item_impl(Kind::Tool, args.into(), input.into()).into()
}

/// Turns a fn into an MCP resource, at a URI or a URI template whose variables are the fn's
/// parameters. Every key, with examples: `mcp_runtime::guide::resources_prompts`
/// (`docs/resources-prompts.md`).
#[proc_macro_attribute]
pub fn resource(args: TokenStream, input: TokenStream) -> TokenStream {
    item_impl(Kind::Resource, args.into(), input.into()).into()
}

/// Turns a fn into an MCP prompt whose arguments are the fn's parameters. Every key, with
/// examples: `mcp_runtime::guide::resources_prompts` (`docs/resources-prompts.md`).
#[proc_macro_attribute]
pub fn prompt(args: TokenStream, input: TokenStream) -> TokenStream {
    item_impl(Kind::Prompt, args.into(), input.into()).into()
}

#[cfg(test)]
fn tool_impl(args: proc_macro2::TokenStream, input: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    item_impl(Kind::Tool, args, input)
}

fn item_impl(kind: Kind, args: proc_macro2::TokenStream, input: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    let Ok(item) = syn::parse2::<syn::ItemFn>(input.clone()) else {
        // Spanned at the attribute: it is the attribute that is misplaced.
        let name = kind.name();
        let err = syn::Error::new(
            Span::call_site(),
            format!("`#[{name}]` goes on a fn item: `/// What it does.` `#[{name}] async fn name(..) -> T {{ .. }}`"),
        )
        .to_compile_error();
        return quote!(#input #err);
    };
    let cx = ctxt::Ctxt::new();
    let model = ast::from_syn(&cx, kind, args, &item);
    validate::validate(&cx, &model);
    match cx.check() {
        Ok(()) => expand::expand(&model),
        Err(errors) => fallback::fallback(&model, &errors),
    }
}

/// Declares one failure mode of a `#[tool]` fn. It is read by `#[tool]`, so it goes below it.
/// The keys (`reason`, `code`, `when`, `recovery`, `retryable`, `severity`, `thrown_by`), with
/// examples: `mcp_runtime::guide::errors` (`docs/errors.md`).
#[proc_macro_attribute]
pub fn errors(args: TokenStream, input: TokenStream) -> TokenStream {
    errors_impl(args.into(), input.into()).into()
}

/// `#[errors]` only runs as a macro when it is not below a `#[tool]` (or `#[resource]`,
/// `#[prompt]`), which consumes it. Above one, it reports the order and moves every
/// `#[errors]` below it, so that the item still expands and one mistake gives one error.
fn errors_impl(args: proc_macro2::TokenStream, input: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    let is_tool = |a: &syn::Attribute| ["tool", "resource", "prompt"].iter().any(|k| attr::is_attr(a, k));
    let is_errors = |a: &syn::Attribute| attr::is_attr(a, "errors");
    if let Ok(mut item) = syn::parse2::<syn::ItemFn>(input.clone())
        && let Some(tool_at) = item.attrs.iter().position(is_tool)
    {
        let name = ["tool", "resource", "prompt"]
            .into_iter()
            .find(|k| attr::is_attr(&item.attrs[tool_at], k))
            .unwrap_or("tool");
        let err = syn::Error::new_spanned(
            &item.attrs[tool_at],
            format!(
                "`#[{name}]` reads the `#[errors(...)]` attributes below it: move `#[{name}]` above every `#[errors(...)]`"
            ),
        )
        .to_compile_error();
        let this: syn::Attribute = syn::parse_quote!(#[errors(#args)]);
        let (above, below) = item.attrs.split_at(tool_at + 1);
        let (errors_above, mut attrs): (Vec<_>, Vec<_>) = above.iter().cloned().partition(|a| is_errors(a));
        attrs.push(this);
        attrs.extend(errors_above);
        attrs.extend(below.iter().cloned());
        item.attrs = attrs;
        return quote!(#item #err);
    }
    let err = syn::Error::new(
        Span::call_site(),
        "`#[errors(...)]` declares a failure mode of a tool: put `#[tool]` above it, on a fn (or use `#[contract]` on an enum)",
    )
    .to_compile_error();
    quote!(#input #err)
}

/// Declares a set of failure modes on an enum, shared by several tools (`#[tool(contract =
/// MyErrors)]`) and raised by services without a `ctx` (`ToolError::from(MyErrors::X)`).
/// Example: `mcp_runtime::guide::errors` (`docs/errors.md`).
#[proc_macro_attribute]
pub fn contract(args: TokenStream, input: TokenStream) -> TokenStream {
    contract_impl(args.into(), input.into()).into()
}

fn contract_impl(args: proc_macro2::TokenStream, input: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    let Ok(item) = syn::parse2::<syn::ItemEnum>(input.clone()) else {
        let err = syn::Error::new(
            Span::call_site(),
            "`#[contract]` goes on an enum whose unit variants are the failure reasons",
        )
        .to_compile_error();
        return quote!(#input #err);
    };
    let cx = ctxt::Ctxt::new();
    let model = ast::contract_from_syn(&cx, args, &item);
    validate::validate_contract(&cx, &model);
    match cx.check() {
        Ok(()) => expand::contract(&model),
        Err(errors) => fallback::contract_fallback(&model, &errors),
    }
}
