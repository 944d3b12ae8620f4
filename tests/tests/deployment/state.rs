//! Sealed `requestState`, the shared state store and consent, over real pipes and real HTTP
//! with `fixture-server` (`put_item`, `delete_item`) and a real `redis-server`: states that
//! come back changed or for another tool are refused before any handler runs; a consent is
//! redeemed once, in both eras; two stateless replicas sharing one Redis and one key behave as
//! one; a Redis that stops fails only the calls that need it, retryably, until it returns;
//! and the sealing key never appears in anything a server writes.

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_runtime::{MemoryStore, StateStore};
use mcp_tests::client::{Client, ClientEra, Pipes, is_request_id};
use mcp_tests::redis::Redis;
use serde_json::{Value, json};

const SERVER: &str = env!("CARGO_BIN_EXE_fixture-server");
const MODERN: &str = "2026-07-28";
const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
const CAPS_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
/// The sealing key the replicas share: 44 bytes, and easy to grep for.
const KEY: &str = "test-sealing-key-DO-NOT-PRINT-0123456789abcd";

fn caps() -> Value {
    json!({"elicitation": {"form": {}}})
}

/// A 2026-07-28 `tools/call`, with `extra` (`inputResponses`, `requestState`) in its params.
fn modern_call(id: i64, tool: &str, args: Value, extra: &Value) -> Value {
    let mut params = json!({"name": tool, "arguments": args, "_meta": {VERSION_KEY: MODERN, CAPS_KEY: caps()}});
    for (k, v) in extra.as_object().expect("object") {
        params[k] = v.clone();
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

fn accepted(confirm: bool) -> Value {
    json!({"consent": {"action": "accept", "content": {"confirm": confirm}}})
}

/// A unique item id, so that tests sharing one Redis never meet.
fn unique(name: &str) -> String {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    format!("{name}-{}-{n}-{nanos}", std::process::id())
}

/// One modern POST to `/mcp` on `port`, and the JSON-RPC message it answers (from a JSON body
/// or the first SSE data event).
fn post(port: u16, body: &Value) -> Value {
    let tool = body["params"]["name"].as_str().unwrap_or_default().to_owned();
    let headers = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", MODERN),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", tool.as_str()),
    ];
    let bytes = body.to_string();
    let mut response = mcp_tests::http::request(port, "POST", "/mcp", &headers, bytes.as_bytes())
        .unwrap_or_else(|e| panic!("POST to port {port}: {e}"));
    if response.header("content-type").is_some_and(|t| t.starts_with("text/event-stream")) {
        while let Some((_, data)) = response.next_event() {
            if let Ok(message) = serde_json::from_str::<Value>(&data)
                && message.get("id").is_some()
            {
                return message;
            }
        }
        panic!("the SSE stream ended without an answer");
    }
    let text = response.text();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// The `requestState` of an `input_required` answer (after checking it is one, asking for
/// the consent form).
fn asked_state(answer: &Value) -> String {
    let result = &answer["result"];
    assert_eq!(result["resultType"], "input_required", "{answer}");
    assert_eq!(result["inputRequests"]["consent"]["method"], "elicitation/create", "{answer}");
    result["requestState"].as_str().expect("a requestState").to_owned()
}

/// Checks the one refusal of a state that does not open.
fn assert_refused(answer: &Value, id: i64) {
    let request_id = answer["error"]["data"]["requestId"].as_str().unwrap_or_default();
    assert!(is_request_id(request_id), "{answer}");
    assert_eq!(
        answer,
        &json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": "Invalid or expired requestState", "data": {"reason": "invalid_request_state", "requestId": request_id}}})
    );
}

/// The text of a failed call (these tools declare an output schema, so a failure is text
/// only: message, recovery, and the terms line).
fn error_text(answer: &Value) -> &str {
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    answer["result"]["content"][0]["text"].as_str().unwrap_or_default()
}

/// The reason on a failure's terms line: `(reason <r> · …)`.
fn error_reason(answer: &Value) -> &str {
    let text = error_text(answer);
    let terms = text.rsplit_once("\n(reason ").map_or("", |(_, terms)| terms);
    terms.split(" · ").next().unwrap_or_default()
}

#[test]
fn a_sealed_state_opens_only_unchanged_and_for_its_own_tool_and_a_consent_acts_once() {
    let mut client = Client::spawn_with(SERVER, &[("RUST_LOG", "debug")], Pipes::default());
    let mut roundtrip = |call: Value| {
        client.send(&call);
        let answer = client.recv();
        assert_eq!(answer["id"], call["id"], "{answer}");
        answer
    };
    let stored = roundtrip(modern_call(1, "put_item", json!({"id": "a"}), &json!({})));
    assert_eq!(stored["result"]["structuredContent"], json!({"stored": "a"}), "{stored}");

    // Round 1 asks, with a sealed state.
    let first = roundtrip(modern_call(2, "delete_item", json!({"id": "a"}), &json!({})));
    let state = asked_state(&first);
    assert!(state.starts_with("v1.") && state.matches('.').count() == 2, "{state}");
    assert_eq!(first["result"]["inputRequests"]["consent"]["params"]["message"], "Delete item a?");

    // Changed on the way back (one character of the body): refused, and nothing acts.
    let mut tampered = state.clone().into_bytes();
    tampered[5] = if tampered[5] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(tampered).expect("ASCII");
    let extra = json!({"inputResponses": accepted(true), "requestState": tampered});
    assert_refused(&roundtrip(modern_call(3, "delete_item", json!({"id": "a"}), &extra)), 3);
    // A hand-written state, and a state sealed for another tool.
    let extra = json!({"inputResponses": accepted(true), "requestState": "consent:abc"});
    assert_refused(&roundtrip(modern_call(4, "delete_item", json!({"id": "a"}), &extra)), 4);
    let extra = json!({"inputResponses": accepted(true), "requestState": state});
    assert_refused(&roundtrip(modern_call(5, "confirm_delete", json!({"path": "a"}), &extra)), 5);

    // A retry that fails before the handler (arguments the schema refuses) takes nothing:
    // the consent is still there for the retry that follows.
    let refused = roundtrip(modern_call(50, "delete_item", json!({"id": 5}), &extra));
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    assert!(error_text(&refused).contains("Invalid arguments for tool delete_item"), "{refused}");

    // The accepted retry deletes, once; the same retry again is asked again, with a new state.
    let deleted = roundtrip(modern_call(6, "delete_item", json!({"id": "a"}), &extra));
    assert_eq!(deleted["result"]["structuredContent"], json!({"deleted": "a"}), "{deleted}");
    let replayed = roundtrip(modern_call(7, "delete_item", json!({"id": "a"}), &extra));
    let fresh = asked_state(&replayed);
    assert_ne!(fresh, state);
    // That new consent redeemed: the item is gone by now.
    let extra = json!({"inputResponses": accepted(true), "requestState": fresh});
    assert_eq!(error_reason(&roundtrip(modern_call(8, "delete_item", json!({"id": "a"}), &extra))), "no_such_item");

    // A consent given for one item is no consent for another.
    roundtrip(modern_call(9, "put_item", json!({"id": "b"}), &json!({})));
    roundtrip(modern_call(10, "put_item", json!({"id": "c"}), &json!({})));
    let for_b = asked_state(&roundtrip(modern_call(11, "delete_item", json!({"id": "b"}), &json!({}))));
    let extra = json!({"inputResponses": accepted(true), "requestState": for_b});
    asked_state(&roundtrip(modern_call(12, "delete_item", json!({"id": "c"}), &extra)));

    // A decline (or a "no") with a matching record fails, declared, and deletes nothing.
    let for_b = asked_state(&roundtrip(modern_call(13, "delete_item", json!({"id": "b"}), &json!({}))));
    let extra = json!({"inputResponses": accepted(false), "requestState": for_b});
    assert_eq!(error_reason(&roundtrip(modern_call(14, "delete_item", json!({"id": "b"}), &extra))), "declined");
    let for_b = asked_state(&roundtrip(modern_call(15, "delete_item", json!({"id": "b"}), &json!({}))));
    let extra = json!({"inputResponses": {"consent": {"action": "decline"}}, "requestState": for_b});
    assert_eq!(error_reason(&roundtrip(modern_call(16, "delete_item", json!({"id": "b"}), &extra))), "declined");

    // A missing item is said at once, without asking.
    assert_eq!(
        error_reason(&roundtrip(modern_call(17, "delete_item", json!({"id": "zz"}), &json!({})))),
        "no_such_item"
    );
    assert!(client.stderr().contains("requestState refused"), "refusals are logged at debug");
}

#[test]
fn over_a_2025_session_the_shim_asks_and_the_consent_redeems() {
    let mut client = Client::spawn_with(SERVER, &[], Pipes::default());
    client.roundtrip(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}}, "clientInfo": {"name": "t", "version": "1"}}),
    );
    client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let stored = client.call("put_item", json!({"id": "a"}));
    assert_eq!(stored["structuredContent"], json!({"stored": "a"}), "{stored}");
    for (answer, expected) in [
        (json!({"action": "accept", "content": {"confirm": true}}), json!({"deleted": "a"})),
        // Asked again after the deletion: it is gone.
        (json!({"action": "accept", "content": {"confirm": true}}), Value::Null),
    ] {
        let id = client.request("tools/call", json!({"name": "delete_item", "arguments": {"id": "a"}}));
        if expected.is_null() {
            let response = client.recv();
            assert_eq!(response["id"], json!(id));
            assert_eq!(error_reason(&response), "no_such_item");
            continue;
        }
        let request = client.recv();
        assert_eq!(request["method"], "elicitation/create", "{request}");
        assert_eq!(request["params"]["message"], "Delete item a?");
        client.send(&json!({"jsonrpc": "2.0", "id": request["id"], "result": answer}));
        let response = client.recv();
        assert_eq!(response["id"], json!(id));
        assert_eq!(response["result"]["structuredContent"], expected, "{response}");
    }
}

