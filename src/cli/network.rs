//! `brainlens network …`: the Networks room's numbers from the command line.

use super::atlas_arg::atlas_of;
use super::{MetricsArgs, NetworkCommand};
use crate::network::Connectome;
use crate::network::atlas::{Atlas, write_node};
use crate::network::connectome::Asymmetry;
use crate::network::describe::describe;
use crate::network::io;
use crate::network::metrics::summary::{
    GraphMetrics, MetricsOptions, prepare, small_world_of, summarize, summarize_prepared,
};
use crate::network::smallworld::SmallWorldParams;
use crate::network::threshold;
use crate::network::threshold::Negatives;
use crate::network::timeseries;
use anyhow::{Result, bail};
use std::io::Write;
use std::sync::atomic::AtomicU64;

/// `network metrics COHORT.npz`: every subject's global metrics (the same options as for one matrix), a line
/// each, and the mean per label.
fn cohort_metrics(file: &std::path::Path, o: &MetricsOptions, json: bool, out: &mut dyn Write) -> Result<()> {
    let c = crate::network::cohort::file::read(file)?;
    let all = crate::network::cohort::metrics::of_cohort(&c, o);
    if json {
        return super::write_json(out, &serde_json::json!({"cohort": file.display().to_string(), "subjects": all}));
    }
    let f = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.4}"));
    writeln!(
        out,
        "{} subjects, {} regions, {} metrics",
        c.len(),
        c.r,
        if o.binary { "binary" } else { "weighted (normalised to max 1)" }
    )?;
    writeln!(
        out,
        "{:<24} {:<6} {:<10} {:>8} {:>10} {:>8} {:>8} {:>8}",
        "subject", "label", "site", "density", "clustering", "path", "effic.", "Q"
    )?;
    for s in &all {
        writeln!(
            out,
            "{:<24} {:<6} {:<10} {:>8} {:>10} {:>8} {:>8} {:>8}{}",
            s.id,
            s.label,
            s.site,
            f(s.density),
            f(s.mean_clustering),
            f(s.char_path_length),
            f(s.global_efficiency),
            f(s.modularity),
            s.skipped.as_deref().map(|r| format!("  skipped: {r}")).unwrap_or_default()
        )?;
    }
    for (label, _) in c.label_counts() {
        let of = |get: fn(&crate::network::cohort::metrics::SubjectMetrics) -> Option<f64>| {
            let v: Vec<f64> = all.iter().filter(|s| s.label == label).filter_map(get).collect();
            if v.is_empty() { None } else { Some(v.iter().sum::<f64>() / v.len() as f64) }
        };
        writeln!(
            out,
            "mean {label:<19} {:<17} {:>8} {:>10} {:>8} {:>8} {:>8}",
            "",
            f(of(|s| s.density)),
            f(of(|s| s.mean_clustering)),
            f(of(|s| s.char_path_length)),
            f(of(|s| s.global_efficiency)),
            f(of(|s| s.modularity))
        )?;
    }
    Ok(())
}

/// Runs a network subcommand.
pub fn run(cmd: NetworkCommand, out: &mut dyn Write) -> Result<()> {
    match cmd {
        NetworkCommand::Metrics(a) => metrics(a, out),
        NetworkCommand::Describe { file, threshold_proportional, atlas, smallworld, max_links, json } => {
            describe_command(&file, threshold_proportional, atlas.as_deref(), smallworld, max_links, json, out)
        }
        NetworkCommand::Export { file, out: target, threshold_proportional, atlas } => {
            export(&file, &target, threshold_proportional, atlas.as_deref(), out)
        }
        cmd @ NetworkCommand::Plot { .. } => super::network_plot::run(cmd, out),
        NetworkCommand::Open { file } => {
            bail!("{}: `network open` needs the GUI; run it as `brainlens network open FILE`", file.display())
        }
        cmd @ NetworkCommand::FromTimeseries { .. } => from_timeseries(cmd, out),
    }
}

