//! `#[resource]`, `#[prompt]` and completion on the wire, in both eras: template matching
//! and extraction (percent-encoding, typed variables, reserved `{+path}`), confinement of
//! names through `ResourceDir`, failures as JSON-RPC errors with reason, filled hint and
//! request id, not found per era, prompt argument errors, completion, subscriptions and
//! list changes, capabilities, pagination and the modern result shape.
//!
//! The server is built here, in-process, and served by `Server::serve` over an in-memory
//! pipe: the same transport loop as stdio. Every message the server writes is checked
//! against the official schema of the era of the request it answers.

use std::collections::HashMap;
use std::time::Duration;

use mcp_runtime::prelude::*;
use mcp_runtime::{PromptResult, ResourceContents, ResourceDir, Server as RuntimeServer, ServerBuilder};
use mcp_tests::client::is_request_id;
use mcp_tests::spec_schema::{Version, check_message};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const MODERN: &str = "2026-07-28";
const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
const CAPS_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";
const SUBSCRIPTION_KEY: &str = "io.modelcontextprotocol/subscriptionId";
const L: Version = Version::V2025_11_25;
const M: Version = Version::V2026_07_28;

// ---------------------------------------------------------------------------------------
// The server under test.

/// Where the notes live; `notes://{name}` reads from it.
struct Notes(ResourceDir);

/// The start page of the notes.
#[resource(uri = "notes://index", mime_type = "text/markdown", title = "Index")]
fn index() -> &'static str {
    "# Notes"
}

/// A note, by name.
#[resource(uri_template = "notes://{name}", mime_type = "text/plain", list = note_list, complete(name = note_names))]
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
    let path = ctx.app_data::<Notes>()?.0.resolve(&name)?;
    std::fs::read_to_string(path).map_err(|_| ToolError::not_found(format!("There is no note named {name}.")))
}

// `list = fn` is awaited: a list fn must be `async` (a completer need not be).
#[allow(clippy::unused_async)]
async fn note_list(ctx: &Ctx) -> Result<Vec<Resource>, ToolError> {
    let dir = ctx.app_data::<Notes>()?.0.path().to_owned();
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(ToolError::from_error)?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    names.sort();
    Ok(names.into_iter().map(|n| Resource::new(format!("notes://{}", n.replace(' ', "%20")), n)).collect())
}

fn note_names(_ctx: &Ctx, typed: String) -> Vec<String> {
    ["my note", "todo.md", "travel"].into_iter().filter(|n| n.starts_with(&typed)).map(str::to_owned).collect()
}

/// One page of a book: `page` is a number.
#[resource(uri_template = "books://{title}/page/{page}")]
fn book_page(title: String, page: u32) -> String {
    format!("{title}, page {page}")
}

/// A file under the root: the path may hold `/`.
#[resource(uri_template = "files:///{+path}")]
fn file(path: String) -> String {
    format!("file {path}")
}

/// A red pixel, as bytes.
#[resource(uri = "blob://pixel", mime_type = "image/png")]
fn pixel() -> Vec<u8> {
    vec![0x89, b'P', b'N', b'G']
}

/// A resource whose handler finds nothing to return.
#[resource(uri = "empty://nothing")]
fn nothing() -> Vec<ResourceContents> {
    Vec::new()
}

/// A resource that panics.
#[resource(uri = "boom://now")]
fn boom() -> String {
    panic!("the disk caught fire at /srv/secret")
}

/// Asks for a summary of a note.
#[prompt(title = "Summarize a note", complete(name = note_names))]
fn summarize(
    /// The note's name.
    name: String,
    /// `short` or `long`.
    style: Option<String>,
) -> String {
    format!("Summarize the note {name} ({}).", style.as_deref().unwrap_or("short"))
}

/// A prompt with a hundred and fifty suggestions for its argument.
#[prompt(complete(word = many_words))]
fn spell(word: String) -> Vec<PromptMessage> {
    vec![PromptMessage::user(format!("Spell {word}.")), PromptMessage::assistant("Sure.")]
}

fn many_words(_ctx: &Ctx, typed: String) -> Vec<String> {
    (0..150).map(|i| format!("{typed}{i:03}")).collect()
}

/// A prompt that may fail as it declares.
#[prompt]
#[errors(
    reason = "too_long",
    code = InvalidParams,
    when = "The text is longer than the prompt can hold.",
    recovery = "Send at most 10 characters."
)]
fn shorten(ctx: &Ctx<ShortenError>, text: String) -> Result<PromptResult, ToolError> {
    if text.len() > 10 {
        return Err(ctx.fail(ShortenError::TooLong));
    }
    Ok(PromptResult::new(vec![PromptMessage::user(format!("Shorten {text}."))]).description("shortening"))
}

/// A prompt added while the server runs.
#[prompt]
fn late() -> &'static str {
    "I came late."
}

/// Echoes its text.
#[tool]
fn echo(text: String) -> String {
    text
}

/// A directory of notes for one test: `my note`, `todo.md`, `travel`, and a secret outside it.
fn notes_dir(tag: &str) -> std::path::PathBuf {
    let base = std::env::temp_dir().join(format!("mcp-res-tests-{}-{tag}", std::process::id()));
    let dir = base.join("notes");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("my note"), "spaces are fine").unwrap();
    std::fs::write(dir.join("todo.md"), "- test resources").unwrap();
    std::fs::write(dir.join("travel"), "pack").unwrap();
    std::fs::write(base.join("secret"), "never shown").unwrap();
    dir
}

fn builder(tag: &str) -> ServerBuilder {
    let dir = ResourceDir::new(notes_dir(tag)).unwrap();
    RuntimeServer::builder("res-tests", "1.0.0")
        .tool(echo)
        .resource(index)
        .resource(note)
        .resource(book_page)
        .resource(file)
        .resource(pixel)
        .resource(nothing)
        .resource(boom)
        .prompt(summarize)
        .prompt(spell)
        .prompt(shorten)
        .app_data(Notes(dir))
}