#[test]
fn a_key_shorter_than_32_bytes_stops_the_server_by_the_settings_name_never_the_key() {
    let key = "short-secret-key-31-bytes-long!";
    assert_eq!(key.len(), 31);
    let output = std::process::Command::new(SERVER)
        .env("FIXTURE_REQUEST_STATE_KEY", key)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run the server");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("FIXTURE_REQUEST_STATE_KEY must be at least 32 bytes, and this one has 31"), "{stderr}");
    assert!(!stderr.contains(key), "{stderr}");
    // A store URL that names no store stops it too, saying what to write.
    let output = std::process::Command::new(SERVER)
        .env("FIXTURE_STATE_STORE", "postgres://db")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run the server");
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown state store `postgres:`"));
}

/// A key of a handler's scope, `mcp:<namespace>:<tenant>:<name>` (a namespace of its own),
/// which a Redis Cluster keeps with its scope's index.
fn scoped(name: &str) -> String {
    format!("mcp:{}:tenant:{name}", unique("ns"))
}

/// Of 1,000 concurrent `take`s of one live key, exactly one wins.
async fn one_winner(store: Arc<dyn StateStore>) {
    let key = scoped("take");
    store.set(&key, "\"v\"".into(), Duration::from_secs(60)).await.expect("set");
    let takers: Vec<_> = (0..1000)
        .map(|_| {
            let (store, key) = (Arc::clone(&store), key.clone());
            tokio::spawn(async move { store.take(&key).await.expect("take") })
        })
        .collect();
    let mut winners = 0;
    for taker in takers {
        winners += usize::from(taker.await.expect("task").is_some());
    }
    assert_eq!(winners, 1);
    assert_eq!(store.get(&key).await.expect("get"), None);
}

