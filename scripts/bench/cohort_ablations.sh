#!/usr/bin/env bash
# BrainAgent's ablations on ABIDE (the evaluation cohort), the configuration fixed for it before its run
# (docs/networks.md): `agent eval --task asd --method brainagent --card-first --card-query template --subset 60`
# with Qwen2.5-Coder-1.5B, each ablation (--no-understanding, --no-hark, --no-card) as 2 Slurm shards on the
# local cluster (started when `sbatch` is missing), one CPU each; submitted one after the other, so they queue.
# --no-card drops CARD's two settings with CARD.
# --no-reflection needs no run of its own: at temperature 0 every step before reflection is the full method's,
# so its labels are the full run's labels before reflection (`agent report` shows them).
#   scripts/bench/cohort_ablations.sh [--ablations no-understanding,no-hark,no-card] [--full] [--status]
# --status: each run's shards, then the merged runs' metrics side by side (`agent report`).
# --full also reruns the full method. About 2 h of both cores per run here (median 235 s a subject at 87f9a13).
# Resumable: a run whose folder has jobs.json resubmits only its missing shards; a merged run is not run again.
set -euo pipefail
cd "$(dirname "$0")/../.."
ABLATIONS="no-understanding,no-hark,no-card"
FULL=0
STATUS=0
while [ $# -gt 0 ]; do
    case "$1" in
        --ablations) ABLATIONS="$2"; shift 2 ;;
        --full) FULL=1; shift ;;
        --status) STATUS=1; shift ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
WORK=target/cohort-eval
mkdir -p "$WORK"
. scripts/bench/runner_snapshot.sh
COHORTS="${BRAINLENS_COHORTS:-${XDG_CACHE_HOME:-$HOME/.cache}/brainlens-cohorts}"
../shared/data/cohorts/unpack.sh "$COHORTS" >/dev/null
[ -f "$WORK/abide.npz" ] || "$BIN" cohort import "$COHORTS/abide_pcp_aal" --out "$WORK/abide.npz" >/dev/null \
    2>"$WORK/import.log" || { cat "$WORK/import.log" >&2; exit 1; }
QWEN="${BRAINLENS_CACHE:-$HOME/.cache/brainlens}/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
if ! command -v sbatch >/dev/null || ! scontrol ping 2>/dev/null | grep -q UP; then
    export BRAINLENS_SLURM_DIR="${BRAINLENS_SLURM_DIR:-$PWD/target/slurm-cluster}"
    scripts/slurm/local-cluster.sh start >"$WORK/slurm-start.log" 2>&1
    eval "$(scripts/slurm/local-cluster.sh env)"
fi
export RAYON_NUM_THREADS=1
IFS=, read -ra RUNS <<<"$ABLATIONS"
merged=()
[ "$FULL" = 1 ] && RUNS=(full "${RUNS[@]}")
for a in "${RUNS[@]}"; do
    # CARD's settings go with CARD: the no-card ablation has neither (agent eval refuses them together).
    card="--card-first --card-query template"
    case "$a" in
        full) flag="$card" ;;
        no-understanding | no-hark) flag="$card --$a" ;;
        no-card) flag="--no-card" ;;
        *) echo "unknown ablation $a (no-understanding, no-hark, no-card)" >&2; exit 2 ;;
    esac
    dir="$WORK/abide_brainagent_${a}"
    if [ "$STATUS" = 1 ]; then
        echo "== $a"; "$BIN" agent slurm --status "$dir" 2>&1 | tail -n 3 || true
        [ ! -f "$dir/run.jsonl" ] || merged+=("$dir/run.jsonl")
    elif [ -f "$dir/run.jsonl" ]; then
        echo "$a: merged before ($dir)"
    elif [ -f "$dir/jobs.json" ]; then
        "$BIN" agent slurm --resubmit-missing "$dir" || true
    else
        # shellcheck disable=SC2086
        "$BIN" agent slurm "$WORK/abide.npz" --shards 2 --out-dir "$dir" --submit --time 24:00:00 --cpus 1 --mem 6G \
            -- --task asd --method brainagent --subset 60 $flag \
            --provider local --model-path "$QWEN"
    fi
done
if [ "$STATUS" = 1 ] && [ ${#merged[@]} -gt 0 ]; then
    "$BIN" agent report "${merged[@]}"
fi
