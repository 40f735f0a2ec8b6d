//! `brainlens network plot`: the Networks room's figures (glass brain, circle, matrix) written headless as
//! PNG/SVG, with their layout as JSON (where each panel's data frame and each node landed, in pixels).

use super::NetworkCommand;
use crate::network::connectome::Asymmetry;
use crate::network::io;
use crate::network::metrics::summary::{MetricsOptions, prepare, summarize_prepared};
use crate::network::plot::matrix::Order;
use crate::network::plot::{Figure, Input, NodeColour, NodeValue, Style, circle, glass, matrix};
use crate::util::chart::{png, svg};
use anyhow::{Context, Result, bail};
use serde_json::json;
use std::io::Write;

/// `95%` or `95` → 95.
fn percentile(s: &str) -> Result<f64> {
    let v: f64 =
        s.trim().trim_end_matches('%').trim().parse().with_context(|| {
            format!("--edge-threshold '{s}': give a percentile such as 95% (nilearn's edge_threshold)")
        })?;
    if !(0.0..=100.0).contains(&v) {
        bail!("--edge-threshold '{s}': the percentile must be between 0 and 100");
    }
    Ok(v)
}

/// Runs `network plot`.
pub fn run(cmd: NetworkCommand, out: &mut dyn Write) -> Result<()> {
    let NetworkCommand::Plot {
        file,
        view,
        atlas,
        threshold_proportional,
        edge_threshold,
        node_size,
        node_colour,
        display_mode,
        order,
        height,
        scale,
        png: png_out,
        svg: svg_out,
        json,
    } = cmd
    else {
        bail!("not a plot command")
    };
    if png_out.is_none() && svg_out.is_none() && !json {
        bail!("network plot: give --png FILE, --svg FILE and/or --json");
    }
    if !(0.0..=1.0).contains(&threshold_proportional) || threshold_proportional == 0.0 {
        bail!("--threshold-proportional {threshold_proportional}: must be in (0, 1]");
    }
    let style = Style {
        node_size: NodeValue::parse(&node_size)?,
        node_colour: NodeColour::parse(&node_colour)?,
        edge_percentile: percentile(&edge_threshold)?,
        display_mode,
        height,
        ..Style::default()
    };
    let mut c = io::load(&file, Asymmetry::Error)?;
    let atlas = super::atlas_arg::atlas_of(&atlas, c.n, &file)?;
    if let Some(a) = &atlas {
        if a.len() != c.n {
            bail!("{}: {} regions but atlas {} has {}", file.display(), c.n, a.name, a.len());
        }
        c.labels = a.labels.clone();
    }
    let options = MetricsOptions {
        proportional: (threshold_proportional < 1.0).then_some(threshold_proportional),
        ..Default::default()
    };
    let prepared = prepare(&c, &options);
    let metrics = summarize_prepared(&c, &prepared, &options);
    let input = Input { n: c.n, weights: &prepared, metrics: &metrics, atlas: atlas.as_ref() };
    let figure: Figure = match view.as_str() {
        "glass" => glass::draw(&input, &style),
        "circle" => circle::draw(&input, &style),
        "matrix" => {
            let rows = match order.as_str() {
                "atlas" => Order::Atlas,
                "module" => Order::Module,
                "network" => Order::Network,
                other => bail!("--order '{other}': use atlas, module or network"),
            };
            matrix::draw(&input, &style, rows, 1.0)
        }
        other => bail!("--view '{other}': use glass, circle or matrix"),
    }
    .with_context(|| format!("{}: {view} view", file.display()))?;
    if let Some(p) = &svg_out {
        std::fs::write(p, svg::scene(&figure.scene)).with_context(|| format!("{}: cannot write", p.display()))?;
    }
    if let Some(p) = &png_out {
        let bytes = png::render(&figure.scene, scale).with_context(|| format!("{}: {view} view", p.display()))?;
        std::fs::write(p, bytes).with_context(|| format!("{}: cannot write", p.display()))?;
    }
    if json {
        let nodes: Vec<_> = figure
            .marks
            .iter()
            .map(|m| json!({"node": m.node, "label": c.labels[m.node], "panel": m.panel, "x": m.at[0], "y": m.at[1], "r": m.r}))
            .collect();
        let v = json!({
            "file": file.display().to_string(),
            "view": view,
            "atlas": atlas.as_ref().map(|a| a.name.clone()),
            "width": figure.scene.width,
            "height": figure.scene.height,
            "png_scale": scale,
            "edges": figure.edges,
            "notes": figure.notes,
            "panels": figure.panels,
            "nodes": nodes,
            "png": png_out.as_ref().map(|p| p.display().to_string()),
            "svg": svg_out.as_ref().map(|p| p.display().to_string()),
        });
        super::write_json(out, &v)?;
    } else {
        for p in png_out.iter().chain(&svg_out) {
            writeln!(out, "wrote {}", p.display())?;
        }
        for n in &figure.notes {
            writeln!(out, "{n}")?;
        }
    }
    Ok(())
}