/// Compare-and-set on `key`: absent means absent, a stale expectation loses, and of 1,000
/// concurrent writers that expect the same value exactly one writes; an expired key is absent.
async fn one_writer(store: Arc<dyn StateStore>, key: String) {
    let ttl = Duration::from_secs(60);
    assert!(store.compare_and_set(&key, None, "v0".into(), ttl).await.expect("cas"), "absent: set");
    assert!(!store.compare_and_set(&key, None, "again".into(), ttl).await.expect("cas"), "present: kept");
    assert!(!store.compare_and_set(&key, Some("v9"), "no".into(), ttl).await.expect("cas"), "stale: kept");
    let writers: Vec<_> = (0..1000)
        .map(|i| {
            let (store, key) = (Arc::clone(&store), key.clone());
            tokio::spawn(
                async move { store.compare_and_set(&key, Some("v0"), format!("w{i}"), ttl).await.expect("cas") },
            )
        })
        .collect();
    let mut winners = 0;
    for writer in writers {
        winners += usize::from(writer.await.expect("task"));
    }
    assert_eq!(winners, 1);
    let written = store.get(&key).await.expect("get").expect("a value");
    assert!(written.starts_with('w'), "{written}");
    let short = format!("{key}-ttl");
    assert!(store.compare_and_set(&short, None, "x".into(), Duration::from_millis(100)).await.expect("cas"));
    tokio::time::sleep(Duration::from_millis(250)).await;
    assert!(!store.compare_and_set(&short, Some("x"), "y".into(), ttl).await.expect("cas"), "expired: no match");
    assert!(store.compare_and_set(&short, None, "y".into(), ttl).await.expect("cas"), "expired: absent");
}

