"""Interop: the official Python `mcp` client (2.3.0) against `fixture-server` over stdio, or
over Streamable HTTP (`mcp.client.streamable_http.streamable_http_client`) against a
fixture-server this suite starts on a free port of 127.0.0.1 (with sessions, or `--stateless`).

Usage: python test_fixture.py <path-to-fixture-server> [--http [--stateless]] [--modern]

Without `--modern` the client speaks the 2025-11-25 era (`ClientSession`, `initialize`). With
`--modern` it speaks 2026-07-28 through the high-level `mcp.Client` and runs the same checks
(minus `initialize` and `ping`, which that era does not have), plus the modern-only ones: the
discover result (version, serverInfo), ttlMs/cacheScope on tools/list, a pinned connect,
per-request `_meta["io.modelcontextprotocol/logLevel"]`, and over HTTP that no request
carries an Mcp-Session-Id.

Prints one line per check and ends with `N passed, M failed`; exits non-zero when any check
fails (or the server cannot be reached).
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import IO, Any

import anyio
from mcp import Client, ClientSession, MCPError, StdioServerParameters, stdio_client, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

REQUEST_ID = r"[A-Z0-9]{5}-[A-Z0-9]{5}"

MODERN = "2026-07-28"
LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]

FIRST_TOOLS = [
    "echo",
    "add",
    "search_docs",
    "sleep_ms",
    "fetch_items",
    "boom",
    "bad_output",
    "admin_reset",
    "file_size",
]

ADD_INPUT = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "a": {"type": "integer", "description": "The first addend."},
        "b": {"type": "integer", "description": "The second addend."},
    },
    "required": ["a", "b"],
}

ADD_OUTPUT = {
    "type": "object",
    "properties": {"sum": {"type": "integer", "description": "`a + b`."}},
    "required": ["sum"],
    "description": "The sum of two integers.",
    "title": "Sum",
}


class CheckFailed(Exception):
    """A check's expectation did not hold."""


def expect(condition: bool, what: str) -> None:
    if not condition:
        raise CheckFailed(what)


def expect_eq(actual: Any, expected: Any, what: str) -> None:
    if actual != expected:
        raise CheckFailed(f"{what}: expected {expected!r}, got {actual!r}")


def only_text(result: types.CallToolResult) -> str:
    expect_eq(len(result.content), 1, "number of content blocks")
    block = result.content[0]
    expect(isinstance(block, types.TextContent), f"a text block, got {block!r}")
    assert isinstance(block, types.TextContent)
    return block.text


class Runner:
    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    async def check(self, name: str, body: Callable[[], Awaitable[str]]) -> None:
        try:
            with anyio.fail_after(30):
                detail = await body()
        except Exception as e:  # noqa: BLE001 - every failure is reported, then counted
            self.failed += 1
            print(f"FAIL {name}: {type(e).__name__}: {e}", flush=True)
            if not isinstance(e, CheckFailed):
                traceback.print_exc(file=sys.stdout)
        else:
            self.passed += 1
            print(f"ok   {name}: {detail}", flush=True)


