//! `brainlens network plot`: the Networks room's figures (glass brain, circle, matrix) written headless as
//! PNG/SVG, with their layout as JSON (where each panel's data frame and each node landed, in pixels).

use super::NetworkCommand;
use crate::network::connectome::Asymmetry;
use crate::network::io;
use crate::network::metrics::summary::{MetricsOptions, prepare, summarize_prepared};
use crate::network::plot::brain3d::{self, Camera, Mesh};
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
        surface,
        camera,
        azimuth,
        elevation,
        zoom,
        gif,
        frames,
        png: png_out,
        svg: svg_out,
        json,
    } = cmd
    else {
        bail!("not a plot command")
    };
    if png_out.is_none() && svg_out.is_none() && gif.is_none() && !json {
        bail!("network plot: give --png FILE, --svg FILE, --gif FILE (3d) and/or --json");
    }
    if gif.is_some() && view != "3d" {
        bail!("--gif: only the 3d view turns; use --png or --svg for the {view} view");
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
        "3d" => {
            if svg_out.is_some() {
                bail!("--svg: the 3-D view is pixels; write it with --png or --gif");
            }
            let mut cam = Camera::default().preset(&camera)?;
            cam.azimuth = azimuth.unwrap_or(cam.azimuth);
            cam.elevation = elevation.unwrap_or(cam.elevation);
            cam.zoom = zoom;
            let view3d = View3d { input: &input, style: &style, camera: cam, surface: &surface, scale };
            view3d.write(png_out.as_deref(), gif.as_deref(), frames)
        }
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
        other => bail!("--view '{other}': use glass, 3d, circle or matrix"),
    }
    .with_context(|| format!("{}: {view} view", file.display()))?;
    if let Some(p) = &svg_out {
        std::fs::write(p, svg::scene(&figure.scene)).with_context(|| format!("{}: cannot write", p.display()))?;
    }
    if let Some(p) = png_out.as_ref().filter(|_| view != "3d") {
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
        for p in png_out.iter().chain(&svg_out).chain(&gif) {
            writeln!(out, "wrote {}", p.display())?;
        }
        for n in &figure.notes {
            writeln!(out, "{n}")?;
        }
    }
    Ok(())
}

/// The 3-D view of one plot command.
struct View3d<'a> {
    input: &'a Input<'a>,
    style: &'a Style,
    camera: Camera,
    surface: &'a str,
    scale: f32,
}

impl View3d<'_> {
    /// Renders the PNG (at `scale`) and the turning GIF (at 1×) and returns the figure (marks at 1×).
    fn write(
        &self,
        png_out: Option<&std::path::Path>,
        gif: Option<&std::path::Path>,
        frames: usize,
    ) -> crate::network::error::Result<Figure> {
        let (mesh, name) = brain3d::load_mesh(self.surface)?;
        let (w, h) = ((self.style.height * 1.3).round() as u32, self.style.height.round() as u32);
        let sc = self.scale.max(0.1);
        let frame = brain3d::render(
            self.input,
            self.style,
            &mesh,
            &self.camera,
            (w as f32 * sc) as u32,
            (h as f32 * sc) as u32,
        )?;
        if let Some(p) = png_out {
            image::save_buffer(p, &frame.rgba, frame.width, frame.height, image::ExtendedColorType::Rgba8).map_err(
                |e| crate::network::error::NetworkError::Invalid(format!("{}: cannot write the PNG: {e}", p.display())),
            )?;
        }
        if let Some(p) = gif {
            let t = std::time::Instant::now();
            write_gif(p, self, &mesh, w, h, frames.max(1))?;
            let _ = writeln!(
                std::io::stderr(),
                "brainlens: {}: {} frames in {:.2} s",
                p.display(),
                frames.max(1),
                t.elapsed().as_secs_f64()
            );
        }
        let mut figure = brain3d::figure_of(&frame, &name);
        for m in &mut figure.marks {
            (m.at, m.r) = ([m.at[0] / sc, m.at[1] / sc], m.r / sc);
        }
        (figure.scene.width, figure.scene.height) = (w as f32, h as f32);
        Ok(figure)
    }
}

/// One turn about the vertical axis from the camera's azimuth, `frames` frames of `w` × `h`, 50 ms each.
fn write_gif(
    path: &std::path::Path,
    v: &View3d,
    mesh: &Mesh,
    w: u32,
    h: u32,
    frames: usize,
) -> crate::network::error::Result<()> {
    use crate::network::error::NetworkError;
    let fail = |e: String| NetworkError::Invalid(format!("{}: cannot write the GIF: {e}", path.display()));
    let file = std::fs::File::create(path).map_err(|e| fail(e.to_string()))?;
    let mut enc = image::codecs::gif::GifEncoder::new_with_speed(std::io::BufWriter::new(file), 30);
    enc.set_repeat(image::codecs::gif::Repeat::Infinite).map_err(|e| fail(e.to_string()))?;
    for k in 0..frames {
        let cam = Camera { azimuth: v.camera.azimuth + 360.0 * k as f32 / frames as f32, ..v.camera };
        let f = brain3d::render(v.input, v.style, mesh, &cam, w, h)?;
        let img = image::RgbaImage::from_raw(f.width, f.height, f.rgba).ok_or_else(|| fail("frame size".into()))?;
        let frame = image::Frame::from_parts(img, 0, 0, image::Delay::from_numer_denom_ms(50, 1));
        enc.encode_frame(frame).map_err(|e| fail(e.to_string()))?;
    }
    Ok(())
}
