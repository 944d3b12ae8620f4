//! Content blocks and the `CallToolResult` a tool call returns.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Who a content block is meant for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The human user.
    User,
    /// The model.
    Assistant,
}

/// Optional hints on a content block: audience, priority, last modification.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// Who the block is for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// Importance from 0 (optional) to 1 (required).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    /// ISO 8601 timestamp of the last modification.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

/// The contents of an embedded resource: text or a base64 blob.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged, rename_all_fields = "camelCase")]
pub enum ResourceContents {
    /// Text contents.
    Text {
        /// The resource's URI.
        uri: String,
        /// Its MIME type.
        #[serde(skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// The text.
        text: String,
    },
    /// Binary contents, base64-encoded.
    Blob {
        /// The resource's URI.
        uri: String,
        /// Its MIME type.
        #[serde(skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// The base64 data.
        blob: String,
    },
}

/// One block of a tool result's `content`.
///
/// ```
/// # extern crate mcp_runtime_core as mcp_runtime;
/// use mcp_runtime::{Annotations, Content, Role};
///
/// let blocks = vec![
///     Content::text("3 notes found"),
///     Content::image("iVBORw0KGgo=", "image/png")
///         .with_annotations(Annotations { audience: Some(vec![Role::User]), ..Default::default() }),
///     Content::resource_link("file:///notes/todo.md", "todo.md"),
/// ];
/// assert_eq!(serde_json::to_value(&blocks[0]).unwrap(), serde_json::json!({"type": "text", "text": "3 notes found"}));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", rename_all_fields = "camelCase")]
pub enum Content {
    /// Plain text.
    Text {
        /// The text.
        text: String,
        /// Optional annotations.
        #[serde(skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
    },
    /// An image, base64-encoded.
    Image {
        /// The base64 data.
        data: String,
        /// Its MIME type, e.g. `image/png`.
        mime_type: String,
        /// Optional annotations.
        #[serde(skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
    },
    /// Audio, base64-encoded.
    Audio {
        /// The base64 data.
        data: String,
        /// Its MIME type, e.g. `audio/wav`.
        mime_type: String,
        /// Optional annotations.
        #[serde(skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
    },
    /// An embedded resource.
    Resource {
        /// Its contents.
        resource: ResourceContents,
        /// Optional annotations.
        #[serde(skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
    },
    /// A link to a resource the client can read.
    ResourceLink {
        /// The resource's URI.
        uri: String,
        /// Its name.
        name: String,
        /// A human-readable title.
        #[serde(skip_serializing_if = "Option::is_none")]
        title: Option<String>,
        /// What it is.
        #[serde(skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        /// Its MIME type.
        #[serde(skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// Its size in bytes.
        #[serde(skip_serializing_if = "Option::is_none")]
        size: Option<u64>,
        /// Optional annotations.
        #[serde(skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
    },
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text { text: text.into(), annotations: None }
    }

    /// An image block from base64 data and a MIME type.
    pub fn image(base64: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Content::Image { data: base64.into(), mime_type: mime_type.into(), annotations: None }
    }

    /// An audio block from base64 data and a MIME type.
    pub fn audio(base64: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Content::Audio { data: base64.into(), mime_type: mime_type.into(), annotations: None }
    }

    /// An embedded text resource.
    pub fn embedded_text(uri: impl Into<String>, mime_type: impl Into<String>, text: impl Into<String>) -> Self {
        let resource = ResourceContents::Text { uri: uri.into(), mime_type: Some(mime_type.into()), text: text.into() };
        Content::Resource { resource, annotations: None }
    }

    /// An embedded binary resource from base64 data.
    pub fn embedded_blob(uri: impl Into<String>, mime_type: impl Into<String>, base64: impl Into<String>) -> Self {
        let resource =
            ResourceContents::Blob { uri: uri.into(), mime_type: Some(mime_type.into()), blob: base64.into() };
        Content::Resource { resource, annotations: None }
    }

    /// A link to a resource.
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Content::ResourceLink {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            annotations: None,
        }
    }

    /// The same block with annotations.
    #[must_use]
    pub fn with_annotations(mut self, with: Annotations) -> Self {
        match &mut self {
            Content::Text { annotations, .. }
            | Content::Image { annotations, .. }
            | Content::Audio { annotations, .. }
            | Content::Resource { annotations, .. }
            | Content::ResourceLink { annotations, .. } => *annotations = Some(with),
        }
        self
    }
}