async def default_session_checks(runner: Runner, session: Any, modern: bool = False, stateless: bool = False) -> None:
    """The checks of a default fixture-server. `session` is a `ClientSession` (legacy: the
    checks start with `initialize`) or, `modern`, a connected `mcp.Client`, which has the same
    `list_tools` and `call_tool`. A session hears of tool-list changes; a stateless server's
    requests cannot, so it declares `listChanged: false`."""
    async def initialize() -> str:
        init = await session.initialize()
        expect_eq(init.protocol_version, "2025-11-25", "protocolVersion")
        expect_eq(init.server_info.name, "fixture-server", "serverInfo.name")
        expect(bool(init.server_info.version), "serverInfo.version is set")
        tools = init.capabilities.tools
        expect(tools is not None, "the tools capability is declared")
        assert tools is not None
        expect_eq(tools.list_changed, not stateless, "capabilities.tools.listChanged")
        expect(init.capabilities.logging is not None, "the logging capability is declared")
        return f"protocol {init.protocol_version}, server {init.server_info.name} {init.server_info.version}"

    async def ping() -> str:
        result = await session.send_ping()
        expect(isinstance(result, types.EmptyResult), f"an empty result, got {result!r}")
        return "empty result"

    async def list_tools() -> str:
        listed = await session.list_tools()
        names = [t.name for t in listed.tools]
        expect_eq(names[: len(FIRST_TOOLS)], FIRST_TOOLS, "the first tools, in registration order")
        expect("legacy_report" not in names, "the disabled tool is not listed")
        expect_eq(listed.next_cursor, None, "nextCursor")
        by_name = {t.name: t for t in listed.tools}
        expect(by_name["fetch_items"].output_schema is not None, "fetch_items declares an outputSchema")
        expect_eq(by_name["boom"].output_schema, None, "boom's outputSchema")
        add = by_name["add"]
        expect_eq(add.description, "Adds two integers.", "add.description")
        expect_eq(add.input_schema, ADD_INPUT, "add.inputSchema")
        expect_eq(add.output_schema, ADD_OUTPUT, "add.outputSchema")
        annotations = add.annotations
        expect(annotations is not None, "add has annotations")
        assert annotations is not None
        expect_eq(
            (annotations.read_only_hint, annotations.idempotent_hint, annotations.open_world_hint),
            (True, True, False),
            "add.annotations",
        )
        expect(all(t.description for t in listed.tools), "every tool has a description")
        return f"{len(names)} tools, legacy_report unlisted"

    async def call_add() -> str:
        # The client validates structuredContent against add's outputSchema.
        result = await session.call_tool("add", {"a": 2, "b": 3})
        expect(not result.is_error, f"not an error: {result!r}")
        expect_eq(result.structured_content, {"sum": 5}, "structuredContent")
        expect_eq(only_text(result), '{"sum":5}', "the JSON text block")
        return "structuredContent {'sum': 5}, validated by the client"

    async def call_echo() -> str:
        result = await session.call_tool("echo", {"text": "héllo\nworld"})
        expect(not result.is_error, f"not an error: {result!r}")
        expect_eq(only_text(result), "héllo\nworld", "echo text")
        expect_eq(result.structured_content, None, "no structuredContent for text")
        return "text round-trips"

    async def call_structured_variants() -> str:
        result = await session.call_tool("search_docs", {"query": "q"})
        expect(not result.is_error, f"not an error: {result!r}")
        expect_eq(result.structured_content, {"hits": ["hit 1 for q", "hit 2 for q", "hit 3 for q"]}, "search_docs")
        result = await session.call_tool("file_size", {"path": sys.argv[1]})
        expect(not result.is_error, f"not an error: {result!r}")
        expect(
            isinstance(result.structured_content, dict) and isinstance(result.structured_content.get("result"), int),
            f"file_size wraps its number as {{'result': n}}: {result.structured_content!r}",
        )
        return "search_docs and wrapped file_size pass the client's output validation"

    async def bad_arguments() -> str:
        # add declares an outputSchema: its error results carry no structuredContent.
        result = await session.call_tool("add", {"a": "two", "b": 3})
        expect_eq(result.is_error, True, "isError")
        text = only_text(result)
        pattern = (
            r"Error: Invalid arguments for tool add: a: expected integer, received string\n\n"
            r"Recovery: .+\n\n"
            rf"\(reason invalid_arguments · request {REQUEST_ID}\)"
        )
        expect(re.fullmatch(pattern, text, re.S) is not None, f"text: {text!r}")
        expect_eq(result.structured_content, None, "structuredContent (add has an outputSchema)")
        # echo declares none: its error results keep structuredContent.error.
        result = await session.call_tool("echo", {"text": 5})
        expect_eq(result.is_error, True, "isError")
        text = only_text(result)
        expect(text.startswith("Error: Invalid arguments for tool echo:"), f"text: {text!r}")
        expect(re.search(rf"\(reason invalid_arguments · request {REQUEST_ID}\)$", text) is not None, f"terms: {text!r}")
        error = (result.structured_content or {}).get("error", {})
        expect_eq(error.get("code"), -32602, "error.code")
        expect_eq(error.get("data", {}).get("reason"), "invalid_arguments", "error.data.reason")
        return "isError results with the envelope, not exceptions; structuredContent only for echo"

    async def unknown_tool() -> str:
        result = await session.call_tool("ehco", {})
        expect_eq(result.is_error, True, "isError")
        text = only_text(result)
        pattern = (
            r"Error: Unknown tool: ehco\.\n\n"
            r"Recovery: Re-run tools/list and retry\. Did you mean echo\?\n\n"
            rf"\(reason unknown_tool · not retryable · request ({REQUEST_ID})\)"
        )
        match = re.fullmatch(pattern, text)
        expect(match is not None, f"text: {text!r}")
        assert match is not None
        expect_eq(
            result.structured_content,
            {
                "error": {
                    "code": -32602,
                    "message": "Unknown tool: ehco.",
                    "data": {
                        "reason": "unknown_tool",
                        "retryable": False,
                        "recovery": {"hint": "Re-run tools/list and retry. Did you mean echo?"},
                        "requestId": match.group(1),
                    },
                }
            },
            "structuredContent",
        )
        return "an isError result with a did-you-mean, not an exception"

    async def contract_failure() -> str:
        result = await session.call_tool("fetch_items", {"ids": [], "mode": "queue"})
        expect_eq(result.is_error, True, "isError")
        text = only_text(result)
        pattern = (
            r"Error: The work queue is full\.\n\n"
            r"Recovery: Wait a few seconds, then call fetch_items again with the same ids\.\n\n"
            rf"\(reason queue_full · retryable · request {REQUEST_ID}\)"
        )
        expect(re.fullmatch(pattern, text) is not None, f"text: {text!r}")
        expect("Recovery: Wait a few seconds" in text, f"text: {text!r}")
        expect_eq(result.structured_content, None, "structuredContent (fetch_items has an outputSchema)")
        return "the envelope with recovery and retryable, no structuredContent"

    async def panic_then_success() -> str:
        result = await session.call_tool("boom", {})
        expect_eq(result.is_error, True, "isError")
        text = only_text(result)
        expect("secret panic payload" not in text, "the panic payload is not sent")
        pattern = (
            r"Error: Tool boom failed unexpectedly\.\n\n"
            r"Recovery: .+\n\n"
            rf"\(reason internal_error · request ({REQUEST_ID})\)"
        )
        match = re.fullmatch(pattern, text, re.S)
        expect(match is not None, f"text: {text!r}")
        assert match is not None
        # boom declares no outputSchema: structuredContent.error stays.
        error = (result.structured_content or {}).get("error", {})
        expect_eq(error.get("code"), -32603, "error.code")
        expect_eq(error.get("data", {}).get("reason"), "internal_error", "error.data.reason")
        expect_eq(error.get("data", {}).get("requestId"), match.group(1), "error.data.requestId")
        result = await session.call_tool("add", {"a": 40, "b": 2})
        expect_eq(result.structured_content, {"sum": 42}, "the server still serves")
        return "panic is an isError result; the next call succeeds"

    if not modern:
        await runner.check("initialize", initialize)
        await runner.check("ping", ping)
    await runner.check("tools/list", list_tools)
    await runner.check("call add", call_add)
    await runner.check("call echo", call_echo)
    await runner.check("output schema validation", call_structured_variants)
    await runner.check("bad arguments", bad_arguments)
    await runner.check("unknown tool", unknown_tool)
    await runner.check("declared failure", contract_failure)
    await runner.check("panic", panic_then_success)


