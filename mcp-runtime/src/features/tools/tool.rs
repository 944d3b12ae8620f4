//! What `#[tool]` implements, and the generic code that turns it into a served tool.
//!
//! A tool's expansion holds only what depends on its own types: a constant [`ToolInfo`] (its
//! name, description, hints and input schema), the handler's call with its arguments read
//! (checked at each argument's type), and the two conversions chosen by its return type.
//! Everything else — the boxed future a call runs in, the context, the spec the registry
//! keeps — is written once here and monomorphised per tool, so that a crate of many tools
//! type-checks and borrow-checks it once, not once per tool, and an edit re-checks little.

use std::future::Future;
use std::sync::Arc;

use mcp_core::{Contract, ContractEntry, Icon, ToolAnnotations, ToolError};
use schemars::{Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::context::ctx::{BoxFuture, Call, FromCall};
use crate::features::tools::output::Output;
use crate::features::tools::params::{self, Param, Reader};
use crate::schema::generate::InputSpec;

/// What [`ToolDef::run`] returns: the handler's future, or why the arguments cannot be read.
pub type Started<F> = Result<F, ToolError>;

/// What [`ToolDef::finish`] returns.
pub type Finished = Result<Output, ToolError>;

/// What [`ToolDef::output_schema`] returns: the output schema, if the tool has one.
pub type OutputSchema = Option<Schema>;

/// The future [`ToolDef::run`] starts: the handler's, sendable to another thread.
pub trait Running<R>: Future<Output = R> + Send {}

impl<R, F: Future<Output = R> + Send> Running<R> for F {}

/// A tool: what `#[tool]` generates for an annotated fn. Register it with
/// [`ServerBuilder::tool`](crate::ServerBuilder::tool).
pub trait ToolDef: Sized + 'static {
    /// What the tool is: its name, description, hints, input schema and contract.
    const INFO: ToolInfo;
    /// The context parameter's type (`Ctx` when the fn takes none).
    type Ctx: FromCall + Send + Sync + 'static;
    /// What the call's future yields: the handler's value as written (an `async` fn), or
    /// the call's output (a fn without `async`, which has run and been converted by then).
    type Ret;
    /// Reads the arguments and starts the handler: its future, or why the arguments cannot be
    /// read (or, for a fn without `async`, why it failed).
    fn run(ctx: &Self::Ctx, args: Args) -> Started<impl Running<Self::Ret>>;
    /// The handler's value as the call's output.
    fn finish(ret: Self::Ret) -> Finished;
    /// The plain parameters, in the fn's order (`#[input]` tools and tools without
    /// parameters have none): the input schema and [`Args::params`] read this table.
    const PARAMS: &'static [Param] = &[];
    /// The output schema, chosen by the return type.
    fn output_schema(generator: &mut SchemaGenerator) -> OutputSchema;

    /// Everything the registry keeps about the tool.
    fn spec() -> ToolSpec {
        spec::<Self>()
    }
}

