//! Patient cohorts: subjects × (ROI time series → connectome) + a phenotype table, imported from the layouts
//! the releases ship (ABIDE Preprocessed, ADHD-200) or any folder of time series, into one cohort file
//! (`file`: an `.npz` numpy and nilearn users read). A subject that cannot be used as it is (a constant
//! region, too few volumes, no row or no label in the phenotype table, another region count) is listed with
//! the reason and left out, or kept by the user's choice — its undefined entries NaN, never zeroed.

pub mod estimate;
pub mod file;
pub mod labels;
pub mod layout;
pub mod metrics;
pub mod phenotype;
pub mod series;
pub mod source;

pub use estimate::Kind;

use crate::network::error::{NetworkError, Result, fail, invalid};
use crate::util::cancel::Cancel;
use std::path::{Path, PathBuf};

/// Which regions of the series become the connectome's nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Regions {
    /// Every column.
    All,
    /// The 90 cerebral regions of AAL-116 (atlas codes below 9000, or the first 90 columns when the file has
    /// no header): the BrainAgent paper's AAL-90.
    Aal90,
}

impl Regions {
    pub fn parse(s: &str) -> Result<Regions> {
        match s {
            "all" => Ok(Regions::All),
            "aal90" => Ok(Regions::Aal90),
            other => invalid!("unknown region set '{other}': use all or aal90"),
        }
    }
}

/// How to import.
#[derive(Clone, Debug)]
pub struct ImportOptions {
    /// `None`: AAL-90 for AAL-116 input, else every region.
    pub regions: Option<Regions>,
    pub kind: Kind,
    /// A phenotype table other than the layout's own.
    pub phenotype: Option<PathBuf>,
    /// A column mapping other than the preset the table's header matches.
    pub spec: Option<phenotype::Spec>,
    /// Keep flagged subjects (their undefined entries NaN) instead of leaving them out.
    pub keep_flagged: bool,
    /// Fewer volumes than this flags a subject.
    pub min_volumes: usize,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            regions: None,
            kind: Kind::Correlation,
            phenotype: None,
            spec: None,
            keep_flagged: false,
            min_volumes: 20,
        }
    }
}

/// A subject listed with why it is not a clean member of the cohort (one whose regions differ from the
/// cohort's — another count, or header codes in another order — is always left out).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct Flag {
    pub subject: String,
    pub file: String,
    pub reason: String,
    /// Kept in the cohort (by the user's choice) or left out.
    pub kept: bool,
}

/// How the cohort was made.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct Provenance {
    pub source: String,
    pub layout: String,
    pub phenotype: String,
    pub task: String,
    pub kind: String,
    pub method: String,
    pub regions: String,
    pub made_by: String,
}

/// An imported cohort: `n` subjects, `r` regions, one `r × r` connectome each (row-major, subject-major).
#[derive(Clone, Debug, PartialEq)]
pub struct Cohort {
    pub ids: Vec<String>,
    /// The task's label per subject (`""` for a kept subject without one).
    pub labels: Vec<String>,
    pub sex: Vec<String>,
    /// Years; NaN when the table has none.
    pub age: Vec<f64>,
    pub site: Vec<String>,
    pub volumes: Vec<i64>,
    /// The reasons a kept subject is flagged (`""` for none).
    pub flags: Vec<String>,
    pub region_labels: Vec<String>,
    pub region_codes: Vec<String>,
    pub r: usize,
    pub connectomes: Vec<f64>,
    /// Every flagged subject, kept or left out.
    pub flagged: Vec<Flag>,
    pub provenance: Provenance,
}

impl Cohort {
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Subject `i`'s connectome.
    pub fn matrix(&self, i: usize) -> &[f64] {
        &self.connectomes[i * self.r * self.r..(i + 1) * self.r * self.r]
    }

    /// Label → number of subjects, in the order labels first occur.
    pub fn label_counts(&self) -> Vec<(String, usize)> {
        counts(self.labels.iter().cloned())
    }

    /// Site → number of subjects, in the order sites first occur.
    pub fn site_counts(&self) -> Vec<(String, usize)> {
        counts(self.site.iter().cloned())
    }
}

/// Value → number of occurrences, in the order values first occur.
fn counts<T: Clone + PartialEq>(values: impl IntoIterator<Item = T>) -> Vec<(T, usize)> {
    let mut out: Vec<(T, usize)> = Vec::new();
    for v in values {
        match out.iter_mut().find(|(k, _)| *k == v) {
            Some((_, n)) => *n += 1,
            None => out.push((v, 1)),
        }
    }
    out
}