# What the elicitation and sampling callbacks were asked, in order.
ASKED: list[tuple[str, Any]] = []


async def on_elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    ASKED.append(("elicit", params.message))
    return types.ElicitResult(action="accept", content={"confirm": True})


async def on_sample(context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    content = params.messages[0].content
    ASKED.append(("sample", getattr(content, "text", None)))
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text="A short summary."),
        model="interop",
        stop_reason="endTurn",
    )


CALLBACKS = {"elicitation_callback": on_elicit, "sampling_callback": on_sample}


async def ask_checks(runner: Runner, session: Any, blind: bool, modern: bool = False) -> None:
    """Tools that ask the caller (ctx.ask), written once on the server: served to a 2025
    session by the server's legacy shim (real requests to the callbacks), to a 2026-07-28
    client as input_required results its driver fulfils through the same callbacks. A 2025
    client over stateless HTTP cannot be asked: the client_capability_missing refusal says why."""

    async def asked() -> str:
        ASKED.clear()
        if not modern:
            await session.initialize()
        deleted = await session.call_tool("confirm_delete", {"path": "/tmp/x"})
        summary = await session.call_tool("summarize", {"text": "A long text."})
        if blind:
            text = only_text(deleted)
            expect(
                "Error: Cannot request input 'confirm' (elicitation/create): this server serves HTTP without sessions, and a 2025-era request there cannot be asked anything (no server-to-client round trip is possible within one request)"
                in text
                and "Recovery: Asking needs a client that speaks MCP 2026-07-28" in text,
                text,
            )
            expect("reason client_capability_missing" in only_text(summary), only_text(summary))
            expect_eq(ASKED, [], "nothing asked")
            return "refused"
        expect_eq(deleted.structured_content, {"deleted": "/tmp/x"}, "confirm_delete")
        expect_eq([c.model_dump(exclude_none=True) for c in summary.content], [{"type": "text", "text": "A short summary."}], "summarize")
        expect_eq(ASKED, [("elicit", "Delete /tmp/x?"), ("sample", "A long text.")], "asked")
        return "elicitation and sampling answered"

    name = (
        "confirm_delete and summarize over stateless HTTP (2025): the blind refusal"
        if blind
        else f"confirm_delete and summarize with elicitation and sampling callbacks ({'input_required' if modern else 'legacy shim'})"
    )
    await runner.check(name, asked)