fn full(tag: &str) -> RuntimeServer {
    builder(tag).build().expect("the server builds")
}

fn server_info() -> Value {
    json!({"name": "res-tests", "version": "1.0.0"})
}

// ---------------------------------------------------------------------------------------
// A client over an in-memory pipe, checking every message against the schema of its era.

struct Conn {
    write: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    lines: tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    next_id: i64,
    sent: HashMap<String, (String, Version)>,
    last: Version,
    /// Notifications received while waiting for a response.
    notes: Vec<Value>,
}

impl Conn {
    /// Serves `server` on one connection, as stdio would.
    fn open(server: &RuntimeServer) -> Conn {
        let (client, pipe) = tokio::io::duplex(1 << 20);
        let (server_in, server_out) = tokio::io::split(pipe);
        let server = server.clone();
        tokio::spawn(async move { server.serve(server_in, server_out).await });
        let (read, write) = tokio::io::split(client);
        Conn {
            write,
            lines: BufReader::new(read).lines(),
            next_id: 1,
            sent: HashMap::new(),
            last: L,
            notes: Vec::new(),
        }
    }

    async fn send(&mut self, msg: &Value) {
        let mut line = msg.to_string();
        line.push('\n');
        self.write.write_all(line.as_bytes()).await.unwrap();
        self.write.flush().await.unwrap();
    }

    /// Sends a request in `era` (modern: the envelope in `params._meta`); returns its id.
    async fn request(&mut self, era: Version, method: &str, params: Value) -> Value {
        let id = json!(self.next_id);
        self.next_id += 1;
        let params = if era == M { with_envelope(params) } else { params };
        self.sent.insert(id.to_string(), (method.to_owned(), era));
        self.last = era;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
        id
    }

    /// The next message within `timeout`, checked against the schema of its era.
    async fn recv_within(&mut self, timeout: Duration) -> Option<Value> {
        let line = tokio::time::timeout(timeout, self.lines.next_line()).await.ok()?.unwrap()?;
        let msg: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON: {line:?}: {e}"));
        let (method, version) = match msg.get("id").and_then(|id| self.sent.get(&id.to_string())) {
            Some((method, version)) if msg.get("method").is_none() => (Some(method.as_str()), *version),
            _ => (None, self.last),
        };
        if let Err(e) = check_message(version, method, &msg) {
            panic!("schema check ({}) failed for {msg}:\n{e}", version.as_str());
        }
        Some(msg)
    }

    async fn recv(&mut self) -> Value {
        self.recv_within(Duration::from_secs(10)).await.expect("a message within 10 s")
    }

    async fn answer(&mut self, id: &Value) -> Value {
        loop {
            let msg = self.recv().await;
            if msg.get("id") == Some(id) && msg.get("method").is_none() {
                return msg;
            }
            assert!(msg.get("method").is_some(), "a response to another request arrived first: {msg}");
            self.notes.push(msg);
        }
    }

    /// A request and its response.
    async fn rt(&mut self, era: Version, method: &str, params: Value) -> Value {
        let id = self.request(era, method, params).await;
        self.answer(&id).await
    }

    /// The `result` of a request (panics on an error), with what a modern result adds checked
    /// and taken off.
    async fn result(&mut self, era: Version, method: &str, params: Value) -> Value {
        let resp = self.rt(era, method, params).await;
        let mut result = resp.get("result").cloned().unwrap_or_else(|| panic!("{method}: expected a result: {resp}"));
        if era == M {
            assert_eq!(result["resultType"], json!("complete"), "{method}: {result}");
            assert_eq!(result["_meta"], json!({SERVER_INFO_KEY: server_info()}), "{method}: {result}");
            let map = result.as_object_mut().unwrap();
            map.remove("resultType");
            map.remove("_meta");
        } else {
            for key in ["resultType", "_meta", "ttlMs", "cacheScope"] {
                assert!(result.get(key).is_none(), "a legacy {method} result has {key}: {result}");
            }
        }
        result
    }

    /// The `error` of a request (panics on a result), its request id checked and replaced by `<RID>`.
    async fn error(&mut self, era: Version, method: &str, params: Value) -> Value {
        let resp = self.rt(era, method, params).await;
        let mut error = resp.get("error").cloned().unwrap_or_else(|| panic!("{method}: expected an error: {resp}"));
        if let Some(rid) = error["data"]["requestId"].as_str() {
            assert!(is_request_id(rid), "{rid:?} is not a request id");
            error["data"]["requestId"] = json!("<RID>");
        }
        error
    }

    async fn initialize(&mut self) -> Value {
        let params =
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
        let init = self.rt(L, "initialize", params).await;
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        init
    }

    /// Notifications that arrive within `timeout` (and any received before).
    async fn notifications_within(&mut self, timeout: Duration) -> Vec<Value> {
        let mut out = std::mem::take(&mut self.notes);
        while let Some(msg) = self.recv_within(timeout).await {
            assert!(msg.get("method").is_some(), "an unexpected response: {msg}");
            out.push(msg);
        }
        out
    }
}

fn with_envelope(params: Value) -> Value {
    let mut params = if params.is_null() { json!({}) } else { params };
    let meta = params.as_object_mut().unwrap().entry("_meta").or_insert_with(|| json!({}));
    meta[VERSION_KEY] = json!(MODERN);
    meta[CAPS_KEY] = json!({});
    meta["io.modelcontextprotocol/clientInfo"] = json!({"name": "t", "version": "1"});
    params
}

/// A legacy connection, initialized.
async fn legacy(server: &RuntimeServer) -> Conn {
    let mut c = Conn::open(server);
    c.initialize().await;
    c
}

fn read(uri: &str) -> Value {
    json!({"uri": uri})
}

