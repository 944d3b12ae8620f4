//! Protocol types, the error model and the error-contract traits shared by the MCP tool SDK.
//!
//! Users depend on `mcp-runtime`, which re-exports everything here. This crate has no
//! async runtime and no macro machinery: it is the vocabulary the other two speak.

#![deny(missing_docs)]

mod code;
mod content;
mod contract;
mod error;
mod tool;

pub use code::ErrorCode;
pub use content::{Annotations, CallToolResult, Content, IntoContents, PromptMessage, ResourceContents, Role};
pub use contract::{
    __Message, __concat_entries, __declares, __shared_reason, Contract, ContractEntry, NoReasons, ReasonOf, Severity,
};
pub use error::{ToolError, classify};
pub use tool::{Icon, ToolAnnotations};
