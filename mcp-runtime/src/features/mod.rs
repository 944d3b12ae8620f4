//! The other primitives: resources (`resources`, templates matched by `uri_template`),
//! prompts (`prompts`) and completion (`completion`).

pub(crate) mod call;
pub(crate) mod completion;
pub(crate) mod prompts;
pub(crate) mod resources;
pub(crate) mod uri_template;
