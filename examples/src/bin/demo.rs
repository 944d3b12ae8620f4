//! `demo`: a scripted MCP session with the notes server over real stdio.
//!
//! ```text
//! cargo run -p mcp-examples --bin demo
//! ```
//!
//! It writes a few notes into a fresh temporary directory, starts the notes server as a
//! child process, and plays what a model would do: `initialize`, `tools/list`, successful
//! calls, a call that fails with a recovery hint, the retry that follows the hint, a call
//! with invalid arguments, and its corrected retry; then, on the same process, the
//! 2026-07-28 era (`server/discover`, a call carrying its own `_meta` envelope); then a
//! destructive tool that asks the user first (`delete_note`): answered yes and no over the
//! 2025 session (the server sends `elicitation/create`), and yes in the 2026-07-28 era (an
//! `input_required` result, then the call again with the answer). Every message is printed (`→` sent,
//! `←` received); error results are shown as the model reads them. The exit status is
//! non-zero when any step does not get the kind of answer it expects.
//!
//! The server is this same executable started as `demo --serve-notes <DIR>`, which runs
//! exactly what the `notes-server` binary runs (`mcp_examples::notes::server`); that way
//! one `cargo run` builds everything the demo needs and never drives a stale binary. Set
//! `NOTES_SERVER=/path/to/notes-server` to drive a separately built binary instead.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The argument that turns this executable into the notes server.
const SERVE_FLAG: &str = "--serve-notes";
/// How long to wait for any one response.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(15);

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == SERVE_FLAG) {
        return serve_notes(args.get(2).map(PathBuf::from));
    }
    match run() {
        Ok(0) => ExitCode::SUCCESS,
        Ok(failed) => {
            println!("\n✗ {failed} step(s) did not get the expected answer.");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("demo: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Server mode: the notes server on stdio, as the `notes-server` binary runs it.
fn serve_notes(dir: Option<PathBuf>) -> ExitCode {
    mcp_runtime::init_stderr_logging();
    let Some(dir) = dir else {
        eprintln!("usage: demo {SERVE_FLAG} <DIR>");
        return ExitCode::from(2);
    };
    let served =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(|e| e.to_string()).and_then(|rt| {
            rt.block_on(async {
                let notes = mcp_examples::notes::NotesDir::open(&dir).map_err(|e| e.to_string())?;
                let server = mcp_examples::notes::server(notes).map_err(|e| e.to_string())?;
                server.serve_stdio().await.map_err(|e| e.to_string())
            })
        });
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("notes server: {e}");
            ExitCode::FAILURE
        }
    }
}

/// What a step expects back.
enum Expect {
    /// A successful `tools/call` result (`isError` absent or false).
    Success,
    /// A tool execution error (`isError: true`) with this `data.reason`.
    ToolError(&'static str),
}

/// The scripted session. Returns how many steps failed.
fn run() -> Result<usize, String> {
    let dir = TempDir::create()?;
    write_sample_notes(&dir.0)?;
    let (program, args) = server_command(&dir.0)?;
    println!("MCP demo: a scripted session with the notes server over stdio");
    println!("  notes directory: {}", dir.0.display());
    println!("  server command:  {} {}", program.display(), args.join(" "));

    let mut session = Session::spawn(&program, &args)?;
    let mut failed = 0;

    step(1, "initialize: agree on a protocol revision, learn the server's capabilities");
    let init = session.request(
        "initialize",
        json!({
            "protocolVersion": "2025-06-18",
            // This client can show the user a form (elicitation): delete_note asks for consent.
            "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "mcp-demo", "version": env!("CARGO_PKG_VERSION")},
        }),
    )?;
    match init.get("result") {
        Some(result) if result.get("serverInfo").is_some() => print_json(result, 14),
        _ => failed += unexpected(&init, "an initialize result with serverInfo"),
    }
    session.notify("notifications/initialized", json!({}))?;

    step(2, "tools/list: what the model is shown");
    let list = session.request("tools/list", json!({}))?;
    match list.pointer("/result/tools").and_then(Value::as_array) {
        Some(tools) if !tools.is_empty() => print_tools(tools),
        _ => failed += unexpected(&list, "a non-empty tool list"),
    }

    step(3, "a successful call with structured output");
    failed += call(&mut session, "list_notes", json!({}), None, &Expect::Success)?;

    step(4, "a search that reports progress (the request carries a progress token)");
    failed +=
        call(&mut session, "search_notes", json!({"query": "milk", "limit": 5}), Some("search-1"), &Expect::Success)?;

    step(5, "a failing call: the model guesses a note name");
    failed += call(&mut session, "read_note", json!({"name": "grocery"}), None, &Expect::ToolError("no_such_note"))?;

    step(6, "the retry the recovery hint points to");
    failed += call(&mut session, "read_note", json!({"name": "groceries"}), None, &Expect::Success)?;

    step(7, "invalid arguments: a misnamed key");
    let typo = json!({"name": "ideas", "body": "Try the ramen place on 5th street."});
    failed += call(&mut session, "write_note", typo, None, &Expect::ToolError("invalid_arguments"))?;

    step(8, "the corrected retry");
    let fixed = json!({"name": "ideas", "text": "Try the ramen place on 5th street."});
    failed += call(&mut session, "write_note", fixed, None, &Expect::Success)?;

    failed += resources_and_prompts(&mut session)?;

    step(13, "the same process, the 2026-07-28 era: no handshake, the envelope rides on each request");
    let envelope = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "mcp-demo", "version": env!("CARGO_PKG_VERSION")},
    });
    let discover = session.request("server/discover", json!({"_meta": envelope}))?;
    match discover.pointer("/result/supportedVersions") {
        Some(versions) if versions == &json!(["2026-07-28"]) => print_json(&discover["result"], 14),
        _ => failed += unexpected(&discover, "a server/discover result listing 2026-07-28"),
    }
    let modern = session
        .request("tools/call", json!({"name": "read_note", "arguments": {"name": "standup"}, "_meta": envelope}))?;
    match modern.pointer("/result/resultType").and_then(Value::as_str) {
        Some("complete") if modern.pointer("/result/isError").is_none() => print_json(&modern["result"], 14),
        _ => failed += unexpected(&modern, "a complete 2026-07-28 tools/call result"),
    }

    failed += consent_steps(&mut session, &dir.0)?;

    let written = std::fs::read_to_string(dir.0.join("ideas.md")).unwrap_or_default();
    if written == "Try the ramen place on 5th street." {
        println!("\n✓ {} holds the new note ({} bytes)", dir.0.join("ideas.md").display(), written.len());
    } else {
        println!("\n✗ ideas.md was not written as requested");
        failed += 1;
    }

    let log = session.shut_down();
    println!("\nserver log (stderr; every record of a call carries its request id):");
    for line in log.lines().filter(|l| !l.trim().is_empty()).take(12) {
        println!("  {}", cut(line, 200));
    }
    if failed == 0 {
        println!("\n✓ every step got the expected answer");
    }
    Ok(failed)
}

