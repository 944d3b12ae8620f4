use mcp_runtime::prelude::*;

/// One note.
#[resource(uri_template = "notes://{name}")]
fn note(
    #[cfg(unix)]
    name: String,
) -> String {
    name
}

fn main() {
    let _ = Server::builder("ui", "0.0.0").resource(note);
}
