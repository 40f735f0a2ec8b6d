//! GUI behaviour of the Bench room with egui_kittest on the demo collection (simulated results): the
//! leaderboard sorts, an instance opens with its metrics, the browser filters by metric type.
#![cfg(feature = "gui")]

mod common;

use brainlens::ui::app::{BrainLensApp, Room};
use brainlens::ui::bench::View;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use std::path::Path;

fn harness() -> Harness<'static, BrainLensApp> {
    harness_on("fixtures/bench/demo/results")
}

/// The Bench room on a folder of the repository, loaded.
fn harness_on(folder: &str) -> Harness<'static, BrainLensApp> {
    let mut app = BrainLensApp::new(None, false);
    app.open_bench(vec![Path::new(env!("CARGO_MANIFEST_DIR")).join(folder)]);
    app.bench.finish_loading();
    let mut h =
        Harness::builder().with_size([1280.0, 800.0]).build_ui_state(|ui, app: &mut BrainLensApp| app.show(ui), app);
    h.run_steps(3);
    h
}

#[test]
fn opens_the_demo_collection_labelled_simulated() {
    let h = harness();
    assert_eq!(h.state().room, Room::Bench);
    let data = h.state().bench.data.as_ref().expect("collection loaded");
    assert_eq!(data.collection.runs.len(), 12);
    assert_eq!(data.collection.instance_count(), 960);
    assert!(data.report.simulated);
    h.get_by_label_contains("Simulated results");
}

#[test]
fn the_leaderboard_sorts_by_a_column() {
    let mut h = harness();
    let order = |h: &Harness<'static, BrainLensApp>| {
        let d = h.state().bench.data.as_ref().unwrap();
        let cols = brainlens::ui::bench::leaderboard_columns(&d.report);
        brainlens::ui::bench::leaderboard_order(&d.report, &cols, &h.state().bench.leaderboard)
    };
    assert_eq!(order(&h), ["simulated-large", "simulated-medium", "simulated-small"]);
    // Foundational Analysis · CodeAct: small (62.09) > medium (64.35)? Sort descending and check the values.
    h.get_by_label_contains("Foundational\nCodeAct").click();
    h.run_steps(2);
    assert_eq!(h.state().bench.leaderboard.sort, Some(1));
    let d = h.state().bench.data.as_ref().unwrap();
    let v = |m: &str| {
        brainlens::bench::aggregate::Report::find(&d.report.leaderboard, m, "CodeAct", "Foundational Analysis")
            .unwrap()
            .value
    };
    let sorted = order(&h);
    assert!(v(&sorted[0]) >= v(&sorted[1]) && v(&sorted[1]) >= v(&sorted[2]), "{sorted:?}");
    // A second click reverses the order.
    h.get_by_label_contains("Foundational\nCodeAct").click();
    h.run_steps(2);
    let reversed = order(&h);
    assert_eq!(reversed.iter().rev().collect::<Vec<_>>(), sorted.iter().collect::<Vec<_>>());
}

#[test]
fn an_instance_opens_with_its_metrics() {
    let mut h = harness();
    h.get_by_label("Instances").click();
    h.run_steps(2);
    assert_eq!(h.state().bench.view, View::Instances);
    h.get_by_label("960 of 960 instances");
    h.get_by_label("Foundational Analysis-case2-case2_1").click();
    h.run_steps(3);
    assert!(h.state().bench.instances.selected.is_some());
    // Detail: the case's instruction (from the case file beside the results), the metric with its ground truth.
    h.get_by_label_contains("Instruction:\nExclude channels whose variance");
    h.get_by_label("alpha_channels");
    h.get_by_label("set_match_check");
}

#[test]
fn the_browser_filters_by_metric_type() {
    let mut h = harness();
    h.state_mut().bench.view = View::Instances;
    h.run_steps(2);
    h.get_by(|n| n.role() == egui::accesskit::Role::ComboBox && n.value().as_deref() == Some("any metric type"))
        .click();
    h.run_steps(2);
    h.get_by_label("file_status_check").click();
    h.run_steps(3);
    assert_eq!(h.state().bench.instances.filter.metric_type, "file_status_check");
    // Task 4 of Foundational Analysis has the artifact metric: 5 cases × 12 files, minus instances that never
    // answered (their metric details are empty).
    let d = h.state().bench.data.as_ref().unwrap();
    let expected = d
        .collection
        .runs
        .iter()
        .flat_map(|r| &r.result.instances)
        .filter(|i| i.metric_details.values().any(|m| m.metric_type.as_deref() == Some("file_status_check")))
        .count();
    assert!(expected > 50 && expected <= 60, "{expected}");
    h.get_by_label(&format!("{expected} of 960 instances"));
}

