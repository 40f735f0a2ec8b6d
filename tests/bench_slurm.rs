//! `bench slurm --submit / --status / --resubmit-missing` on a real Slurm: the one-node cluster of
//! `scripts/slurm/local-cluster.sh` (munged, slurmdbd, slurmctld, slurmd). Ignored by default because it
//! needs those daemons; `scripts/test.sh` starts the cluster and runs it with `--ignored` (and prints why
//! when the cluster cannot start here). SLURM_CONF must point at the cluster.
//!
//! The local suite (54 instances) is replayed from a scripted transcript as a 4-task array; the merged file
//! must equal the unsharded run instance by instance, the tasks must be COMPLETED in sacct and the merge must
//! start after the last of them ended. Then a task is cancelled mid-run, `--resubmit-missing` reruns only that
//! shard (resuming its file) and a new merge, and the final file is again equal.

mod common;

use brainlens::bench::results::ResultFile;
use common::{recorded, same};
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

fn slurm_cmd(args: &[&str]) -> String {
    let out = Command::new(args[0]).args(&args[1..]).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn brainlens(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_brainlens")).args(args).envs(env.iter().copied()).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn status(dir: &Path) -> Value {
    let (code, out, err) = brainlens(&["bench", "slurm", "--status", dir.to_str().unwrap(), "--json"], &[]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

/// Polls `--status` until `done` holds (at most `secs`).
fn wait(dir: &Path, secs: u64, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let t0 = Instant::now();
    loop {
        let s = status(dir);
        if done(&s) {
            return s;
        }
        assert!(t0.elapsed() < Duration::from_secs(secs), "timed out waiting for {what}: {s:#}");
        std::thread::sleep(Duration::from_millis(500));
    }
}

fn merged(s: &Value) -> bool {
    s["merge_state"] == "COMPLETED"
}

fn submit(suite: &Path, t: &Path, dir: &Path, extra: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut args = vec![
        "bench",
        "slurm",
        suite.to_str().unwrap(),
        "--shards",
        "4",
        "--out-dir",
        dir.to_str().unwrap(),
        "--submit",
        "--cpus",
        "1",
        "--mem",
        "1G",
        "--time",
        "00:10:00",
    ];
    args.extend(extra);
    args.extend(["--", "--provider", "replay", "--transcript", t.to_str().unwrap()]);
    brainlens(&args, env)
}

/// sacct's `State|Start|End` of every allocation of `jobs` (comma-separated ids).
fn sacct(jobs: &str) -> Vec<(String, String, String, String)> {
    slurm_cmd(&["sacct", "-n", "-P", "-X", "--format=JobID,State,Start,End", "-j", jobs])
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split('|').collect();
            (f[0].into(), f[1].into(), f[2].into(), f[3].into())
        })
        .collect()
}

#[test]
#[ignore = "needs a running Slurm (scripts/slurm/local-cluster.sh start; scripts/test.sh runs it)"]
fn a_four_task_array_on_real_slurm_equals_the_unsharded_run_and_a_cancelled_shard_is_recovered() {
    assert!(std::env::var_os("SLURM_CONF").is_some(), "SLURM_CONF is not set: start scripts/slurm/local-cluster.sh");
    let idle = slurm_cmd(&["sinfo", "-h", "-o", "%T"]);
    assert!(idle.lines().any(|l| matches!(l.trim(), "idle" | "mixed" | "allocated")), "the node is not up: {idle}");
    // The one-node cluster runs the jobs on this machine, so the test's temporary folder serves as the
    // shared filesystem a real cluster needs.
    let d = tempfile::tempdir().unwrap();
    let (s, t) = (recorded::suite(d.path()), d.path().join("t.jsonl"));
    let full = recorded::record(&s, &t, &d.path().join("full.json"), None);
    assert_eq!(full.instances.len(), 54);

    // 1. The whole array, then the merge.
    let dir = d.path().join("s4");
    let (code, out, err) = submit(&s, &t, &dir, &[], &[]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("job array"), "{out}");
    let st = wait(&dir, 240, "the merge", merged);
    assert_eq!(st["done"], 54, "{st:#}");
    let array = st["shards"][0]["job"].as_str().unwrap().split('_').next().unwrap().to_string();
    let merge = st["merge_job"].as_str().unwrap().to_string();
    // slurmdbd records the jobs, and their final states, a moment after they end.
    let t0 = Instant::now();
    let rows = loop {
        let rows = sacct(&format!("{array},{merge}"));
        let recorded = rows.len() == 5 && rows.iter().all(|r| brainlens::harness::slurm::commands::is_terminal(&r.1));
        if recorded || t0.elapsed() > Duration::from_secs(60) {
            break rows;
        }
        std::thread::sleep(Duration::from_millis(500));
    };
    let tasks: Vec<_> = rows.iter().filter(|r| r.0.starts_with(&format!("{array}_"))).collect();
    assert_eq!(tasks.len(), 4, "{rows:?}");
    assert!(tasks.iter().all(|r| r.1 == "COMPLETED"), "{rows:?}");
    let merge_row = rows.iter().find(|r| r.0 == merge).expect("the merge job in sacct");
    assert_eq!(merge_row.1, "COMPLETED");
    let last_end = tasks.iter().map(|r| r.3.clone()).max().unwrap();
    assert!(merge_row.2 >= last_end, "the merge started at {} before a task ended at {last_end}", merge_row.2);
    same(&ResultFile::load(&dir.join("result.json")).unwrap(), &full);

    // 2. Errors, with nothing finished lost: a partition that does not exist, another suite's folder.
    let before: Vec<Vec<u8>> = (1..=4).map(|i| std::fs::read(dir.join(format!("shard-{i}.json"))).unwrap()).collect();
    let (code, _, err) = submit(&s, &t, &dir, &["--partition", "nosuch"], &[]);
    assert_eq!(code, 1);
    assert!(err.contains("sbatch failed") && err.contains("partition"), "{err}");
    assert!(!std::fs::read_to_string(dir.join("run_shards.sbatch")).unwrap().contains("nosuch"));
    let other = d.path().join("other-suite");
    common::json(&["bench", "generate", "--out", other.to_str().unwrap(), "--json"]);
    let (code, _, err) = submit(&other, &t, &dir, &[], &[]);
    assert_eq!(code, 1);
    assert!(err.contains("holds shards of") && err.contains("nothing was changed"), "{err}");
    let after: Vec<Vec<u8>> = (1..=4).map(|i| std::fs::read(dir.join(format!("shard-{i}.json"))).unwrap()).collect();
    assert_eq!(before, after, "a refused submission changed a finished shard file");

    // 3. A task cancelled mid-run (every model call delayed so that it is still running), then only it
    //    resubmitted: it resumes its file, and a new merge runs after it.
    let dir2 = d.path().join("s4-cancel");
    let (code, _, err) = submit(&s, &t, &dir2, &[], &[("BRAINLENS_REPLAY_DELAY_MS", "150")]);
    assert_eq!(code, 0, "{err}");
    // While its tasks are pending or running, neither a new submission nor a resubmission is taken.
    let (code, _, err) = submit(&s, &t, &dir2, &[], &[]);
    assert_eq!(code, 1);
    assert!(err.contains("still pending or running") && err.contains("nothing was submitted"), "{err}");
    let (code, _, err) = brainlens(&["bench", "slurm", "--resubmit-missing", dir2.to_str().unwrap()], &[]);
    assert_eq!(code, 1);
    assert!(err.contains("is still") && err.contains("scancel"), "{err}");
    // The shard with the most instances, once it has written some but not all.
    let st = status(&dir2);
    let big = (0..4).max_by_key(|&k| st["shards"][k]["expected"].as_u64().unwrap()).unwrap();
    let st = wait(&dir2, 240, "a running shard with some instances", |s| {
        let sh = &s["shards"][big];
        sh["state"] == "RUNNING" && sh["done"].as_u64().unwrap() >= 1
    });
    let job = st["shards"][big]["job"].as_str().unwrap().to_string();
    slurm_cmd(&["scancel", &job]);
    let st = wait(&dir2, 240, "the other shards to end", |s| {
        (0..4).all(|k| brainlens::harness::slurm::commands::is_terminal(s["shards"][k]["state"].as_str().unwrap()))
    });
    assert_eq!(st["shards"][big]["state"], "CANCELLED", "{st:#}");
    let kept = st["shards"][big]["done"].as_u64().unwrap();
    assert!(kept >= 1 && kept < st["shards"][big]["expected"].as_u64().unwrap(), "{st:#}");
    let text = brainlens(&["bench", "slurm", "--status", dir2.to_str().unwrap()], &[]).1;
    assert!(text.contains("--resubmit-missing"), "{text}");
    let (code, out, err) = brainlens(
        &["bench", "slurm", "--resubmit-missing", dir2.to_str().unwrap()],
        &[("BRAINLENS_REPLAY_DELAY_MS", "0")],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&format!("[{}]", big + 1)), "only the cancelled shard is resubmitted: {out}");
    let st = wait(&dir2, 240, "the new merge", merged);
    assert_eq!(st["done"], 54);
    same(&ResultFile::load(&dir2.join("result.json")).unwrap(), &full);
    let (_, out, _) = brainlens(&["bench", "slurm", "--resubmit-missing", dir2.to_str().unwrap()], &[]);
    assert!(out.contains("nothing to resubmit"), "{out}");
}

