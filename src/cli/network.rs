//! `brainlens network …`: the Networks room's numbers from the command line.

use super::NetworkCommand;
use crate::network::connectome::Asymmetry;
use crate::network::io;
use crate::network::metrics::summary::{MetricsOptions, summarize};
use crate::network::threshold::Negatives;
use anyhow::{Result, bail};
use std::io::Write;

/// Runs a network subcommand.
pub fn run(cmd: NetworkCommand, out: &mut dyn Write) -> Result<()> {
    match cmd {
        NetworkCommand::Metrics { file, threshold_proportional, threshold_absolute, binary, negatives, seed, gamma, symmetrize, json } => {
            let negatives = match negatives.as_str() {
                "zero" => Negatives::Zero,
                "keep" => Negatives::Keep,
                "abs" => Negatives::Absolute,
                other => bail!("--negatives '{other}': use zero, keep or abs"),
            };
            if let Some(p) = threshold_proportional
                && !(0.0..=1.0).contains(&p)
            {
                bail!("--threshold-proportional {p}: must be between 0 and 1");
            }
            let c = io::load(&file, if symmetrize { Asymmetry::Symmetrize } else { Asymmetry::Error })?;
            for f in &c.fixes {
                eprintln!("brainlens: {}: {f}", file.display());
            }
            let o = MetricsOptions { negatives, proportional: threshold_proportional, absolute: threshold_absolute, binary, gamma, seed };
            let m = summarize(&c, &o);
            if json {
                serde_json::to_writer_pretty(&mut *out, &m)?;
                writeln!(out)?;
            } else {
                writeln!(out, "{} nodes, {} metrics", m.n_nodes, if m.binary { "binary" } else { "weighted (normalised to max 1)" })?;
                writeln!(out, "density            {:.6}", m.density)?;
                writeln!(out, "mean clustering    {:.6}", m.mean_clustering)?;
                writeln!(out, "transitivity       {:.6}", m.transitivity)?;
                match m.char_path_length {
                    Some(l) => writeln!(out, "char. path length  {l:.6}")?,
                    None => writeln!(out, "char. path length  inf (disconnected)")?,
                }
                writeln!(out, "global efficiency  {:.6}", m.global_efficiency)?;
                writeln!(out, "modularity Q       {:.6} ({} modules, Louvain seed {seed}, γ {gamma})", m.modularity, m.n_modules)?;
                writeln!(out, "{:<24} {:>7} {:>10} {:>10} {:>12} {:>6} {:>13}", "node", "degree", "strength", "clustering", "betweenness", "module", "participation")?;
                for n in &m.nodes {
                    writeln!(
                        out,
                        "{:<24} {:>7} {:>10.4} {:>10.4} {:>12.2} {:>6} {:>13.4}",
                        n.label, n.degree, n.strength, n.clustering, n.betweenness, n.module, n.participation
                    )?;
                }
            }
            Ok(())
        }
    }
}
