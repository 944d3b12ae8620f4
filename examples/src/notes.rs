//! The notes server: tools over a directory of plain-text notes, one `<name>.md` file per
//! note.
//!
//! Every tool that takes a note name validates it before a path is built from it (letters,
//! digits, spaces, `-` and `_`, at most 64 characters), so no name can reach outside the
//! directory. Each failure a model can act on is declared, per tool with `#[errors(...)]` or
//! once for several tools with `#[contract]`: the caller gets a stable `reason` and a
//! recovery hint that names the tool to call next.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = mcp_examples::notes::NotesDir::open("/tmp/notes")?;
//! mcp_examples::notes::server(dir)?.serve_stdio().await?;
//! # Ok(()) }
//! ```

use std::fmt::Write as _;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::UNIX_EPOCH;

use mcp_runtime::prelude::*;
use mcp_runtime::{Consent, ServerBuilder};

/// The longest note name, in characters.
pub const MAX_NAME_CHARS: usize = 64;
/// The largest text `write_note` accepts, in bytes (256 KiB).
pub const MAX_NOTE_BYTES: usize = 256 * 1024;
/// The most matching lines `search_notes` returns when the caller gives no `limit`.
const DEFAULT_LIMIT: u32 = 10;
const EXTENSION: &str = "md";

/// Sent to the client in `initialize`: how a model should use these tools.
pub const INSTRUCTIONS: &str = "A directory of plain-text notes. Call list_notes to see which notes exist, \
search_notes to find text across all notes, read_note to read one note, write_note to create or replace one, \
and delete_note to remove one (the user is asked to confirm first). A note's name is what list_notes shows (no file extension).";

/// The directory the notes live in: the server's shared state, read by every tool with
/// `ctx.app_data::<NotesDir>()`.
#[derive(Debug)]
pub struct NotesDir {
    root: PathBuf,
}

impl NotesDir {
    /// Opens `path` as the notes directory, creating it (and its parents) when missing.
    pub fn open(path: impl AsRef<Path>) -> std::io::Result<Self> {
        std::fs::create_dir_all(path.as_ref())?;
        Ok(NotesDir { root: path.as_ref().canonicalize()? })
    }

    /// The directory (canonical path).
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// The file of note `name`, or why `name` is not a valid note name.
    fn note_path(&self, name: &str) -> Result<PathBuf, String> {
        check_name(name)?;
        Ok(self.file_of(name))
    }

    /// The file of a name that is already known to be valid.
    fn file_of(&self, name: &str) -> PathBuf {
        self.root.join(format!("{name}.{EXTENSION}"))
    }

    /// The names of all notes, sorted. Files that are not notes (other extensions, invalid
    /// names, directories) are skipped.
    async fn names(&self) -> std::io::Result<Vec<String>> {
        let mut names = Vec::new();
        let mut entries = tokio::fs::read_dir(&self.root).await?;
        while let Some(entry) = entries.next_entry().await? {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == EXTENSION)
                && entry.file_type().await?.is_file()
                && let Some(stem) = path.file_stem().and_then(|s| s.to_str())
                && check_name(stem).is_ok()
            {
                names.push(stem.to_owned());
            }
        }
        names.sort();
        Ok(names)
    }

    /// The contents of a note that may have been deleted since it was listed: `None` then.
    async fn read_listed(&self, name: &str) -> std::io::Result<Option<Vec<u8>>> {
        match tokio::fs::read(self.file_of(name)).await {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// Why `name` is not a valid note name, if it is not.
fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("a note name cannot be empty".into());
    }
    if let Some(stem) = name.strip_suffix(".md") {
        return Err(format!("leave out the .md extension (use {stem:?})"));
    }
    let chars = name.chars().count();
    if chars > MAX_NAME_CHARS {
        return Err(format!("a note name has at most {MAX_NAME_CHARS} characters, this one has {chars}"));
    }
    if let Some(c) = name.chars().find(|&c| !(c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))) {
        return Err(format!("a note name cannot contain {c:?}"));
    }
    if name.starts_with(' ') || name.ends_with(' ') {
        return Err("a note name cannot start or end with a space".into());
    }
    Ok(())
}

