//! `notes-server`: an MCP server over a directory of plain-text notes, on stdio or over
//! Streamable HTTP.
//!
//! ```text
//! notes-server <DIR>                         # or: NOTES_DIR=<DIR> notes-server
//! notes-server <DIR> --http 127.0.0.1:8080   # http://127.0.0.1:8080/mcp (add --stateless: no sessions)
//! ```
//!
//! The directory is created when missing. Logs go to stderr (`RUST_LOG=debug` for more);
//! stdout carries the protocol.
//!
//! Several replicas behind one load balancer share the directory and, with
//! `NOTES_STATE_STORE=redis://host:port`, one Redis: consent records and events live there,
//! so a `write_note` on one replica reaches a client listening on another. They then also
//! share the key that seals `requestState`: `NOTES_REQUEST_STATE_KEY` (at least 32 bytes).

use std::path::PathBuf;
use std::process::ExitCode;

use mcp_examples::notes::{self, NotesDir};

#[tokio::main]
async fn main() -> ExitCode {
    mcp_runtime::init_stderr_logging();
    let usage = "usage: notes-server <DIR> [--http <addr> [--stateless]]   (or set NOTES_DIR)";
    let args = match mcp_runtime::ServeArgs::parse(std::env::args_os().skip(1)) {
        Ok(args) if args.rest.len() <= 1 => args,
        Ok(_) => {
            eprintln!("{usage}");
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("notes-server: {e}\n{usage}");
            return ExitCode::from(2);
        }
    };
    let Some(dir) = args.rest.first().cloned().or_else(|| std::env::var_os("NOTES_DIR")).map(PathBuf::from) else {
        eprintln!("{usage}");
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
    let mut builder = args.configure(notes::builder(notes));
    if let Ok(url) = std::env::var("NOTES_STATE_STORE") {
        builder = builder.state_store_url(&url);
    }
    if let Ok(key) = std::env::var("NOTES_REQUEST_STATE_KEY") {
        builder = builder.request_state_key("NOTES_REQUEST_STATE_KEY", key);
    }
    let served = match builder.build() {
        Ok(server) => args.serve(server).await,
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