/// A rate limit's budget: of 200 concurrent takes of a burst of 10 (one more a second),
/// exactly 10 pass, and each refusal says when the next call fits (within the interval); the
/// key expires once the budget is whole again.
async fn one_budget(store: Arc<dyn StateStore>) {
    let key = unique("fixture:rate:p:alice");
    let takers: Vec<_> = (0..200)
        .map(|_| {
            let (store, key) = (Arc::clone(&store), key.clone());
            tokio::spawn(async move { store.take_rate(&key, Duration::from_secs(1), 10).await.expect("take_rate") })
        })
        .collect();
    let mut taken = 0;
    for taker in takers {
        match taker.await.expect("task") {
            None => taken += 1,
            Some(wait) => assert!(wait > Duration::ZERO && wait <= Duration::from_secs(1), "{wait:?}"),
        }
    }
    assert_eq!(taken, 10, "the burst, once");
    let short = unique("rate-short");
    assert_eq!(store.take_rate(&short, Duration::from_millis(100), 1).await.expect("take"), None);
    let wait = store.take_rate(&short, Duration::from_millis(100), 1).await.expect("take").expect("refused");
    tokio::time::sleep(wait).await;
    assert_eq!(store.take_rate(&short, Duration::from_millis(100), 1).await.expect("take"), None, "after the wait");
    tokio::time::sleep(Duration::from_millis(250)).await;
    assert_eq!(store.get(&short).await.expect("get"), None, "expired once whole");
}

/// TTLs, listing by prefix (within a scope: a key of the scope outside the prefix, an
/// expired key, a deleted key and a taken key are not listed), and delete.
async fn ttls_lists_and_deletes(store: Arc<dyn StateStore>) {
    let prefix = scoped("list:");
    for (key, ttl) in [("a", 60_000), ("b*", 60_000), ("c", 150), ("d", 60_000), ("e", 60_000)] {
        store.set(&format!("{prefix}{key}"), "1".into(), Duration::from_millis(ttl)).await.expect("set");
    }
    let other = format!("{}x:other", prefix.trim_end_matches(':'));
    store.set(&other, "1".into(), Duration::from_secs(60)).await.expect("set");
    let forever = format!("{prefix}f");
    assert!(store.compare_and_set(&forever, None, "1".into(), mcp_runtime::NO_TTL).await.expect("cas"));
    assert_eq!(store.increment(&format!("{prefix}g"), 2).await.expect("increment"), 2);
    assert!(store.delete(&format!("{prefix}d")).await.expect("delete"));
    assert_eq!(store.take(&format!("{prefix}e")).await.expect("take").as_deref(), Some("1"));
    tokio::time::sleep(Duration::from_millis(300)).await;
    let listed = store.list(&prefix).await.expect("list");
    let expected: Vec<String> = ["a", "b*", "f", "g"].iter().map(|k| format!("{prefix}{k}")).collect();
    assert_eq!(listed, expected, "the expired, deleted and taken keys are gone");
    assert!(store.delete(&format!("{prefix}a")).await.expect("delete"));
    assert!(!store.delete(&format!("{prefix}a")).await.expect("delete"));
    assert_eq!(store.get(&format!("{prefix}c")).await.expect("get"), None);
    assert_eq!(store.list(&prefix).await.expect("list"), expected[1..].to_vec());
    assert_eq!(store.list(&format!("{prefix}zz")).await.expect("list"), Vec::<String>::new());
}