/// The result of `tools/call`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// The content blocks.
    pub content: Vec<Content>,
    /// Structured output, conforming to the tool's `outputSchema` when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// `true` for a tool execution error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Protocol-level metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

impl CallToolResult {
    /// A successful result with these blocks.
    pub fn content(content: Vec<Content>) -> Self {
        CallToolResult { content, ..Self::default() }
    }

    /// A successful result with structured output beside its content.
    #[must_use]
    pub fn with_structured(mut self, value: Value) -> Self {
        self.structured_content = Some(value);
        self
    }

    /// The text of the first block, when it is a text block.
    pub fn first_text(&self) -> Option<&str> {
        match self.content.first() {
            Some(Content::Text { text, .. }) => Some(text),
            _ => None,
        }
    }
}

/// Return values that become plain content (no output schema): text, content blocks, a
/// collection of them, or a whole `CallToolResult` passed through as it is.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a `#[tool]` fn",
    label = "return text, content blocks, or a type that derives `Serialize` and `JsonSchema`"
)]
pub trait IntoContents {
    /// The result this value becomes.
    fn into_call_result(self) -> CallToolResult;
}

impl IntoContents for String {
    fn into_call_result(self) -> CallToolResult {
        CallToolResult::content(vec![Content::text(self)])
    }
}

impl IntoContents for &'static str {
    fn into_call_result(self) -> CallToolResult {
        CallToolResult::content(vec![Content::text(self)])
    }
}

impl IntoContents for std::borrow::Cow<'static, str> {
    fn into_call_result(self) -> CallToolResult {
        CallToolResult::content(vec![Content::text(self)])
    }
}

impl IntoContents for Content {
    fn into_call_result(self) -> CallToolResult {
        CallToolResult::content(vec![self])
    }
}

impl IntoContents for Vec<Content> {
    fn into_call_result(self) -> CallToolResult {
        CallToolResult::content(self)
    }
}

impl<const N: usize> IntoContents for [Content; N] {
    fn into_call_result(self) -> CallToolResult {
        CallToolResult::content(self.into())
    }
}

impl IntoContents for CallToolResult {
    fn into_call_result(self) -> CallToolResult {
        self
    }
}

/// One message of a prompt: who says it, and one content block.
///
/// ```
/// # extern crate mcp_runtime_core as mcp_runtime;
/// use mcp_runtime::{Content, PromptMessage};
///
/// let message = PromptMessage::user("Summarize the note below.");
/// assert_eq!(
///     serde_json::to_value(&message).unwrap(),
///     serde_json::json!({"role": "user", "content": {"type": "text", "text": "Summarize the note below."}})
/// );
/// let _ = PromptMessage::assistant(Content::text("Here is the summary:"));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PromptMessage {
    /// `user` or `assistant`.
    pub role: Role,
    /// The message's content block.
    pub content: Content,
}

impl PromptMessage {
    /// A message from the user: text (`&str`, `String`) or any [`Content`] block.
    pub fn user(content: impl Into<Content>) -> Self {
        PromptMessage { role: Role::User, content: content.into() }
    }

    /// A message from the assistant.
    pub fn assistant(content: impl Into<Content>) -> Self {
        PromptMessage { role: Role::Assistant, content: content.into() }
    }
}

impl From<&str> for Content {
    fn from(text: &str) -> Self {
        Content::text(text)
    }
}

impl From<String> for Content {
    fn from(text: String) -> Self {
        Content::text(text)
    }
}
