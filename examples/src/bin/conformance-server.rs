//! `conformance-server`: the tools the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`, server mode) calls by name, on stdio.
//!
//! ```text
//! tests/conformance/run.sh -- target/debug/conformance-server
//! ```
//!
//! Every piece of content is built with `mcp_runtime::Content`: a real PNG (a 1×1 red
//! pixel, `assets/red-pixel.png`), a real WAV (50 ms of a 440 Hz tone, generated), text and
//! embedded resources. `json_schema_2020_12_tool` has a hand-written 2020-12 input schema.

use std::borrow::Cow;
use std::time::Duration;

use mcp_runtime::prelude::*;
use schemars::{Schema, SchemaGenerator, json_schema};

/// A 1×1 red pixel, 8-bit RGB.
const RED_PIXEL_PNG: &[u8] = include_bytes!("../../assets/red-pixel.png");

/// Returns a fixed line of text.
#[tool]
fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Returns an image: a 1×1 red pixel (PNG).
#[tool]
fn test_image_content() -> Content {
    Content::image(base64(RED_PIXEL_PNG), "image/png")
}

/// Returns audio: 50 ms of a 440 Hz tone (WAV, 8 kHz, 16-bit mono).
#[tool]
fn test_audio_content() -> Content {
    Content::audio(base64(&tone_wav()), "audio/wav")
}

/// Returns an embedded text resource.
#[tool]
fn test_embedded_resource() -> Content {
    Content::embedded_text("test://embedded-resource", "text/plain", "This is an embedded resource content.")
}

/// Returns text, an image and an embedded JSON resource in one result.
#[tool]
fn test_multiple_content_types() -> [Content; 3] {
    [
        Content::text("Multiple content types test:"),
        Content::image(base64(RED_PIXEL_PNG), "image/png"),
        Content::embedded_text("test://mixed-content-resource", "application/json", r#"{"test":"data","value":123}"#),
    ]
}

/// Sends three log messages to the client while it runs, 50 ms apart.
#[tool]
async fn test_tool_with_logging(ctx: &Ctx) -> &'static str {
    ctx.info("Tool execution started");
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.info("Tool processing data");
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.info("Tool execution completed");
    "Logging test completed: sent 3 log messages."
}

/// Reports progress 0, 50 and 100 of 100, 50 ms apart, when the request carries a
/// progress token.
#[tool]
async fn test_tool_with_progress(ctx: &Ctx) -> &'static str {
    ctx.progress(0.0, Some(100.0), Some("starting"));
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.progress(50.0, Some(100.0), Some("halfway"));
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.progress(100.0, Some(100.0), Some("done"));
    "Progress test completed."
}

/// Ends the HTTP response mid-call (over Streamable HTTP with sessions), waits 100 ms and
/// answers: the client resumes the stream (`Last-Event-ID`) and gets the answer there.
#[tool]
async fn test_reconnection(ctx: &Ctx) -> &'static str {
    ctx.close_sse_stream();
    tokio::time::sleep(Duration::from_millis(100)).await;
    "Reconnection test completed."
}

/// Always fails, to test how tool errors are reported (a result with `isError: true`).
#[tool]
#[errors(
    reason = "intentional_failure",
    code = InternalError,
    when = "This tool intentionally returns an error for testing.",
    recovery = "Do not retry: this tool fails on every call by design."
)]
fn test_error_handling(ctx: &Ctx<TestErrorHandlingError>) -> Result<String, ToolError> {
    Err(ctx.fail(TestErrorHandlingError::IntentionalFailure))
}

/// The input of `json_schema_2020_12_tool`. Its schema is written by hand, not derived: it is
/// the one the `json-schema-2020-12` scenario lists, with `$schema`, `$defs` (holding an
/// `$anchor`), `allOf`/`anyOf`, `if`/`then`/`else` and `additionalProperties: false`, all of
/// which `tools/list` must show as written (SEP-1613, SEP-2106).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Person {
    name: Option<String>,
    address: Option<Address>,
    contact_method: Option<String>,
    phone: Option<String>,
    email: Option<String>,
}