#[test]
fn a_result_file_opened_from_the_file_menu_goes_to_the_bench_room() {
    let mut app = BrainLensApp::new(None, false);
    let file =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/bench/demo/results/simulated-large_codeact_run1.json");
    app.open(file);
    app.bench.finish_loading();
    assert_eq!(app.room, Room::Bench);
    let data = app.bench.data.as_ref().unwrap();
    assert_eq!((data.collection.runs.len(), data.collection.runs[0].paradigm.as_str()), (1, "CodeAct"));
    // A broken file is reported with its name, and nothing is lost.
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"instances\": 3}").unwrap();
    app.open(bad);
    app.bench.finish_loading();
    let err = app.bench.error.clone().expect("error shown");
    assert!(err.contains("bad.json"), "{err}");
    assert_eq!(app.bench.data.as_ref().unwrap().collection.runs.len(), 1, "the open collection stays");
}

#[test]
fn the_difficulty_chart_shows_table_2_per_subset() {
    let mut h = harness();
    h.get_by_label("Charts").click();
    h.run_steps(2);
    h.get_by_label("Difficulty").click();
    h.run_steps(3);
    // One block per model, each with the pooled row and a row per subset.
    let d = h.state().bench.data.as_ref().unwrap();
    assert_eq!(d.report.difficulty_by_subset.len(), 4);
    let sleep = &d.report.difficulty_by_subset.iter().find(|t| t.subset == "Sleep Assessment").unwrap();
    let dai = sleep.dai.iter().find(|x| x.model == "simulated-small").unwrap().dai.unwrap();
    assert_eq!(h.query_all_by_label("Sleep Assessment").count(), 3);
    assert_eq!(h.query_all_by_label("Overall").count(), 3);
    h.get_by_label(&format!("{dai:+.2}"));
}

/// The agreement chart labels models with their family; the reasoning-effort chart says how to get one when no
/// run recorded an effort (the demo's).
#[test]
fn the_agreement_chart_names_families_and_the_effort_chart_explains_itself() {
    let mut h = harness();
    h.get_by_label("Charts").click();
    h.run_steps(2);
    h.get_by_label("Agreement").click();
    h.run_steps(3);
    let report = &h.state().bench.data.as_ref().unwrap().report;
    let (labels, _) = brainlens::bench::aggregate::figures::agreement_grid(report);
    assert!(labels.contains(&"simulated-small (Simulated)".to_string()), "{labels:?}");
    h.get_by_label("Reasoning effort").click();
    h.run_steps(3);
    h.get_by_label_contains("No run recorded a reasoning effort");
    // The failure-case table: one row per (model, paradigm, unit, class, rule), as the report has them.
    h.get_by_label("Failure cases").click();
    h.run_steps(3);
    h.get_by_label("Rule");
    let rows = h.state().bench.data.as_ref().unwrap().report.failure_cases.len();
    assert!(rows > 0);
    let first = h.state().bench.data.as_ref().unwrap().report.failure_cases[0].rule.clone();
    assert!(h.query_all_by_label(&first).count() >= 1, "{first}");
}

/// The Bench room's "Paper output…" (a folder dialog, so its writer is called here on the loaded report): the
/// LaTeX tables and the figures land under the folder, as `bench report --latex/--figures` writes them.
#[test]
fn paper_output_writes_the_latex_tables_and_the_figures() {
    let h = harness();
    let dir = tempfile::tempdir().unwrap();
    let report = &h.state().bench.data.as_ref().expect("demo loaded").report;
    let message = brainlens::ui::bench::paper_output(report, dir.path());
    // 18 tables and tables.tex; radars (2) and mode gap over all subsets and each of the 4, the agreement: SVG + PNG.
    assert!(message.starts_with("wrote 19 LaTeX files and 32 figure files"), "{message}");
    assert!(dir.path().join("tables/tables.tex").is_file() && dir.path().join("figures/mode_gap.png").is_file());
    let blocked = dir.path().join("file");
    std::fs::write(&blocked, "").unwrap();
    assert!(brainlens::ui::bench::paper_output(report, &blocked).contains("cannot write the tables"));
}

