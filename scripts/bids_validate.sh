#!/usr/bin/env bash
# Exports recordings of every kind into one BIDS dataset with `brainlens bids export` (EDF+ from an EDF file,
# BDF+ from a Neuroscan CNT, BrainVision from an EEGLAB set, with sessions and runs) and runs the official
# bids-validator (npm, pinned) on it: 0 errors required. Usage: scripts/bids_validate.sh target/debug/brainlens
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="$1"
VAL=target/bids-validator
if [ ! -x "$VAL/node_modules/.bin/bids-validator" ]; then
    mkdir -p "$VAL"
    (cd "$VAL" && npm install --silent --no-audit --no-fund bids-validator@1.15.0 >/dev/null)
fi
OUT=target/bids-export
rm -rf "$OUT"
F=../shared/data/formats
"$BIN" bids export fixtures/eeg/mne_sample_eeg60.edf --out "$OUT" --subject 01 --session 1 --task audvis --line-freq 60 >/dev/null
"$BIN" bids export fixtures/eeg/mne_sample_eeg60.edf --out "$OUT" --subject 01 --session 2 --task audvis --run 1 --format vhdr >/dev/null
"$BIN" bids export "$F/scan41_short.cnt" --cnt-format int16 --out "$OUT" --subject 02 --session 1 --task audvis >/dev/null
"$BIN" bids export "$F/test_raw_chanloc.set" --out "$OUT" --subject 02 --session 2 --task audvis --run 1 --format vhdr >/dev/null
"$VAL/node_modules/.bin/bids-validator" "$OUT" --json 2>/dev/null >target/bids-validator.json || true
python3 - <<'PY'
import json, sys
d = json.load(open("target/bids-validator.json"))
errors, warnings = d["issues"]["errors"], d["issues"]["warnings"]
for e in errors:
    print("BIDS ERROR", e["key"], e["reason"], [f.get("file", {}).get("relativePath") for f in e.get("files", [])][:3])
print(f"BIDS: bids-validator 1.15.0 on an exported dataset (EDF+, BDF+ and BrainVision data): {len(errors)} errors, "
      f"{len(warnings)} warnings ({', '.join(w['key'] for w in warnings)})")
sys.exit(1 if errors else 0)
PY
# It re-opens: the listing finds every recording.
[ "$("$BIN" bids ls "$OUT" | wc -l)" = 4 ] || { echo "bids ls: expected 4 recordings" >&2; exit 1; }