/// A postal address, `$defs.address` of [`Person`]'s schema.
#[derive(Deserialize)]
struct Address {
    street: Option<String>,
    city: Option<String>,
}

impl JsonSchema for Person {
    fn schema_name() -> Cow<'static, str> {
        "Person".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {
                "address": {
                    "$anchor": "addressDef",
                    "type": "object",
                    "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
                }
            },
            "properties": {
                "name": {"type": "string"},
                "address": {"$ref": "#/$defs/address"},
                "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                "phone": {"type": "string"},
                "email": {"type": "string"}
            },
            "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
            "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
            "then": {"required": ["phone"]},
            "else": {"required": ["email"]},
            "additionalProperties": false
        })
    }
}

// The conformance scenario only lists this tool; a call says what it received.
/// Tool with JSON Schema 2020-12 features
#[tool]
fn json_schema_2020_12_tool(#[input] person: Person) -> String {
    let Person { name, address, contact_method, phone, email } = person;
    let reach = if contact_method.as_deref() == Some("phone") { phone } else { email.or(phone) };
    let address = address.map(|a| [a.street, a.city].into_iter().flatten().collect::<Vec<_>>().join(", "));
    format!("{}: {}; {}", name.unwrap_or_default(), reach.unwrap_or_default(), address.unwrap_or_default())
}

/// A WAV file: 50 ms of a 440 Hz sine at a third of full scale, 8 kHz, 16-bit PCM, mono.
fn tone_wav() -> Vec<u8> {
    const RATE: u32 = 8_000;
    const SAMPLES: u32 = RATE / 20;
    const DATA_BYTES: u32 = SAMPLES * 2;
    let mut wav = Vec::with_capacity(44 + DATA_BYTES as usize);
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&(36 + DATA_BYTES).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    wav.extend_from_slice(&16_u32.to_le_bytes()); // fmt chunk size
    wav.extend_from_slice(&1_u16.to_le_bytes()); // PCM
    wav.extend_from_slice(&1_u16.to_le_bytes()); // channels
    wav.extend_from_slice(&RATE.to_le_bytes());
    wav.extend_from_slice(&(RATE * 2).to_le_bytes()); // bytes per second
    wav.extend_from_slice(&2_u16.to_le_bytes()); // block align
    wav.extend_from_slice(&16_u16.to_le_bytes()); // bits per sample
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&DATA_BYTES.to_le_bytes());
    for i in 0..SAMPLES {
        let t = f64::from(i) / f64::from(RATE);
        let sample = (t * 440.0 * std::f64::consts::TAU).sin() * f64::from(i16::MAX) / 3.0;
        #[expect(clippy::cast_possible_truncation, reason = "|sample| <= i16::MAX / 3")]
        let sample = sample.round() as i16;
        wav.extend_from_slice(&sample.to_le_bytes());
    }
    wav
}

/// Standard base64 with padding (RFC 4648 §4).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0_u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Logs at `info` while it runs: a 2026-07-28 request that set no `logLevel` receives none
/// of it; a 2025 session receives it at its level.
#[tool]
fn test_logging_tool(ctx: &Ctx) -> &'static str {
    ctx.info("test_logging_tool ran");
    "Logged one info message."
}

/// Needs the client's `sampling` capability: a 2026-07-28 request without it gets `-32021`.
#[tool]
fn test_missing_capability(ctx: &Ctx) -> Result<&'static str, ToolError> {
    ctx.require_client_capability("sampling")?;
    Ok("The client declared sampling.")
}

