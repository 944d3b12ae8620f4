#!/usr/bin/env python3
"""Generates the compile-time benchmark's crates: one workspace, one crate per (variant, N).

Every crate serves N tools. Each tool takes `name: String, count: i64, flag: Option<bool>`
and returns a two-field struct of its own, and its body is the same few lines, so the crates
differ only in how the tools are declared:

  ours_params  `#[tool]` with three by-value parameters
  ours_input   `#[tool]` with one `#[input]` struct (deriving `Deserialize + JsonSchema`)
  rmcp         rmcp 3.11 (crates.io): `#[tool]` in a `#[tool_router]` impl, taking
               `Parameters<Args>` (the struct deriving `Deserialize + JsonSchema`) and
               returning `Json<Out>`
  plain        no server: the `#[input]` crate's structs, derives and fn bodies alone, each
               tool a plain `async fn` that nothing calls. The derived code is generic and
               never instantiated, so this is mostly the front end: a lower bound under every
               server of the `#[input]` style, which must also compile what it instantiates
               (a hand-written `match` over `serve::<Args, Out, _>` with serde_json's `&Value`
               deserializer cost as much as ours in one run).

Every crate declares its structs first and its tools after them, the layout rmcp's
`#[tool_router]` impl block imposes, so that an edit in tool 0 moves the same declarations in
every variant. Tool 0's body holds the line `let step = 1;` that run.py edits: `1` <-> `2` keeps its length,
`1` <-> `10` changes it (and so moves every byte after it, i.e. every other tool).

Usage: generate.py OUT_DIR REPO_ROOT N [N ...]
"""
import sys
from pathlib import Path

VARIANTS = ("ours_params", "ours_input", "rmcp", "plain")

# What every tool does, the same in every variant.
BODY = """    let step = 1;
    let total = count + step;
    let label = if flag.unwrap_or(false) {{ name.to_uppercase() }} else {{ name }};
    Out{i} {{ label, total }}"""


def out_struct(i):
    return f"""
/// What tool {i} returns.
#[derive(Serialize, JsonSchema)]
pub struct Out{i} {{
    /// The label.
    pub label: String,
    /// The total.
    pub total: i64,
}}
"""


def args_struct(i, deny):
    attr = "#[serde(deny_unknown_fields)]\n" if deny else ""
    return f"""
/// The arguments of tool {i}.
#[derive(Deserialize, JsonSchema)]
{attr}pub struct Args{i} {{
    /// A name.
    pub name: String,
    /// A count.
    pub count: i64,
    /// A flag.
    pub flag: Option<bool>,
}}
"""


def ours(n, style):
    # The structs first, then the tools: the layout rmcp's `#[tool_router]` impl forces on
    # its crate, so that an edit in tool 0 moves the same declarations in every variant.
    parts = ["use mcp_runtime::prelude::*;\n"]
    for i in range(n):
        parts.append(out_struct(i))
        if style == "input":
            parts.append(args_struct(i, deny=True))
    for i in range(n):
        if style == "params":
            sig = (
                f"async fn tool_{i}(\n    /// A name.\n    name: String,\n    /// A count.\n    count: i64,\n"
                f"    /// A flag.\n    flag: Option<bool>,\n) -> Out{i} {{\n"
            )
        else:
            sig = f"async fn tool_{i}(#[input] args: Args{i}) -> Out{i} {{\n    let Args{i} {{ name, count, flag }} = args;\n"
        parts.append(f"\n/// Tool number {i}.\n#[tool]\n{sig}{BODY.format(i=i)}\n}}\n")
    tools = "".join(f"\n        .tool(tool_{i})" for i in range(n))
    parts.append(
        f"""
#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {{
    Server::builder("bench", "0.1.0"){tools}
        .build()?
        .serve_stdio()
        .await
}}
"""
    )
    return "".join(parts)


def rmcp(n):
    parts = [
        """use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::{Json, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
"""
    ]
    for i in range(n):
        parts.append(out_struct(i))
        parts.append(args_struct(i, deny=True))
    parts.append(
        """
/// The server.
#[derive(Clone)]
pub struct Bench {
    tool_router: ToolRouter<Self>,
}

#[tool_router(router = tool_router)]
impl Bench {
    fn new() -> Self {
        Self { tool_router: Self::tool_router() }
    }
"""
    )
    for i in range(n):
        body = "\n".join("    " + line for line in BODY.format(i=i).replace(f"Out{i} {{ label, total }}", f"Json(Out{i} {{ label, total }})").splitlines())
        parts.append(
            f"""
    /// Tool number {i}.
    #[tool]
    async fn tool_{i}(&self, Parameters(Args{i} {{ name, count, flag }}): Parameters<Args{i}>) -> Json<Out{i}> {{
{body}
    }}
"""
        )
    parts.append(
        """}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Bench {}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    Bench::new().serve(rmcp::transport::stdio()).await?.waiting().await?;
    Ok(())
}
"""
    )
    return "".join(parts)


def plain(n):
    parts = ["#![allow(dead_code)]\nuse schemars::JsonSchema;\nuse serde::{Deserialize, Serialize};\n"]
    for i in range(n):
        parts.append(out_struct(i))
        parts.append(args_struct(i, deny=True))
    for i in range(n):
        sig = f"async fn tool_{i}(args: Args{i}) -> Out{i} {{\n    let Args{i} {{ name, count, flag }} = args;\n"
        parts.append(f"\n/// Tool number {i}.\n{sig}{BODY.format(i=i)}\n}}\n")
    parts.append("\nfn main() {}\n")
    return "".join(parts)


def write(path, text):
    """Writes `text` unless the file already holds it, so that a rerun rebuilds nothing."""
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def manifest(name, variant, repo):
    if variant == "rmcp":
        deps = 'rmcp = { version = "=3.11.0", features = ["server", "transport-io", "macros"] }'
    elif variant == "plain":
        deps = ""
    else:
        deps = f'mcp-runtime = {{ path = "{repo}/mcp-runtime" }}'
    return f"""[package]
name = "{name}"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
{deps}
schemars = "1"
serde = {{ version = "1", features = ["derive"] }}
tokio = {{ version = "1", features = ["macros", "rt-multi-thread", "io-std"] }}
"""


def main():
    out, repo, ns = Path(sys.argv[1]), Path(sys.argv[2]).resolve(), [int(n) for n in sys.argv[3:]]
    members = []
    for variant in VARIANTS:
        for n in ns:
            name = f"{variant.replace('_', '-')}-{n}"
            members.append(name)
            src = {"ours_params": lambda: ours(n, "params"), "ours_input": lambda: ours(n, "input"), "rmcp": lambda: rmcp(n), "plain": lambda: plain(n)}[variant]()
            d = out / name
            (d / "src").mkdir(parents=True, exist_ok=True)
            write(d / "Cargo.toml", manifest(name, variant, repo))
            write(d / "src" / "main.rs", src)
    # Start from the repository's lock file, so that both sides build the versions it pins.
    if not (out / "Cargo.lock").exists() and (repo / "Cargo.lock").exists():
        (out / "Cargo.lock").write_text((repo / "Cargo.lock").read_text())
    listed = ", ".join(f'"{m}"' for m in members)
    write(
        out / "Cargo.toml",
        f"""[workspace]
resolver = "3"
members = [{listed}]

# The repository's own dev profile.
[profile.dev]
debug = "line-tables-only"

[profile.dev.package."*"]
debug = false
"""
    )


if __name__ == "__main__":
    main()
