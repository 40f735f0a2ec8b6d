//! The BrainAgent panel with egui_kittest and the replay provider: Analyze runs the agent on the open HCP
//! graph, the trace rounds and the final card appear, clicking a region name in the rationale selects it in
//! the matrix view, a round's retrieval opens in the HARK panel, the trace exports as JSON and Markdown, and
//! batch run files load into the metrics table with a drill-down into a sample's trace.
#![cfg(feature = "gui")]

mod common;

use brainlens::agent::graph::tools::Resources;
use brainlens::agent::graph::{Agent, CardQuery, GraphContext, Method, ReflectionForm, Settings, Task, Trace, setup};
use brainlens::llm::ChatModel;
use brainlens::llm::config::ProviderKind;
use brainlens::llm::replay::Recorder;
use brainlens::network::atlas::Atlas;
use brainlens::ui::app::BrainLensApp;
use brainlens::util::cancel::Cancel;
use common::gui::settle;
use common::scripted::Scripted;
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use std::path::{Path, PathBuf};
use std::sync::Arc;

const GRAPH: &str = "assets/cases/hcp_fingerprint/graphs/sub-100206_REST1_t0.npy";

/// The transcript the panel's requests are answered from: the same agent run, recorded from the scripted model.
fn record(transcript: &Path) -> Trace {
    record_with(transcript, Settings::for_method(Method::Brainagent))
}

fn record_with(transcript: &Path, settings: Settings) -> Trace {
    let task = Task::load("fingerprint").unwrap();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(GRAPH);
    let ctx = GraphContext::load(&path, Some(&Atlas::load("schaefer100").unwrap())).unwrap();
    let res = Resources {
        hark: Some(setup::hark().unwrap()),
        memory: Some(setup::memory_from(&task.memory_dir().unwrap(), &settings, &[]).unwrap()),
        training: None,
        cohort_model: None,
    };
    let model: Arc<dyn ChatModel> = Arc::new(Recorder::new(Arc::new(Scripted::default()), transcript, vec![]).unwrap());
    Agent::new(task, Some(model), res, settings).analyze(&ctx, 0, &Cancel::default(), &mut |_| {})
}

/// The app on the HCP graph, answering from `transcript`, with the BrainAgent panel open.
fn agent_panel(transcript: &Path) -> Harness<'static, BrainLensApp> {
    let mut app = BrainLensApp::new(None, false);
    app.settings.llm.provider = ProviderKind::Replay;
    app.settings.llm.transcript = transcript.display().to_string();
    app.open(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(GRAPH));
    let mut h =
        Harness::builder().with_size([1500.0, 1000.0]).build_ui_state(|ui, app: &mut BrainLensApp| app.show(ui), app);
    h.run_steps(3);
    h.get_by_label("BrainAgent…").click();
    h.run_steps(2);
    h
}

/// Clicks Analyze and waits for the trace's decision.
fn analyze(h: &mut Harness<'static, BrainLensApp>) -> Trace {
    h.get_by_label("Analyze").click();
    settle(h, |a| !a.networks.agent.busy() && a.networks.agent.trace.as_ref().is_some_and(|t| t.decision.is_some()));
    h.run_steps(3);
    h.state().networks.agent.trace.clone().unwrap()
}

