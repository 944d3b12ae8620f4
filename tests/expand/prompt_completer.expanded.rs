use mcp_runtime::prelude::*;
/// Asks for a summary of a note.
#[allow(clippy::must_use_candidate)]
const fn summarize() -> summarize {
    summarize {}
}
/// The type of prompt `summarize`: it holds the handler and implements `PromptDef`.
#[doc(hidden)]
#[allow(non_camel_case_types)]
struct summarize {}
impl summarize {
    /// The handler of prompt `summarize`, as written. Call it directly in unit tests; the server calls it through the prompt's `PromptDef` impl.
    #[allow(
        clippy::missing_errors_doc,
        clippy::missing_panics_doc,
        clippy::must_use_candidate,
        clippy::needless_pass_by_value
    )]
    async fn handler(name: String, style: Option<String>) -> String {
        ::alloc::__export::must_use({
            ::alloc::fmt::format(
                format_args!("Summarize {1} ({0}).", style.unwrap_or_default(), name),
            )
        })
    }
}
const _: () = {
    impl ::mcp_runtime::__private::PromptDef for summarize {
        fn spec() -> ::mcp_runtime::__private::PromptSpec {
            ::mcp_runtime::__private::PromptSpec {
                name: "summarize",
                title: ::core::option::Option::None,
                description: "Asks for a summary of a note.",
                icons: ::alloc::vec::Vec::new(),
                module: "macrotest009",
                contract: &[],
                complete: ::alloc::boxed::box_assume_init_into_vec_unsafe(
                    ::alloc::intrinsics::write_box_via_move(
                        ::alloc::boxed::Box::new_uninit(),
                        [
                            (
                                "name",
                                __mcp_complete0 as ::mcp_runtime::__private::Completer,
                            ),
                        ],
                    ),
                ),
                scopes: &[],
                arguments: ::alloc::boxed::box_assume_init_into_vec_unsafe(
                    ::alloc::intrinsics::write_box_via_move(
                        ::alloc::boxed::Box::new_uninit(),
                        [
                            ::mcp_runtime::__private::PromptArgument {
                                name: "name",
                                description: ::core::option::Option::Some(
                                    "The note's name.",
                                ),
                                required: <String as ::mcp_runtime::TextValue>::REQUIRED,
                            },
                            ::mcp_runtime::__private::PromptArgument {
                                name: "style",
                                description: ::core::option::Option::Some(
                                    "`short` or `long`.",
                                ),
                                required: <Option<
                                    String,
                                > as ::mcp_runtime::TextValue>::REQUIRED,
                            },
                        ],
                    ),
                ),
                get: __mcp_run,
            }
        }
    }
    /// One request: each parameter read from its text, the handler run, its value
    /// turned into the result.
    fn __mcp_run(
        __mcp_call: ::mcp_runtime::__private::Call,
    ) -> ::mcp_runtime::__private::BoxFuture<
        'static,
        ::core::result::Result<::mcp_runtime::PromptResult, ::mcp_runtime::ToolError>,
    > {
        ::std::boxed::Box::pin(async move {
            let __mcp_arg0 = __mcp_call.text::<String>("name")?;
            let __mcp_arg1 = __mcp_call.text::<Option<String>>("style")?;
            let __mcp_out = summarize::handler(__mcp_arg0, __mcp_arg1).await;
            ::core::result::Result::Ok(::mcp_runtime::IntoPrompt::into_prompt(__mcp_out))
        })
    }
    fn __mcp_complete0(
        __mcp_call: ::mcp_runtime::__private::Call,
    ) -> ::mcp_runtime::__private::BoxFuture<
        'static,
        ::core::result::Result<
            ::std::vec::Vec<::std::string::String>,
            ::mcp_runtime::ToolError,
        >,
    > {
        ::std::boxed::Box::pin(async move {
            let __mcp_ctx = __mcp_call.context::<::mcp_runtime::Ctx>();
            let __mcp_value = __mcp_call.text::<::std::string::String>("value")?;
            use ::mcp_runtime::__private::probes::*;
            let __mcp_out = note_names(&__mcp_ctx, __mcp_value);
            (&&::mcp_runtime::__private::CompletionOf::of(&__mcp_out))
                .complete(__mcp_out)
                .await
        })
    }
};
fn note_names(_ctx: &Ctx, typed: String) -> Vec<String> {
    ::alloc::boxed::box_assume_init_into_vec_unsafe(
        ::alloc::intrinsics::write_box_via_move(
            ::alloc::boxed::Box::new_uninit(),
            [typed],
        ),
    )
}
fn main() {}
