//! The Networks room's evidence panels with egui_kittest: HARK's IoU slider changes which knowledge items pass
//! and are chosen, and clicking an item highlights its regions on the glass brain; CARD's β slider re-ranks the
//! cases live (β = 1 → graph similarity alone, β = 0 → text similarity alone).
#![cfg(feature = "gui")]

mod common;

use brainlens::retrieval::text::TextMethod;
use brainlens::ui::app::BrainLensApp;
use common::gui::settle;
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use std::path::Path;

fn harness(file: &str) -> Harness<'static, BrainLensApp> {
    let mut app = BrainLensApp::new(None, false);
    app.open(Path::new(env!("CARGO_MANIFEST_DIR")).join(file));
    let mut h =
        Harness::builder().with_size([1400.0, 900.0]).build_ui_state(|ui, app: &mut BrainLensApp| app.show(ui), app);
    h.run_steps(3);
    h
}

/// (passed, chosen) task items of the current HARK answer.
fn task_items(app: &BrainLensApp) -> (Vec<String>, Vec<String>) {
    match &app.networks.hark.result {
        Some(Ok(r)) => {
            let task = r.candidates.iter().filter(|c| c.task != "general");
            let passed = task.clone().filter(|c| c.passed).map(|c| c.id.clone()).collect();
            let chosen = task.filter(|c| c.chosen).map(|c| c.id.clone()).collect();
            (passed, chosen)
        }
        _ => (vec![], vec![]),
    }
}

#[test]
fn hark_threshold_slider_changes_what_passes() {
    let mut h = harness("fixtures/networks/group-train706_fc.npz");
    h.state_mut().networks.hark.method = TextMethod::Bm25;
    h.state_mut().networks.hark.task = "mdd".into();
    h.state_mut().networks.hark.regions = "Default".into();
    h.state_mut().networks.hark.query = "default mode network connectivity in depression".into();
    h.get_by_label("Knowledge (HARK)…").click();
    settle(&mut h, |a| matches!(&a.networks.hark.result, Some(Ok(_))));
    let (at_half, chosen) = task_items(h.state());
    // mdd-005 covers the default network alone (IoU 1); mdd-002 spans three networks (IoU < 0.5).
    assert!(at_half.contains(&"mdd-005".to_string()) && !at_half.contains(&"mdd-002".to_string()), "{at_half:?}");
    assert_eq!(chosen.len(), at_half.len().min(5));
    assert!(chosen.iter().all(|c| at_half.contains(c)), "only items that passed are chosen");
    h.get_by_role_and_label(Role::Slider, "IoU threshold").set_value_accesskit(0.1);
    settle(&mut h, |a| matches!(&a.networks.hark.result, Some(Ok(r)) if r.threshold == 0.1) && !a.networks.hark.busy());
    let (at_tenth, _) = task_items(h.state());
    assert!(at_tenth.contains(&"mdd-002".to_string()) && at_half.iter().all(|x| at_tenth.contains(x)), "{at_tenth:?}");
    h.get_by_label("mdd-005").click();
    h.run_steps(2);
    let o = h.state().networks.current.as_ref().unwrap();
    assert!(!o.highlight.is_empty() && o.highlight.iter().all(|&i| o.connectome.labels[i].contains("Default")));
}

#[test]
fn card_beta_slider_reranks_cases() {
    let mut h = harness("assets/cases/hcp_fingerprint/graphs/sub-100307_REST2_t400.npy");
    h.state_mut().networks.card.exclude_group = "sub-100307_REST2".into();
    h.get_by_label("Similar cases (CARD)…").click();
    settle(&mut h, |a| !a.networks.card.hits.is_empty());
    h.get_by_role_and_label(Role::Slider, "β (graph weight)").set_value_accesskit(1.0);
    h.run_steps(3);
    let graph_only: Vec<String> = h.state().networks.card.hits.iter().map(|x| x.case.clone()).collect();
    let top = h.state().networks.card.hits[0].clone();
    assert_eq!(top.label, "sub-100307", "graph similarity finds the subject's other run");
    assert!((top.score - top.graph_sim).abs() < 1e-6);
    assert_eq!(h.state().networks.card.hits.len(), 15);
    h.get_by_role_and_label(Role::Slider, "β (graph weight)").set_value_accesskit(0.0);
    h.run_steps(3);
    let text_only: Vec<String> = h.state().networks.card.hits.iter().map(|x| x.case.clone()).collect();
    assert_ne!(graph_only, text_only, "β re-ranks");
    let top = h.state().networks.card.hits[0].clone();
    assert!((top.score - top.text_sim).abs() < 1e-6);
    h.get_by_label(&top.case).click();
    h.run_steps(2);
    h.get_by_label("Open this case").click();
    h.run_steps(2);
    assert_eq!(h.state().networks.card.opened.as_ref().map(|(id, _)| id.clone()), Some(top.case.clone()));
    h.get_by_label("difference (this − case)");
}

