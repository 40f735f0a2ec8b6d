//! `brainlens bench generate`: a deterministic suite from the real fixtures. The reference answers are
//! recomputed with MNE/scipy/YASA/neurokit2 by scripts/reference/bench_suite_reference.py (run by
//! scripts/test.sh: 17 templates, 0 disagreements at the time of writing).

mod common;

use brainlens::bench::case::load_cases;
use std::path::Path;

fn files(root: &Path) -> Vec<(String, Vec<u8>)> {
    brainlens::bench::files_under(root, |_| true)
        .unwrap()
        .into_iter()
        .map(|p| (p.strip_prefix(root).unwrap().display().to_string(), std::fs::read(&p).unwrap()))
        .collect()
}

#[test]
fn two_generations_are_byte_identical_and_valid() {
    let d = tempfile::tempdir().unwrap();
    let (a, b, c) = (d.path().join("a"), d.path().join("b"), d.path().join("c"));
    let g = common::json(&["bench", "generate", "--out", a.to_str().unwrap(), "--json"]);
    common::json(&["bench", "generate", "--out", b.to_str().unwrap(), "--json"]);
    assert!(g["templates"].as_u64().unwrap() >= 24, "{g}");
    assert!(g["instances"].as_u64().unwrap() >= 50, "{g}");
    let (fa, fb) = (files(&a), files(&b));
    assert_eq!(fa.len(), fb.len());
    assert!(fa == fb, "two generations differ");
    // Every subset is present; every case validates; data paths exist except the invalid-request ones.
    let set = load_cases(&a).unwrap();
    assert!(set.problems.is_empty(), "{:?}", set.problems);
    let subsets: std::collections::BTreeSet<_> = set.cases.iter().map(|c| c.bench_subset.clone()).collect();
    assert_eq!(subsets.len(), 4);
    for case in &set.cases {
        let missing = case.raw["meta_info"]["expected_missing_data_path"].as_bool().unwrap();
        if let Some(p) = case.raw["agent_input"]["data_path"].as_str() {
            assert_eq!(a.join(p).is_file(), !missing, "{}: {p}", case.case_id);
        }
    }
    // Another seed draws other hypnogram subjects for the sampled templates, the rest is unchanged.
    common::json(&["bench", "generate", "--out", c.to_str().unwrap(), "--seed", "2", "--json"]);
    let fc = files(&c);
    let differ: Vec<_> = fa.iter().zip(&fc).filter(|(x, y)| x != y).map(|(x, _)| x.0.clone()).collect();
    assert!(
        !differ.is_empty() && differ.iter().all(|f| f.contains("Sleep") || f.contains("data") || f == "suite.json"),
        "{differ:?}"
    );
}

#[test]
fn a_bad_template_is_named_and_nothing_is_overwritten() {
    let d = tempfile::tempdir().unwrap();
    let t = d.path().join("tasks");
    std::fs::create_dir_all(&t).unwrap();
    std::fs::write(
        t.join("bad.toml"),
        "[[template]]\nid = \"X-01\"\nsubset = \"Nope\"\ndifficulty = 1\ntitle = \"t\"\nanalysis = \"none\"\ninstruction = \"i\"\nparser_prompt = \"p\"\nmetrics = []\n",
    )
    .unwrap();
    let out = d.path().join("suite");
    let (code, _, err) =
        common::run(&["bench", "generate", "--templates", t.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("bad.toml") && err.contains("X-01") && err.contains("Nope"), "{err}");
    // A non-empty folder that is not a suite is refused, never deleted.
    std::fs::write(d.path().join("keep.txt"), "mine").unwrap();
    let (code, _, err) = common::run(&["bench", "generate", "--out", d.path().to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("not a suite folder"), "{err}");
    assert!(d.path().join("keep.txt").is_file());
}

#[test]
fn generate_finds_the_bundled_templates_and_data_from_any_folder() {
    let elsewhere = tempfile::tempdir().unwrap();
    let out = elsewhere.path().join("suite");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_brainlens"))
        .args(["bench", "generate", "--out", "suite", "--json"])
        .current_dir(elsewhere.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["instances"], 54, "{v}");
    assert!(out.join("suite.json").is_file());
}
