"""Interop: the official Python `mcp` client (2.3.0) against `fixture-server` over stdio.

Usage: python test_fixture.py <path-to-fixture-server>

Prints one line per check and ends with `N passed, M failed`; exits non-zero when any check
fails (or the server cannot be reached).
"""

from __future__ import annotations

import re
import sys
import tempfile
import traceback
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client, types

REQUEST_ID = r"[A-Z0-9]{5}-[A-Z0-9]{5}"

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


async def default_session_checks(runner: Runner, session: ClientSession) -> None:
    async def initialize() -> str:
        init = await session.initialize()
        expect_eq(init.protocol_version, "2025-11-25", "protocolVersion")
        expect_eq(init.server_info.name, "fixture-server", "serverInfo.name")
        expect(bool(init.server_info.version), "serverInfo.version is set")
        tools = init.capabilities.tools
        expect(tools is not None, "the tools capability is declared")
        assert tools is not None
        expect_eq(tools.list_changed, False, "capabilities.tools.listChanged")
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


async def strict_session_checks(runner: Runner, session: ClientSession) -> None:
    async def strict_unknown_tool() -> str:
        await session.initialize()
        try:
            result = await session.call_tool("ehco", {})
        except MCPError as e:
            expect_eq((e.code, e.message), (-32602, "Unknown tool: ehco"), "the JSON-RPC error")
            return "raised MCPError -32602 'Unknown tool: ehco'"
        raise CheckFailed(f"expected MCPError, got a result {result!r}")

    await runner.check("strict resolution", strict_unknown_tool)


async def structured_always_checks(runner: Runner, session: ClientSession) -> None:
    async def structured_always() -> str:
        await session.initialize()
        await session.list_tools()
        result = await session.call_tool("fetch_items", {"ids": ["a"], "mode": "queue"})
        expect_eq(result.is_error, True, "isError")
        expect("Recovery: Wait a few seconds" in only_text(result), f"text: {only_text(result)!r}")
        error = (result.structured_content or {}).get("error", {})
        expect_eq(error.get("data", {}).get("reason"), "queue_full", "structuredContent.error.data.reason")
        return "structuredContent.error on the fetch_items failure; this client does not validate error results"

    await runner.check("FIXTURE_STRUCTURED_ERRORS=always", structured_always)


async def main(server: str) -> int:
    runner = Runner()
    with tempfile.TemporaryFile("w+") as errlog:
        try:
            for env, checks in (
                ({}, default_session_checks),
                ({"FIXTURE_STRICT_RESOLUTION": "1"}, strict_session_checks),
                ({"FIXTURE_STRUCTURED_ERRORS": "always"}, structured_always_checks),
            ):
                params = StdioServerParameters(command=server, args=[], env=env)
                async with stdio_client(params, errlog=errlog) as (read, write):
                    async with ClientSession(read, write) as session:
                        await checks(runner, session)
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


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: test_fixture.py <path-to-fixture-server>", file=sys.stderr)
        sys.exit(2)
    sys.exit(anyio.run(main, sys.argv[1]))
