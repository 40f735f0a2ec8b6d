//! `bench judge` on a shipped real run (fixtures/bench/real, Qwen's CodeAct run, made without a judge: its
//! judged units scored 0): the judged units get the judge's scores and the instances are rescored into a new
//! file; instances without a judged unit are untouched, and a judged file is not judged twice. Skipped when
//! the model cache is empty unless BRAINLENS_REQUIRE_MODELS=1.

mod common;

use brainlens::bench::results::ResultFile;
use std::path::{Path, PathBuf};

const SHIPPED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/bench/real/qwen_codeact.json");
/// A knowledge question (judged, 100 of 100), a missing-file case (its `no_fabrication` check judged, 40 of
/// 100) and a band power (nothing judged), in the file's order.
const IDS: [&str; 3] = [
    "Foundational Analysis-case11-case11_1",
    "Foundational Analysis-case12-case12_1",
    "Foundational Analysis-case1-case1_1",
];

/// In `dir`: the local suite the shipped runs ran on (real_demo.sh: seed 11) and the shipped run cut to `IDS`.
fn stored(dir: &Path) -> (PathBuf, PathBuf) {
    let suite = dir.join("suite");
    common::json(&["bench", "generate", "--out", suite.to_str().unwrap(), "--seed", "11", "--json"]);
    let mut raw: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(SHIPPED).unwrap()).unwrap();
    raw["instances"].as_array_mut().unwrap().retain(|i| IDS.contains(&i["instance_id"].as_str().unwrap()));
    let path = dir.join("codeact3.json");
    std::fs::write(&path, raw.to_string()).unwrap();
    (suite, path)
}

fn args<'a>(input: &'a str, suite: &'a str, out: &'a str, provider: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec!["bench", "judge", input, "--cases", suite, "--out", out];
    a.extend_from_slice(provider);
    a
}

#[test]
fn a_stored_runs_judged_units_are_judged_and_rescored() {
    let Some(model) = common::local_model() else { return };
    let d = tempfile::tempdir().unwrap();
    let (suite, input) = stored(d.path());
    let out = d.path().join("judged.json");
    let (i, s, o, m) =
        (input.to_str().unwrap(), suite.to_str().unwrap(), out.to_str().unwrap(), model.to_str().unwrap());
    let mut a = args(i, s, o, &["--provider", "local", "--model-path", m]);
    a.push("--json");
    let v = common::json(&a);
    let ids: Vec<&str> = v["judged"].as_array().unwrap().iter().map(|j| j["instance_id"].as_str().unwrap()).collect();
    assert_eq!(ids, &IDS[..2], "the two instances with a judged unit");
    let (before, after) = (ResultFile::load(&input).unwrap(), ResultFile::load(&out).unwrap());
    for (b, a) in before.instances.iter().zip(&after.instances) {
        if !ids.contains(&b.instance_id.as_str()) {
            assert_eq!(serde_json::to_value(b).unwrap(), serde_json::to_value(a).unwrap(), "untouched");
            continue;
        }
        // The judged unit has the judge's score (0–1); the other metrics keep theirs; the total is their sum.
        let judged = if b.instance_id == IDS[0] { "welch_multitaper" } else { "no_fabrication" };
        for (id, d) in &a.metric_details {
            if id == judged {
                assert!((0.0..=1.0).contains(&d.raw_score), "{id}: {}", d.raw_score);
                assert!((d.weighted_score - d.raw_score * d.weight.as_f64().unwrap()).abs() < 1e-9);
            } else {
                assert_eq!(d.weighted_score, b.metric_details[id].weighted_score, "{id}");
            }
        }
        let sum: f64 = a.metric_details.values().map(|d| d.weighted_score).sum();
        assert!((a.total_score - sum).abs() < 1e-9);
        // Every call is in the audit, its tokens counted; the instance says it was judged afterwards.
        assert_eq!(a.sandbox["audit"]["judge"].as_array().unwrap().len(), 1);
        assert!(a.token_usage["semantic"].as_f64().unwrap() > 0.0);
        let secs = |i: &brainlens::bench::results::Instance, k: &str| i.timing_sec[k].as_f64().unwrap_or(0.0);
        let judge_s = secs(a, "judge") - secs(b, "judge");
        assert!(judge_s > 0.0 && (secs(a, "model_total") - secs(b, "model_total") - judge_s).abs() < 1e-9);
        assert!(a.extra["judged_after_run"]["judge"].as_str().unwrap().contains("SmolLM2"));
        assert_eq!(a.agent_output, b.agent_output);
    }
    assert_eq!(after.experiment["judged_after_run"]["instances"].as_array().unwrap().len(), 2);
    assert!(after.experiment["models"]["semantic"].as_str().unwrap().contains("SmolLM2"));
    // Its provenance line names the judge wherever the run is listed.
    let (_, report, _) = common::run(&["bench", "report", o]);
    assert!(report.contains("judged afterwards by local:SmolLM2"), "{report}");
    // A judged file is refused, naming the file; nothing is written.
    let twice = d.path().join("twice.json");
    let (code, _, err) = common::run(&args(o, s, twice.to_str().unwrap(), &["--provider", "local", "--model-path", m]));
    assert_ne!(code, 0);
    assert!(err.contains("judged.json") && err.contains("judged already"), "{err}");
    assert!(!twice.exists());
}

/// A judge that cannot be reached stops with an error naming the file and the instance, and no file is
/// written (no model needed: the endpoint is a closed port).
#[test]
fn a_judge_that_fails_writes_nothing_and_names_the_instance() {
    let d = tempfile::tempdir().unwrap();
    let (suite, input) = stored(d.path());
    let out = d.path().join("judged.json");
    let closed = ["--base-url", "http://127.0.0.1:9/v1", "--model", "none", "--retries", "0", "--timeout", "2"];
    let (i, s, o) = (input.to_str().unwrap(), suite.to_str().unwrap(), out.to_str().unwrap());
    let (code, _, err) = common::run(&args(i, s, o, &closed));
    assert_ne!(code, 0);
    assert!(err.contains("codeact3.json") && err.contains(IDS[0]), "{err}");
    assert!(!out.exists(), "nothing written half");
}