/// Streams progress, then asks the user for a value: on a 2026-07-28 stream only
/// notifications and the response travel (the ask is an `input_required` result, never a
/// server-to-client request); a 2025 session is asked by the runtime's shim.
#[tool]
async fn test_streaming_elicitation(ctx: &Ctx) -> Result<String, ToolError> {
    ctx.progress(1.0, Some(2.0), Some("working"));
    tokio::time::sleep(Duration::from_millis(20)).await;
    ctx.progress(2.0, Some(2.0), Some("done"));
    match ctx.inputs().elicitation("value") {
        Elicited::Accepted(content) => Ok(format!("Streamed notifications, then got {content}.")),
        Elicited::Declined | Elicited::Cancelled => Ok("Streamed notifications; the user did not answer.".into()),
        Elicited::Missing => Err(ctx.ask(Ask::new().elicit("value", Elicitation::form_for::<UserName>("Your name?")))),
    }
}

// ---- asking the caller (elicitation, sampling, roots): written once, served in both eras.

/// The form `test_input_required_result_elicitation` shows.
#[derive(Deserialize, JsonSchema)]
struct UserName {
    name: String,
}

/// The form `test_input_required_result_request_state` shows.
#[derive(Deserialize, JsonSchema)]
struct Confirmation {
    ok: bool,
}

/// The form of round 2 of `test_input_required_result_multi_round`.
#[derive(Deserialize, JsonSchema)]
struct Colour {
    color: String,
}

/// Asks for a name (`user_name`), then greets it.
#[tool]
fn test_input_required_result_elicitation(ctx: &Ctx) -> Result<String, ToolError> {
    match ctx.inputs().form::<UserName>("user_name") {
        Elicited::Accepted(UserName { name }) => Ok(format!("Hello, {name}!")),
        Elicited::Declined | Elicited::Cancelled => Ok("Hello, whoever you are!".into()),
        Elicited::Missing => {
            Err(ctx.ask(Ask::new().elicit("user_name", Elicitation::form_for::<UserName>("What is your name?"))))
        }
    }
}

/// Asks the client's model a question (`capital_question`), then returns its answer.
#[tool]
fn test_input_required_result_sampling(ctx: &Ctx) -> Result<String, ToolError> {
    if let Some(text) = ctx.inputs().sampled_text("capital_question") {
        return Ok(format!("The model said: {text}"));
    }
    let question = Sampling::new(100).user("What is the capital of France?");
    Err(ctx.ask(Ask::new().sample("capital_question", question)))
}

/// Asks for the client's roots (`client_roots`), then lists them.
#[tool]
fn test_input_required_result_list_roots(ctx: &Ctx) -> Result<String, ToolError> {
    match ctx.inputs().roots("client_roots") {
        Some(roots) => Ok(format!("Roots: {}", uris(roots))),
        None => Err(ctx.ask(Ask::new().list_roots("client_roots"))),
    }
}

/// Asks for a confirmation with a `requestState`, and says `state-ok` once the state comes
/// back (the runtime seals it, and refuses one that comes back changed).
#[tool]
fn test_input_required_result_request_state(ctx: &Ctx) -> Result<String, ToolError> {
    let inputs = ctx.inputs();
    match (inputs.state(), inputs.form::<Confirmation>("confirm")) {
        (Some(state), Elicited::Accepted(Confirmation { ok })) => Ok(format!("state-ok: {state}, confirmed: {ok}")),
        _ => Err(ctx.ask(
            Ask::new()
                .elicit("confirm", Elicitation::form_for::<Confirmation>("Please confirm"))
                .state("request-state/confirm"),
        )),
    }
}

/// Asks for a name, a greeting from the model and the roots at once, with state.
#[tool]
fn test_input_required_result_multiple_inputs(ctx: &Ctx) -> Result<String, ToolError> {
    let inputs = ctx.inputs();
    let name = match inputs.form::<UserName>("user_name") {
        Elicited::Accepted(UserName { name }) => Some(name),
        _ => None,
    };
    if let (Some(_), Some(name), Some(greeting), Some(roots)) =
        (inputs.state(), name, inputs.sampled_text("greeting"), inputs.roots("client_roots"))
    {
        return Ok(format!("{greeting} {name}; roots: {}", uris(roots)));
    }
    Err(ctx.ask(
        Ask::new()
            .elicit("user_name", Elicitation::form_for::<UserName>("What is your name?"))
            .sample("greeting", Sampling::new(50).user("Generate a greeting"))
            .list_roots("client_roots")
            .state("multiple-inputs"),
    ))
}