#[test]
fn review_approves_and_rejects_built_items() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("review.jsonl");
    let item = |id: &str| {
        format!(
            r#"{{"id":"{id}","text":"precuneus connectivity fact {id} from a paper","regions":["Precuneus_L"],"atlas":"aal90","task":"asd","source":"doc.md, passage 1 (extracted by scripted)","status":"needs_review"}}"#
        )
    };
    std::fs::write(&file, [item("asd-kb-0001"), item("asd-kb-0002"), item("asd-kb-0003")].join("\n")).unwrap();
    let mut app = BrainLensApp::new(None, false);
    app.room = brainlens::ui::app::Room::Networks;
    let mut h =
        Harness::builder().with_size([1400.0, 900.0]).build_ui_state(|ui, app: &mut BrainLensApp| app.show(ui), app);
    h.run_steps(2);
    h.get_by_label("Review knowledge…").click();
    h.run_steps(2);
    h.state_mut().networks.review.path = file.display().to_string();
    h.get_by_label("Load").click();
    h.run_steps(2);
    h.get_by_label_contains("3 item(s) to review");
    h.get_by_label("approve asd-kb-0001").click();
    h.get_by_label("reject asd-kb-0002").click();
    h.run_steps(1);
    h.get_by_label("Save").click();
    h.run_steps(2);
    h.get_by_label_contains("1 approved, 1 rejected");
    let base = brainlens::retrieval::knowledge::KnowledgeBase::load(dir.path()).unwrap();
    let ids: Vec<(String, Option<String>)> = base.items.iter().map(|i| (i.id.clone(), i.status.clone())).collect();
    assert_eq!(ids, [("asd-kb-0001".into(), None), ("asd-kb-0003".into(), Some("needs_review".into()))]);
    let hark = brainlens::retrieval::knowledge::Hark::new(base, TextMethod::Bm25, None).unwrap();
    let aal = brainlens::network::atlas::Atlas::builtin("aal90").unwrap();
    let r = hark.query("precuneus", &Default::default(), &aal, "asd", 0.5, 5).unwrap();
    assert_eq!(
        r.candidates.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(),
        ["asd-kb-0001"],
        "only the approved item is offered"
    );
}

#[test]
fn gfm_window_draws_the_loss_curve_of_a_training_log() {
    use brainlens::retrieval::gfm::train::{TrainOptions, train};
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("gfm.safetensors");
    let files = brainlens::retrieval::gfm::graph_files(Path::new("fixtures/networks/fc")).unwrap();
    let graphs: Vec<_> = files
        .iter()
        .take(3)
        .map(|f| brainlens::network::io::load(f, brainlens::network::connectome::Asymmetry::Symmetrize).unwrap())
        .collect();
    let o = TrainOptions { epochs: 2, dim: 16, layers: 1, ..Default::default() };
    train(&graphs, &out, &o, &mut |_| {}, &Default::default()).unwrap();
    let mut h = harness("fixtures/networks/group-train706_fc.npz");
    h.get_by_label("Graph encoder…").click();
    h.run_steps(2);
    h.get_by_label_contains("no epochs yet");
    h.state_mut().networks.gfm.out = out.display().to_string();
    h.get_by_label("Show log").click();
    h.run_steps(2);
    h.get_by_label_contains("loss curve — epoch 2: total");
    h.get_by_label_contains("2 epochs on 3 graphs");
    assert_eq!(h.state().networks.gfm.losses.lock().unwrap().len(), 2);
}

/// "Review cases…": a memory whose two reports are flagged (`if_manual`) lists them; rejecting one and
/// approving the other with an edited conclusion rewrites the memory (as `cases review` does).
#[test]
fn case_review_rejects_and_approves_an_edited_report() {
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/cases/hcp_fingerprint");
    let mut m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(src.join("memory.json")).unwrap()).unwrap();
    for k in [0, 1] {
        m["cases"][k]["report"]["if_manual"] = serde_json::json!(true);
    }
    let (a, b) = (m["cases"][0]["id"].as_str().unwrap().to_string(), m["cases"][1]["id"].as_str().unwrap().to_string());
    std::fs::write(dir.path().join("memory.json"), m.to_string()).unwrap();
    let mut app = BrainLensApp::new(None, false);
    app.room = brainlens::ui::app::Room::Networks;
    let mut h =
        Harness::builder().with_size([1400.0, 900.0]).build_ui_state(|ui, app: &mut BrainLensApp| app.show(ui), app);
    h.run_steps(2);
    h.get_by_label("Review cases…").click();
    h.run_steps(2);
    h.state_mut().networks.case_review.path = dir.path().display().to_string();
    h.get_by_label("Load").click();
    h.run_steps(2);
    h.get_by_label_contains("2 case(s) to review");
    h.get_by_label(&format!("reject {a}")).click();
    h.get_by_label(&format!("approve {b}")).click();
    h.state_mut().networks.case_review.rows[1].fields[4].1 = "Checked by a reviewer.".into();
    h.run_steps(1);
    h.get_by_label("Save").click();
    h.run_steps(2);
    h.get_by_label_contains("0 approved, 1 edited, 1 rejected");
    let after = brainlens::retrieval::cases::CaseMemory::load(dir.path()).unwrap();
    assert_eq!(after.cases.len(), 19);
    let edited = after.cases.iter().find(|c| c.id == b).unwrap();
    assert_eq!((edited.report["conclusion"].as_str(), edited.needs_review()), (Some("Checked by a reviewer."), false));
}
