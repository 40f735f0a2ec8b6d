//! CARD: β mixing by hand (β = 0, 0.5, 1), the shipped HCP fingerprinting memory (real BOLD windows) retrieves
//! the same subject from the other run, and bad memories fail with the file named.

mod common;

use brainlens::retrieval::cases::{Case, CaseMemory};
use brainlens::retrieval::graph::ENCODER;
use serde_json::{Value, json};

fn case(id: &str, label: &str, g: [f32; 2], t: [f32; 2]) -> Case {
    Case {
        id: id.into(),
        label: label.into(),
        group: String::new(),
        graph: format!("{id}.npy"),
        report: json!({}),
        report_text: String::new(),
        written_by: "template".into(),
        graph_embedding: g.to_vec(),
        report_embedding: t.to_vec(),
    }
}

#[test]
fn beta_mixes_graph_and_text_similarity() {
    let memory = CaseMemory {
        task: "t".into(),
        encoder: ENCODER.into(),
        text_model: "all-MiniLM-L6-v2".into(),
        atlas: None,
        cases: vec![
            case("graphy", "A", [1.0, 0.0], [0.0, 1.0]),
            case("texty", "B", [0.0, 1.0], [1.0, 0.0]),
            case("both", "A", [0.6, 0.8], [0.6, 0.8]),
        ],
    };
    let query = [1.0f32, 0.0];
    let text = [0.0f32, 1.0, 0.6]; // text similarity of the query's report to each case (given)
    let order = |beta: f32| -> Vec<(String, f32)> {
        memory.rank(&query, &text, beta, 1, None).unwrap().into_iter().map(|h| (h.case, h.score)).collect()
    };
    // β = 1: graph only → graphy 1, both 0.6, texty 0.
    assert_eq!(order(1.0), vec![("graphy".into(), 1.0), ("both".into(), 0.6), ("texty".into(), 0.0)]);
    // β = 0: text only → texty 1, both 0.6, graphy 0.
    assert_eq!(order(0.0), vec![("texty".into(), 1.0), ("both".into(), 0.6), ("graphy".into(), 0.0)]);
    // β = 0.5: both 0.6, then graphy and texty tie at 0.5 (ties by case id).
    assert_eq!(order(0.5), vec![("both".into(), 0.6), ("graphy".into(), 0.5), ("texty".into(), 0.5)]);
    let hits = memory.rank(&query, &text, 0.5, 1, None).unwrap();
    assert_eq!(hits.iter().filter(|h| h.chosen).count(), 1);
    assert!((hits[0].graph_sim - 0.6).abs() < 1e-6 && (hits[0].text_sim - 0.6).abs() < 1e-6);
    assert!(memory.rank(&query, &text, 1.5, 1, None).unwrap_err().to_string().contains("β"));
    assert!(memory.rank(&[1.0], &text, 0.5, 1, None).unwrap_err().to_string().contains("embedding has 1 values"));
}

#[test]
fn the_shipped_fingerprint_memory_finds_the_subject_in_the_other_run() {
    let v = common::json(&["cases", "eval", "--memory", "assets/cases/hcp_fingerprint", "--json"]);
    assert_eq!(v["cases"], 20);
    let graph_only = &v["rows"][0];
    assert_eq!(graph_only["beta"], 1.0);
    // Recorded when the memory was built (scripts/make_case_memory.sh): P@1 0.90, hit@3 0.95.
    assert!(graph_only["precision_at_1"].as_f64().unwrap() >= 0.85, "{v}");
    let hits = common::json(&[
        "card",
        "assets/cases/hcp_fingerprint/graphs/sub-100307_REST2_t400.npy",
        "--memory",
        "assets/cases/hcp_fingerprint",
        "--beta",
        "1",
        "--exclude-group",
        "sub-100307_REST2",
        "--json",
    ]);
    let candidates = hits["candidates"].as_array().unwrap();
    assert_eq!(candidates.len(), 15, "the query's own run is left out");
    assert_eq!(candidates[0]["label"], "sub-100307");
    assert_eq!(candidates.iter().filter(|c| c["chosen"] == true).count(), 3);
    let report = hits["query_report"].as_str().unwrap();
    assert!(report.contains("Highest-degree regions") && !report.contains("sub-100307"), "{report}");
}