async def strict_session_checks(runner: Runner, session: Any, modern: bool = False) -> None:
    async def strict_unknown_tool() -> str:
        if not modern:
            await session.initialize()
        try:
            result = await session.call_tool("ehco", {})
        except MCPError as e:
            expect_eq((e.code, e.message), (-32602, "Unknown tool: ehco"), "the JSON-RPC error")
            return "raised MCPError -32602 'Unknown tool: ehco'"
        raise CheckFailed(f"expected MCPError, got a result {result!r}")

    await runner.check("strict resolution", strict_unknown_tool)


async def structured_always_checks(runner: Runner, session: Any, modern: bool = False) -> None:
    async def structured_always() -> str:
        if not modern:
            await session.initialize()
        await session.list_tools()
        result = await session.call_tool("fetch_items", {"ids": ["a"], "mode": "queue"})
        expect_eq(result.is_error, True, "isError")
        expect("Recovery: Wait a few seconds" in only_text(result), f"text: {only_text(result)!r}")
        error = (result.structured_content or {}).get("error", {})
        expect_eq(error.get("data", {}).get("reason"), "queue_full", "structuredContent.error.data.reason")
        return "structuredContent.error on the fetch_items failure; this client does not validate error results"

    await runner.check("FIXTURE_STRUCTURED_ERRORS=always", structured_always)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


@asynccontextmanager
async def http_server(server: str, env: dict[str, str], stateless: bool, errlog: IO[str]) -> AsyncIterator[str]:
    """Runs `server --http 127.0.0.1:<free port> [--stateless]` with `env` added to this
    process's environment until the block ends; yields its endpoint URL once the port accepts
    connections."""
    for attempt in range(1, 4):
        port = free_port()
        args = [server, "--http", f"127.0.0.1:{port}"] + (["--stateless"] if stateless else [])
        errlog.flush()
        process = subprocess.Popen(
            args, env=os.environ | env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errlog
        )
        try:
            deadline = time.monotonic() + 15
            while process.poll() is None and time.monotonic() < deadline and not accepts(port):
                await anyio.sleep(0.05)
            if process.poll() is None and accepts(port):
                yield f"http://127.0.0.1:{port}/mcp"
                return
            if process.poll() is None:
                raise RuntimeError(f"{' '.join(args)}: not listening after 15 s")
            # Another process may have taken the port between the probe and the bind.
            if attempt == 3:
                raise RuntimeError(f"{' '.join(args)}: exited with status {process.returncode}")
        finally:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