/// The file of a note that `read_note` names, or `invalid_name`.
fn note_path(ctx: &Ctx<NoteError>, name: &str) -> Result<std::path::PathBuf, ToolError> {
    ctx.app_data::<NotesDir>()?
        .note_path(name)
        .map_err(|why| ctx.fail(NoteError::InvalidName).message(format!("Invalid note name: {why}.")))
}

/// A note name close to `wanted` (case-insensitive edit distance of at most 3), for a hint.
fn closest<'a>(wanted: &str, names: &'a [String]) -> Option<&'a str> {
    let wanted = wanted.to_lowercase();
    names
        .iter()
        .map(|n| (edit_distance(&wanted, &n.to_lowercase()), n))
        .filter(|&(d, n)| d <= 3 && d < n.chars().count())
        .min_by_key(|&(d, _)| d)
        .map(|(_, n)| n.as_str())
}

/// Levenshtein distance over chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = Vec::with_capacity(b.len() + 1);
        cur.push(i + 1);
        for (j, &cb) in b.iter().enumerate() {
            cur.push((prev[j] + usize::from(ca != cb)).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// `text` cut to `max` characters, with `…` when cut.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// The notes in the directory.
#[derive(Debug, Serialize, JsonSchema)]
struct NoteList {
    /// One entry per note, sorted by name.
    notes: Vec<NoteInfo>,
}

/// One note, as `list_notes` shows it.
#[derive(Debug, Serialize, JsonSchema)]
struct NoteInfo {
    /// The note's name: pass it to `read_note`, `write_note` or `delete_note`.
    name: String,
    /// The note's first non-empty line (without a leading markdown `#`), cut to 80 characters.
    title: String,
    /// Its size in bytes.
    bytes: u64,
    /// When it last changed, in seconds since the Unix epoch.
    modified: u64,
}

/// Lists every note in the notes directory with its title (first line), size and time of
/// last change. Call it first to learn the names the other tools take.
#[tool(annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false))]
async fn list_notes(ctx: &Ctx) -> Result<NoteList, ToolError> {
    let dir = ctx.app_data::<NotesDir>()?;
    let mut notes = Vec::new();
    for name in dir.names().await? {
        let Some(bytes) = dir.read_listed(&name).await? else { continue };
        let modified = tokio::fs::metadata(dir.file_of(&name))
            .await?
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_secs());
        let text = String::from_utf8_lossy(&bytes);
        let title = text.lines().map(|l| l.trim_start_matches('#').trim()).find(|l| !l.is_empty()).unwrap_or("");
        notes.push(NoteInfo { title: cut(title, 80), bytes: bytes.len() as u64, modified, name });
    }
    Ok(NoteList { notes })
}

/// The failures of the tools that take the name of an existing note (`read_note`; and
/// `delete_note`, whose own contract adds the user's refusal): one contract, declared once; a
/// tool that takes `&Ctx<NoteError>` has it.
#[contract]
enum NoteError {
    /// `no_such_note`: the name is valid, but no note has it.
    #[errors(
        code = NotFound,
        retryable = false,
        when = "No note has this name.",
        // A wrong guess by the caller, not a fault of the server: log it below error.
        severity = info,
        recovery = "Call list_notes to see the notes that exist, then retry with one of their names."
    )]
    NoSuchNote,
    /// `invalid_name`: the name breaks the naming rules.
    #[errors(
        code = ValidationError,
        retryable = false,
        when = "The name is empty, too long, or has characters other than letters, digits, spaces, '-' and '_'.",
        recovery = "Call list_notes and pass one of the names it shows, exactly as shown."
    )]
    InvalidName,
}

/// Returns the full text of one note.
#[tool(annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false))]
async fn read_note(
    ctx: &Ctx<NoteError>,
    /// The note's name, exactly as `list_notes` shows it (no `.md` extension).
    name: String,
) -> Result<String, ToolError> {
    let path = note_path(ctx, &name)?;
    match tokio::fs::read_to_string(&path).await {
        Ok(text) => Ok(text),
        Err(e) if e.kind() == ErrorKind::NotFound => {
            let err = ctx.fail(NoteError::NoSuchNote).message(format!("There is no note named {name:?}."));
            // A hint set at the throw site replaces the declared one: extend it with the
            // likely intended name.
            let names = ctx.app_data::<NotesDir>()?.names().await?;
            Err(match closest(&name, &names) {
                Some(near) => err.hint(format!(
                    "{} The closest existing name is {near:?}.",
                    ctx.recovery_for(NoteError::NoSuchNote)
                )),
                None => err,
            })
        }
        // Anything else (permissions, a note that is not UTF-8) is classified by its kind.
        Err(e) => Err(e.into()),
    }
}

