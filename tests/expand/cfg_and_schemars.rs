use mcp_runtime::prelude::*;

/// Searches the notes,
#[doc = concat!("at most ", "50 at a time.")]
#[tool]
fn search(
    /// What to look for.
    #[schemars(length(min = 1))]
    query: String,
    /// Only with the `tags` feature.
    #[cfg(feature = "tags")]
    tag: Option<String>,
) -> String {
    query
}

fn main() {}
