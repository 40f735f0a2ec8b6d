//! Fuzzes the BrainBench result readers: the first byte picks a result file (`.json`) or a JSONL stream of
//! instances; a file that loads is summarised as `bench report` does. Any bytes must load or give the
//! file's error, never panic.
#![no_main]

use brainlens::bench::results::{ResultFile, summarize};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else { return };
    let ext = if pick % 2 == 0 { "json" } else { "jsonl" };
    let dir = std::env::temp_dir().join(format!("brainlens-fuzz-res-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join(format!("results.{ext}"));
    let _ = std::fs::write(&path, body);
    if let Ok(mut f) = ResultFile::load(&path) {
        let _ = summarize(&f.instances, 1.0);
        f.refresh_summary();
        let _ = f.target_model();
    }
});
