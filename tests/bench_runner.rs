//! The bench runner with the BrainAgent (EEG) paradigm on the generated local suite (54 instances): a scripted
//! model recorded into a transcript, then replayed from the CLI — N = 1 and N = 8 give identical results,
//! `kill -9` + `--resume` loses nothing, infrastructure failures are rerun and excluded, target failures kept.

mod common;

use brainlens::bench::results::{Instance, ResultFile};
use brainlens::harness::runner::{Live, Models, Options, run};
use brainlens::llm::replay::Recorder;
use brainlens::llm::{ChatModel, ErrorClass, LlmError};
use brainlens::util::cancel::Cancel;
use common::eeg_scripted::EegScripted;
use common::same;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn suite(dir: &Path) -> PathBuf {
    let s = dir.join("suite");
    common::json(&["bench", "generate", "--out", s.to_str().unwrap(), "--json"]);
    s
}

fn models(m: Arc<dyn ChatModel>) -> Models {
    Models { target: m.clone(), parser: m, judge: None, vlm: None }
}

fn record(suite: &Path, transcript: &Path, out: &Path, model: EegScripted) -> ResultFile {
    let rec: Arc<dyn ChatModel> = Arc::new(Recorder::new(Arc::new(model), transcript, vec![]).unwrap());
    let opts = Options::new(suite, out);
    run(&opts, &models(rec), &Cancel::default(), &Live::default()).unwrap()
}

fn replay(suite: &Path, transcript: &Path, out: &Path, n: usize, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec![
        "bench",
        "run",
        suite.to_str().unwrap(),
        "--provider",
        "replay",
        "--transcript",
        transcript.to_str().unwrap(),
        "--concurrency",
        Box::leak(n.to_string().into_boxed_str()),
        "--out",
        out.to_str().unwrap(),
        "--json",
    ];
    args.extend_from_slice(extra);
    common::run(&args)
}

#[test]
fn fifty_instances_replayed_with_one_and_eight_workers_are_identical() {
    let d = tempfile::tempdir().unwrap();
    let s = suite(d.path());
    let t = d.path().join("t.jsonl");
    let recorded = record(&s, &t, &d.path().join("rec.json"), EegScripted::default());
    assert!(recorded.instances.len() >= 50, "{}", recorded.instances.len());
    // The scripted plans measure real values: band power, sleep statistics, kappa, HRV, event counts score.
    let by_id = |f: &ResultFile, id: &str| f.instances.iter().find(|i| i.instance_id.contains(id)).unwrap().clone();
    for id in [
        "case1-case1_1",
        "Sleep Assessment-case1-case1_1",
        "Sleep Assessment-case5-case5_1",
        "Physiological Integration-case1-case1_1",
    ] {
        let i = by_id(&recorded, id);
        assert_eq!(i.total_score, i.max_score, "{id}: {:?} {}", i.metric_details, i.agent_output);
    }
    // Artifacts written by the tools pass the file checks in the instance workspace (channels, rate, prefilter
    // band, average reference, npy shape), and are listed in the manifest with their hash.
    for task in ["case7-case7_1", "case8-case8_1", "case9-case9_1"] {
        let i = by_id(&recorded, &format!("Foundational Analysis-{task}"));
        assert_eq!(i.total_score, 100.0, "{task}: {:?}", i.metric_details);
        assert_eq!(i.artifact_manifest.as_array().unwrap().len(), 1);
    }
    // The invalid request: the agent reports the missing file and the parser says no data.
    let missing =
        recorded.instances.iter().find(|i| i.recording_id.as_str().is_some_and(|p| p.contains("missing"))).unwrap();
    assert_eq!(missing.parser_output["data_available"], json!(false));
    assert!(missing.agent_output.as_str().unwrap().contains("file not found"));
    for (n, name) in [(1, "n1.json"), (8, "n8.json")] {
        let (code, _, err) = replay(&s, &t, &d.path().join(name), n, &[]);
        assert_eq!(code, 0, "{err}");
    }
    let n1 = ResultFile::load(&d.path().join("n1.json")).unwrap();
    let n8 = ResultFile::load(&d.path().join("n8.json")).unwrap();
    same(&n1, &recorded);
    same(&n8, &n1);
    assert_eq!(n8.summary["total_score"], n1.summary["total_score"]);
    assert_eq!(n8.experiment["max_workers"], json!(8));
    // --repeat writes one file per run (RESULT.json, RESULT.r2.json); replayed runs agree.
    let (code, _, err) = replay(&s, &t, &d.path().join("rep.json"), 2, &["--limit", "3", "--repeat", "2"]);
    assert_eq!(code, 0, "{err}");
    let (r1, r2) = (
        ResultFile::load(&d.path().join("rep.json")).unwrap(),
        ResultFile::load(&d.path().join("rep.r2.json")).unwrap(),
    );
    assert_eq!(r1.instances.len(), 3);
    same(&r1, &r2);
    // The report reads it.
    let rep = common::json(&["bench", "report", d.path().join("n8.json").to_str().unwrap(), "--json"]);
    assert_eq!(rep["runs"][0]["paradigm"], json!("BrainAgent"), "{rep}");
    assert_eq!(rep["runs"][0]["instances"], json!(recorded.instances.len()));
}

