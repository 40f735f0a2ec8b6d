//! `bench strike` on a real run (fixtures/bench/history: the Qwen model-report BrainAgent run at ee7d256, once
//! shipped as the Bench room's, struck after its run): the
//! reports the grounding check flags are struck, parsed again by the local SmolLM2 and rescored into a new
//! file; nothing else changes, and a struck file is not struck twice. Skipped when the model cache is empty
//! unless BRAINLENS_REQUIRE_MODELS=1.

mod common;

use brainlens::bench::results::ResultFile;
use std::path::Path;

#[test]
fn a_stored_run_is_struck_parsed_again_and_rescored() {
    let Some(model) = common::local_model() else { return };
    let d = tempfile::tempdir().unwrap();
    let (suite, stored, flagged) = as_run(d.path());
    assert_eq!(flagged.len(), 4, "docs/bench.md: 4 reports of this run were struck");
    let before = ResultFile::load(&stored).unwrap();
    let shipped = ResultFile::load(Path::new(SHIPPED)).unwrap();
    let out = d.path().join("struck.json");
    let args = |input: &Path, out: &Path| -> Vec<String> {
        let (input, out, suite) = (input.to_str().unwrap(), out.to_str().unwrap(), suite.to_str().unwrap());
        let a = ["bench", "strike", input, "--cases", suite, "--out", out, "--provider", "local", "--model-path"];
        let mut a: Vec<String> = a.iter().map(|s| s.to_string()).collect();
        a.extend([model.to_str().unwrap().to_string(), "--json".to_string()]);
        a
    };
    fn strs(a: &[String]) -> Vec<&str> {
        a.iter().map(String::as_str).collect()
    }
    let v = common::json(&strs(&args(&stored, &out)));
    let struck: Vec<&str> =
        v["struck"].as_array().unwrap().iter().map(|s| s["instance_id"].as_str().unwrap()).collect();
    // The 4 struck when it was struck, and one more since the check reads an event power stated as calculated
    // as spectral work (dd490d3): Neurocognitive 3_1's "The mean squared amplitude … was calculated".
    let since = "Neurocognitive Assessment-case3-case3_1";
    let mut expected: Vec<&str> = flagged.iter().map(String::as_str).collect();
    expected.push(since);
    assert_eq!(struck, expected);
    let after = ResultFile::load(&out).unwrap();
    // The same sentences are struck as in the shipped file (the parser here is SmolLM2, not the run's Qwen).
    for (a, b) in after.instances.iter().zip(&shipped.instances) {
        if a.instance_id == since {
            assert!(a.report().contains("[struck by BrainLens: ") && !b.report().contains("[struck"), "{}", a.report());
            continue;
        }
        assert_eq!(a.report(), b.report(), "{}", a.instance_id);
    }
    assert_eq!(after.instances.len(), before.instances.len());
    for (b, a) in before.instances.iter().zip(&after.instances) {
        assert!(a.sandbox["trace"].get("ungrounded_claims").is_none(), "{}", a.instance_id);
        if struck.contains(&b.instance_id.as_str()) {
            let t = &a.sandbox["trace"];
            assert_eq!(t["report_as_written"], b.sandbox["trace"]["report_text"]);
            assert!(a.report().contains("[struck by BrainLens: "), "{}", a.report());
            assert!(a.extra.contains_key("struck_after_run"));
        } else {
            assert_eq!((a.report(), &a.parser_output, a.total_score), (b.report(), &b.parser_output, b.total_score));
        }
    }
    assert_eq!(after.experiment["struck_after_run"]["instances"].as_array().unwrap().len(), struck.len());
    // Its provenance line says so wherever the run is listed.
    let (_, report, _) = common::run(&["bench", "report", out.to_str().unwrap()]);
    assert!(report.contains(&format!("{} reports struck afterwards", struck.len())), "{report}");
    // A struck file is refused, naming the file.
    let (code, _, err) = common::run(&strs(&args(&out, &d.path().join("twice.json"))));
    assert_ne!(code, 0);
    assert!(err.contains("struck.json") && err.contains("struck already"), "{err}");
}

/// A parser that cannot be reached stops the strike with an error naming the file and the instance, and no
/// file is written (no model needed: the endpoint is a closed port).
#[test]
fn a_parser_that_fails_writes_nothing_and_names_the_instance() {
    let d = tempfile::tempdir().unwrap();
    // Its first struck report is Foundational case 1_1's PSD claim.
    let (suite, stored, flagged) = as_run(d.path());
    assert_eq!(flagged[0], "Foundational Analysis-case1-case1_1");
    let out = d.path().join("struck.json");
    let (code, _, err) = common::run(&[
        "bench",
        "strike",
        stored.to_str().unwrap(),
        "--cases",
        suite.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--model",
        "none",
        "--retries",
        "0",
        "--timeout",
        "2",
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("as_run.json") && err.contains("Foundational Analysis-case1-case1_1"), "{err}");
    assert!(!out.exists(), "nothing written half");
}

const SHIPPED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/bench/history/qwen_brainagent_model_ee7d256.json");

/// In `dir`: the local suite the shipped runs ran on (real_demo.sh: seed 11), and the shipped Qwen model-report
/// run as it ran — it was struck after its run, so its reports as the model wrote them are put back — with
/// the ids of the instances put back.
fn as_run(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf, Vec<String>) {
    let suite = dir.join("suite");
    common::json(&["bench", "generate", "--out", suite.to_str().unwrap(), "--seed", "11", "--json"]);
    let mut raw: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(SHIPPED).unwrap()).unwrap();
    raw["experiment"].as_object_mut().unwrap().remove("struck_after_run");
    let mut flagged = Vec::new();
    for i in raw["instances"].as_array_mut().unwrap() {
        let t = i["sandbox"]["trace"].as_object_mut().unwrap();
        if let Some(written) = t.remove("report_as_written") {
            t.remove("struck_claims");
            t.insert("report_text".into(), written.clone());
            i["agent_output"] = written;
            i.as_object_mut().unwrap().remove("struck_after_run");
            flagged.push(i["instance_id"].as_str().unwrap().to_string());
        }
    }
    let stored = dir.join("as_run.json");
    std::fs::write(&stored, raw.to_string()).unwrap();
    (suite, stored, flagged)
}
