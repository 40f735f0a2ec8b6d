//! Fuzzes where BrainLens reads a GGUF file's metadata: the model file's vocabulary-only load through
//! llama.cpp (magic, version, key/value pairs, tensor table), with a failure classified as the CLI and the
//! Model window report it. Any bytes must load or give a classified error, never crash.
#![no_main]

use brainlens::llm::local::engine::Engine;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("brainlens-fuzz-gguf-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join("f.gguf");
    let _ = std::fs::write(&path, data);
    if let Err(e) = Engine::load_model(&path, true) {
        let _ = e.to_string();
    }
});
