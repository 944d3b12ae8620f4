//! `#[contract]`: one set of failure modes declared on an enum and shared by several tools
//! and the services they call.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{ItemEnum, LitStr};

use crate::attr;
use crate::ctxt::Ctxt;
use crate::text::snake_case;

pub(crate) fn expand(args: TokenStream, mut item: ItemEnum) -> TokenStream {
    let cx = Ctxt::new();
    let krate = if args.is_empty() {
        crate::expand::runtime_path()
    } else {
        match syn::parse2::<CrateArg>(args) {
            Ok(CrateArg(path)) => quote!(#path),
            Err(e) => {
                cx.syn_error(e);
                crate::expand::runtime_path()
            }
        }
    };
    let mut entries: Vec<(syn::Ident, LitStr, attr::ErrorsAttr)> = Vec::new();
    for variant in &mut item.variants {
        if !matches!(variant.fields, syn::Fields::Unit) {
            cx.error_spanned_by(&variant.fields, "a `#[contract]` variant names a failure reason and carries no fields; attach data at the throw site with `.data(..)`");
        }
        if let Some((_, d)) = &variant.discriminant {
            cx.error_spanned_by(
                d,
                "a `#[contract]` variant takes no discriminant: the variant's position indexes the contract table",
            );
        }
        let (errors, rest): (Vec<_>, Vec<_>) = variant.attrs.drain(..).partition(|a| attr::is_attr(a, "errors"));
        variant.attrs = rest;
        let mut attrs: Vec<_> = errors.iter().map(|a| attr::parse_errors_attr(&cx, a)).collect();
        if attrs.len() != 1 {
            cx.error_spanned_by(
                &variant.ident,
                "each `#[contract]` variant takes exactly one `#[errors(code = .., when = \"..\", recovery = \"..\")]`",
            );
            continue;
        }
        let mut e = attrs.remove(0);
        let reason = e
            .reason
            .get_or_insert_with(|| LitStr::new(&snake_case(&variant.ident.to_string()), variant.ident.span()))
            .clone();
        crate::validate::error_entry(&cx, &e);
        // Reasons are unique: a variant's own (`NoSuchNote` → `no_such_note`) and the ones
        // written out (`reason = "no_such_note"`) alike.
        let value = reason.value();
        if let Some((first, first_reason, _)) = entries.iter().find(|(_, r, _)| r.value() == value) {
            cx.error_spanned_by(
                &reason,
                format!(
                    "duplicate reason `{value}`: variants `{first}` and `{}` both declare it; each failure mode of a contract has its own reason",
                    variant.ident
                ),
            );
            cx.error_spanned_by(first_reason, format!("note: `{value}` first declared here, by variant `{first}`"));
        }
        entries.push((variant.ident.clone(), reason, e));
    }
    let check = cx.check();
    let ident = &item.ident;
    let impls = crate::expand::contract_impls(
        &krate,
        &quote!(pub),
        ident,
        entries.iter().map(|(variant, reason, e)| (variant, reason, e)),
        None,
    );
    let errors = check.err().map(|e| e.to_compile_error());
    quote! {
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #item

        #impls

        #errors
    }
}

/// `#[contract(crate = path)]`.
struct CrateArg(syn::Path);

impl syn::parse::Parse for CrateArg {
    fn parse(input: syn::parse::ParseStream<'_>) -> syn::Result<Self> {
        let key: syn::Token![crate] = input.parse()?;
        let _ = key;
        input.parse::<syn::Token![=]>()?;
        Ok(CrateArg(input.parse()?))
    }
}