fn text_contents(uri: &str, mime: Option<&str>, text: &str) -> Value {
    let mut contents = json!({"uri": uri, "text": text});
    if let Some(mime) = mime {
        contents["mimeType"] = json!(mime);
    }
    json!({"contents": [contents]})
}

/// A modern `resources/read` and `resources/list` result carries the cache hints.
fn without_cache_hints(era: Version, mut result: Value) -> Value {
    if era == M {
        assert_eq!(result["ttlMs"], json!(0), "{result}");
        assert_eq!(result["cacheScope"], json!("private"), "{result}");
        let map = result.as_object_mut().unwrap();
        map.remove("ttlMs");
        map.remove("cacheScope");
    }
    result
}

// ---------------------------------------------------------------------------------------
// Template matching and extraction.

#[tokio::test]
async fn template_variables_are_matched_and_percent_decoded_in_both_eras() {
    let server = full("match");
    let mut c = legacy(&server).await;
    for era in [L, M] {
        let got = c.result(era, "resources/read", read("notes://my%20note")).await;
        assert_eq!(
            without_cache_hints(era, got),
            text_contents("notes://my%20note", Some("text/plain"), "spaces are fine")
        );

        let got = c.result(era, "resources/read", read("notes://todo.md")).await;
        assert_eq!(
            without_cache_hints(era, got),
            text_contents("notes://todo.md", Some("text/plain"), "- test resources")
        );

        // A fixed URI is found before the template that would also match it.
        let got = c.result(era, "resources/read", read("notes://index")).await;
        assert_eq!(without_cache_hints(era, got), text_contents("notes://index", Some("text/markdown"), "# Notes"));

        let got = c.result(era, "resources/read", read("books://Dune%3A%20Messiah/page/42")).await;
        assert_eq!(
            without_cache_hints(era, got),
            text_contents("books://Dune%3A%20Messiah/page/42", None, "Dune: Messiah, page 42")
        );

        // `{+path}` spans segments; `{name}` does not.
        let got = c.result(era, "resources/read", read("files:///a/b/c%2Bd.txt")).await;
        assert_eq!(without_cache_hints(era, got), text_contents("files:///a/b/c%2Bd.txt", None, "file a/b/c+d.txt"));

        let got = c.result(era, "resources/read", read("blob://pixel")).await;
        let expected = json!({"contents": [{"uri": "blob://pixel", "mimeType": "image/png", "blob": "iVBORw=="}]});
        assert_eq!(without_cache_hints(era, got), expected);
    }
}

#[tokio::test]
async fn a_number_variable_that_is_not_a_number_is_invalid_params_saying_what_was_expected() {
    let server = full("number");
    let mut c = legacy(&server).await;
    for era in [L, M] {
        for (page, shown) in [("x", "\"x\""), ("-1", "\"-1\""), ("4294967296", "\"4294967296\"")] {
            let uri = format!("books://Dune/page/{page}");
            let got = c.error(era, "resources/read", read(&uri)).await;
            let expected = json!({
                "code": -32602,
                "message": format!("`page` must be a whole number from 0 to 4294967295; got {shown}."),
                "data": {
                    "reason": "invalid_arguments",
                    "retryable": false,
                    "recovery": {"hint": "Send `page` as a whole number from 0 to 4294967295."},
                    "requestId": "<RID>",
                },
            });
            assert_eq!(got, expected, "{} {uri}", era.as_str());
        }
    }
}

#[tokio::test]
async fn uris_that_match_no_template_are_not_found_with_data_uri_per_era() {
    let server = full("shape");
    let mut c = legacy(&server).await;
    for (era, code) in [(L, -32002), (M, -32602)] {
        // A `/` in a `{name}`, an empty value, a broken escape, another scheme, a query.
        for uri in [
            "notes://a/b",
            "notes://",
            "notes://%zz",
            "notes://%+1",
            "nope://x",
            "books://Dune/page/1?x",
            "books://Dune/page/",
        ] {
            let got = c.error(era, "resources/read", read(uri)).await;
            let expected = json!({
                "code": code,
                "message": format!("Resource not found: {uri}"),
                "data": {
                    "uri": uri,
                    "reason": "resource_not_found",
                    "retryable": false,
                    "recovery": {"hint": "List resources with resources/list (and templates with resources/templates/list), then read one of those URIs."},
                    "requestId": "<RID>",
                },
            });
            assert_eq!(got, expected, "{} {uri}", era.as_str());
        }
    }
}

#[tokio::test]
async fn a_handler_that_finds_nothing_is_not_found_never_empty_contents() {
    let server = full("nothing");
    let mut c = legacy(&server).await;
    for (era, code) in [(L, -32002), (M, -32602)] {
        // The handler's own not-found: its message and code of the era, with data.uri.
        let got = c.error(era, "resources/read", read("notes://gone")).await;
        assert_eq!(got["code"], json!(code), "{got}");
        assert_eq!(got["message"], json!("There is no note named gone."), "{got}");
        assert_eq!(got["data"]["uri"], json!("notes://gone"), "{got}");
        assert_eq!(got["data"]["requestId"], json!("<RID>"), "{got}");

        // Empty contents are not sent.
        let got = c.error(era, "resources/read", read("empty://nothing")).await;
        let expected = json!({
            "code": code,
            "message": "Resource not found: empty://nothing",
            "data": {
                "uri": "empty://nothing",
                "reason": "resource_not_found",
                "retryable": false,
                "recovery": {"hint": "List resources with resources/list, then read one of those URIs."},
                "requestId": "<RID>",
            },
        });
        assert_eq!(got, expected, "{}", era.as_str());
    }
}

// ---------------------------------------------------------------------------------------
// Confinement.

