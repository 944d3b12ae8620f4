use mcp_runtime::prelude::*;

/// The failures of the notes tools.
#[contract]
enum NoteErrors {
    #[errors(code = NotFound, when = "No note has that name.", recovery = "Call list_notes to see every name.")]
    NoSuchNote,
    #[errors(
        reason = "no_such_note",
        code = NotFound,
        when = "The note was deleted.",
        recovery = "Call list_notes to see every name."
    )]
    Other,
}

fn main() {
    let _ = (NoteErrors::NoSuchNote, NoteErrors::Other);
}
