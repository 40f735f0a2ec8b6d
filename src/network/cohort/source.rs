//! A cohort source: the labelled subjects an evaluation, CARD, a supervised baseline and the GUI work on, and
//! their connectomes, held as one value. A cohort file (`cohort import`) is read once, its bytes hashed as
//! they are parsed; a folder of graph files with a labels CSV, or the cases of a saved memory, are the same
//! kind of source (each subject's graph read from its own file when asked for).

use super::Cohort;
use crate::network::connectome::{Asymmetry, Connectome};
use crate::network::error::{Result, fail, io};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One labelled subject: `group`s are split together (a subject's runs), `site` is `""` where unknown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Subject {
    pub id: String,
    pub label: String,
    pub group: String,
    #[serde(default)]
    pub site: String,
}

/// Where a source came from, as a run header records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Origin {
    /// `cohort file`, `graphs folder` or `case memory`.
    pub kind: String,
    /// The cohort file, the labels CSV or the memory file.
    pub file: String,
    /// The folder the graph files are in (a graphs folder, a case memory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graphs: Option<String>,
    /// SHA-256 of `file`'s bytes.
    pub sha256: String,
}

impl Origin {
    /// One line: the kind, the file and the start of its digest.
    pub fn describe(&self) -> String {
        let graphs = self.graphs.as_deref().map(|g| format!(", graphs in {g}")).unwrap_or_default();
        format!("{} {} (sha256 {}…){graphs}", self.kind, self.file, &self.sha256[..self.sha256.len().min(12)])
    }
}

enum Graphs {
    /// Every subject's connectome, in the cohort's order.
    Cohort(Arc<Cohort>),
    /// One graph file per subject, in the subjects' order.
    Files(Vec<PathBuf>),
}

pub struct Source {
    pub origin: Origin,
    pub subjects: Vec<Subject>,
    graphs: Graphs,
    index: HashMap<String, usize>,
}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Source({}, {} subjects)", self.origin.describe(), self.subjects.len())
    }
}

impl Source {
    /// A cohort file, or a folder of graphs with its labels CSV.
    pub fn open(data: &Path, labels: Option<&Path>) -> Result<Source> {
        match labels {
            None if data.is_file() => Source::cohort_file(data),
            None => fail!(data.display(), "a folder of graphs needs its labels CSV (file,label[,group])"),
            Some(l) => Source::folder(data, l),
        }
    }

    /// A cohort file (`brainlens cohort import`), read once: every subject must have a label.
    pub fn cohort_file(path: &Path) -> Result<Source> {
        let name = path.display().to_string();
        let bytes = std::fs::read(path).map_err(io(&name, "read"))?;
        let c = super::file::parse(&name, &bytes)?;
        if let Some(i) = c.labels.iter().position(String::is_empty) {
            fail!(name, "subject {} has no label", c.ids[i]);
        }
        let subjects = (0..c.len())
            .map(|i| Subject {
                id: c.ids[i].clone(),
                label: c.labels[i].clone(),
                group: c.ids[i].clone(),
                site: c.site[i].clone(),
            })
            .collect();
        let origin = Origin {
            kind: "cohort file".into(),
            file: name,
            graphs: None,
            sha256: crate::util::hash::sha256_hex(&bytes),
        };
        Source::new(origin, subjects, Graphs::Cohort(Arc::new(c)))
    }

    /// A folder of graph files and its labels CSV (`file,label[,group]`, files relative to the folder); a
    /// subject's id is its file's stem, its group the CSV's (its id when empty).
    pub fn folder(graphs: &Path, labels: &Path) -> Result<Source> {
        let name = labels.display().to_string();
        let bytes = std::fs::read(labels).map_err(io(&name, "read"))?;
        let rows = super::labels::read_labels(labels)?;
        let (subjects, files) = rows
            .into_iter()
            .map(|(file, label, group)| {
                let id = stem(&file);
                let group = if group.is_empty() { id.clone() } else { group };
                (Subject { id, label, group, site: String::new() }, graphs.join(file))
            })
            .unzip();
        let origin = Origin {
            kind: "graphs folder".into(),
            file: name,
            graphs: Some(graphs.display().to_string()),
            sha256: crate::util::hash::sha256_hex(&bytes),
        };
        Source::new(origin, subjects, Graphs::Files(files))
    }

    /// Subjects whose graphs are the files beside them (the cases of a saved memory).
    pub fn files(origin: Origin, subjects: Vec<(Subject, PathBuf)>) -> Result<Source> {
        let (subjects, files) = subjects.into_iter().unzip();
        Source::new(origin, subjects, Graphs::Files(files))
    }

    fn new(origin: Origin, subjects: Vec<Subject>, graphs: Graphs) -> Result<Source> {
        let mut index = HashMap::with_capacity(subjects.len());
        for (i, s) in subjects.iter().enumerate() {
            if let Some(j) = index.insert(s.id.clone(), i) {
                fail!(origin.file, "subject '{}' is listed twice (entries {} and {})", s.id, j + 1, i + 1);
            }
        }
        Ok(Source { origin, subjects, graphs, index })
    }

    /// The index of subject `id`.
    pub fn position(&self, id: &str) -> Result<usize> {
        self.index.get(id).copied().ok_or_else(|| {
            crate::network::error::format(&self.origin.file, format!("no subject '{id}' in this {}", self.origin.kind))
        })
    }

    /// The cohort, when the source is a cohort file.
    pub fn cohort(&self) -> Option<&Arc<Cohort>> {
        match &self.graphs {
            Graphs::Cohort(c) => Some(c),
            Graphs::Files(_) => None,
        }
    }

    /// The file subject `i`'s graph is in (a cohort file holds every subject's, under its id).
    pub fn graph_file(&self, i: usize) -> &Path {
        match &self.graphs {
            Graphs::Cohort(_) => Path::new(&self.origin.file),
            Graphs::Files(f) => &f[i],
        }
    }

    /// Subject `i`'s graph as errors name it: its file, or the cohort file and the subject.
    pub fn graph_name(&self, i: usize) -> String {
        match &self.graphs {
            Graphs::Cohort(_) => format!("{} (subject {})", self.origin.file, self.subjects[i].id),
            Graphs::Files(f) => f[i].display().to_string(),
        }
    }

    /// Subject `i`'s connectome, symmetrised (a cohort file's from memory, a folder's read from its file).
    pub fn connectome(&self, i: usize) -> Result<Connectome> {
        match &self.graphs {
            Graphs::Cohort(c) => Connectome::from_matrix(
                &self.graph_name(i),
                c.r,
                c.r,
                c.matrix(i).to_vec(),
                Some(c.region_labels.clone()),
                Asymmetry::Symmetrize,
            ),
            Graphs::Files(f) => crate::network::io::load(&f[i], Asymmetry::Symmetrize),
        }
    }

    /// The connectome of subject `id`.
    pub fn connectome_of(&self, id: &str) -> Result<Connectome> {
        self.connectome(self.position(id)?)
    }
}

/// A graph file's id: its stem.
pub fn stem(file: &str) -> String {
    Path::new(file).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| file.to_string())
}