/// What the per-subject pass learns of one subject.
struct Subject {
    reasons: Vec<String>,
    volumes: usize,
    /// Whether its connectome (its covariance for the tangent kind) was computed: it is kept.
    kept: bool,
    constant: Vec<usize>,
}

/// Imports the cohort in `dir`. `progress(done, total)` is called as subjects are done; `cancel` stops it
/// between subjects. Each subject's series is read, checked and turned into its connectome in one pass on
/// every core, written straight into its place in the cohort's one `N × R × R` array, so memory holds the
/// connectomes once, not the series.
pub fn import(
    dir: &Path,
    opts: &ImportOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
    cancel: &Cancel,
) -> Result<Cohort> {
    let layout = layout::discover(dir, opts.phenotype.as_deref())?;
    let Some(table_path) = layout.phenotype.clone() else {
        fail!(dir.display(), "no phenotype table found: give one (--phenotype CSV) with its columns")
    };
    let Some(spec) = opts.spec.clone().or(layout.spec.clone()) else {
        fail!(
            table_path.display(),
            "its columns match no known layout (ABIDE: FILE_ID, DX_GROUP; ADHD-200: ScanDir ID, DX): name the id and label columns and the label values"
        )
    };
    let table = phenotype::read(&table_path, &spec)?;
    let total = layout.subjects.len();
    // The region count most subjects have (from each file's first row) and the region set.
    let shapes: Vec<(usize, Option<Vec<String>>)> =
        crate::util::parallel::map_collect(total, crate::util::parallel::threads(), 16, |i| {
            series::peek(&layout.subjects[i].1)
        })
        .into_iter()
        .collect::<Result<_>>()?;
    let RegionSet { regions_in, codes_in, regions, columns, region_codes, region_labels } =
        region_set(&shapes, opts.regions)?;
    let rows: Vec<Option<phenotype::Row>> =
        layout.subjects.iter().map(|(id, _)| table.rows.get(&phenotype::key(id)).cloned()).collect();
    // One pass per subject, on every core: read, check, compute.
    let r = columns.len();
    let kind = opts.kind;
    let done = std::sync::atomic::AtomicUsize::new(0);
    let mut connectomes = vec![0.0; total * r * r];
    let slots: Vec<std::sync::Mutex<&mut [f64]>> = connectomes.chunks_mut(r * r).map(std::sync::Mutex::new).collect();
    let passed =
        crate::util::parallel::map_collect(total, crate::util::parallel::threads(), 4, |i| -> Result<Subject> {
            if cancel.is_cancelled() {
                return Err(NetworkError::Cancelled);
            }
            let (id, file) = &layout.subjects[i];
            let mut reasons = Vec::new();
            match &rows[i] {
                None => reasons.push(format!("not in the phenotype table {}", table.path)),
                Some(row) if row.label.is_none() => {
                    reasons.push(format!("no {} value (line {})", spec.label, row.line))
                }
                _ => {}
            }
            if let Some(lines) = table.duplicates.get(&phenotype::key(id)) {
                reasons.push(format!("its id is on several lines of the phenotype table: {lines:?}"));
            }
            let s = series::read(file)?;
            let other_codes = matches!((&s.codes, &codes_in), (Some(a), Some(b)) if a != b);
            let out = if s.regions != regions_in || other_codes {
                reasons.push(if other_codes {
                    "its header names other regions (or another order) than the cohort's".to_string()
                } else {
                    format!("{} regions where the cohort has {regions_in}", s.regions)
                });
                Subject { reasons, volumes: s.volumes, kept: false, constant: Vec::new() }
            } else {
                let sel = s.select(&columns);
                drop(s);
                if sel.volumes < opts.min_volumes {
                    reasons.push(format!("{} volumes: fewer than {}", sel.volumes, opts.min_volumes));
                }
                let constant = sel.constant_columns();
                if !constant.is_empty() {
                    reasons.push(constant_reason(&constant, &region_labels, &region_codes));
                }
                let kept = reasons.is_empty() || opts.keep_flagged;
                if kept {
                    let m = estimate::subject(&sel.values, sel.volumes, r, kind)
                        .map_err(|e| crate::network::error::format(&file.display(), e.to_string()))?;
                    let mut slot = slots[i].lock().unwrap_or_else(|p| p.into_inner());
                    slot.copy_from_slice(&m);
                    if kind != Kind::Tangent {
                        mark_constant(&mut slot, &constant, r);
                    }
                }
                Subject { reasons, volumes: sel.volumes, kept, constant }
            };
            progress(done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1, total);
            Ok(out)
        });
    drop(slots);
    let passed: Vec<Subject> = passed.into_iter().collect::<Result<_>>()?;
    let (members, flagged) = members_and_flags(&passed, &layout.subjects);
    if members.is_empty() {
        fail!(dir.display(), "no subject can be used ({} flagged)", flagged.len());
    }
    two_labels(&members, &rows, &table_path, &spec)?;
    // The members' connectomes moved up over the places of the subjects left out (k ≤ i: in order, in place).
    for (k, &i) in members.iter().enumerate() {
        connectomes.copy_within(i * r * r..(i + 1) * r * r, k * r * r);
    }
    connectomes.truncate(members.len() * r * r);
    if kind == Kind::Tangent {
        estimate::tangent(&mut connectomes, r)?;
        for (m, &i) in connectomes.chunks_mut(r * r).zip(&members) {
            mark_constant(m, &passed[i].constant, r);
        }
    }
    let get = |i: usize| rows[i].clone().unwrap_or_default();
    Ok(Cohort {
        ids: members.iter().map(|&i| layout.subjects[i].0.clone()).collect(),
        labels: members.iter().map(|&i| get(i).label.unwrap_or_default()).collect(),
        sex: members.iter().map(|&i| get(i).sex.unwrap_or_default()).collect(),
        age: members.iter().map(|&i| get(i).age.unwrap_or(f64::NAN)).collect(),
        site: members.iter().map(|&i| get(i).site.unwrap_or_default()).collect(),
        volumes: members.iter().map(|&i| passed[i].volumes as i64).collect(),
        flags: members.iter().map(|&i| passed[i].reasons.join("; ")).collect(),
        region_labels,
        region_codes,
        r,
        connectomes,
        flagged,
        provenance: Provenance {
            source: dir.display().to_string(),
            layout: layout.name.to_string(),
            phenotype: table_path.display().to_string(),
            task: spec.task.clone(),
            kind: kind.name().to_string(),
            method: kind.method().to_string(),
            regions: match regions {
                Regions::All => format!("all {r}"),
                Regions::Aal90 => "AAL-90 (the cerebral 90 of AAL-116)".to_string(),
            },
            made_by: format!("brainlens {}", env!("CARGO_PKG_VERSION")),
        },
    })
}

