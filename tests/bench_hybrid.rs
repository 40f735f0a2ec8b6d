//! The hybrid paradigm end to end with a scripted model: validated tools first, then a `python` step whose
//! block runs in the CodeAct sandbox with the tools' results loaded as `state`; the trace marks each step's
//! kind, the printed output is a labelled result in the report, the failure-case table counts step kinds.
//! The code rule keeps `python` off the menu until it allows it (a plan naming it early is refused), and the
//! hybrid's blocks cannot leave the sandbox (the escape attempts of tests/sandbox.rs, through the hybrid's
//! own driver). Needs bubblewrap and the environment of scripts/setup_python.sh (required under
//! scripts/test.sh).

mod common;

use brainlens::agent::eeg::CodeRule;
use brainlens::bench::aggregate::failure_cases::step_kinds;
use brainlens::bench::results::ResultFile;
use brainlens::harness::runner::{Live, Models, Options, Paradigm, run};
use brainlens::llm::replay::Recorder;
use brainlens::llm::{ChatModel, ChatRequest, ResponseFormat, Role};
use brainlens::util::cancel::Cancel;
use common::eeg_scripted::{EegScripted, answer};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;

fn ready() -> bool {
    common::codeact_ready()
}

fn first_user(r: &ChatRequest) -> String {
    r.messages.iter().find(|m| m.role == Role::User).map(|m| m.content.clone()).unwrap_or_default()
}

/// A planner's prompt as the model reads it: the system message (the agent, its tool menu, the instructions)
/// and the first user message (the task, the state, the usable tools).
fn plan_text(r: &ChatRequest) -> String {
    let system = r.messages.iter().find(|m| m.role == Role::System).map(|m| m.content.as_str()).unwrap_or("");
    format!("{system}\n{}", first_user(r))
}

fn round_of(r: &ChatRequest) -> usize {
    let text = first_user(r);
    let rest = text.split("planning: round ").nth(1).unwrap_or("1");
    rest.chars().take_while(char::is_ascii_digit).collect::<String>().parse().unwrap_or(1)
}

/// A scripted model whose round-2 plan is one `python` step and whose code step answers with `code`.
fn scripted(code: &'static str) -> EegScripted {
    EegScripted::with(move |name, r| {
        if matches!(r.format, ResponseFormat::Tagged { .. }) {
            return Some(Ok(Value::String(format!("<execute>\n{code}\n"))));
        }
        if name != "plan" {
            return None;
        }
        match round_of(r) {
            1 => Some(Ok(answer(r))),
            2 => Some(Ok(json!({"done": false, "thought": "no tool prints the state",
                "steps": [{"tool": "python", "args": {"purpose": "list what the tools registered"}}]}))),
            _ => Some(Ok(json!({"done": true, "thought": "done", "steps": []}))),
        }
    })
}

/// What a scripted model's closure records (prompts, code requests), and the handle the test reads it through.
type Log = Arc<std::sync::Mutex<Vec<String>>>;

fn log() -> (Log, Log) {
    let log = Log::default();
    (log.clone(), log)
}

/// A plan of one step, not done.
fn one_step(tool: &str, args: Value) -> Value {
    json!({"done": false, "thought": "t", "steps": [{"tool": tool, "args": args}]})
}

/// A scripted model whose plans come from `plan(round, prompt, request)` (the default script answers every
/// other step), each planner prompt logged in `seen` as the model reads it (`plan_text`), and the report's prompt
/// after them.
fn logged_plans(seen: Log, plan: impl Fn(usize, &str, &ChatRequest) -> Value + Send + Sync + 'static) -> EegScripted {
    EegScripted::with(move |name, r| {
        if name.is_empty() && first_user(r).contains("Write the final report") {
            seen.lock().unwrap().push(first_user(r));
            return None;
        }
        if name != "plan" {
            return None;
        }
        let text = plan_text(r);
        seen.lock().unwrap().push(text.clone());
        Some(Ok(plan(round_of(r), &text, r)))
    })
}

