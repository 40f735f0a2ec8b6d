//! BrainAgent with the real local SmolLM2-135M on a real HCP graph, from the CLI: the loop completes, every
//! step is schema-valid (constrained decoding), the label is in the task's set. Quality is not asserted.
//! Skipped when the model cache is empty unless BRAINLENS_REQUIRE_MODELS=1.

mod common;

use brainlens::agent::graph::{OutcomeClass, Trace};

#[test]
fn brainagent_with_the_local_model_completes_with_valid_steps() {
    let Some(model) = common::local_model() else { return };
    let graph = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/cases/hcp_fingerprint/graphs/sub-100307_REST2_t400.npy");
    let v = common::json(&[
        "agent",
        "analyze",
        graph.to_str().unwrap(),
        "--task",
        "fingerprint",
        "--provider",
        "local",
        "--model-path",
        model.to_str().unwrap(),
        "--rounds",
        "2",
        "--max-links",
        "10",
        "--max-tokens",
        "200",
        "--json",
    ]);
    let t: Trace = serde_json::from_value(v["trace"].clone()).unwrap();
    assert_eq!(t.outcome.class, OutcomeClass::Ok, "{:?}", t.outcome);
    assert!(t.understanding.is_some());
    assert!(!t.rounds.is_empty() && t.rounds.len() <= 2);
    for r in &t.rounds {
        assert!(r.error.is_none(), "{r:?}");
        assert!(r.menu.contains(&r.tool), "the tool is one the menu offered: {r:?}");
    }
    assert_eq!(t.counters.invalid_outputs, 0, "constrained decoding: no step needed a correction");
    assert_eq!(t.counters.out_of_label_set, 0);
    let d = t.decision.clone().unwrap();
    assert!(["sub-100206", "sub-100307"].contains(&d.label.as_str()));
    assert!((0.0..=1.0).contains(&d.confidence));
    assert!(t.reflection.is_some());
    assert!(t.calls.iter().all(|c| c.attempts == 1 && c.completion_tokens > 0));
    eprintln!(
        "local brainagent: {} calls, {} + {} tokens, {:.1} s, label {}",
        t.calls.len(),
        t.prompt_tokens(),
        t.completion_tokens(),
        t.elapsed_ms / 1000.0,
        d.label
    );
}
