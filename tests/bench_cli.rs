//! `brainlens bench …` as users script it: validate (refusals and warnings name file and JSON path, bad cases
//! never abort the rest; only what the reference cannot run is refused), rescore (the demo collection's stored
//! scores are reproduced exactly; odd cases are scored with their warnings), report (numbers equal a small example
//! computed by hand below), and clear errors for broken result files.

mod common;
use common::run;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/bench/demo")
}

#[test]
fn validate_refuses_only_what_the_reference_cannot_run_and_warns_of_the_rest() {
    let d = tempfile::tempdir().unwrap();
    let good = std::fs::read_to_string(demo().join("cases/foundational_analysis/cases/case1/case1_1.json")).unwrap();
    let mut odd: Value = serde_json::from_str(&good).unwrap();
    odd["eval_config"]["metrics"][0]["params"]["tolerance"] = json!("0.5%");
    let mut no_metrics: Value = serde_json::from_str(&good).unwrap();
    no_metrics["eval_config"]["metrics"] = json!("none");
    for (name, text) in [
        ("case1_1.json", good.clone()),
        ("case1_2.json", odd.to_string()),
        ("case1_3.json", "{not json".into()),
        ("case1_4.json", no_metrics.to_string()),
    ] {
        let p = d.path().join("cases/case1").join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let root = d.path().to_str().unwrap();
    let (code, out, err) = run(&["bench", "validate", root, "--json"]);
    assert_ne!(code, 0);
    assert!(err.contains("2 of 4 case files are refused"), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!((v["valid"].as_u64(), v["with_warnings"].as_u64(), v["refused"].as_u64()), (Some(1), Some(1), Some(2)));
    let problems = v["problems"].as_array().unwrap();
    let named = |file: &str, path: &str, severity: &str| {
        problems.iter().find(|p| {
            p["file"].as_str().unwrap().ends_with(file) && p["json_path"] == path && p["severity"] == severity
        })
    };
    let warning = named("case1_2.json", "eval_config.metrics[0].params.tolerance", "warning").expect("warning");
    assert_eq!(warning["message"], "not a number (\"0.5%\"): scores 0");
    assert!(named("case1_3.json", "", "refused").unwrap()["message"].as_str().unwrap().starts_with("not valid JSON"));
    assert_eq!(
        named("case1_4.json", "eval_config.metrics", "refused").unwrap()["message"],
        "expected a list, got \"none\""
    );

    // Without the refused files the odd case is scored; --strict refuses it as before.
    for f in ["case1_3.json", "case1_4.json"] {
        std::fs::remove_file(d.path().join("cases/case1").join(f)).unwrap();
    }
    let (code, out, err) = run(&["bench", "validate", root]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("2 case(s) scored (1 with warnings), 0 refused"), "{out}");
    let (code, _, err) = run(&["bench", "validate", root, "--strict"]);
    assert_ne!(code, 0);
    assert!(err.contains("1 of 2 case files have warnings (--strict)"), "{err}");

    let (code, out, _) = run(&["bench", "validate", demo().join("cases").to_str().unwrap(), "--strict"]);
    assert_eq!(code, 0);
    assert!(out.contains("80 case(s) scored (0 with warnings), 0 refused"), "{out}");
}

#[test]
fn rescore_scores_an_odd_case_and_names_its_warning_in_the_instance_errors() {
    let d = tempfile::tempdir().unwrap();
    let result = std::fs::read_dir(demo().join("results")).unwrap().next().unwrap().unwrap().path();
    let stored: Value = serde_json::from_str(&std::fs::read_to_string(&result).unwrap()).unwrap();
    let first = &stored["instances"][0];
    // The suite with that case's numeric weights written as strings: the reference reads them with float().
    let odd_root = d.path().join("cases");
    let odd_file = demo_cases_with(&odd_root, first, |case| {
        for m in case["eval_config"]["metrics"].as_array_mut().unwrap() {
            let w = m["weight"].as_f64().unwrap();
            m["weight"] = json!(format!(" {w} "));
        }
    });
    let out = d.path().join("rescored.json");
    let (code, _, err) = run(&[
        "bench",
        "rescore",
        result.to_str().unwrap(),
        "--cases",
        odd_root.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let after: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let inst =
        after["instances"].as_array().unwrap().iter().find(|i| i["instance_id"] == first["instance_id"]).unwrap();
    assert_eq!(inst["total_score"], first["total_score"], "weights read from strings give the same score");
    let errors: Vec<&str> = inst["errors"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert!(
        errors.iter().any(|e| e.starts_with("case_warning: ")
            && e.contains(&*odd_file.to_string_lossy())
            && e.contains("eval_config.metrics[0].weight: a number written as")),
        "{errors:?}"
    );
}

/// Rescoring checks a BrainAgent report's claims again with the current rules: a stale flag on a sentence
/// that only quotes the task's instruction goes, a claim of filtering that no step did stays.
#[test]
fn rescore_checks_the_reports_claims_again() {
    let d = tempfile::tempdir().unwrap();
    let result = std::fs::read_dir(demo().join("results")).unwrap().next().unwrap().unwrap().path();
    let mut stored: Value = serde_json::from_str(&std::fs::read_to_string(&result).unwrap()).unwrap();
    let mut inst = stored["instances"][0].clone();
    // The demo's cases, that instance's instruction made one whose own words read as a claim when quoted.
    let instruction = "Detect the R-peaks of the ECG channel and report the number of detected beats as beats.";
    let cases = d.path().join("cases");
    demo_cases_with(&cases, &inst, |case| case["agent_input"]["instruction"] = json!(instruction));
    // A real BrainAgent trace (the shipped SmolLM2 run) with no step that ran and a report of our making.
    let real: Value =
        serde_json::from_str(&std::fs::read_to_string(demo().join("../real/smollm2_brainagent.json")).unwrap())
            .unwrap();
    let mut trace = real["instances"][0]["sandbox"]["trace"].clone();
    trace["rounds"] = json!([]);
    trace["report_text"] = json!(format!("Task: {instruction}\nThe channels were band-pass filtered."));
    trace["ungrounded_claims"] = json!([{"work": "heart", "sentence": "Task: a stale flag"}]);
    inst["sandbox"] = json!({"paradigm": "brainagent", "trace": trace});
    stored["instances"] = json!([inst]);
    let one = d.path().join("one.json");
    std::fs::write(&one, stored.to_string()).unwrap();
    let out = d.path().join("rescored.json");
    let (code, _, err) = run(&[
        "bench",
        "rescore",
        one.to_str().unwrap(),
        "--cases",
        cases.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let after: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let claims = &after["instances"][0]["sandbox"]["trace"]["ungrounded_claims"];
    assert_eq!(*claims, json!([{"work": "filter", "sentence": "The channels were band-pass filtered"}]), "{claims}");
}

/// Copies the demo's cases to `root`, `edit` applied to the case of the result instance `inst` (found by its
/// `source_json` and subset); returns that case's copy.
fn demo_cases_with(root: &Path, inst: &Value, edit: impl Fn(&mut Value)) -> PathBuf {
    let demo_cases = demo().join("cases");
    let source = inst["source_json"].as_str().unwrap();
    let tail: PathBuf = Path::new(source).iter().rev().take(2).collect::<Vec<_>>().into_iter().rev().collect();
    let mut edited = None;
    for file in walk(&demo_cases) {
        let mut case: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let copy = root.join(file.strip_prefix(&demo_cases).unwrap());
        if file.ends_with(&tail) && case["meta_info"]["bench_subset"] == inst["bench_subset"] {
            edit(&mut case);
            edited = Some(copy.clone());
        }
        std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
        std::fs::write(&copy, case.to_string()).unwrap();
    }
    edited.expect("the instance's case is in the demo")
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() { out.extend(walk(&p)) } else { out.push(p) }
    }
    out
}

#[test]
fn rescore_reproduces_every_stored_score_of_the_demo() {
    let d = tempfile::tempdir().unwrap();
    let cases = demo().join("cases");
    let files: Vec<PathBuf> = std::fs::read_dir(demo().join("results")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(files.len(), 12);
    for f in files {
        let out = d.path().join("rescored.json");
        let (code, stdout, err) = run(&[
            "bench",
            "rescore",
            f.to_str().unwrap(),
            "--cases",
            cases.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--json",
        ]);
        assert_eq!(code, 0, "{err}");
        let stats: Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(stats["stats"]["changed"], json!([]), "{}", f.display());
        assert_eq!(stats["stats"]["unmatched"], json!([]));
        let before: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
        let after: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        for (a, b) in before["instances"].as_array().unwrap().iter().zip(after["instances"].as_array().unwrap()) {
            assert_eq!(a["metric_details"], b["metric_details"], "{}", a["instance_id"]);
            assert_eq!(a["total_score"], b["total_score"]);
            assert_eq!(a["errors"], b["errors"]);
        }
        let (s0, s1) =
            (before["summary"]["total_score"].as_f64().unwrap(), after["summary"]["total_score"].as_f64().unwrap());
        assert!((s0 - s1).abs() < 1e-9, "{s0} vs {s1}");
        assert_eq!(before["experiment"], after["experiment"]);
    }
}

fn instance(id: &str, case: &str, difficulty: f64, total: f64, unit: &str, raw: f64, errors: &[&str]) -> Value {
    let details = if errors.iter().any(|e| e.starts_with("api_infrastructure_error")) {
        json!({})
    } else {
        json!({"m": {"raw_score": raw, "weighted_score": raw * 100.0, "metric_type": unit, "target_key": "k", "weight": 100}})
    };
    json!({"instance_id": id, "bench_subset": "S", "difficulty": difficulty, "source_json": format!("S/cases/{case}"),
           "total_score": total, "max_score": 100.0, "vrr": if errors.is_empty() { 1.0 } else { 0.0 },
           "metric_details": details, "agent_output": "report", "parser_output": {}, "errors": errors,
           "token_usage": {"target": 10, "parser": 2, "semantic": 0, "vlm": 0, "total": 12}})
}

fn result_file(dir: &Path, name: &str, model: &str, mode: &str, run_no: u32, instances: Vec<Value>) -> PathBuf {
    let p = dir.join(name);
    let v = json!({"experiment": {"models": {"target": {"model": model}}, "evaluation_mode": mode, "run": run_no},
                   "instances": instances, "summary": {}});
    std::fs::write(&p, v.to_string()).unwrap();
    p
}

#[test]
fn report_numbers_equal_a_hand_computed_example() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    // Model m-a, BrainAgent run 1: i3 failed for infrastructure reasons and is excluded.
    result_file(
        dir,
        "ba1.json",
        "m-a",
        "brainagent",
        1,
        vec![
            instance("i1", "case1/case1_1.json", 1.0, 100.0, "numeric_check", 1.0, &[]),
            instance("i2", "case1/case1_2.json", 3.0, 50.0, "set_match_check", 0.5, &[]),
            instance(
                "i3",
                "case1/case1_3.json",
                2.0,
                0.0,
                "numeric_check",
                0.0,
                &["api_infrastructure_error: timeout"],
            ),
        ],
    );
    result_file(
        dir,
        "ba2.json",
        "m-a",
        "brainagent",
        2,
        vec![
            instance("i1", "case1/case1_1.json", 1.0, 100.0, "numeric_check", 1.0, &[]),
            instance("i2", "case1/case1_2.json", 3.0, 100.0, "set_match_check", 1.0, &[]),
        ],
    );
    result_file(
        dir,
        "ca1.json",
        "m-a",
        "codeact",
        1,
        vec![
            instance("i1", "case1/case1_1.json", 1.0, 40.0, "sequence_match_check", 0.4, &[]),
            instance("i2", "case1/case1_2.json", 3.0, 100.0, "set_match_check", 1.0, &[]),
        ],
    );
    std::fs::write(dir.join("broken.json"), "{\"instances\": [").unwrap();
    let (code, out, err) = run(&["bench", "report", dir.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("broken.json") && err.contains("not valid JSON"), "{err}");
    let r: Value = serde_json::from_str(&out).unwrap();
    let cell = |table: &str, p: &str, key: &str| -> f64 {
        r[table]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["model"] == "m-a" && c["paradigm"] == p && c["key"] == key)
            .unwrap_or_else(|| panic!("{table} {p} {key}"))["value"]
            .as_f64()
            .unwrap()
    };
    let close = |a: f64, b: f64| assert!((a - b).abs() < 1e-9, "{a} != {b}");
    // Subset score = 100·Σ(total·d)/Σ(max·d): run 1 (100·1 + 50·3)/(100·1 + 100·3) = 62.5; run 2 = 100;
    // leaderboard = mean over runs = 81.25. CodeAct: (40 + 300)/400 = 85.
    close(cell("leaderboard", "BrainAgent", "S"), 81.25);
    close(cell("leaderboard", "CodeAct", "S"), 85.0);
    // Levels (pooled over runs): BA easy 200/200 = 100, hard 150/200 = 75; CA easy 40, hard 100.
    close(cell("difficulty", "BrainAgent", "easy"), 100.0);
    close(cell("difficulty", "BrainAgent", "hard"), 75.0);
    close(cell("difficulty", "CodeAct", "easy"), 40.0);
    // Δ easy = 60, Δ hard = −25; DAI = slope over levels 1 and 3 = −85 / 2.
    close(r["dai"][0]["dai"].as_f64().unwrap(), -42.5);
    // Units: BA set match mean raw (0.5 + 1)/2 = 0.75, CA 1 → gap −0.25; numeric only BrainAgent → no gap.
    close(cell("units", "BrainAgent", "set_match_check"), 0.75);
    let gaps = r["mode_gap"].as_array().unwrap();
    assert_eq!(gaps.len(), 1);
    close(gaps[0]["value"].as_f64().unwrap(), -0.25);
    // Task S/case1, BA: run 1 scores {1, 0.5} → MPAD 0.5, run 2 {1, 1} → 0; mean 0.25; mean score 87.5.
    let task = r["tasks"].as_array().unwrap().iter().find(|t| t["paradigm"] == "BrainAgent").unwrap();
    assert_eq!(task["task"], "S/case1");
    close(task["mpad"].as_f64().unwrap(), 0.25);
    close(task["mean"].as_f64().unwrap(), 87.5);
    // Consistency BA: i2 changed (0.5 → 1) of 2 matched → 0.5; mean |Δ| = (0 + 50)/2 = 25 points;
    // std of overall scores {62.5, 100} (n − 1) = 37.5/√2.
    let c = &r["consistency"][0];
    close(c["changed_share"].as_f64().unwrap(), 0.5);
    close(c["mean_abs_diff"].as_f64().unwrap(), 25.0);
    close(c["aggregate_std"].as_f64().unwrap(), 37.5 / 2f64.sqrt());
    close(cell("failures", "BrainAgent", "api_infrastructure_error"), 1.0);
    // Failure cases: BA i3 infrastructure (endpoint rule), BA run 1 i2 partial (set match 0.5), CA i1 partial
    // (sequence match 0.4); nothing else falls short.
    let fc: Vec<(String, String, String, u64)> = r["failure_cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let s = |k: &str| f[k].as_str().unwrap().to_string();
            (s("paradigm"), s("unit"), s("class"), f["count"].as_u64().unwrap())
        })
        .collect();
    let want = |p: &str, u: &str, c: &str| (p.to_string(), u.to_string(), c.to_string(), 1);
    assert_eq!(
        fc,
        [
            want("BrainAgent", "set_match_check", "partial"),
            want("BrainAgent", "—", "infrastructure"),
            want("CodeAct", "sequence_match_check", "partial")
        ]
    );
    let infra = r["failure_cases"].as_array().unwrap().iter().find(|f| f["class"] == "infrastructure").unwrap();
    assert!(infra["rule"].as_str().unwrap().contains("excluded") && infra["examples"] == json!(["i3"]));
    // A different level mapping: everything up to difficulty 3 is "easy" → one level, BA 350/400 = 87.5.
    let (code, out, err) = run(&["bench", "report", dir.to_str().unwrap(), "--easy-max", "3", "--json"]);
    assert_eq!(code, 0, "{err}");
    let r3: Value = serde_json::from_str(&out).unwrap();
    let levels: Vec<&str> = r3["difficulty"].as_array().unwrap().iter().map(|c| c["key"].as_str().unwrap()).collect();
    assert!(levels.iter().all(|l| *l == "easy"), "{levels:?}");
    let ba = r3["difficulty"].as_array().unwrap().iter().find(|c| c["paradigm"] == "BrainAgent").unwrap();
    close(ba["value"].as_f64().unwrap(), 87.5);
    // CSV and HTML exports.
    let csv = dir.join("csv");
    let html = dir.join("report.html");
    let (code, _, err) = run(&[
        "bench",
        "report",
        dir.join("ba1.json").to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let lb = std::fs::read_to_string(csv.join("leaderboard.csv")).unwrap();
    assert!(lb.starts_with("model,paradigm,subset,value,n\nm-a,BrainAgent,Overall,62.5,1\n"), "{lb}");
    assert!(std::fs::read_to_string(&html).unwrap().contains("<h2>leaderboard</h2>"));
}

#[test]
fn unreadable_results_fail_with_the_file_named() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("notes.json");
    std::fs::write(&p, "[1, 2, 3]").unwrap();
    let (code, _, err) = run(&["bench", "report", p.to_str().unwrap()]);
    assert_ne!(code, 0);
    assert!(err.contains("notes.json") && err.contains("not a BrainBench result file"), "{err}");
    let (code, _, err) =
        run(&["bench", "rescore", p.to_str().unwrap(), "--cases", demo().join("cases").to_str().unwrap()]);
    assert_ne!(code, 0);
    assert!(err.contains("notes.json"), "{err}");
}

/// The demo folder holds its cases beside its results, as a user's folder will: the case files are counted in
/// one line, not reported one by one; a broken file beside them is still named with its reason.
#[test]
fn case_files_beside_results_are_counted_once() {
    let cases = walk_json(&demo().join("cases")).len();
    assert!(cases > 10, "{cases}");
    let (code, out, err) = run(&["bench", "report", demo().to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("simulated-small"), "{out}");
    // The leaderboard's header gives each subset whole, over two lines, and its values sit under them.
    let lines: Vec<&str> = out.lines().collect();
    let at = lines.iter().position(|l| l.starts_with("Leaderboard")).unwrap();
    let (words, rest, row) = (lines[at + 1], lines[at + 2], lines[at + 3]);
    assert!(words.contains("Neurocognitive") && rest.contains("Assessment") && !words.contains('…'), "{out}");
    assert_eq!(rest.find("Overall").map(|i| i + 7), Some(row.len()), "{out}");
    assert_eq!(err.trim(), format!("brainlens: {cases} files not read as results: {cases} BrainBench case files"));
    let d = tempfile::tempdir().unwrap();
    std::fs::copy(demo().join("results/simulated-small_codeact_run1.json"), d.path().join("run.json")).unwrap();
    let case = walk_json(&demo().join("cases"))[0].clone();
    std::fs::copy(&case, d.path().join("case1_1.json")).unwrap();
    std::fs::write(d.path().join("notes.json"), "{\"instances\": 3}").unwrap();
    let (code, _, err) = run(&["bench", "report", d.path().to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines[0], "brainlens: 2 files not read as results: 1 BrainBench case file, 1 unreadable", "{err}");
    assert!(lines[1].starts_with("brainlens: skipped: ") && lines[1].contains("notes.json"), "{err}");
    assert_eq!(lines.len(), 2, "{err}");
}

fn walk_json(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk_json(&p));
        } else if p.extension().is_some_and(|x| x == "json") {
            out.push(p);
        }
    }
    out.sort();
    out
}

#[test]
fn result_files_round_trip_field_for_field() {
    let d = tempfile::tempdir().unwrap();
    let src = demo().join("results/simulated-small_codeact_run1.json");
    let f = brainlens::bench::results::ResultFile::load(&src).unwrap();
    let out = d.path().join("copy.json");
    f.save(&out).unwrap();
    let a: Value = serde_json::from_str(&std::fs::read_to_string(&src).unwrap()).unwrap();
    let b: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(a, b);
    assert!(!d.path().join("copy.json.tmp").exists());
    // A JSONL stream of the same instances reads back with a recomputed summary.
    let jsonl = d.path().join("stream.jsonl");
    let lines: Vec<String> = a["instances"].as_array().unwrap().iter().map(|i| i.to_string()).collect();
    std::fs::write(&jsonl, lines.join("\n")).unwrap();
    let s = brainlens::bench::results::ResultFile::load(&jsonl).unwrap();
    assert_eq!(s.instances.len(), 80);
    let (x, y) = (s.summary["total_score"].as_f64().unwrap(), a["summary"]["total_score"].as_f64().unwrap());
    assert!((x - y).abs() < 1e-9);
}

#[test]
fn report_has_the_papers_table_2_per_subset_computed_by_hand() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let inst = |subset: &str, id: &str, difficulty: f64, total: f64| {
        let mut v =
            instance(id, &format!("case1/case1_{id}.json"), difficulty, total, "numeric_check", total / 100.0, &[]);
        v["bench_subset"] = json!(subset);
        v["instance_id"] = json!(format!("{subset}-{id}"));
        v["source_json"] = json!(format!("{subset}/cases/case1/case1_{id}.json"));
        v
    };
    // (subset, id, difficulty, BrainAgent total, CodeAct total), max 100 each.
    let rows = [
        ("A", "1", 1.0, 80.0, 50.0),
        ("A", "2", 3.0, 60.0, 90.0),
        ("B", "3", 2.0, 100.0, 40.0),
        ("B", "4", 3.0, 20.0, 50.0),
    ];
    for (name, mode, col) in [("ba.json", "brainagent", 0), ("ca.json", "codeact", 1)] {
        let instances = rows.iter().map(|r| inst(r.0, r.1, r.2, if col == 0 { r.3 } else { r.4 })).collect();
        result_file(dir, name, "m", mode, 1, instances);
    }
    let (code, out, err) = run(&["bench", "report", dir.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    let r: Value = serde_json::from_str(&out).unwrap();
    let close = |a: &Value, b: f64| assert!((a.as_f64().unwrap() - b).abs() < 1e-9, "{a} != {b}");
    let table = |subset: &str| -> Value {
        r["difficulty_by_subset"].as_array().unwrap().iter().find(|t| t["subset"] == subset).unwrap().clone()
    };
    let cell = |t: &Value, p: &str, level: &str| -> Value {
        t["cells"].as_array().unwrap().iter().find(|c| c["paradigm"] == p && c["key"] == level).unwrap()["value"]
            .clone()
    };
    let delta = |t: &Value, level: &str| -> Value {
        t["delta"].as_array().unwrap().iter().find(|g| g["key"] == level).unwrap()["value"].clone()
    };
    // A: BA easy 80, hard 60; CA easy 50, hard 90; Δ +30, −30; DAI = slope through (1, 30), (3, −30) = −30.
    let a = table("A");
    close(&cell(&a, "BrainAgent", "easy"), 80.0);
    close(&cell(&a, "CodeAct", "hard"), 90.0);
    close(&delta(&a, "easy"), 30.0);
    close(&delta(&a, "hard"), -30.0);
    assert!(a["cells"].as_array().unwrap().iter().all(|c| c["key"] != "medium"));
    close(&a["dai"][0]["dai"], -30.0);
    // B: Δ medium 100 − 40 = 60, hard 20 − 50 = −30; DAI through (2, 60), (3, −30) = −90.
    let b = table("B");
    close(&delta(&b, "medium"), 60.0);
    close(&delta(&b, "hard"), -30.0);
    close(&b["dai"][0]["dai"], -90.0);
    // Pooled: hard BA (60 + 20)/200 = 40, CA (90 + 50)/200 = 70; Δ 30, 60, −30 over levels 1–3:
    // slope = Σ(x − 2)(y − 20)/Σ(x − 2)² = (−10 + 0 − 50)/2 = −30.
    close(
        &r["difficulty"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["paradigm"] == "BrainAgent" && c["key"] == "hard")
            .unwrap()["value"],
        40.0,
    );
    close(&r["dai"][0]["dai"], -30.0);
    // Units per subset (raw = total / 100): A BA (0.8 + 0.6)/2 = 0.7, CA (0.5 + 0.9)/2 = 0.7, gap 0;
    // B BA (1.0 + 0.2)/2 = 0.6, CA (0.4 + 0.5)/2 = 0.45, gap 0.15.
    let units = |subset: &str| -> Value {
        r["units_by_subset"].as_array().unwrap().iter().find(|t| t["subset"] == subset).unwrap().clone()
    };
    let (ua, ub) = (units("A"), units("B"));
    let unit = |t: &Value, p: &str| t["units"].as_array().unwrap().iter().find(|c| c["paradigm"] == p).unwrap().clone();
    close(&unit(&ua, "BrainAgent")["value"], 0.7);
    close(&unit(&ub, "CodeAct")["value"], 0.45);
    close(&ua["mode_gap"][0]["value"], 0.0);
    close(&ub["mode_gap"][0]["value"], 0.15);
    // The same rows as CSV.
    let csv = dir.join("csv");
    let (code, _, err) = run(&["bench", "report", dir.to_str().unwrap(), "--csv", csv.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(csv.join("difficulty_by_subset.csv")).unwrap();
    assert!(text.starts_with("subset,model,paradigm,level,value,n\nA,m,BrainAgent,easy,80,1\n"), "{text}");
    let dai = std::fs::read_to_string(csv.join("dai_by_subset.csv")).unwrap();
    assert_eq!(dai, "subset,model,dai\nA,m,-30\nB,m,-90\n");
}

/// `bench report --latex DIR --figures DIR`: a booktabs `.tex` per table with the CSV's rows (the numbers to 3
/// decimals), a `tables.tex` that pdflatex compiles (required when `BRAINLENS_REQUIRE_LATEX` is set, as
/// scripts/test.sh sets it where pdflatex is installed), and each chart as an SVG that parses and a PNG of
/// 300 dpi (the SVG's size × 300/96).
#[test]
fn report_writes_latex_tables_that_compile_and_figures_as_svg_and_300_dpi_png() {
    let dir = tempfile::tempdir().unwrap();
    let (tex, fig) = (dir.path().join("tex"), dir.path().join("fig"));
    let results = demo().join("results");
    let (code, _, err) = run(&[
        "bench",
        "report",
        results.to_str().unwrap(),
        "--latex",
        tex.to_str().unwrap(),
        "--figures",
        fig.to_str().unwrap(),
        "--csv",
        dir.path().join("csv").to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let csv = std::fs::read_to_string(dir.path().join("csv/dai.csv")).unwrap();
    let t = std::fs::read_to_string(tex.join("dai.tex")).unwrap();
    assert!(t.starts_with("\\begin{tabular}{lr}\n\\toprule\nmodel & dai \\\\\n\\midrule\n"), "{t}");
    for line in csv.lines().skip(1) {
        let (model, dai) = line.split_once(',').unwrap();
        let want = format!("{} & {:.3} \\\\", model, dai.parse::<f64>().unwrap());
        assert!(t.contains(&want), "{want} not in {t}");
    }
    let doc = std::fs::read_to_string(tex.join("tables.tex")).unwrap();
    assert!(doc.contains("\\input{difficulty_by_subset.tex}") && doc.contains("Simulated results"));
    if std::process::Command::new("pdflatex").arg("--version").output().is_ok() {
        let out = std::process::Command::new("pdflatex")
            .args(["-interaction=nonstopmode", "-halt-on-error", "tables.tex"])
            .current_dir(&tex)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
        assert!(tex.join("tables.pdf").is_file());
    } else {
        assert!(std::env::var_os("BRAINLENS_REQUIRE_LATEX").is_none(), "pdflatex is required but missing");
        eprintln!("pdflatex not installed: tables.tex not compiled (apt-get install texlive-latex-recommended)");
    }
    for stem in ["radar_brainagent", "radar_codeact", "mode_gap", "agreement"] {
        let svg = std::fs::read_to_string(fig.join(format!("{stem}.svg"))).unwrap();
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let w: f64 = doc.root_element().attribute("width").unwrap().trim_end_matches("px").parse().unwrap();
        let png = image::open(fig.join(format!("{stem}.png"))).unwrap();
        assert_eq!(png.width(), (w * 300.0 / 96.0).ceil() as u32, "{stem}");
    }
}

/// Model families from the mapping: the bundled one by default, a user's file with `--families`; the agreement
/// heatmap groups models by family and labels them; a broken mapping fails with the file named.
#[test]
fn report_assigns_model_families_from_the_mapping_and_the_agreement_figure_groups_them() {
    let dir = tempfile::tempdir().unwrap();
    let results = demo().join("results");
    let r = common::json(&["bench", "report", results.to_str().unwrap(), "--json"]);
    let models: Vec<&str> = r["models"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
    assert!(models.len() > 1);
    for m in &models {
        assert_eq!(r["families"][m], "Simulated", "{m}: the bundled mapping");
    }
    let map = dir.path().join("families.json");
    let (small, rest) = (models[0], &models[1..]);
    std::fs::write(
        &map,
        json!({"families": [{"family": "Zeta", "names": [small]}, {"family": "Alpha", "patterns": ["simulated"]}]})
            .to_string(),
    )
    .unwrap();
    let fig = dir.path().join("fig");
    let args = |extra: &[&str]| {
        let mut a = vec!["bench", "report", results.to_str().unwrap()];
        a.extend_from_slice(extra);
        a.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let a = args(&["--families", map.to_str().unwrap(), "--json"]);
    let r = common::json(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(r["families"][small], "Zeta");
    assert!(rest.iter().all(|m| r["families"][m] == "Alpha"));
    let a = args(&["--families", map.to_str().unwrap(), "--figures", fig.to_str().unwrap()]);
    let (code, _, err) = run(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, 0, "{err}");
    let svg = std::fs::read_to_string(fig.join("agreement.svg")).unwrap();
    let first_alpha = svg.find(&format!("{} (Alpha)", rest[0])).expect("labelled with the family");
    let zeta = svg.find(&format!("{small} (Zeta)")).expect("labelled with the family");
    assert!(first_alpha < zeta, "Alpha's models come before Zeta's");
    std::fs::write(&map, "{\"families\": 3}").unwrap();
    let a = args(&["--families", map.to_str().unwrap(), "--json"]);
    let (code, _, err) = run(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(code != 0 && err.contains("families.json") && err.contains("not a model family mapping"), "{err}");
}

#[test]
fn compare_pairs_two_runs_and_its_numbers_equal_a_hand_computed_example() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let a = result_file(
        dir,
        "a.json",
        "m-a",
        "brainagent",
        1,
        vec![
            instance("i1", "case1/case1_1.json", 1.0, 100.0, "numeric_check", 1.0, &[]),
            instance("i2", "case1/case1_2.json", 3.0, 50.0, "set_match_check", 0.5, &[]),
            instance("i3", "case1/case1_3.json", 1.0, 20.0, "numeric_check", 0.2, &[]),
        ],
    );
    let b = result_file(
        dir,
        "b.json",
        "m-b",
        "codeact",
        1,
        vec![
            instance("i2", "case1/case1_2.json", 3.0, 100.0, "set_match_check", 1.0, &[]),
            instance("i1", "case1/case1_1.json", 1.0, 0.0, "numeric_check", 0.0, &[]),
            instance(
                "i3",
                "case1/case1_3.json",
                1.0,
                0.0,
                "numeric_check",
                0.0,
                &["api_infrastructure_error: target: HTTP 503"],
            ),
            instance("i4", "case1/case1_4.json", 1.0, 0.0, "numeric_check", 0.0, &[]),
        ],
    );
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let (code, out, err) = run(&["bench", "compare", a, b, "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["a"], "m-a · BrainAgent · run 1");
    assert_eq!(v["b"], "m-b · CodeAct · run 1");
    assert_eq!((v["rows"].as_array().unwrap().len(), v["scored"].as_u64()), (3, Some(2)));
    assert_eq!(v["only_b"], json!(["i4"]));
    // Both scored i1 (difficulty 1) and i2 (difficulty 3): A (100·1 + 50·3) / 4 = 62.5, B (0·1 + 100·3) / 4 = 75.
    assert!((v["overall_a"].as_f64().unwrap() - 62.5).abs() < 1e-9, "{v}");
    assert!((v["overall_b"].as_f64().unwrap() - 75.0).abs() < 1e-9, "{v}");
    let units = v["units"].as_array().unwrap();
    assert_eq!(units[0]["unit"], "numeric_check");
    assert_eq!(
        (units[0]["a"].as_f64(), units[0]["b"].as_f64(), units[0]["n"].as_u64()),
        (Some(1.0), Some(0.0), Some(1))
    );
    assert_eq!(units[1]["diff"].as_f64(), Some(0.5));
    // i3: B had an infrastructure failure, so no difference and it is counted as excluded.
    assert_eq!(v["rows"][2]["b"]["excluded"], true);
    assert_eq!(v["rows"][2]["b"]["failures"], json!(["infrastructure"]));

    let csv = dir.join("worse.csv");
    let (code, out, err) = run(&[
        "bench",
        "compare",
        a,
        b,
        "--change",
        "worse",
        "--unit",
        "numeric_check",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Overall (difficulty-weighted, instances both scored): A 62.50, B 75.00, B − A +12.50; better 1, worse 1, same 0"), "{out}");
    assert!(out.contains("Instances (1 of 3 shown)"), "{out}");
    let text = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[1].starts_with("i1,S,S/case1,easy,numeric_check,100,0,-100,10,10,"), "{text}");
    assert!(lines[1].ends_with(",,wrong"), "{text}");

    let (code, _, err) = run(&["bench", "compare", a, a]);
    assert!(code != 0 && err.contains("give two different result files"), "{err}");
    let broken = dir.join("broken.json");
    std::fs::write(&broken, "{\"instances\": [").unwrap();
    let (code, _, err) = run(&["bench", "compare", a, broken.to_str().unwrap()]);
    assert!(code != 0 && err.contains("broken.json"), "{err}");
    let (code, _, err) = run(&["bench", "compare", a, b, "--unit", "nope"]);
    assert!(code != 0 && err.contains("--unit nope: no shared instance scores it"), "{err}");
}

/// `bench report` names where a real run's numbers come from (model, paradigm, suite, instances, day) and
/// says nothing of the kind for simulated files.
#[test]
fn report_names_the_provenance_of_real_runs() {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/bench/demo/results");
    let (code, out, err) = common::run(&["bench", "report", demo.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("SIMULATED") && !out.contains("Real runs"), "{out}");
    // The same file made real: the provenance line comes from its experiment block.
    let d = tempfile::tempdir().unwrap();
    let mut r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(demo.join("simulated-large_codeact_run1.json")).unwrap())
            .unwrap();
    let e = r["experiment"].as_object_mut().unwrap();
    e.remove("simulated");
    e.insert("subset".into(), "bench-suite".into());
    e.insert("models".into(), serde_json::json!({"target": {"model": "local:qwen2.5-coder-1.5b"}}));
    let n = r["instances"].as_array().unwrap().len();
    let day: String = r["experiment"]["started_at"].as_str().unwrap().chars().take(10).collect();
    let f = d.path().join("real.json");
    std::fs::write(&f, r.to_string()).unwrap();
    let (code, out, err) = common::run(&["bench", "report", f.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let line = format!("local:qwen2.5-coder-1.5b · CodeAct · suite bench-suite · {n} instances · run {day}");
    assert!(out.contains("Real runs") && out.contains(&line), "{line}\n{out}");
    assert!(!out.contains("SIMULATED"), "{out}");
}

/// `bench report --shown-only` scores a scored answer that no tool or code output shows as 0: on the shipped
/// Qwen CodeAct run its Overall equals the plain report of the same file with those answers' metrics set to 0
/// by hand (the instances the failure-case table lists as answer_unshown), and is below the rule score.
#[test]
fn report_shown_only_zeroes_answers_no_output_shows() {
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/bench/real/qwen_codeact.json");
    let overall = |args: &[&str]| -> f64 {
        let (code, out, err) = run(&[&["bench", "report", "--json"], args].concat());
        assert_eq!(code, 0, "{err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        v["runs"][0]["scores"]["Overall"].as_f64().unwrap()
    };
    let rule = overall(&[shipped.to_str().unwrap()]);
    let shown = overall(&["--shown-only", shipped.to_str().unwrap()]);
    assert!(shown < rule, "{shown} < {rule}");
    // docs/bench.md's figures for this run: 17.47 by BrainBench's rules, 12.53 counting only shown answers.
    assert!((rule - 17.47).abs() < 0.005 && (shown - 12.53).abs() < 0.005, "{rule} {shown}");
    // The same by hand: the flagged instances' value metrics that scored set to 0.
    let (_, out, _) = run(&["bench", "report", "--json", shipped.to_str().unwrap()]);
    let report: Value = serde_json::from_str(&out).unwrap();
    let row = report["failure_cases"].as_array().unwrap().iter().find(|r| r["class"] == "answer_unshown").unwrap();
    let count = row["count"].as_u64().unwrap() as usize;
    let mut file: Value = serde_json::from_str(&std::fs::read_to_string(&shipped).unwrap()).unwrap();
    let mut edited = 0;
    for inst in file["instances"].as_array_mut().unwrap() {
        let id = inst["instance_id"].as_str().unwrap().to_string();
        let flagged = [
            "Foundational Analysis-case2-case2_1",
            "Foundational Analysis-case2-case2_2",
            "Foundational Analysis-case3-case3_2",
            "Neurocognitive Assessment-case3-case3_1",
        ];
        if !flagged.contains(&id.as_str()) {
            continue;
        }
        let mut lost = 0.0;
        for d in inst["metric_details"].as_object_mut().unwrap().values_mut() {
            if d["raw_score"].as_f64().unwrap() > 0.0 {
                lost += d["weighted_score"].as_f64().unwrap();
                d["raw_score"] = json!(0.0);
                d["weighted_score"] = json!(0.0);
            }
        }
        inst["total_score"] = json!((inst["total_score"].as_f64().unwrap() - lost).max(0.0));
        edited += 1;
    }
    assert_eq!((edited, count), (4, 4), "the four answer_unshown instances of docs/bench.md");
    let dir = tempfile::tempdir().unwrap();
    let by_hand = dir.path().join("qwen_codeact.json");
    std::fs::write(&by_hand, file.to_string()).unwrap();
    let hand = overall(&[by_hand.to_str().unwrap()]);
    assert!((shown - hand).abs() < 1e-9, "{shown} vs {hand}");
}
