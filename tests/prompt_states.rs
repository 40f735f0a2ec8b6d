//! Prompt states on disk with the real SmolLM2 (issue 62): a prompt's stable head (its system message) saved by
//! one model is loaded by a model loaded later (as a new process would), and the text is the same as without
//! any cache; a cut state file, and a cache folder that cannot be made, leave the text the same with one warning.
//! A later BrainBench instance loads the EEG planner's and supervisor's heads from disk.
//! Skipped when the model cache is empty unless BRAINLENS_REQUIRE_MODELS=1.

mod common;

use brainlens::llm::local::LocalModel;
use brainlens::llm::local::prompt_states::list_states;
use brainlens::llm::{ChatModel, ChatRequest, Message};
use std::sync::Mutex;

/// One model computing at a time (see tests/llm_local.rs).
static ONE_MODEL: Mutex<()> = Mutex::new(());

fn ask(q: &str) -> ChatRequest {
    // ~330 tokens of system prompt: five 64-token chunks are saved.
    let system = "You are BrainAgent, a research assistant for brain connectomes. ".repeat(30);
    let mut r = ChatRequest::new(vec![Message::system(system), Message::user(q)]);
    r.max_tokens = 24;
    r
}

const GIB: u64 = 1 << 30;

#[test]
fn a_saved_head_serves_a_new_model_and_the_text_is_the_same_as_without_a_cache() {
    let Some(path) = common::local_model() else { return };
    let _one = ONE_MODEL.lock().unwrap_or_else(|p| p.into_inner());
    let root = tempfile::tempdir().unwrap();
    let plain = LocalModel::load_with_states(&path, root.path(), 0).unwrap();
    let (a, b) = ("What is the alpha rhythm?", "What is a sleep spindle?");
    let (plain_a, plain_b) = (plain.chat(&ask(a)).unwrap(), plain.chat(&ask(b)).unwrap());
    drop(plain);
    assert!(list_states(root.path()).is_empty(), "a bound of 0 saves nothing");

    // First model: computes the head and saves it.
    let first = LocalModel::load_with_states(&path, root.path(), GIB).unwrap();
    let cold = first.chat(&ask(a)).unwrap();
    assert_eq!(cold.usage.disk_tokens, 0);
    assert_eq!(cold.text, plain_a.text);
    let saved = list_states(root.path());
    assert_eq!(saved.len(), 1, "{saved:?}");
    assert!(saved[0].tokens >= 256 && saved[0].tokens % 64 == 0, "{saved:?}");
    drop(first);

    // A model loaded later (a new process): the head comes from disk, the text is unchanged.
    let second = LocalModel::load_with_states(&path, root.path(), GIB).unwrap();
    let warm = second.chat(&ask(b)).unwrap();
    assert_eq!(warm.usage.disk_tokens, saved[0].tokens as u64, "{:?}", warm.usage);
    assert!(warm.usage.cached_tokens >= warm.usage.disk_tokens);
    assert_eq!(warm.text, plain_b.text);
    assert_eq!(second.disk_stats(), (saved[0].tokens as u64, Vec::new()));
    drop(second);

    // The state file cut: refused, the head computed again (and saved again), the same text, one warning.
    let file = &saved[0].path;
    let bytes = std::fs::read(file).unwrap();
    std::fs::write(file, &bytes[..bytes.len() / 2]).unwrap();
    let third = LocalModel::load_with_states(&path, root.path(), GIB).unwrap();
    let recomputed = third.chat(&ask(a)).unwrap();
    assert_eq!(recomputed.usage.disk_tokens, 0);
    assert_eq!(recomputed.text, plain_a.text);
    let (_, warnings) = third.disk_stats();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("cut") && warnings[0].contains(&file.display().to_string()), "{warnings:?}");
    assert_eq!(std::fs::read(file).unwrap().len(), bytes.len(), "saved whole again");
}

