//! `brainlens connectivity FILE --method corr|coh|plv|wpli [--band LO-HI] --out M.csv`: a channel ×
//! channel matrix the Networks room opens; with `--positions` (channel,x_m,y_m,z_m, as MNE exports) an atlas
//! beside it (`M.atlas.csv`, millimetres) gives the nodes their electrode positions.

use super::spectrum::parse_band;
use super::write_json;
use crate::network::Connectome;
use crate::network::io::{write_csv, write_npy};
use crate::signal::Recording;
use crate::signal::connectivity::{Method, connectivity};
use crate::signal::spectrum::WelchParams;
use anyhow::{Context, Result, anyhow, bail};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, clap::Args)]
pub struct ConnectivityArgs {
    /// corr, coh (scipy coherence), plv or wpli.
    #[arg(long)]
    pub method: String,
    /// Band LO-HI in Hz (coh, plv, wpli).
    #[arg(long)]
    pub band: Option<String>,
    /// Channel labels, comma-separated (default: every channel at the first channel's rate).
    #[arg(long, value_delimiter = ',')]
    pub channels: Vec<String>,
    /// Seconds from the start.
    #[arg(long, default_value_t = 0.0)]
    pub start: f64,
    /// Seconds to use (default: to the end).
    #[arg(long)]
    pub duration: Option<f64>,
    /// Coherence segment length in samples (default 256).
    #[arg(long)]
    pub nperseg: Option<usize>,
    /// Electrode positions CSV (channel,x_m,y_m,z_m) → an atlas with node coordinates beside the matrix.
    #[arg(long)]
    pub positions: Option<PathBuf>,
    /// Output matrix (.csv with channel labels, or .npy).
    #[arg(long)]
    pub out: PathBuf,
    #[arg(long)]
    pub json: bool,
}

pub fn run(file: &Path, a: &ConnectivityArgs, out: &mut dyn Write) -> Result<()> {
    let method = Method::parse(&a.method).map_err(|e| anyhow!(e))?;
    let band = a.band.as_deref().map(parse_band).transpose()?;
    let rec = Recording::open(file)?;
    let positions =
        a.positions.as_deref().map(crate::signal::topomap::load_positions).transpose().map_err(|e| anyhow!(e))?;
    let chans: Vec<usize> = if a.channels.is_empty() {
        // Every channel at the first channel's rate; with positions, those that have one (not EOG/ECG).
        let fs0 = rec.channels().first().map(|c| c.sample_rate).context("no signal channels")?;
        (0..rec.channels().len())
            .filter(|&c| rec.channels()[c].sample_rate == fs0)
            .filter(|&c| positions.as_ref().is_none_or(|p| p.iter().any(|(l, _)| *l == rec.channels()[c].label)))
            .collect()
    } else {
        super::spectrum::resolve_channels(&rec, file, &a.channels)?
    };
    let fs = rec.channels()[chans[0]].sample_rate;
    if chans.iter().any(|&c| rec.channels()[c].sample_rate != fs) {
        bail!("{}: the channels have different sampling rates", file.display());
    }
    let total = rec.duration_s()?;
    let dur = a.duration.unwrap_or(total - a.start);
    let data: Vec<Vec<f64>> = rec.read(&chans, a.start, dur)?.into_iter().map(|d| d.values).collect();
    let welch = WelchParams { nperseg: a.nperseg, ..Default::default() };
    let m = connectivity(&data, fs, method, band, &welch).map_err(|e| anyhow!("{}: {e}", file.display()))?;
    let labels: Vec<String> = chans.iter().map(|&c| rec.channels()[c].label.clone()).collect();
    let c = Connectome { n: chans.len(), w: m.clone(), labels: labels.clone(), directed: false, fixes: Vec::new() };
    match a.out.extension().map(|e| e.to_string_lossy().to_lowercase()).as_deref() {
        Some("npy") => write_npy(&a.out, &c)?,
        _ => write_csv(&a.out, &c)?,
    }
    if let (Some(p), Some(pos)) = (&a.positions, &positions) {
        let xyz = labels
            .iter()
            .map(|l| {
                pos.iter()
                    .find(|(name, _)| name == l)
                    .map(|(_, x)| *x)
                    .with_context(|| format!("{}: no position for {l}", p.display()))
            })
            .collect::<Result<Vec<_>>>()?;
        crate::network::atlas::write_electrode_atlas(&a.out, &labels, &xyz)?;
    }
    if a.json {
        return write_json(
            out,
            &serde_json::json!({"method": method, "band": band, "channels": labels, "matrix": m, "written": a.out}),
        );
    }
    writeln!(out, "{} × {} {:?} matrix written to {}", labels.len(), labels.len(), method, a.out.display())?;
    Ok(())
}
