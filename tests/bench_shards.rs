//! Sharded runs: 4 shards (`bench run --shard i/4`, replayed) merged with `bench merge` equal the unsharded
//! result instance by instance; merge refuses missing, duplicate and foreign shards; `bench slurm` writes a job
//! array + dependent merge whose scripts, run here task by task with SLURM_ARRAY_TASK_ID set (no Slurm
//! daemons on this machine), produce the same result with the instances dealt out evenly.

mod common;

use brainlens::bench::results::ResultFile;
use common::same;
use std::path::Path;

/// `bench run SUITE --shard SPEC … --out OUT`, replayed from `t`, with `extra` options.
fn shard_run(s: &Path, t: &Path, out: &Path, spec: &str, extra: &[&str]) -> (i32, String, String) {
    let mut args =
        vec!["bench", "run", s.to_str().unwrap(), "--provider", "replay", "--transcript", t.to_str().unwrap()];
    args.extend(["--shard", spec, "--out", out.to_str().unwrap()]);
    args.extend(extra);
    common::run(&args)
}

fn shard(s: &Path, t: &Path, out: &Path, k: usize) {
    let (code, _, err) = shard_run(s, t, out, &format!("{k}/4"), &[]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn four_shards_merged_equal_the_unsharded_run_and_slurm_scripts_do_the_same() {
    let d = tempfile::tempdir().unwrap();
    let (s, t) = (common::recorded::suite(d.path()), d.path().join("t.jsonl"));
    let full = common::recorded::record(&s, &t, &d.path().join("full.json"), None);
    let paths: Vec<_> = (1..=4).map(|k| d.path().join(format!("shard-{k}.json"))).collect();
    let mut sizes = Vec::new();
    for (k, p) in paths.iter().enumerate() {
        shard(&s, &t, p, k + 1);
        sizes.push(ResultFile::load(p).unwrap().instances.len());
    }
    assert_eq!(sizes.iter().sum::<usize>(), full.instances.len());
    assert!(sizes.iter().all(|&n| n > 0), "{sizes:?}");
    let merged = d.path().join("merged.json");
    let p: Vec<&str> = paths.iter().map(|p| p.to_str().unwrap()).collect();
    let mut args = vec!["bench", "merge"];
    args.extend(&p);
    args.extend(["--out", merged.to_str().unwrap(), "--json"]);
    let v = common::json(&args);
    let merged = ResultFile::load(&merged).unwrap();
    same(&merged, &full);
    assert_eq!(v["summary"]["total_score"], full.summary["total_score"]);
    assert_eq!(merged.experiment["shards"], 4);
    // Missing, duplicate and foreign shards are refused with the reason.
    let fail = |files: &[&str], want: &str| {
        let mut a = vec!["bench", "merge"];
        a.extend(files);
        a.extend(["--out", "/dev/null"]);
        let (code, _, err) = common::run(&a);
        assert_eq!(code, 1);
        assert!(err.contains(want), "{want}: {err}");
    };
    fail(&p[..3], "missing");
    fail(&[p[0], p[0], p[1], p[2], p[3]], "twice");
    fail(&[d.path().join("full.json").to_str().unwrap()], "not a shard");
    // Slurm: the array script per task, then the merge script, as Slurm would run them.
    let dir = d.path().join("slurm");
    let (code, out, err) = common::run(&[
        "bench",
        "slurm",
        s.to_str().unwrap(),
        "--shards",
        "4",
        "--out-dir",
        dir.to_str().unwrap(),
        "--partition",
        "cpu",
        "--",
        "--provider",
        "replay",
        "--transcript",
        t.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("submit.sh"));
    let array = std::fs::read_to_string(dir.join("run_shards.sbatch")).unwrap();
    assert!(
        array.contains("#SBATCH --array=1-4")
            && array.contains("#SBATCH --partition=cpu")
            && array.contains("--resume"),
        "{array}"
    );
    let submit = std::fs::read_to_string(dir.join("submit.sh")).unwrap();
    assert!(submit.contains("--dependency=afterok:"), "{submit}");
    common::run_slurm_scripts(&dir, 4);
    same(&ResultFile::load(&dir.join("result.json")).unwrap(), &full);
    // The scripts deal the instances out in turn: no two shards differ by more than one (hashing gave the
    // sizes above), and each file says so.
    let slurm: Vec<_> = (1..=4).map(|k| ResultFile::load(&dir.join(format!("shard-{k}.json"))).unwrap()).collect();
    let dealt: Vec<usize> = slurm.iter().map(|f| f.instances.len()).collect();
    assert!(dealt.iter().max().unwrap() - dealt.iter().min().unwrap() <= 1, "{dealt:?} (hashed: {sizes:?})");
    assert!(slurm.iter().all(|f| f.experiment["shard"]["order"] == "dealt"));
    // A hashed shard among dealt ones is refused, and so is resuming a dealt file by hash.
    let one = dir.join("shard-1.json");
    fail(&[p[0], dir.join("shard-2.json").to_str().unwrap()], "assigned by");
    let (code, _, err) = shard_run(&s, &t, &one, "1/4", &["--resume"]);
    assert_eq!(code, 1);
    assert!(err.contains("assigned by dealt, not hash: give --shard-order dealt"), "{err}");
    // Run options that the scripts set per shard are refused.
    let (code, _, err) = common::run(&[
        "bench",
        "slurm",
        s.to_str().unwrap(),
        "--shards",
        "2",
        "--out-dir",
        dir.to_str().unwrap(),
        "--",
        "--out",
        "x.json",
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("--out"), "{err}");
}

#[test]
fn submitting_without_slurm_commands_says_so_and_still_writes_the_scripts() {
    let d = tempfile::tempdir().unwrap();
    let s = common::recorded::suite(d.path());
    let dir = d.path().join("slurm");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_brainlens"))
        .args(["bench", "slurm", s.to_str().unwrap(), "--shards", "2", "--out-dir", dir.to_str().unwrap(), "--submit"])
        .env("PATH", d.path().join("no-such-bin"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("sbatch is not on PATH") && err.contains("submit.sh"), "{err}");
    assert!(dir.join("run_shards.sbatch").is_file() && !dir.join("jobs.json").exists());
}
