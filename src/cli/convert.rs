//! `brainlens convert FILE --out OUT`: any recording to EDF+/BDF+ (`.edf`/`.bdf`: EDF/BDF sources keep their
//! samples bit for bit; other formats become BDF+ at 24 bits) or BrainVision (`.vhdr`: `--samples float32`,
//! or `int16` with `--resolution` or each channel's own), annotations included.

use crate::signal::Recording;
use crate::signal::brainvision::writer::{BvSamples, write_brainvision};
use crate::signal::edf::save::save_with_annotations;
use anyhow::{Result, bail};
use std::io::Write;
use std::path::Path;

pub fn run(file: &Path, out_path: &Path, samples: &str, resolution: Option<f64>, out: &mut dyn Write) -> Result<()> {
    let rec = Recording::open(file)?;
    let annotations = rec.annotations()?.to_vec();
    let ext = out_path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    match ext.as_str() {
        "vhdr" => {
            let s = match samples {
                "float32" => BvSamples::Float32,
                "int16" => BvSamples::Int16(resolution),
                other => bail!("--samples {other}: float32 or int16"),
            };
            write_brainvision(&rec, &annotations, out_path, s)?;
        }
        "edf" if rec.edf().is_none() => bail!(
            "{}: {} is written as BDF+ (24-bit, so no precision is lost): name the output .bdf",
            file.display(),
            rec.format_name()
        ),
        "edf" | "bdf" => save_with_annotations(&rec, &annotations, out_path)?,
        other => bail!("{}: write .edf, .bdf or .vhdr (not .{other})", out_path.display()),
    }
    writeln!(
        out,
        "{} ({}) → {}: {} channels, {} annotations",
        file.display(),
        rec.format_name(),
        out_path.display(),
        rec.channels().len(),
        annotations.len()
    )?;
    Ok(())
}
