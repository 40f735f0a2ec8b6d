//! Running the `brainlens` binary from integration tests.
#![allow(dead_code)]

pub mod brainvision;
pub mod codeact_scripted;
pub mod eeg_scripted;
pub mod fake_openai;
pub mod fif;
#[cfg(feature = "gui")]
pub mod gui;
pub mod recorded;
pub mod scripted;

use serde_json::{Value, json};
use std::process::Command;

/// Exit code, stdout and stderr of `brainlens ARGS`.
pub fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_brainlens")).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The JSON `brainlens ARGS` prints; the test fails when the command does.
pub fn json(args: &[&str]) -> Value {
    let (code, out, err) = run(args);
    assert_eq!(code, 0, "{args:?}: {err}");
    serde_json::from_str(&out).unwrap()
}

/// The tests' local model (SmolLM2, the catalogue's fast model) when the model cache has it. Without it the caller skips, unless
/// BRAINLENS_REQUIRE_MODELS=1 (set by scripts/test.sh after fetching the models), where a missing model fails.
pub fn local_model() -> Option<std::path::PathBuf> {
    let path = brainlens::llm::catalogue::fast_path();
    if path.is_file() {
        return Some(path);
    }
    if std::env::var("BRAINLENS_REQUIRE_MODELS").as_deref() == Ok("1") {
        panic!("{} is missing: run scripts/setup_models.sh", path.display());
    }
    eprintln!("skipped: {} is missing (run scripts/setup_models.sh)", path.display());
    None
}

/// The unpacked patient cohorts (../shared/data/cohorts/unpack.sh into BRAINLENS_COHORTS, default
/// ~/.cache/brainlens-cohorts). Without them the caller skips, unless BRAINLENS_REQUIRE_COHORTS is set (by
/// scripts/test.sh after unpacking), where missing cohorts fail.
pub fn cohorts() -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("BRAINLENS_COHORTS").map(std::path::PathBuf::from).unwrap_or_else(|| {
        std::path::PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".cache/brainlens-cohorts")
    });
    if dir.join("adhd200_aal").is_dir() && dir.join("abide_pcp_aal").is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("BRAINLENS_REQUIRE_COHORTS").is_none(),
        "the cohorts are required but not unpacked in {}: ../shared/data/cohorts/unpack.sh",
        dir.display()
    );
    eprintln!("skipped: cohorts not unpacked in {}", dir.display());
    None
}

/// A folder `dir` holding every `step`-th of the first ADHD-200 subjects (sorted file names; links, at most
/// `count`) and the phenotypic table, laid out as the release: a small real cohort.
pub fn adhd_subset(root: &std::path::Path, dir: &std::path::Path, step: usize, count: usize) {
    let src = root.join("adhd200_aal");
    std::fs::create_dir_all(dir).unwrap();
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(&src)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with("_rois_aal.1D"))
        .collect();
    files.sort();
    for f in files.iter().step_by(step).take(count) {
        std::os::unix::fs::symlink(f, dir.join(f.file_name().unwrap())).unwrap();
    }
    let table = "Phenotypic_V1_0b_preprocessed1.csv";
    std::os::unix::fs::symlink(src.join(table), dir.join(table)).unwrap();
}

/// [`adhd_subset`] imported by `brainlens cohort import` (AAL-90, nilearn's default estimator) into
/// `DIR/NAME.npz`, whose path is returned.
pub fn adhd_cohort(
    root: &std::path::Path,
    dir: &std::path::Path,
    name: &str,
    step: usize,
    count: usize,
) -> std::path::PathBuf {
    let folder = dir.join(name);
    adhd_subset(root, &folder, step, count);
    let cohort = dir.join(format!("{name}.npz"));
    let (code, _, err) = run(&["cohort", "import", folder.to_str().unwrap(), "--out", cohort.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    cohort
}

/// Records as an evaluation's result: sample, run, truth, label and decision (not times).
pub fn run_essence(p: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(p)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            if v["kind"] == "sample" {
                json!([v["sample"], v["run"], v["truth"], v["label"], v["trace"]["decision"]])
            } else {
                v
            }
        })
        .collect()
}

/// What must not depend on scheduling: everything but times, timestamps and workspace paths.
pub fn essence(i: &brainlens::bench::results::Instance) -> Value {
    let mut trace = i.sandbox["trace"].clone();
    trace["model"] = Value::Null; // "scripted:eeg" recorded, "replay:scripted:eeg" replayed
    trace["sampling"] = Value::Null; // a replay does not sample
    if let Some(calls) = trace.get_mut("calls").and_then(Value::as_array_mut) {
        for c in calls {
            c["latency_ms"] = json!(0);
        }
    }
    json!({"id": i.instance_id, "total": i.total_score, "max": i.max_score, "vrr": i.vrr,
           "details": serde_json::to_value(&i.metric_details).unwrap(), "report": i.agent_output,
           "parsed": i.parser_output, "errors": i.errors, "tokens": i.token_usage, "trace": trace,
           "manifest": i.artifact_manifest.as_array().map(|a| a.iter().map(|m| json!([m["file_name"], m["sha256"]])).collect::<Vec<_>>())})
}

/// Instance by instance (the message names the first that differs, not the whole file).
pub fn same(a: &brainlens::bench::results::ResultFile, b: &brainlens::bench::results::ResultFile) {
    assert_eq!(a.instances.len(), b.instances.len());
    for (x, y) in a.instances.iter().zip(&b.instances) {
        assert!(essence(x) == essence(y), "{} differs", x.instance_id);
    }
}

/// Whether bubblewrap and the CodeAct environment (scripts/setup_python.sh) are here; without them the caller
/// skips, unless BRAINLENS_REQUIRE_SANDBOX=1 (scripts/test.sh), where they must be.
pub fn codeact_ready() -> bool {
    let ok = brainlens::sandbox::bwrap_version().is_some() && brainlens::harness::runner::default_python().exists();
    if !ok {
        assert_ne!(
            std::env::var("BRAINLENS_REQUIRE_SANDBOX").as_deref(),
            Ok("1"),
            "bubblewrap or the CodeAct environment is missing"
        );
        eprintln!("skipped: needs bubblewrap and scripts/setup_python.sh");
    }
    ok
}

/// Runs the scripts `bench slurm` wrote in `dir` as Slurm would: array tasks 1..=n, then the merge.
pub fn run_slurm_scripts(dir: &std::path::Path, n: usize) {
    for k in 1..=n {
        let st = std::process::Command::new("bash")
            .arg(dir.join("run_shards.sbatch"))
            .env("SLURM_ARRAY_TASK_ID", k.to_string())
            .output()
            .unwrap();
        assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    }
    let st = std::process::Command::new("bash").arg(dir.join("merge.sbatch")).output().unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
}