/// A tool's description, as constant data: `#[tool]` writes the fields that differ from
/// [`ToolInfo::new`]'s.
#[allow(clippy::struct_excessive_bools)] // independent settings, not states
pub struct ToolInfo {
    /// The name on the wire.
    pub name: &'static str,
    /// A human-readable title.
    pub title: Option<&'static str>,
    /// What the tool does (the fn's doc comment).
    pub description: &'static str,
    /// Behaviour hints.
    pub annotations: Option<Hints>,
    /// Icons.
    pub icons: &'static [IconInfo],
    /// `_meta` entries.
    pub meta: fn() -> Vec<(&'static str, Value)>,
    /// `#[tool(ui = "ui://..", visibility(..))]`: the MCP Apps view of its results, and who
    /// may call it (`_meta.ui`).
    pub ui: Option<crate::features::apps::ToolUi>,
    /// `#[tool(timeout_ms = ..)]`.
    pub timeout_ms: Option<u64>,
    /// `#[tool(task = ..)]`: whether a call may (must) go on as a task.
    pub task: Option<TaskSupport>,
    /// `#[tool(scopes(..))]`: the scopes a caller's token must grant to call it.
    pub scopes: &'static [&'static str],
    /// How the input schema is made.
    pub input: InputSpec,
    /// `#[tool(allow_unknown_args)]`.
    pub allow_unknown_args: bool,
    /// `#[tool(repair = false)]` turns input repairs off for this tool (default on).
    pub repair: bool,
    /// `#[tool(needs_session)]`.
    pub needs_session: bool,
    /// The handler asks the client (`ctx.ask(..)`, `ctx.consent(..)`, or `#[tool(asks)]`).
    pub asks: bool,
    /// `#[tool(app_data(..))]`: the app data types the handler reads.
    pub app_data: &'static [AppDataOf],
    /// The fn is not `async`.
    pub blocking: bool,
    /// The module the tool is defined in (`module_path!()`).
    pub module: &'static str,
    /// The declared failure modes: the tool's own or `contract = X`'s; `None` takes those of
    /// the context's type (`&Ctx<X>`), or none.
    pub contract: Option<&'static [ContractEntry]>,
}

impl ToolInfo {
    /// An `async` tool without parameters, hints, icons or contract.
    pub const fn new(name: &'static str, description: &'static str, module: &'static str) -> Self {
        ToolInfo {
            name,
            title: None,
            description,
            annotations: None,
            icons: &[],
            meta: Vec::new,
            ui: None,
            timeout_ms: None,
            task: None,
            scopes: &[],
            input: InputSpec::Empty,
            allow_unknown_args: false,
            repair: true,
            needs_session: false,
            asks: false,
            app_data: &[],
            blocking: false,
            module,
            contract: None,
        }
    }
}

/// An app data type a tool reads: its `TypeId` and its name.
pub type AppDataOf = fn() -> (std::any::TypeId, &'static str);

/// The [`AppDataOf`] of `T`; `T` must be a value `ServerBuilder::app_data` takes.
pub fn app_data_of<T: Send + Sync + 'static>() -> (std::any::TypeId, &'static str) {
    (std::any::TypeId::of::<T>(), std::any::type_name::<T>())
}

/// How a tool takes part in the tasks extension (`io.modelcontextprotocol/tasks`), as
/// `#[tool(task = "optional")]` or `#[tool(task = "required")]` declares it. A tool without
/// it is always answered inline.
///
/// Only a 2026-07-28 request whose `_meta` client capabilities declare the extension can be
/// answered with a task; see [`Ctx::run_as_task`](crate::Ctx::run_as_task) and
/// [`ServerBuilder::task_after`](crate::ServerBuilder::task_after).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskSupport {
    /// The call goes on as a task when the handler asks for it (`ctx.run_as_task()`) or
    /// outlives the server's `task_after`; otherwise it is answered inline. A client without
    /// the extension always gets the answer inline.
    Optional,
    /// Every call of a client that declared the extension is a task (what the handler
    /// decides before its first wait, an answer or an ask, is served as usual, an answer as
    /// a task that is already complete). A 2026-07-28 client without the extension is
    /// refused with `-32021`; a 2025 session with the `client_capability_missing` error.
    Required,
}

/// [`ToolAnnotations`] as constant data.
#[derive(Clone, Copy)]
pub struct Hints {
    /// A human-readable title.
    pub title: Option<&'static str>,
    /// The tool does not modify its environment.
    pub read_only_hint: Option<bool>,
    /// The tool may perform destructive updates.
    pub destructive_hint: Option<bool>,
    /// Calling it again with the same arguments has no further effect.
    pub idempotent_hint: Option<bool>,
    /// The tool talks to an open world of external entities.
    pub open_world_hint: Option<bool>,
}

