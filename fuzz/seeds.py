#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets into seeds/<target>/: one JSON-RPC message per
method of both eras and one call of every fixture tool, with arguments like those the test suites
use. Run by campaign.sh; the files are committed, so a campaign starts from them."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}, "sampling": {}, "roots": {}}}

# Arguments like those the test suites call the fixture tools with: most are valid, and the
# fuzzer finds its way from the rest.
CALLS = {
    "echo": {"text": "hello"},
    "add": {"a": 2, "b": 3},
    "search_docs": {"query": "rust", "limit": 5},
    "sleep_ms": {"ms": 1},
    "fetch_items": {"ids": ["a", "b"], "mode": "ok"},
    "boom": {},
    "bad_output": {},
    "legacy_report": {},
    "admin_reset": {"confirm": True},
    "file_size": {"path": "/etc/hostname"},
    "locate": {"lat": 1.5, "lon": 2.5},
    "facet": {"what": "cpu"},
    "configure": {"opts": {"a": 1}},
    "choose": {"mode": "byId", "id": 3},
    "register": {"items": [{"name": "x"}]},
    "find": {"query": "q", "limit": 3},
    "tree_sum": {"tree": {"value": 1, "children": [{"value": 2, "children": []}]}},
    "work": {"steps": 2},
    "whoami": {},
    "wait_cancel": {},
    "log_sources": {},
    "pause_stream": {},
    "confirm_delete": {"path": "/tmp/x"},
    "summarize": {"text": "long text"},
    "list_roots": {},
    "ask_all": {},
    "keep_asking": {},
    "count_rounds": {},
    "put_item": {"id": "a"},
    "delete_item": {"id": "a"},
    "next_id": {},
    "claim": {"name": "a"},
    "purge_cache": {},
    "blob": {"bytes": 16, "progress": True},
    "slow_job": {"ms": 1, "outcome": "ok"},
    "report": {},
    "chart": {"values": [1, 2.5, 3]},
}
TOOLS = list(CALLS)  # the order of mcp_tests::props::FIXTURE_TOOLS

OTHER = [
    ("ping", {}), ("tools/list", {}), ("resources/list", {}), ("resources/templates/list", {}),
    ("resources/read", {"uri": "file:///notes/1"}), ("prompts/list", {}),
    ("prompts/get", {"name": "review", "arguments": {"code": "x"}}),
    ("completion/complete", {"ref": {"type": "ref/prompt", "name": "review"}, "argument": {"name": "code", "value": "x"}}),
    ("logging/setLevel", {"level": "debug"}), ("server/discover", {}), ("subscriptions/listen", {}),
    ("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}),
]


def write(target, name, data):
    folder = os.path.join(HERE, "seeds", target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def message(method, params, modern, id_=1):
    params = dict(params)
    if modern:
        params["_meta"] = META
    return json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params}).encode()


for modern in (False, True):
    era = b"\x00" if modern else b"\x01"  # session_line: low bit 1 = 2025-11-25
    tag = "modern" if modern else "legacy"
    for tool, args in CALLS.items():
        write("session_line", f"{tag}-call-{tool}", era + message("tools/call", {"name": tool, "arguments": args}, modern))
    for method, params in OTHER:
        write("session_line", f"{tag}-{method.replace('/', '-')}", era + message(method, params, modern))
    write("session_line", f"{tag}-cancel", era + json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}).encode())
    # http_request: stateless, from_a_client (the client's headers), method 0 (POST), no more
    # headers (a 0 ends the list), then the body; 2026-07-28 requests go to the stateless
    # endpoint, and a session starts with initialize.
    if modern:
        for tool, args in CALLS.items():
            write("http_request", f"modern-call-{tool}", bytes([1, 1, 0, 0]) + message("tools/call", {"name": tool, "arguments": args}, True))
        for method, params in OTHER:
            write("http_request", f"modern-{method.replace('/', '-')}", bytes([1, 1, 0, 0]) + message(method, params, True))
    else:
        write("http_request", "legacy-initialize", bytes([0, 1, 0, 0]) + message(*OTHER[-1], False))
    # tool_arguments: (legacy: bool, tool: u8, arguments: rest), as `arbitrary` reads them.
    for index, (tool, args) in enumerate(CALLS.items()):
        write("tool_arguments", f"{tag}-{tool}", bytes([0 if modern else 1, index]) + json.dumps(args).encode())