#[tokio::test]
async fn traversal_through_resource_dir_is_refused_without_showing_the_directory() {
    let server = full("traversal");
    let dir = server.app_data::<Notes>().unwrap().0.path().to_str().unwrap().to_owned();
    let mut c = legacy(&server).await;
    for era in [L, M] {
        for (uri, name) in [
            ("notes://..%2F..%2Fetc%2Fpasswd", "../../etc/passwd"),
            ("notes://..%2Fsecret", "../secret"),
            ("notes://..", ".."),
            ("notes://%2Fetc%2Fpasswd", "/etc/passwd"),
            ("notes://.", "."),
        ] {
            let resp = c.rt(era, "resources/read", read(uri)).await;
            let text = resp.to_string();
            assert!(!text.contains(&dir), "the directory is shown: {text}");
            assert!(!text.contains("never shown"), "the secret is read: {text}");
            let mut got = resp["error"].clone();
            got["data"]["requestId"] = json!("<RID>");
            let expected = json!({
                "code": -32602,
                "message": format!("`{name}` is not a name inside the resource directory."),
                "data": {
                    "reason": "invalid_arguments",
                    "retryable": false,
                    "recovery": {"hint": "Use a relative name such as `notes/todo.md`, without `..`, `.` or a leading `/`; list resources to see the names."},
                    "requestId": "<RID>",
                },
            });
            assert_eq!(got, expected, "{} {uri}", era.as_str());
        }
    }
}

// ---------------------------------------------------------------------------------------
// Declared failures.

#[tokio::test]
async fn a_declared_resource_failure_is_a_json_rpc_error_with_reason_hint_and_request_id_in_both_eras() {
    let server = full("declared");
    let mut c = legacy(&server).await;
    let mut ids = Vec::new();
    for era in [L, M] {
        let resp = c.rt(era, "resources/read", read("notes://locked")).await;
        ids.push(resp["error"]["data"]["requestId"].as_str().expect("a request id").to_owned());
        let got = c.error(era, "resources/read", read("notes://locked")).await;
        let expected = json!({
            "code": -32005,
            "message": "The note is locked by its owner.",
            "data": {
                "reason": "note_locked",
                // Neither declares `retryable`: the envelope says only what was declared.
                "recovery": {"hint": "Ask the owner to unlock the note, then read it again."},
                "requestId": "<RID>",
            },
        });
        assert_eq!(got, expected, "{}", era.as_str());
    }
    assert!(ids.iter().all(|id| is_request_id(id)), "{ids:?}");
    assert_ne!(ids[0], ids[1], "each read has its own request id");
}

#[tokio::test]
async fn a_declared_prompt_failure_is_a_json_rpc_error_with_reason_hint_and_request_id() {
    let server = full("prompt-declared");
    let mut c = legacy(&server).await;
    for era in [L, M] {
        let got =
            c.error(era, "prompts/get", json!({"name": "shorten", "arguments": {"text": "far too long a text"}})).await;
        let expected = json!({
            "code": -32602,
            "message": "The text is longer than the prompt can hold.",
            "data": {
                "reason": "too_long",
                // Neither declares `retryable`: the envelope says only what was declared.
                "recovery": {"hint": "Send at most 10 characters."},
                "requestId": "<RID>",
            },
        });
        assert_eq!(got, expected, "{}", era.as_str());
        let got = c.result(era, "prompts/get", json!({"name": "shorten", "arguments": {"text": "short"}})).await;
        assert_eq!(
            got,
            json!({"description": "shortening", "messages": [{"role": "user", "content": {"type": "text", "text": "Shorten short."}}]})
        );
    }
}

#[tokio::test]
async fn a_panicking_resource_is_an_internal_error_that_shows_nothing_of_the_panic() {
    let server = full("panic");
    let mut c = legacy(&server).await;
    for era in [L, M] {
        let got = c.error(era, "resources/read", read("boom://now")).await;
        let expected = json!({
            "code": -32603,
            "message": "Resource boom failed unexpectedly.",
            "data": {
                "reason": "internal_error",
                "recovery": {"hint": "Retry once; if it fails again, report the request id to the server operator."},
                "requestId": "<RID>",
            },
        });
        assert_eq!(got, expected, "{}", era.as_str());
    }
}

// ---------------------------------------------------------------------------------------
// Prompts.

#[tokio::test]
async fn prompts_are_listed_and_rendered_in_both_eras() {
    let server = full("prompts");
    let mut c = legacy(&server).await;
    for era in [L, M] {
        let list = c.result(era, "prompts/list", json!({})).await;
        let list = without_cache_hints(era, list);
        assert_eq!(
            list["prompts"][0],
            json!({
                "name": "summarize",
                "title": "Summarize a note",
                "description": "Asks for a summary of a note.",
                "arguments": [
                    {"name": "name", "required": true, "description": "The note's name."},
                    {"name": "style", "required": false, "description": "`short` or `long`."},
                ],
            })
        );
        let names: Vec<&str> =
            list["prompts"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["summarize", "spell", "shorten"]);

        let got = c.result(era, "prompts/get", json!({"name": "summarize", "arguments": {"name": "todo.md"}})).await;
        // prompts/get carries no cache hints.
        assert_eq!(
            got,
            json!({"messages": [{"role": "user", "content": {"type": "text", "text": "Summarize the note todo.md (short)."}}]}),
            "{}",
            era.as_str()
        );
        let got = c.result(era, "prompts/get", json!({"name": "spell", "arguments": {"word": "cat"}})).await;
        assert_eq!(
            got,
            json!({"messages": [
                {"role": "user", "content": {"type": "text", "text": "Spell cat."}},
                {"role": "assistant", "content": {"type": "text", "text": "Sure."}},
            ]})
        );
    }
}