/// What `write_note` did.
#[derive(Debug, Serialize, JsonSchema)]
struct Written {
    /// The note's name.
    name: String,
    /// The size of the note now, in bytes.
    bytes: u64,
    /// `true` when the note is new, `false` when it replaced an existing one.
    created: bool,
}

/// Creates a note, or replaces it when `overwrite` is true. The write is atomic: readers
/// see the old text or the new one, never a mix.
#[tool(annotations(read_only_hint = false, destructive_hint = true, idempotent_hint = false, open_world_hint = false))]
#[errors(
    reason = "invalid_name",
    code = ValidationError,
    retryable = false,
    when = "The name is empty, too long, or has characters other than letters, digits, spaces, '-' and '_'.",
    recovery = "Pick a name of at most 64 letters, digits, spaces, '-' or '_', then call write_note again."
)]
#[errors(
    reason = "note_exists",
    code = Conflict,
    retryable = false,
    when = "A note with this name already exists and overwrite is false.",
    recovery = "Call write_note again with overwrite set to true to replace it, or pick another name."
)]
#[errors(
    reason = "note_too_large",
    code = ValidationError,
    retryable = false,
    when = "The text is larger than 256 KiB.",
    recovery = "Split the text into several smaller notes and write each one with write_note."
)]
async fn write_note(
    ctx: &Ctx<WriteNoteError>,
    /// The note's name: 1 to 64 letters, digits, spaces, `-` or `_` (no extension).
    name: String,
    /// The note's full text (markdown is fine). At most 256 KiB.
    text: String,
    /// Replace the note when it already exists (default false: refuse).
    #[serde(default)]
    overwrite: bool,
) -> Result<Written, ToolError> {
    static TMP_COUNTER: AtomicU64 = AtomicU64::new(0);

    let dir = ctx.app_data::<NotesDir>()?;
    let path = dir
        .note_path(&name)
        .map_err(|why| ctx.fail(WriteNoteError::InvalidName).message(format!("Invalid note name: {why}.")))?;
    if text.len() > MAX_NOTE_BYTES {
        return Err(ctx
            .fail(WriteNoteError::NoteTooLarge)
            .message(format!("The text is {} bytes; a note holds at most {MAX_NOTE_BYTES} bytes.", text.len())));
    }
    let created = if overwrite {
        !tokio::fs::try_exists(&path).await?
    } else {
        // Claim the name first, so that two writers cannot both create the same note.
        match tokio::fs::OpenOptions::new().write(true).create_new(true).open(&path).await {
            Ok(_) => true,
            Err(e) if e.kind() == ErrorKind::AlreadyExists => {
                return Err(ctx
                    .fail(WriteNoteError::NoteExists)
                    .message(format!("A note named {name:?} already exists.")));
            }
            Err(e) => return Err(e.into()),
        }
    };
    // Write a hidden temporary file beside the note, then rename it over the note.
    let tmp =
        dir.path().join(format!(".{name}.{}.{}.tmp", std::process::id(), TMP_COUNTER.fetch_add(1, Ordering::Relaxed)));
    let replaced = async {
        tokio::fs::write(&tmp, text.as_bytes()).await?;
        tokio::fs::rename(&tmp, &path).await
    };
    if let Err(e) = replaced.await {
        let _ = tokio::fs::remove_file(&tmp).await;
        if !overwrite {
            // Release the name claimed above: it holds an empty file.
            let _ = tokio::fs::remove_file(&path).await;
        }
        return Err(e.into());
    }
    let bytes = text.len() as u64;
    ctx.info(format!("{} note {name:?} ({bytes} bytes)", if created { "created" } else { "replaced" }));
    ctx.resource_updated(note_uri(&name));
    if created {
        ctx.resources_changed();
    }
    Ok(Written { name, bytes, created })
}