/// Steps 9 to 12: the notes as resources, a missing one, completion, a prompt.
fn resources_and_prompts(session: &mut Session) -> Result<usize, String> {
    let mut failed = 0;
    step(9, "resources: every note is a resource (`notes://{name}`), read like a file");
    let resources = session.request("resources/list", json!({}))?;
    match resources.pointer("/result/resources").and_then(Value::as_array) {
        Some(listed) if listed.iter().any(|r| r["uri"] == "notes://ideas") => {
            for r in listed {
                println!("  {}  ({} bytes)", r["uri"].as_str().unwrap_or("?"), r["size"]);
            }
        }
        _ => failed += unexpected(&resources, "a resource list with notes://ideas"),
    }
    let read = session.request("resources/read", json!({"uri": "notes://ideas"}))?;
    match read.pointer("/result/contents/0/text").and_then(Value::as_str) {
        Some(text) if text.contains("ramen") => print_json(&read["result"], 10),
        _ => failed += unexpected(&read, "the note's text as a resource"),
    }

    step(10, "a resource that is not there: a JSON-RPC error with the same reason, hint and request id");
    let missing = session.request("resources/read", json!({"uri": "notes://idea"}))?;
    match missing.pointer("/error/data/reason").and_then(Value::as_str) {
        Some("no_such_note") => print_json(&missing["error"], 14),
        _ => failed += unexpected(&missing, "an error with reason no_such_note"),
    }

    step(11, "completion: note names for the prompt's `name` argument, from what was typed");
    let completion = session.request(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "summarize_note"}, "argument": {"name": "name", "value": "gr"}}),
    )?;
    match completion.pointer("/result/completion/values").and_then(Value::as_array) {
        Some(values) if values.iter().any(|v| v == "groceries") => print_json(&completion["result"], 8),
        _ => failed += unexpected(&completion, "completion values with groceries"),
    }

    step(12, "a prompt: summarize_note embeds the note for the model");
    let prompt =
        session.request("prompts/get", json!({"name": "summarize_note", "arguments": {"name": "groceries"}}))?;
    match prompt.pointer("/result/messages").and_then(Value::as_array) {
        Some(messages) if messages.len() == 2 => print_json(&prompt["result"], 16),
        _ => failed += unexpected(&prompt, "two prompt messages"),
    }

    Ok(failed)
}

