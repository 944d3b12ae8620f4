//! What `#[tool]` emits when the item has mistakes: the user's items (so that names still
//! resolve and the IDE keeps working), the errors, and a stub `ToolDef` so that
//! `.tool(name)` does not add a second, misleading error.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::Tool;
use crate::expand::{krate, public_items};

pub(crate) fn fallback(tool: &Tool<'_>, errors: &syn::Error) -> TokenStream {
    let public = public_items(tool);
    let errors = errors.to_compile_error();
    let krate = krate(tool);
    let name = &tool.original.sig.ident;
    quote! {
        #public
        #errors
        impl #krate::__private::ToolDef for #name {
            fn spec() -> #krate::__private::ToolSpec {
                ::core::unreachable!("this tool did not compile")
            }
        }
    }
}
