//! The Networks room's Cohort window with egui_kittest, on real ADHD-200 files (unpacked outside the
//! repository by ../shared/data/cohorts/unpack.sh into BRAINLENS_COHORTS; required when
//! BRAINLENS_REQUIRE_COHORTS is set, as scripts/test.sh does): Cohort… opens it, Import runs in the background
//! with a progress bar, the table lists the subjects with label, sex and site, and clicking a subject shows its
//! connectome in the room.
#![cfg(feature = "gui")]

mod common;

use brainlens::ui::app::BrainLensApp;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use std::path::Path;

#[test]
fn a_cohort_imports_in_the_window_and_a_subject_opens_in_the_room() {
    let Some(root) = common::cohorts() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("adhd12");
    common::adhd_subset(&root, &folder, 1, 12);

    let mut app = BrainLensApp::new(None, false);
    app.open(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/networks/group-train706_fc.npz"));
    let mut h =
        Harness::builder().with_size([1280.0, 800.0]).build_ui_state(|ui, app: &mut BrainLensApp| app.show(ui), app);
    h.run_steps(3);
    h.get_by_label("Cohort…").click();
    h.run_steps(2);
    h.get_by_label("Folder").click();
    h.get_by_label("Folder").type_text(&folder.display().to_string());
    let out = tmp.path().join("adhd12.npz");
    h.get_by_label("Cohort file").click();
    h.get_by_label("Cohort file").type_text(&out.display().to_string());
    h.run_steps(2);
    h.get_by_label("Import").click();
    h.run_steps(2);
    for _ in 0..1000 {
        h.run_steps(1);
        if !h.state().networks.cohort.busy() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let panel = &h.state().networks.cohort;
    assert!(panel.error.is_none(), "{:?}", panel.error);
    let (path, c) = panel.cohort.clone().expect("imported");
    assert_eq!((path.as_path(), c.len(), c.r), (out.as_path(), 12, 90));
    assert!(out.is_file());
    h.run_steps(2);
    // The table shows the first subject with its label and site.
    let first = c.ids[0].clone();
    let (label, site) = (c.labels[0].clone(), c.site[0].clone());
    assert!(["HC", "ADHD"].contains(&label.as_str()));
    assert!(h.query_all_by_label(&site).count() >= 1, "site {site} shown");
    assert!(h.query_by_label_contains("12 subjects, 90 regions").is_some());
    // Clicking the subject shows its connectome in the room, labelled with AAL-90's regions.
    h.get_by_label(&first).click();
    h.run_steps(3);
    let o = h.state().networks.current.as_ref().unwrap();
    assert_eq!((o.connectome.n, o.connectome.labels[0].as_str()), (90, "Precentral_L"));
    assert!(o.path.to_string_lossy().ends_with(&format!("adhd12.npz#{first}")), "{}", o.path.display());
}

#[test]
fn a_cohort_evaluation_shows_its_confusion_and_accuracy_per_site() {
    let Some(root) = common::cohorts() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let cohort = common::adhd_cohort(&root, tmp.path(), "adhd40", 14, 40);
    let run = tmp.path().join("logistic.jsonl");
    let (cohort_arg, run_arg) = (cohort.to_str().unwrap(), run.to_str().unwrap());
    let cli = common::json(&[
        "agent", "eval", "--task", "adhd", "--cohort", cohort_arg, "--method", "logistic", "--out", run_arg, "--json",
    ]);
    let sites = cli["sites"].as_array().expect("per-site accuracy in the CLI's JSON");
    let counted: u64 = sites.iter().map(|s| s["samples"].as_u64().unwrap()).sum();
    assert_eq!(Some(counted), cli["samples"].as_u64(), "every test subject in one site");

    let mut app = BrainLensApp::new(None, false);
    app.open(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/networks/group-train706_fc.npz"));
    app.networks.agent.open = true;
    app.networks.agent.batch.paths = run.display().to_string();
    let mut h =
        Harness::builder().with_size([1500.0, 1000.0]).build_ui_state(|ui, app: &mut BrainLensApp| app.show(ui), app);
    h.run_steps(3);
    h.get_by_label("Batch results (run files of agent eval)").click();
    h.run_steps(3);
    h.get_by_label("Load runs").click();
    h.run_steps(3);
    let m = h.state().networks.agent.batch.runs[0].1.clone();
    assert_eq!(serde_json::to_value(&m.sites).unwrap(), cli["sites"], "the room shows the CLI's sites");
    h.get_by_label("Samples of logistic (none)").click();
    h.run_steps(5);
    assert!(h.query_by_label("Accuracy per site (test subjects)").is_some());
    // The metrics table names each run's task, so runs of two cohorts loaded together are told apart.
    assert!(h.query_by_label("task").is_some() && h.query_all_by_label("adhd").count() >= 1, "task column");
    assert!(h.query_by_label("truth \\ predicted").is_some() && h.query_by_label("P(label)").is_some());
    // Each subject's row shows the regression's probability of the label it chose.
    let first =
        serde_json::from_str::<serde_json::Value>(std::fs::read_to_string(&run).unwrap().lines().nth(1).unwrap())
            .unwrap();
    let p = first["trace"]["decision"]["confidence"].as_f64().unwrap();
    assert!(h.query_all_by_label(&format!("{p:.2}")).count() >= 1, "P(label) {p:.2} shown");
}

/// Networks ▸ Cohort ▸ Cohort model: Train fits the model on the open cohort's training split in the background
/// and saves it beside the cohort file; "Use for single connectomes" hands it to the Cohort model panel, where a
/// test subject opened from the cohort table is analysed against it: the P shown is the saved model's.
#[test]
fn a_cohort_model_trained_in_the_window_analyses_a_single_connectome() {
    use brainlens::agent::graph::cohort_model::CohortModel;
    let Some(root) = common::cohorts() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let cohort = common::adhd_cohort(&root, tmp.path(), "adhd40", 14, 40);
    let mut app = BrainLensApp::new(None, false);
    app.open(cohort.clone());
    let mut h =
        Harness::builder().with_size([1400.0, 900.0]).build_ui_state(|ui, app: &mut BrainLensApp| app.show(ui), app);
    let wait = |h: &mut Harness<'_, BrainLensApp>, busy: &dyn Fn(&BrainLensApp) -> bool| {
        for _ in 0..3000 {
            h.run_steps(1);
            if !busy(h.state()) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        panic!("still busy");
    };
    wait(&mut h, &|a| a.networks.cohort.busy());
    h.run_steps(2);
    h.get_by_label("Cohort model").click();
    h.run_steps(2);
    h.get_by_label("Train").click();
    h.run_steps(2);
    wait(&mut h, &|a| a.networks.cohort.train.busy());
    h.run_steps(2);
    let train = &h.state().networks.cohort.train;
    assert!(train.error.is_none(), "{:?}", train.error);
    let (path, trained) = train.trained.clone().expect("trained");
    assert_eq!(path, tmp.path().join("adhd40.adhd.model.json"));
    assert_eq!(CohortModel::load(&path).unwrap(), trained, "the model shown is the one saved");
    h.get_by_label("Use for single connectomes").click();
    h.run_steps(2);
    assert!(h.state().networks.cohort_model.open);
    // A test subject from the cohort table, then Analyse.
    let id = trained.split.test[0].clone();
    h.get_by_label(&id).click();
    h.run_steps(3);
    h.get_by_label("Analyse").click();
    h.run_steps(3);
    let panel = &h.state().networks.cohort_model;
    assert!(panel.error.is_none(), "{:?}", panel.error);
    let (_, p) = panel.prediction.clone().expect("a prediction");
    let source = brainlens::network::cohort::source::Source::cohort_file(&cohort).unwrap();
    let atlas = brainlens::network::atlas::Atlas::load("aal90").unwrap();
    let want = trained.predict(&id, &source.connectome_of(&id).unwrap(), Some(&atlas)).unwrap();
    assert!((p.probability - want.probability).abs() < 1e-12 && p.edges == want.edges, "{p:?}");
    assert!(h.query_by_label_contains(&format!("P(ADHD) = {:.3}", p.probability)).is_some());
    // An edge's row highlights its two regions on the glass brain.
    h.get_by_label(&format!("{} – {}", p.edges[0].regions[0], p.edges[0].regions[1])).click();
    h.run_steps(2);
    assert_eq!(h.state().networks.current.as_ref().unwrap().highlight.len(), 2);
}

/// BrainAgent… with brainagent-hybrid on one ADHD-200 subject's matrix against a saved cohort model: Analyze runs
/// it (the model's replies replayed from a recorded scripted run), and the trace shows the evidence ledger — the
/// evidence decision, what the analysis concluded, the rule, and each item with the label it supports and
/// whether the rationale cited it.
#[test]
fn a_hybrid_analysis_shows_its_evidence_ledger_in_the_room() {
    use brainlens::agent::graph::cohort_model::CohortModel;
    use brainlens::agent::graph::{Agent, GraphContext, Method, Settings, Task, setup};
    use brainlens::llm::ChatModel;
    use brainlens::llm::config::ProviderKind;
    use brainlens::llm::replay::Recorder;
    use brainlens::network::cohort::source::Source;
    use brainlens::util::cancel::Cancel;
    use std::sync::Arc;
    let Some(root) = common::cohorts() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let cohort = common::adhd_cohort(&root, tmp.path(), "adhd40", 14, 40);
    let source = Source::cohort_file(&cohort).unwrap();
    let task = Task::load("adhd").unwrap();
    let model =
        CohortModel::train(&source, &task, 0.2, 0, brainlens::util::calibration::Method::Sigmoid, &Cancel::default())
            .unwrap();
    let model_file = tmp.path().join("adhd.model.json");
    model.save(&model_file).unwrap();
    let id = model.split.test[0].clone();
    let g = source.connectome_of(&id).unwrap();
    let graph = tmp.path().join(format!("{id}.csv"));
    brainlens::network::io::write_csv(&graph, &g).unwrap();
    // The run to replay, recorded from the scripted model with the resources the panel builds.
    let settings = Settings::for_method(Method::BrainagentHybrid);
    let transcript = tmp.path().join("hybrid.jsonl");
    let atlas = brainlens::network::atlas::Atlas::load("aal90").unwrap();
    let ctx = GraphContext::load(&graph, Some(&atlas)).unwrap();
    let mut res = setup::resources(&task, &settings, task.memory_dir().as_deref(), None).unwrap();
    res.cohort_model = Some(setup::cohort_model(&task, Some(&model_file)).unwrap());
    // The analysis explains the evidence's decision citing three ids of three kinds.
    let explains = common::scripted::Scripted::with(|name, r| {
        (name == "analysis").then(|| {
            let prompt = r.messages.last().map(|m| m.content.clone()).unwrap_or_default();
            let decided = prompt.split("The evidence decides ").nth(1).and_then(|t| t.split(' ').next()).unwrap();
            Ok(serde_json::json!({
                "on_model": {"claim": "The cohort model favours this label.", "evidence": ["P:cohort", "E:1"]},
                "on_second": {"claim": "Density is fixed by the threshold.", "evidence": ["G:density"]},
                "more": [],
                "label": decided, "confidence": 0.7}))
        })
    });
    let scripted: Arc<dyn ChatModel> = Arc::new(Recorder::new(Arc::new(explains), &transcript, vec![]).unwrap());
    let recorded = Agent::new(task.clone(), Some(scripted), res, settings.clone()).analyze(
        &ctx,
        0,
        &Cancel::default(),
        &mut |_| {},
    );
    assert!(recorded.hybrid.is_some(), "{:?}", recorded.outcome);

    let mut app = BrainLensApp::new(None, false);
    app.settings.llm.provider = ProviderKind::Replay;
    app.settings.llm.transcript = transcript.display().to_string();
    app.open(graph.clone());
    app.networks.agent.task = "adhd".into();
    app.networks.agent.settings = settings;
    app.networks.agent.cohort_model = model_file.display().to_string();
    let mut h =
        Harness::builder().with_size([1500.0, 1000.0]).build_ui_state(|ui, app: &mut BrainLensApp| app.show(ui), app);
    h.run_steps(3);
    h.get_by_label("BrainAgent…").click();
    h.run_steps(2);
    h.get_by_label("Analyze").click();
    common::gui::settle(&mut h, |a| {
        !a.networks.agent.busy() && a.networks.agent.trace.as_ref().is_some_and(|t| t.decision.is_some())
    });
    h.run_steps(3);
    let panel = &h.state().networks.agent;
    assert!(panel.error.is_none(), "{:?}", panel.error);
    let t = panel.trace.clone().unwrap();
    let hybrid = t.hybrid.clone().expect("the hybrid's record");
    assert_eq!(hybrid, recorded.hybrid.unwrap());
    assert_eq!(t.decision.as_ref().unwrap().label, hybrid.evidence_label);
    assert_eq!(hybrid.rule, brainlens::agent::graph::ledger::Rule::Agreed);
    let cited: Vec<&str> = hybrid.ledger.iter().filter(|i| i.cited).map(|i| i.id.as_str()).collect();
    assert_eq!(cited, ["P:cohort", "E:1", "G:density"]);
    assert!(h.query_by_label_contains("Evidence ledger · the evidence decides").is_some());
    assert!(h.query_by_label_contains("Rule: ").is_some());
    assert!(h.query_all_by_label("P:cohort").count() >= 1 && h.query_all_by_label("E:10").count() >= 1);
}