#[test]
fn a_cache_folder_that_cannot_be_made_keeps_the_prompts_in_memory_with_one_warning() {
    let Some(path) = common::local_model() else { return };
    let _one = ONE_MODEL.lock().unwrap_or_else(|p| p.into_inner());
    let dir = tempfile::tempdir().unwrap();
    // Root ignores permission bits; a folder whose parent is a file cannot be made by anyone.
    let blocked = dir.path().join("not-a-folder");
    std::fs::write(&blocked, "").unwrap();
    let plain = LocalModel::load_with_states(&path, dir.path(), 0).unwrap().chat(&ask("Define a hub.")).unwrap();
    let model = LocalModel::load_with_states(&path, &blocked.join("states"), GIB).unwrap();
    let r = model.chat(&ask("Define a hub.")).unwrap();
    assert_eq!(r.text, plain.text);
    let again = model.chat(&ask("Define a hub.")).unwrap();
    assert_eq!(again.text, plain.text);
    assert!(again.usage.cached_tokens > 0, "the in-memory cache still serves");
    let (_, warnings) = model.disk_stats();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("cannot be created"), "{warnings:?}");
}

/// `brainlens models cache` lists what a model saved under `$BRAINLENS_CACHE/prompt-states` and `--clear`
/// empties it.
#[test]
fn models_cache_shows_and_clears_the_saved_states() {
    let Some(path) = common::local_model() else { return };
    let _one = ONE_MODEL.lock().unwrap_or_else(|p| p.into_inner());
    let cache = tempfile::tempdir().unwrap();
    let root = cache.path().join("prompt-states");
    LocalModel::load_with_states(&path, &root, GIB).unwrap().chat(&ask("Define a hub.")).unwrap();
    let cli = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_brainlens"))
            .args(args)
            .env("BRAINLENS_CACHE", cache.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let shown = cli(&["models", "cache", "--json"]);
    let states = shown["states"].as_array().unwrap();
    assert_eq!(states.len(), 1, "{shown}");
    // The file that runs: the model, or the Q8_0 copy made of a Q4_0/Q4_1 file beside it.
    let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
    assert!(states[0]["model_file"].as_str().unwrap().starts_with(&stem), "{shown}");
    assert!(shown["total_bytes"].as_u64().unwrap() > 1_000_000, "{shown}");
    let cleared = cli(&["models", "cache", "--clear", "--json"]);
    assert_eq!(cleared["removed_files"], 1, "{cleared}");
    assert!(list_states(&root).is_empty());
    assert_eq!(cli(&["models", "cache", "--json"])["states"], serde_json::json!([]));
}

/// BrainAgent's EEG planner and supervisor keep what every task shares (the agent, its tool menu, the
/// instructions; the sub-agents' list) in the system message, so a bench instance after the first loads those
/// heads from disk. Until de97ee4 the task came first and the system message was 60 tokens, under the
/// 128-token minimum: no bench instance loaded anything.
#[test]
fn a_later_bench_instance_loads_the_planner_and_supervisor_heads_from_disk() {
    use brainlens::harness::runner::{Live, Models, Options, run};
    use brainlens::util::cancel::Cancel;
    use std::sync::Arc;
    let Some(path) = common::local_model() else { return };
    let _one = ONE_MODEL.lock().unwrap_or_else(|p| p.into_inner());
    let d = tempfile::tempdir().unwrap();
    let suite = d.path().join("suite");
    common::json(&["bench", "generate", "--out", suite.to_str().unwrap(), "--json"]);
    let root = d.path().join("states");
    let m: Arc<dyn ChatModel> = Arc::new(LocalModel::load_with_states(&path, &root, GIB).unwrap());
    let mut opts = Options::new(&suite.join("Foundational_Analysis"), &d.path().join("r.json"));
    opts.limit = Some(2);
    let f = run(
        &opts,
        &Models { target: m.clone(), parser: m, judge: None, vlm: None },
        &Cancel::default(),
        &Live::default(),
    )
    .unwrap();
    let calls = |k: usize| f.instances[k].sandbox["trace"]["calls"].as_array().unwrap().clone();
    let disk = |k: usize, step: &str| {
        calls(k).iter().find(|c| c["step"] == step).map(|c| c["disk_tokens"].as_u64().unwrap_or(0)).unwrap()
    };
    assert_eq!((disk(0, "route"), disk(0, "plan 1")), (0, 0), "the first instance computes both heads");
    assert!(disk(1, "route") >= 128, "{:?}", calls(1)[0]);
    assert!(disk(1, "plan 1") >= 512, "{:?}", calls(1)[1]);
}
