//! `brainlens sleep …`: sleep statistics of a hypnogram and agreement of two scorings.

use super::write_json;
use crate::signal::sleep::{Codes, Hypnogram, agreement, sleep_statistics};
use anyhow::{Result, anyhow, bail};
use std::io::Write;
use std::path::PathBuf;

/// How a label file is read: which rows and how integers map to stages.
#[derive(Debug, Clone, clap::Args)]
pub struct LabelArgs {
    /// Only the rows of this subject (a CSV with a `subject` column).
    #[arg(long)]
    pub subject: Option<String>,
    /// Integer codes: yasa (−2 UNS, −1 ART, 0 W, 1 N1, 2 N2, 3 N3, 4 R) or sri (0 W, 1 Light→N2, 2 Deep→N3, 3 REM).
    #[arg(long, default_value = "yasa")]
    pub codes: String,
}

impl LabelArgs {
    fn load(&self, file: &std::path::Path, column: Option<&str>) -> Result<Hypnogram> {
        let codes = Codes::parse(&self.codes).map_err(|e| anyhow!(e))?;
        Hypnogram::load(file, column, self.subject.as_deref(), codes).map_err(|e| anyhow!(e))
    }
}

/// One channel's band power: which channel and bands, absolute or relative.
#[derive(Debug, Clone, clap::Args)]
pub struct PowerArgs {
    #[arg(long)]
    pub channel: String,
    /// Bands LO-HI (repeatable; default delta 0.5-4, theta 4-8, alpha 8-12, sigma 12-16, beta 16-30).
    #[arg(long)]
    pub band: Vec<String>,
    /// Each band as a fraction of the power from the lowest to the highest band edge.
    #[arg(long)]
    pub relative: bool,
}

/// `brainlens sleep …`.
#[derive(Debug, clap::Subcommand)]
pub enum SleepCommand {
    /// YASA's sleep statistics (TIB, SPT, WASO, TST, stage minutes and %, SE, SME, SOL, latencies), awakenings,
    /// fragmentation index and stage transitions of a hypnogram (EDF+ stage annotations, or a label file).
    Stats {
        hypnogram: PathBuf,
        /// CSV column holding the stages (default: the first one that does).
        #[arg(long)]
        column: Option<String>,
        #[command(flatten)]
        labels: LabelArgs,
        #[arg(long)]
        json: bool,
    },
    /// Band power per sleep stage of one channel (yasa.bandpower with a hypnogram: Hamming, median, 4-s
    /// windows, Simpson).
    Bandpower {
        /// The recording.
        file: PathBuf,
        /// The hypnogram (a label file; default: the recording's own stage annotations).
        #[arg(long)]
        hypnogram: Option<PathBuf>,
        #[command(flatten)]
        power: PowerArgs,
        /// CSV column holding the stages (default: the first one that does).
        #[arg(long)]
        column: Option<String>,
        #[command(flatten)]
        labels: LabelArgs,
        #[arg(long)]
        json: bool,
    },
    /// Band power epoch by epoch through the recording (the time course the Sleep window draws under the
    /// hypnogram): yasa.bandpower on 30-s epochs (Hamming, median, 4-s windows, Simpson).
    EpochPower {
        /// The recording.
        file: PathBuf,
        #[command(flatten)]
        power: PowerArgs,
        /// Epoch length in seconds.
        #[arg(long, default_value_t = 30.0)]
        epoch: f64,
        #[arg(long)]
        json: bool,
    },
    /// Cohen's kappa and confusion matrix of two scorings: two files, or two --column of one CSV.
    Agreement {
        #[arg(required = true, num_args = 1..=2)]
        hypnograms: Vec<PathBuf>,
        /// Column(s): two for one CSV file, at most one (used for both) with two files.
        #[arg(long)]
        column: Vec<String>,
        #[command(flatten)]
        labels: LabelArgs,
        #[arg(long)]
        json: bool,
    },
}

