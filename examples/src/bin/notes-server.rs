//! `notes-server`: an MCP server over a directory of plain-text notes, on stdio.
//!
//! ```text
//! notes-server <DIR>            # or: NOTES_DIR=<DIR> notes-server
//! ```
//!
//! The directory is created when missing. Logs go to stderr (`RUST_LOG=debug` for more);
//! stdout carries the protocol.

use std::path::PathBuf;
use std::process::ExitCode;

use mcp_examples::notes::{self, NotesDir};

#[tokio::main]
async fn main() -> ExitCode {
    mcp_runtime::init_stderr_logging();
    let Some(dir) = std::env::args_os().nth(1).or_else(|| std::env::var_os("NOTES_DIR")).map(PathBuf::from) else {
        eprintln!("usage: notes-server <DIR>   (or set NOTES_DIR)");
        return ExitCode::from(2);
    };
    let notes = match NotesDir::open(&dir) {
        Ok(notes) => notes,
        Err(e) => {
            eprintln!("notes-server: cannot open the notes directory {}: {e}", dir.display());
            return ExitCode::FAILURE;
        }
    };
    eprintln!("notes-server: serving notes in {}", notes.path().display());
    let served = match notes::server(notes) {
        Ok(server) => server.serve_stdio().await,
        Err(e) => Err(e),
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("notes-server: {e}");
            ExitCode::FAILURE
        }
    }
}