/// The regions a cohort keeps: the count most subjects have, their header codes, the columns kept (all, or
/// AAL-90's cerebral 90 of AAL-116) and their codes and labels.
struct RegionSet {
    regions_in: usize,
    codes_in: Option<Vec<String>>,
    regions: Regions,
    columns: Vec<usize>,
    region_codes: Vec<String>,
    region_labels: Vec<String>,
}

/// The region set from each file's shape (its region count and header codes, from its first row).
fn region_set(shapes: &[(usize, Option<Vec<String>>)], asked: Option<Regions>) -> Result<RegionSet> {
    let regions_in = most_common(shapes.iter().map(|s| s.0));
    let codes_in = shapes.iter().find(|s| s.0 == regions_in).and_then(|s| s.1.clone());
    let regions = asked.unwrap_or(if regions_in == 116 { Regions::Aal90 } else { Regions::All });
    let columns: Vec<usize> = match regions {
        Regions::All => (0..regions_in).collect(),
        Regions::Aal90 => {
            if regions_in != 116 {
                invalid!("--regions aal90 needs AAL-116 series (116 regions); these have {regions_in}");
            }
            match &codes_in {
                Some(codes) => (0..116).filter(|&j| codes[j].parse::<u32>().is_ok_and(|c| c < 9000)).collect(),
                None => (0..90).collect(),
            }
        }
    };
    if regions == Regions::Aal90 && columns.len() != 90 {
        invalid!("the header codes give {} cerebral regions (codes below 9000), not AAL-90's 90", columns.len());
    }
    let atlas_labels = (regions_in == 116).then(|| crate::network::atlas::Atlas::builtin("aal116").ok()).flatten();
    let region_codes: Vec<String> = match &codes_in {
        Some(c) => columns.iter().map(|&j| c[j].clone()).collect(),
        None => columns.iter().map(|&j| (j + 1).to_string()).collect(),
    };
    let region_labels: Vec<String> = match &atlas_labels {
        Some(a) => columns.iter().map(|&j| a.labels[j].clone()).collect(),
        None => codes_in.clone().map_or_else(
            || columns.iter().map(|&j| format!("R{}", j + 1)).collect(),
            |c| columns.iter().map(|&j| c[j].clone()).collect(),
        ),
    };
    Ok(RegionSet { regions_in, codes_in, regions, columns, region_codes, region_labels })
}

