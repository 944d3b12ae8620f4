#!/usr/bin/env python3
"""Heap in use by a stdio server over a long hostile mix, at quiet points: is anything kept per message?

Runs `target/release/fixture-server` under valgrind's massif (`apt-get install valgrind`;
build it first with `cargo build --release -p mcp-tests`), sends PER messages of the soak's
mix (valid echo calls of both eras, malformed JSON, unknown methods, cancellations of unknown
ids, duplicate ids, invalid JSON-RPC, invalid arguments, deep nesting) PHASES times, and after
each phase, once a ping is answered and 2 s have passed, asks massif (through vgdb) for the
heap in use. A leak grows from one phase to the next; freed memory the allocator keeps, which
the soak's RSS sees, does not show here (massif counts live allocations only).

Usage: scripts/soak-heap.py [PER=40000] [PHASES=7]   (RUST_LOG=warn keeps the server quiet)
"""
import os, subprocess, threading, time, re, random, sys
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVER = os.path.join(ROOT, "target", "release", "fixture-server")
META = ',"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
out_file = f"/tmp/soak-heap-{os.getpid()}.massif"
# The blocking pool's threads (sleep_ms) need more than valgrind's default 500.
p = subprocess.Popen(
    ["valgrind", "--tool=massif", f"--massif-out-file={out_file}", "--max-threads=2000", SERVER],
    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    env=dict(os.environ, RUST_LOG=os.environ.get("RUST_LOG", "warn")),
)
seen = set(); cv = threading.Condition()
def drain():
    for line in p.stdout:
        m = re.match(rb'\{"jsonrpc":"2.0","id":"(q\d+)"', line)
        if m:
            with cv: seen.add(m.group(1).decode()); cv.notify_all()
threading.Thread(target=drain, daemon=True).start()
def send(lines):
    p.stdin.write(("\n".join(lines) + "\n").encode()); p.stdin.flush()
def quiet(k):
    """Heap in use once the server has answered everything sent and gone quiet (massif's
    `snapshot` monitor command, through vgdb)."""
    send(['{"jsonrpc":"2.0","id":"q%d","method":"ping"}' % k])
    with cv: cv.wait_for(lambda: f"q{k}" in seen, timeout=600)
    time.sleep(2)
    path = f"{out_file}.{k}"
    subprocess.run(["vgdb", f"--pid={p.pid}", "snapshot", path], check=True, capture_output=True, timeout=60)
    text = open(path).read()
    os.unlink(path)
    return int(re.search(r"^mem_heap_B=(\d+)", text, re.M).group(1))
send(['{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"m","version":"0"}}}',
      '{"jsonrpc":"2.0","method":"notifications/initialized"}'])
rng = random.Random(7); n = 0
nested = "[" * 100000 + "]" * 100000
def mix(count):
    global n
    lines = []
    for _ in range(count):
        n += 1; r = rng.randrange(100)
        if r < 50: lines.append('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"v%d"}%s}}' % (n, n, META if r % 2 else ""))
        elif r < 58: lines.append('{"jsonrpc":"2.0","id":"m","method":"tools/call","params":{"name":')
        elif r < 64: lines.append('{"jsonrpc":"2.0","id":"u%d","method":"no/such/method"}' % n)
        elif r < 70: lines.append('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"nope%d"}}' % n)
        elif r < 74:
            l = '{"jsonrpc":"2.0","id":"dup%d","method":"tools/call","params":{"name":"sleep_ms","arguments":{"ms":5}}}' % n
            lines += [l, l]
        elif r < 78: lines += ['{"jsonrpc":"2.0","id":{"an":"object"},"method":"ping"}', '[1,2,3]']
        elif r < 80: lines.append('{"jsonrpc":"2.0","id":"a%d","method":"tools/call","params":{"name":"echo","arguments":{"txet":1}}}' % n)
        elif r == 80 and n % 4 == 0: lines.append('{"jsonrpc":"2.0","id":"deep%d","method":"tools/call","params":{"name":"echo","arguments":{"text":%s}}}' % (n, nested))
        else: lines.append('{"jsonrpc":"2.0","id":"p%d","method":"ping"}' % n)
    return lines
per = int(sys.argv[1]) if len(sys.argv) > 1 else 40000
phases = int(sys.argv[2]) if len(sys.argv) > 2 else 7
for phase in range(phases):
    for chunk in range(per // 1000):
        send(mix(1000))
    heap = quiet(phase)
    print(f"after {n:7} messages: heap in use {heap:,} B", flush=True)
p.stdin.close(); p.wait(timeout=600)
os.unlink(out_file)
