# Sourced by the scripts that run for hours (real_demo.sh, cohort_ablations.sh): builds, then sets BIN to a
# copy of the release binary and BRAINLENS_DATA to a copy of assets/ (prompts, task files, the kernel's
# driver), both under WORK/runner-COMMIT, so a build or an edit while the runs go on changes neither their
# Slurm shards, a resubmitted shard, nor the merge. One copy per commit of the sources (COMMIT: the last one
# that changed them); a tree with uncommitted changes to the sources gets a copy of its own each time. The
# calling script itself is not copied: bash reads a script as it runs it, so an edit to a running one changes
# what it does next (stop it first; the jobs go on).
#   WORK=target/... ; . scripts/bench/runner_snapshot.sh
cargo build --release --quiet --bin brainlens
# Named by the last commit that changed what the copy holds, so commits of docs or scripts reuse it.
BUILT_FROM="src assets Cargo.toml Cargo.lock build.rs .cargo"
# shellcheck disable=SC2086
REV=$(git log -1 --format=%h -- $BUILT_FROM 2>/dev/null || true)
REV=${REV:-norev}
# shellcheck disable=SC2086
git diff --quiet HEAD -- $BUILT_FROM 2>/dev/null || REV="$REV-dirty-$(date +%s)"
RUNNER="$WORK/runner-$REV"
if [ ! -x "$RUNNER/brainlens" ]; then
    mkdir -p "$RUNNER" && cp -r assets "$RUNNER/" && cp target/release/brainlens "$RUNNER/"
fi
BIN="$RUNNER/brainlens"
export BRAINLENS_DATA="$PWD/$RUNNER"
