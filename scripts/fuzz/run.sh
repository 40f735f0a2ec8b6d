#!/usr/bin/env bash
# Runs fuzz targets for a number of executions each and prints a table: target, executions, seconds, crashes.
#   scripts/fuzz/run.sh [--runs N] [--max-time S] [--max-len B] [TARGET...]
# (default: every target, 10,000,000 runs each, no time limit, inputs up to 8 KB: long enough for every
# header and a few records or tags, short enough for thousands of executions a second)
# On two cores, two invocations with half the targets each use both.
# Needs the nightly toolchain and cargo-fuzz (cargo install cargo-fuzz). Seeds come from ../shared/data
# (scripts/fuzz/seeds.py, into target/fuzz-seeds; never committed); the corpus grows in target/fuzz-corpus.
# Built with debug assertions (overflow checks) and without a sanitizer: the readers are safe Rust, and the
# sanitizer would cost most of the executions. A crash leaves its input in fuzz/artifacts/TARGET/.
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=10000000
MAX_TIME=0
MAX_LEN=8192
TARGETS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) RUNS="$2"; shift 2 ;;
        --max-time) MAX_TIME="$2"; shift 2 ;;
        --max-len) MAX_LEN="$2"; shift 2 ;;
        *) TARGETS+=("$1"); shift ;;
    esac
done
[ ${#TARGETS[@]} -gt 0 ] || mapfile -t TARGETS < <(cd fuzz && cargo +nightly fuzz list)
[ -d target/fuzz-seeds ] || target/ref-venv/bin/python scripts/fuzz/seeds.py target/fuzz-seeds >/dev/null
# Built once, then each target's libFuzzer binary is run directly: `cargo fuzz run TARGET` rebuilt the whole
# crate for every target (about 7 minutes each here, measured; its build settings differ from `fuzz build`'s).
(cd fuzz && cargo +nightly fuzz build -O -a -s none >/dev/null)
BIN="fuzz/target/$(rustc +nightly -vV | sed -n 's/^host: //p')/release"
# The targets write their input to a temporary file: in memory, not on disk.
export TMPDIR=/dev/shm
mkdir -p target/fuzz-logs
printf '%-26s %12s %9s %8s\n' target executions seconds crashes
for t in "${TARGETS[@]}"; do
    mkdir -p "target/fuzz-corpus/$t"
    seeds="target/fuzz-seeds/$t"
    [ -d "$seeds" ] || seeds=""
    start=$(date +%s)
    rc=0
    mkdir -p "fuzz/artifacts/$t"
    "$BIN/$t" "target/fuzz-corpus/$t" ${seeds:+"$seeds"} -artifact_prefix="fuzz/artifacts/$t/" \
        -runs="$RUNS" -max_total_time="$MAX_TIME" -max_len="$MAX_LEN" -rss_limit_mb=4096 -timeout=20 \
        -print_final_stats=1 \
        >"target/fuzz-logs/$t.log" 2>&1 || rc=$?
    secs=$(( $(date +%s) - start ))
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "target/fuzz-logs/$t.log" | awk '{s+=$2} END {print s+0}')
    crashes=$(ls "fuzz/artifacts/$t" 2>/dev/null | grep -c -E '^(crash|oom|timeout|leak)-' || true)
    printf '%-26s %12s %9s %8s%s\n' "$t" "$execs" "$secs" "$crashes" "$([ $rc = 0 ] || echo "  (exit $rc: target/fuzz-logs/$t.log)")"
done
