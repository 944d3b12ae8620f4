use mcp_runtime::prelude::*;
const _: () = ::mcp_runtime::__private::context_of::<Ctx<NoteError>, NoteError>();
/// One note, by name.
#[allow(clippy::must_use_candidate)]
const fn note() -> note {
    note {}
}
/// The type of resource `note`: it holds the handler and implements `ResourceDef`.
#[doc(hidden)]
#[allow(non_camel_case_types)]
struct note {}
impl note {
    /// The handler of resource `note`, as written. Call it directly in unit tests; the server calls it through the resource's `ResourceDef` impl.
    #[allow(
        clippy::missing_errors_doc,
        clippy::missing_panics_doc,
        clippy::must_use_candidate,
        clippy::needless_pass_by_value
    )]
    fn handler(ctx: &Ctx<NoteError>, name: String) -> Result<String, ToolError> {
        if name == "locked" {
            return Err(ctx.fail(NoteError::NoteLocked));
        }
        Ok(
            ::alloc::__export::must_use({
                ::alloc::fmt::format(format_args!("# {0}", name))
            }),
        )
    }
}
/// The failure reasons of resource `note`, declared with `#[errors(...)]`. Pass one to `ctx.fail`.
#[allow(dead_code)]
enum NoteError {
    /// `note_locked`: The note is locked by its owner.
    NoteLocked,
}
#[automatically_derived]
#[doc(hidden)]
#[allow(dead_code)]
unsafe impl ::core::clone::TrivialClone for NoteError {}
#[automatically_derived]
#[allow(dead_code)]
impl ::core::clone::Clone for NoteError {
    #[inline]
    fn clone(&self) -> NoteError {
        *self
    }
}
#[automatically_derived]
#[allow(dead_code)]
impl ::core::marker::Copy for NoteError {}
#[automatically_derived]
#[allow(dead_code)]
impl ::core::fmt::Debug for NoteError {
    #[inline]
    fn fmt(&self, f: &mut ::core::fmt::Formatter) -> ::core::fmt::Result {
        ::core::fmt::Formatter::write_str(f, "NoteLocked")
    }
}
#[automatically_derived]
#[allow(dead_code)]
impl ::core::marker::StructuralPartialEq for NoteError {}
#[automatically_derived]
#[allow(dead_code)]
impl ::core::cmp::PartialEq for NoteError {
    #[inline]
    fn eq(&self, other: &NoteError) -> bool {
        true
    }
}
#[automatically_derived]
#[allow(dead_code)]
impl ::core::cmp::Eq for NoteError {
    #[doc(hidden)]
    #[coverage(off)]
    fn assert_fields_are_eq(&self) {}
}
#[automatically_derived]
#[allow(dead_code)]
impl ::core::hash::Hash for NoteError {
    #[inline]
    fn hash<__H: ::core::hash::Hasher>(&self, state: &mut __H) {}
}
impl NoteError {
    /// The reason string sent in `data.reason`.
    const fn as_str(self) -> &'static str {
        match self {
            Self::NoteLocked => "note_locked",
        }
    }
}
impl ::mcp_runtime::Contract for NoteError {
    const ENTRIES: &'static [::mcp_runtime::ContractEntry] = &[
        ::mcp_runtime::ContractEntry {
            reason: "note_locked",
            code: ::mcp_runtime::ErrorCode::Forbidden,
            when: "The note is locked by its owner.",
            recovery: "Ask the owner to unlock the note, then read it again.",
            retryable: ::core::option::Option::None,
            severity: ::core::option::Option::None,
        },
    ];
    fn entry(self) -> &'static ::mcp_runtime::ContractEntry {
        &Self::ENTRIES[self as usize]
    }
}
const _: () = {
    impl ::mcp_runtime::__private::ResourceDef for note {
        fn spec() -> ::mcp_runtime::__private::ResourceSpec {
            ::mcp_runtime::__private::ResourceSpec {
                name: "note",
                title: ::core::option::Option::None,
                description: "One note, by name.",
                icons: ::alloc::vec::Vec::new(),
                module: "macrotest011",
                contract: <NoteError as ::mcp_runtime::Contract>::ENTRIES,
                complete: ::alloc::vec::Vec::new(),
                scopes: &[],
                uri: "notes://{name}",
                template: true,
                mime_type: ::core::option::Option::Some("text/plain"),
                size: ::core::option::Option::None,
                annotations: ::core::option::Option::None,
                read: __mcp_run,
                list: ::core::option::Option::None,
                ui: ::core::option::Option::None,
            }
        }
    }
    /// One request: each parameter read from its text, the handler run, its value
    /// turned into the result.
    fn __mcp_run(
        __mcp_call: ::mcp_runtime::__private::Call,
    ) -> ::mcp_runtime::__private::BoxFuture<
        'static,
        ::core::result::Result<
            ::mcp_runtime::__private::ResourceBody,
            ::mcp_runtime::ToolError,
        >,
    > {
        ::std::boxed::Box::pin(async move {
            let __mcp_ctx = __mcp_call.context::<Ctx<NoteError>>();
            let __mcp_arg1 = __mcp_call.text::<String>("name")?;
            let __mcp_out = note::handler(&__mcp_ctx, __mcp_arg1);
            let __mcp_out = match __mcp_out {
                ::core::result::Result::Ok(__mcp_value) => __mcp_value,
                ::core::result::Result::Err(__mcp_error) => {
                    use ::mcp_runtime::__private::probes::*;
                    return ::core::result::Result::Err(
                        (&&::mcp_runtime::__private::ErrorOf::of(&__mcp_error))
                            .convert(__mcp_error),
                    );
                }
            };
            ::core::result::Result::Ok(
                ::mcp_runtime::IntoResource::into_resource(__mcp_out),
            )
        })
    }
};
fn main() {}