fn suite(d: &Path) -> std::path::PathBuf {
    let s = d.join("suite");
    common::json(&["bench", "generate", "--out", s.to_str().unwrap(), "--json"]);
    s
}

fn hybrid(cases: &Path, out: &Path, model: EegScripted, rule: CodeRule) -> ResultFile {
    hybrid_n(cases, out, Arc::new(model), rule, 1)
}

fn hybrid_n(cases: &Path, out: &Path, m: Arc<dyn ChatModel>, rule: CodeRule, limit: usize) -> ResultFile {
    let mut opts = Options::new(cases, out);
    opts.paradigm = Paradigm::Hybrid;
    opts.code_rule = rule;
    opts.limit = Some(limit);
    run(&opts, &Models { target: m.clone(), parser: m, judge: None, vlm: None }, &Cancel::default(), &Live::default())
        .unwrap()
}

fn steps(i: &brainlens::bench::results::Instance) -> Vec<Value> {
    let rounds = i.sandbox["trace"]["rounds"].as_array().unwrap();
    rounds.iter().flat_map(|r| r["executed"].as_array().unwrap().clone()).collect()
}

#[test]
fn hybrid_runs_tools_then_a_code_step_in_the_sandbox() {
    if !ready() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let s = suite(d.path());
    let code = "import os\nprint('ids', sorted(state))\nprint('recordings', recordings)\nprint('first', state['r1']['what'] if 'r1' in state else None)\nprint('cases visible', os.path.exists('/input/suite.json'))";
    // Recorded, so the CLI's Slurm shards below replay the same model.
    let t = d.path().join("t.jsonl");
    let m: Arc<dyn ChatModel> = Arc::new(Recorder::new(Arc::new(scripted(code)), &t, vec![]).unwrap());
    let fa = s.join("Foundational_Analysis");
    let f = hybrid_n(&fa, &d.path().join("h.json"), m, CodeRule::AfterTools, 2);
    assert_eq!(f.experiment["evaluation_mode"], json!("hybrid"));
    assert_eq!(f.experiment["code_rule"], json!("after-tools"));
    assert_eq!(f.experiment["sandbox"]["mode"], json!("bubblewrap"));
    assert_eq!(f.instances.len(), 2);
    let i = &f.instances[0];
    assert_eq!(i.sandbox["trace"]["paradigm"], json!("hybrid"));
    let steps = steps(i);
    let code_step = steps.iter().find(|s| s["kind"] == "code").expect("a code step ran");
    assert_eq!(code_step["status"], json!("ok"), "{code_step}");
    assert!(steps.iter().any(|s| s.get("kind").is_none() && s["status"] == "ok"), "tool steps ran first");
    let printed = code_step["observation"]["printed"].as_str().unwrap();
    // The tools' results are the code's `state`; the suite's case files (reference answers) are not visible.
    assert!(printed.contains("ids ['r1'") && printed.contains("recordings {'rec1':"), "{printed}");
    assert!(printed.contains("cases visible False"), "{printed}");
    assert_eq!(code_step["code"][0]["failed"], json!(false));
    assert_eq!(i.sandbox["kernel"]["mode"], json!("bubblewrap"));
    // The printed output is in the report's measured section, labelled as code the model wrote.
    let report = i.agent_output.as_str().unwrap();
    assert!(report.contains("printed by a python step (code the model wrote"), "{report}");
    assert_eq!(step_kinds(i), "tool+code");
    // The failure-case table says which step kinds the instances used.
    let rep = common::json(&["bench", "report", d.path().join("h.json").to_str().unwrap(), "--json"]);
    assert_eq!(rep["runs"][0]["paradigm"], json!("Hybrid"), "{rep}");
    for row in rep["failure_cases"].as_array().unwrap() {
        assert_eq!(row["step_kinds"], json!({"tool+code": row["count"]}), "{row}");
    }
    // As Slurm shards (the scripts `bench slurm` writes, run as Slurm would run them), replayed: the same
    // scores and step kinds as the run above.
    let dir = d.path().join("slurm");
    let (code, _, err) = common::run(&[
        "bench",
        "slurm",
        fa.to_str().unwrap(),
        "--shards",
        "2",
        "--out-dir",
        dir.to_str().unwrap(),
        "--",
        "--paradigm",
        "hybrid",
        "--code-rule",
        "after-tools",
        "--limit",
        "2",
        "--provider",
        "replay",
        "--transcript",
        t.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    common::run_slurm_scripts(&dir, 2);
    let merged = ResultFile::load(&dir.join("result.json")).unwrap();
    let seen = |f: &ResultFile| {
        f.instances.iter().map(|i| (i.instance_id.clone(), i.total_score, step_kinds(i))).collect::<Vec<_>>()
    };
    assert_eq!(seen(&merged), seen(&f));
    assert_eq!(merged.experiment["code_rule"], json!("after-tools"));
    // Compare pairs the hybrid with a BrainAgent run of the same cases.
    let m: Arc<dyn ChatModel> = Arc::new(EegScripted::default());
    let mut opts = Options::new(&fa, &d.path().join("b.json"));
    opts.limit = Some(2);
    run(&opts, &Models { target: m.clone(), parser: m, judge: None, vlm: None }, &Cancel::default(), &Live::default())
        .unwrap();
    let (h, b) = (d.path().join("h.json"), d.path().join("b.json"));
    let v = common::json(&["bench", "compare", h.to_str().unwrap(), b.to_str().unwrap(), "--json"]);
    assert!(v["a"].as_str().unwrap().contains("Hybrid") && v["b"].as_str().unwrap().contains("BrainAgent"), "{v}");
    assert_eq!(v["rows"].as_array().unwrap().len(), 2, "{v}");
}

#[test]
fn the_code_rule_keeps_python_off_the_menu_until_it_allows() {
    if !ready() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let s = suite(d.path());
    let (prompts, seen) = log();
    let inner = scripted("print('ran')");
    let model = EegScripted::with(move |name, r| {
        if name == "plan" {
            seen.lock().unwrap().push(plan_text(r));
        }
        (inner.over)(name, r)
    });
    // On failure: every tool step of round 1 runs, so python is not on round 2's menu; naming it is refused.
    let f = hybrid(&s.join("Foundational_Analysis"), &d.path().join("f.json"), model, CodeRule::OnFailure);
    let i = &f.instances[0];
    let python = steps(i).into_iter().find(|s| s["tool"] == "python").expect("the plan named python");
    assert_eq!(python["status"], json!("not_executable"), "{python}");
    assert!(python["error"].as_str().unwrap().contains("only if a tool step fails"), "{python}");
    assert_eq!(python["kind"], json!("code"));
    assert!(python["code"].is_null());
    assert!(i.sandbox["kernel"].is_null(), "no block ran, so no kernel started");
    // Until the rule allows it, python is neither described nor offered: the prompts are BrainAgent's own.
    let prompts = prompts.lock().unwrap();
    // (Round 3's prompt names python only among the last steps, as refused.)
    assert!(prompts.len() >= 3 && prompts[..2].iter().all(|p| !p.contains("python")), "{}", prompts[1]);
    assert!(prompts.iter().all(|p| !p.contains("- python(") && !p.contains(", python")), "{}", prompts[2]);
    let (brainagent, seen) = log();
    let m: Arc<dyn ChatModel> = Arc::new(EegScripted::with(move |name, r| {
        if name == "plan" {
            seen.lock().unwrap().push(plan_text(r));
        }
        None
    }));
    let mut opts = Options::new(&s.join("Foundational_Analysis"), &d.path().join("b.json"));
    opts.limit = Some(1);
    run(&opts, &Models { target: m.clone(), parser: m, judge: None, vlm: None }, &Cancel::default(), &Live::default())
        .unwrap();
    let brainagent = brainagent.lock().unwrap();
    assert_eq!(brainagent[0], prompts[0], "round 1 is planned from the same prompt");
}

#[test]
fn hybrid_code_cannot_leave_the_sandbox() {
    if !ready() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let s = suite(d.path());
    let home = std::env::var("HOME").unwrap();
    let secret = Path::new(&home).join(format!(".brainlens-hybrid-secret-{}", std::process::id()));
    std::fs::write(&secret, "secret").unwrap();
    let code: &'static str = Box::leak(
        format!(
            r#"import os, socket
def attempt(name, f):
    try:
        f(); print(name, "ALLOWED")
    except Exception as e:
        print(name, "refused", type(e).__name__)
attempt("write_input", lambda: open("/input/new.txt", "w"))
attempt("write_root", lambda: open("/escape.txt", "w"))
attempt("write_parent", lambda: open("/workspace/../escape.txt", "w"))
attempt("read_home", lambda: open({secret:?}).read())
attempt("read_cases", lambda: open("/input/suite.json").read())
s = socket.socket(); s.settimeout(2)
attempt("network", lambda: s.connect(("1.1.1.1", 53)))"#,
            secret = secret.display().to_string()
        )
        .into_boxed_str(),
    );
    let f = hybrid(&s.join("Foundational_Analysis"), &d.path().join("e.json"), scripted(code), CodeRule::Always);
    std::fs::remove_file(&secret).unwrap();
    let i = &f.instances[0];
    let code_step = steps(i).into_iter().find(|s| s["kind"] == "code").expect("a code step ran");
    let printed = code_step["observation"]["printed"].as_str().unwrap().to_string();
    for name in ["write_input", "write_root", "write_parent", "read_home", "read_cases", "network"] {
        assert!(printed.contains(&format!("{name} refused")), "{name}: {printed}");
    }
    assert!(!printed.contains("ALLOWED"), "{printed}");
    assert!(!s.join("new.txt").exists() && !s.join("data").join("new.txt").exists());
    assert_eq!(i.sandbox["kernel"]["mode"], json!("bubblewrap"));
}

/// A block that prints nothing computed nothing the step can register: it is asked again once, told so, and
/// the step then fails with that reason (nothing of it reaches the report's measured section).
#[test]
fn a_block_that_prints_nothing_is_asked_again_and_the_step_fails() {
    if !ready() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let s = suite(d.path());
    let (asked, seen) = log();
    let inner = scripted("import os\nx = 1");
    let model = EegScripted::with(move |name, r| {
        if matches!(r.format, ResponseFormat::Tagged { .. }) {
            seen.lock().unwrap().push(r.messages.last().unwrap().content.clone());
        }
        (inner.over)(name, r)
    });
    let f = hybrid(&s.join("Foundational_Analysis"), &d.path().join("n.json"), model, CodeRule::AfterTools);
    let i = &f.instances[0];
    let code_step = steps(i).into_iter().find(|s| s["kind"] == "code").expect("a code step");
    assert_eq!(code_step["status"], json!("failed"), "{code_step}");
    assert_eq!(code_step["error"], json!("python: the block printed nothing"));
    assert_eq!(code_step["code"].as_array().unwrap().len(), 2, "asked again once");
    let asked = asked.lock().unwrap();
    assert!(asked.len() == 2 && asked[1].contains("The block printed nothing"), "{asked:?}");
    assert!(!i.agent_output.as_str().unwrap().contains("printed by a python step"));
}

/// The code-step budget holds inside one round too: a plan of three python steps with `--code-steps 2` runs
/// two, and the third is refused with the reason. The Instances view shows the steps' kinds and the blocks.
#[test]
fn the_code_step_budget_holds_within_a_round_and_the_instance_view_shows_the_kinds() {
    if !ready() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let s = suite(d.path());
    let model = EegScripted::with(move |name, r| {
        if matches!(r.format, ResponseFormat::Tagged { .. }) {
            return Some(Ok(Value::String("<execute>\nprint('n', len(state))\n".into())));
        }
        if name != "plan" {
            return None;
        }
        let py = |k: usize| json!({"tool": "python", "args": {"purpose": format!("value {k}")}});
        match round_of(r) {
            1 => Some(Ok(answer(r))),
            2 => Some(Ok(json!({"done": false, "thought": "code", "steps": [py(1), py(2), py(3)]}))),
            _ => Some(Ok(json!({"done": true, "thought": "done", "steps": []}))),
        }
    });
    let out = d.path().join("b.json");
    let f = hybrid(&s.join("Foundational_Analysis"), &out, model, CodeRule::Always);
    let python: Vec<Value> = steps(&f.instances[0]).into_iter().filter(|s| s["tool"] == "python").collect();
    let status: Vec<&str> = python.iter().map(|s| s["status"].as_str().unwrap()).collect();
    assert_eq!(status, ["ok", "ok", "not_executable"], "{python:?}");
    assert!(python[2]["error"].as_str().unwrap().contains("2 code step(s) are spent"), "{}", python[2]);
    // In the room: the Instances view marks each step's kind and shows a code step's block.
    let mut app = brainlens::ui::app::BrainLensApp::new(None, false);
    app.open(out.clone());
    app.bench.finish_loading();
    let mut h = egui_kittest::Harness::builder()
        .with_size([1400.0, 2400.0])
        .build_ui_state(|ui, app: &mut brainlens::ui::app::BrainLensApp| app.show(ui), app);
    h.state_mut().bench.view = brainlens::ui::bench::View::Instances;
    h.state_mut().bench.instances.selected = Some((0, 0));
    h.run_steps(3);
    use egui_kittest::kittest::Queryable;
    h.get_by_label("Hybrid trace (tool and code steps)");
    assert!(h.query_all_by_label("[code]").count() >= 3, "each python step is marked code");
    assert!(h.query_all_by_label("[tool]").count() >= 1);
    assert!(h.query_all_by_label_contains("Block 1 (model-written, ran in the sandbox").count() >= 2);
}

/// A `python` step whose purpose names a tool that ran (a tool call copied into the purpose) is refused and
/// re-asked in the same round with python off the menu; python stays off until another tool step fails.
#[test]
fn a_python_purpose_naming_a_usable_tool_takes_python_off_the_menu() {
    if !ready() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let s = suite(d.path());
    let (prompts, seen) = log();
    let model = logged_plans(seen, |round, text, r| match round {
        1 => answer(r),
        2 if !text.contains("Your plan's first step was not run") => {
            one_step("python", json!({"purpose": "inspect_file(path: 'x.edf')"}))
        }
        2 => one_step("inspect_file", json!({"path": "data/missing.edf"})),
        _ => json!({"done": true, "thought": "done", "steps": []}),
    });
    let f = hybrid(&s.join("Foundational_Analysis"), &d.path().join("p.json"), model, CodeRule::Always);
    let i = &f.instances[0];
    assert!(steps(i).iter().all(|s| s["tool"] != "python"), "the refused first step did not run");
    let round2 = &i.sandbox["trace"]["rounds"][1];
    let why = round2["replanned"].as_str().unwrap();
    assert!(why.contains("the purpose names the tool inspect_file"), "{why}");
    let prompts = prompts.lock().unwrap();
    let again = prompts.iter().find(|p| p.contains("Your plan's first step was not run")).expect("asked again");
    assert!(again.contains("python is off the menu now") && !again.contains("- python("), "{again}");
    assert!(prompts[0].contains("- python("), "python was on the menu before");
    // The tool step that failed in round 2 puts it back on round 3's menu.
    let round3 = prompts.iter().find(|p| p.contains("planning: round 3")).expect("round 3 planned");
    assert!(round3.contains("- python("), "{round3}");
    assert!(i.sandbox["kernel"].is_null(), "no block ran");
}

/// A `python` step whose purpose names a tool that failed and never ran is the step code stands in for: it runs,
/// and the code is told the tool's error.
#[test]
fn a_python_step_stands_in_for_a_failed_tool() {
    if !ready() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let s = suite(d.path());
    let (asked, seen) = log();
    let model = EegScripted::with(move |name, r| {
        if matches!(r.format, ResponseFormat::Tagged { .. }) {
            seen.lock().unwrap().push(first_user(r));
            return Some(Ok(Value::String("<execute>\nprint('n', 1)\n".into())));
        }
        if name != "plan" {
            return None;
        }
        match round_of(r) {
            1 => Some(Ok(one_step("inspect_file", json!({"path": "data/missing.edf"})))),
            2 => Some(Ok(one_step("python", json!({"purpose": "inspect_file of data/missing.edf"})))),
            _ => Some(Ok(json!({"done": true, "thought": "done", "steps": []}))),
        }
    });
    let f = hybrid(&s.join("Foundational_Analysis"), &d.path().join("s.json"), model, CodeRule::OnFailure);
    let steps = steps(&f.instances[0]);
    assert_ne!(steps[0]["status"], json!("ok"), "{}", steps[0]);
    let python = steps.iter().find(|s| s["tool"] == "python").expect("python planned");
    assert_eq!(python["status"], json!("ok"), "{python}");
    let asked = asked.lock().unwrap();
    assert!(asked[0].contains("The validated tool inspect_file failed in this run"), "{}", asked[0]);
}

/// The same refusal later in a plan (not its first step): the step is refused where it stands, and python is off
/// the next round's menu until a tool step fails.
#[test]
fn a_refused_purpose_later_in_a_plan_takes_python_off_until_a_tool_fails() {
    if !ready() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let s = suite(d.path());
    let (prompts, seen) = log();
    let model = logged_plans(seen, |round, _, r| {
        let path = answer(r)["steps"][0]["args"]["path"].clone();
        let python = json!({"tool": "python", "args": {"purpose": "inspect_file again"}});
        match round {
            1 if path.is_string() => one_step("inspect_file", json!({"path": path})),
            2 => json!({"done": false, "thought": "t", "steps": [
                {"tool": "load_channels", "args": {"recording": "rec1"}}, python]}),
            3 => one_step("inspect_file", json!({"path": "data/missing.edf"})),
            _ => json!({"done": true, "thought": "done", "steps": []}),
        }
    });
    let f = hybrid(&s.join("Foundational_Analysis"), &d.path().join("m.json"), model, CodeRule::Always);
    let steps = steps(&f.instances[0]);
    let status: Vec<(&str, &str)> =
        steps.iter().map(|s| (s["tool"].as_str().unwrap(), s["status"].as_str().unwrap())).collect();
    assert_eq!(status[..3], [("inspect_file", "ok"), ("load_channels", "ok"), ("python", "not_executable")]);
    assert!(steps[2]["error"].as_str().unwrap().contains("the purpose names the tool inspect_file"), "{}", steps[2]);
    let prompts = prompts.lock().unwrap();
    let round = |k: usize| prompts.iter().find(|p| p.contains(&format!("planning: round {k}"))).unwrap();
    assert!(round(2).contains("- python(") && !round(3).contains("- python("), "{}", round(3));
    assert!(round(4).contains("- python("), "back after round 3's failed tool step: {}", round(4));
    // The refused step ran nothing: the report's prompt lists neither it nor its error (BrainAgent's would
    // read the same); the delivered report's error list keeps it.
    let report = prompts.iter().find(|p| p.contains("Write the final report")).expect("a report was asked");
    assert!(report.contains("load_channels → ok") && !report.contains("python"), "{report}");
    let delivered = f.instances[0].agent_output.as_str().unwrap();
    assert!(delivered.contains("python: the purpose names the tool inspect_file"), "{delivered}");
}
