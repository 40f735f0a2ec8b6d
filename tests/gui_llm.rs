//! The language-model window with egui_kittest: a chat turn and "Test connection" answered by the replay
//! provider (a transcript written here for exactly the requests the window sends), and an API key typed into
//! the window that never reaches the persisted settings.
#![cfg(feature = "gui")]

use brainlens::llm::config::{ProviderConfig, ProviderKind};
use brainlens::llm::replay::request_hash;
use brainlens::llm::{ChatRequest, ChatResponse, Message, Usage};
use brainlens::ui::app::BrainLensApp;
use brainlens::ui::llm::chat_request;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use serde_json::json;

fn entry(request: &ChatRequest, text: &str) -> String {
    let response = ChatResponse {
        text: text.into(),
        json: None,
        usage: Usage { prompt_tokens: 12, completion_tokens: 5, cached_tokens: 0, ..Default::default() },
        latency_ms: 40.0,
        model: "recorded".into(),
        finish_reason: "stop".into(),
        attempts: 1,
        choices: Vec::new(),
    };
    json!({"hash": request_hash(request), "model": "local:recorded", "request": request, "response": response})
        .to_string()
}

fn harness(config: ProviderConfig) -> Harness<'static, BrainLensApp> {
    let mut app = BrainLensApp::new(None, false);
    app.settings.llm = config;
    let mut h =
        Harness::builder().with_size([1280.0, 800.0]).build_ui_state(|ui, app: &mut BrainLensApp| app.show(ui), app);
    h.run_steps(2);
    h.get_by_label("Model…").click();
    h.run_steps(2);
    h
}

/// Types into the text field labelled `label` (focus first, as a user clicking into it).
fn type_into(h: &mut Harness<'static, BrainLensApp>, label: &str, text: &str) {
    h.get_by(|n| {
        matches!(n.role(), egui::accesskit::Role::TextInput | egui::accesskit::Role::PasswordInput)
            && n.label().as_deref() == Some(label)
    })
    .focus();
    h.run_steps(1);
    h.get_by(|n| {
        matches!(n.role(), egui::accesskit::Role::TextInput | egui::accesskit::Role::PasswordInput)
            && n.label().as_deref() == Some(label)
    })
    .type_text(text);
    h.run_steps(1);
}

fn wait_for(h: &mut Harness<'static, BrainLensApp>, text: &str) {
    for _ in 0..200 {
        h.run_steps(1);
        if h.query_by_label_contains(text).is_some() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    panic!("\"{text}\" never appeared");
}

#[test]
fn chat_and_test_connection_through_the_replay_provider() {
    let dir = tempfile::tempdir().unwrap();
    let transcript = dir.path().join("calls.jsonl");
    let question = "What is the alpha band?";
    let mut probe = ChatRequest::user("Reply with the single word OK.");
    probe.max_tokens = 16;
    let lines =
        [entry(&chat_request(&[Message::user(question)]), "Alpha is 8-13 Hz (recorded reply)."), entry(&probe, "OK")];
    std::fs::write(&transcript, lines.join("\n")).unwrap();
    let config = ProviderConfig {
        provider: ProviderKind::Replay,
        transcript: transcript.display().to_string(),
        ..Default::default()
    };
    let mut h = harness(config);

    h.get_by_label("Test connection").click();
    wait_for(&mut h, "OK · replay:local:recorded");
    h.get_by_label_contains("5 completion tokens");

    type_into(&mut h, "Message", question);
    h.get_by_label("Send").click();
    wait_for(&mut h, "Alpha is 8-13 Hz (recorded reply).");
    h.get_by_label_contains("not measurements");
    assert_eq!(h.state().llm.chat.messages.len(), 2);

    type_into(&mut h, "Message", "Something never recorded");
    h.get_by_label("Send").click();
    wait_for(&mut h, "no recorded response for request");
}

#[test]
fn a_typed_api_key_is_never_persisted() {
    let config = ProviderConfig {
        provider: ProviderKind::Openai,
        base_url: "http://127.0.0.1:9/v1".into(),
        max_retries: 0,
        ..Default::default()
    };
    let mut h = harness(config);
    type_into(&mut h, "API key", "sk-typed-SECRET-77");
    assert_eq!(h.state().llm.key_input, "sk-typed-SECRET-77");
    let shown = h
        .query_all_by(|n| {
            n.value().is_some_and(|v| v.contains("SECRET-77")) || n.label().is_some_and(|l| l.contains("SECRET-77"))
        })
        .count();
    assert_eq!(shown, 0, "the password field exposes no key text (screen, screen readers, screenshots)");
    let effective = h.state().llm.effective(&h.state().settings.llm);
    assert_eq!(effective.api_key.as_ref().map(|k| k.expose()), Some("sk-typed-SECRET-77"));
    let persisted = serde_json::to_string(&h.state().settings).unwrap();
    assert!(!persisted.contains("SECRET-77") && persisted.contains("127.0.0.1:9"), "{persisted}");
    assert!(!format!("{effective:?}").contains("SECRET-77"), "Debug output redacts the key");
    h.get_by_label("Test connection").click();
    wait_for(&mut h, "api_infrastructure_error");
}

/// The local provider shows the model catalogue: every model with its size, licence and purpose, its state in
/// the cache (a temporary, empty one here: nothing fetched), and a Fetch button sized by its wheels.
#[test]
fn the_local_provider_lists_the_model_catalogue() {
    let config = ProviderConfig { provider: ProviderKind::Local, ..Default::default() };
    let mut h = harness(config);
    for m in &brainlens::llm::catalogue::catalogue().models {
        assert!(h.query_by_label(&m.name).is_some(), "{} listed", m.name);
        assert!(h.query_by_label(&m.purpose).is_some(), "{}'s purpose shown", m.name);
    }
    assert!(h.query_all_by_label_contains("Apache-2.0").next().is_some());
    let fetch = format!(
        "Fetch {:.0} MB",
        brainlens::llm::catalogue::find("qwen2.5-coder-1.5b").unwrap().download_bytes() as f64 / 1e6
    );
    let cache = brainlens::util::paths::models_dir();
    if !cache.join("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf").is_file() {
        assert!(h.query_by_label(&fetch).is_some(), "{fetch}");
    }
    h.run_steps(1);
}