/// `network metrics`: one connectome (or every subject of a cohort file).
fn metrics(a: MetricsArgs, out: &mut dyn Write) -> Result<()> {
    let MetricsArgs {
        file,
        threshold_proportional,
        threshold_absolute,
        binary,
        negatives,
        seed,
        gamma,
        consensus,
        local_efficiency,
        smallworld,
        smallworld_weighted,
        nrand,
        niter,
        atlas,
        symmetrize,
        directed,
        json,
    } = a;
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
    let asym = match (symmetrize, directed) {
        (true, _) => Asymmetry::Symmetrize,
        (_, true) => Asymmetry::Directed,
        _ => Asymmetry::Error,
    };
    let o = MetricsOptions {
        negatives,
        proportional: threshold_proportional,
        absolute: threshold_absolute,
        binary,
        gamma,
        seed,
        local_efficiency,
        consensus_runs: consensus,
    };
    if crate::network::cohort::file::is_cohort(&file) {
        return cohort_metrics(&file, &o, json, out);
    }
    let mut c = io::load(&file, asym)?;
    if let Some(labels) = atlas.map(|a| atlas_labels(&a, c.n, &file)).transpose()?.flatten() {
        c.labels = labels;
    }
    for f in &c.fixes {
        eprintln!("brainlens: {}: {f}", file.display());
    }
    let mut m = summarize(&c, &o);
    if smallworld || smallworld_weighted {
        let p = SmallWorldParams { niter, nrand: nrand.max(1), seed, weighted: smallworld_weighted };
        let report = small_world_of(&c, &o, &p, &AtomicU64::new(0), &crate::util::cancel::Cancel::default())
            .map_err(|e| anyhow::anyhow!("{}: σ/ω: {e}", file.display()))?;
        m.small_world = Some(report);
    }
    if json {
        return super::write_json(out, &m);
    }
    print_metrics(&m, seed, gamma, out)
}

/// The text form of `network metrics`: the graph-level values, then one row per node.
fn print_metrics(m: &GraphMetrics, seed: u32, gamma: f64, out: &mut dyn Write) -> Result<()> {
    writeln!(
        out,
        "{} nodes, {} metrics",
        m.n_nodes,
        if m.binary { "binary" } else { "weighted (normalised to max 1)" }
    )?;
    writeln!(out, "density            {:.6}", m.density)?;
    writeln!(out, "mean clustering    {:.6}", m.mean_clustering)?;
    writeln!(out, "transitivity       {:.6}", m.transitivity)?;
    match m.char_path_length {
        Some(l) => writeln!(out, "char. path length  {l:.6}")?,
        None => writeln!(out, "char. path length  inf (disconnected)")?,
    }
    writeln!(out, "global efficiency  {:.6}", m.global_efficiency)?;
    writeln!(out, "modularity Q       {:.6} ({} modules, Louvain seed {seed}, γ {gamma})", m.modularity, m.n_modules)?;
    if let Some(sw) = &m.small_world {
        writeln!(
            out,
            "small world        σ {:.4}, ω {:.4} ({} nodes, {} references)",
            sw.values.sigma, sw.values.omega, sw.nodes_used, sw.nrand
        )?;
    }
    writeln!(
        out,
        "{:<24} {:>7} {:>10} {:>10} {:>12} {:>6} {:>13}",
        "node", "degree", "strength", "clustering", "betweenness", "module", "participation"
    )?;
    for n in &m.nodes {
        writeln!(
            out,
            "{:<24} {:>7} {:>10.4} {:>10.4} {:>12.2} {:>6} {:>13.4}",
            n.label, n.degree, n.strength, n.clustering, n.betweenness, n.module, n.participation
        )?;
    }
    Ok(())
}

/// `network describe`: the multi-level description an agent reads.
fn describe_command(
    file: &std::path::Path,
    threshold_proportional: f64,
    atlas: Option<&str>,
    smallworld: bool,
    max_links: usize,
    json: bool,
    out: &mut dyn Write,
) -> Result<()> {
    if !(0.0..=1.0).contains(&threshold_proportional) {
        bail!("--threshold-proportional {threshold_proportional}: must be between 0 and 1");
    }
    let (c, atlas) = load_with_atlas(&file, atlas.as_deref())?;
    let o = MetricsOptions {
        proportional: (threshold_proportional < 1.0).then_some(threshold_proportional),
        ..Default::default()
    };
    let w = prepare(&c, &o);
    let m = summarize_prepared(&c, &w, &o);
    let sw = if smallworld {
        Some(
            small_world_of(
                &c,
                &o,
                &SmallWorldParams::default(),
                &AtomicU64::new(0),
                &crate::util::cancel::Cancel::default(),
            )
            .map_err(|e| anyhow::anyhow!("{}: σ/ω: {e}", file.display()))?,
        )
    } else {
        None
    };
    let d = describe(&c, &w, &m, atlas.as_ref(), sw.as_ref());
    if json {
        super::write_json(out, &d)?;
    } else {
        write!(out, "{}", d.to_text(max_links))?;
    }
    Ok(())
}

