#!/usr/bin/env bash
# Leave-site-out on a cohort file (`brainlens cohort import`): for every site, `agent eval --cohort FILE
# --hold-out-site SITE --method M` (the site's subjects tested, the other sites' remembered), then the accuracy
# over all held-out subjects and per site. Release build; methods without a language model by default.
#   scripts/bench/cohort_leave_site_out.sh COHORT.npz TASK [METHOD...]   (default: majority evidence-knn)
set -euo pipefail
cd "$(dirname "$0")/../.."
COHORT="$1"; TASK="$2"; shift 2
[ $# -gt 0 ] && METHODS=("$@") || METHODS=(majority evidence-knn)
cargo build --release --quiet --bin brainlens
OUT="target/cohort-eval/lso-$(basename "$COHORT" .npz)"
mkdir -p "$OUT"
mapfile -t SITES < <(target/release/brainlens cohort show "$COHORT" --json | python3 -c \
    'import json,sys; print("\n".join(sorted({s["site"] for s in json.load(sys.stdin)["subjects"]})))')
for m in "${METHODS[@]}"; do
    for s in "${SITES[@]}"; do
        target/release/brainlens agent eval --task "$TASK" --cohort "$COHORT" --hold-out-site "$s" --method "$m" \
            --cases 5 --out "$OUT/${m}_$s.jsonl" >/dev/null 2>&1
    done
    python3 - "$m" "$OUT" "${SITES[@]}" <<'PY'
import json, sys
m, out, sites = sys.argv[1], sys.argv[2], sys.argv[3:]
right = total = 0
per = []
for s in sites:
    recs = [json.loads(l) for l in open(f"{out}/{m}_{s}.jsonl").read().splitlines()[1:]]
    ok = sum(r["label"] == r["truth"] for r in recs)
    right, total = right + ok, total + len(recs)
    per.append(f"{s} {ok / len(recs):.2f} (n={len(recs)})")
print(f"{m}: leave-site-out accuracy {right / total:.3f} over {total} subjects, {len(sites)} sites")
print("  per site: " + ", ".join(per))
PY
done
