//! `brainlens cohort import|show` (and `train|predict`, in cohort_model.rs): a cohort (ABIDE Preprocessed, ADHD-200, or a folder of ROI time series
//! with a phenotype table) into one `.npz` of connectomes, and its table back.

use super::write_json;
use crate::network::cohort::{self, Cohort, ImportOptions, Kind, Regions, file, phenotype::Spec};
use crate::util::cancel::Cancel;
use anyhow::Result;
use clap::{Args, Subcommand};
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, Subcommand)]
pub enum CohortCommand {
    /// Reads a cohort folder (ABIDE Preprocessed, ADHD-200, or time series files + --phenotype) and writes
    /// its connectomes, ids, labels, sex, age, site and flags to one .npz.
    Import {
        /// The folder (for ABIDE: the one holding ABIDE_pcp/, as nilearn's fetch_abide_pcp leaves it).
        dir: PathBuf,
        /// The phenotype table (CSV/TSV), when it is not in the layout.
        #[arg(long)]
        phenotype: Option<PathBuf>,
        /// all, or aal90 (the cerebral 90 of AAL-116; the default for AAL-116 input).
        #[arg(long)]
        regions: Option<String>,
        /// correlation (nilearn's default estimator: z-scored, Ledoit-Wolf), pearson, partial or tangent.
        #[arg(long, default_value = "correlation")]
        kind: String,
        /// Keep flagged subjects (their undefined entries NaN) instead of leaving them out.
        #[arg(long)]
        keep_flagged: bool,
        /// Fewer time points than this flags a subject.
        #[arg(long, default_value_t = 20)]
        min_volumes: usize,
        #[command(flatten)]
        columns: Columns,
        /// The cohort file to write (.npz).
        #[arg(long)]
        out: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// The cohort table: subject, label, sex, age, site, volumes, flags; label counts and how it was made.
    Show {
        file: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Trains a cohort model on the cohort's training split (agent eval's seeded split): a logistic
    /// regression on the Fisher z edges, its probability calibrated by cross-validation on that split alone.
    Train {
        /// The cohort file (.npz, `cohort import`).
        file: PathBuf,
        /// The task (asd, adhd, …) whose labels the cohort holds.
        #[arg(long)]
        task: String,
        /// The model file to write (JSON).
        #[arg(long)]
        out: PathBuf,
        /// Test fraction of the split left out (agent eval's --split).
        #[arg(long, default_value_t = 0.2)]
        split: f64,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// sigmoid (Platt) or isotonic.
        #[arg(long, default_value = crate::agent::graph::cohort_model::DEFAULT_CALIBRATION.as_str())]
        calibration: String,
        #[arg(long)]
        json: bool,
    },
    /// A saved cohort model's evidence for one connectome: calibrated P(label) and the edges that moved it.
    Predict {
        /// The model file (`cohort train`).
        model: PathBuf,
        /// The connectome (any matrix format the Networks room opens).
        graph: PathBuf,
        /// The graph's atlas (default: the file beside it, or assumed from its region count).
        #[arg(long)]
        atlas: Option<String>,
        /// The task the analysis is for (must be the model's).
        #[arg(long)]
        task: Option<String>,
        #[arg(long)]
        json: bool,
    },
}

/// The phenotype table's columns, for a table that is neither ABIDE's nor ADHD-200's.
#[derive(Debug, Args)]
pub struct Columns {
    /// Column of subject ids (matched to file names without their `_rois_<atlas>` suffix; numbers as numbers).
    #[arg(long)]
    id_column: Option<String>,
    /// Column of diagnoses or other labels.
    #[arg(long)]
    label_column: Option<String>,
    /// The label values as VALUE=LABEL pairs naming the task's labels, e.g. "1=ASD,2=HC".
    #[arg(long)]
    label_values: Option<String>,
    /// The task the labels belong to (asd, adhd, sex, mdd, …).
    #[arg(long)]
    task: Option<String>,
    #[arg(long)]
    sex_column: Option<String>,
    #[arg(long)]
    age_column: Option<String>,
    #[arg(long)]
    site_column: Option<String>,
}

impl Columns {
    fn spec(&self) -> Result<Option<Spec>> {
        let given = [&self.id_column, &self.label_column, &self.label_values, &self.task];
        if given.iter().all(|g| g.is_none()) {
            return Ok(None);
        }
        let text = |v: &Option<String>| v.clone().unwrap_or_default();
        Ok(Some(Spec::custom(
            &text(&self.id_column),
            &text(&self.label_column),
            &text(&self.label_values),
            &text(&self.task),
            &text(&self.sex_column),
            &text(&self.age_column),
            &text(&self.site_column),
        )?))
    }
}

pub fn run(command: CohortCommand, out: &mut dyn Write) -> Result<()> {
    match command {
        CohortCommand::Import {
            dir,
            phenotype,
            regions,
            kind,
            keep_flagged,
            min_volumes,
            columns,
            out: target,
            json,
        } => {
            let opts = ImportOptions {
                regions: regions.as_deref().map(Regions::parse).transpose()?,
                kind: Kind::parse(&kind)?,
                phenotype,
                spec: columns.spec()?,
                keep_flagged,
                min_volumes,
            };
            import(&dir, &opts, &target, json, out)
        }
        CohortCommand::Train { file: path, task, out: target, split, seed, calibration, json } => {
            super::cohort_model::train(&path, &task, &target, (split, seed), &calibration, json, out)
        }
        CohortCommand::Predict { model, graph, atlas, task, json } => {
            super::cohort_model::predict(&model, &graph, atlas.as_deref(), task.as_deref(), json, out)
        }
        CohortCommand::Show { file: path, json } => {
            let c = file::read(&path)?;
            if json {
                let mut v = summary(&c);
                v["subjects"] = Value::Array(
                    (0..c.len())
                        .map(|i| {
                            json!({"id": c.ids[i], "label": c.labels[i], "sex": c.sex[i],
                                "age": (!c.age[i].is_nan()).then_some(c.age[i]), "site": c.site[i],
                                "volumes": c.volumes[i], "flags": c.flags[i]})
                        })
                        .collect(),
                );
                return write_json(out, &v);
            }
            print_summary(&c, &path, out)?;
            writeln!(
                out,
                "\n{:<24} {:<6} {:<7} {:>6} {:<12} {:>7}  flags",
                "subject", "label", "sex", "age", "site", "volumes"
            )?;
            for i in 0..c.len() {
                let age = if c.age[i].is_nan() { "-".to_string() } else { format!("{:.1}", c.age[i]) };
                writeln!(
                    out,
                    "{:<24} {:<6} {:<7} {:>6} {:<12} {:>7}  {}",
                    c.ids[i], c.labels[i], c.sex[i], age, c.site[i], c.volumes[i], c.flags[i]
                )?;
            }
            Ok(())
        }
    }
}

fn import(dir: &Path, opts: &ImportOptions, target: &Path, json: bool, out: &mut dyn Write) -> Result<()> {
    let cancel = Cancel::default();
    super::on_interrupt(cancel.clone());
    let bar = super::progress::Progress::new(0, "steps");
    let started = std::time::Instant::now();
    let c = cohort::import(dir, opts, &|done, total| bar.set(done, total), &cancel)?;
    file::write(target, &c)?;
    let seconds = started.elapsed().as_secs_f64();
    if json {
        let mut v = summary(&c);
        v["out"] = json!(target.display().to_string());
        v["seconds"] = json!(seconds);
        return write_json(out, &v);
    }
    print_summary(&c, target, out)?;
    writeln!(out, "written in {seconds:.2} s")?;
    Ok(())
}

/// Subjects, label counts, regions, flagged subjects and how the cohort was made.
fn summary(c: &Cohort) -> Value {
    json!({
        "n_subjects": c.len(),
        "labels": c.label_counts().into_iter().map(|(l, n)| (l, json!(n))).collect::<serde_json::Map<_, _>>(),
        "n_regions": c.r,
        "sites": c.site_counts().into_iter().map(|(s, n)| (s, json!(n))).collect::<serde_json::Map<_, _>>(),
        "flagged": c.flagged,
        "provenance": c.provenance,
    })
}

fn print_summary(c: &Cohort, path: &Path, out: &mut dyn Write) -> Result<()> {
    let p = &c.provenance;
    writeln!(out, "{}: {} subjects, {} regions ({}), task {}", path.display(), c.len(), c.r, p.regions, p.task)?;
    let counts: Vec<String> = c.label_counts().iter().map(|(l, n)| format!("{l} {n}")).collect();
    writeln!(out, "labels: {}", counts.join(", "))?;
    writeln!(out, "sites: {}", c.site_counts().len())?;
    writeln!(out, "connectivity: {}", p.method)?;
    writeln!(out, "from: {} ({}), phenotype {}", p.source, p.layout, p.phenotype)?;
    let left_out = c.flagged.iter().filter(|f| !f.kept).count();
    writeln!(out, "flagged: {} ({} left out, {} kept)", c.flagged.len(), left_out, c.flagged.len() - left_out)?;
    for f in &c.flagged {
        writeln!(out, "  {} [{}]: {}", f.subject, if f.kept { "kept" } else { "left out" }, f.reason)?;
    }
    Ok(())
}
