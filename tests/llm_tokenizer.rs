//! BrainLens's tokenizer (llama.cpp's, per model) against llama-cpp-python's `Llama.tokenize` on the tokenizer
//! corpus (English, code, paths, digits, JSON, non-ASCII, whitespace, special tokens), for every model whose
//! expected file tests/expected/tokenizer_<name>.json exists (written by scripts/reference/tokenizer_reference.py):
//! SmolLM2 (byte-level BPE, `smollm` pre-tokenizer), Qwen2.5-Coder-1.5B (`qwen2`) and Gemma 3 (SentencePiece).
//! Tolerance: none — every id equal. A model missing from the cache is skipped unless
//! BRAINLENS_REQUIRE_MODELS=1 and the model is among BRAINLENS_REQUIRE_TOKENIZERS (scripts/test.sh sets both).

use brainlens::llm::catalogue;
use serde_json::Value;

fn required(name: &str) -> bool {
    std::env::var("BRAINLENS_REQUIRE_MODELS").as_deref() == Ok("1")
        && std::env::var("BRAINLENS_REQUIRE_TOKENIZERS").is_ok_and(|v| v.split(',').any(|n| n.trim() == name))
}

#[test]
fn tokenization_equals_llama_cpp_python_on_the_corpus() {
    let corpus: Vec<String> =
        serde_json::from_str(&std::fs::read_to_string("fixtures/llm/tokenizer_corpus.json").unwrap()).unwrap();
    let mut checked = 0;
    for entry in &catalogue::catalogue().models {
        let expected = format!("tests/expected/tokenizer_{}.json", entry.name);
        let Ok(text) = std::fs::read_to_string(&expected) else { continue };
        let reference: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(reference["sha256"], entry.sha256.as_str(), "{expected} was made from this catalogue file");
        if !entry.path().is_file() {
            assert!(
                !required(&entry.name),
                "{} is missing: run brainlens models fetch {}",
                entry.path().display(),
                entry.name
            );
            eprintln!("skipped {}: not in the model cache", entry.name);
            continue;
        }
        let vocab = brainlens::llm::local::tokenizer(&entry.path()).unwrap();
        let cases = reference["cases"].as_array().unwrap();
        assert_eq!(cases.len(), corpus.len() * 4, "{expected}: every corpus text × add_special × parse_special");
        let mut differences = Vec::new();
        for c in cases {
            let text = c["text"].as_str().unwrap();
            let want: Vec<u32> = serde_json::from_value(c["ids"].clone()).unwrap();
            let got = vocab.tokenize_with(text, c["add_special"] == true, c["parse_special"] == true);
            if got != want {
                differences.push(format!(
                    "{text:?} (add {}, special {}): {got:?} vs {want:?}",
                    c["add_special"], c["parse_special"]
                ));
            }
        }
        assert!(
            differences.is_empty(),
            "{}: {} differences:\n{}",
            entry.name,
            differences.len(),
            differences.join("\n")
        );
        checked += 1;
    }
    eprintln!("{checked} models checked");
}

/// Qwen2's pre-tokenizer keeps `_sample` whole where SmolLM2's regex split identifiers wrongly for it: the
/// pieces of the path spell it back exactly and contain no piece that starts with a space inside it.
#[test]
fn identifiers_are_one_piece_where_the_model_was_trained_so() {
    let Ok(entry) = catalogue::find("qwen2.5-coder-1.5b") else { return };
    if !entry.path().is_file() {
        assert!(!required(&entry.name), "{} is missing", entry.path().display());
        return;
    }
    let vocab = brainlens::llm::local::tokenizer(&entry.path()).unwrap();
    let text = "data_path = os.path.join('data', 'eeg', 'mne_sample_eeg60.edf')";
    let ids = vocab.encode(text);
    let pieces: Vec<String> =
        ids.iter().map(|&i| String::from_utf8_lossy(&vocab.bytes[i as usize]).into_owned()).collect();
    assert_eq!(pieces.concat(), text);
    assert!(pieces.iter().any(|p| p == "_sample"), "{pieces:?}");
}

/// The GGUF's chat template rendered as Hugging Face renders it (scripts/reference/chat_template_reference.py:
/// jinja2 in transformers' environment), with and without `tools`, for each model whose expected file exists:
/// the text must be identical.
#[test]
fn chat_templates_render_as_hugging_face_does() {
    let mut checked = 0;
    for entry in &catalogue::catalogue().models {
        let Ok(text) = std::fs::read_to_string(format!("tests/expected/chat_template_{}.json", entry.name)) else {
            continue;
        };
        let reference: Value = serde_json::from_str(&text).unwrap();
        if !entry.path().is_file() {
            assert!(!required(&entry.name), "{} is missing", entry.path().display());
            continue;
        }
        let messages: Vec<brainlens::llm::Message> = serde_json::from_value(reference["messages"].clone()).unwrap();
        let tools: Vec<Value> = serde_json::from_value(reference["tools"].clone()).unwrap();
        let plain = brainlens::llm::local::render_prompt(&entry.path(), &messages, &[]).unwrap();
        assert_eq!(plain, reference["without_tools"].as_str().unwrap(), "{} without tools", entry.name);
        let with = brainlens::llm::local::render_prompt(&entry.path(), &messages, &tools).unwrap();
        assert_eq!(with, reference["with_tools"].as_str().unwrap(), "{} with tools", entry.name);
        checked += 1;
    }
    eprintln!("{checked} templates checked");
}
