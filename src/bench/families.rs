//! Model families for the agreement heatmap (the BrainBench paper's Fig 13), from a user-editable mapping:
//! `~/.config/brainlens/model_families.json` when it exists (or a file given to `bench report --families`),
//! else the bundled `assets/bench/model_families.json`. A model (its name without the `provider:` prefix, any
//! `org/` path and any ` [effort]`, lower case) takes the first family one of whose `patterns` it contains or
//! one of whose `names` it equals; others are "Other".

use super::error::BenchError;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// The bundled mapping.
const BUILTIN: &str = include_str!("../../assets/bench/model_families.json");

#[derive(Debug, Clone, Deserialize)]
struct Family {
    family: String,
    #[serde(default)]
    patterns: Vec<String>,
    #[serde(default)]
    names: Vec<String>,
}

/// A model → family mapping.
#[derive(Debug, Clone, Deserialize)]
pub struct Families {
    families: Vec<Family>,
}

/// The family of models no entry names.
pub const OTHER: &str = "Other";

impl Families {
    /// The bundled mapping.
    pub fn builtin() -> Families {
        Self::parse(BUILTIN, Path::new("assets/bench/model_families.json")).expect("the bundled mapping parses")
    }

    /// The user's mapping (`$XDG_CONFIG_HOME/brainlens/model_families.json`, else `~/.config/…`) when it
    /// exists, else the bundled one.
    pub fn user_or_builtin() -> Result<Families, BenchError> {
        let p = user_path();
        if p.is_file() { Self::load(&p) } else { Ok(Self::builtin()) }
    }

    pub fn load(path: &Path) -> Result<Families, BenchError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| BenchError::Invalid(format!("{}: cannot read: {e}", path.display())))?;
        Self::parse(&text, path)
    }

    fn parse(text: &str, path: &Path) -> Result<Families, BenchError> {
        let f: Families = serde_json::from_str(text).map_err(|e| {
            BenchError::Invalid(format!(
                "{}: not a model family mapping ({{\"families\": [{{\"family\", \"patterns\", \"names\"}}]}}): {e}",
                path.display()
            ))
        })?;
        if let Some(bad) = f.families.iter().find(|x| x.family.trim().is_empty()) {
            return Err(BenchError::Invalid(format!("{}: a family without a name ({bad:?})", path.display())));
        }
        Ok(f)
    }

    /// The family of `model` (e.g. `openai:Qwen/Qwen2.5-7B [high]` → "Qwen (Alibaba)").
    pub fn family_of(&self, model: &str) -> String {
        let m = model.split(" [").next().unwrap_or(model);
        let m = m.split_once(':').map_or(m, |(_, rest)| rest);
        let m = m.rsplit('/').next().unwrap_or(m).trim().to_lowercase();
        self.families
            .iter()
            .find(|f| {
                f.patterns.iter().any(|p| !p.is_empty() && m.contains(&p.to_lowercase()))
                    || f.names.iter().any(|n| m == n.to_lowercase())
            })
            .map_or_else(|| OTHER.to_string(), |f| f.family.clone())
    }
}

/// Where a user's own mapping lives.
pub fn user_path() -> PathBuf {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default().join(".config"));
    base.join("brainlens").join("model_families.json")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_take_the_first_matching_family() {
        let f = Families::builtin();
        assert_eq!(f.family_of("openai:Qwen/Qwen2.5-7B-Instruct [high]"), "Qwen (Alibaba)");
        assert_eq!(f.family_of("openai:gpt-4o-mini"), "GPT (OpenAI)");
        assert_eq!(f.family_of("openai:o3"), "GPT (OpenAI)");
        assert_eq!(f.family_of("openai:o3-mini [low]"), "GPT (OpenAI)");
        assert_eq!(f.family_of("local:SmolLM2-135M-Instruct.Q4_1"), "SmolLM (Hugging Face)");
        assert_eq!(f.family_of("simulated-large"), "Simulated");
        assert_eq!(f.family_of("mystery-model"), OTHER);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.json");
        std::fs::write(&p, r#"{"families": [{"family": "Ours", "patterns": ["mystery"]}]}"#).unwrap();
        assert_eq!(Families::load(&p).unwrap().family_of("mystery-model"), "Ours");
        std::fs::write(&p, r#"{"families": {"x": 1}}"#).unwrap();
        let e = Families::load(&p).unwrap_err().to_string();
        assert!(e.contains("f.json") && e.contains("not a model family mapping"), "{e}");
    }
}