/// Steps 14 to 16: a destructive tool that asks the user first, in both eras. Returns how
/// many steps failed.
fn consent_steps(session: &mut Session, dir: &Path) -> Result<usize, String> {
    let mut failed = 0;
    step(14, "a destructive call asks the user first: delete_note sends a yes/no form, the user says yes");
    session.user = Some(json!({"action": "accept", "content": {"confirm": true}}));
    failed += call(session, "delete_note", json!({"name": "reading-list"}), None, &Expect::Success)?;

    step(15, "the user says no: nothing is deleted, the call fails with its declared reason");
    session.user = Some(json!({"action": "decline"}));
    failed += call(session, "delete_note", json!({"name": "groceries"}), None, &Expect::ToolError("not_confirmed"))?;

    step(16, "the same tool in the 2026-07-28 era: the question comes back as an input_required result");
    let asking = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    });
    let question = session
        .request("tools/call", json!({"name": "delete_note", "arguments": {"name": "standup"}, "_meta": asking}))?;
    match question.pointer("/result/resultType").and_then(Value::as_str) {
        Some("input_required") => {
            print_json(&question["result"], 24);
            println!("  (the client shows the form; the user says yes; the client calls again with the answer)");
            let retry = json!({
                "name": "delete_note",
                "arguments": {"name": "standup"},
                "_meta": asking,
                "inputResponses": {"consent": {"action": "accept", "content": {"confirm": true}}},
                "requestState": question["result"]["requestState"],
            });
            let done = session.request("tools/call", retry)?;
            match done.pointer("/result/resultType").and_then(Value::as_str) {
                Some("complete") if done.pointer("/result/isError").is_none() => print_json(&done["result"], 14),
                _ => failed += unexpected(&done, "a complete result after the answer"),
            }
        }
        _ => failed += unexpected(&question, "an input_required result asking for confirmation"),
    }
    let left: Vec<bool> =
        ["reading-list", "groceries", "standup"].iter().map(|n| dir.join(format!("{n}.md")).exists()).collect();
    if left == [false, true, false] {
        println!("\n✓ reading-list and standup were deleted with consent; groceries, declined, is still there");
    } else {
        println!("\n✗ the notes left are not the ones consented to: reading-list, groceries, standup exist = {left:?}");
        failed += 1;
    }

    Ok(failed)
}

/// `NOTES_SERVER` when set, else this executable in server mode.
fn server_command(dir: &Path) -> Result<(PathBuf, Vec<String>), String> {
    let dir = dir.display().to_string();
    if let Some(bin) = std::env::var_os("NOTES_SERVER") {
        return Ok((PathBuf::from(bin), vec![dir]));
    }
    let me = std::env::current_exe().map_err(|e| format!("cannot find the demo executable: {e}"))?;
    Ok((me, vec![SERVE_FLAG.to_owned(), dir]))
}

/// A few notes to work with.
fn write_sample_notes(dir: &Path) -> Result<(), String> {
    let notes = [
        ("groceries", "# Groceries\n- eggs\n- oat milk\n- coffee beans\n- lemons\n"),
        ("standup", "# Standup 2024-06-03\n- shipped the notes server\n- next: search ranking\n"),
        ("reading-list", "# Reading list\n- The Rust Programming Language\n- Designing Data-Intensive Applications\n"),
    ];
    for (name, text) in notes {
        std::fs::write(dir.join(format!("{name}.md")), text).map_err(|e| format!("cannot write note {name}: {e}"))?;
    }
    Ok(())
}

