use mcp_runtime::__private::ToolDef;
use mcp_runtime::prelude::*;

/// Lists every note with its title, size and time of
/// last change.
///
/// Modes:
/// - `full`: every field,
///   wrapped here
/// - `brief`: names only
#[tool]
fn list_notes(mode: String) -> String {
    mode
}

fn main() {
    assert_eq!(
        list_notes::spec().description,
        "Lists every note with its title, size and time of last change.\n\nModes:\n- `full`: every field, wrapped here\n- `brief`: names only"
    );
}