/// An unknown prompt, resource and tool each get a did-you-mean from the same code
/// (`features::call::unknown`): the nearest name listed to this caller, within two edits.
#[tokio::test]
async fn an_unknown_prompt_resource_and_tool_each_get_a_did_you_mean() {
    let server = full("did-you-mean");
    let mut c = legacy(&server).await;
    for (era, not_found) in [(L, -32002), (M, -32602)] {
        let got = c.error(era, "prompts/get", json!({"name": "sumarize"})).await;
        let expected = json!({
            "code": -32602,
            "message": "Unknown prompt: sumarize.",
            "data": {
                "reason": "unknown_prompt",
                "retryable": false,
                "recovery": {"hint": "List prompts with prompts/list and use one of those names. Did you mean summarize?"},
                "requestId": "<RID>",
            },
        });
        assert_eq!(got, expected, "{}", era.as_str());

        let got = c.error(era, "resources/read", read("blob://pixl")).await;
        let expected = json!({
            "code": not_found,
            "message": "Resource not found: blob://pixl",
            "data": {
                "uri": "blob://pixl",
                "reason": "resource_not_found",
                "retryable": false,
                "recovery": {"hint": "List resources with resources/list (and templates with resources/templates/list), then read one of those URIs. Did you mean blob://pixel?"},
                "requestId": "<RID>",
            },
        });
        assert_eq!(got, expected, "{}", era.as_str());

        let mut got = c.result(era, "tools/call", json!({"name": "ecoh", "arguments": {}})).await;
        let rid = got["structuredContent"]["error"]["data"]["requestId"].as_str().unwrap().to_owned();
        assert!(is_request_id(&rid), "{got}");
        got["structuredContent"]["error"]["data"]["requestId"] = json!("<RID>");
        let text = got["content"][0]["text"].as_str().unwrap().replace(&rid, "<RID>");
        got["content"][0]["text"] = json!(text);
        let hint = "Re-run tools/list and retry. Did you mean echo?";
        let expected = json!({
            "content": [{"type": "text", "text": format!("Error: Unknown tool: ecoh.\n\nRecovery: {hint}\n\n(reason unknown_tool · not retryable · request <RID>)")}],
            "structuredContent": {"error": {"code": -32602, "message": "Unknown tool: ecoh.", "data": {
                "reason": "unknown_tool",
                "retryable": false,
                "recovery": {"hint": hint},
                "requestId": "<RID>",
            }}},
            "isError": true,
        });
        assert_eq!(got, expected, "{}", era.as_str());

        // A completion's ref: the same suggestion, in its `-32602`.
        let params = json!({"ref": {"type": "ref/prompt", "name": "sumarize"}, "argument": {"name": "a", "value": ""}});
        let got = c.error(era, "completion/complete", params).await;
        assert_eq!(
            got,
            json!({"code": -32602, "message": "Invalid params: unknown prompt sumarize; list prompts with prompts/list; did you mean summarize?"}),
            "{}",
            era.as_str()
        );
    }
}

#[tokio::test]
async fn prompt_argument_errors_say_what_the_prompt_accepts() {
    let server = full("prompt-args");
    let mut c = legacy(&server).await;
    let accepts = "Prompt summarize takes string arguments: `name` (required), `style`.";
    for era in [L, M] {
        let cases = [
            (
                json!({"name": "sumarize", "arguments": {"name": "x"}}),
                "Unknown prompt: sumarize.",
                "unknown_prompt",
                "List prompts with prompts/list and use one of those names. Did you mean summarize?".to_owned(),
            ),
            (
                json!({"name": "summarize"}),
                "Invalid arguments for prompt summarize: missing required argument `name`.",
                "invalid_arguments",
                accepts.to_owned(),
            ),
            (
                json!({"name": "summarize", "arguments": {"name": "x", "tone": "dry"}}),
                "Invalid arguments for prompt summarize: prompt summarize has no argument `tone`.",
                "invalid_arguments",
                accepts.to_owned(),
            ),
            (
                json!({"name": "summarize", "arguments": {"name": 7}}),
                "Invalid arguments for prompt summarize: argument `name` must be a string.",
                "invalid_arguments",
                accepts.to_owned(),
            ),
            (
                json!({"name": "summarize", "arguments": {"name": null}}),
                "Invalid arguments for prompt summarize: argument `name` must be a string.",
                "invalid_arguments",
                accepts.to_owned(),
            ),
            (
                json!({"name": "summarize", "arguments": ["x"]}),
                "Invalid arguments for prompt summarize: `arguments` must be an object of strings.",
                "invalid_arguments",
                accepts.to_owned(),
            ),
        ];
        for (params, message, reason, hint) in cases {
            let got = c.error(era, "prompts/get", params.clone()).await;
            let expected = json!({
                "code": -32602,
                "message": message,
                "data": {"reason": reason, "retryable": false, "recovery": {"hint": hint}, "requestId": "<RID>"},
            });
            assert_eq!(got, expected, "{} {params}", era.as_str());
        }
        // Malformed params are plain -32602s.
        let got = c.error(era, "prompts/get", json!({"name": 3})).await;
        assert_eq!(got, json!({"code": -32602, "message": "Invalid params: `name` must be a string"}));
    }
}

// ---------------------------------------------------------------------------------------
// Completion.

#[tokio::test]
async fn completion_offers_values_of_prompt_arguments_and_template_variables() {
    let server = full("complete");
    let mut c = legacy(&server).await;
    for era in [L, M] {
        let prompt =
            json!({"ref": {"type": "ref/prompt", "name": "summarize"}, "argument": {"name": "name", "value": "t"}});
        let got = c.result(era, "completion/complete", prompt).await;
        assert_eq!(got, json!({"completion": {"values": ["todo.md", "travel"], "total": 2, "hasMore": false}}));

        let template = json!({"ref": {"type": "ref/resource", "uri": "notes://{name}"}, "argument": {"name": "name", "value": "my"}});
        let got = c.result(era, "completion/complete", template).await;
        assert_eq!(got, json!({"completion": {"values": ["my note"], "total": 1, "hasMore": false}}));

        // An argument without a completer has no values.
        let none =
            json!({"ref": {"type": "ref/prompt", "name": "summarize"}, "argument": {"name": "style", "value": ""}});
        let got = c.result(era, "completion/complete", none).await;
        assert_eq!(got, json!({"completion": {"values": [], "total": 0, "hasMore": false}}));
    }
}