/// Three rounds: a name (`step1`), then a colour (`step2`) with a new state, then the result.
#[tool]
fn test_input_required_result_multi_round(ctx: &Ctx) -> Result<String, ToolError> {
    let inputs = ctx.inputs();
    match inputs.state().and_then(|p| p.strip_prefix("multi-round/")) {
        Some("1") => match inputs.form::<UserName>("step1") {
            Elicited::Accepted(UserName { name }) => Err(ctx.ask(
                Ask::new()
                    .elicit("step2", Elicitation::form_for::<Colour>("Step 2: What is your favorite color?"))
                    .state(format!("multi-round/2/{name}")),
            )),
            _ => Err(ctx.ask(step1())),
        },
        Some(rest) if rest.starts_with("2/") => {
            let name = &rest[2..];
            match inputs.form::<Colour>("step2") {
                Elicited::Accepted(Colour { color }) => Ok(format!("{name} likes {color}.")),
                _ => Err(ctx.ask(
                    Ask::new()
                        .elicit("step2", Elicitation::form_for::<Colour>("Step 2: What is your favorite color?"))
                        .state(format!("multi-round/2/{name}")),
                )),
            }
        }
        _ => Err(ctx.ask(step1())),
    }
}

fn step1() -> Ask {
    Ask::new().elicit("step1", Elicitation::form_for::<UserName>("Step 1: What is your name?")).state("multi-round/1")
}

/// Asks for a confirmation with state: the runtime seals it, and refuses a state changed on
/// the way back with the protocol error `-32602` before this handler runs again.
#[tool]
fn test_input_required_result_tampered_state(ctx: &Ctx) -> Result<String, ToolError> {
    let inputs = ctx.inputs();
    if let Some(state) = inputs.state() {
        return Ok(format!("state-ok: {state}"));
    }
    Err(ctx.ask(
        Ask::new()
            .elicit("confirm", Elicitation::form_for::<Confirmation>("Please confirm"))
            .state("tampered-state/confirm"),
    ))
}

/// Asks only for what the client declared it can answer (its `clientCapabilities`).
#[tool]
fn test_input_required_result_capabilities(ctx: &Ctx) -> Result<String, ToolError> {
    let inputs = ctx.inputs();
    if !inputs.is_empty() {
        return Ok("Thanks for the answers.".into());
    }
    let caps = ctx.client_capabilities().cloned().unwrap_or_default();
    let mut ask = Ask::new();
    if caps.get("elicitation").is_some_and(|e| e.get("url").is_none() || e.get("form").is_some()) {
        ask = ask.elicit("user_name", Elicitation::form_for::<UserName>("What is your name?"));
    }
    if caps.get("sampling").is_some() {
        ask = ask.sample("greeting", Sampling::new(50).user("Generate a greeting"));
    }
    if caps.get("roots").is_some() {
        ask = ask.list_roots("client_roots");
    }
    if ask.is_empty() {
        return Ok("The client declared nothing this tool could ask for.".into());
    }
    Err(ctx.ask(ask))
}

/// Asks the user for a username and an email (2025: `tools-call-elicitation`).
#[tool]
fn test_elicitation(
    ctx: &Ctx,
    /// The message to show the user.
    message: String,
) -> Result<String, ToolError> {
    let schema = serde_json::json!({
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"}
        },
        "required": ["username", "email"]
    });
    answered(ctx, "user", Elicitation::form(message, schema), "User response")
}

/// Asks the client's model (2025: `tools-call-sampling`).
#[tool]
fn test_sampling(
    ctx: &Ctx,
    /// The prompt to send to the model.
    prompt: String,
) -> Result<String, ToolError> {
    if let Some(text) = ctx.inputs().sampled_text("llm") {
        return Ok(format!("LLM response: {text}"));
    }
    Err(ctx.ask(Ask::new().sample("llm", Sampling::new(100).user(prompt))))
}