#[test]
fn infrastructure_failures_are_rerun_and_excluded_target_failures_kept() {
    let d = tempfile::tempdir().unwrap();
    let s = suite(d.path());
    let t = d.path().join("t.jsonl");
    // Sleep case 1 (first binding): the route call times out once, then answers (rerun succeeds).
    // Sleep case 2 (first binding): times out every time (rerun twice, then kept as an infrastructure failure).
    // Physiological case 1: the model refuses the route step with a model error (a target failure, kept).
    let first = std::sync::Mutex::new(std::collections::HashSet::new());
    let model = EegScripted {
        over: Box::new(move |name, r| {
            if name != "route" {
                return None;
            }
            let text = r.messages.last().map(|m| m.content.clone()).unwrap_or_default();
            let timeout = || Err(LlmError::new(ErrorClass::ApiInfrastructureError, "scripted", "timed out after 30 s"));
            if text.contains("total sleep time in minutes") && first.lock().unwrap().insert(text.clone()) {
                return Some(timeout());
            }
            if text.contains("Report the sleep efficiency") {
                return Some(timeout());
            }
            if text.contains("mean heart rate in beats per minute") {
                return Some(Err(LlmError::model("scripted", "the model refused to answer")));
            }
            None
        }),
    };
    let recorded = record(&s, &t, &d.path().join("rec.json"), model);
    let check = |f: &ResultFile| {
        let tst: Vec<&Instance> =
            f.instances.iter().filter(|i| i.instance_id.contains("Sleep Assessment-case1-")).collect();
        assert!(
            tst.iter().all(|i| i.errors.is_empty() && i.extra["attempts"] == json!(2) && i.total_score == 100.0),
            "{:?}",
            tst[0].errors
        );
        let se: Vec<&Instance> =
            f.instances.iter().filter(|i| i.instance_id.contains("Sleep Assessment-case2-")).collect();
        assert!(se.iter().all(|i| i.is_infrastructure_failure() && i.extra["attempts"] == json!(3) && i.vrr == 0.0));
        let hr = f.instances.iter().find(|i| i.instance_id.contains("Physiological Integration-case1-")).unwrap();
        assert!(
            hr.errors.iter().any(|e| e.starts_with("agent_error")) && !hr.is_infrastructure_failure(),
            "{:?}",
            hr.errors
        );
        assert_eq!(hr.extra["attempts"], json!(1));
        assert_eq!(f.summary["failure_summary"]["api_infrastructure_error"], json!(3));
    };
    check(&recorded);
    // The same from the CLI with the replayed transcript (errors replay in order).
    let (code, _, err) = replay(&s, &t, &d.path().join("cli.json"), 4, &[]);
    assert_eq!(code, 0, "{err}");
    let cli = ResultFile::load(&d.path().join("cli.json")).unwrap();
    check(&cli);
    // The report's scores exclude the infrastructure failures.
    let rep = common::json(&["bench", "report", d.path().join("cli.json").to_str().unwrap(), "--json"]);
    assert!(rep.to_string().contains("api_infrastructure_error"), "{rep}");
}

