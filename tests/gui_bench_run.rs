//! The Bench room's Run view with egui_kittest: generate the local suite from the panel, run it with the
//! replay provider (a scripted model's transcript) on 4 workers, watch the live table, and open the finished
//! run in the dashboard; the instance view shows the BrainAgent trace. The same run from the CLI gives the
//! same scores.

mod common;

use brainlens::bench::results::ResultFile;
use brainlens::harness::runner::{Live, Models, Options, run};
use brainlens::llm::ChatModel;
use brainlens::llm::config::ProviderKind;
use brainlens::llm::replay::Recorder;
use brainlens::ui::app::BrainLensApp;
use brainlens::util::cancel::Cancel;
use common::eeg_scripted::EegScripted;
use common::gui::settle;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use std::sync::Arc;

#[test]
fn run_view_generates_runs_and_opens_the_result() {
    let d = tempfile::tempdir().unwrap();
    let suite = d.path().join("suite");
    let transcript = d.path().join("t.jsonl");
    let out = d.path().join("gui.json");
    let mut app = BrainLensApp::new(None, false);
    app.settings.llm.provider = ProviderKind::Replay;
    app.settings.llm.transcript = transcript.display().to_string();
    app.bench.select_view("run");
    app.bench.run.suite = suite.display().to_string();
    app.bench.run.out = out.display().to_string();
    app.bench.run.data = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures").into();
    app.bench.run.concurrency = 4;
    app.bench.run.limit = 12;
    app.room = brainlens::ui::app::Room::Bench;
    let mut h =
        Harness::builder().with_size([1400.0, 1000.0]).build_ui_state(|ui, app: &mut BrainLensApp| app.show(ui), app);
    h.run_steps(3);
    h.get_by_label("Generate local suite").click();
    settle(&mut h, |a| !a.bench.run.busy());
    h.run_steps(2);
    h.get_by_label_contains("generated 54 instances of 34 templates");
    // Record the transcript the replay provider answers from (the scripted model, same 12 cases).
    let rec: Arc<dyn ChatModel> =
        Arc::new(Recorder::new(Arc::new(EegScripted::default()), &transcript, vec![]).unwrap());
    let mut opts = Options::new(&suite, &d.path().join("recorded.json"));
    opts.limit = Some(12);
    let recorded = run(
        &opts,
        &Models { target: rec.clone(), parser: rec, judge: None, vlm: None },
        &Cancel::default(),
        &Live::default(),
    )
    .unwrap();
    h.get_by_label("Start run").click();
    settle(&mut h, |a| !a.bench.run.busy());
    h.run_steps(3);
    let got = ResultFile::load(&out).unwrap();
    assert_eq!(got.instances.len(), 12);
    for (a, b) in got.instances.iter().zip(&recorded.instances) {
        assert_eq!((a.instance_id.as_str(), a.total_score), (b.instance_id.as_str(), b.total_score));
    }
    // Opened in the dashboard: the leaderboard shows the replayed model; the status names the score.
    settle(&mut h, |a| !a.bench.loading() && a.bench.data.is_some());
    h.run_steps(3);
    assert!(h.state().bench.run.message.as_deref().unwrap().starts_with("finished 12 instances"));
    let data = h.state().bench.data.as_ref().unwrap();
    assert_eq!(data.collection.instance_count(), 12);
    // The Run view stays on screen; the Leaderboard tab has the run.
    h.get_by_label_contains("opened in the dashboard");
    h.state_mut().bench.select_view("leaderboard");
    h.run_steps(3);
    // Its leaderboard row (the room's header names the run too, in its provenance line).
    h.get_by_label("replay:scripted:eeg");
    h.get_by_label_contains("replay:scripted:eeg · BrainAgent, report system");
    // The live table stays in the Run view with every row done.
    h.state_mut().bench.select_view("run");
    h.run_steps(3);
    assert!(
        h.state()
            .bench
            .run
            .live
            .rows
            .lock()
            .unwrap()
            .iter()
            .all(|r| r.state == brainlens::harness::runner::RowState::Done)
    );
    h.get_by_label_contains("12/12 instances");
}

/// The Run view offers the third paradigm: choosing Hybrid shows its code rule, and the options a Slurm task
/// gets name both.
#[test]
fn run_view_offers_the_hybrid_paradigm_and_its_code_rule() {
    let mut app = BrainLensApp::new(None, false);
    app.bench.select_view("run");
    app.room = brainlens::ui::app::Room::Bench;
    let mut h =
        Harness::builder().with_size([1400.0, 1000.0]).build_ui_state(|ui, app: &mut BrainLensApp| app.show(ui), app);
    h.run_steps(3);
    assert!(h.query_by_label("Code rule").is_none(), "no code rule for BrainAgent");
    h.get_by_label("Hybrid").click();
    h.run_steps(3);
    assert_eq!(h.state().bench.run.paradigm, brainlens::harness::runner::Paradigm::Hybrid);
    h.get_by_label("Code rule");
    h.get_by_label("after-tools").click();
    h.run_steps(3);
    let provider = h.state().settings.llm.clone();
    let args = h.state().bench.run.run_args(&provider);
    let at = |flag: &str| args.iter().position(|a| a == flag).map(|k| args[k + 1].as_str());
    assert_eq!((at("--paradigm"), at("--code-rule")), (Some("hybrid"), Some("after-tools")), "{args:?}");
}