/// `network export`: the (thresholded) matrix as .csv, .npy or BrainNet .edge (+ .node).
fn export(
    file: &std::path::Path,
    target: &std::path::Path,
    threshold_proportional: Option<f64>,
    atlas: Option<&str>,
    out: &mut dyn Write,
) -> Result<()> {
    let (mut c, atlas) = load_with_atlas(&file, atlas.as_deref())?;
    if let Some(p) = threshold_proportional {
        if !(0.0..=1.0).contains(&p) {
            bail!("--threshold-proportional {p}: must be between 0 and 1");
        }
        c = c.with_weights(threshold::proportional(&c.w, c.n, p));
    }
    match target.extension().map(|e| e.to_string_lossy().to_lowercase()).as_deref() {
        Some("npy") => io::write_npy(&target, &c)?,
        Some("edge") => {
            io::write_edge(&target, &c)?;
            if let Some(a) = atlas.as_ref().filter(|a| a.coords.is_some()) {
                let m = summarize(&c, &MetricsOptions::default());
                let modules: Vec<usize> = m.nodes.iter().map(|x| x.module).collect();
                let strength: Vec<f64> = m.nodes.iter().map(|x| x.strength).collect();
                let node = target.with_extension("node");
                write_node(&node, a, &c.labels, &modules, &strength)?;
                writeln!(out, "wrote {}", node.display())?;
            }
        }
        Some("csv") | None => io::write_csv(&target, &c)?,
        Some(other) => {
            bail!("{}: unknown export format '.{other}' (use .csv, .npy or .edge)", target.display())
        }
    }
    writeln!(out, "wrote {}", target.display())?;
    Ok(())
}

/// `network from-timeseries`: a Pearson or partial correlation matrix of ROI time series.
fn from_timeseries(cmd: NetworkCommand, out: &mut dyn Write) -> Result<()> {
    let NetworkCommand::FromTimeseries { file, out: target, kind, atlas, transpose, first, count } = cmd else {
        bail!("from_timeseries takes `network from-timeseries` only");
    };
    let (mut rows, mut cols, mut x, _) = io::load_matrix(&file)?;
    if transpose {
        x = (0..cols * rows).map(|k| x[(k % rows) * cols + k / rows]).collect();
        std::mem::swap(&mut rows, &mut cols);
    }
    let count = count.unwrap_or(cols.saturating_sub(first));
    if first + count > cols || count == 0 {
        bail!("{}: window {first}..{} outside the {cols} time points", file.display(), first + count);
    }
    if first > 0 || count < cols {
        x = (0..rows).flat_map(|r| x[r * cols + first..r * cols + first + count].to_vec()).collect();
        cols = count;
    }
    if let Some(i) = x.iter().position(|v| !v.is_finite()) {
        bail!("{}: value at region {}, time {} is {}", file.display(), i / cols + 1, i % cols + 1, x[i]);
    }
    let fc = match kind.as_str() {
        "pearson" => timeseries::pearson(&x, rows, cols),
        "partial" => timeseries::partial(&x, rows, cols),
        other => bail!("--kind '{other}': use pearson or partial"),
    }
    .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    let labels = atlas.map(|a| atlas_labels(&a, rows, &file)).transpose()?.flatten();
    let c = Connectome::from_matrix(&file.display().to_string(), rows, rows, fc, labels, Asymmetry::Error)?;
    match target.extension().map(|e| e.to_string_lossy().to_lowercase()).as_deref() {
        Some("npy") => io::write_npy(&target, &c)?,
        _ => io::write_csv(&target, &c)?,
    }
    writeln!(out, "wrote {} ({rows} × {rows} {kind} correlation from {cols} time points)", target.display())?;
    Ok(())
}

/// Loads a symmetric connectome and, when given, the atlas whose labels replace the region names.
fn load_with_atlas(file: &std::path::Path, atlas: Option<&str>) -> Result<(Connectome, Option<Atlas>)> {
    let mut c = io::load(file, Asymmetry::Error)?;
    let atlas = match atlas {
        Some(spec) => {
            let a = atlas_of(spec, c.n, file)?;
            if let Some(a) = &a {
                c.labels = atlas_labels_of(a, c.n, file)?;
            }
            a
        }
        None => None,
    };
    Ok((c, atlas))
}

/// Labels of atlas `spec` for a matrix of `n` regions read from `file` (none when `auto` finds no atlas).
fn atlas_labels(spec: &str, n: usize, file: &std::path::Path) -> Result<Option<Vec<String>>> {
    atlas_of(spec, n, file)?.map(|a| atlas_labels_of(&a, n, file)).transpose()
}

fn atlas_labels_of(a: &Atlas, n: usize, file: &std::path::Path) -> Result<Vec<String>> {
    if a.len() != n {
        bail!("{}: {n} regions but atlas {} has {} labels", file.display(), a.name, a.len());
    }
    Ok(a.labels.clone())
}
