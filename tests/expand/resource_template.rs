use mcp_runtime::prelude::*;

/// One note, by name.
#[resource(uri_template = "notes://{name}", mime_type = "text/plain")]
#[errors(
    reason = "note_locked",
    code = Forbidden,
    when = "The note is locked by its owner.",
    recovery = "Ask the owner to unlock the note, then read it again."
)]
fn note(ctx: &Ctx<NoteError>, name: String) -> Result<String, ToolError> {
    if name == "locked" {
        return Err(ctx.fail(NoteError::NoteLocked));
    }
    Ok(format!("# {name}"))
}

fn main() {}