async def session_posture_check(runner: Runner, stateless: bool, exchanges: list[tuple[str, int, str | None, str | None]]) -> None:
    """Over HTTP, once the client has closed: what the HTTP exchanges show of the session."""

    async def with_session() -> str:
        expect(len(exchanges) >= 2, f"exchanges: {exchanges!r}")
        method, status, minted, _ = exchanges[0]
        expect_eq((method, status), ("POST", 200), "the initialize POST")
        expect(minted is not None, "the initialize response carries an Mcp-Session-Id")
        expect(all(sent == minted for _, _, _, sent in exchanges[1:]), f"every later request sends it: {exchanges!r}")
        method, status, _, _ = exchanges[-1]
        expect(method == "DELETE" and status in (200, 204), f"the client ends the session with DELETE: {exchanges[-1]!r}")
        return f"{len(exchanges)} exchanges, Mcp-Session-Id minted at initialize, DELETE {status} at close"

    async def without_session() -> str:
        expect(len(exchanges) >= 2, f"exchanges: {exchanges!r}")
        expect(all(minted is None for _, _, minted, _ in exchanges), f"no Mcp-Session-Id: {exchanges!r}")
        expect(all(method == "POST" for method, _, _, _ in exchanges), f"only POSTs (no GET stream, no DELETE): {exchanges!r}")
        return f"{len(exchanges)} POSTs, no Mcp-Session-Id, no GET or DELETE"

    if stateless:
        await runner.check("HTTP posture: stateless", without_session)
    else:
        await runner.check("HTTP posture: a session from initialize to DELETE", with_session)


@asynccontextmanager
async def connect(
    runner: Runner, server: str, env: dict[str, str], http: bool, stateless: bool, errlog: IO[str], asks: bool = False
) -> AsyncIterator[ClientSession]:
    """A client session with a fixture-server whose environment has `env` added: spawned by
    the stdio transport, or started here and reached over Streamable HTTP (then, once the
    client has closed, one more check of the session posture the HTTP exchanges show)."""
    if not http:
        params = StdioServerParameters(command=server, args=[], env=env)
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write, **(CALLBACKS if asks else {})) as session:
                yield session
        return
    # (method, status, Mcp-Session-Id of the response, Mcp-Session-Id the request sent)
    exchanges: list[tuple[str, int, str | None, str | None]] = []

    async def record(response: Any) -> None:
        request = response.request
        exchanges.append(
            (request.method, response.status_code, response.headers.get("mcp-session-id"), request.headers.get("mcp-session-id"))
        )

    async with http_server(server, env, stateless, errlog) as url:
        async with create_mcp_http_client() as http_client:
            http_client.event_hooks = {"request": [], "response": [record]}
            async with streamable_http_client(url, http_client=http_client) as (read, write):
                async with ClientSession(read, write, **(CALLBACKS if asks else {})) as session:
                    yield session
        await session_posture_check(runner, stateless, exchanges)


# (method, status, Mcp-Session-Id of the response, Mcp-Session-Id the request sent,
#  MCP-Protocol-Version the request sent, the JSON-RPC method of a POST)
ModernExchange = tuple[str, int, str | None, str | None, str | None, str | None]


