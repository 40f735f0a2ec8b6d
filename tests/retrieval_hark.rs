//! HARK: region IoU by hand, the coarse filter and the two top-k lists, region names resolved to AAL-90 indices
//! and Yeo-7 networks to Schaefer-100 regions, knowledge-base validation errors, and the shipped base.

mod common;

use brainlens::network::atlas::Atlas;
use brainlens::retrieval::knowledge::{Hark, KnowledgeBase, default_dir, iou, parse_regions, resolve};
use brainlens::retrieval::text::TextMethod;
use std::collections::BTreeSet;

fn kb(lines: &[&str]) -> (tempfile::TempDir, KnowledgeBase) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("kb.jsonl"), lines.join("\n")).unwrap();
    let kb = KnowledgeBase::load(dir.path()).unwrap();
    (dir, kb)
}

#[test]
fn iou_filter_and_ranking_by_hand() {
    let aal = Atlas::builtin("aal90").unwrap();
    let (_d, base) = kb(&[
        r#"{"id":"a1","text":"precuneus connectivity reduced","regions":["Precuneus_L","Precuneus_R"],"atlas":"aal90","task":"asd","source":"s"}"#,
        r#"{"id":"a2","text":"precuneus and angular connectivity reduced","regions":["Precuneus_L","Angular_L","Angular_R"],"atlas":"aal90","task":"asd","source":"s"}"#,
        r#"{"id":"a3","text":"thalamus hyperconnectivity","regions":["Thalamus_L"],"atlas":"aal90","task":"asd","source":"s"}"#,
        r#"{"id":"m1","text":"precuneus in depression","regions":["Precuneus_L","Precuneus_R"],"atlas":"aal90","task":"mdd","source":"s"}"#,
        r#"{"id":"g1","text":"precuneus is a hub","regions":[],"atlas":"","task":"general","source":"s"}"#,
        r#"{"id":"g2","text":"small world networks","regions":[],"atlas":"","task":"general","source":"s"}"#,
    ]);
    // Query {Precuneus_L, Precuneus_R, Angular_L}: a1 → 2/3, a2 → 2/4, a3 → 0.
    let q = parse_regions("Precuneus_L,Precuneus_R,Angular_L", &aal).unwrap();
    assert_eq!(
        q,
        BTreeSet::from([64, 66, 67]),
        "AAL-90 indices, 0-based: Angular_L 64, Precuneus_L 66, Precuneus_R 67"
    );
    let hark = Hark::new(base, TextMethod::Bm25, None).unwrap();
    let r = hark.query("precuneus connectivity", &q, &aal, "asd", 0.5, 1).unwrap();
    let get = |id: &str| r.candidates.iter().find(|c| c.id == id).unwrap().clone();
    assert!((get("a1").iou.unwrap() - 2.0 / 3.0).abs() < 1e-12 && get("a1").passed);
    assert!((get("a2").iou.unwrap() - 0.5).abs() < 1e-12 && get("a2").passed, "IoU = threshold passes");
    assert_eq!((get("a3").iou, get("a3").passed), (Some(0.0), false));
    assert!(r.candidates.iter().all(|c| c.id != "m1"), "other tasks' items are not candidates");
    let chosen: Vec<&str> = r.candidates.iter().filter(|c| c.chosen).map(|c| c.id.as_str()).collect();
    assert_eq!(chosen, ["a1", "g1"], "top-1 task item (best text match among passed) + top-1 general item");
    // A stricter threshold keeps only a1; no regions at all skips the filter.
    let r = hark.query("precuneus", &q, &aal, "asd", 0.6, 5).unwrap();
    assert_eq!(r.candidates.iter().filter(|c| c.passed && c.task == "asd").count(), 1);
    let r = hark.query("thalamus", &BTreeSet::new(), &aal, "asd", 0.5, 1).unwrap();
    assert_eq!(r.candidates.iter().find(|c| c.chosen).unwrap().id, "a3");
    assert!(hark.query("x", &q, &aal, "autism", 0.5, 1).unwrap_err().to_string().contains("task"));
}

#[test]
fn yeo7_items_resolve_to_schaefer_regions() {
    let sch = Atlas::builtin("schaefer100").unwrap();
    let (_d, base) = kb(&[r#"{"id":"y","text":"dmn","regions":["Default"],"atlas":"yeo7","task":"mdd","source":"s"}"#]);
    let set = resolve(&base.items[0], &sch).unwrap();
    let nets = sch.networks.clone().unwrap();
    assert_eq!(set.len(), nets.iter().filter(|n| *n == "Default").count());
    assert!(set.iter().all(|&i| nets[i] == "Default" && sch.labels[i].contains("Default")));
    assert_eq!(parse_regions("Default", &sch).unwrap(), set, "a network name selects its regions in a query");
    assert!((iou(&set, &set) - 1.0).abs() < 1e-12);
    assert!(resolve(&base.items[0], &Atlas::builtin("aal90").unwrap()).is_none(), "Yeo-7 items do not map onto AAL");
}

#[test]
fn bad_items_are_refused_with_file_and_line() {
    for (line, want) in [
        (
            r#"{"id":"x","text":"t","regions":["Precuneus"],"atlas":"aal90","task":"asd","source":"s"}"#,
            "region \"Precuneus\"",
        ),
        (r#"{"id":"x","text":"t","regions":[],"atlas":"","task":"autism","source":"s"}"#, "task \"autism\""),
        (r#"{"id":"x","text":"t"}"#, "missing field"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("bad.jsonl"), format!("\n{line}\n")).unwrap();
        let e = format!("{:#}", KnowledgeBase::load(dir.path()).err().unwrap());
        assert!(e.contains("bad.jsonl line 2") && e.contains(want), "{e}");
    }
}

#[test]
fn the_shipped_knowledge_base_is_valid_and_answers_from_the_cli() {
    let base = KnowledgeBase::load(&default_dir()).unwrap();
    assert!(base.items.len() >= 400, "{}", base.items.len());
    let texts: std::collections::BTreeSet<&str> = base.items.iter().map(|i| i.text.as_str()).collect();
    assert_eq!(texts.len(), base.items.len(), "every fact is stated once");
    for task in ["general", "asd", "adhd", "mdd", "sex", "eeg", "sleep"] {
        assert!(base.items.iter().any(|i| i.task == task), "{task}");
    }
    assert!(base.items.iter().all(|i| i.source.len() > 20 && i.text.split_whitespace().count() >= 8));
    let aal = Atlas::builtin("aal90").unwrap();
    for item in base.items.iter().filter(|i| i.atlas == "aal90") {
        assert_eq!(resolve(item, &aal).unwrap().len(), item.regions.len(), "{}", item.id);
    }
    let v = common::json(&[
        "hark",
        "hyperconnectivity of thalamus and basal ganglia",
        "--regions",
        "Thalamus_L,Thalamus_R,Caudate_L,Caudate_R,Putamen_L,Putamen_R",
        "--task",
        "asd",
        "--method",
        "bm25",
        "--json",
    ]);
    let chosen: Vec<&str> = v["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["chosen"] == true && c["task"] == "asd")
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert!(chosen.contains(&"asd-004"), "{chosen:?}");
    let (code, _, err) = common::run(&["hark", "x", "--regions", "Nowhere_L", "--task", "asd"]);
    assert!(code == 1 && err.contains("Nowhere_L"), "{err}");
}
