//! What a handler's return value becomes. The macro knows the return type; these traits
//! pick, at compile time, between plain content and structured output.
//!
//! `(&&Kind::<T>::new()).finish(value)` resolves to [`ContentKind`] when `T` is text or
//! content blocks (it is implemented for `&Kind<T>`, one reference closer), and to
//! [`StructuredKind`] when `T: Serialize + JsonSchema`. A `String` is both; content wins.
//! Any other `T` falls through `Kind`'s `Deref` to [`UnsupportedKind`], whose methods ask
//! for [`ToolOutput`], a trait no type implements: the compiler then says, at the return
//! type, what a tool may return.

use std::marker::PhantomData;

use mcp_core::{CallToolResult, Content, IntoContents, ToolError};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Serialize;
use serde_json::Value;

/// A handler's successful value, before the runtime validates and renders it.
#[derive(Debug)]
pub enum Output {
    /// Plain content, or a whole result passed through as the handler built it.
    Contents(CallToolResult),
    /// A value for `structuredContent` (wrapped as `{"result": …}` when the tool's schema is
    /// not an object), rendered as a JSON text block followed by `extra`.
    Structured {
        /// The value.
        value: Value,
        /// Content blocks sent after the JSON text block.
        extra: Vec<Content>,
    },
}

/// Structured output with more: content blocks beside the value, or a whole
/// `CallToolResult` built by hand. The tool still declares `T`'s output schema, and the
/// runtime checks the result against it.
///
/// ```
/// use mcp_runtime::{Content, Structured};
/// # #[derive(serde::Serialize, schemars::JsonSchema)] struct Report { lines: u32 }
/// let out = Structured::new(Report { lines: 3 }).with_content(vec![Content::image("iVBORw0KGgo=", "image/png")]);
/// # let _ = out;
/// ```
#[derive(Debug)]
pub struct Structured<T> {
    repr: Repr<T>,
}

#[derive(Debug)]
enum Repr<T> {
    Value { value: T, extra: Vec<Content> },
    Raw(CallToolResult),
}

impl<T> Structured<T> {
    /// The value, sent as `structuredContent` and as a JSON text block.
    pub fn new(value: T) -> Self {
        Structured { repr: Repr::Value { value, extra: Vec::new() } }
    }

    /// Adds content blocks after the JSON text block.
    #[must_use]
    pub fn with_content(mut self, blocks: Vec<Content>) -> Self {
        if let Repr::Value { extra, .. } = &mut self.repr {
            extra.extend(blocks);
        }
        self
    }

    /// A result built by hand. Its `structuredContent` must still conform to `T`'s schema.
    pub fn raw(result: CallToolResult) -> Self {
        Structured { repr: Repr::Raw(result) }
    }
}

/// Values with an output schema: any `Serialize + JsonSchema` type, and [`Structured`].
pub trait IntoStructured {
    /// The type whose schema is the output schema.
    type Schema: JsonSchema;
    /// The output.
    fn into_output(self) -> Result<Output, ToolError>;
}

impl<T: Serialize + JsonSchema> IntoStructured for T {
    type Schema = T;

    fn into_output(self) -> Result<Output, ToolError> {
        structured(serde_json::to_value(self), Vec::new())
    }
}

impl<T: Serialize + JsonSchema> IntoStructured for Structured<T> {
    type Schema = T;

    fn into_output(self) -> Result<Output, ToolError> {
        match self.repr {
            Repr::Value { value, extra } => structured(serde_json::to_value(value), extra),
            Repr::Raw(result) => Ok(Output::Contents(result)),
        }
    }
}

/// The output of a value serialized (not generic: compiled once, not once per output type).
fn structured(value: Result<Value, serde_json::Error>, extra: Vec<Content>) -> Result<Output, ToolError> {
    Ok(Output::Structured { value: value.map_err(ToolError::from)?, extra })
}

/// A zero-sized probe for the return type `T`.
pub struct Kind<T>(Unsupported<T>);

impl<T> Kind<T> {
    /// The probe.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        Kind(Unsupported(PhantomData))
    }
}

impl<T> std::ops::Deref for Kind<T> {
    type Target = Unsupported<T>;

    fn deref(&self) -> &Unsupported<T> {
        &self.0
    }
}

/// Text and content blocks: no output schema.
pub trait ContentKind {
    /// The return type.
    type Value;
    /// `None`.
    fn output_schema(&self, generator: &mut SchemaGenerator) -> Option<Schema>;
    /// The content.
    fn finish(&self, value: Self::Value) -> Result<Output, ToolError>;
}

impl<T: IntoContents> ContentKind for &Kind<T> {
    type Value = T;

    fn output_schema(&self, _: &mut SchemaGenerator) -> Option<Schema> {
        None
    }

    fn finish(&self, value: T) -> Result<Output, ToolError> {
        Ok(Output::Contents(value.into_call_result()))
    }
}

/// Values with an output schema and `structuredContent`.
pub trait StructuredKind {
    /// The return type.
    type Value;
    /// The type's schema.
    fn output_schema(&self, generator: &mut SchemaGenerator) -> Option<Schema>;
    /// The value as JSON.
    fn finish(&self, value: Self::Value) -> Result<Output, ToolError>;
}

impl<T: IntoStructured> StructuredKind for Kind<T> {
    type Value = T;

    fn output_schema(&self, generator: &mut SchemaGenerator) -> Option<Schema> {
        Some(crate::schema::generate::root_schema::<T::Schema>(generator))
    }

    fn finish(&self, value: T) -> Result<Output, ToolError> {
        value.into_output()
    }
}

/// The probe's last stop: a return type that is neither content nor structured.
pub struct Unsupported<T>(PhantomData<fn() -> T>);

/// What a tool may return. No type implements it: it is asked for only when the return
/// type is neither content nor `Serialize + JsonSchema`, to carry the message below.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned by a tool",
    label = "neither content nor `Serialize + JsonSchema`",
    note = "a tool returns text (`String`, `&'static str`), content blocks (`Content`, `Vec<Content>`, `CallToolResult`), or a value whose type derives both `serde::Serialize` and `schemars::JsonSchema` (sent as `structuredContent`); any of these may be wrapped in `Result<_, E>`"
)]
pub trait ToolOutput {}

/// Return types that are neither: the methods exist so that the calls resolve, and
/// `output_schema` requires [`ToolOutput`]. (`#[tool]` always emits both calls; one error is
/// enough.)
pub trait UnsupportedKind<T> {
    /// Never called.
    fn output_schema(&self, generator: &mut SchemaGenerator) -> Option<Schema>
    where
        T: ToolOutput;
    /// Never called.
    fn finish(&self, value: T) -> Result<Output, ToolError>;
}

impl<T> UnsupportedKind<T> for Unsupported<T> {
    fn output_schema(&self, _: &mut SchemaGenerator) -> Option<Schema>
    where
        T: ToolOutput,
    {
        unreachable!("no type implements ToolOutput")
    }

    fn finish(&self, _: T) -> Result<Output, ToolError> {
        unreachable!("no type implements ToolOutput")
    }
}
