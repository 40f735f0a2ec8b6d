"""Three result files of one suite side by side, instance by instance: each one's normalised score (0-1), the
step kinds the hybrid used, where the hybrid wins or loses against each of the other two, and the median
seconds per instance (the target's model time and the instance's whole time). Standard library only.
    python3 scripts/bench/paradigms_side_by_side.py HYBRID.json[,SHARD2.json…] BRAINAGENT.json CODEACT.json [--only-done]
Several files for the first (comma-separated) are pooled: the shard files of a run still going or stopped.
--only-done compares only the instances the hybrid files hold."""
import json
import statistics
import sys


def load(paths):
    out, r = {}, None
    for path in paths.split(","):
        r = json.load(open(path))
        out.update(instances(r))
    return r, out


def instances(r):
    out = {}
    for i in r["instances"]:
        score = i["total_score"] / i["max_score"] if i.get("max_score") else 0.0
        out[i["instance_id"]] = (score, i)
    return out


def kinds(i):
    trace = i.get("sandbox", {}).get("trace", {}) or {}
    tool = code = False
    for r in trace.get("rounds", []):
        for s in r.get("executed", []) or []:
            if s.get("status") in ("ok", "failed"):
                if s.get("kind") == "code":
                    code = True
                else:
                    tool = True
    return {(True, True): "tool+code", (True, False): "tool", (False, True): "code"}.get((tool, code), "none")


def main(argv):
    only_done = "--only-done" in argv
    paths = [a for a in argv if not a.startswith("--")]
    (_, h), (_, b), (_, c) = (load(p) for p in paths)
    ids = sorted(h) if only_done else sorted(set(h) | set(b) | set(c))
    print(f"{'instance':48} hybrid brainagent codeact kinds   vs BA  vs CA")
    wins = {"ba": [], "ca": []}
    losses = {"ba": [], "ca": []}
    for k in ids:
        hs = h.get(k, (0.0, {}))[0]
        bs = b.get(k, (0.0, {}))[0]
        cs = c.get(k, (0.0, {}))[0]
        kd = kinds(h[k][1]) if k in h else "-"
        vb = "win" if hs > bs else ("loss" if hs < bs else "")
        vc = "win" if hs > cs else ("loss" if hs < cs else "")
        for tag, v in (("ba", vb), ("ca", vc)):
            if v == "win":
                wins[tag].append(k)
            elif v == "loss":
                losses[tag].append(k)
        print(f"{k:48} {hs:6.2f} {bs:10.2f} {cs:7.2f} {kd:8} {vb:5} {vc:5}")
    n = len(ids)
    mean = lambda d: sum(d.get(k, (0.0, {}))[0] for k in ids) / max(n, 1) * 100
    print(f"\n{n} instances; mean normalised score (unweighted): hybrid {mean(h):.2f}, BrainAgent {mean(b):.2f}, "
          f"CodeAct {mean(c):.2f}")
    for tag, name in (("ba", "BrainAgent"), ("ca", "CodeAct")):
        print(f"against {name}: {len(wins[tag])} won ({', '.join(wins[tag]) or '-'}); "
              f"{len(losses[tag])} lost ({', '.join(losses[tag]) or '-'})")
    counts = {}
    for k in ids:
        if k in h:
            counts[kinds(h[k][1])] = counts.get(kinds(h[k][1]), 0) + 1
    print("hybrid step kinds:", ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    for name, d in (("hybrid", h), ("BrainAgent", b), ("CodeAct", c)):
        tot = [d[k][1]["timing_sec"].get("total", 0.0) for k in ids if k in d]
        tgt = [d[k][1]["timing_sec"].get("target", 0.0) for k in ids if k in d]
        if tot:
            print(f"{name}: median s / instance {statistics.median(tot):.0f} (target model {statistics.median(tgt):.0f})")


if __name__ == "__main__":
    main(sys.argv[1:])
