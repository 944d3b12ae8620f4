//! `#[cfg(..)]` on a parameter (issue 34 item 4): off, the parameter is in neither the schema
//! nor the call; on, it is an argument like any other. (`any()` is always off, `all()` always
//! on.)

use mcp_runtime::prelude::*;

/// Greets someone.
#[tool]
fn greet(
    /// Who.
    name: String,
    /// Never compiled in.
    #[cfg(any())]
    shout: bool,
    /// Always compiled in.
    #[cfg(all())]
    #[serde(default)]
    times: Option<u8>,
) -> String {
    #[cfg(any())]
    let name = if shout { name.to_uppercase() } else { name };
    name.repeat(usize::from(times.unwrap_or(1)))
}

/// Greets someone, with a `#[schemars]` parameter beside the `#[cfg]` one.
#[tool]
fn greet_checked(
    #[schemars(length(min = 1))] name: String,
    #[cfg(any())] shout: Vec<NotAnArgument>,
    #[cfg(all())] times: u8,
) -> String {
    name.repeat(usize::from(times))
}

/// Not an argument type: a parameter of this type is never compiled in.
#[cfg(any())]
struct NotAnArgument;

/// A prompt with a parameter of each kind.
#[prompt]
fn review(
    /// The code.
    code: String,
    /// Never compiled in.
    #[cfg(any())]
    strict: bool,
) -> String {
    format!("Review {code}.")
}

fn main() {
    let server = Server::builder("ui", "0.0.0").tool(greet).tool(greet_checked).prompt(review).build().expect("server");
    let tools = server.tool_descriptors();
    let properties = |i: usize| -> Vec<String> {
        tools[i]["inputSchema"]["properties"].as_object().expect("properties").keys().cloned().collect()
    };
    assert_eq!(properties(0), ["name", "times"]);
    assert_eq!(tools[0]["inputSchema"]["required"], serde_json::json!(["name"]));
    assert_eq!(properties(1), ["name", "times"]);

    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let twice = rt.block_on(server.call("greet", serde_json::json!({"name": "a", "times": 2})));
    assert_eq!(twice.first_text(), Some("aa"));
    // Off, `shout` is an unknown argument like any other.
    let shout = rt.block_on(server.call("greet", serde_json::json!({"name": "a", "shout": true})));
    assert_eq!(shout.is_error, Some(true));
    let checked = rt.block_on(server.call("greet_checked", serde_json::json!({"name": "b", "times": 3})));
    assert_eq!(checked.first_text(), Some("bbb"));
    let prompt = rt.block_on(server.get_prompt("review", serde_json::json!({"code": "x"}))).expect("prompt");
    assert_eq!(prompt["messages"][0]["content"]["text"], "Review x.");
    let strict = rt.block_on(server.get_prompt("review", serde_json::json!({"code": "x", "strict": "true"})));
    assert!(strict.is_err(), "`strict` is not an argument of the prompt");
}
