//! The CodeAct paradigm end to end: a scripted model writes real analysis code (pandas, scikit-learn, mne,
//! scipy) that runs in the sandboxed kernel with the CodeAct environment; recorded, then replayed from the CLI
//! with 2 workers — same scores; the experiment block records the sandbox; rounds (code, observation, hashes)
//! are in each instance. Repeated identical failures stop the loop and force a solution. Needs bubblewrap and
//! the environment of scripts/setup_python.sh (required under scripts/test.sh).

mod common;

use brainlens::bench::results::ResultFile;
use brainlens::harness::runner::{Live, Models, Options, Paradigm, run};
use brainlens::llm::replay::Recorder;
use brainlens::llm::{ChatModel, ResponseFormat, Role};
use brainlens::util::cancel::Cancel;
use common::codeact_scripted::CodeActScripted;
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;

fn ready() -> bool {
    common::codeact_ready()
}

fn record(cases: &Path, out: &Path, transcript: &Path, limit: usize, model: CodeActScripted) -> ResultFile {
    let m: Arc<dyn ChatModel> = Arc::new(Recorder::new(Arc::new(model), transcript, vec![]).unwrap());
    let mut opts = Options::new(cases, out);
    opts.paradigm = Paradigm::CodeAct;
    opts.limit = Some(limit);
    run(&opts, &Models { target: m.clone(), parser: m, judge: None, vlm: None }, &Cancel::default(), &Live::default())
        .unwrap()
}

