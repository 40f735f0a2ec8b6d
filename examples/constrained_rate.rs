//! Parse-and-validate rate of SmolLM2 with and without schema-constrained decoding, over N label decisions and
//! N tool calls (temperature 0.7, seeded). Run: `cargo run --release --example constrained_rate -- 100`.

#[path = "../tests/common/constrained.rs"]
mod constrained;

use brainlens::llm::local::LocalModel;
use serde_json::json;

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(100);
    let model = LocalModel::load(&brainlens::llm::config::default_model_path()).unwrap_or_else(|e| panic!("{e}"));
    let mut report = Vec::new();
    for kind in ["label", "tool"] {
        for constrained in [true, false] {
            let t = constrained::run(&model, kind, n, constrained);
            report.push(json!({
                "kind": kind, "constrained": constrained, "generations": t.total, "valid": t.valid,
                "valid_rate": t.valid as f64 / t.total as f64, "choices": t.labels,
                "completion_tokens": t.completion_tokens, "seconds": t.seconds,
                "tokens_per_second": t.completion_tokens as f64 / t.seconds,
                "first_failures": t.failures.iter().take(3).collect::<Vec<_>>(),
            }));
            eprintln!("{kind} constrained={constrained}: {}/{} valid", t.valid, t.total);
        }
    }
    println!("{}", serde_json::to_string_pretty(&report).unwrap());
}
