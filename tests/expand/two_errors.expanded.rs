use mcp_runtime::prelude::*;
const _: () = ::mcp_runtime::__private::context_of::<
    Ctx<FetchItemError>,
    FetchItemError,
>();
/// Fetches one item.
#[allow(clippy::must_use_candidate)]
const fn fetch_item() -> fetch_item {
    fetch_item {}
}
/// The type of tool `fetch_item`: it holds the handler and implements `ToolDef`.
#[doc(hidden)]
#[allow(non_camel_case_types)]
struct fetch_item {}
impl fetch_item {
    /// The handler of tool `fetch_item`, as written. Call it directly in unit tests; the server calls it through the tool's `ToolDef` impl.
    #[allow(
        clippy::missing_errors_doc,
        clippy::missing_panics_doc,
        clippy::must_use_candidate,
        clippy::needless_pass_by_value
    )]
    async fn handler(
        ctx: &Ctx<FetchItemError>,
        id: String,
    ) -> Result<String, ToolError> {
        Err(
            ctx
                .fail(FetchItemError::NoMatch)
                .message(
                    ::alloc::__export::must_use({
                        ::alloc::fmt::format(format_args!("no item {0}", id))
                    }),
                ),
        )
    }
}
/// The failure reasons of tool `fetch_item`, declared with `#[errors(...)]`. Pass one to `ctx.fail`.
#[allow(dead_code)]
enum FetchItemError {
    /// `no_match`: The id does not exist.
    NoMatch,
    /// `queue_full`: The queue is full.
    QueueFull,
}
#[automatically_derived]
#[doc(hidden)]
#[allow(dead_code)]
unsafe impl ::core::clone::TrivialClone for FetchItemError {}
#[automatically_derived]
#[allow(dead_code)]
impl ::core::clone::Clone for FetchItemError {
    #[inline]
    fn clone(&self) -> FetchItemError {
        *self
    }
}
#[automatically_derived]
#[allow(dead_code)]
impl ::core::marker::Copy for FetchItemError {}
#[automatically_derived]
#[allow(dead_code)]
impl ::core::fmt::Debug for FetchItemError {
    #[inline]
    fn fmt(&self, f: &mut ::core::fmt::Formatter) -> ::core::fmt::Result {
        ::core::fmt::Formatter::write_str(
            f,
            match self {
                FetchItemError::NoMatch => "NoMatch",
                FetchItemError::QueueFull => "QueueFull",
            },
        )
    }
}
#[automatically_derived]
#[allow(dead_code)]
impl ::core::marker::StructuralPartialEq for FetchItemError {}
#[automatically_derived]
#[allow(dead_code)]
impl ::core::cmp::PartialEq for FetchItemError {
    #[inline]
    fn eq(&self, other: &FetchItemError) -> bool {
        let __self_discr = ::core::intrinsics::discriminant_value(self);
        let __arg1_discr = ::core::intrinsics::discriminant_value(other);
        __self_discr == __arg1_discr
    }
}
#[automatically_derived]
#[allow(dead_code)]
impl ::core::cmp::Eq for FetchItemError {
    #[doc(hidden)]
    #[coverage(off)]
    fn assert_fields_are_eq(&self) {}
}
#[automatically_derived]
#[allow(dead_code)]
impl ::core::hash::Hash for FetchItemError {
    #[inline]
    fn hash<__H: ::core::hash::Hasher>(&self, state: &mut __H) {
        let __self_discr = ::core::intrinsics::discriminant_value(self);
        ::core::hash::Hash::hash(&__self_discr, state)
    }
}
impl FetchItemError {
    /// The reason string sent in `data.reason`.
    const fn as_str(self) -> &'static str {
        match self {
            Self::NoMatch => "no_match",
            Self::QueueFull => "queue_full",
        }
    }
}
impl ::mcp_runtime::Contract for FetchItemError {
    const ENTRIES: &'static [::mcp_runtime::ContractEntry] = &[
        ::mcp_runtime::ContractEntry {
            reason: "no_match",
            code: ::mcp_runtime::ErrorCode::NotFound,
            when: "The id does not exist.",
            recovery: "Call search_docs to find a valid id.",
            retryable: ::core::option::Option::None,
            severity: ::core::option::Option::None,
        },
        ::mcp_runtime::ContractEntry {
            reason: "queue_full",
            code: ::mcp_runtime::ErrorCode::RateLimited,
            when: "The queue is full.",
            recovery: "Wait a few seconds, then call fetch_item again.",
            retryable: ::core::option::Option::Some(true),
            severity: ::core::option::Option::None,
        },
    ];
    fn entry(self) -> &'static ::mcp_runtime::ContractEntry {
        &Self::ENTRIES[self as usize]
    }
}
const _: () = {
    use ::mcp_runtime::__private::{self as __mcp, probes::*};
    impl __mcp::ToolDef for fetch_item {
        const INFO: __mcp::ToolInfo = __mcp::ToolInfo {
            input: __mcp::InputSpec::Params(__mcp::params_schema::<Self>),
            contract: ::core::option::Option::Some(
                <FetchItemError as ::mcp_runtime::Contract>::ENTRIES,
            ),
            ..__mcp::ToolInfo::new("fetch_item", "Fetches one item.", "macrotest013")
        };
        const PARAMS: &'static [__mcp::Param] = &[
            __mcp::Param {
                name: "id",
                doc: ::core::option::Option::None,
                ty: __mcp::ParamType::of::<String>(),
                default: ::core::option::Option::None,
            },
        ];
        type Ctx = Ctx<FetchItemError>;
        type Ret = Result<String, ToolError>;
        fn run(
            __mcp_ctx: &Self::Ctx,
            __mcp_args: __mcp::Args,
        ) -> __mcp::Started<impl __mcp::Running<Self::Ret>> {
            let mut __mcp_params = __mcp_args.params::<Self>();
            let id = (&&__mcp::ArgOf::<String>::new()).read(&mut __mcp_params, 0usize);
            let (::core::option::Option::Some(id),) = (id,) else {
                return __mcp::Err(__mcp_params.failure());
            };
            __mcp::Ok(fetch_item::handler(__mcp_ctx, id))
        }
        fn finish(__mcp_out: Self::Ret) -> __mcp::Finished {
            let __mcp_out = match __mcp_out {
                ::core::result::Result::Ok(__mcp_value) => __mcp_value,
                ::core::result::Result::Err(__mcp_error) => {
                    return ::core::result::Result::Err(
                        (&&__mcp::ErrorOf::of(&__mcp_error)).convert(__mcp_error),
                    );
                }
            };
            (&&__mcp::Kind::<String>::new()).finish(__mcp_out)
        }
        fn output_schema(__mcp_gen: &mut __mcp::SchemaGenerator) -> __mcp::OutputSchema {
            (&&__mcp::Kind::<String>::new()).output_schema(__mcp_gen)
        }
    }
};
fn main() {}