/// The Parser audit view: the Model window's provider (a scripted OpenAI-compatible endpoint that reads the
/// first report as the stored parser did) re-parses one instance; the agreement shows.
#[test]
fn the_parser_audit_view_runs_the_chosen_model_and_shows_agreement() {
    use common::fake_openai::{Reply, fake, ok_body};
    let f = fake(vec![Reply::Ok(ok_body(r#"{"alpha_rel_mean": 19.42836671351745}"#)); 2]);
    let mut h = harness();
    h.state_mut().settings.llm = brainlens::llm::config::ProviderConfig {
        provider: brainlens::llm::config::ProviderKind::Openai,
        base_url: f.url.clone(),
        ..Default::default()
    };
    h.get_by_label("Parser audit").click();
    h.run_steps(2);
    h.state_mut().bench.audit.n = 1;
    h.get_by_label("Audit parser").click();
    for _ in 0..1000 {
        h.run_steps(1);
        if h.state().bench.audit.result.is_some() || h.state().bench.audit.error.is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    h.run_steps(2);
    let a = h.state().bench.audit.result.as_ref().expect("the audit finished");
    assert_eq!((a.instances, a.overall.fields, a.overall.agree), (1, 1, 1));
    h.get_by_label_contains("1/1 fields agree (100.00 %)");
}

#[test]
fn two_runs_are_compared_filtered_and_a_trace_pair_opens() {
    let mut h = harness();
    h.get_by_label("Compare").click();
    h.run_steps(2);
    assert_eq!(h.state().bench.view, View::Compare);
    let label = |model: &str| format!("{model} · BrainAgent · run 1");
    for (picker, model) in [("Run A", "simulated-small"), ("Run B", "simulated-large")] {
        h.get_by(|n| n.role() == egui::accesskit::Role::ComboBox && n.label().as_deref() == Some(picker)).click();
        h.run_steps(2);
        h.get_by(|n| {
            n.role() != egui::accesskit::Role::ComboBox && n.label().as_deref() == Some(label(model).as_str())
        })
        .click();
        h.run_steps(2);
    }
    // The view's comparison is the one `bench compare` computes for the same two files.
    let d = h.state().bench.data.as_ref().unwrap();
    let run = |model: &str| {
        d.collection
            .runs
            .iter()
            .position(|r| brainlens::bench::aggregate::compare::run_label(r) == label(model))
            .unwrap()
    };
    let (a, b) = (run("simulated-small"), run("simulated-large"));
    assert_eq!((h.state().bench.compare.a, h.state().bench.compare.b), (Some(a), Some(b)));
    let expected =
        brainlens::bench::aggregate::compare::compare(&d.collection.runs[a], &d.collection.runs[b], d.report.levels);
    assert_eq!((expected.rows.len(), expected.scored), (80, 76));
    h.get_by_label_contains("80 shared instances (76 scored by both)");
    h.get_by_label(&format!(
        "Overall (difficulty-weighted, instances both scored): A {:.2} · B {:.2} · B − A",
        expected.overall_a, expected.overall_b
    ));
    // Filter: the instances B scored worse on.
    h.get_by(|n| n.role() == egui::accesskit::Role::ComboBox && n.value().as_deref() == Some("change: any")).click();
    h.run_steps(2);
    h.get_by_label("change: worse").click();
    h.run_steps(3);
    let filter = brainlens::bench::aggregate::compare::Filter {
        change: brainlens::bench::aggregate::compare::Change::Worse,
        ..Default::default()
    };
    let worse: Vec<&str> = expected.filtered(&filter).map(|r| r.instance_id.as_str()).collect();
    assert!(!worse.is_empty());
    h.get_by_label(&format!("{} of 80 shared instances", worse.len()));
    // Open the pair: both sides' detail (heading, run, report) side by side.
    let id = worse[0].to_string();
    h.get_by_label(&id).click();
    h.run_steps(3);
    assert!(h.state().bench.compare.selected.is_some());
    h.get_by_label(&format!("A: {}", label("simulated-small")));
    h.get_by_label(&format!("B: {}", label("simulated-large")));
    assert_eq!(h.query_all_by_label(&id).count(), 3, "the row and the two detail headings");
    assert_eq!(h.query_all_by_label("Agent report").count(), 2);
}

/// A fresh start shows the shipped real runs first (fixtures/bench/real: the local suite run by real models),
/// with the header that names each run's model, suite and day, and no simulated banner; the simulated demo
/// is one click away.
#[test]
fn the_first_view_is_the_shipped_real_runs() {
    let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/bench/real");
    let shipped = brainlens::bench::collection::result_files(&real).unwrap();
    assert!(!shipped.is_empty(), "fixtures/bench/real holds the real runs");
    let mut app = BrainLensApp::new(None, false);
    app.room = Room::Bench;
    let mut h =
        Harness::builder().with_size([1280.0, 800.0]).build_ui_state(|ui, app: &mut BrainLensApp| app.show(ui), app);
    h.run_steps(2);
    h.state_mut().bench.finish_loading();
    h.run_steps(3);
    let data = h.state().bench.data.as_ref().expect("the first collection loaded");
    assert_eq!(data.collection.runs.len(), shipped.len());
    assert!(data.collection.runs.iter().all(|r| !r.simulated), "only real runs");
    assert!(!data.report.simulated);
    h.get_by_label_contains("Real runs:");
    assert!(h.query_by_label_contains("Simulated results").is_none());
    h.get_by_label("Open demo (simulated)").click();
    h.run_steps(2);
    h.state_mut().bench.finish_loading();
    h.run_steps(3);
    assert!(h.state().bench.data.as_ref().unwrap().report.simulated);
    h.get_by_label_contains("Simulated results");
}

/// The shipped real runs' failure-case table lists the scored answers no output shows (docs/bench.md: four
/// in the Qwen CodeAct run, two in each of its BrainAgent runs (model and system report), three in its hybrid
/// run, one in SmolLM2's BrainAgent run), with the rule in words.
#[test]
fn the_real_runs_failure_table_flags_answers_no_output_shows() {
    let mut h = harness_on("fixtures/bench/real");
    h.get_by_label("Charts").click();
    h.run_steps(2);
    h.get_by_label("Failure cases").click();
    h.run_steps(3);
    assert_eq!(h.query_all_by_label("answer_unshown").count(), 5, "one row per run with such answers");
    let rule = "a scored answer that no tool or code output shows: read from the task or the model's own words";
    assert_eq!(h.query_all_by_label(rule).count(), 5);
    let examples = "Foundational Analysis-case2-case2_1, Foundational Analysis-case2-case2_2, \
                    Foundational Analysis-case3-case3_2";
    assert!(h.query_all_by_label(examples).count() >= 1, "the CodeAct row's examples");
    assert!(h.query_all_by_label("Foundational Analysis-case6-case6_1").count() >= 1, "SmolLM2's");
    let examples = "Foundational Analysis-case2-case2_2, Neurocognitive Assessment-case3-case3_1";
    assert_eq!(h.query_all_by_label(examples).count(), 2, "Qwen's two BrainAgent rows");
    let examples = "Foundational Analysis-case2-case2_1, Foundational Analysis-case2-case2_2, \
                    Neurocognitive Assessment-case3-case3_1";
    assert!(h.query_all_by_label(examples).count() >= 1, "the hybrid's row");
}

/// A CodeAct instance whose first solution was asked again (claimed work, and a value nothing measured) says so
/// in its round, and the report's flagged value is listed with the claims (a shipped real CodeAct instance,
/// marked up as the runner writes such a round).
#[test]
fn a_solution_asked_again_and_a_flagged_value_are_shown_in_the_instance() {
    let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/bench/real/qwen_codeact.json");
    let mut file: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(real).unwrap()).unwrap();
    let inst = &mut file["instances"][0];
    inst["sandbox"]["rounds"][0]["solution_again"] = serde_json::json!(["filtering", "a value nothing measured"]);
    inst["sandbox"]["trace"]["ungrounded_claims"] =
        serde_json::json!([{"work": "value", "sentence": "The mean heart rate is 72.5 bpm"}]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("qwen_codeact.json");
    std::fs::write(&path, file.to_string()).unwrap();
    let mut h = instance_view(path, 0);
    h.get_by_label_contains("Report claims what nothing did (1)");
    h.get_by_label_contains("value: \"The mean heart rate is 72.5 bpm\"");
    h.get_by_label("Sandbox / CodeAct trace").click();
    h.run_steps(30);
    h.get_by_label_contains(
        "The model's first solution claimed work no code that ran did (filtering, a value nothing measured)",
    );
}

/// A real instance whose report had sentences struck (the Qwen model-report run at ee7d256, in
/// fixtures/bench/history; Foundational case 1_1:
/// a PSD no step computed) lists what was struck, and opens the report as the model wrote it.
#[test]
fn struck_sentences_and_the_report_as_written_are_shown_in_the_instance() {
    let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/bench/history/qwen_brainagent_model_ee7d256.json");
    let file: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&real).unwrap()).unwrap();
    let at = file["instances"]
        .as_array()
        .unwrap()
        .iter()
        .position(|i| i["instance_id"] == "Foundational Analysis-case1-case1_1")
        .unwrap();
    let mut h = instance_view(real, at);
    h.get_by_label_contains("Struck from the model's report (1)");
    h.get_by_label_contains("spectrum: \"The Welch PSD was computed for each channel");
    // The text as written is also in the trace's report call: opening it shows it once more.
    let written = "The Welch PSD was computed for each channel, and the relative power";
    let before = h.query_all_by_label_contains(written).count();
    h.get_by_label("The report as the model wrote it").click();
    h.run_steps(3);
    assert_eq!(h.query_all_by_label_contains(written).count(), before + 1);
}

/// The Bench room's instance view on one result file, its instance `at` selected.
fn instance_view(file: std::path::PathBuf, at: usize) -> Harness<'static, BrainLensApp> {
    let mut app = BrainLensApp::new(None, false);
    app.open(file);
    app.bench.finish_loading();
    let mut h =
        Harness::builder().with_size([1280.0, 2400.0]).build_ui_state(|ui, app: &mut BrainLensApp| app.show(ui), app);
    h.state_mut().bench.view = View::Instances;
    h.state_mut().bench.instances.selected = Some((0, at));
    h.run_steps(3);
    h
}
