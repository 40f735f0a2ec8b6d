//! `info`, `samples`, `annotations`: the Recordings room's file facts from the command line.

use crate::signal::Recording;
use crate::signal::edf::Annotation;
use crate::signal::filter::display::DisplayFilter;
use crate::signal::info::file_info;
use crate::signal::montage::{Montage, double_banana, parse_chain};
use crate::signal::page::{Trace, compute_page};
use anyhow::{Context, Result};
use std::io::Write;
use std::path::Path;

/// `brainlens info FILE`.
pub fn info(file: &Path, json: bool, out: &mut dyn Write) -> Result<()> {
    let rec = Recording::open(file)?;
    let info = file_info(&rec)?;
    if json {
        super::write_json(out, &info)?;
        return Ok(());
    }
    let opt = |v: Option<String>| v.unwrap_or_else(|| "–".into());
    writeln!(out, "{}  {}", info.path, info.format)?;
    writeln!(out, "start      {}", info.start)?;
    match (info.record_count, info.record_duration_s) {
        (Some(n), Some(d)) => writeln!(out, "records    {n} × {d} s = {} s", info.duration_s)?,
        _ => writeln!(out, "duration   {} s", info.duration_s)?,
    }
    writeln!(out, "patient    {}", info.patient)?;
    writeln!(out, "recording  {}", info.recording)?;
    writeln!(out, "annotations {}", info.annotation_count)?;
    if !info.bads.is_empty() {
        writeln!(out, "bad        {}", info.bads.join(", "))?;
    }
    writeln!(
        out,
        "{:<16} {:>9} {:<8} {:>12} {:>12} {:>9} {:>9}  prefilter",
        "label", "rate Hz", "unit", "phys min", "phys max", "dig min", "dig max"
    )?;
    for c in &info.channels {
        writeln!(
            out,
            "{:<16} {:>9} {:<8} {:>12} {:>12} {:>9} {:>9}  {}",
            c.label,
            c.sample_rate,
            c.physical_dimension,
            opt(c.physical_min.map(|v| v.to_string())),
            opt(c.physical_max.map(|v| v.to_string())),
            opt(c.digital_min.map(|v| v.to_string())),
            opt(c.digital_max.map(|v| v.to_string())),
            c.prefilter
        )?;
    }
    if !info.repairs.is_empty() {
        writeln!(out, "repairs:")?;
        for r in &info.repairs {
            writeln!(out, "  {r}")?;
        }
    }
    Ok(())
}

/// `brainlens samples FILE --channel LABEL`.
pub fn samples(
    file: &Path,
    channel: &str,
    start: f64,
    duration: Option<f64>,
    json: bool,
    out: &mut dyn Write,
) -> Result<()> {
    let rec = Recording::open(file)?;
    let c = rec.channel_index(channel).with_context(|| {
        let labels: Vec<&str> = rec.channels().iter().map(|c| c.label.as_str()).collect();
        format!("{}: no channel '{channel}'; channels are: {}", file.display(), labels.join(", "))
    })?;
    if !start.is_finite() || duration.is_some_and(|d| !d.is_finite() || d < 0.0) {
        anyhow::bail!("--start and --duration must be finite, --duration not negative");
    }
    let duration = duration.unwrap_or(f64::INFINITY);
    let data = rec.read(&[c], start, duration)?.remove(0);
    if json {
        serde_json::to_writer(&mut *out, &data)?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "# {} at {} Hz, {} samples in {} segment(s)",
            rec.channels()[c].label,
            data.sample_rate,
            data.values.len(),
            data.segments.len()
        )?;
        for v in &data.values {
            writeln!(out, "{v}")?;
        }
    }
    Ok(())
}

/// `brainlens annotations FILE`.
pub fn annotations(file: &Path, json: bool, out: &mut dyn Write) -> Result<()> {
    let rec = Recording::open(file)?;
    let list: &[Annotation] = rec.annotations()?;
    if json {
        super::write_json(out, list)?;
    } else {
        for a in list {
            let d = a.duration_s.map_or(String::from("-"), |d| d.to_string());
            writeln!(out, "{:>12.6}  {:>10}  {}", a.onset_s, d, a.text)?;
        }
    }
    Ok(())
}

/// Parses `--montage`: as-recorded, average, double-banana, or pairs "Fp1-F3,F3-C3".
pub fn parse_montage(text: &str, rec: &Recording) -> Result<Montage> {
    Ok(match text.trim() {
        "as-recorded" | "" => Montage::AsRecorded,
        "average" => Montage::AverageReference,
        "double-banana" => Montage::Bipolar(
            double_banana(rec.channels())
                .with_context(|| format!("{}: too few 10-20 labels for the double banana", rec.path().display()))?,
        ),
        pairs => Montage::Bipolar(parse_chain(pairs).map_err(anyhow::Error::msg)?),
    })
}

/// `brainlens page FILE`: the traces the Recordings room draws.
pub fn page(
    file: &Path,
    start: f64,
    duration: f64,
    montage: &str,
    filter: &DisplayFilter,
    json: bool,
    out: &mut dyn Write,
) -> Result<()> {
    if !start.is_finite() || !duration.is_finite() || duration <= 0.0 {
        anyhow::bail!("--start must be finite and --duration positive");
    }
    let rec = Recording::open(file)?;
    let (derivations, errors) = parse_montage(montage, &rec)?.derivations(rec.channels());
    if derivations.is_empty() {
        anyhow::bail!("{}: montage has no derivations: {}", file.display(), errors.join("; "));
    }
    for e in &errors {
        eprintln!("brainlens: warning: {e}");
    }
    let traces = compute_page(&rec, &derivations, filter, start, duration)?;
    if json {
        // Serialised straight from the traces: no JSON tree of every sample in memory.
        #[derive(serde::Serialize)]
        struct Page<'a> {
            start_s: f64,
            duration_s: f64,
            traces: &'a [Trace],
        }
        serde_json::to_writer(&mut *out, &Page { start_s: start, duration_s: duration, traces: &traces })?;
        writeln!(out)?;
    } else {
        for t in &traces {
            let n: usize = t.runs.iter().map(|r| r.values.len()).sum();
            writeln!(out, "{:<20} {:>8} Hz  {n} samples", t.label, t.sample_rate)?;
        }
    }
    Ok(())
}
