use mcp_runtime::prelude::*;
/// Adds two integers.
#[allow(clippy::must_use_candidate)]
const fn add() -> add {
    add {}
}
/// The type of tool `add`: it holds the handler and implements `ToolDef`.
#[doc(hidden)]
#[allow(non_camel_case_types)]
struct add {}
impl add {
    /// The handler of tool `add`, as written. Call it directly in unit tests; the server calls it through the tool's `ToolDef` impl.
    #[allow(
        clippy::missing_errors_doc,
        clippy::missing_panics_doc,
        clippy::must_use_candidate,
        clippy::needless_pass_by_value
    )]
    fn handler(a: i64, b: Option<i64>) -> String {
        (a + b.unwrap_or(0)).to_string()
    }
}
const _: () = {
    use ::mcp_runtime::__private::{self as __mcp, probes::*};
    fn __mcp_default_1() -> ::core::option::Option<__mcp::Value> {
        (&&__mcp::DefaultOf::<Option<i64>>::new())
            .json(<Option<i64> as ::core::default::Default>::default)
    }
    impl __mcp::ToolDef for add {
        const INFO: __mcp::ToolInfo = __mcp::ToolInfo {
            annotations: ::core::option::Option::Some(__mcp::Hints {
                read_only_hint: ::core::option::Option::Some(true),
                ..__mcp::Hints::NONE
            }),
            input: __mcp::InputSpec::Params(__mcp::params_schema::<Self>),
            blocking: true,
            ..__mcp::ToolInfo::new("add", "Adds two integers.", "macrotest007")
        };
        const PARAMS: &'static [__mcp::Param] = &[
            __mcp::Param {
                name: "a",
                doc: ::core::option::Option::Some("The first addend."),
                ty: __mcp::ParamType::of::<i64>(),
                default: ::core::option::Option::None,
            },
            __mcp::Param {
                name: "b",
                doc: ::core::option::Option::Some("The second addend."),
                ty: __mcp::ParamType::of::<Option<i64>>(),
                default: ::core::option::Option::Some(__mcp_default_1),
            },
        ];
        type Ctx = ::mcp_runtime::Ctx;
        type Ret = __mcp::Finished;
        fn run(
            _: &Self::Ctx,
            __mcp_args: __mcp::Args,
        ) -> __mcp::Started<impl __mcp::Running<Self::Ret>> {
            let mut __mcp_params = __mcp_args.params::<Self>();
            let a = (&&__mcp::ArgOf::<i64>::new()).read(&mut __mcp_params, 0usize);
            let b = (&&__mcp::ArgOf::<Option<i64>>::new())
                .read_or(
                    &mut __mcp_params,
                    1usize,
                    <Option<i64> as ::core::default::Default>::default,
                );
            let (::core::option::Option::Some(a), ::core::option::Option::Some(b)) = (
                a,
                b,
            ) else {
                return __mcp::Err(__mcp_params.failure());
            };
            let __mcp_out = add::handler(a, b);
            ::core::result::Result::Ok(
                ::core::future::ready((&&__mcp::Kind::<String>::new()).finish(__mcp_out)),
            )
        }
        fn finish(__mcp_out: Self::Ret) -> __mcp::Finished {
            __mcp_out
        }
        fn output_schema(__mcp_gen: &mut __mcp::SchemaGenerator) -> __mcp::OutputSchema {
            (&&__mcp::Kind::<String>::new()).output_schema(__mcp_gen)
        }
    }
};
fn main() {}