#[test]
fn kill_minus_nine_then_resume_loses_nothing() {
    let d = tempfile::tempdir().unwrap();
    let s = suite(d.path());
    let t = d.path().join("t.jsonl");
    let full = record(&s, &t, &d.path().join("rec.json"), EegScripted::default());
    let out = d.path().join("run.json");
    // 40 ms per model call, 2 workers: about 0.5 s per instance; killed once 6 instances are written.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_brainlens"))
        .args([
            "bench",
            "run",
            s.to_str().unwrap(),
            "--provider",
            "replay",
            "--transcript",
            t.to_str().unwrap(),
            "--concurrency",
            "2",
            "--out",
            out.to_str().unwrap(),
        ])
        .env("BRAINLENS_REPLAY_DELAY_MS", "40")
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let before = loop {
        if let Ok(f) = ResultFile::load(&out) {
            if f.instances.len() >= 6 {
                break f;
            }
        }
        assert!(started.elapsed().as_secs() < 120, "the run never wrote 6 instances");
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let killed = ResultFile::load(&out).expect("the file survives a kill -9 (atomic rewrite)");
    assert!(killed.instances.len() >= before.instances.len() && killed.instances.len() < full.instances.len());
    let (code, _, err) = replay(&s, &t, &out, 2, &["--resume"]);
    assert_eq!(code, 0, "{err}");
    let resumed = ResultFile::load(&out).unwrap();
    same(&resumed, &full);
    // Every instance finished before the kill is kept as written (same start time), not rerun.
    for k in &killed.instances {
        let r = resumed.instances.iter().find(|i| i.instance_id == k.instance_id).unwrap();
        assert_eq!(r.started_at, k.started_at, "{}", k.instance_id);
        assert_eq!(r.timing_sec, k.timing_sec, "{}", k.instance_id);
    }
    assert_eq!(resumed.summary["completed_instance_count"], json!(full.instances.len()));
    // Without --resume an existing file is refused, never overwritten.
    let (code, _, err) = replay(&s, &t, &out, 2, &[]);
    assert_eq!(code, 1);
    assert!(err.contains("--resume"), "{err}");
}

/// For scripts/bench/runner_throughput.sh: the suite and the scripted transcript in $BRAINLENS_BENCH_DIR.
#[test]
#[ignore]
fn record_for_benchmark() {
    let dir = PathBuf::from(std::env::var("BRAINLENS_BENCH_DIR").expect("set BRAINLENS_BENCH_DIR"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let s = suite(&dir);
    record(&s, &dir.join("transcript.jsonl"), &dir.join("recorded.json"), EegScripted::default());
}

#[test]
fn the_semantic_judge_scores_knowledge_questions_and_is_audited() {
    let d = tempfile::tempdir().unwrap();
    let s = suite(d.path());
    let fa = s.join("Foundational_Analysis");
    let t = d.path().join("t.jsonl");
    // Cases 1_1, 1_2, 10_1 and 11_1 (FA-11: Welch vs multitaper, judged on the full report).
    let m: Arc<dyn ChatModel> = Arc::new(Recorder::new(Arc::new(EegScripted::default()), &t, vec![]).unwrap());
    let mut opts = Options::new(&fa, &d.path().join("rec.json"));
    opts.limit = Some(4);
    let rec = run(
        &opts,
        &Models { target: m.clone(), parser: m.clone(), judge: Some(m), vlm: None },
        &Cancel::default(),
        &Live::default(),
    )
    .unwrap();
    let check = |f: &ResultFile| {
        let k = f.instances.iter().find(|i| i.instance_id.ends_with("case11-case11_1")).unwrap();
        // The scripted judge answers {"score": 0.5}: half of the metric's weight, and the call is in the audit.
        assert_eq!(k.metric_details["welch_multitaper"].raw_score, 0.5, "{:?}", k.metric_details);
        assert_eq!(k.total_score, 50.0);
        let calls = k.sandbox["audit"]["judge"].as_array().unwrap();
        assert_eq!(calls.len(), 1);
        assert!(calls[0]["prompt"].as_str().unwrap().contains("Welch averages periodograms"));
        assert!(k.tokens("semantic") > 0.0);
        assert_eq!(
            f.experiment["models"]["semantic"]["model"].as_str().map(|s| s.ends_with("scripted:eeg")),
            Some(true)
        );
    };
    check(&rec);
    // From the CLI: --judge-model target judges with the replayed model; without a judge the unit scores 0.
    let out = d.path().join("cli.json");
    let (code, _, err) = replay(&fa, &t, &out, 2, &["--limit", "4", "--judge-model", "target"]);
    assert_eq!(code, 0, "{err}");
    check(&ResultFile::load(&out).unwrap());
    let out = d.path().join("nojudge.json");
    let (code, _, err) = replay(&fa, &t, &out, 2, &["--limit", "4"]);
    assert_eq!(code, 0, "{err}");
    let f = ResultFile::load(&out).unwrap();
    assert_eq!(f.instances.iter().find(|i| i.instance_id.ends_with("case11-case11_1")).unwrap().total_score, 0.0);
}

/// The official layout: case files apart from the prepared data. `--data-root` (Options::data_root) resolves
/// every data_path under it; a case whose data file is missing is reported (live notice and the experiment
/// block's `skipped_missing_data`, naming the file) and skipped, and the run goes on with the rest.
#[test]
fn data_root_resolves_the_official_layout_and_a_case_without_its_data_is_skipped() {
    let d = tempfile::tempdir().unwrap();
    let s = suite(d.path());
    // Cases of one subset copied away from the suite (no suite.json above them); the data stay in the suite.
    let cases = d.path().join("published/Foundational_Analysis");
    let mut stack = vec![s.join("Foundational_Analysis")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            let to = cases.join(p.strip_prefix(s.join("Foundational_Analysis")).unwrap());
            if p.is_dir() {
                std::fs::create_dir_all(&to).unwrap();
                stack.push(p);
            } else {
                std::fs::copy(&p, &to).unwrap();
            }
        }
    }
    let case_file = cases.join("cases/case1/case1_1.json");
    let mut case: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&case_file).unwrap()).unwrap();
    case["agent_input"]["data_path"] = json!("data/eeg/not_prepared.edf");
    std::fs::write(&case_file, case.to_string()).unwrap();
    let mut opts = Options::new(&cases, &d.path().join("out.json"));
    opts.data_root = Some(s.clone());
    opts.limit = Some(2);
    let live = Live::default();
    let r = run(&opts, &models(Arc::new(EegScripted::default())), &Cancel::default(), &live).unwrap();
    assert_eq!(r.instances.len(), 2);
    assert!(r.instances.iter().all(|i| i.case_id != case["meta_info"]["case_id"]));
    let skipped = r.experiment["skipped_missing_data"].as_array().expect("skipped cases recorded").clone();
    assert_eq!(skipped.len(), 1);
    let why = skipped[0].as_str().unwrap();
    assert!(why.contains("case1_1.json") && why.contains("data/eeg/not_prepared.edf"), "{why}");
    assert_eq!(r.experiment["data_root"], json!(s.display().to_string()));
    // Without --data-root the copied cases find no data beside them: each case with a data file is skipped
    // and named; a knowledge question (no data) and a case that expects its data missing still run.
    let mut opts = Options::new(&cases, &d.path().join("out2.json"));
    opts.limit = Some(2);
    let r = run(&opts, &models(Arc::new(EegScripted::default())), &Cancel::default(), &live).unwrap();
    let skipped = r.experiment["skipped_missing_data"].as_array().unwrap();
    assert!(skipped.len() > 10 && skipped.iter().all(|w| w.as_str().unwrap().contains("is not under")));
    for i in &r.instances {
        assert!(
            i.recording_id.is_null() || i.recording_id.as_str().unwrap().contains("missing"),
            "{:?}",
            i.recording_id
        );
    }
}