impl Hints {
    /// No hint.
    pub const NONE: Hints = Hints {
        title: None,
        read_only_hint: None,
        destructive_hint: None,
        idempotent_hint: None,
        open_world_hint: None,
    };

    fn annotations(self) -> ToolAnnotations {
        ToolAnnotations {
            title: self.title.map(str::to_owned),
            read_only_hint: self.read_only_hint,
            destructive_hint: self.destructive_hint,
            idempotent_hint: self.idempotent_hint,
            open_world_hint: self.open_world_hint,
        }
    }
}

/// An [`Icon`] as constant data.
#[derive(Clone, Copy)]
pub struct IconInfo {
    /// A URI (https or data:) of the image.
    pub src: &'static str,
    /// Its MIME type.
    pub mime_type: Option<&'static str>,
    /// Sizes such as `48x48` or `any`.
    pub sizes: Option<&'static [&'static str]>,
    /// `light` or `dark`.
    pub theme: Option<&'static str>,
}

impl IconInfo {
    fn icon(&self) -> Icon {
        Icon {
            src: self.src.to_owned(),
            mime_type: self.mime_type.map(str::to_owned),
            sizes: self.sizes.map(|s| s.iter().map(|&s| s.to_owned()).collect()),
            theme: self.theme.map(str::to_owned),
        }
    }
}

/// Everything the runtime needs to know about one tool, made from its [`ToolDef`] impl.
#[allow(clippy::struct_excessive_bools)] // independent settings, not states
pub struct ToolSpec {
    /// The name on the wire.
    pub name: &'static str,
    /// A human-readable title.
    pub title: Option<&'static str>,
    /// What the tool does (the fn's doc comment).
    pub description: &'static str,
    /// Behaviour hints.
    pub annotations: Option<ToolAnnotations>,
    /// Icons.
    pub icons: Vec<Icon>,
    /// `_meta` entries (`ui` first, for a tool with a view).
    pub meta: Vec<(&'static str, Value)>,
    /// `#[tool(ui = "ui://..", visibility(..))]`: the MCP Apps view of its results; `build()`
    /// refuses a view the server does not serve.
    pub ui: Option<crate::features::apps::ToolUi>,
    /// How the input schema is made.
    pub input: InputSpec,
    /// `#[tool(allow_unknown_args)]`: the input schema does not reject unknown keys.
    pub allow_unknown_args: bool,
    /// `#[tool(repair = false)]` is `false`: arguments that fail the input schema are
    /// refused as sent, never repaired (docs/errors.md#repairs). Default `true`.
    pub repair: bool,
    /// `#[tool(needs_session)]`: the tool relies on a session (state across requests); a
    /// server that serves HTTP without sessions refuses to build with it.
    pub needs_session: bool,
    /// The handler asks the client (elicitation, sampling, roots, consent): over HTTP without
    /// sessions a 2025-era client cannot be asked, which `build()` warns about (or refuses,
    /// with `ServerBuilder::deny_stateless_asks`).
    pub asks: bool,
    /// `#[tool(app_data(..))]`: the app data types the handler reads (`ctx.app_data::<T>()`);
    /// `build()` fails naming one that was not registered.
    pub app_data: &'static [AppDataOf],
    /// The fn is not `async`, so it may block: with a time limit, or while its runs keep
    /// holding their thread past a millisecond (two in a row move it; sustained quick runs
    /// bring it back), it runs on the blocking pool.
    pub blocking: bool,
    /// The module the tool is defined in (`module_path!()`): `tracing` events from its crate,
    /// raised while it runs, reach the client.
    pub module: &'static str,
    /// The output schema, when the tool returns structured output.
    pub output_schema: fn(&mut SchemaGenerator) -> Option<Schema>,
    /// `#[tool(timeout_ms = ..)]`.
    pub timeout_ms: Option<u64>,
    /// `#[tool(task = ..)]`: whether a call may (must) go on as a task.
    pub task: Option<TaskSupport>,
    /// `#[tool(scopes(..))]`: the scopes a caller's token must grant to call it.
    pub scopes: &'static [&'static str],
    /// The declared failure modes.
    pub contract: &'static [ContractEntry],
    /// Runs one call.
    pub call: fn(Call) -> BoxFuture<'static, Result<Output, ToolError>>,
}