/// The subjects kept (indices into the layout's subjects) and the flags of those with a reason.
fn members_and_flags(passed: &[Subject], subjects: &[(String, std::path::PathBuf)]) -> (Vec<usize>, Vec<Flag>) {
    let mut flagged = Vec::new();
    let mut members = Vec::new();
    for (i, s) in passed.iter().enumerate() {
        if !s.reasons.is_empty() {
            flagged.push(Flag {
                subject: subjects[i].0.clone(),
                file: subjects[i].1.display().to_string(),
                reason: s.reasons.join("; "),
                kept: s.kept,
            });
        }
        if s.kept {
            members.push(i);
        }
    }
    (members, flagged)
}

/// A cohort for a task needs both of its labels among the subjects kept.
fn two_labels(
    members: &[usize],
    rows: &[Option<phenotype::Row>],
    table_path: &Path,
    spec: &phenotype::Spec,
) -> Result<()> {
    let mut labels_present: Vec<&str> = Vec::new();
    for &i in members {
        if let Some(l) = rows[i].as_ref().and_then(|r| r.label.as_deref())
            && !labels_present.contains(&l)
        {
            labels_present.push(l);
        }
    }
    if labels_present.len() < 2 {
        fail!(
            table_path.display(),
            "every subject kept is labelled {}: a cohort for task {} needs both of its labels ({})",
            labels_present.first().unwrap_or(&"nothing"),
            spec.task,
            spec.label_names().join(", ")
        );
    }
    Ok(())
}

fn constant_reason(constant: &[usize], labels: &[String], codes: &[String]) -> String {
    let named: Vec<String> = constant.iter().take(3).map(|&j| format!("{} ({})", labels[j], codes[j])).collect();
    let more = constant.len().saturating_sub(3);
    match (constant.len(), more) {
        (1, _) => format!("region {} is constant", named[0]),
        (_, 0) => format!("regions {} are constant", named.join(", ")),
        _ => format!("regions {} and {more} more are constant", named.join(", ")),
    }
}

/// A constant region's correlations are undefined: its row and column become NaN (its diagonal too), never
/// a number the estimator happened to give.
fn mark_constant(m: &mut [f64], constant: &[usize], r: usize) {
    for &j in constant {
        for k in 0..r {
            m[j * r + k] = f64::NAN;
            m[k * r + j] = f64::NAN;
        }
    }
}

/// The value that occurs most often (the larger on a tie).
fn most_common(values: impl Iterator<Item = usize>) -> usize {
    counts(values).into_iter().max_by_key(|&(v, n)| (n, v)).map_or(0, |(v, _)| v)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A subject whose header names the regions in another order is left out with the reason, never read
    /// with its columns misplaced.
    #[test]
    fn a_subject_with_other_header_codes_is_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let rows = |seed: u64| -> String {
            let mut x = seed;
            (0..30)
                .map(|_| {
                    (0..3)
                        .map(|_| {
                            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                            format!("{:.4}", (x >> 33) as f64 / (1u64 << 31) as f64)
                        })
                        .collect::<Vec<_>>()
                        .join("\t")
                })
                .collect::<Vec<_>>()
                .join("\n")
        };
        for (id, header, seed) in
            [("a", "#1\t#2\t#3", 1), ("b", "#1\t#2\t#3", 2), ("c", "#1\t#2\t#3", 3), ("d", "#2\t#1\t#3", 4)]
        {
            std::fs::write(dir.path().join(format!("{id}_rois_x.1D")), format!("{header}\n{}\n", rows(seed))).unwrap();
        }
        std::fs::write(dir.path().join("p.csv"), "id,dx\na,1\nb,2\nc,1\nd,2\n").unwrap();
        let opts = ImportOptions {
            phenotype: Some(dir.path().join("p.csv")),
            spec: Some(phenotype::Spec::custom("id", "dx", "1=ASD,2=HC", "asd", "", "", "").unwrap()),
            ..Default::default()
        };
        let c = import(dir.path(), &opts, &|_, _| {}, &Cancel::default()).unwrap();
        assert_eq!(c.ids, ["a", "b", "c"]);
        assert_eq!(c.flagged.len(), 1);
        assert!(c.flagged[0].reason.contains("other regions (or another order)") && !c.flagged[0].kept);
    }
}