/// `bench run --reasoning-effort` against an OpenAI-compatible endpoint (a scripted loopback server whose
/// model answers nonsense): every request carries the effort, the result file records it for the target, and
/// `bench report` keeps the run apart under "model [effort]" and in its reasoning-effort table.
#[test]
fn reasoning_effort_is_sent_recorded_and_grouped_by_the_report() {
    use common::fake_openai::{Reply, fake, ok_body};
    let d = tempfile::tempdir().unwrap();
    let s = suite(d.path());
    let f = fake(vec![Reply::Ok(ok_body("I am not sure.")); 400]);
    let out = d.path().join("effort.json");
    let (code, _, err) = common::run(&[
        "bench",
        "run",
        s.to_str().unwrap(),
        "--base-url",
        &f.url,
        "--model",
        "fake-reasoner",
        "--reasoning-effort",
        "High",
        "--limit",
        "1",
        "--out",
        out.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    // The local model cannot be the vision judge.
    let refused = d.path().join("refused.json");
    let (code, _, err) =
        common::run(&["bench", "run", s.to_str().unwrap(), "--vlm-model", "local", "--out", refused.to_str().unwrap()]);
    assert!(code != 0 && err.contains("reads text only"), "{err}");
    let requests = f.requests.lock().unwrap();
    assert!(!requests.is_empty());
    assert!(requests.iter().all(|(_, body)| body["reasoning_effort"] == "high"), "every request carries it");
    drop(requests);
    let r = ResultFile::load(&out).unwrap();
    assert_eq!(r.experiment["models"]["target"]["reasoning_effort"], "high");
    assert_eq!(r.target_reasoning_effort().as_deref(), Some("high"));
    let report = common::json(&["bench", "report", out.to_str().unwrap(), "--json"]);
    assert_eq!(report["models"], json!(["openai:fake-reasoner [high]"]));
    let overall: Vec<&serde_json::Value> =
        report["reasoning_effort"].as_array().unwrap().iter().filter(|c| c["key"] == "Overall").collect();
    assert_eq!(overall.len(), 1);
    assert_eq!(
        (&overall[0]["model"], &overall[0]["reasoning_effort"], &overall[0]["n"]),
        (&json!("openai:fake-reasoner"), &json!("high"), &json!(1))
    );
    // The Figs 6/12 grid: one row (model · paradigm), one column per effort.
    let fig = d.path().join("fig");
    let (code, _, err) = common::run(&["bench", "report", out.to_str().unwrap(), "--figures", fig.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let svg = std::fs::read_to_string(fig.join("reasoning_effort.svg")).unwrap();
    assert!(svg.contains("openai:fake-reasoner · BrainAgent") && svg.contains(">high<"), "{svg}");
}

/// A report that claims a load, a filter and PSDs when no tool ran (the capable model's failure), asked again
/// and still claiming them, has those sentences struck: in the instance's trace, in the failure-case table,
/// and the delivered report holds markers in their place; a report of work that ran is not touched.
#[test]
fn reports_claiming_work_nothing_did_are_flagged() {
    let d = tempfile::tempdir().unwrap();
    let s = suite(d.path());
    let claims = "The EEG data file was successfully loaded. The EEG channels were filtered between 0.5 and 40 Hz. \
                  Welch PSDs were computed for each channel.";
    let model = EegScripted::with(move |name, _| match name {
        "plan" => Some(Ok(json!({"thought": "nothing to do", "steps": [], "done": true}))),
        "" => Some(Ok(json!(claims))),
        _ => None,
    });
    let mut opts = Options::new(&s.join("Foundational_Analysis"), &d.path().join("r.json"));
    opts.limit = Some(2);
    let f = run(&opts, &models(Arc::new(model)), &Cancel::default(), &Live::default()).unwrap();
    for i in &f.instances {
        let t = &i.sandbox["trace"];
        let works: Vec<&str> =
            t["struck_claims"].as_array().unwrap().iter().map(|c| c["work"].as_str().unwrap()).collect();
        assert_eq!(works, ["load", "filter", "spectrum"], "{}", i.instance_id);
        assert!(t["ungrounded_claims"].is_null(), "the delivered report claims nothing: {}", i.report());
        assert_eq!(t["report_as_written"], json!(claims));
        assert_eq!(i.report().matches("[struck by BrainLens: ").count(), 3, "{}", i.report());
    }
    let rep = common::json(&["bench", "report", d.path().join("r.json").to_str().unwrap(), "--json"]);
    let class = |c: &str| -> Vec<serde_json::Value> {
        rep["failure_cases"].as_array().unwrap().iter().filter(|r| r["class"] == c).cloned().collect()
    };
    let rows = class("claims_struck");
    assert_eq!(rows.len(), 1, "{rep}");
    assert_eq!(rows[0]["count"], json!(2));
    assert!(class("ungrounded_report").is_empty(), "{rep}");
    // The default scripted run loads and measures before its report: nothing to flag.
    let mut opts = Options::new(&s.join("Foundational_Analysis"), &d.path().join("ok.json"));
    opts.limit = Some(2);
    let f = run(&opts, &models(Arc::new(EegScripted::default())), &Cancel::default(), &Live::default()).unwrap();
    assert!(f.instances.iter().all(|i| i.sandbox["trace"]["ungrounded_claims"].is_null()));
    assert!(f.instances.iter().all(|i| i.sandbox["trace"]["struck_claims"].is_null()));
}