async def modern_checks(
    runner: Runner, client: Client, messages: list[types.LoggingMessageNotificationParams], pin: Callable[[], Any]
) -> None:
    """What only the 2026-07-28 era has, on a client connected with mode="auto"."""

    async def discover() -> str:
        expect_eq(client.protocol_version, MODERN, "protocol_version")
        result = client.session.discover_result
        expect(result is not None, "a discover result (the connection is modern, not an initialize fallback)")
        assert result is not None
        expect(MODERN in result.supported_versions, f"supportedVersions: {result.supported_versions!r}")
        info = client.server_info
        expect(info is not None, "serverInfo from _meta['io.modelcontextprotocol/serverInfo']")
        assert info is not None
        expect_eq(info.name, "fixture-server", "serverInfo.name")
        expect(bool(info.version), "serverInfo.version is set")
        expect(client.server_capabilities.tools is not None, "the tools capability is declared")
        return f"protocol {client.protocol_version}, supportedVersions {result.supported_versions}, server {info.name} {info.version}"

    async def cache_hints() -> str:
        listed = await client.list_tools(cache_mode="bypass")
        expect(isinstance(listed.ttl_ms, int), f"ttlMs: {listed.ttl_ms!r}")
        expect(listed.cache_scope in ("public", "private"), f"cacheScope: {listed.cache_scope!r}")
        return f"ttlMs {listed.ttl_ms}, cacheScope {listed.cache_scope}"

    async def pinned() -> str:
        # mode="2026-07-28" adopts the version without a probe (a synthesized discover result).
        async with pin() as other:
            expect_eq(other.protocol_version, MODERN, "protocol_version")
            result = await other.call_tool("add", {"a": 1, "b": 1})
            expect_eq(result.structured_content, {"sum": 2}, "structuredContent")
        return "add {a: 1, b: 1} = 2 without a probe"

    def texts() -> list[str]:
        return [m.data if isinstance(m.data, str) else repr(m.data) for m in messages]

    async def log_level_info() -> str:
        messages.clear()
        result = await client.call_tool("work", {"steps": 1}, meta={"io.modelcontextprotocol/logLevel": "info"})
        expect(not result.is_error, f"not an error: {result!r}")
        await anyio.sleep(0.2)
        expect(len(messages) > 0, "some notifications/message")
        expect(any("info from work" in t for t in texts()), f"the info message: {messages!r}")
        expect(any("error from work" in t for t in texts()), f"the error message: {messages!r}")
        below = [m for m in messages if LEVELS.index(m.level) < LEVELS.index("info")]
        expect_eq(below, [], "messages below info")
        levels = sorted({m.level for m in messages}, key=LEVELS.index)
        return f"{len(messages)} messages, levels {', '.join(levels)}"

    async def no_log_level() -> str:
        messages.clear()
        result = await client.call_tool("work", {"steps": 1})
        expect(not result.is_error, f"not an error: {result!r}")
        await anyio.sleep(0.2)
        expect_eq(messages, [], "notifications/message")
        return "none"

    await runner.check("server/discover (mode='auto')", discover)
    await runner.check("tools/list: ttlMs and cacheScope", cache_hints)
    await runner.check("mode='2026-07-28' (pinned)", pinned)
    await runner.check("logLevel 'info' in _meta: work logs at info and above", log_level_info)
    await runner.check("no logLevel in _meta: work logs nothing", no_log_level)


async def modern_posture_check(runner: Runner, exchanges: list[ModernExchange]) -> None:
    """Over HTTP, once the client has closed: modern traffic has no session, whether or not the
    server runs with sessions."""

    async def no_session() -> str:
        expect(len(exchanges) >= 2, f"exchanges: {exchanges!r}")
        sent = [x for x in exchanges if x[3] is not None]
        expect_eq(sent, [], "requests that sent an Mcp-Session-Id")
        posts = [x for x in exchanges if x[0] == "POST"]
        expect_eq([x for x in posts if x[4] != MODERN], [], "POSTs without MCP-Protocol-Version 2026-07-28")
        minted = sum(1 for x in exchanges if x[2] is not None)
        kinds = sorted({f"{x[0]} {x[5]}" if x[5] else x[0] for x in exchanges})
        return f"{len(exchanges)} exchanges ({', '.join(kinds)}), none sent a session; {minted} responses with an Mcp-Session-Id"

    await runner.check("HTTP posture (modern): no session on any request", no_session)


@asynccontextmanager
async def connect_modern(
    runner: Runner,
    server: str,
    env: dict[str, str],
    http: bool,
    stateless: bool,
    errlog: IO[str],
    mode: str = "auto",
    asks: bool = False,
) -> AsyncIterator[tuple[Client, list[types.LoggingMessageNotificationParams], Callable[[], Any]]]:
    """A 2026-07-28 `mcp.Client` for a fixture-server whose environment has `env` added.

    mcp 2.3.0 has mode="auto": it sends `server/discover` on the connection it will keep and,
    had the server answered as a legacy one, would fall back to `initialize` on that same
    process (or HTTP endpoint); the discover check fails if that happened. Yields the client,
    the notifications/message params it receives, and a factory of a second client of the same
    server pinned with mode="2026-07-28"."""
    messages: list[types.LoggingMessageNotificationParams] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        messages.append(params)

    def client_for(transport: Any, client_mode: str) -> Client:
        return Client(
            transport,
            mode=client_mode,
            client_info=types.Implementation(name="python-interop", version="1.0.0"),
            logging_callback=on_log,
            read_timeout_seconds=20,
            **(CALLBACKS if asks else {}),
        )

    if not http:
        params = StdioServerParameters(command=server, args=[], env=env)
        async with client_for(stdio_client(params, errlog=errlog), mode) as client:
            yield client, messages, lambda: client_for(stdio_client(params, errlog=errlog), MODERN)
        return
    exchanges: list[ModernExchange] = []

    async def record(response: Any) -> None:
        request = response.request
        rpc = None
        if request.method == "POST":
            try:
                rpc = json.loads(request.content).get("method")
            except Exception:  # noqa: BLE001 - a body that is not one JSON-RPC object
                rpc = None
        exchanges.append(
            (
                request.method,
                response.status_code,
                response.headers.get("mcp-session-id"),
                request.headers.get("mcp-session-id"),
                request.headers.get("mcp-protocol-version"),
                rpc,
            )
        )

    async with http_server(server, env, stateless, errlog) as url:

        @asynccontextmanager
        async def pinned_client() -> AsyncIterator[Client]:
            async with create_mcp_http_client() as other_http:
                other_http.event_hooks = {"request": [], "response": [record]}
                async with client_for(streamable_http_client(url, http_client=other_http), MODERN) as other:
                    yield other

        async with create_mcp_http_client() as http_client:
            http_client.event_hooks = {"request": [], "response": [record]}
            async with client_for(streamable_http_client(url, http_client=http_client), mode) as client:
                yield client, messages, pinned_client
        await modern_posture_check(runner, exchanges)


