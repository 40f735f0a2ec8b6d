#!/usr/bin/env bash
# The methods that need no language model on both cohorts, the paper's seeded 80/20 label-stratified split
# (seed 0), release build: the supervised baselines `--method majority` (the training split's most common
# label) and `--method logistic` (L2 logistic regression on the Fisher-z upper triangle, C by 5-fold CV on the
# training split), and `--method evidence-knn` (CARD's five nearest training cases vote), via `agent eval --cohort`. Prints
# each metrics table, CARD's retrieval precision@5 (share of the five retrieved training cases with the test
# subject's label) beside the rate a random training case would reach (Σ p_label² over the training split),
# and accuracy per site. ADHD-200 is the development cohort, ABIDE the evaluation cohort (nothing here is
# tuned to it). The cohorts are unpacked outside the repository (../shared/data/cohorts/unpack.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
COHORTS="${BRAINLENS_COHORTS:-${XDG_CACHE_HOME:-$HOME/.cache}/brainlens-cohorts}"
../shared/data/cohorts/unpack.sh "$COHORTS" >/dev/null
cargo build --release --quiet --bin brainlens
OUT=target/cohort-eval
mkdir -p "$OUT"
for c in adhd:adhd200_aal abide:abide_pcp_aal; do
    name="${c%%:*}"; dir="${c#*:}"; task=$([ "$name" = abide ] && echo asd || echo adhd)
    target/release/brainlens cohort import "$COHORTS/$dir" --out "$OUT/$name.npz" >/dev/null 2>&1
    echo "== $name ($dir), task $task"
    for m in majority logistic evidence-knn; do
        rm -f "$OUT/${name}_$m.jsonl"
        target/release/brainlens agent eval --task "$task" --cohort "$OUT/$name.npz" --method "$m" --cases 5 \
            --out "$OUT/${name}_$m.jsonl" 2>/dev/null | sed -n '1,2p;/confusion/,/^$/p'
    done
    target/ref-venv/bin/python - "$OUT/$name.npz" "$OUT/${name}_evidence-knn.jsonl" "$OUT/${name}_majority.jsonl" <<'PY'
import json, sys
from collections import Counter, defaultdict
import numpy as np
c = np.load(sys.argv[1])
site = dict(zip(c["subject_ids"], c["site"]))
runs = {}
for path in sys.argv[2:]:
    lines = open(path).read().splitlines()
    header, recs = json.loads(lines[0]), [json.loads(l) for l in lines[1:]]
    runs[header["method"]] = recs
knn = runs["evidence-knn"]
test = {r["sample"] for r in knn}
train = [l for i, l in zip(c["subject_ids"], c["labels"]) if i not in test]
share = Counter(train)
chance = sum((n / len(train)) ** 2 for n in share.values())
hits = [(h["label"] == r["truth"]) for r in knn for h in r["trace"]["rounds"][0]["data"]["hits"] if h.get("chosen")]
print(f"CARD precision@5: {np.mean(hits):.3f} over {len(hits)} retrieved cases; a random training case: {chance:.3f}")
for method, recs in runs.items():
    by = defaultdict(list)
    for r in recs:
        by[site[r["sample"]]].append(r["label"] == r["truth"])
    print(f"{method} accuracy per site: " + ", ".join(f"{s} {np.mean(v):.2f} (n={len(v)})" for s, v in sorted(by.items())))
PY
done