#[test]
fn bad_memories_name_the_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("memory.json"), "{\"task\": 1}").unwrap();
    let (code, _, err) = common::run(&[
        "card",
        "fixtures/networks/fc/sub-100206_REST1_fc.npy",
        "--memory",
        dir.path().to_str().unwrap(),
    ]);
    assert!(code == 1 && err.contains("memory.json") && err.contains("not a case memory"), "{err}");
    let (code, _, err) =
        common::run(&["card", "fixtures/networks/group-train706_fc.npz", "--memory", "fixtures/networks"]);
    assert!(code == 1 && err.contains("cannot read the case memory"), "{err}");
    let labels = dir.path().join("labels.csv");
    std::fs::write(&labels, "file,label\nonly-a-file\n").unwrap();
    let (code, _, err) = common::run(&[
        "cases",
        "build",
        "--graphs",
        "fixtures/networks/fc",
        "--labels",
        labels.to_str().unwrap(),
        "--task",
        "x",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert!(code == 1 && err.contains("line 2") && err.contains("file,label"), "{err}");
}

/// Writes a draft on the first call and flags it on the second (the refiner).
struct Reporter(std::sync::Mutex<u32>);

impl brainlens::llm::ChatModel for Reporter {
    fn name(&self) -> String {
        "scripted".into()
    }
    fn chat_with(
        &self,
        r: &brainlens::llm::ChatRequest,
        _: &brainlens::util::cancel::Cancel,
        _: &mut dyn FnMut(&str),
    ) -> Result<brainlens::llm::ChatResponse, brainlens::llm::LlmError> {
        let mut n = self.0.lock().unwrap();
        *n += 1;
        let prompt = &r.messages.last().unwrap().content;
        let v = if prompt.contains("Draft report") {
            assert!(prompt.contains("hubs galore"), "the refiner sees the draft");
            json!({"region_level": "Hubs as in the facts.", "subgraph_level": "Modules as in the facts.", "graph_level": "Efficiency as in the facts.",
                   "case_level": "Label given.", "conclusion": "Checked.", "if_manual": true})
        } else {
            json!({"region_level": "hubs galore", "subgraph_level": "s", "graph_level": "g", "case_level": "c", "conclusion": "d", "if_manual": false})
        };
        Ok(brainlens::llm::ChatResponse {
            text: v.to_string(),
            json: Some(v),
            usage: Default::default(),
            latency_ms: 0.0,
            model: "scripted".into(),
            finish_reason: "stop".into(),
            attempts: 1,
            choices: Vec::new(),
        })
    }
}

#[test]
fn model_reports_are_drafted_then_refined() {
    let dir = tempfile::tempdir().unwrap();
    let labels = dir.path().join("labels.csv");
    std::fs::write(&labels, "file,label,group\nsub-100206_REST1_t0.npy,sub-100206,run1\n").unwrap();
    let graphs = std::path::Path::new("assets/cases/hcp_fingerprint/graphs");
    let source = brainlens::network::cohort::source::Source::folder(graphs, &labels).unwrap();
    let model = Reporter(std::sync::Mutex::new(0));
    let memory = CaseMemory::build(
        &source,
        &source.subjects,
        "fingerprint",
        Some("schaefer100"),
        None,
        Some(&model),
        &brainlens::retrieval::cases::GraphEncoder::Baseline,
        dir.path(),
        &mut |_, _| {},
    )
    .unwrap();
    assert_eq!(*model.0.lock().unwrap(), 2, "one draft, one refinement");
    let case = &memory.cases[0];
    assert_eq!(case.written_by, "model:scripted");
    assert_eq!(case.report["if_manual"], true);
    assert_eq!(case.report["draft"]["region_level"], "hubs galore");
    assert!(case.report["facts"]["region_level"].as_str().unwrap().starts_with("Highest-degree regions"));
    assert_eq!(case.report_text, "Hubs as in the facts. Modules as in the facts. Efficiency as in the facts.");
    assert_eq!(memory.text_model, "bm25", "built without MiniLM, text similarity falls back to BM25");
}

/// Expert review of flagged case reports: a copy of the shipped memory with two reports flagged (`if_manual`)
/// lists them, CARD leaves them out until reviewed, and `cases review` approves one and edits the other (its
/// report text re-embedded with MiniLM when the model is in the cache), rewriting the memory.
#[test]
fn flagged_case_reports_wait_for_review_and_are_approved_or_edited() {
    let dir = tempfile::tempdir().unwrap();
    let src = std::path::Path::new("assets/cases/hcp_fingerprint");
    let mut m: Value = serde_json::from_str(&std::fs::read_to_string(src.join("memory.json")).unwrap()).unwrap();
    let graphs = std::fs::canonicalize(src.join("graphs")).unwrap();
    for c in m["cases"].as_array_mut().unwrap() {
        let g = c["graph"].as_str().unwrap().trim_start_matches("graphs/").to_string();
        c["graph"] = json!(graphs.join(g).display().to_string());
    }
    let (a, b) = (m["cases"][0]["id"].as_str().unwrap().to_string(), m["cases"][1]["id"].as_str().unwrap().to_string());
    for k in [0, 1] {
        m["cases"][k]["report"]["if_manual"] = json!(true);
    }
    std::fs::write(dir.path().join("memory.json"), m.to_string()).unwrap();
    let mem = dir.path().to_str().unwrap();
    let listed = common::json(&["cases", "review", "--memory", mem, "--json"]);
    let ids: Vec<&str> = listed["flagged"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(ids, [a.as_str(), b.as_str()]);
    let query = graphs.join("sub-100307_REST2_t400.npy");
    let card = |mem: &str| {
        let hits = common::json(&["card", query.to_str().unwrap(), "--memory", mem, "--json"]);
        hits["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["case"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let before = card(mem);
    assert_eq!(before.len(), 18, "the two flagged cases are left out");
    assert!(!before.contains(&a) && !before.contains(&b));
    let edit = format!("{b}:graph_level=Reviewed: the graph-level claims were checked against the metrics.");
    let done = common::json(&["cases", "review", "--memory", mem, "--approve", &a, "--edit", &edit, "--json"]);
    assert_eq!(done["reviewed"]["approved"], json!([a]));
    assert_eq!(done["reviewed"]["edited"], json!([b]));
    assert_eq!(done["flagged_left"], 0);
    let after: Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("memory.json")).unwrap()).unwrap();
    let case_b = &after["cases"][1];
    assert_eq!(case_b["report"]["review"], "edited");
    assert!(case_b["report_text"].as_str().unwrap().ends_with("checked against the metrics."));
    assert_ne!(case_b["report_embedding"], m["cases"][1]["report_embedding"], "the edited text is embedded anew");
    assert_eq!(card(mem).len(), 20);
    // A verdict on a case that is not flagged is refused, naming the memory; nothing is written.
    let (code, _, err) = common::run(&["cases", "review", "--memory", mem, "--reject", &a]);
    assert!(code != 0 && err.contains("not waiting for review") && err.contains("memory.json"), "{err}");
}
