use mcp_runtime::prelude::*;
/// Builds the monthly report (a long job: always a task for clients that can poll).
#[allow(clippy::must_use_candidate)]
const fn report() -> report {
    report {}
}
/// The type of tool `report`: it holds the handler and implements `ToolDef`.
#[doc(hidden)]
#[allow(non_camel_case_types)]
struct report {}
impl report {
    /// The handler of tool `report`, as written. Call it directly in unit tests; the server calls it through the tool's `ToolDef` impl.
    #[allow(
        clippy::missing_errors_doc,
        clippy::missing_panics_doc,
        clippy::must_use_candidate,
        clippy::needless_pass_by_value
    )]
    async fn handler() -> String {
        "done".into()
    }
}
const _: () = {
    use ::mcp_runtime::__private::{self as __mcp, probes::*};
    impl __mcp::ToolDef for report {
        const INFO: __mcp::ToolInfo = __mcp::ToolInfo {
            task: ::core::option::Option::Some(__mcp::TaskSupport::Required),
            ..__mcp::ToolInfo::new(
                "report",
                "Builds the monthly report (a long job: always a task for clients that can poll).",
                "macrotest015",
            )
        };
        type Ctx = ::mcp_runtime::Ctx;
        type Ret = String;
        fn run(
            _: &Self::Ctx,
            _: __mcp::Args,
        ) -> __mcp::Started<impl __mcp::Running<Self::Ret>> {
            __mcp::Ok(report::handler())
        }
        fn finish(__mcp_out: Self::Ret) -> __mcp::Finished {
            (&&__mcp::Kind::<String>::new()).finish(__mcp_out)
        }
        fn output_schema(__mcp_gen: &mut __mcp::SchemaGenerator) -> __mcp::OutputSchema {
            (&&__mcp::Kind::<String>::new()).output_schema(__mcp_gen)
        }
    }
};
fn main() {}
