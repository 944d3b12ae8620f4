//! The local principal: the caller of every request that arrives where no authorization is
//! configured (stdio, in-process, HTTP without `authorization`). By default it holds every
//! scope; `local_principal(..)` (the fixture's `FIXTURE_LOCAL_SCOPES`) narrows it; a
//! `TestClient` can act as any principal instead. Scoped tools, resources and prompts, and
//! `hide_unauthorized_tools`, treat it like a token's principal.

use mcp_runtime::Principal;
use mcp_runtime::testing::{Era, TestClient};
use mcp_tests::client::{Client, Pipes};
use serde_json::{Value, json};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture-server");

fn stdio(env: &[(&str, &str)]) -> Client {
    let mut c = Client::spawn_with(FIXTURE, env, Pipes::default());
    c.initialize();
    c
}

fn reason(result: &Value) -> Option<String> {
    let text = result["content"][0]["text"].as_str()?;
    let start = text.find("(reason ")? + "(reason ".len();
    Some(text[start..].split([' ', ')']).next()?.to_owned())
}

#[test]
fn a_scoped_tool_over_stdio_answers_the_local_principal() {
    let mut c = stdio(&[]);
    let result = c.call("purge_cache", json!({}));
    assert_eq!(result["structuredContent"], json!({"purged": true}), "{result}");
    let prompt = c.roundtrip("prompts/get", json!({"name": "secret_brief", "arguments": {"name": "alpha"}}));
    assert!(prompt.get("result").is_some(), "{prompt}");
}

#[test]
fn fixture_local_scopes_narrow_the_local_principal() {
    let mut c = stdio(&[("FIXTURE_LOCAL_SCOPES", "a b")]);
    let result = c.call("purge_cache", json!({}));
    assert_eq!(result["isError"], json!(true), "{result}");
    assert_eq!(reason(&result).as_deref(), Some("insufficient_scope"), "{result}");
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("the server's local principal lacks the scope `cache:purge`"), "{text}");
    let read = c.roundtrip("resources/read", json!({"uri": "secret://alpha"}));
    assert_eq!(read["error"]["code"], json!(-32005), "{read}");
    let listed = c.roundtrip("resources/list", json!({}));
    // Only what needs no scope: the chart's view and the fixture's skills (tests/skills).
    let uris: Vec<&str> =
        listed["result"]["resources"].as_array().unwrap().iter().filter_map(|r| r["uri"].as_str()).collect();
    assert_eq!(
        uris,
        ["ui://chart/view.html", "skill://code-review/SKILL.md", "skill://release-notes/SKILL.md"],
        "{listed}"
    );
    // Holding the scope, it is served.
    let mut c = stdio(&[("FIXTURE_LOCAL_SCOPES", "a cache:purge")]);
    assert_eq!(c.call("purge_cache", json!({}))["structuredContent"], json!({"purged": true}));
}

#[test]
fn http_without_authorization_is_the_local_principal_too() {
    let mut c = Client::spawn_http(FIXTURE, &[("FIXTURE_LOCAL_SCOPES", "a")], &[]);
    c.initialize();
    let result = c.call("purge_cache", json!({}));
    assert_eq!(reason(&result).as_deref(), Some("insufficient_scope"), "{result}");
    let mut c = Client::spawn_http(FIXTURE, &[], &[]);
    c.initialize();
    assert_eq!(c.call("purge_cache", json!({}))["structuredContent"], json!({"purged": true}));
}

fn names(tools: &[Value]) -> Vec<&str> {
    tools.iter().filter_map(|t| t["name"].as_str()).collect()
}

#[tokio::test]
async fn as_principal_sees_the_refusal_and_the_hiding_in_both_eras() {
    let server = mcp_tests::fixture::builder(false).hide_unauthorized_tools(true).build().expect("builds");
    for era in [Era::Legacy, Era::Modern] {
        let eve = Principal::new("eve").with_scopes(["notes:read"]);
        let mut client = TestClient::new(&server, era).as_principal(eve);
        assert!(!names(&client.list_tools().await).contains(&"purge_cache"), "{era:?}");
        let refused = client.call("purge_cache", json!({})).await;
        assert_eq!(refused["isError"], json!(true), "{era:?}: {refused}");
        assert_eq!(reason(&refused).as_deref(), Some("insufficient_scope"), "{era:?}: {refused}");
        let text = refused["content"][0]["text"].as_str().unwrap_or_default();
        assert!(text.contains("The access token lacks the scope `cache:purge`"), "{text}");
        let read = client.read("secret://alpha").await.expect_err("refused");
        assert_eq!(read["code"], json!(-32005), "{era:?}: {read}");
        let resources = client.request("resources/list", json!({})).await.expect("lists");
        let uris: Vec<_> = resources["resources"].as_array().expect("a list").iter().map(|r| &r["uri"]).collect();
        assert_eq!(uris, [&json!("ui://chart/view.html")], "{era:?}: only the view, which needs no scope");

        let alice = Principal::new("alice").with_scopes(["cache:purge", "secret:read"]);
        let mut client = TestClient::new(&server, era).as_principal(alice);
        assert!(names(&client.list_tools().await).contains(&"purge_cache"), "{era:?}");
        assert_eq!(client.call("purge_cache", json!({})).await["structuredContent"], json!({"purged": true}));
        assert!(client.read("secret://alpha").await.is_ok(), "{era:?}");

        // Without `as_principal`: the local principal, holding every scope.
        let mut local = TestClient::new(&server, era);
        assert!(names(&local.list_tools().await).contains(&"purge_cache"), "{era:?}");
        assert_eq!(local.call("purge_cache", json!({})).await["structuredContent"], json!({"purged": true}));
    }
}

#[tokio::test]
async fn a_narrow_local_principal_is_refused_and_hidden_in_process() {
    let server = mcp_tests::fixture::builder(false)
        .hide_unauthorized_tools(true)
        .local_principal(Principal::default().with_scopes(["notes:read"]))
        .build()
        .expect("builds");
    for era in [Era::Legacy, Era::Modern] {
        let mut local = TestClient::new(&server, era);
        assert!(!names(&local.list_tools().await).contains(&"purge_cache"), "{era:?}");
        assert_eq!(reason(&local.call("purge_cache", json!({})).await).as_deref(), Some("insufficient_scope"));
    }
    let call = server.call("purge_cache", json!({})).await;
    assert_eq!(call.is_error, Some(true));
    let granted = server.call_as(Principal::new("ops").with_scopes(["cache:purge"]), "purge_cache", json!({})).await;
    assert_eq!(granted.is_error, None, "{granted:?}");
}