/// A call's arguments, already validated against the input schema.
pub struct Args {
    tool: &'static str,
    value: Arc<Value>,
}

impl Args {
    /// Deserializes them. Arguments that passed the schema but that serde still cannot read
    /// are an `invalid_arguments` failure (the schema is looser than the Rust type).
    pub fn parse<A: DeserializeOwned>(self) -> Result<A, ToolError> {
        crate::schema::validate::deserialize_args(self.tool, &self.value)
    }

    /// A reader of tool `T`'s plain parameters ([`ToolDef::PARAMS`]); unknown keys are
    /// refused unless `#[tool(allow_unknown_args)]`.
    #[must_use]
    pub fn params<T: ToolDef>(self) -> Reader {
        Reader::new(self.tool, self.value, T::PARAMS, !T::INFO.allow_unknown_args)
    }
}

/// The spec the registry keeps of tool `T`: what [`ToolSpec::new`] makes of its constants,
/// its output schema and [`call`].
pub(crate) fn spec<T: ToolDef>() -> ToolSpec {
    let contract = T::INFO.contract.unwrap_or(<<T::Ctx as FromCall>::Contract as Contract>::ENTRIES);
    ToolSpec::new(T::INFO, T::output_schema, call::<T>, contract)
}

impl ToolSpec {
    /// Not generic, so that it is compiled once, not once per tool.
    fn new(
        info: ToolInfo,
        output_schema: fn(&mut SchemaGenerator) -> OutputSchema,
        call: fn(Call) -> BoxFuture<'static, Result<Output, ToolError>>,
        contract: &'static [ContractEntry],
    ) -> ToolSpec {
        ToolSpec {
            name: info.name,
            title: info.title,
            description: info.description,
            annotations: info.annotations.map(Hints::annotations),
            icons: info.icons.iter().map(IconInfo::icon).collect(),
            meta: info.ui.iter().map(crate::features::apps::ToolUi::meta_entry).chain((info.meta)()).collect(),
            ui: info.ui,
            input: info.input,
            allow_unknown_args: info.allow_unknown_args,
            repair: info.repair,
            needs_session: info.needs_session,
            asks: info.asks,
            app_data: info.app_data,
            blocking: info.blocking,
            module: info.module,
            output_schema,
            timeout_ms: info.timeout_ms,
            task: info.task,
            scopes: info.scopes,
            contract,
            call,
        }
    }
}

/// One call of tool `T`: the context is built, the arguments read, the handler run, and its
/// value made the call's output.
fn call<T: ToolDef>(call: Call) -> BoxFuture<'static, Result<Output, ToolError>> {
    Box::pin(async move {
        let args = Args { tool: call.info.tool, value: call.args };
        let ctx = T::Ctx::from_call(call.info);
        let ret = T::run(&ctx, args)?.await;
        T::finish(ret)
    })
}

/// The input schema of tool `T`'s plain parameters ([`ToolDef::PARAMS`]).
pub fn params_schema<T: ToolDef>(generator: &mut SchemaGenerator) -> Schema {
    crate::schema::generate::root_schema::<ParamsOf<T>>(generator)
}

/// The plain parameters of tool `T` as a type, for schemars: the root schema is made the way
/// schemars makes any (`$defs`, the meta-schema, the generator's transforms).
struct ParamsOf<T>(std::marker::PhantomData<T>);

impl<T: ToolDef> schemars::JsonSchema for ParamsOf<T> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "__McpArgs".into()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        std::any::type_name::<T>().into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        params::object_schema(T::PARAMS, !T::INFO.allow_unknown_args, generator)
    }
}