async def run(label: str, body: Callable[[Runner, IO[str]], Awaitable[None]]) -> int:
    """Runs one suite: its checks, then the server's stderr when any failed, then the tally."""
    runner = Runner()
    print(f"transport: {label}", flush=True)
    with tempfile.TemporaryFile("w+") as errlog:
        try:
            await body(runner, errlog)
        except Exception as e:  # noqa: BLE001 - a broken session is one more failure
            runner.failed += 1
            print(f"FAIL session: {type(e).__name__}: {e}", flush=True)
            traceback.print_exc(file=sys.stdout)
        if runner.failed:
            errlog.seek(0)
            print("--- server stderr ---")
            print(errlog.read()[-8000:])
    print(f"{runner.passed} passed, {runner.failed} failed", flush=True)
    return 1 if runner.failed else 0


def transport_label(http: bool, stateless: bool) -> str:
    return "http --stateless" if stateless else "http" if http else "stdio"


async def main_modern(server: str, http: bool, stateless: bool) -> int:
    async def body(runner: Runner, errlog: IO[str]) -> None:
        async with connect_modern(runner, server, {}, http, stateless, errlog) as (client, messages, pin):
            await modern_checks(runner, client, messages, pin)
            await default_session_checks(runner, client, modern=True)
        for env, checks in (
            ({"FIXTURE_STRICT_RESOLUTION": "1"}, strict_session_checks),
            ({"FIXTURE_STRUCTURED_ERRORS": "always"}, structured_always_checks),
        ):
            async with connect_modern(runner, server, env, http, stateless, errlog) as (client, _, _):
                await checks(runner, client, modern=True)
        async with connect_modern(runner, server, {}, http, stateless, errlog, asks=True) as (client, _, _):
            await ask_checks(runner, client, blind=False, modern=True)

    return await run(f"{transport_label(http, stateless)}, era: {MODERN}", body)


async def main(server: str, http: bool, stateless: bool) -> int:
    async def body(runner: Runner, errlog: IO[str]) -> None:
        for env, checks in (
            ({}, lambda runner, session: default_session_checks(runner, session, stateless=stateless)),
            ({"FIXTURE_STRICT_RESOLUTION": "1"}, strict_session_checks),
            ({"FIXTURE_STRUCTURED_ERRORS": "always"}, structured_always_checks),
        ):
            async with connect(runner, server, env, http, stateless, errlog) as session:
                await checks(runner, session)
        async with connect(runner, server, {}, http, stateless, errlog, asks=True) as session:
            await ask_checks(runner, session, blind=stateless)

    return await run(transport_label(http, stateless), body)


if __name__ == "__main__":
    flags = sys.argv[2:]
    if (
        len(sys.argv) < 2
        or sys.argv[1].startswith("--")
        or any(f not in ("--http", "--stateless", "--modern") for f in flags)
        or ("--stateless" in flags and "--http" not in flags)
    ):
        print("usage: test_fixture.py <path-to-fixture-server> [--http [--stateless]] [--modern]", file=sys.stderr)
        sys.exit(2)
    entry = main_modern if "--modern" in flags else main
    sys.exit(anyio.run(entry, sys.argv[1], "--http" in flags, "--stateless" in flags))
