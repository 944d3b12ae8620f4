//! The error accumulator: every mistake in one item is reported in one build.

use std::cell::RefCell;
use std::fmt::Display;

use quote::ToTokens;

/// Collects errors while parsing and validating. Dropping it unchecked panics, so a code
/// path that forgets to report what it found cannot compile-and-pass silently.
pub(crate) struct Ctxt {
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    pub(crate) fn new() -> Self {
        Ctxt { errors: RefCell::new(Some(Vec::new())) }
    }

    /// An error spanned at `tokens` (the whole fragment, e.g. `-32004`).
    pub(crate) fn error_spanned_by<T: ToTokens, M: Display>(&self, tokens: T, message: M) {
        self.syn_error(syn::Error::new_spanned(tokens, message));
    }

    /// An error at one span.
    pub(crate) fn error_at<M: Display>(&self, span: proc_macro2::Span, message: M) {
        self.syn_error(syn::Error::new(span, message));
    }

    pub(crate) fn syn_error(&self, err: syn::Error) {
        self.errors.borrow_mut().as_mut().expect("Ctxt used after check").push(err);
    }

    /// All collected errors, combined, or `Ok` when there were none.
    pub(crate) fn check(self) -> syn::Result<()> {
        let mut errors = self.errors.borrow_mut().take().expect("Ctxt checked twice").into_iter();
        let Some(mut combined) = errors.next() else { return Ok(()) };
        for rest in errors {
            combined.combine(rest);
        }
        Err(combined)
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        assert!(std::thread::panicking() || self.errors.borrow().is_none(), "forgot to check for errors");
    }
}