#[test]
fn codeact_runs_real_code_in_the_sandbox_and_replays() {
    if !ready() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let s = d.path().join("suite");
    common::json(&["bench", "generate", "--out", s.to_str().unwrap(), "--json"]);
    let t = d.path().join("t.jsonl");
    // Sleep: TST ×3, SE ×3, REM latency (no script: inspects only), …; Foundational: band power ×2 (mne).
    let sleep = record(&s.join("Sleep_Assessment"), &d.path().join("sleep.json"), &t, 7, CodeActScripted::default());
    let fa = record(&s.join("Foundational_Analysis"), &d.path().join("fa.json"), &t, 2, CodeActScripted::default());
    assert_eq!(sleep.experiment["sandbox"]["mode"], json!("bubblewrap"));
    assert_eq!(sleep.experiment["evaluation_mode"], json!("codeact"));
    for i in sleep.instances.iter().take(6).chain(&fa.instances) {
        assert_eq!(i.total_score, i.max_score, "{}: {} {:?}", i.instance_id, i.agent_output, i.sandbox["rounds"]);
        let rounds = i.sandbox["rounds"].as_array().unwrap();
        assert_eq!(rounds.len(), 2, "execute, then solution");
        assert!(rounds[0]["code"].as_str().unwrap().contains("/input/data/"));
        let trace = &i.sandbox["trace"];
        assert_eq!(trace["ended_by"], json!("solution"));
        assert_eq!(trace["rounds"][0]["code_sha256"].as_str().unwrap().len(), 64);
        assert_eq!(i.sandbox["kernel"]["process_limit"], json!("cgroup"));
    }
    // From the CLI with the replayed transcript and 2 workers: the same scores.
    let out = d.path().join("cli.json");
    let (code, _, err) = common::run(&[
        "bench",
        "run",
        s.join("Sleep_Assessment").to_str().unwrap(),
        "--paradigm",
        "codeact",
        "--limit",
        "7",
        "--provider",
        "replay",
        "--transcript",
        t.to_str().unwrap(),
        "--concurrency",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let cli = ResultFile::load(&out).unwrap();
    let scores =
        |f: &ResultFile| f.instances.iter().map(|i| (i.instance_id.clone(), i.total_score)).collect::<Vec<_>>();
    assert_eq!(scores(&cli), scores(&sleep));
    // The report compares paradigms once a BrainAgent run of the same cases is beside it.
    let rep = common::json(&["bench", "report", out.to_str().unwrap(), "--json"]);
    assert_eq!(rep["runs"][0]["paradigm"], json!("CodeAct"), "{rep}");
}

#[test]
fn repeated_failures_force_a_solution() {
    if !ready() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let s = d.path().join("suite");
    common::json(&["bench", "generate", "--out", s.to_str().unwrap(), "--json"]);
    // The model keeps running code that fails the same way; after two identical failures it is told to answer.
    let model = CodeActScripted {
        over: Some(Box::new(|r| {
            let users: Vec<&str> =
                r.messages.iter().filter(|m| m.role == Role::User).map(|m| m.content.as_str()).collect();
            if users.last().is_some_and(|u| u.starts_with("This is the last turn")) {
                return Some(Ok(Value::String("<solution>\nI could not compute it.\n".into())));
            }
            if matches!(r.format, ResponseFormat::Tagged { .. }) {
                return Some(Ok(Value::String("<execute>\nimport numpy as np\nnp.load('/input/nope.npy')\n".into())));
            }
            None
        })),
    };
    let f = record(&s.join("Sleep_Assessment"), &d.path().join("f.json"), &d.path().join("t.jsonl"), 1, model);
    let i = &f.instances[0];
    let trace = &i.sandbox["trace"];
    assert_eq!(trace["ended_by"], json!("forced_solution"), "{trace}");
    let rounds = trace["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 3, "two failures, then the forced solution");
    assert!(rounds[0]["observation"].as_str().unwrap().contains("FileNotFoundError"));
    assert_eq!(i.agent_output, json!("I could not compute it."));
}

#[test]
fn replies_without_an_action_stop_the_loop() {
    if !ready() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let s = d.path().join("suite");
    common::json(&["bench", "generate", "--out", s.to_str().unwrap(), "--json"]);
    // Prose every turn (a remote model may reply so; the local grammar opens every reply with a tag): two such
    // replies end the loop; the last turn still has no solution.
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let tags = seen.clone();
    let model = CodeActScripted {
        over: Some(Box::new(move |r| match &r.format {
            ResponseFormat::Tagged { tags: t } => {
                tags.lock().unwrap().push(t.clone());
                Some(Ok(Value::String("The task is to load the data file and report the value.".into())))
            }
            _ => None,
        })),
    };
    let f = record(&s.join("Sleep_Assessment"), &d.path().join("f.json"), &d.path().join("t.jsonl"), 1, model);
    let i = &f.instances[0];
    assert_eq!(i.sandbox["trace"]["ended_by"], json!("repeated_failures"), "{}", i.sandbox["trace"]);
    assert_eq!(i.sandbox["trace"]["rounds"].as_array().unwrap().len(), 3);
    assert!(i.errors.iter().any(|e| e.starts_with("agent_error") && e.contains("no <solution>")), "{:?}", i.errors);
    assert_eq!(i.vrr, 0.0);
    // Locally the reply must open with code until some has run; the last turn must answer.
    let seen = seen.lock().unwrap();
    assert_eq!(*seen, [vec!["execute"], vec!["execute"], vec!["solution"]]);
}

/// A whole `bench run` with an image artifact: the CodeAct agent draws a PNG in the sandbox, and the vision
/// judge (a scripted model, given as `Models::vlm`) receives it as an image input with the case's
/// `vlm_prompt`; its score is the metric's raw score and its tokens and call are recorded.
#[test]
fn a_run_sends_image_artifacts_to_the_vision_judge() {
    if !ready() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let case = d.path().join("Vision/cases/case1/case1_1.json");
    std::fs::create_dir_all(case.parent().unwrap()).unwrap();
    let metric = json!({"metric_id": "topomap", "type": "file_status_check", "target_key": "artifact_path",
        "weight": 100, "params": {"match_mode": "image_file_match",
            "validator_config": {"vlm_prompt": {"value": "Is this a red square?", "weight": 1}}}});
    let body = json!({"meta_info": {"case_id": "vision_1", "bench_subset": "Vision", "difficult": 1},
        "agent_input": {"instruction": "Draw the topomap and save it as /workspace/file_check/topomap.png."},
        "eval_config": {"parser_prompt": "Return the artifact path.", "metrics": [metric]}});
    std::fs::write(&case, body.to_string()).unwrap();
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let images = seen.clone();
    let vlm = CodeActScripted {
        over: Some(Box::new(move |r| {
            let m = r.messages.iter().find(|m| !m.images.is_empty())?;
            images.lock().unwrap().push((r.messages[0].content.clone(), m.images[0].clone()));
            Some(Ok(json!({"score": 0.75, "reason": "a red square"})))
        })),
    };
    let mut opts = Options::new(&case, &d.path().join("vision.json"));
    opts.paradigm = Paradigm::CodeAct;
    let m: Arc<dyn ChatModel> = Arc::new(CodeActScripted::default());
    let models = Models { target: m.clone(), parser: m, judge: None, vlm: Some(Arc::new(vlm)) };
    let f = run(&opts, &models, &Cancel::default(), &Live::default()).unwrap();
    let i = &f.instances[0];
    let detail = &i.metric_details["topomap"];
    assert_eq!((detail.raw_score, detail.weighted_score), (0.75, 75.0), "{detail:?} {:?}", i.errors);
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1, "one image, judged once");
    assert!(seen[0].0.contains("Is this a red square?"), "{}", seen[0].0);
    assert!(seen[0].1.starts_with("data:image/png;base64,iVBOR"), "the PNG drawn in the sandbox");
    assert!(i.tokens("vlm") > 0.0, "{:?}", i.token_usage);
    assert_eq!(i.sandbox["audit"]["vlm"].as_array().map(Vec::len), Some(1), "{}", i.sandbox["audit"]);
}
