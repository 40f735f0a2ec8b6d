//! `brainlens bids export FILE --out DIR --subject S --task T [--session X] [--run N]` writes one recording
//! into a BIDS-EEG dataset; `brainlens bids ls DIR` lists a dataset's EEG recordings.

use crate::signal::Recording;
use crate::signal::bids::Entities;
use crate::signal::bids::dataset::recordings;
use crate::signal::bids::export::{BidsData, ExportSpec, export};
use anyhow::Result;
use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub struct ExportArgs {
    pub file: PathBuf,
    /// The dataset folder (created; an existing dataset gains the recording and the participant).
    #[arg(long)]
    pub out: PathBuf,
    #[arg(long)]
    pub subject: String,
    #[arg(long)]
    pub task: String,
    #[arg(long)]
    pub session: Option<String>,
    #[arg(long)]
    pub run: Option<String>,
    /// The data file: edf (EDF+ for EDF sources, BDF+ otherwise) or vhdr (BrainVision float32).
    #[arg(long, default_value = "edf", value_parser = ["edf", "vhdr"])]
    pub format: String,
    /// Mains frequency in Hz (PowerLineFrequency); "n/a" when not given.
    #[arg(long)]
    pub line_freq: Option<f64>,
    /// The EEG reference (EEGReference), e.g. "Cz" or "average"; "n/a" when not given.
    #[arg(long)]
    pub reference: Option<String>,
    #[arg(long)]
    pub json: bool,
}

pub fn export_cmd(a: &ExportArgs, out: &mut dyn Write) -> Result<()> {
    let rec = Recording::open(&a.file)?;
    let spec = ExportSpec {
        root: &a.out,
        entities: Entities {
            subject: a.subject.clone(),
            session: a.session.clone(),
            task: a.task.clone(),
            run: a.run.clone(),
        },
        data: if a.format == "vhdr" { BidsData::BrainVision } else { BidsData::EdfOrBdf },
        line_freq: a.line_freq,
        reference: a.reference.clone(),
    };
    let files = export(&rec, rec.annotations()?, &spec)?;
    if a.json {
        return super::write_json(out, &files);
    }
    for f in files {
        writeln!(out, "{}", f.display())?;
    }
    Ok(())
}

pub fn ls(dir: &Path, json: bool, out: &mut dyn Write) -> Result<()> {
    let list = recordings(dir)?;
    if json {
        return super::write_json(out, &list);
    }
    for r in list {
        let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| "–".into());
        writeln!(
            out,
            "sub-{}\tses {}\ttask {}\trun {}\t{}",
            r.subject,
            opt(&r.session),
            r.task,
            opt(&r.run),
            r.path.display()
        )?;
    }
    Ok(())
}