/// Asks with a form whose every field has a default (SEP-1034).
#[tool]
fn test_elicitation_sep1034_defaults(ctx: &Ctx) -> Result<String, ToolError> {
    let schema = serde_json::json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "score": {"type": "number", "default": 95.5},
            "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
            "verified": {"type": "boolean", "default": true}
        }
    });
    answered(ctx, "defaults", Elicitation::form("Please review the defaults", schema), "Elicitation completed")
}

/// Asks with a form holding every enum shape (SEP-1330).
#[tool]
fn test_elicitation_sep1330_enums(ctx: &Ctx) -> Result<String, ToolError> {
    let schema = serde_json::json!({
        "type": "object",
        "properties": {
            "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
            "titledSingle": {"type": "string", "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"},
                {"const": "value3", "title": "Third Option"}
            ]},
            "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"]},
            "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
            "titledMulti": {"type": "array", "items": {"anyOf": [
                {"const": "value1", "title": "First Choice"},
                {"const": "value2", "title": "Second Choice"},
                {"const": "value3", "title": "Third Choice"}
            ]}}
        }
    });
    answered(ctx, "enums", Elicitation::form("Pick some options", schema), "Elicitation completed")
}

/// The elicitation answered under `key` as text (`<label>: action=…, content=…`), or the ask.
fn answered(ctx: &Ctx, key: &str, elicitation: Elicitation, label: &str) -> Result<String, ToolError> {
    match ctx.inputs().elicitation(key) {
        Elicited::Accepted(content) => Ok(format!("{label}: action=accept, content={content}")),
        Elicited::Declined => Ok(format!("{label}: action=decline")),
        Elicited::Cancelled => Ok(format!("{label}: action=cancel")),
        Elicited::Missing => Err(ctx.ask(Ask::new().elicit(key, elicitation))),
    }
}

/// The roots' URIs, comma-separated.
fn uris(roots: &[serde_json::Value]) -> String {
    let uris: Vec<&str> = roots.iter().filter_map(|r| r.get("uri").and_then(serde_json::Value::as_str)).collect();
    uris.join(", ")
}

/// Echoes its `region`, which 2026-07-28 HTTP clients also send as the `Mcp-Param-Region`
/// header (`x-mcp-header`): a header that disagrees with the argument is refused (-32020).
#[tool]
fn test_header_param(
    /// Where to run; mirrored into the `Mcp-Param-Region` header.
    #[schemars(extend("x-mcp-header" = "Region"))]
    region: String,
) -> String {
    format!("Region: {region}")
}

/// A tool that `test_trigger_tool_change` adds and removes.
#[tool]
fn test_dynamic_tool() -> &'static str {
    "I come and go."
}

/// The running server, for the tools that change it.
struct Running(std::sync::OnceLock<Server>);

/// Adds `test_dynamic_tool` when it is absent, removes it when present: clients listening
/// for tool-list changes are told.
#[tool]
fn test_trigger_tool_change(ctx: &Ctx) -> Result<String, ToolError> {
    let Some(server) = ctx.app_data::<Running>()?.0.get() else {
        return Err(ToolError::internal("The server is still starting.").retryable(true).hint("Retry in a moment."));
    };
    if server.remove_tool("test_dynamic_tool") {
        return Ok("Removed test_dynamic_tool.".into());
    }
    server.add_tool(test_dynamic_tool).map_err(ToolError::from_error)?;
    Ok("Added test_dynamic_tool.".into())
}

/// A fixed line of text.
#[resource(
    uri = "test://static-text",
    mime_type = "text/plain",
    annotations(audience(user, assistant), priority = 0.5)
)]
fn static_text() -> &'static str {
    "This is the content of the static text resource."
}

/// A 1×1 red pixel (PNG), sent as a base64 blob.
#[resource(uri = "test://static-binary", mime_type = "image/png")]
fn static_binary() -> Vec<u8> {
    RED_PIXEL_PNG.to_vec()
}

