//! Small pieces every generated artefact uses: an `Option` or a `String` by absolute path,
//! the description, the scopes.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::LitStr;

use crate::ast::Tool;

/// The description: `description = ".."`, else the doc attributes' text (a string, or
/// `concat!(..)` of lines where one is a macro call), else empty (a resource or prompt may go
/// without; a tool's lack of one is an error).
pub(crate) fn description(tool: &Tool<'_>) -> TokenStream {
    match (&tool.attr.description, &tool.docs) {
        (Some(key), _) => key.value().into_token_stream(),
        (None, Some(doc)) => doc.into_token_stream(),
        (None, None) => quote!(""),
    }
}

/// `Some(value)` or `None`, by absolute path.
pub(crate) fn option(value: Option<impl ToTokens>) -> TokenStream {
    value.map_or_else(|| quote!(::core::option::Option::None), |value| quote!(::core::option::Option::Some(#value)))
}

/// An owned `String` from a literal.
pub(crate) fn string(s: &LitStr) -> TokenStream {
    quote!(::std::borrow::ToOwned::to_owned(#s))
}

/// `scopes(..)` as a `&'static [&'static str]`.
pub(crate) fn scopes(tool: &Tool<'_>) -> TokenStream {
    let scopes = &tool.attr.scopes;
    quote!(&[#(#scopes),*])
}
