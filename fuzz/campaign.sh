#!/usr/bin/env bash
# One long fuzz campaign: `fuzz/campaign.sh <target> [runs] [seconds]` runs libFuzzer on
# <target> until it has run <runs> inputs (default 10,000,000) or <seconds> passed (default
# 3,600), whichever comes first, and fails on any finding (saved under artifacts/<target>/).
# Targets: session_line, tool_arguments, http_request, uri_template, request_state.
#
# cargo-fuzz drives rustc with flags only a nightly compiler accepts; this machine has stable
# Rust only, so the campaign (never the product or CI's tests) sets RUSTC_BOOTSTRAP=1.
# The corpus grows in corpus/<target>/ (not committed); seeds/<target>/ is its start.
set -euo pipefail
cd "$(dirname "$0")"
target=${1:?usage: fuzz/campaign.sh <target> [runs] [seconds]}
runs=${2:-10000000}
seconds=${3:-3600}
command -v cargo-fuzz > /dev/null || cargo install cargo-fuzz --locked
python3 seeds.py
mkdir -p "corpus/$target" "artifacts/$target" logs
seeds="seeds/$target"
[ -d "$seeds" ] || seeds=""
export RUSTC_BOOTSTRAP=1
# No sanitizer: the SDK has no unsafe code of its own, and libFuzzer's own checks (a panic,
# a timeout, memory past the limits below) are the findings.
RUSTC_BOOTSTRAP=1 cargo fuzz run --sanitizer none -O --debug-assertions "$target" "corpus/$target" $seeds -- \
    -runs="$runs" -max_total_time="$seconds" -dict=mcp.dict -max_len=65536 \
    -rss_limit_mb=2048 -timeout=10 \
    -artifact_prefix="artifacts/$target/" -print_final_stats=1 2>&1 | tee "logs/$target.log"