/// One `tools/call`, printed and checked. Returns 1 when the answer is not the expected kind.
fn call(
    session: &mut Session,
    name: &str,
    arguments: Value,
    progress_token: Option<&str>,
    expect: &Expect,
) -> Result<usize, String> {
    let mut params = json!({"name": name, "arguments": arguments});
    if let Some(token) = progress_token {
        params["_meta"] = json!({"progressToken": token});
    }
    let response = session.request("tools/call", params)?;
    let Some(result) = response.get("result") else {
        return Ok(unexpected(&response, "a tools/call result"));
    };
    let is_error = result.get("isError").and_then(Value::as_bool).unwrap_or(false);
    match (expect, is_error) {
        (Expect::Success, false) => {
            print_success(result);
            Ok(0)
        }
        (Expect::ToolError(reason), true) => {
            print_tool_error(result);
            let got = reason_of(result);
            if got == Some(*reason) {
                Ok(0)
            } else {
                println!("  ✗ expected reason {reason}, got {got:?}");
                Ok(1)
            }
        }
        (Expect::Success, true) => {
            print_tool_error(result);
            println!("  ✗ expected a successful result");
            Ok(1)
        }
        (Expect::ToolError(reason), false) => {
            print_success(result);
            println!("  ✗ expected a tool error with reason {reason}");
            Ok(1)
        }
    }
}

fn step(n: u32, title: &str) {
    println!("\n── {n}. {title}");
}

fn unexpected(response: &Value, wanted: &str) -> usize {
    println!("  ✗ expected {wanted}; got:");
    print_json(response, 20);
    1
}

/// A successful result: structured output when there is some, else its text blocks.
fn print_success(result: &Value) {
    if let Some(structured) = result.get("structuredContent") {
        println!("← result, structuredContent:");
        print_json(structured, 24);
        return;
    }
    println!("← result, content:");
    for block in result.get("content").and_then(Value::as_array).into_iter().flatten() {
        match block.get("text").and_then(Value::as_str) {
            Some(text) => print_text(text, "  │ "),
            None => print_json(block, 6),
        }
    }
}

/// The failure's reason: from `structuredContent.error`, or, for a tool with an output schema
/// (whose error results carry only text), from the text's terms line `(reason … · …)`.
fn reason_of(result: &Value) -> Option<&str> {
    if let Some(reason) = result.pointer("/structuredContent/error/data/reason").and_then(Value::as_str) {
        return Some(reason);
    }
    let text = result.pointer("/content/0/text").and_then(Value::as_str)?;
    let terms = text.rsplit("\n\n").next()?.strip_prefix('(')?;
    terms.split(" · ").find_map(|term| term.strip_prefix("reason "))
}

/// An error result: the text block exactly as the model reads it, then the machine-readable
/// error in brief.
fn print_tool_error(result: &Value) {
    println!("← result, isError: true. The model reads:");
    if let Some(text) = result.pointer("/content/0/text").and_then(Value::as_str) {
        print_text(text, "  │ ");
    }
    if let Some(error) = result.pointer("/structuredContent/error") {
        let mut brief = json!({"code": error["code"], "reason": error["data"]["reason"]});
        if let Some(retryable) = error.pointer("/data/retryable") {
            brief["retryable"] = retryable.clone();
        }
        if let Some(issues) = error.pointer("/data/issues") {
            brief["issues"] = issues.clone();
        }
        println!("  structuredContent.error (in brief): {}", cut(&brief.to_string(), 240));
    } else {
        println!("  (no structuredContent: the tool declares an outputSchema, so the text carries the whole error)");
    }
}

