#!/usr/bin/env bash
# Creates the CodeAct Python environment in the cache (${BRAINLENS_CACHE:-~/.cache/brainlens}/codeact-venv)
# from the pinned lock file assets/python/codeact.lock (numpy, scipy, pandas, matplotlib, scikit-learn, mne,
# yasa, pyedflib, edfio, wfdb and their dependencies). Idempotent: a venv that matches the lock is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE=${BRAINLENS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/brainlens}
VENV="$CACHE/codeact-venv"
LOCK=assets/python/codeact.lock
STAMP="$VENV/.lock-sha256"
WANT=$(sha256sum "$LOCK" | cut -d' ' -f1)
if [ -x "$VENV/bin/python" ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$WANT" ]; then
    echo "CodeAct environment up to date: $VENV"
    exit 0
fi
rm -rf "$VENV"
python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$LOCK"
"$VENV/bin/python" -c "import numpy, scipy, pandas, matplotlib, sklearn, mne, yasa, pyedflib, edfio, wfdb"
echo "$WANT" > "$STAMP"
echo "CodeAct environment ready: $VENV"
