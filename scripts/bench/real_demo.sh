#!/usr/bin/env bash
# Runs the local BrainBench suite with real models, each run as Slurm shards on the local cluster, and
# collects the merged result files as the Bench room's first view (fixtures/bench/real/, with a README that
# says which model, suite, options and day produced each file).
#   scripts/bench/real_demo.sh [--runs NAME,...] [--shards 2] [--limit N] [--out DIR]
# Runs (NAME = model_paradigm[_report]):
#   qwen_brainagent        Qwen2.5-Coder-1.5B-Instruct, BrainAgent (EEG), report "system" (model text + measured results)
#   qwen_brainagent_model  the same with report "model" (the model's text alone, as CodeAct's)
#   qwen_codeact           Qwen2.5-Coder-1.5B-Instruct, CodeAct (sandboxed Python kernel)
#   smollm2_brainagent     SmolLM2-135M-Instruct, BrainAgent (EEG)
#   smollm2_codeact        SmolLM2-135M-Instruct, CodeAct
# (default: all five). The suite is `bench generate --seed 11` (54 instances) in target/bench-real/suite.
# Needs the models (scripts/fetch_models.sh), the CodeAct environment (scripts/setup_python.sh) and a
# Slurm cluster: the local one is started when `sbatch` is missing (scripts/slurm/local-cluster.sh, root).
# Resumable: a shard resumes its own file; a finished run is not run again (delete its folder to redo it).
# CPU budget (2 cores, measured): see docs/bench.md "A real demo".
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS="smollm2_brainagent,qwen_brainagent,qwen_codeact,smollm2_codeact,qwen_brainagent_model"
SHARDS=2
LIMIT=""
OUT=fixtures/bench/real
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) RUNS="$2"; shift 2 ;;
        --shards) SHARDS="$2"; shift 2 ;;
        --limit) LIMIT="--limit $2"; shift 2 ;;
        --out) OUT="$2"; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
WORK=target/bench-real
# The runs use a copy of the binary and of assets/ taken now (the script says why).
. scripts/bench/runner_snapshot.sh
MODELS="${BRAINLENS_CACHE:-$HOME/.cache/brainlens}/models"
QWEN="$MODELS/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
SMOL="$MODELS/SmolLM2-135M-Instruct.Q4_1.gguf"
SUITE="$WORK/suite"
mkdir -p "$WORK" "$OUT"
[ -f "$SUITE/suite.json" ] || "$BIN" bench generate --out "$SUITE" --seed 11 >/dev/null
# A reachable Slurm controller, else the local one-node cluster (started if needed).
if ! command -v sbatch >/dev/null || ! scontrol ping 2>/dev/null | grep -q UP; then
    export BRAINLENS_SLURM_DIR="${BRAINLENS_SLURM_DIR:-$PWD/target/slurm-cluster}"
    scripts/slurm/local-cluster.sh start >"$WORK/slurm-start.log" 2>&1
    eval "$(scripts/slurm/local-cluster.sh env)"
fi
# One thread per shard: the shards share the cores.
export RAYON_NUM_THREADS=$(( $(nproc) / SHARDS > 0 ? $(nproc) / SHARDS : 1 ))
options() {
    local model=$1 paradigm=$2 report=${3:-system}
    # Planning rounds 6 (not 4): the 1.5B model plans about one step a round. CodeAct on a CPU: 8 rounds of
    # 512 tokens within a 20-minute deadline (the protocol's 20 x 768 would take an hour an instance here).
    case "$paradigm" in
        brainagent) echo "--paradigm brainagent --report $report --max-rounds 6 --deadline 1200" ;;
        codeact) echo "--paradigm codeact --codeact-rounds 8 --codeact-tokens 512 --deadline 1200" ;;
    esac
    echo "--provider local --model-path $model $LIMIT"
}
IFS=, read -ra NAMES <<<"$RUNS"
for name in "${NAMES[@]}"; do
    case "$name" in
        qwen_brainagent) opts=$(options "$QWEN" brainagent) ;;
        qwen_brainagent_model) opts=$(options "$QWEN" brainagent model) ;;
        qwen_codeact) opts=$(options "$QWEN" codeact) ;;
        smollm2_brainagent) opts=$(options "$SMOL" brainagent) ;;
        smollm2_codeact) opts=$(options "$SMOL" codeact) ;;
        *) echo "unknown run $name" >&2; exit 2 ;;
    esac
    dir="$WORK/$name"
    if [ -f "$dir/result.json" ]; then
        echo "$name: done before ($dir/result.json)"
    else
        if [ -f "$dir/jobs.json" ]; then
            "$BIN" bench slurm --resubmit-missing "$dir" || true
        else
            # shellcheck disable=SC2086
            "$BIN" bench slurm "$SUITE" --shards "$SHARDS" --out-dir "$dir" --submit --time 24:00:00 --cpus 1 --mem 6G -- $opts
        fi
        "$BIN" bench slurm --status "$dir" --watch >"$dir/status.log" 2>&1 || true
    fi
    [ -f "$dir/result.json" ] || { echo "$name: no merged result (see $dir/status.log)" >&2; exit 1; }
    # Rescored into place: the same scores (BrainBench's rules on the stored parser output), and the report's
    # claims checked with the current rules (docs/bench.md, the failure-case table).
    "$BIN" bench rescore "$dir/result.json" --cases "$SUITE" --out "$OUT/$name.json" >/dev/null
    "$BIN" bench report "$OUT/$name.json" | head -3
done
target/ref-venv/bin/python scripts/bench/real_demo_readme.py "$OUT" >"$OUT/README.md" 2>/dev/null \
    || python3 scripts/bench/real_demo_readme.py "$OUT" >"$OUT/README.md"
echo "wrote $OUT/README.md"
