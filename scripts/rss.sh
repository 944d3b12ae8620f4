#!/usr/bin/env bash
# Where a stdio server's start-up time and resident memory go, by component.
#
#   scripts/rss.sh [server binary]     default: bench/'s add-server, built lean (release)
#
# Prints, for the binary: its loaded sections (code, read-only data, relocated data) and the
# crates its code comes from; the dynamic loader's own statistics (relocations and the time
# they take at every start, LD_DEBUG=statistics); and, for a running server that answered
# `initialize` and one `tools/call`, its resident memory by mapping (the binary's pages,
# shared libraries, heap and thread stacks). Compare a reference the same way, e.g.
# `scripts/rss.sh ~/.cache/mcp-perf/target/release/rmcp-server`. Needs binutils (readelf, nm)
# and Python 3; Linux only (/proc).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if [[ $# -ge 1 ]]; then
  bin="$1"
else
  (cd "$root" && cargo build --release -q -p mcp-bench --bin add-server)
  bin="$root/target/release/add-server"
fi
[[ -x "$bin" ]] || { echo "rss.sh: $bin is not an executable" >&2; exit 1; }
for tool in readelf nm python3; do
  command -v "$tool" >/dev/null || { echo "rss.sh: needs $tool (binutils / python3)" >&2; exit 1; }
done

echo "== $bin"
echo
echo "-- loaded sections (bytes)"
readelf -SW "$bin" | python3 -c '
import re, sys
wanted = {".text", ".rodata", ".data.rel.ro", ".data", ".bss", ".rela.dyn", ".eh_frame", ".gcc_except_table"}
for line in sys.stdin:
    m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)", line)
    if m and m.group(1) in wanted:
        print(f"  {m.group(1):<20} {int(m.group(2), 16):10d}")
'
echo
echo "-- code by crate (.text, top 12; from symbol sizes)"
nm -C -S --size-sort -t d "$bin" 2>/dev/null | python3 -c '
import collections, re, sys
by = collections.Counter()
for line in sys.stdin:
    parts = line.split(None, 3)
    if len(parts) < 4 or parts[2] not in "tTwW":
        continue
    name = parts[3].strip()
    name = re.sub(r"^<", "", name)
    name = re.sub(r"^(_<|&|dyn |impl )", "", name)
    crate = re.split(r"::|<| ", name, maxsplit=1)[0] or "?"
    by[crate] += int(parts[1])
total = sum(by.values())
for crate, size in by.most_common(12):
    print(f"  {crate:<28} {size/1024:9.0f} KiB  {100*size/total:4.1f} %")
print("  %-28s %9.0f KiB" % ("(all code with symbols)", total / 1024))
'
echo
echo "-- dynamic loader at start-up (LD_DEBUG=statistics; the server exits at once on EOF)"
LD_DEBUG=statistics "$bin" </dev/null 2>&1 >/dev/null | grep -E "total startup time|time needed for relocation|number of relocations|relocations from cache" \
  | sed -E 's/^ *[0-9]+: *//; s/^/  /' || true
echo
echo "-- resident memory after initialize and one tools/call (KiB)"
python3 - "$bin" <<'PY'
import json, subprocess, sys, time
proc = subprocess.Popen([sys.argv[1]], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
def send(msg):
    proc.stdin.write((json.dumps(msg) + "\n").encode()); proc.stdin.flush()
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "rss", "version": "1"}}})
proc.stdout.readline()
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 2}}})
proc.stdout.readline()
time.sleep(0.2)
groups, total = {}, 0
name, binary = None, sys.argv[1].rsplit("/", 1)[-1]
with open(f"/proc/{proc.pid}/smaps") as smaps:
    for line in smaps:
        fields = line.split()
        if "-" in fields[0] and len(fields[0]) > 8 and not fields[0].endswith(":"):
            path = fields[5] if len(fields) > 5 else ""
            if path.endswith("/" + binary) or path == sys.argv[1]:
                name = "the binary (code, data, relocated data)"
            elif path == "[heap]":
                name = "heap"
            elif path == "[stack]" or path.startswith("[stack"):
                name = "main thread stack"
            elif path.startswith("/"):
                name = "shared libraries (libc, ld.so, ...)"
            elif path.startswith("["):
                name = "kernel ([vdso], [vvar])"
            else:
                name = "anonymous (other threads' stacks, allocator arenas)"
        elif fields[0] == "Rss:":
            kib = int(fields[1])
            groups[name] = groups.get(name, 0) + kib
            total += kib
with open(f"/proc/{proc.pid}/status") as status:
    threads = next(l.split()[1] for l in status if l.startswith("Threads:"))
proc.stdin.close(); proc.wait(timeout=10)
for name, kib in sorted(groups.items(), key=lambda kv: -kv[1]):
    print(f"  {name:<52} {kib:7d}")
print(f"  {'total RSS':<52} {total:7d}   ({threads} threads)")
PY