pub fn run(cmd: SleepCommand, out: &mut dyn Write) -> Result<()> {
    match cmd {
        SleepCommand::Stats { hypnogram, column, labels, json } => {
            let h = labels.load(&hypnogram, column.as_deref())?;
            let s = sleep_statistics(&h).map_err(|e| anyhow!("{}: {e}", hypnogram.display()))?;
            let v = s.to_json();
            if json {
                return write_json(out, &v);
            }
            for (k, val) in v.as_object().into_iter().flatten() {
                if k.starts_with("transition") {
                    continue;
                }
                writeln!(out, "{k:<18} {}", if val.is_null() { "–".into() } else { val.to_string() })?;
            }
            let names: Vec<&str> =
                v["transition_stages"].as_array().into_iter().flatten().filter_map(|x| x.as_str()).collect();
            writeln!(out, "transitions (rows from, columns to: {}):", names.join(" "))?;
            for (name, row) in names.iter().zip(&s.transition_counts) {
                writeln!(out, "  {name:<4} {}", row.iter().map(|c| format!("{c:>5}")).collect::<String>())?;
            }
            Ok(())
        }
        SleepCommand::Bandpower { file, hypnogram, power, column, labels, json } => {
            let h = labels.load(hypnogram.as_deref().unwrap_or(&file), column.as_deref())?;
            let (d, bands) = channel_and_bands(&file, &power)?;
            let PowerArgs { channel, relative, .. } = power;
            let r = crate::signal::sleep::stage_power::stage_band_power(&d.values, d.sample_rate, &h, &bands, relative)
                .map_err(|e| anyhow!("{}: {e}", file.display()))?;
            if json {
                return write_json(
                    out,
                    &serde_json::json!({"channel": channel, "bands": bands, "relative": relative, "stages": r}),
                );
            }
            writeln!(
                out,
                "stage  seconds  {}",
                bands.iter().map(|(l, h)| format!("{l}-{h} Hz")).collect::<Vec<_>>().join("  ")
            )?;
            for s in &r {
                writeln!(
                    out,
                    "{:<5} {:>8.0}  {}",
                    s.stage,
                    s.seconds,
                    s.values.iter().map(|v| format!("{v:.4}")).collect::<Vec<_>>().join("  ")
                )?;
            }
            Ok(())
        }
        SleepCommand::EpochPower { file, power, epoch, json } => {
            let (d, bands) = channel_and_bands(&file, &power)?;
            let PowerArgs { channel, relative, .. } = power;
            let r =
                crate::signal::sleep::epoch_power::epoch_band_power(&d.values, d.sample_rate, epoch, &bands, relative)
                    .map_err(|e| anyhow!("{}: {e}", file.display()))?;
            if json {
                return write_json(out, &serde_json::json!({"channel": channel, "result": r}));
            }
            let head: Vec<String> = bands.iter().map(|(l, h)| format!("{l}-{h} Hz")).collect();
            writeln!(out, "epoch  start_s  {}", head.join("  "))?;
            for (i, row) in r.values.iter().enumerate() {
                let v: Vec<String> = row.iter().map(|v| format!("{v:.4}")).collect();
                writeln!(out, "{:<5} {:>8.0}  {}", i + 1, i as f64 * epoch, v.join("  "))?;
            }
            Ok(())
        }
        SleepCommand::Agreement { hypnograms, column, labels, json } => {
            let (a, b) = match (hypnograms.as_slice(), column.as_slice()) {
                ([f], [c1, c2]) => (labels.load(f, Some(c1))?, labels.load(f, Some(c2))?),
                ([f1, f2], cols) if cols.len() <= 1 => {
                    let c = cols.first().map(String::as_str);
                    (labels.load(f1, c)?, labels.load(f2, c)?)
                }
                _ => bail!("give two hypnogram files, or one CSV file and two --column"),
            };
            let ag = agreement(&a, &b).map_err(|e| anyhow!(e))?;
            if json {
                return write_json(out, &ag);
            }
            writeln!(
                out,
                "epochs {}  agreement {:.2} %  Cohen's kappa {:.4}",
                ag.epochs,
                100.0 * ag.accuracy,
                ag.kappa
            )?;
            writeln!(out, "confusion (rows first scoring, columns second): {}", ag.labels.join(" "))?;
            for (name, row) in ag.labels.iter().zip(&ag.confusion) {
                writeln!(out, "  {name:<4} {}", row.iter().map(|c| format!("{c:>6}")).collect::<String>())?;
            }
            Ok(())
        }
    }
}

/// One channel of `file`, read whole, and the bands asked for (default: delta to beta).
fn channel_and_bands(file: &std::path::Path, a: &PowerArgs) -> Result<(crate::signal::ChannelData, Vec<(f64, f64)>)> {
    let (channel, band) = (&a.channel, &a.band);
    let rec = crate::signal::Recording::open(file)?;
    let c = rec.channel_index(channel).ok_or_else(|| anyhow!("{}: no channel '{channel}'", file.display()))?;
    let d = rec.read(&[c], 0.0, rec.duration_s()? + 1.0)?.remove(0);
    let bands: Vec<(f64, f64)> = if band.is_empty() {
        crate::signal::bands::to_beta()
    } else {
        band.iter().map(|b| super::spectrum::parse_band(b)).collect::<Result<_>>()?
    };
    Ok((d, bands))
}