/// The failures of `delete_note`: those of a note name (as [`NoteError`]), and the user's
/// refusal.
#[contract]
enum DeleteError {
    /// `no_such_note`: the name is valid, but no note has it.
    #[errors(
        code = NotFound,
        retryable = false,
        when = "No note has this name.",
        severity = info,
        recovery = "Call list_notes to see the notes that exist, then retry with one of their names."
    )]
    NoSuchNote,
    /// `invalid_name`: the name breaks the naming rules.
    #[errors(
        code = ValidationError,
        retryable = false,
        when = "The name is empty, too long, or has characters other than letters, digits, spaces, '-' and '_'.",
        recovery = "Call list_notes and pass one of the names it shows, exactly as shown."
    )]
    InvalidName,
    /// `not_confirmed`: the user was asked and did not confirm.
    #[errors(
        code = Forbidden,
        retryable = false,
        when = "The user did not confirm the deletion; the note is unchanged.",
        severity = info,
        recovery = "Do not retry unless the user asks for the deletion again."
    )]
    NotConfirmed,
}

/// The form `delete_note` shows the user before it deletes anything.
#[derive(Deserialize, JsonSchema)]
struct ConfirmDelete {
    /// Delete the note? This cannot be undone.
    confirm: bool,
}

/// Deletes one note once the user confirms: the client is asked to show a yes/no form first
/// (a client that cannot show one is told so, and nothing is deleted). This cannot be undone.
#[tool(annotations(read_only_hint = false, destructive_hint = true, idempotent_hint = true, open_world_hint = false))]
async fn delete_note(
    ctx: &Ctx<DeleteError>,
    /// The note's name, exactly as `list_notes` shows it (no `.md` extension).
    name: String,
) -> Result<String, ToolError> {
    let path = ctx
        .app_data::<NotesDir>()?
        .note_path(&name)
        .map_err(|why| ctx.fail(DeleteError::InvalidName).message(format!("Invalid note name: {why}.")))?;
    let missing = || ctx.fail(DeleteError::NoSuchNote).message(format!("There is no note named {name:?}."));
    // Nobody is asked about a note that does not exist.
    if !tokio::fs::try_exists(&path).await? {
        return Err(missing());
    }
    // The answer counts once, and only for the note it was asked about: the consent record
    // written when asking is redeemed before the note is touched.
    let question = format!("Delete the note {name:?}? This cannot be undone.");
    let consent = Consent::<ConfirmDelete>::new(&name, question)
        .fallback_hint("Or ask the user to delete the note's file by hand.");
    match ctx.consent(consent).await? {
        Elicited::Accepted(ConfirmDelete { confirm: true }) => {}
        _ => return Err(ctx.fail(DeleteError::NotConfirmed)),
    }
    match tokio::fs::remove_file(&path).await {
        Ok(()) => {
            ctx.info(format!("deleted note {name:?}"));
            ctx.resource_updated(note_uri(&name));
            ctx.resources_changed();
            Ok(format!("Deleted note {name:?}."))
        }
        Err(e) if e.kind() == ErrorKind::NotFound => Err(missing()),
        Err(e) => Err(e.into()),
    }
}

/// One matching line.
#[derive(Debug, Serialize, JsonSchema)]
struct Hit {
    /// The note it is in.
    note: String,
    /// Its line number, from 1.
    line: u32,
    /// The line, trimmed and cut to 200 characters.
    text: String,
}

/// What `search_notes` found.
#[derive(Debug, Serialize, JsonSchema)]
struct SearchResults {
    /// Matching lines, by note name, then by line number.
    hits: Vec<Hit>,
    /// `true` when more lines matched than `limit` allowed: narrow the query or raise `limit`.
    truncated: bool,
}

