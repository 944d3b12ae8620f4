//! A resource that asks the caller before it is read: a 2026-07-28 `resources/read` gets an
//! `input_required` result and the contents on its retry; a 2025 session without the
//! capability is refused with the `client_capability_missing` reason, as a JSON-RPC error.

use mcp_runtime::prelude::*;
use mcp_runtime::{Ask, Elicitation, Elicited};
use serde_json::{Value, json};

#[derive(Deserialize, JsonSchema)]
struct Passphrase {
    /// The word that unlocks the vault.
    word: String,
}

/// A vault that opens only with the right word.
#[resource(uri = "vault://secret", mime_type = "text/plain")]
fn vault(ctx: &Ctx) -> Result<String, ToolError> {
    match ctx.inputs().form::<Passphrase>("word") {
        Elicited::Accepted(Passphrase { word }) if word == "open sesame" => Ok("the treasure".into()),
        Elicited::Accepted(_) => Err(ToolError::forbidden("Wrong word.").reason("wrong_word")),
        Elicited::Declined | Elicited::Cancelled => Err(ToolError::forbidden("No word given.").reason("declined")),
        Elicited::Missing => Err(ctx.ask(Ask::new().elicit("word", Elicitation::form_for::<Passphrase>("The word?")))),
    }
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    })
}

async fn one(conn: &mut mcp_runtime::Connection, message: Value) -> Value {
    let out = conn.send(&message.to_string()).await;
    serde_json::from_str(out.last().expect("an answer")).expect("JSON")
}

#[tokio::test]
async fn a_2026_read_asks_then_reads_on_its_retry() {
    let server = Server::builder("vault", "1").resource(vault).build().expect("build");
    let mut conn = server.connect();
    let first = one(&mut conn, json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": "vault://secret", "_meta": meta()}})).await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    assert_eq!(first["result"]["inputRequests"]["word"]["method"], "elicitation/create", "{first}");
    let answers = json!({"word": {"action": "accept", "content": {"word": "open sesame"}}});
    let retry = one(&mut conn, json!({"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": "vault://secret", "_meta": meta(), "inputResponses": answers}})).await;
    assert_eq!(retry["result"]["resultType"], "complete", "{retry}");
    assert_eq!(retry["result"]["contents"][0]["text"], "the treasure", "{retry}");
    assert!(retry["result"]["ttlMs"].is_number(), "a read carries cache hints: {retry}");
}

#[tokio::test]
async fn a_2025_session_without_elicitation_is_refused_as_a_json_rpc_error() {
    let server = Server::builder("vault", "1").resource(vault).build().expect("build");
    let mut conn = server.connect();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    one(&mut conn, init).await;
    let refused = one(
        &mut conn,
        json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": "vault://secret"}}),
    )
    .await;
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert_eq!(refused["error"]["data"]["reason"], "client_capability_missing", "{refused}");
    let message = refused["error"]["message"].as_str().expect("a message");
    assert!(message.contains("2025-era connection did not declare the `elicitation.form` capability"), "{message}");
}
