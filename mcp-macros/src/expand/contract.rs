//! What `#[contract]` emits for a valid enum: the enum as written (its variants' `#[errors]`
//! read and removed; `Clone, Copy, Debug, PartialEq, Eq, Hash` derived), `as_str` and its
//! `Contract` impl holding the static table, in variant order.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::Contract;
use crate::expand::reasons::contract_impls;

pub(crate) fn contract(contract: &Contract<'_>) -> TokenStream {
    let item = without_errors(contract.original);
    // Validated: each variant has one `#[errors]`, with its reason filled in.
    let entries = contract
        .variants
        .iter()
        .filter_map(|v| v.entry().and_then(|e| Some((&v.original.ident, e.reason.as_ref()?, e))));
    let impls = contract_impls(&contract.krate, &quote!(pub), &item.ident, entries, None);
    quote! {
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #item

        #impls
    }
}

/// The enum as written, without its variants' `#[errors]` (which are `#[contract]`'s keys,
/// not attributes of their own).
pub(crate) fn without_errors(item: &syn::ItemEnum) -> syn::ItemEnum {
    let mut item = item.clone();
    for variant in &mut item.variants {
        variant.attrs.retain(|a| !crate::attr::is_attr(a, "errors"));
    }
    item
}