/// The store suite, the same on every backend: atomic take, compare-and-set (on a key of a
/// handler's scope and on one of none, as tasks use), the rate limit's budget, TTLs,
/// listing, and the scoped `State` handle.
async fn suite(store: Arc<dyn StateStore>) {
    one_winner(Arc::clone(&store)).await;
    one_writer(Arc::clone(&store), scoped("cas")).await;
    one_writer(Arc::clone(&store), unique("mcp-task:cas")).await;
    one_budget(Arc::clone(&store)).await;
    ttls_lists_and_deletes(Arc::clone(&store)).await;
    state_handle(store).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_store_suite_passes_in_memory_and_on_one_redis() {
    suite(Arc::new(MemoryStore::new())).await;
    let redis = Redis::shared();
    suite(mcp_runtime::store_from_url(&redis.url()).expect("a Redis store")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_store_suite_passes_on_a_tls_redis() {
    let redis = Redis::start_tls();
    suite(Arc::new(redis.store())).await;
}

/// A TLS Redis that asks for a client certificate: a store that presents none is refused
/// (a retryable failure, not a bad value, within the 3 s bound); one that presents the
/// certificate its CA signed works.
#[tokio::test]
async fn a_tls_redis_that_asks_for_a_client_certificate_serves_the_store_that_presents_one() {
    let redis = Redis::start_tls_asking_for_client_certificates();
    let key = scoped("mtls");
    let started = Instant::now();
    let err = redis.store().set(&key, "1".into(), Duration::from_secs(60)).await.expect_err("no certificate");
    assert!(!err.is_bad_value() && started.elapsed() < Duration::from_secs(4), "{err} after {:?}", started.elapsed());
    // The log says why: the connection, not a bare "Io".
    assert!(err.to_string().starts_with(&format!("state store (redis): 127.0.0.1:{}: Io: ", redis.port())), "{err}");
    let (chain, private_key) = redis.client_certificate().expect("a TLS Redis");
    let ca = std::fs::read(redis.ca().expect("a TLS Redis")).expect("the CA");
    let tls = mcp_runtime::RedisTls::new()
        .ca_pem(ca)
        .client_certificate(std::fs::read(chain).expect("the chain"), std::fs::read(private_key).expect("the key"));
    let store = mcp_runtime::RedisStore::open(&redis.url()).expect("a URL").with_tls(&tls).expect("TLS settings");
    store.set(&key, "1".into(), Duration::from_secs(60)).await.expect("set");
    assert_eq!(store.take(&key).await.expect("take").as_deref(), Some("1"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_store_suite_passes_on_a_redis_cluster_of_three_masters() {
    let redis = Redis::start_cluster();
    let store = Arc::new(redis.store());
    suite(Arc::clone(&store) as Arc<dyn StateStore>).await;
    // A prefix that names no one scope: a cluster has no index to read for it, and says so.
    let err = store.list("list-").await.expect_err("no scope");
    assert!(err.is_bad_value(), "{err}");
    assert_eq!(
        err.to_string(),
        "state store (redis): on a Redis Cluster, `list` answers for one scope: its prefix must start with `mcp:<namespace>:<tenant>:` (as every `ctx.state().list` does), and `list-` does not"
    );
}

/// Two `fixture-server --http --stateless` replicas sharing one Redis and one key.
fn replicas(redis_url: &str) -> (Client, Client) {
    let env = [("FIXTURE_STATE_STORE", redis_url), ("FIXTURE_REQUEST_STATE_KEY", KEY), ("RUST_LOG", "debug")];
    let mut a = Client::spawn_http(SERVER, &env, &["--stateless"]);
    let mut b = Client::spawn_http(SERVER, &env, &["--stateless"]);
    a.set_era(ClientEra::Modern);
    b.set_era(ClientEra::Modern);
    (a, b)
}

#[test]
fn two_replicas_with_one_store_and_one_key_behave_as_one() {
    let redis = Redis::shared();
    let (a, b) = replicas(&redis.url());
    let (port_a, port_b) = (a.http_port().expect("port"), b.http_port().expect("port"));

    // Round 1 on A, the accepted retry on B.
    let item = unique("item");
    let stored = post(port_a, &modern_call(1, "put_item", json!({"id": item}), &json!({})));
    assert_eq!(stored["result"]["structuredContent"], json!({"stored": item}), "{stored}");
    let state = asked_state(&post(port_a, &modern_call(2, "delete_item", json!({"id": item}), &json!({}))));
    let extra = json!({"inputResponses": accepted(true), "requestState": state});
    let deleted = post(port_b, &modern_call(3, "delete_item", json!({"id": item}), &extra));
    assert_eq!(deleted["result"]["structuredContent"], json!({"deleted": item}), "{deleted}");

    // 50 concurrent accepted retries carrying one consent, over both replicas: one deletion,
    // 49 asked again.
    let item = unique("item");
    post(port_b, &modern_call(4, "put_item", json!({"id": item}), &json!({})));
    let state = asked_state(&post(port_a, &modern_call(5, "delete_item", json!({"id": item}), &json!({}))));
    let extra = json!({"inputResponses": accepted(true), "requestState": state});
    let retries: Vec<_> = (0..50)
        .map(|i| {
            let call = modern_call(100 + i, "delete_item", json!({"id": item}), &extra);
            let port = if i % 2 == 0 { port_a } else { port_b };
            std::thread::spawn(move || post(port, &call))
        })
        .collect();
    let answers: Vec<Value> = retries.into_iter().map(|t| t.join().expect("a retry")).collect();
    let deletions = answers.iter().filter(|a| a["result"]["structuredContent"] == json!({"deleted": item})).count();
    let asked = answers.iter().filter(|a| a["result"]["resultType"] == "input_required").count();
    assert_eq!((deletions, asked), (1, 49), "{answers:#?}");

    for replica in [&a, &b] {
        let stderr = replica.stderr();
        assert!(!stderr.contains(KEY), "the key is never printed");
        assert!(!stderr.contains("no requestState key is configured"), "a configured key draws no warning");
    }
}

#[test]
fn a_replica_without_a_key_warns_and_another_refuses_its_states() {
    let redis = Redis::shared();
    let url = redis.url();
    let env = [("FIXTURE_STATE_STORE", url.as_str())];
    let a = Client::spawn_http(SERVER, &env, &["--stateless"]);
    let b = Client::spawn_http(SERVER, &env, &["--stateless"]);
    let (port_a, port_b) = (a.http_port().expect("port"), b.http_port().expect("port"));
    let item = unique("item");
    post(port_a, &modern_call(1, "put_item", json!({"id": item}), &json!({})));
    let state = asked_state(&post(port_a, &modern_call(2, "delete_item", json!({"id": item}), &json!({}))));
    let extra = json!({"inputResponses": accepted(true), "requestState": state});
    assert_refused(&post(port_b, &modern_call(3, "delete_item", json!({"id": item}), &extra)), 3);
    let deadline = Instant::now() + Duration::from_secs(5);
    while !a.stderr().contains("no requestState key is configured") && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(a.stderr().matches("no requestState key is configured").count(), 1, "{}", a.stderr());
}

#[test]
fn a_redis_that_stops_fails_only_what_needs_it_retryably_until_it_returns() {
    stop_and_restart(Redis::start());
}

#[test]
fn a_tls_redis_that_stops_fails_only_what_needs_it_retryably_until_it_returns() {
    stop_and_restart(Redis::start_tls());
}

#[test]
fn a_redis_cluster_that_stops_fails_only_what_needs_it_retryably_until_it_returns() {
    stop_and_restart(Redis::start_cluster());
}

/// A server on `redis` while it stops and starts again: the calls that need the store fail
/// retryably, at once, the others are served; the store is used again once it is back.
fn stop_and_restart(mut redis: Redis) {
    let mut env = redis.env();
    env.push(("FIXTURE_REQUEST_STATE_KEY", KEY.to_owned()));
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let server = Client::spawn_http(SERVER, &env, &["--stateless"]);
    let port = server.http_port().expect("port");
    let put = |id: i64| post(port, &modern_call(id, "put_item", json!({"id": "x"}), &json!({})));
    assert_eq!(put(1)["result"]["structuredContent"], json!({"stored": "x"}));

    redis.stop();
    let failed = put(2);
    assert_eq!(error_reason(&failed), "state_store_unavailable", "{failed}");
    let text = error_text(&failed);
    assert!(
        text.starts_with(
            "Error: The server's state store is unavailable.\n\nRecovery: Retry the call in a few seconds"
        ),
        "{text}"
    );
    assert!(text.contains(" · retryable · "), "{text}");
    assert!(!text.contains("redis") && !text.contains("127.0.0.1"), "the store's error stays in the log: {text}");
    // A consent cannot be recorded: the ask fails the same way, and asks nothing.
    let asked = post(port, &modern_call(3, "delete_item", json!({"id": "x"}), &json!({})));
    assert_eq!(error_reason(&asked), "state_store_unavailable", "{asked}");
    // Everything else is served.
    let echoed = post(port, &modern_call(4, "echo", json!({"text": "still here"}), &json!({})));
    assert_eq!(echoed["result"]["isError"], json!(null), "{echoed}");

    redis.restart();
    let deadline = Instant::now() + Duration::from_secs(15);
    let mut id = 5;
    loop {
        let answer = put(id);
        if answer["result"]["structuredContent"] == json!({"stored": "x"}) {
            break;
        }
        assert!(Instant::now() < deadline, "the store did not recover: {answer}");
        id += 1;
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(!server.stderr().contains(KEY));
}

/// One RESP command to the Redis at `url`, and its reply line (`:-1`, `$5`, …).
fn redis_command(url: &str, parts: &[&str]) -> String {
    use std::fmt::Write as _;
    use std::io::{BufRead, BufReader, Write};
    let address = url.trim_start_matches("redis://").split('/').next().unwrap_or_default();
    let mut stream = std::net::TcpStream::connect(address).expect("connect to Redis");
    let mut command = format!("*{}\r\n", parts.len());
    for part in parts {
        let _ = write!(command, "${}\r\n{part}\r\n", part.len());
    }
    stream.write_all(command.as_bytes()).expect("send");
    let mut line = String::new();
    BufReader::new(stream).read_line(&mut line).expect("reply");
    line.trim_end().to_owned()
}

#[test]
fn two_replicas_count_and_claim_as_one() {
    let redis = Redis::shared();
    let (a, b) = replicas(&redis.url());
    let (port_a, port_b) = (a.http_port().expect("port"), b.http_port().expect("port"));

    // 200 concurrent increments over both replicas: 200 distinct ids, one after another.
    let calls: Vec<_> = (0..200)
        .map(|i| {
            let port = if i % 2 == 0 { port_a } else { port_b };
            std::thread::spawn(move || post(port, &modern_call(i, "next_id", json!({}), &json!({}))))
        })
        .collect();
    let mut ids: Vec<i64> = calls
        .into_iter()
        .map(|t| {
            let answer = t.join().expect("a call");
            answer["result"]["structuredContent"]["id"].as_i64().unwrap_or_else(|| panic!("no id: {answer}"))
        })
        .collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 200, "200 distinct ids");
    assert_eq!(ids[199] - ids[0], 199, "and no gaps: {ids:?}");

    // One name claimed from both replicas at once: exactly one wins.
    let name = unique("claim");
    let claims: Vec<_> = (0..20)
        .map(|i| {
            let port = if i % 2 == 0 { port_a } else { port_b };
            let call = modern_call(1000 + i, "claim", json!({"name": name}), &json!({}));
            std::thread::spawn(move || post(port, &call))
        })
        .collect();
    let won: Vec<bool> = claims
        .into_iter()
        .map(|t| {
            let answer = t.join().expect("a claim");
            answer["result"]["structuredContent"]["won"].as_bool().unwrap_or_else(|| panic!("no won: {answer}"))
        })
        .collect();
    assert_eq!(won.iter().filter(|w| **w).count(), 1, "{won:?}");

    // The claim and the counter have no time to live; a value with one next to them expires,
    // they stay (the longest TTL this test uses: 1 s).
    let key = format!("mcp:fixture-server::claim:{name}");
    assert_eq!(redis_command(&redis.url(), &["PTTL", &key]), ":-1", "no expiry");
    assert_eq!(redis_command(&redis.url(), &["PTTL", "mcp:fixture-server::next_id"]), ":-1", "no expiry");
    let timed = unique("timed");
    assert_eq!(redis_command(&redis.url(), &["SET", &timed, "1", "PX", "1000"]), "+OK");
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(redis_command(&redis.url(), &["EXISTS", &timed]), ":0", "the timed value expired");
    let again = post(port_b, &modern_call(2000, "claim", json!({"name": name}), &json!({})));
    assert_eq!(again["result"]["structuredContent"], json!({"won": false}), "{again}");
    let next = post(port_a, &modern_call(2001, "next_id", json!({}), &json!({})));
    assert_eq!(next["result"]["structuredContent"]["id"], json!(ids[199] + 1), "{next}");
}

/// `increment`, `set_if_absent`, `compare_and_set` and values without a TTL through the
/// scoped `State` handle of a test context; an app keeps an `Arc` of the store it registers.
async fn state_handle(store: Arc<dyn StateStore>) {
    {
        let namespace = unique("counting");
        let server = mcp_tests::fixture::builder(false)
            .state_namespace(namespace.clone())
            .state_store(Arc::clone(&store))
            .build()
            .expect("builds");
        let key = |name: &str| format!("mcp:{namespace}::{name}");
        let calls: Vec<_> = (0..200)
            .map(|_| {
                let server = server.clone();
                tokio::spawn(async move { server.call("next_id", json!({})).await })
            })
            .collect();
        let mut ids = Vec::new();
        for call in calls {
            let result = call.await.expect("a call");
            ids.push(result.structured_content.and_then(|v| v["id"].as_i64()).expect("an id"));
        }
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), 200);
        // The app's own handle sees the same counter, unexpiring.
        let counter = store.get(&key("next_id")).await.expect("get").expect("the counter");
        assert_eq!(counter, ids[199].to_string());
        // A value that is not a number cannot be incremented: the server's bug, not an outage.
        store.set(&key("text"), "\"x\"".into(), Duration::from_secs(60)).await.expect("set");
        let err = store.increment(&key("text"), 1).await.expect_err("not a number");
        assert!(err.is_bad_value(), "{err}");
        // Without a TTL, set and compare-and-set keep the value past a short TTL's expiry.
        store.set(&key("short"), "1".into(), Duration::from_millis(200)).await.expect("set");
        store.set(&key("kept"), "1".into(), mcp_runtime::NO_TTL).await.expect("set");
        assert!(store.compare_and_set(&key("cas"), None, "1".into(), mcp_runtime::NO_TTL).await.expect("cas"));
        tokio::time::sleep(Duration::from_millis(400)).await;
        assert_eq!(store.get(&key("short")).await.expect("get"), None);
        assert_eq!(store.get(&key("kept")).await.expect("get").as_deref(), Some("1"));
        assert_eq!(store.get(&key("cas")).await.expect("get").as_deref(), Some("1"));
        for name in ["next_id", "text", "kept", "cas"] {
            store.delete(&key(name)).await.expect("delete");
        }
    }
}
