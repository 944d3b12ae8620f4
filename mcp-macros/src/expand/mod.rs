//! Code generation. Sees only validated input and cannot fail. One file per artefact:
//! `public` (what a caller names), `reasons` (the reason enum and its contract table),
//! `tool` (the `ToolDef` impl) with `inputs` (how it reads the arguments), `family` (the
//! `ResourceDef` / `PromptDef` impls), `contract` (a `#[contract]` enum's impls); `tokens`
//! holds the small pieces they share.
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

mod contract;
mod family;
mod inputs;
mod public;
mod reasons;
mod tokens;
mod tool;

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::Tool;
use crate::attr::Kind;

pub(crate) use contract::{contract, without_errors};
pub(crate) use public::public_items;

/// Everything `#[tool]` (`#[resource]`, `#[prompt]`) emits for a valid item.
pub(crate) fn expand(tool: &Tool<'_>) -> TokenStream {
    let context_check = reasons::context_check(tool);
    let public = public_items(tool, true);
    let private = match tool.attr.kind {
        Kind::Tool => tool::items(tool),
        Kind::Resource | Kind::Prompt => family::items(tool),
    };
    let unraised = reasons::unused_reason_warnings(tool);
    quote! {
        #context_check
        #public
        #private
        #unraised
    }
}
