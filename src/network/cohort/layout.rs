//! Where a cohort's files are: the ABIDE Preprocessed layout (`ABIDE_pcp/<pipeline>/<strategy>/*_rois_*.1D`
//! and `ABIDE_pcp/Phenotypic_V1_0b_preprocessed1.csv`, as nilearn's `fetch_abide_pcp` lays it out), the
//! ADHD-200 layout (`<ScanDir ID>_rois_*.1D` beside a phenotypic CSV with a `ScanDir ID` column), or any
//! folder of time series (`.1D`, `.csv`, `.tsv`, `.txt`, `.npy`, `.mat`) with a phenotype CSV given.

use super::phenotype::Spec;
use crate::network::error::{Result, fail, format, io};
use std::path::{Path, PathBuf};

/// Extensions read as one subject's time series.
pub const SERIES_EXTENSIONS: [&str; 6] = ["1d", "csv", "tsv", "txt", "npy", "mat"];

/// A cohort's subjects (id, file), sorted by file name, and its phenotype table with the mapping to read it.
#[derive(Debug)]
pub struct Layout {
    /// `ABIDE Preprocessed`, `ADHD-200` or `folder`.
    pub name: &'static str,
    pub subjects: Vec<(String, PathBuf)>,
    pub phenotype: Option<PathBuf>,
    pub spec: Option<Spec>,
}

/// A subject id from a file name: the stem, without a `_rois_<atlas>` suffix.
pub fn subject_id(path: &Path) -> String {
    let stem = path.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
    match stem.rfind("_rois_") {
        Some(i) if i > 0 => stem[..i].to_string(),
        _ => stem,
    }
}

fn listing(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out: Vec<PathBuf> =
        std::fs::read_dir(dir).map_err(io(&dir.display(), "list"))?.filter_map(|e| e.ok().map(|e| e.path())).collect();
    out.sort();
    Ok(out)
}

fn has_ext(p: &Path, exts: &[&str]) -> bool {
    p.extension().is_some_and(|e| exts.iter().any(|x| e.eq_ignore_ascii_case(x)))
}

fn header_of(path: &Path) -> Vec<String> {
    let Ok(text) = std::fs::read(path) else { return Vec::new() };
    let first = text.split(|&b| b == b'\n').next().unwrap_or(&[]);
    crate::util::csv_text::first_record(&String::from_utf8_lossy(first))
}

/// The preset whose id and label columns the table at `path` has.
pub fn preset_for(path: &Path) -> Option<Spec> {
    let header = header_of(path);
    [Spec::abide(), Spec::adhd200()].into_iter().find(|s| header.contains(&s.id) && header.contains(&s.label))
}

/// Finds the cohort in `dir`. `phenotype` overrides the table found in the layout.
pub fn discover(dir: &Path, phenotype: Option<&Path>) -> Result<Layout> {
    let name = dir.display().to_string();
    if !dir.is_dir() {
        fail!(name, "not a folder");
    }
    let pcp = if dir.join("ABIDE_pcp").is_dir() {
        Some(dir.join("ABIDE_pcp"))
    } else if dir.file_name().is_some_and(|n| n == "ABIDE_pcp") {
        Some(dir.to_path_buf())
    } else {
        None
    };
    if let Some(pcp) = pcp {
        // ABIDE_pcp/<pipeline>/<strategy>/: exactly one folder of ROI files, or the user names one.
        let mut folders = Vec::new();
        for pipeline in listing(&pcp)?.into_iter().filter(|p| p.is_dir()) {
            for strategy in listing(&pipeline)?.into_iter().filter(|p| p.is_dir()) {
                if listing(&strategy)?.iter().any(|f| has_ext(f, &["1d"])) {
                    folders.push(strategy);
                }
            }
        }
        let folder = match folders.as_slice() {
            [one] => one.clone(),
            [] => fail!(name, "ABIDE_pcp holds no <pipeline>/<strategy>/ folder of .1D files"),
            many => fail!(
                name,
                "ABIDE_pcp holds several derivatives ({}): import one of them",
                many.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(", ")
            ),
        };
        let table = phenotype
            .map(Path::to_path_buf)
            .or_else(|| listing(&pcp).ok()?.into_iter().find(|p| has_ext(p, &["csv"]) && preset_for(p).is_some()));
        return finish("ABIDE Preprocessed", &folder, table);
    }
    let files = listing(dir)?;
    let table = phenotype
        .map(Path::to_path_buf)
        .or_else(|| files.iter().find(|p| has_ext(p, &["csv", "tsv"]) && preset_for(p).is_some()).cloned());
    let adhd = table.as_deref().and_then(preset_for).is_some_and(|s| s.task == "adhd")
        && files.iter().any(|f| f.to_string_lossy().ends_with(".1D") && f.to_string_lossy().contains("_rois_"));
    finish(if adhd { "ADHD-200" } else { "folder" }, dir, table)
}

fn finish(name: &'static str, folder: &Path, phenotype: Option<PathBuf>) -> Result<Layout> {
    let subjects: Vec<(String, PathBuf)> = listing(folder)?
        .into_iter()
        .filter(|p| p.is_file() && has_ext(p, &SERIES_EXTENSIONS) && Some(p) != phenotype.as_ref())
        .filter(|p| !(has_ext(p, &["csv", "tsv"]) && preset_for(p).is_some()))
        .filter(|p| p.file_name().is_some_and(|n| n != "id.txt"))
        .map(|p| (subject_id(&p), p))
        .collect();
    if subjects.is_empty() {
        return Err(format(
            &folder.display(),
            format!("no time series files ({})", SERIES_EXTENSIONS.map(|e| format!(".{e}")).join(", ")),
        ));
    }
    let spec = phenotype.as_deref().and_then(preset_for);
    Ok(Layout { name, subjects, phenotype, spec })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_phenotype_header_with_a_quoted_comma_still_finds_its_preset() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("pheno.csv");
        let abide = super::Spec::abide();
        std::fs::write(&p, format!("\u{feff}\"{}\",\"notes, free text\",{}\n1,\"a, b\",2\n", abide.id, abide.label))
            .unwrap();
        assert_eq!(super::header_of(&p), [abide.id.clone(), "notes, free text".into(), abide.label.clone()]);
        assert_eq!(super::preset_for(&p).map(|s| s.id), Some(abide.id));
    }
}
