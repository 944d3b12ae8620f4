use mcp_runtime::prelude::*;
/// Draws the values as a bar chart.
#[allow(clippy::must_use_candidate)]
const fn chart() -> chart {
    chart {}
}
/// The type of tool `chart`: it holds the handler and implements `ToolDef`.
#[doc(hidden)]
#[allow(non_camel_case_types)]
struct chart {}
impl chart {
    /// The handler of tool `chart`, as written. Call it directly in unit tests; the server calls it through the tool's `ToolDef` impl.
    #[allow(
        clippy::missing_errors_doc,
        clippy::missing_panics_doc,
        clippy::must_use_candidate,
        clippy::needless_pass_by_value
    )]
    async fn handler(values: Vec<f64>) -> String {
        ::alloc::__export::must_use({
            ::alloc::fmt::format(format_args!("{0} values", values.len()))
        })
    }
}
const _: () = {
    use ::mcp_runtime::__private::{self as __mcp, probes::*};
    impl __mcp::ToolDef for chart {
        const INFO: __mcp::ToolInfo = __mcp::ToolInfo {
            ui: ::core::option::Option::Some(::mcp_runtime::apps::ToolUi {
                resource_uri: ::core::option::Option::Some("ui://chart/view.html"),
                visibility: &["model", "app"],
            }),
            input: __mcp::InputSpec::Params(__mcp::params_schema::<Self>),
            ..__mcp::ToolInfo::new(
                "chart",
                "Draws the values as a bar chart.",
                "macrotest001",
            )
        };
        const PARAMS: &'static [__mcp::Param] = &[
            __mcp::Param {
                name: "values",
                doc: ::core::option::Option::None,
                ty: __mcp::ParamType::of::<Vec<f64>>(),
                default: ::core::option::Option::None,
            },
        ];
        type Ctx = ::mcp_runtime::Ctx;
        type Ret = String;
        fn run(
            _: &Self::Ctx,
            __mcp_args: __mcp::Args,
        ) -> __mcp::Started<impl __mcp::Running<Self::Ret>> {
            let mut __mcp_params = __mcp_args.params::<Self>();
            let values = (&&__mcp::ArgOf::<Vec<f64>>::new())
                .read(&mut __mcp_params, 0usize);
            let (::core::option::Option::Some(values),) = (values,) else {
                return __mcp::Err(__mcp_params.failure());
            };
            __mcp::Ok(chart::handler(values))
        }
        fn finish(__mcp_out: Self::Ret) -> __mcp::Finished {
            (&&__mcp::Kind::<String>::new()).finish(__mcp_out)
        }
        fn output_schema(__mcp_gen: &mut __mcp::SchemaGenerator) -> __mcp::OutputSchema {
            (&&__mcp::Kind::<String>::new()).output_schema(__mcp_gen)
        }
    }
};
/// The chart's view.
#[allow(clippy::must_use_candidate)]
const fn chart_view() -> chart_view {
    chart_view {}
}
/// The type of resource `chart_view`: it holds the handler and implements `ResourceDef`.
#[doc(hidden)]
#[allow(non_camel_case_types)]
struct chart_view {}
impl chart_view {
    /// The handler of resource `chart_view`, as written. Call it directly in unit tests; the server calls it through the resource's `ResourceDef` impl.
    #[allow(
        clippy::missing_errors_doc,
        clippy::missing_panics_doc,
        clippy::must_use_candidate,
        clippy::needless_pass_by_value
    )]
    fn handler() -> &'static str {
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Chart</title></head><body></body></html>"
    }
}
const _: () = {
    impl ::mcp_runtime::__private::ResourceDef for chart_view {
        fn spec() -> ::mcp_runtime::__private::ResourceSpec {
            ::mcp_runtime::__private::ResourceSpec {
                name: "chart_view",
                title: ::core::option::Option::None,
                description: "The chart's view.",
                icons: ::alloc::vec::Vec::new(),
                module: "macrotest001",
                contract: &[],
                complete: ::alloc::vec::Vec::new(),
                scopes: &[],
                uri: "ui://chart/view.html",
                template: false,
                mime_type: ::core::option::Option::Some(::mcp_runtime::apps::MIME_TYPE),
                size: ::core::option::Option::None,
                annotations: ::core::option::Option::None,
                read: __mcp_run,
                list: ::core::option::Option::None,
                ui: ::core::option::Option::Some(::mcp_runtime::apps::UiResource {
                    connect_domains: &["https://api.example.com"],
                    resource_domains: &[],
                    frame_domains: &[],
                    base_uri_domains: &[],
                    permissions: &[],
                    domain: ::core::option::Option::None,
                    prefers_border: ::core::option::Option::Some(true),
                }),
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
            let __mcp_out = chart_view::handler();
            ::core::result::Result::Ok(
                ::mcp_runtime::IntoResource::into_resource(__mcp_out),
            )
        })
    }
};
fn main() {}