/// One line per tool: its name, behaviour hints and description, then one line per
/// parameter.
fn print_tools(tools: &[Value]) {
    println!("← {} tools:", tools.len());
    for tool in tools {
        let name = tool["name"].as_str().unwrap_or("?");
        let hints: Vec<&str> =
            [("readOnlyHint", "read-only"), ("destructiveHint", "destructive"), ("idempotentHint", "idempotent")]
                .into_iter()
                .filter(|(key, _)| tool.pointer(&format!("/annotations/{key}")) == Some(&Value::Bool(true)))
                .map(|(_, label)| label)
                .collect();
        let output = if tool.get("outputSchema").is_some() { ", structured output" } else { "" };
        println!("  {name} [{}{output}]", hints.join(", "));
        let description = tool["description"].as_str().unwrap_or("").split_whitespace().collect::<Vec<_>>().join(" ");
        println!("      {}", cut(&description, 110));
        let required: Vec<&str> = tool
            .pointer("/inputSchema/required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let properties = tool.pointer("/inputSchema/properties").and_then(Value::as_object);
        for (param, schema) in properties.into_iter().flatten() {
            let ty = match &schema["type"] {
                Value::Array(types) => types.iter().filter_map(Value::as_str).collect::<Vec<_>>().join("|"),
                other => other.as_str().unwrap_or("any").to_owned(),
            };
            let optional = if required.contains(&param.as_str()) { "" } else { "?" };
            let doc = schema["description"].as_str().unwrap_or("");
            println!("      · {param}{optional}: {ty} — {}", cut(doc, 80));
        }
    }
}

/// Pretty JSON, indented, long strings cut, at most `max_lines` lines.
fn print_json(value: &Value, max_lines: usize) {
    let pretty = serde_json::to_string_pretty(&shorten(value)).unwrap_or_default();
    let lines: Vec<&str> = pretty.lines().collect();
    for line in lines.iter().take(max_lines) {
        println!("  {line}");
    }
    if lines.len() > max_lines {
        println!("  … ({} more lines)", lines.len() - max_lines);
    }
}

fn print_text(text: &str, prefix: &str) {
    for line in text.lines() {
        if line.is_empty() {
            println!("{}", prefix.trim_end());
        } else {
            println!("{prefix}{line}");
        }
    }
}

/// `value` with every string longer than 100 characters cut.
fn shorten(value: &Value) -> Value {
    match value {
        Value::String(s) => Value::String(cut(s, 100)),
        Value::Array(items) => Value::Array(items.iter().map(shorten).collect()),
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), shorten(v))).collect()),
        other => other.clone(),
    }
}

fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// The client side of a stdio connection: JSON-RPC lines to the child's stdin, lines from
/// its stdout through a reader thread, its stderr collected for the end.
struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    stderr: std::thread::JoinHandle<String>,
    next_id: u64,
    /// What the (scripted) user answers the next question the server asks, if any.
    user: Option<Value>,
}

impl Session {
    fn spawn(program: &Path, args: &[String]) -> Result<Self, String> {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let mut stderr = child.stderr.take().ok_or("no stderr")?;
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = std::thread::spawn(move || {
            let mut log = String::new();
            let _ = stderr.read_to_string(&mut log);
            log
        });
        Ok(Session { stdin: child.stdin.take(), child, lines, stderr, next_id: 1, user: None })
    }

    fn send(&mut self, message: &Value) -> Result<(), String> {
        println!("→ {}", cut(&message.to_string(), 220));
        let stdin = self.stdin.as_mut().ok_or("stdin is closed")?;
        writeln!(stdin, "{message}")
            .and_then(|()| stdin.flush())
            .map_err(|e| format!("cannot write to the server: {e}"))
    }

    fn notify(&mut self, method: &str, params: Value) -> Result<(), String> {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
    }

    /// Sends a request and returns its response; notifications that arrive first are printed,
    /// and a question the server asks meanwhile (a request of its own, such as
    /// `elicitation/create`) is answered with what the user was scripted to answer.
    fn request(&mut self, method: &str, params: Value) -> Result<Value, String> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        let deadline = Instant::now() + RESPONSE_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self.lines.recv_timeout(left).map_err(|_| format!("no answer to {method} within 15 s"))?;
            let message: Value =
                serde_json::from_str(&line).map_err(|e| format!("the server wrote non-JSON ({e}): {line}"))?;
            if message.get("id") == Some(&json!(id)) {
                return Ok(message);
            }
            if let (Some(asked), Some(question)) = (message.get("id"), message.get("method").and_then(Value::as_str)) {
                println!("← the server asks: {question} {}", cut(&message["params"].to_string(), 200));
                let answer = self.user.take().ok_or_else(|| format!("the server asked {question}, unscripted"))?;
                println!("  (the user answers {answer})");
                self.send(&json!({"jsonrpc": "2.0", "id": asked, "result": answer}))?;
                continue;
            }
            match message.get("method").and_then(Value::as_str) {
                Some(notification) => {
                    println!("← {notification} {}", cut(&message["params"].to_string(), 160));
                }
                None => println!("← (unexpected) {}", cut(&line, 160)),
            }
        }
    }

    /// Closes stdin (the server exits at EOF) and returns what it wrote to stderr.
    fn shut_down(mut self) -> String {
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        self.stderr.join().unwrap_or_default()
    }
}

/// A fresh directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn create() -> Result<Self, String> {
        let path = std::env::temp_dir().join(format!("mcp-notes-demo-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        Ok(TempDir(path))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