/// Searches every note for a piece of text (case-insensitive, within single lines) and
/// returns the matching lines with their note and line number. Sends progress per note when
/// the request carries a progress token, and stops early when the client cancels.
#[tool(annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false))]
async fn search_notes(
    ctx: &Ctx,
    /// The text to look for, matched case-insensitively within single lines.
    #[schemars(length(min = 1, max = 200))]
    query: String,
    /// The most matching lines to return, 1 to 100 (default 10).
    #[schemars(range(min = 1, max = 100))]
    limit: Option<u32>,
) -> Result<SearchResults, ToolError> {
    let dir = ctx.app_data::<NotesDir>()?;
    let limit = usize::try_from(limit.unwrap_or(DEFAULT_LIMIT)).unwrap_or(usize::MAX);
    let needle = query.to_lowercase();
    let names = dir.names().await?;
    let total = f64::from(u32::try_from(names.len()).unwrap_or(u32::MAX));
    let mut hits = Vec::new();
    let mut truncated = false;
    let mut searched = 0_u32;
    ctx.progress(0.0, Some(total), Some("searching"));
    'notes: for name in &names {
        if ctx.is_cancelled() {
            // Nothing returned after a cancel is sent; stop reading files.
            break;
        }
        let Some(bytes) = dir.read_listed(name).await? else { continue };
        for (n, line) in String::from_utf8_lossy(&bytes).lines().enumerate() {
            if line.to_lowercase().contains(&needle) {
                if hits.len() == limit {
                    truncated = true;
                    break 'notes;
                }
                let line_no = u32::try_from(n + 1).unwrap_or(u32::MAX);
                hits.push(Hit { note: name.clone(), line: line_no, text: cut(line.trim(), 200) });
            }
        }
        searched += 1;
        ctx.progress(f64::from(searched), Some(total), None);
    }
    Ok(SearchResults { hits, truncated })
}

/// The URI of note `name`: `notes://` and the name, percent-encoded (a space is `%20`).
pub fn note_uri(name: &str) -> String {
    let mut uri = String::from("notes://");
    for byte in name.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            uri.push(char::from(byte));
        } else {
            let _ = write!(uri, "%{byte:02X}");
        }
    }
    uri
}

/// One note's text, as a resource. Clients that subscribe to it hear when `write_note` or
/// `delete_note` changes it.
#[resource(
    uri_template = "notes://{name}",
    mime_type = "text/markdown",
    list = note_resources,
    complete(name = note_names)
)]
async fn note(ctx: &Ctx<NoteError>, name: String) -> Result<String, ToolError> {
    read_note::handler(ctx, name).await
}

/// Every note as a resource, for `resources/list`.
async fn note_resources(ctx: &Ctx) -> Result<Vec<Resource>, ToolError> {
    let dir = ctx.app_data::<NotesDir>()?;
    let mut listed = Vec::new();
    for name in dir.names().await? {
        let Ok(meta) = tokio::fs::metadata(dir.file_of(&name)).await else { continue };
        listed.push(Resource::new(note_uri(&name), name.clone()).title(name).size(meta.len()));
    }
    Ok(listed)
}

/// Note names that start with what was typed (case-insensitive), for completion.
async fn note_names(ctx: &Ctx, typed: String) -> Result<Vec<String>, ToolError> {
    let typed = typed.to_lowercase();
    let names = ctx.app_data::<NotesDir>()?.names().await?;
    Ok(names.into_iter().filter(|n| n.to_lowercase().starts_with(&typed)).collect())
}

/// Asks the model for a short summary of one note; the note comes embedded as a resource.
#[prompt(complete(name = note_names))]
async fn summarize_note(
    ctx: &Ctx<NoteError>,
    /// The note's name, exactly as `list_notes` shows it.
    name: String,
) -> Result<Vec<PromptMessage>, ToolError> {
    let text = read_note::handler(ctx, name.clone()).await?;
    Ok(vec![
        PromptMessage::user(Content::embedded_text(note_uri(&name), "text/markdown", text)),
        PromptMessage::user(format!("Summarize the note {name:?} above in at most three short bullet points.")),
    ])
}

/// The notes server over `dir`: every tool registered, the directory as shared state.
pub fn server(dir: NotesDir) -> Result<Server, mcp_runtime::Error> {
    builder(dir).build()
}

