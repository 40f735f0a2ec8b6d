//! What can go wrong loading and running a local GGUF model: the file (missing, not a GGUF, truncated, an
//! architecture llama.cpp lacks, no chat template), a prompt longer than the context window, or llama.cpp's
//! context (a decode that fails).

use std::path::Path;

/// What is wrong with a model file, as a class a user (and a test) can act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileProblem {
    Missing,
    NotGguf,
    Truncated,
    UnsupportedArchitecture,
    NoChatTemplate,
    /// The header or tensor table is inconsistent (checked before llama.cpp, which aborts on some).
    Malformed,
    /// llama.cpp refused it for another reason (its own words follow).
    Unreadable,
}

impl FileProblem {
    pub fn as_str(self) -> &'static str {
        match self {
            FileProblem::Missing => "missing",
            FileProblem::NotGguf => "not_gguf",
            FileProblem::Truncated => "truncated",
            FileProblem::UnsupportedArchitecture => "unsupported_architecture",
            FileProblem::NoChatTemplate => "no_chat_template",
            FileProblem::Malformed => "malformed",
            FileProblem::Unreadable => "unreadable",
        }
    }

    /// The class of a failed load from what llama.cpp logged.
    pub fn classify(logged: &str) -> FileProblem {
        let l = logged.to_ascii_lowercase();
        if l.contains("unknown model architecture") {
            FileProblem::UnsupportedArchitecture
        } else if l.contains("not within the file bounds") || l.contains("incomplete") || l.contains("truncat") {
            FileProblem::Truncated
        } else if l.contains("magic") || l.contains("gguf_init") || l.contains("failed to read") {
            FileProblem::NotGguf
        } else {
            FileProblem::Unreadable
        }
    }
}

#[derive(Debug, Clone, thiserror::Error)]
pub enum LocalError {
    /// The model file, with what is wrong in it.
    #[error("{file}: {problem} [{}]", .kind.as_str())]
    File { file: String, kind: FileProblem, problem: String },
    /// A prompt (or prompt and reply) longer than the context window.
    #[error("the prompt has {tokens} tokens; the model's context holds {context} [prompt_too_long]")]
    TooLong { tokens: usize, context: usize },
    /// The engine (llama.cpp backend, context, batch decode, key/value cache).
    #[error("{0}")]
    Engine(String),
}

impl LocalError {
    pub fn file(path: &Path, kind: FileProblem, problem: impl Into<String>) -> LocalError {
        LocalError::File { file: path.display().to_string(), kind, problem: problem.into() }
    }
}

crate::util::error::text_conversions!(LocalError, LocalError::Engine);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn llama_cpp_reasons_are_classified() {
        // Lines as llama.cpp 0.1.16x logs them.
        assert_eq!(
            FileProblem::classify(
                "llama_model_load: error loading model: error loading model architecture: unknown model architecture: 'brainnet'"
            ),
            FileProblem::UnsupportedArchitecture
        );
        assert_eq!(
            FileProblem::classify(
                "llama_model_load: error loading model: tensor 'blk.27.ffn_down.weight' data is not within the file bounds, model is corrupted or incomplete"
            ),
            FileProblem::Truncated
        );
        assert_eq!(
            FileProblem::classify(
                "gguf_init_from_file_impl: invalid magic characters: 'PK\u{3}\u{4}', expected 'GGUF'"
            ),
            FileProblem::NotGguf
        );
    }
}
