//! BrainAgent with the real local SmolLM2-135M on a real HCP graph, from the CLI: the loop completes, every
//! step is schema-valid (constrained decoding), the label is in the task's set. Quality is not asserted.
//! Skipped when the model cache is empty unless BRAINLENS_REQUIRE_MODELS=1.

mod common;

use brainlens::agent::graph::{OutcomeClass, Trace};

#[test]
fn brainagent_with_the_local_model_completes_with_valid_steps() {
    if common::local_model().is_none() {
        return;
    }
    let graph = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/cases/hcp_fingerprint/graphs/sub-100307_REST2_t400.npy");
    // The model is named by its catalogue name, as `models list` prints it; the default model points at a
    // file that does not exist, so a `--model` the local provider ignored would fail to load.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_brainlens"))
        .env("BRAINLENS_MODEL_PATH", "/nonexistent/default.gguf")
        .args([
            "agent",
            "analyze",
            graph.to_str().unwrap(),
            "--task",
            "fingerprint",
            "--provider",
            "local",
            "--model",
            "smollm2-135m",
            "--rounds",
            "2",
            "--max-links",
            "10",
            "--max-tokens",
            "200",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
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
    assert!(
        t.calls.iter().all(|c| c.model == "local:SmolLM2-135M-Instruct.Q4_1"),
        "the model that answered: {:?}",
        t.calls[0].model
    );
    eprintln!(
        "local brainagent: {} calls, {} + {} tokens, {:.1} s, label {}",
        t.calls.len(),
        t.prompt_tokens(),
        t.completion_tokens(),
        t.elapsed_ms / 1000.0,
        d.label
    );
}

#[test]
fn a_local_model_name_outside_the_catalogue_is_an_error_listing_it() {
    for args in [
        &["agent", "analyze", "x.npy", "--task", "fingerprint", "--provider", "local", "--model", "nope"][..],
        &["llm", "chat", "hi", "--provider", "local", "--model", "nope"],
        &["llm", "serve", "--model", "nope", "--port", "0"],
        &["llm", "tokenize", "hi", "--model", "nope"],
    ] {
        let (code, _, err) = common::run(args);
        assert_ne!(code, 0, "{args:?}");
        for m in &brainlens::llm::catalogue::catalogue().models {
            assert!(err.contains(&m.name), "{args:?}: {err}");
        }
        assert!(err.contains("no model named \"nope\"") && err.contains("brainlens models fetch"), "{err}");
    }
    let (code, _, err) = common::run(&["llm", "chat", "hi", "--model", "smollm2-135m", "--model-path", "/other.gguf"]);
    assert!(code != 0 && err.contains("give one of them"), "{err}");
}