#[test]
fn analyze_shows_the_trace_and_the_card_and_region_names_select_regions() {
    let dir = tempfile::tempdir().unwrap();
    let transcript = dir.path().join("agent.jsonl");
    let expected = record(&transcript);
    let mut h = agent_panel(&transcript);
    let t = analyze(&mut h);
    assert_eq!(t.rounds, expected.rounds, "the panel ran the same analysis the transcript was recorded from");
    assert_eq!(t.decision, expected.decision);
    // The timeline, the final card and the disclaimer beside the label.
    h.get_by_label("Round 1 · retrieve_knowledge · repaired");
    h.get_by_label("Round 2 · retrieve_case");
    h.get_by_label("Round 4 · finish");
    h.get_by_label(&format!("Label: {}", t.decision.as_ref().unwrap().label));
    h.get_by_label("research use only — not a diagnosis");
    h.get_by_label("Reflection (revised the analysis)");
    assert!(h.state().networks.agent.scores.is_some_and(|s| s.region_insight > 0.0));
    // A region name in the rationale selects the region in the matrix view.
    h.get_by_role_and_label(Role::Link, "RH_DorsAttn_6").click();
    h.run_steps(3);
    let o = h.state().networks.current.as_ref().unwrap();
    let idx = o.connectome.labels.iter().position(|l| l == "RH_DorsAttn_6").unwrap();
    assert_eq!(o.selected, Some(idx));
    h.get_by_label("Matrix (atlas order) — selected: RH_DorsAttn_6");
    // Export.
    h.state_mut().networks.agent.export_path = dir.path().display().to_string();
    h.run_steps(2);
    h.get_by_label("Save JSON").click();
    h.get_by_label("Save Markdown").click();
    h.run_steps(2);
    assert!(
        matches!(&h.state().networks.agent.message, Some(Ok(m)) if m.contains(".md")),
        "{:?}",
        h.state().networks.agent.message
    );
    let stem = dir.path().join(format!("{}_{}", t.sample, t.method));
    let saved: Trace = serde_json::from_str(&std::fs::read_to_string(stem.with_extension("json")).unwrap()).unwrap();
    assert_eq!(saved.rounds, t.rounds);
    assert!(std::fs::read_to_string(stem.with_extension("md")).unwrap().contains("not a diagnosis"));
    // The exported trace opens again for review; a file that is not a trace is named.
    h.state_mut().networks.agent.trace = None;
    h.state_mut().networks.agent.open_trace(&stem.with_extension("json"));
    assert_eq!(h.state().networks.agent.trace.as_ref().unwrap().rounds, t.rounds);
    h.state_mut().networks.agent.open_trace(&stem.with_extension("md"));
    assert!(h.state().networks.agent.error.as_deref().unwrap().contains("not a BrainAgent trace"));
    h.state_mut().networks.agent.error = None;
    // Round 1's retrieval in the HARK panel: the same query, the same chosen items.
    h.get_by_label("Round 1 · retrieve_knowledge · repaired").click();
    h.run_steps(10);
    h.get_by_label("Show in the HARK panel").click();
    settle(&mut h, |a| matches!(&a.networks.hark.result, Some(Ok(_))) && !a.networks.hark.busy());
    let chosen = |v: &serde_json::Value| -> Vec<String> {
        v["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["chosen"] == true)
            .map(|c| c["id"].as_str().unwrap().to_string())
            .collect()
    };
    let panel = serde_json::to_value(h.state().networks.hark.result.clone().unwrap().unwrap()).unwrap();
    assert_eq!(chosen(&panel), chosen(&t.rounds[0].data));
}

#[test]
fn card_first_ticked_in_the_panel_makes_round_1_retrieve_cases() {
    let dir = tempfile::tempdir().unwrap();
    let transcript = dir.path().join("agent.jsonl");
    let expected = record_with(&transcript, Settings { card_first: true, ..Settings::for_method(Method::Brainagent) });
    let mut h = agent_panel(&transcript);
    h.get_by_label("CARD first").click();
    h.run_steps(2);
    assert!(h.state().networks.agent.settings.card_first);
    let t = analyze(&mut h);
    assert_eq!(t.method, "brainagent-card-first");
    assert_eq!(t.rounds, expected.rounds, "the panel ran the analysis the transcript was recorded from");
    h.get_by_label("Round 1 · retrieve_case");
    h.get_by_label("Round 2 · retrieve_knowledge · repaired");
}

#[test]
fn template_query_ticked_in_the_panel_makes_card_retrieve_by_the_template_report() {
    let dir = tempfile::tempdir().unwrap();
    let transcript = dir.path().join("agent.jsonl");
    let settings =
        Settings { card_first: true, card_query: CardQuery::Template, ..Settings::for_method(Method::Brainagent) };
    let expected = record_with(&transcript, settings);
    let mut h = agent_panel(&transcript);
    h.get_by_label("CARD first").click();
    h.run_steps(2);
    h.get_by_label("template query").click();
    h.run_steps(2);
    assert_eq!(h.state().networks.agent.settings.card_query, CardQuery::Template);
    let t = analyze(&mut h);
    assert_eq!(t.method, "brainagent-card-first-template-query");
    assert_eq!(t.rounds[0].data["query_source"], "template");
    assert_eq!(t.rounds, expected.rounds, "the panel ran the analysis the transcript was recorded from");
}

#[test]
fn a_batch_evaluation_runs_from_the_panel_and_opens_a_sample_trace() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/cases/hcp_fingerprint");
    let cli_out = dir.path().join("cli.jsonl");
    let cli = common::json(&[
        "agent",
        "eval",
        "--task",
        "fingerprint",
        "--graphs",
        root.join("graphs").to_str().unwrap(),
        "--labels",
        root.join("labels.csv").to_str().unwrap(),
        "--method",
        "evidence-knn",
        "--out",
        cli_out.to_str().unwrap(),
        "--json",
    ]);
    let mut app = BrainLensApp::new(None, false);
    app.open(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(GRAPH));
    app.networks.agent.open = true;
    app.networks.agent.settings = Settings::for_method(Method::EvidenceKnn);
    let gui_out = dir.path().join("gui.jsonl");
    app.networks.agent.batch.out = gui_out.display().to_string();
    let mut h =
        Harness::builder().with_size([1500.0, 1000.0]).build_ui_state(|ui, app: &mut BrainLensApp| app.show(ui), app);
    h.run_steps(3);
    h.get_by_label("Batch results (run files of agent eval)").click();
    h.run_steps(10);
    h.get_by_label("Run evaluation (fingerprint, evidence-knn)").click();
    settle(&mut h, |a| !a.networks.agent.busy() && !a.networks.agent.batch.runs.is_empty());
    let m = &h.state().networks.agent.batch.runs[0].1;
    assert_eq!(m.samples, 10);
    assert_eq!(
        serde_json::to_value(m.accuracy).unwrap(),
        cli["accuracy"],
        "the panel runs the same evaluation as the CLI"
    );
    assert!(h.get_all_by_label("evidence-knn").next().is_some());
    // A missing run file is named.
    h.state_mut().networks.agent.batch.paths =
        format!("{}, {}", gui_out.display(), dir.path().join("missing.jsonl").display());
    h.run_steps(1);
    h.get_by_label("Load runs").click();
    h.run_steps(2);
    assert!(h.state().networks.agent.batch.error.as_deref().unwrap().contains("missing.jsonl"));
    h.state_mut().networks.agent.batch.paths = format!("{}, {}", gui_out.display(), cli_out.display());
    h.run_steps(1);
    h.get_by_label("Load runs").click();
    h.run_steps(3);
    assert_eq!(h.state().networks.agent.batch.runs.len(), 2);
    // The reliability section says what ECE a calibrated P would show on these ten subjects.
    h.get_all_by_label("Reliability of evidence-knn (none)").next().unwrap().click();
    h.run_steps(3);
    assert!(h.query_all_by_label_contains("a calibrated P on these 10 subjects shows ECE").count() >= 1);
    // Drill down into a sample's trace.
    h.get_all_by_label("Samples of evidence-knn (none)").next().unwrap().click();
    h.run_steps(10);
    h.get_all_by_label("trace").next().unwrap().click();
    h.run_steps(3);
    let t = h.state().networks.agent.trace.clone().unwrap();
    assert_eq!(t.method, "evidence-knn");
    h.get_by_label(&format!("Label: {}", t.decision.unwrap().label));
    // A reflection re-run's file says what its seconds are (its header names the stored run).
    let text = std::fs::read_to_string(&cli_out).unwrap();
    let (first, rest) = text.split_once('\n').unwrap();
    let mut header: serde_json::Value = serde_json::from_str(first).unwrap();
    header["reused_from"] = serde_json::json!("stored.jsonl");
    let rerun = dir.path().join("rerun.jsonl");
    std::fs::write(&rerun, format!("{header}\n{rest}")).unwrap();
    h.state_mut().networks.agent.batch.paths = rerun.display().to_string();
    h.run_steps(1);
    h.get_by_label("Load runs").click();
    h.run_steps(3);
    h.get_by_label_contains("evidence-knn: a reflection re-run of stored.jsonl");
}

