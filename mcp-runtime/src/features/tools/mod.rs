//! The tools family: a `tools/call` from resolution to result (`call`), one run of a
//! handler (`run`), a call that goes on as a task (`task`); what a `#[tool]` is at run time
//! (`tool`: its definition and call wrapper; `params`: its parameters read by their table;
//! `output`: its return value turned into a result; `checks`: the compile-time probes the
//! macro's expansion uses); where a fn without `async` runs (`pace`); and the registry below
//! (`Registered`, `Tools`) with its `tools/list` pages (`list`).

pub(crate) mod call;
pub(crate) mod checks;
pub(crate) mod list;
pub(crate) mod output;
pub(crate) mod pace;
pub(crate) mod params;
pub(crate) mod run;
pub(crate) mod task;
pub(crate) mod tool;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use serde_json::value::RawValue;

use crate::options::Options;
use list::list_pages;
use tool::ToolSpec;

/// One registered tool, ready to serve.
pub(crate) struct Registered {
    pub(crate) spec: ToolSpec,
    pub(crate) input_validator: jsonschema::Validator,
    /// The input schema as listed (hints read property order and `$defs` from it).
    pub(crate) input_schema: Value,
    /// Optional root properties whose Rust type takes `null`: a `null` sent for one of them
    /// is read as absent (the listed schema does not allow `null`, for portability).
    pub(crate) null_means_absent: Box<[String]>,
    pub(crate) output_validator: Option<jsonschema::Validator>,
    pub(crate) descriptor_output: Option<Value>,
    /// The declared failure modes as `tools/list` carries them in `_meta`, when listed.
    pub(crate) failures_meta: Option<Value>,
    /// The Rust type's schema is not an object: values travel as `{"result": …}`.
    pub(crate) wrap_result: bool,
    pub(crate) disabled: Option<String>,
    pub(crate) timeout: Option<Duration>,
    /// Parameters mirrored into `Mcp-Param-*` headers (`x-mcp-header`), checked on
    /// 2026-07-28 HTTP calls.
    pub(crate) header_params: Box<[crate::schema::generate::HeaderParam]>,
    /// How quickly this fn without `async` has run: where its calls run (see `Pace`).
    pub(crate) pace: pace::Pace,
}

impl Registered {
    /// Whether a call of this tool may run where the transport read it (the stdio reader, the
    /// HTTP request's task), with no task of its own: a fn without `async`, with no time
    /// limit (which only the blocking pool can enforce on such a fn), and seen quick often
    /// enough in a row (`Pace::on_reader`). A call that turns out slow holds the reader for
    /// its duration; its tool's calls then run in tasks until it is seen quick twice as often
    /// in a row as before (or on the blocking pool once it is seen to block).
    pub(crate) fn runs_inline(&self) -> bool {
        self.spec.blocking && self.timeout.is_none() && self.pace.on_reader()
    }

    /// Where this tool's failures are rendered: with `structuredContent.error` unless the
    /// tool declares an `outputSchema` and the server keeps the spec's default.
    pub(crate) fn site(&self, options: &Options) -> crate::rpc::envelope::Site<'_> {
        crate::rpc::envelope::Site {
            family: "tool",
            tool: self.spec.name,
            contract: self.spec.contract,
            structured: options.structured_errors || self.output_validator.is_none(),
            causes: options.error_causes,
            drafts: options.drafts,
        }
    }
}

/// The tools served, with their `tools/list` pages serialized once per era: page `i`
/// answers cursor `i`.
pub(crate) struct Tools {
    pub(crate) all: Vec<Arc<Registered>>,
    by_name: HashMap<&'static str, usize>,
    pub(crate) legacy_pages: Vec<Box<RawValue>>,
    pub(crate) modern_pages: Vec<Box<RawValue>>,
}

impl Tools {
    pub(crate) fn get(&self, name: &str) -> Option<&Arc<Registered>> {
        self.by_name.get(name).map(|&i| &self.all[i])
    }

    pub(crate) fn new(tools: Vec<Arc<Registered>>, options: &Options, server_info: &RawValue) -> Tools {
        let by_name = tools.iter().enumerate().map(|(i, t)| (t.spec.name, i)).collect();
        let legacy_pages = list_pages(&tools, options, None);
        let modern_pages = list_pages(&tools, options, Some(server_info));
        Tools { all: tools, by_name, legacy_pages, modern_pages }
    }
}