/// Data for one id, read from the URI.
#[resource(uri_template = "test://template/{id}/data", mime_type = "application/json")]
fn template_data(id: String) -> String {
    serde_json::json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}).to_string()
}

/// A resource whose changes clients can subscribe to.
#[resource(uri = "test://watched-resource", mime_type = "text/plain")]
fn watched_resource() -> &'static str {
    "Watched resource content."
}

/// A prompt without arguments.
#[prompt]
fn test_simple_prompt() -> &'static str {
    "This is a simple prompt for testing."
}

/// A prompt whose two arguments appear in its message.
#[prompt(complete(arg1 = arg1_values))]
fn test_prompt_with_arguments(
    /// The first argument.
    arg1: String,
    /// The second argument.
    arg2: String,
) -> String {
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

/// Suggestions for `arg1`, filtered by what was typed.
fn arg1_values(_ctx: &Ctx, typed: String) -> Vec<String> {
    ["alpha", "beta", "gamma"].into_iter().filter(|v| v.starts_with(&typed)).map(str::to_owned).collect()
}

/// A prompt that embeds the resource it is given.
#[prompt]
fn test_prompt_with_embedded_resource(
    /// The URI of the resource to embed.
    #[allow(non_snake_case)]
    resourceUri: String,
) -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(Content::embedded_text(
            resourceUri,
            "text/plain",
            "Embedded resource content for testing.",
        )),
        PromptMessage::user("Please process the embedded resource above."),
    ]
}

/// A prompt with an image: a 1×1 red pixel (PNG).
#[prompt]
fn test_prompt_with_image() -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(Content::image(base64(RED_PIXEL_PNG), "image/png")),
        PromptMessage::user("Please analyze the image above."),
    ]
}

/// The form of `test_input_required_result_prompt`.
#[derive(Deserialize, JsonSchema)]
struct UserContext {
    /// What the prompt should take into account.
    context: String,
}

/// Asks for some context (`user_context`) before it renders: the prompt side of multi
/// round-trip requests.
#[prompt]
fn test_input_required_result_prompt(ctx: &Ctx) -> Result<String, ToolError> {
    match ctx.inputs().form::<UserContext>("user_context") {
        Elicited::Accepted(UserContext { context }) => Ok(format!("Answer with this context in mind: {context}")),
        Elicited::Declined | Elicited::Cancelled => Ok("Answer without any particular context.".into()),
        Elicited::Missing => Err(ctx.ask(
            Ask::new()
                .elicit("user_context", Elicitation::form_for::<UserContext>("What context should the prompt use?")),
        )),
    }
}

// ---- the tasks extension (`io.modelcontextprotocol/tasks`): the fixtures the suite's
// `tasks-*` scenarios call by name. Each goes on as a task with `ctx.run_as_task()` (or is
// declared `required`) and keeps the SDK's error contract inside the task.

/// Greets someone, at once (a tool that never runs as a task).
#[tool]
fn greet(
    /// Who to greet.
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// Computes for `seconds` seconds, then says so; it goes on as a task unless `seconds` is
/// 0. Stops when the task is cancelled.
#[tool(task = "optional")]
async fn slow_compute(
    ctx: &Ctx,
    /// How long to compute, in seconds (0: answer at once).
    #[schemars(range(min = 0, max = 3600))]
    seconds: f64,
    /// A label to repeat in the answer.
    label: Option<String>,
) -> Result<String, ToolError> {
    let label = label.unwrap_or_else(|| "compute".into());
    if seconds <= 0.0 {
        return Ok(format!("{label}: computed at once."));
    }
    ctx.run_as_task();
    tokio::select! {
        () = tokio::time::sleep(Duration::from_secs_f64(seconds)) => Ok(format!("{label}: computed for {seconds} s.")),
        () = ctx.cancelled() => Err(ToolError::internal(format!("{label}: cancelled before it finished."))),
    }
}

/// A job that runs as a task and fails after about a second, by design (a tool execution
/// error: the task completes with `isError`).
#[tool(task = "required")]
#[errors(
    reason = "job_failed",
    code = InternalError,
    when = "This job fails on every run, by design.",
    recovery = "Do not retry: failing_job fails on every call by design."
)]
async fn failing_job(ctx: &Ctx<FailingJobError>) -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err(ctx.fail(FailingJobError::JobFailed))
}

