//! `kb build` with a scripted model: facts extracted per passage, the judge's verdict applied, near-duplicates
//! (also of existing items) dropped, region names mapped (unknown ones reported), items written needs_review,
//! and HARK ignoring them until approved.

use brainlens::llm::{ChatModel, ChatRequest, ChatResponse, LlmError, ResponseFormat, Usage};
use brainlens::network::atlas::Atlas;
use brainlens::retrieval::kb_build::{append, build, passages};
use brainlens::retrieval::knowledge::{Hark, Item, KnowledgeBase};
use brainlens::retrieval::text::TextMethod;
use brainlens::util::cancel::Cancel;
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// Answers extraction with two facts per passage (one duplicated across passages) and rejects facts that
/// contain "obviously".
struct Scripted;

impl ChatModel for Scripted {
    fn name(&self) -> String {
        "scripted".into()
    }
    fn chat_with(&self, r: &ChatRequest, _: &Cancel, _: &mut dyn FnMut(&str)) -> Result<ChatResponse, LlmError> {
        let prompt = &r.messages.last().unwrap().content;
        let name = match &r.format {
            ResponseFormat::JsonSchema { name, .. } => name.clone(),
            _ => panic!("kb build asks for JSON"),
        };
        let value: Value = if name == "facts" {
            let first = prompt.lines().nth(1).unwrap_or("").to_string();
            json!({"facts": [
                {"text": format!("Finding from the passage: {first}"), "regions": ["left precuneus", "default mode network", "cerebellar vermis"]},
                {"text": "Obviously the brain is made of regions and every region matters a lot", "regions": []},
                {"text": "The precuneus and posterior cingulate cortex are hubs of the default mode network", "regions": ["posterior cingulate"]},
            ]})
        } else {
            let fact = prompt.lines().next().unwrap_or("");
            json!({"accurate": true, "useful": true, "redundant": false, "professional": !fact.contains("Obviously")})
        };
        Ok(ChatResponse {
            text: value.to_string(),
            json: Some(value),
            usage: Usage::default(),
            latency_ms: 0.0,
            model: "scripted".into(),
            finish_reason: "stop".into(),
            attempts: 1,
            choices: Vec::new(),
        })
    }
}

#[test]
fn builds_reviewable_items_from_documents() {
    let docs = tempfile::tempdir().unwrap();
    let (a, b) = (
        "Reduced connectivity was observed in the sample. ".repeat(20),
        "Thalamic coupling was increased in the group. ".repeat(20),
    );
    std::fs::write(docs.path().join("paper.md"), format!("{a}\n\n{b}\n\nA second finding about the thalamus."))
        .unwrap();
    std::fs::write(docs.path().join("notes.txt"), "Spindles mark N2.").unwrap();
    std::fs::write(docs.path().join("ignored.pdf"), "binary").unwrap();
    assert_eq!(passages(&std::fs::read_to_string(docs.path().join("paper.md")).unwrap()).len(), 2);

    let existing = vec![Item {
        id: "general-x".into(),
        text: "The precuneus and posterior cingulate cortex are hubs of the default mode network.".into(),
        regions: vec![],
        atlas: String::new(),
        task: "general".into(),
        source: "s".into(),
        status: None,
    }];
    let (items, report) = build(&Scripted, docs.path(), "asd", &existing, &mut |_| {}).unwrap();
    // 3 passages (2 in paper.md, 1 in notes.txt) × 3 facts.
    assert_eq!((report.documents, report.passages, report.extracted), (2, 3, 9));
    assert_eq!(report.rejected_by_judge, 3, "the 'Obviously' fact, once per passage");
    assert_eq!(report.duplicates, 3, "the hub fact duplicates an existing item each time");
    assert_eq!(report.kept, 3);
    assert_eq!(report.unmapped_regions, ["cerebellar vermis"]);
    let first = &items[0];
    assert_eq!(
        (first.atlas.as_str(), first.regions.clone()),
        ("aal90", vec!["Precuneus_L".to_string()]),
        "AAL labels win over the network name"
    );
    assert_eq!(first.status.as_deref(), Some("needs_review"));
    assert!(first.source.contains("notes.txt") || first.source.contains("paper.md"));
    assert!(first.source.contains("extracted by scripted"));

    // Written next to a valid base: HARK does not offer them before review.
    let kb_dir = tempfile::tempdir().unwrap();
    append(&kb_dir.path().join("review.jsonl"), &items).unwrap();
    let base = KnowledgeBase::load(kb_dir.path()).unwrap();
    assert_eq!(base.items.len(), 3);
    let hark = Hark::new(base, TextMethod::Bm25, None).unwrap();
    let r =
        hark.query("precuneus finding", &BTreeSet::new(), &Atlas::builtin("aal90").unwrap(), "asd", 0.5, 5).unwrap();
    assert!(r.candidates.is_empty(), "needs_review items are not candidates");
}

#[test]
fn a_missing_or_empty_documents_folder_is_an_error() {
    let e = build(&Scripted, std::path::Path::new("/nonexistent/docs"), "asd", &[], &mut |_| {}).unwrap_err();
    assert!(format!("{e:#}").contains("/nonexistent/docs"));
    let empty = tempfile::tempdir().unwrap();
    let e = build(&Scripted, empty.path(), "asd", &[], &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("no .txt or .md"));
    assert!(build(&Scripted, empty.path(), "autism", &[], &mut |_| {}).unwrap_err().to_string().contains("task"));
}