#[tokio::test]
async fn completion_sends_at_most_a_hundred_values_and_tells_the_total() {
    let server = full("complete-cap");
    let mut c = legacy(&server).await;
    for era in [L, M] {
        let params =
            json!({"ref": {"type": "ref/prompt", "name": "spell"}, "argument": {"name": "word", "value": "w"}});
        let got = c.result(era, "completion/complete", params).await;
        let values = got["completion"]["values"].as_array().expect("values");
        assert_eq!(values.len(), 100);
        assert_eq!(values[0], json!("w000"));
        assert_eq!(values[99], json!("w099"));
        assert_eq!(got["completion"]["total"], json!(150));
        assert_eq!(got["completion"]["hasMore"], json!(true));
    }
}

#[tokio::test]
async fn completion_of_something_that_does_not_exist_is_invalid_params() {
    let server = full("complete-bad");
    let mut c = legacy(&server).await;
    for era in [L, M] {
        let got = c
            .error(
                era,
                "completion/complete",
                json!({"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "a", "value": ""}}),
            )
            .await;
        assert_eq!(got["code"], json!(-32602), "{got}");
        assert!(got["message"].as_str().unwrap().contains("unknown prompt nope"), "{got}");
        let got = c
            .error(
                era,
                "completion/complete",
                json!({"ref": {"type": "ref/resource", "uri": "notes://x"}, "argument": {"name": "name", "value": ""}}),
            )
            .await;
        assert_eq!(got["code"], json!(-32602), "{got}");
        assert!(got["message"].as_str().unwrap().contains("resources/templates/list"), "{got}");
        let got = c.error(era, "completion/complete", json!({"ref": {"type": "ref/prompt"}})).await;
        assert_eq!(got["code"], json!(-32602), "{got}");
    }
}

// ---------------------------------------------------------------------------------------
// Lists, pagination, the modern shape.

#[tokio::test]
async fn resources_and_templates_are_listed_with_their_metadata() {
    let server = full("list");
    let mut c = legacy(&server).await;
    for era in [L, M] {
        let list = without_cache_hints(era, c.result(era, "resources/list", json!({})).await);
        let expected = json!({"resources": [
            {"uri": "notes://index", "name": "index", "title": "Index", "description": "The start page of the notes.", "mimeType": "text/markdown"},
            {"uri": "notes://my%20note", "name": "my note", "mimeType": "text/plain"},
            {"uri": "notes://todo.md", "name": "todo.md", "mimeType": "text/plain"},
            {"uri": "notes://travel", "name": "travel", "mimeType": "text/plain"},
            {"uri": "blob://pixel", "name": "pixel", "description": "A red pixel, as bytes.", "mimeType": "image/png"},
            {"uri": "empty://nothing", "name": "nothing", "description": "A resource whose handler finds nothing to return."},
            {"uri": "boom://now", "name": "boom", "description": "A resource that panics."},
        ]});
        assert_eq!(list, expected, "{}", era.as_str());

        let templates = without_cache_hints(era, c.result(era, "resources/templates/list", json!({})).await);
        let expected = json!({"resourceTemplates": [
            {"uriTemplate": "notes://{name}", "name": "note", "description": "A note, by name.", "mimeType": "text/plain"},
            {"uriTemplate": "books://{title}/page/{page}", "name": "book_page", "description": "One page of a book: `page` is a number."},
            {"uriTemplate": "files:///{+path}", "name": "file", "description": "A file under the root: the path may hold `/`."},
        ]});
        assert_eq!(templates, expected, "{}", era.as_str());
    }
}

#[tokio::test]
async fn resources_list_pages_with_page_size() {
    let server = builder("pages").page_size(3).build().unwrap();
    let unpaged = full("pages-all");
    let mut all = legacy(&unpaged).await;
    let mut c = legacy(&server).await;
    for era in [L, M] {
        let everything = without_cache_hints(era, all.result(era, "resources/list", json!({})).await);
        let mut seen = Vec::new();
        let mut params = json!({});
        let mut pages = 0;
        loop {
            let page = without_cache_hints(era, c.result(era, "resources/list", params).await);
            pages += 1;
            let items = page["resources"].as_array().unwrap();
            assert!(items.len() <= 3 && !items.is_empty(), "{page}");
            seen.extend(items.iter().cloned());
            match page.get("nextCursor") {
                Some(cursor) => params = json!({"cursor": cursor}),
                None => break,
            }
        }
        assert_eq!(pages, 3, "7 resources in pages of 3");
        assert_eq!(Value::Array(seen), everything["resources"], "{}", era.as_str());

        let got = c.error(era, "resources/list", json!({"cursor": "page-9"})).await;
        assert_eq!(
            got,
            json!({"code": -32602, "message": "Invalid params: unknown cursor; list again without a cursor to start over"})
        );
        let prompts = without_cache_hints(era, c.result(era, "prompts/list", json!({})).await);
        assert_eq!(prompts["prompts"].as_array().unwrap().len(), 3);
        assert!(prompts.get("nextCursor").is_none(), "{prompts}");
    }
}

#[tokio::test]
async fn modern_results_carry_cache_hints_on_lists_and_reads_but_not_on_prompts() {
    let server =
        builder("cache").cache_hints(Duration::from_secs(30), mcp_runtime::CacheScope::Public).build().unwrap();
    let mut c = Conn::open(&server);
    let cached = [
        ("resources/list", json!({})),
        ("resources/templates/list", json!({})),
        ("prompts/list", json!({})),
        ("resources/read", read("notes://index")),
    ];
    for (method, params) in cached {
        let got = c.result(M, method, params).await;
        assert_eq!(got["ttlMs"], json!(30_000), "{method}: {got}");
        assert_eq!(got["cacheScope"], json!("public"), "{method}: {got}");
    }
    let uncached = [
        ("prompts/get", json!({"name": "spell", "arguments": {"word": "a"}})),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "spell"}, "argument": {"name": "word", "value": ""}}),
        ),
    ];
    for (method, params) in uncached {
        let got = c.result(M, method, params).await;
        assert!(got.get("ttlMs").is_none() && got.get("cacheScope").is_none(), "{method}: {got}");
    }
}