/// Lists the client's roots as a task. It needs the client's `roots` capability: a client
/// that did not declare it gets the protocol error -32021, which fails the task.
#[tool(task = "optional")]
async fn protocol_error_job(ctx: &Ctx) -> Result<String, ToolError> {
    ctx.run_as_task();
    tokio::time::sleep(Duration::from_millis(100)).await;
    ctx.require_client_capability("roots")?;
    match ctx.inputs().roots("roots") {
        Some(roots) => Ok(format!("Roots: {}", uris(roots))),
        None => Err(ctx.ask(Ask::new().list_roots("roots"))),
    }
}

/// The confirmation `confirm_delete` asks for.
#[derive(Deserialize, JsonSchema)]
struct DeleteConfirmation {
    /// Delete the file?
    confirm: bool,
}

/// Deletes a (pretend) file as a task, after the user confirms through the task.
#[tool(task = "optional")]
fn confirm_delete(
    ctx: &Ctx,
    /// The file to delete.
    filename: String,
) -> Result<String, ToolError> {
    ctx.run_as_task();
    match ctx.inputs().form::<DeleteConfirmation>("confirm") {
        Elicited::Accepted(DeleteConfirmation { confirm: true }) => Ok(format!("Deleted {filename}.")),
        Elicited::Accepted(_) | Elicited::Declined | Elicited::Cancelled => Ok(format!("Kept {filename}.")),
        Elicited::Missing => Err(ctx.ask(
            Ask::new().elicit("confirm", Elicitation::form_for::<DeleteConfirmation>(format!("Delete {filename}?"))),
        )),
    }
}

/// What `multi_input` asks for first.
#[derive(Deserialize, JsonSchema)]
struct Nickname {
    /// What to call you.
    name: String,
}

/// Asks two questions at once as a task (a name and a confirmation), answered in any order.
#[tool(task = "optional")]
fn multi_input(ctx: &Ctx) -> Result<String, ToolError> {
    ctx.run_as_task();
    let inputs = ctx.inputs();
    match (inputs.form::<Nickname>("name"), inputs.form::<DeleteConfirmation>("confirm")) {
        (Elicited::Accepted(Nickname { name }), Elicited::Accepted(DeleteConfirmation { confirm })) => {
            Ok(format!("Hello {name}; confirmed: {confirm}."))
        }
        _ => Err(ctx.ask(
            Ask::new()
                .elicit("name", Elicitation::form_for::<Nickname>("What should I call you?"))
                .elicit("confirm", Elicitation::form_for::<DeleteConfirmation>("Go ahead?")),
        )),
    }
}

/// Asks for your name first (a multi round-trip round of the call), then greets you from a
/// task.
#[tool(task = "required")]
async fn test_tool_with_task(ctx: &Ctx) -> Result<String, ToolError> {
    let name = match ctx.inputs().form::<UserName>("user_name") {
        Elicited::Accepted(UserName { name }) => name,
        Elicited::Declined | Elicited::Cancelled => "stranger".to_owned(),
        Elicited::Missing => {
            return Err(
                ctx.ask(Ask::new().elicit("user_name", Elicitation::form_for::<UserName>("What is your name?")))
            );
        }
    };
    ctx.run_as_task();
    tokio::time::sleep(Duration::from_millis(200)).await;
    Ok(format!("Hello, {name}, from a task!"))
}

/// A prompt that `test_trigger_prompt_change` adds and removes.
#[prompt]
fn test_dynamic_prompt() -> &'static str {
    "I come and go."
}

