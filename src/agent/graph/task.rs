//! Task definitions (`assets/tasks/*.toml`): name, label set, positive label, description, atlas, the
//! knowledge set HARK queries, and optionally a default case memory.

use crate::agent::error::{AgentError, Result};
use crate::util::error::Context;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Task {
    pub name: String,
    pub title: String,
    pub labels: Vec<String>,
    /// The class recall and precision are computed for (the disorder, in the paper's tasks).
    pub positive: String,
    /// aal90, aal116, schaefer100 or an atlas file.
    pub atlas: String,
    /// The knowledge set HARK queries (asd, adhd, mdd, sex, eeg, sleep), or "general" for general items only.
    pub knowledge: String,
    pub description: String,
    /// Default case memory for CARD, relative to the task file.
    #[serde(default)]
    pub memory: Option<String>,
    /// Where the task was read from (not in the file).
    #[serde(skip)]
    pub file: PathBuf,
}

pub fn default_dir() -> PathBuf {
    crate::util::paths::bundled("assets/tasks")
}

impl Task {
    /// A task by name (a file of `assets/tasks/`) or by path to a `.toml` file.
    pub fn load(spec: &str) -> Result<Task> {
        let path =
            if spec.ends_with(".toml") { PathBuf::from(spec) } else { default_dir().join(format!("{spec}.toml")) };
        if !path.is_file() {
            return Err(AgentError::from(format!(
                "task \"{spec}\": no file {} (tasks: {})",
                path.display(),
                Task::names().join(", ")
            )));
        }
        let text = std::fs::read_to_string(&path).with_context(|| path.display().to_string())?;
        let mut t: Task =
            toml::from_str(&text).with_context(|| format!("{}: not a task definition", path.display()))?;
        t.file = path.clone();
        t.check().with_context(|| path.display().to_string())?;
        Ok(t)
    }

    fn check(&self) -> Result<()> {
        if self.labels.len() < 2 {
            return Err(AgentError::from(format!("a task needs at least two labels")));
        }
        let mut sorted = self.labels.clone();
        sorted.sort();
        sorted.dedup();
        if sorted.len() != self.labels.len() || self.labels.iter().any(|l| l.trim().is_empty()) {
            return Err(AgentError::from(format!("labels must be distinct and non-empty")));
        }
        if !self.labels.contains(&self.positive) {
            return Err(AgentError::from(format!(
                "positive label \"{}\" is not one of {}",
                self.positive,
                self.labels.join(", ")
            )));
        }
        if !crate::retrieval::knowledge::TASKS.contains(&self.knowledge.as_str()) {
            return Err(AgentError::from(format!(
                "knowledge set \"{}\" is not one of {}",
                self.knowledge,
                crate::retrieval::knowledge::TASKS.join(", ")
            )));
        }
        Ok(())
    }

    /// Names of the shipped tasks.
    pub fn names() -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(default_dir())
            .map(|d| {
                d.flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                    .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    }

    /// The default case memory's folder, when the task names one.
    pub fn memory_dir(&self) -> Option<PathBuf> {
        let m = self.memory.as_ref()?;
        let base = self.file.parent().unwrap_or(Path::new("."));
        Some(crate::util::paths::normalise(&base.join(m)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_tasks_load() {
        let names = Task::names();
        for n in ["asd", "adhd", "mdd", "sex", "fingerprint"] {
            assert!(names.contains(&n.to_string()), "{names:?}");
            let t = Task::load(n).unwrap();
            assert!(t.labels.contains(&t.positive));
        }
        assert!(Task::load("fingerprint").unwrap().memory_dir().unwrap().join("memory.json").is_file());
    }

    #[test]
    fn bad_tasks_are_refused_with_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.toml");
        std::fs::write(
            &p,
            "name='x'\ntitle='x'\nlabels=['A','B']\npositive='C'\natlas='aal90'\nknowledge='asd'\ndescription='d'\n",
        )
        .unwrap();
        let e = format!("{:#}", Task::load(p.to_str().unwrap()).unwrap_err());
        assert!(e.contains("t.toml") && e.contains("positive label \"C\""), "{e}");
        std::fs::write(&p, "name='x'\nlabels=['A']").unwrap();
        assert!(format!("{:#}", Task::load(p.to_str().unwrap()).unwrap_err()).contains("not a task definition"));
        assert!(Task::load("no-such-task").unwrap_err().to_string().contains("fingerprint"));
    }
}