// ---------------------------------------------------------------------------------------
// Capabilities.

#[tokio::test]
async fn capabilities_are_declared_iff_the_server_has_the_feature() {
    let server = full("caps");
    let mut c = Conn::open(&server);
    let init = c.initialize().await;
    // A 2025 stdio session hears of changes through its forwarding task.
    assert_eq!(
        init["result"]["capabilities"],
        json!({
            "tools": {"listChanged": true},
            "logging": {},
            "resources": {"subscribe": true, "listChanged": true},
            "prompts": {"listChanged": true},
            "completions": {},
        })
    );
    let discover = c.result(M, "server/discover", json!({})).await;
    assert_eq!(
        discover["capabilities"],
        json!({
            "tools": {"listChanged": true},
            "logging": {},
            "resources": {"subscribe": true, "listChanged": true},
            "prompts": {"listChanged": true},
            "completions": {},
        })
    );

    let tools_only = RuntimeServer::builder("res-tests", "1.0.0").tool(echo).build().unwrap();
    let mut c = Conn::open(&tools_only);
    let init = c.initialize().await;
    assert_eq!(init["result"]["capabilities"], json!({"tools": {"listChanged": true}, "logging": {}}));
    let discover = c.result(M, "server/discover", json!({})).await;
    assert_eq!(discover["capabilities"], json!({"tools": {"listChanged": true}, "logging": {}}));
    for era in [L, M] {
        for (method, params) in [
            ("resources/list", json!({})),
            ("resources/templates/list", json!({})),
            ("resources/read", read("notes://index")),
            ("prompts/list", json!({})),
            ("prompts/get", json!({"name": "summarize"})),
            (
                "completion/complete",
                json!({"ref": {"type": "ref/prompt", "name": "x"}, "argument": {"name": "a", "value": ""}}),
            ),
        ] {
            let got = c.error(era, method, params).await;
            assert_eq!(got["code"], json!(-32601), "{} {method}: {got}", era.as_str());
        }
    }
    let got = c.error(L, "resources/subscribe", read("notes://index")).await;
    assert_eq!(got["code"], json!(-32601), "{got}");

    // Prompts only: completion is offered (prompts have arguments), resources are not.
    let prompts_only = RuntimeServer::builder("res-tests", "1.0.0").prompt(summarize).build().unwrap();
    let mut c = Conn::open(&prompts_only);
    let init = c.initialize().await;
    assert_eq!(
        init["result"]["capabilities"],
        json!({"tools": {"listChanged": true}, "logging": {}, "prompts": {"listChanged": true}, "completions": {}})
    );
    // Fixed resources only: nothing to complete.
    let fixed_only = RuntimeServer::builder("res-tests", "1.0.0").resource(index).build().unwrap();
    let mut c = Conn::open(&fixed_only);
    let init = c.initialize().await;
    assert_eq!(
        init["result"]["capabilities"],
        json!({"tools": {"listChanged": true}, "logging": {}, "resources": {"subscribe": true, "listChanged": true}})
    );
}

// ---------------------------------------------------------------------------------------
// Subscriptions and list changes.

#[tokio::test]
async fn a_legacy_subscription_receives_resource_updated_for_its_uri_only() {
    let server = full("subscribe");
    let mut c = legacy(&server).await;
    let ok = c.result(L, "resources/subscribe", read("notes://todo.md")).await;
    assert_eq!(ok, json!({}));
    server.resource_updated("notes://travel");
    server.resource_updated("notes://todo.md");
    let notes = c.notifications_within(Duration::from_millis(500)).await;
    assert_eq!(
        notes,
        [json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "notes://todo.md"}})]
    );

    let ok = c.result(L, "resources/unsubscribe", read("notes://todo.md")).await;
    assert_eq!(ok, json!({}));
    server.resource_updated("notes://todo.md");
    assert_eq!(c.notifications_within(Duration::from_millis(300)).await, Vec::<Value>::new());

    // Modern requests cannot subscribe this way.
    let got = c.error(M, "resources/subscribe", read("notes://todo.md")).await;
    assert_eq!(got["code"], json!(-32601), "{got}");
    assert!(got["message"].as_str().unwrap().contains("resourceSubscriptions"), "{got}");
}