/// The notes server's builder, for more settings before [`ServerBuilder::build`].
pub fn builder(dir: NotesDir) -> ServerBuilder {
    Server::builder("notes-server", env!("CARGO_PKG_VERSION"))
        .instructions(INSTRUCTIONS)
        .app_data(dir)
        .tool(list_notes)
        .tool(read_note)
        .tool(search_notes)
        .tool(write_note)
        .tool(delete_note)
        .resource(note)
        .prompt(summarize_note)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_runtime::testing::TestCtx;
    use serde_json::{Value, json};

    /// A fresh directory under the system temp dir, removed on drop.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(tag: &str) -> Self {
            let path = std::env::temp_dir().join(format!("mcp-notes-test-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&path);
            std::fs::create_dir_all(&path).unwrap();
            TempDir(path)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn error_of(result: &CallToolResult) -> &Value {
        assert_eq!(result.is_error, Some(true), "{result:?}");
        &result.structured_content.as_ref().unwrap()["error"]
    }

    #[tokio::test]
    async fn notes_are_resources_and_prompts() {
        let tmp = TempDir::new("resources");
        let server = server(NotesDir::open(&tmp.0).unwrap()).unwrap();
        let written =
            server.call("write_note", serde_json::json!({"name": "my plan", "text": "# Plan\nShip it."})).await;
        assert_ne!(written.is_error, Some(true), "{written:?}");
        let read = server.read_resource("notes://my%20plan").await.unwrap();
        assert_eq!(read["contents"][0]["text"], "# Plan\nShip it.");
        assert_eq!(read["contents"][0]["uri"], "notes://my%20plan");
        assert_eq!(read["contents"][0]["mimeType"], "text/markdown");
        let missing = server.read_resource("notes://nothing").await.unwrap_err();
        assert_eq!(missing.code, -32002);
        let data = missing.data.unwrap();
        assert_eq!(data["reason"], "no_such_note");
        assert_eq!(data["uri"], "notes://nothing");
        assert!(data["recovery"]["hint"].as_str().unwrap().contains("list_notes"), "{data}");
        let prompt = server.get_prompt("summarize_note", serde_json::json!({"name": "my plan"})).await.unwrap();
        assert_eq!(prompt["messages"][0]["content"]["resource"]["uri"], "notes://my%20plan");
        let no_name = server.get_prompt("summarize_note", serde_json::json!({})).await.unwrap_err();
        assert_eq!(no_name.code, -32602);
        assert!(no_name.message.contains("missing required argument `name`"), "{}", no_name.message);
    }

    #[test]
    fn names_cannot_leave_the_directory() {
        for bad in ["../secret", "a/b", "a\\b", "..", ".hidden", "", " x", "x ", "todo.md", "nul\0"] {
            assert!(check_name(bad).is_err(), "{bad:?} should be rejected");
        }
        for good in ["todo", "Groceries 2024", "a-b_c", "café"] {
            assert!(check_name(good).is_ok(), "{good:?} should be accepted");
        }
        assert!(check_name(&"x".repeat(65)).is_err());
    }

    #[test]
    fn closest_names_are_suggested() {
        let names = vec!["groceries".to_owned(), "ideas".to_owned()];
        assert_eq!(closest("grocery", &names), Some("groceries"));
        assert_eq!(closest("IDEAS", &names), Some("ideas"));
        assert_eq!(closest("zzz", &names), None);
    }

    /// A handler called directly, as a unit test calls it: a test context with the state
    /// the server would have. A declared failure comes back as the `ToolError` the handler
    /// built (the runtime fills in the declared hint later, on the wire).
    #[tokio::test]
    async fn read_note_handler_with_a_test_context() {
        let tmp = TempDir::new("handler");
        std::fs::write(tmp.0.join("ideas.md"), "fly").unwrap();
        let ctx = TestCtx::new().app_data(NotesDir::open(&tmp.0).unwrap()).build();
        assert_eq!(read_note::handler(&ctx, "ideas".into()).await.unwrap(), "fly");
        let missing = read_note::handler(&ctx, "idea".into()).await.unwrap_err();
        assert_eq!(missing.reason_str(), Some("no_such_note"));
        assert!(missing.hint_str().is_some_and(|h| h.contains("\"ideas\"")), "{:?}", missing.hint_str());
    }

    #[tokio::test]
    async fn write_read_search_list_delete() {
        let tmp = TempDir::new("roundtrip");
        // `structuredContent.error` on every error, so that its parts can be checked.
        let server = builder(NotesDir::open(&tmp.0).unwrap()).structured_errors_always(true).build().unwrap();

        let written = server.call("write_note", json!({"name": "todo", "text": "# Todo\nbuy milk\n"})).await;
        assert_eq!(written.structured_content, Some(json!({"name": "todo", "bytes": 16, "created": true})));
        assert_eq!(std::fs::read_to_string(tmp.0.join("todo.md")).unwrap(), "# Todo\nbuy milk\n");

        let again = server.call("write_note", json!({"name": "todo", "text": "x"})).await;
        assert_eq!(error_of(&again)["data"]["reason"], "note_exists");
        let replaced = server.call("write_note", json!({"name": "todo", "text": "x\nmilk", "overwrite": true})).await;
        assert_eq!(replaced.structured_content.unwrap()["created"], false);

        let read = server.call("read_note", json!({"name": "todo"})).await;
        assert_eq!(read.first_text(), Some("x\nmilk"));

        let found = server.call("search_notes", json!({"query": "MILK"})).await;
        assert_eq!(
            found.structured_content,
            Some(json!({"hits": [{"note": "todo", "line": 2, "text": "milk"}], "truncated": false}))
        );

        let listed = server.call("list_notes", json!({})).await;
        let notes = &listed.structured_content.unwrap()["notes"];
        assert_eq!(notes[0]["name"], "todo");
        assert_eq!(notes[0]["title"], "x");

        // In-process there is no client to ask: the consent gate refuses, nothing is deleted.
        let refused = server.call("delete_note", json!({"name": "todo"})).await;
        assert_eq!(error_of(&refused)["data"]["reason"], "client_capability_missing");
        assert!(tmp.0.join("todo.md").exists());

        // Round 1 asks (and records the question); round 2 carries the user's answer.
        let form = json!({"elicitation": {}});
        let ctx = TestCtx::new().app_data(NotesDir::open(&tmp.0).unwrap()).build();
        let ask = |name: &'static str| delete_note::handler(&ctx, name.into());
        let asked = ask("todo").await.unwrap_err();
        assert!(asked.is_ask());
        let no = TestCtx::next_round(&ctx, &asked, json!({"consent": {"action": "decline"}}), &form);
        let err = delete_note::handler(&no, "todo".into()).await.unwrap_err();
        assert_eq!(err.reason_str(), Some("not_confirmed"));
        let yes = json!({"consent": {"action": "accept", "content": {"confirm": true}}});
        // A yes to the question about one note is no yes for another: asked again.
        std::fs::write(tmp.0.join("other.md"), "o").unwrap();
        let asked = ask("other").await.unwrap_err();
        let elsewhere = TestCtx::next_round(&ctx, &asked, yes.clone(), &form);
        assert!(delete_note::handler(&elsewhere, "todo".into()).await.unwrap_err().is_ask());
        assert!(tmp.0.join("todo.md").exists());

        let asked = ask("todo").await.unwrap_err();
        let confirmed = TestCtx::next_round(&ctx, &asked, yes, &form);
        assert_eq!(delete_note::handler(&confirmed, "todo".into()).await.unwrap(), "Deleted note \"todo\".");
        assert!(!tmp.0.join("todo.md").exists());
        // The same answer again is no consent: it was used.
        std::fs::write(tmp.0.join("todo.md"), "back").unwrap();
        assert!(delete_note::handler(&confirmed, "todo".into()).await.unwrap_err().is_ask());
        std::fs::remove_file(tmp.0.join("todo.md")).unwrap();
        let gone = server.call("delete_note", json!({"name": "todo"})).await;
        assert_eq!(error_of(&gone)["data"]["reason"], "no_such_note");
    }

    #[tokio::test]
    async fn failures_carry_their_reason_and_hint() {
        let tmp = TempDir::new("failures");
        std::fs::write(tmp.0.join("groceries.md"), "eggs").unwrap();
        // `structuredContent.error` on every error, so that its parts can be checked.
        let server = builder(NotesDir::open(&tmp.0).unwrap()).structured_errors_always(true).build().unwrap();

        let missing = server.call("read_note", json!({"name": "grocery"})).await;
        let err = error_of(&missing);
        assert_eq!(err["code"], -32001);
        assert_eq!(err["data"]["reason"], "no_such_note");
        assert_eq!(
            err["data"]["recovery"]["hint"],
            "Call list_notes to see the notes that exist, then retry with one of their names. \
             The closest existing name is \"groceries\"."
        );

        let traversal = server.call("read_note", json!({"name": "../../etc/passwd"})).await;
        let err = error_of(&traversal);
        assert_eq!(err["data"]["reason"], "invalid_name");
        assert_eq!(err["message"], "Invalid note name: a note name cannot contain '.'.");

        let big = "x".repeat(MAX_NOTE_BYTES + 1);
        let too_large = server.call("write_note", json!({"name": "big", "text": big})).await;
        assert_eq!(error_of(&too_large)["data"]["reason"], "note_too_large");
        assert!(!tmp.0.join("big.md").exists());
    }
}
