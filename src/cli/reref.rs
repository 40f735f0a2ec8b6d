//! `brainlens reref FILE --ref average|LABEL|bipolar --out OUT.edf`: re-referenced channels written as a new
//! EDF+/BDF+ (the same derivations the Recordings room draws).

use crate::signal::Recording;
use crate::signal::edf::derive::{DerivedChannel, write_derived};
use crate::signal::montage::{Derivation, Montage, parse_chain};
use anyhow::{Context, Result, anyhow, bail};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, clap::Args)]
pub struct RerefArgs {
    /// average (EEG channels minus their mean; EOG/ECG/EMG kept as recorded), bipolar (with --pairs), or the
    /// label of one reference channel (every other channel of its rate minus it).
    #[arg(long = "ref")]
    pub reference: String,
    /// Bipolar pairs "Fp1-F3, F3-C3" for --ref bipolar.
    #[arg(long)]
    pub pairs: Option<String>,
    #[arg(long)]
    pub out: PathBuf,
}

pub fn run(file: &Path, a: &RerefArgs, out: &mut dyn Write) -> Result<()> {
    let rec = Recording::open(file)?;
    let channels = rec.channels();
    let (derivations, errors): (Vec<Derivation>, Vec<String>) = match a.reference.to_lowercase().as_str() {
        "average" | "avg" => Montage::AverageReference.derivations(channels),
        "bipolar" => {
            let pairs = parse_chain(a.pairs.as_deref().context("--ref bipolar needs --pairs \"A-B, C-D\"")?)
                .map_err(|e| anyhow!(e))?;
            Montage::Bipolar(pairs).derivations(channels)
        }
        _ => {
            let r = rec
                .channel_index(&a.reference)
                .with_context(|| format!("{}: no reference channel '{}'", file.display(), a.reference))?;
            let fs = channels[r].sample_rate;
            let d = (0..channels.len())
                .filter(|&c| c != r && channels[c].sample_rate == fs)
                .map(|c| Derivation {
                    label: format!("{}-{}", channels[c].label, channels[r].label),
                    terms: vec![(c, 1.0), (r, -1.0)],
                })
                .collect();
            (d, Vec::new())
        }
    };
    if !errors.is_empty() {
        bail!("{}: {}", file.display(), errors.join("; "));
    }
    if derivations.is_empty() {
        bail!("{}: nothing to write", file.display());
    }
    let duration = rec.duration_s()?;
    let mut used: Vec<usize> = derivations.iter().flat_map(|d| d.terms.iter().map(|t| t.0)).collect();
    used.sort_unstable();
    used.dedup();
    let data = rec.read(&used, 0.0, duration + 1.0)?;
    let of = |c: usize| &data[used.iter().position(|&u| u == c).expect("read")].values;
    let derived: Vec<DerivedChannel> = derivations
        .iter()
        .map(|d| {
            let n = of(d.terms[0].0).len();
            let mut values = vec![0.0; n];
            for &(c, w) in &d.terms {
                for (v, x) in values.iter_mut().zip(of(c)) {
                    *v += w * x;
                }
            }
            let reference = if d.terms.len() > 2 {
                "average reference"
            } else if d.terms.len() == 2 {
                "re-referenced"
            } else {
                "as recorded"
            };
            DerivedChannel {
                samples_per_record: None,
                label: d.label.clone(),
                source: d.terms[0].0,
                values,
                prefilter: format!("{} ({reference})", rec.prefilter(d.terms[0].0)),
            }
        })
        .collect();
    write_derived(&rec, &derived, &a.out)?;
    writeln!(out, "{} channels written to {}", derived.len(), a.out.display())?;
    Ok(())
}