#[test]
#[ignore = "needs a running Slurm (scripts/slurm/local-cluster.sh start; scripts/test.sh runs it)"]
fn an_agent_evaluation_runs_as_a_slurm_array_and_merges_into_the_unsharded_run() {
    assert!(std::env::var_os("SLURM_CONF").is_some(), "SLURM_CONF is not set: start scripts/slurm/local-cluster.sh");
    let Some(root) = common::cohorts() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let cohort = common::adhd_cohort(&root, tmp.path(), "adhd40", 14, 40);
    let eval = ["--task", "adhd", "--method", "logistic"];
    let whole = tmp.path().join("whole.jsonl");
    let (code, _, err) = brainlens(
        &[&["agent", "eval", "--cohort", cohort.to_str().unwrap()][..], &eval, &["--out", whole.to_str().unwrap()]]
            .concat(),
        &[],
    );
    assert_eq!(code, 0, "{err}");
    let dir = tmp.path().join("slurm");
    let args = ["agent", "slurm", cohort.to_str().unwrap(), "--shards", "3", "--out-dir", dir.to_str().unwrap()];
    let opts = ["--submit", "--cpus", "1", "--mem", "1G", "--time", "00:10:00", "--"];
    let (code, out, err) = brainlens(&[&args[..], &opts, &eval].concat(), &[]);
    assert_eq!(code, 0, "{out}{err}");
    let st = |d: &Path| {
        let (code, out, err) = brainlens(&["agent", "slurm", "--status", d.to_str().unwrap(), "--json"], &[]);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str::<Value>(&out).unwrap()
    };
    let t0 = Instant::now();
    let s = loop {
        let s = st(&dir);
        if merged(&s) {
            break s;
        }
        assert!(t0.elapsed() < Duration::from_secs(600), "timed out: {s:#}");
        std::thread::sleep(Duration::from_millis(500));
    };
    // Every shard ran its share (the split counted by `agent slurm` itself) and the merge followed them.
    let shards = s["shards"].as_array().unwrap();
    assert_eq!(shards.len(), 3);
    assert!(shards.iter().all(|x| x["state"] == "COMPLETED" && x["done"] == x["expected"]), "{s:#}");
    assert_eq!(s["done"], s["expected"]);
    assert_eq!(
        common::run_essence(&dir.join("run.jsonl")),
        common::run_essence(&whole),
        "merged array = the unsharded evaluation"
    );
    // Resubmitting a complete evaluation does nothing.
    let (code, out, err) = brainlens(&["agent", "slurm", "--resubmit-missing", dir.to_str().unwrap()], &[]);
    assert!(code == 0 && out.contains("nothing to resubmit"), "{out}{err}");
}