#[test]
fn label_reflection_ticked_in_the_panel_asks_reflection_for_the_label_alone() {
    let dir = tempfile::tempdir().unwrap();
    let transcript = dir.path().join("agent.jsonl");
    let settings = Settings { reflection_form: ReflectionForm::Label, ..Settings::for_method(Method::Brainagent) };
    let expected = record_with(&transcript, settings);
    let mut h = agent_panel(&transcript);
    h.get_by_label("label reflection").click();
    h.run_steps(2);
    assert_eq!(h.state().networks.agent.settings.reflection_form, ReflectionForm::Label);
    let t = analyze(&mut h);
    assert_eq!(t.method, "brainagent-label-reflection");
    assert_eq!(t.reflection, expected.reflection, "the panel ran the analysis the transcript was recorded from");
    assert!(t.reflection.as_ref().unwrap().revised);
}

/// The model-calls list says how many prompt tokens of a call came from the prompt states on disk (issue 62).
#[test]
fn the_model_calls_say_the_tokens_loaded_from_disk() {
    let dir = tempfile::tempdir().unwrap();
    let transcript = dir.path().join("agent.jsonl");
    let mut t = record(&transcript);
    t.calls[0].cached_tokens = 384;
    t.calls[0].disk_tokens = 384;
    let calls = t.calls.len();
    let mut h = agent_panel(&transcript);
    h.state_mut().networks.agent.trace = Some(t);
    h.run_steps(2);
    h.get_by_label(&format!("Model calls ({calls})")).click();
    h.run_steps(3);
    h.get_by_label_contains("(384 cached, 384 from disk)");
    assert_eq!(h.query_all_by_label_contains(" cached, ").count(), 1, "only the call that loaded from disk says so");
    h.get_by_label_contains("384 of them from disk");
}