/// Adds `test_dynamic_prompt` when it is absent, removes it when present: clients listening
/// for prompt-list changes are told.
#[tool]
fn test_trigger_prompt_change(ctx: &Ctx) -> Result<String, ToolError> {
    let Some(server) = ctx.app_data::<Running>()?.0.get() else {
        return Err(ToolError::internal("The server is still starting.").retryable(true).hint("Retry in a moment."));
    };
    if server.remove_prompt("test_dynamic_prompt") {
        return Ok("Removed test_dynamic_prompt.".into());
    }
    server.add_prompt(test_dynamic_prompt);
    Ok("Added test_dynamic_prompt.".into())
}

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    mcp_runtime::init_stderr_logging();
    let args = match mcp_runtime::ServeArgs::parse(std::env::args_os().skip(1)) {
        Ok(args) if args.rest.is_empty() => args,
        Ok(_) | Err(_) => {
            eprintln!("usage: conformance-server [--http <addr> [--stateless]]");
            std::process::exit(2);
        }
    };
    let server = args
        .configure(Server::builder("mcp-rust-sdk-conformance", env!("CARGO_PKG_VERSION")))
        .tool(test_simple_text)
        .tool(test_image_content)
        .tool(test_audio_content)
        .tool(test_embedded_resource)
        .tool(test_multiple_content_types)
        .tool(test_tool_with_logging)
        .tool(test_tool_with_progress)
        .tool(test_error_handling)
        .tool(json_schema_2020_12_tool)
        .tool(test_reconnection)
        .tool(test_logging_tool)
        .tool(test_missing_capability)
        .tool(test_streaming_elicitation)
        .tool(test_input_required_result_elicitation)
        .tool(test_input_required_result_sampling)
        .tool(test_input_required_result_list_roots)
        .tool(test_input_required_result_request_state)
        .tool(test_input_required_result_multiple_inputs)
        .tool(test_input_required_result_multi_round)
        .tool(test_input_required_result_tampered_state)
        .tool(test_input_required_result_capabilities)
        .tool(test_elicitation)
        .tool(test_sampling)
        .tool(test_elicitation_sep1034_defaults)
        .tool(test_elicitation_sep1330_enums)
        .tool(test_trigger_tool_change)
        .tool(test_header_param)
        .tool(test_trigger_prompt_change)
        .tool(greet)
        .tool(slow_compute)
        .tool(failing_job)
        .tool(protocol_error_job)
        .tool(confirm_delete)
        .tool(multi_input)
        .tool(test_tool_with_task)
        .resource(static_text)
        .resource(static_binary)
        .resource(template_data)
        .resource(watched_resource)
        .prompt(test_simple_prompt)
        .prompt(test_prompt_with_arguments)
        .prompt(test_prompt_with_embedded_resource)
        .prompt(test_prompt_with_image)
        .prompt(test_input_required_result_prompt)
        // The skills scenarios (sep-2640-skills-*): a skill declared in code, its files
        // compiled in, one in a subfolder (for resources/directory/read).
        .skill(
            mcp_runtime::Skill::new(include_str!("../../assets/skills/pdf-processing/SKILL.md"))
                .file("references/FORMS.md", include_str!("../../assets/skills/pdf-processing/references/FORMS.md")),
        )
        .app_data(Running(std::sync::OnceLock::new()))
        .build()?;
    if let Some(running) = server.app_data::<Running>() {
        let _ = running.0.set(server.clone());
    }
    args.serve(server).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_4648_vectors() {
        for (raw, encoded) in
            [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE=")]
        {
            assert_eq!(base64(raw.as_bytes()), encoded);
        }
    }

    #[test]
    fn the_wav_is_well_formed() {
        let wav = tone_wav();
        assert_eq!(&wav[..4], b"RIFF");
        assert_eq!(u32::from_le_bytes(wav[4..8].try_into().unwrap()) as usize, wav.len() - 8);
        assert_eq!(&wav[8..16], b"WAVEfmt ");
        assert_eq!(wav.len(), 44 + 800);
    }

    #[test]
    fn the_png_is_a_png() {
        assert_eq!(&RED_PIXEL_PNG[..8], b"\x89PNG\r\n\x1a\n");
    }
}