#[tokio::test]
async fn a_legacy_session_is_told_of_prompt_and_resource_list_changes() {
    let server = full("legacy-list-changed");
    let mut c = legacy(&server).await;
    server.add_prompt(late);
    let notes = c.notifications_within(Duration::from_millis(500)).await;
    assert_eq!(notes, [json!({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed", "params": {}})]);
    let list = c.result(L, "prompts/list", json!({})).await;
    let names: Vec<&str> = list["prompts"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["summarize", "spell", "shorten", "late"]);
    server.resources_changed();
    let notes = c.notifications_within(Duration::from_millis(500)).await;
    assert_eq!(notes, [json!({"jsonrpc": "2.0", "method": "notifications/resources/list_changed", "params": {}})]);
    // An update of a URI the session did not subscribe to is not a list change.
    server.resource_updated("notes://todo.md");
    assert_eq!(c.notifications_within(Duration::from_millis(300)).await, Vec::<Value>::new());
}

#[tokio::test]
async fn a_legacy_session_that_did_not_subscribe_is_not_told() {
    let server = full("no-subscribe");
    let mut c = legacy(&server).await;
    let mut other = legacy(&server).await;
    other.result(L, "resources/subscribe", read("notes://todo.md")).await;
    server.resource_updated("notes://todo.md");
    assert_eq!(other.notifications_within(Duration::from_millis(500)).await.len(), 1);
    assert_eq!(c.notifications_within(Duration::from_millis(300)).await, Vec::<Value>::new());
}

#[tokio::test]
async fn a_listen_stream_gets_prompt_list_changes_and_its_resource_updates() {
    let server = full("listen");
    let mut c = Conn::open(&server);
    let params = json!({"notifications": {
        "promptsListChanged": true,
        "resourcesListChanged": true,
        "resourceSubscriptions": ["notes://todo.md"],
    }});
    let listen = c.request(M, "subscriptions/listen", params).await;
    let ack = c.recv().await;
    assert_eq!(
        ack,
        json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": {
            "_meta": {SUBSCRIPTION_KEY: listen},
            "notifications": {
                "promptsListChanged": true,
                "resourcesListChanged": true,
                "resourceSubscriptions": ["notes://todo.md"],
            },
        }})
    );

    server.add_prompt(late);
    let got = c.recv().await;
    assert_eq!(
        got,
        json!({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed", "params": {"_meta": {SUBSCRIPTION_KEY: listen}}})
    );
    let list = c.result(M, "prompts/list", json!({})).await;
    let names: Vec<&str> = list["prompts"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["summarize", "spell", "shorten", "late"]);

    server.resource_updated("notes://travel");
    server.resource_updated("notes://todo.md");
    let got = c.recv().await;
    assert_eq!(
        got,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {
            "uri": "notes://todo.md",
            "_meta": {SUBSCRIPTION_KEY: listen},
        }})
    );
    server.resources_changed();
    let got = c.recv().await;
    assert_eq!(
        got,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/list_changed", "params": {"_meta": {SUBSCRIPTION_KEY: listen}}})
    );
    assert!(server.remove_prompt("late"));
    let got = c.recv().await;
    assert_eq!(got["method"], json!("notifications/prompts/list_changed"), "{got}");
    assert_eq!(c.notifications_within(Duration::from_millis(300)).await, Vec::<Value>::new());
}

#[tokio::test]
async fn a_listen_stream_is_not_told_what_it_did_not_ask_for_or_the_server_does_not_have() {
    let server = full("listen-narrow");
    let mut c = Conn::open(&server);
    let listen = c.request(M, "subscriptions/listen", json!({"notifications": {"toolsListChanged": true}})).await;
    let ack = c.recv().await;
    assert_eq!(ack["params"]["notifications"], json!({"toolsListChanged": true}), "{ack}");
    server.add_prompt(late);
    server.resource_updated("notes://todo.md");
    server.resources_changed();
    assert_eq!(c.notifications_within(Duration::from_millis(300)).await, Vec::<Value>::new(), "listen {listen}");

    // A tools-only server honours none of the resource or prompt filters.
    let tools_only = RuntimeServer::builder("res-tests", "1.0.0").tool(echo).build().unwrap();
    let mut c = Conn::open(&tools_only);
    let params = json!({"notifications": {"promptsListChanged": true, "resourcesListChanged": true, "resourceSubscriptions": ["a://b"]}});
    c.request(M, "subscriptions/listen", params).await;
    let ack = c.recv().await;
    assert_eq!(ack["params"]["notifications"], json!({}), "{ack}");
}

// ---------------------------------------------------------------------------------------
// Issue 33 item 10: a resource returns a `Serialize` value as JSON.

/// The counts a stats resource returns.
#[derive(serde::Serialize)]
struct Stats {
    notes: usize,
    tags: Vec<&'static str>,
}

/// Note statistics, as JSON.
#[resource(uri = "stats://notes")]
fn note_stats() -> mcp_runtime::Json<Stats> {
    mcp_runtime::Json(Stats { notes: 2, tags: vec!["a", "b"] })
}

/// The same, with a MIME type of its own.
#[resource(uri = "stats://ld", mime_type = "application/ld+json")]
#[allow(clippy::unnecessary_wraps)] // a `Result` of `Json` is served too
fn linked_stats() -> Result<mcp_runtime::Json<serde_json::Value>, ToolError> {
    Ok(mcp_runtime::Json(json!({"@id": "x"})))
}

/// A value serde cannot write as JSON (a map whose keys are not strings).
#[resource(uri = "stats://broken")]
fn broken_stats() -> mcp_runtime::Json<HashMap<(u8, u8), u8>> {
    mcp_runtime::Json(HashMap::from([((1, 2), 3)]))
}

#[tokio::test]
async fn a_resource_returns_a_serialize_value_as_application_json() {
    let server = RuntimeServer::builder("json", "1")
        .resource(note_stats)
        .resource(linked_stats)
        .resource(broken_stats)
        .build()
        .expect("builds");
    let read = server.read_resource("stats://notes").await.expect("reads");
    assert_eq!(
        read,
        json!({"contents": [{"uri": "stats://notes", "mimeType": "application/json", "text": "{\"notes\":2,\"tags\":[\"a\",\"b\"]}"}]})
    );
    let read = server.read_resource("stats://ld").await.expect("reads");
    assert_eq!(read["contents"][0]["mimeType"], "application/ld+json", "{read}");
    assert_eq!(read["contents"][0]["text"], "{\"@id\":\"x\"}", "{read}");
    let err = server.read_resource("stats://broken").await.expect_err("fails");
    assert_eq!(err.code, -32070, "{err:?}");
    assert!(err.message.contains("could not be serialized as JSON"), "{err:?}");
}