#[test]
#[ignore = "needs a running Slurm (scripts/slurm/local-cluster.sh start; scripts/test.sh runs it)"]
fn the_run_view_submits_to_slurm_follows_the_tasks_and_opens_the_merged_result() {
    use brainlens::llm::config::ProviderKind;
    use brainlens::ui::app::BrainLensApp;
    use common::gui::settle;
    use egui_kittest::Harness;
    use egui_kittest::kittest::Queryable;
    assert!(std::env::var_os("SLURM_CONF").is_some(), "SLURM_CONF is not set: start scripts/slurm/local-cluster.sh");
    let d = tempfile::tempdir().unwrap();
    let (s, t) = (recorded::suite(d.path()), d.path().join("t.jsonl"));
    let full = recorded::record(&s, &t, &d.path().join("full.json"), Some(12));
    let mut app = BrainLensApp::new(None, false);
    app.settings.llm.provider = ProviderKind::Replay;
    app.settings.llm.transcript = t.display().to_string();
    app.bench.select_view("run");
    app.bench.run.suite = s.display().to_string();
    app.bench.run.limit = 12;
    app.bench.run.slurm.shards = 3;
    app.bench.run.slurm.cpus = 1;
    app.bench.run.slurm.mem = "1G".into();
    app.bench.run.slurm.brainlens = Some(env!("CARGO_BIN_EXE_brainlens").into());
    app.bench.run.slurm.out_dir = d.path().join("gui-slurm").display().to_string();
    app.room = brainlens::ui::app::Room::Bench;
    let mut h =
        Harness::builder().with_size([1400.0, 1400.0]).build_ui_state(|ui, app: &mut BrainLensApp| app.show(ui), app);
    h.run_steps(3);
    h.get_by_label("Run on a Slurm cluster (job array + merge)").click();
    h.run_steps(3);
    h.get_by_label("Submit to Slurm").click();
    let t0 = Instant::now();
    loop {
        h.run_steps(1);
        let done = h
            .state()
            .bench
            .run
            .slurm
            .status
            .as_ref()
            .is_some_and(|s| s.merge_state == "COMPLETED" && s.result.is_some());
        if done {
            break;
        }
        if let Some(s) = h.state().bench.run.slurm.status.as_ref().filter(|s| s.settled()) {
            panic!("the run settled without a merged result: {s:#?}");
        }
        assert!(h.state().bench.run.slurm.error.is_none(), "{:?}", h.state().bench.run.slurm.error);
        assert!(t0.elapsed() < Duration::from_secs(240), "the merge did not complete");
        std::thread::sleep(Duration::from_millis(200));
    }
    h.run_steps(3);
    h.get_by_label_contains("submitted 3 shard(s) as job array");
    h.get_by_label_contains("12/12 instances · merge COMPLETED");
    h.get_by_label("Open merged result").click();
    settle(&mut h, |a| !a.bench.loading() && a.bench.data.is_some());
    assert_eq!(h.state().bench.data.as_ref().unwrap().collection.instance_count(), 12);
    same(&ResultFile::load(&d.path().join("gui-slurm/result.json")).unwrap(), &full);
}
