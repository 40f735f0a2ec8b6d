//! Stacked traces with time axis, labels, 1-s and 30-s grids, gaps, annotation markers and the cursor
//! readout; keyboard and mouse navigation (PgUp/PgDn, arrows, +/-, wheel, double-click to annotate).

use super::view::{POINTS_PER_MM, to_microvolts};
use super::{Cmd, OpenRecording};
use crate::signal::edf::Annotation;
use crate::ui::widgets::trace_raster::{RowSpec, rasterize};
use egui::{Color32, Rect, Sense, Stroke, pos2, vec2};

/// Width of the channel-label column in points.
const LABEL_WIDTH: f32 = 96.0;
/// Height of the time axis under the traces.
const AXIS_HEIGHT: f32 = 18.0;

/// "hh:mm:ss.s" for seconds from the start.
pub fn clock(t: f64) -> String {
    let t = t.max(0.0);
    let h = (t / 3600.0).floor();
    let m = ((t - h * 3600.0) / 60.0).floor();
    let s = t - h * 3600.0 - m * 60.0;
    format!("{:02}:{:02}:{:04.1}", h as u64, m as u64, s)
}

/// The traces of the current page as a texture the size of `plot` in physical pixels, re-rasterised only
/// when the page, gains, channel selection, size or colour changed.
fn trace_texture(
    ctx: &egui::Context,
    o: &mut OpenRecording,
    shown: &[usize],
    plot: Rect,
    color: Color32,
) -> egui::TextureId {
    let ppp = ctx.pixels_per_point();
    let (w, h) = ((plot.width() * ppp).round().max(1.0) as usize, (plot.height() * ppp).round().max(1.0) as usize);
    let key = RasterKey {
        page: o.page_generation,
        sensitivity: o.view.sensitivity,
        gain: o.view.gain.clone(),
        shown: shown.to_vec(),
        size: [w, h],
        color,
    };
    if let Some((k, tex)) = &o.trace_texture
        && *k == key
    {
        return tex.id();
    }
    let row_px = h as f32 / shown.len().max(1) as f32;
    let rows: Vec<RowSpec> = shown
        .iter()
        .enumerate()
        .filter_map(|(row, &d)| {
            let t = o.traces.get(d)?;
            let points_per_unit = POINTS_PER_MM / o.view.sensitivity * to_microvolts(&t.unit) * o.view.gain[d];
            Some(RowSpec {
                runs: t.runs.iter().map(|r| (r.onset_s, r.values.as_slice())).collect(),
                sample_rate: t.sample_rate,
                y_center: (row as f32 + 0.5) * row_px,
                px_per_unit: points_per_unit as f32 * ppp,
            })
        })
        .collect();
    let image = rasterize(w, h, o.view.start_s, o.view.page_s, &rows, color);
    let tex = match o.trace_texture.take() {
        Some((_, mut tex)) => {
            tex.set(image, egui::TextureOptions::NEAREST);
            tex
        }
        None => ctx.load_texture("traces", image, egui::TextureOptions::NEAREST),
    };
    let id = tex.id();
    o.trace_texture = Some((key, tex));
    id
}

/// What the trace texture depends on.
#[derive(Debug, Clone, PartialEq)]
pub struct RasterKey {
    page: u64,
    sensitivity: f64,
    gain: Vec<f64>,
    shown: Vec<usize>,
    size: [usize; 2],
    color: Color32,
}

/// Draws the trace area and collects navigation and annotation commands.
pub fn show(ui: &mut egui::Ui, o: &mut OpenRecording, cmds: &mut Vec<Cmd>) {
    keyboard(ui, cmds);
    let (rect, response) = ui.allocate_exact_size(ui.available_size(), Sense::click_and_drag());
    if response.hovered() {
        let dy: f32 = ui.input(|i| {
            i.events.iter().map(|e| if let egui::Event::MouseWheel { delta, .. } = e { delta.y } else { 0.0 }).sum()
        });
        if dy != 0.0 {
            cmds.push(Cmd::PageBy(-(dy as f64).signum() * 0.1));
        }
    }
    let painter = ui.painter_at(rect);
    let visuals = ui.visuals().clone();
    painter.rect_filled(rect, 0.0, visuals.extreme_bg_color);
    let plot = Rect::from_min_max(
        pos2(rect.left() + LABEL_WIDTH, rect.top()),
        pos2(rect.right(), rect.bottom() - AXIS_HEIGHT),
    );
    let (t0, page) = (o.view.start_s, o.view.page_s);
    let x_of = |t: f64| plot.left() + ((t - t0) / page) as f32 * plot.width();
    let grid = visuals.widgets.noninteractive.bg_stroke.color;
    let text_color = visuals.text_color();

    // Gaps (EDF+D): shade the parts of the page no record covers.
    let covered: Vec<(f64, f64)> = o.traces.first().map_or(vec![], |t| {
        t.runs.iter().map(|r| (r.onset_s, r.onset_s + r.values.len() as f64 / t.sample_rate)).collect()
    });
    let mut cursor_t = t0;
    for &(a, b) in covered.iter().chain(std::iter::once(&(t0 + page, t0 + page))) {
        if a > cursor_t + 1e-9 {
            let r = Rect::from_min_max(pos2(x_of(cursor_t), plot.top()), pos2(x_of(a.min(t0 + page)), plot.bottom()));
            painter.rect_filled(r, 0.0, visuals.faint_bg_color.gamma_multiply(2.0));
            painter.text(r.center(), egui::Align2::CENTER_CENTER, "gap", egui::FontId::proportional(12.0), grid);
        }
        cursor_t = cursor_t.max(b);
    }

    // Grids: seconds (pages up to 30 s) and 30-s epochs.
    if page <= 30.0 {
        let mut s = t0.ceil();
        while s < t0 + page {
            painter.vline(x_of(s), plot.y_range(), Stroke::new(0.5, grid.gamma_multiply(0.5)));
            s += 1.0;
        }
    }
    if o.view.epoch_grid {
        let mut e = (t0 / 30.0).ceil() * 30.0;
        while e <= t0 + page {
            painter.vline(x_of(e), plot.y_range(), Stroke::new(1.5, visuals.selection.bg_fill));
            painter.text(
                pos2(x_of(e) + 3.0, plot.top() + 14.0),
                egui::Align2::LEFT_TOP,
                format!("epoch {}", (e / 30.0) as u64 + 1),
                egui::FontId::proportional(11.0),
                visuals.selection.bg_fill,
            );
            e += 30.0;
        }
    }
    time_axis(&painter, plot, rect, t0, page, text_color, &x_of);

    let shown = o.view.shown();
    let n = shown.len().max(1);
    let row_h = plot.height() / n as f32;
    let trace_color = if visuals.dark_mode { Color32::from_rgb(150, 210, 255) } else { Color32::from_rgb(20, 40, 140) };
    for (row, &d) in shown.iter().enumerate() {
        if let Some(trace) = o.traces.get(d) {
            let yc = plot.top() + (row as f32 + 0.5) * row_h;
            painter.text(
                pos2(rect.left() + 4.0, yc),
                egui::Align2::LEFT_CENTER,
                &trace.label,
                egui::FontId::monospace(11.0),
                text_color,
            );
        }
    }
    let texture = trace_texture(ui.ctx(), o, &shown, plot, trace_color);
    painter.image(texture, plot, Rect::from_min_max(pos2(0.0, 0.0), pos2(1.0, 1.0)), Color32::WHITE);
    let clip = painter.with_clip_rect(plot);
    annotations(&clip, plot, o.annotations.items(), o.selected_annotation, t0, page, &x_of, &visuals);

    o.cursor = None;
    if let Some(p) = response.hover_pos().filter(|p| plot.contains(*p)) {
        let t = t0 + ((p.x - plot.left()) / plot.width()) as f64 * page;
        let row = (((p.y - plot.top()) / row_h) as usize).min(n - 1);
        clip.vline(p.x, plot.y_range(), Stroke::new(0.5, text_color.gamma_multiply(0.5)));
        if let Some(trace) = shown.get(row).and_then(|&d| o.traces.get(d)) {
            let value = trace.runs.iter().find_map(|r| {
                let i = ((t - r.onset_s) * trace.sample_rate).round();
                (i >= 0.0 && (i as usize) < r.values.len()).then(|| r.values[i as usize] as f64)
            });
            if let Some(v) = value {
                o.cursor = Some((t, trace.label.clone(), v, trace.unit.clone()));
            }
        }
        if response.double_clicked() {
            let text = if o.new_annotation_text.trim().is_empty() {
                "Event".to_string()
            } else {
                o.new_annotation_text.clone()
            };
            cmds.push(Cmd::AddAnnotation(Annotation {
                onset_s: (t * 1000.0).round() / 1000.0,
                duration_s: None,
                text,
            }));
        }
    }
    if let Some(e) = &o.page_error {
        painter.text(
            plot.center(),
            egui::Align2::CENTER_CENTER,
            e,
            egui::FontId::proportional(14.0),
            visuals.error_fg_color,
        );
    }
}

fn keyboard(ui: &egui::Ui, cmds: &mut Vec<Cmd>) {
    if ui.ctx().egui_wants_keyboard_input() {
        return;
    }
    ui.input(|i| {
        let step = if i.modifiers.shift { 0.5 } else { 0.1 };
        for (key, cmd) in [
            (egui::Key::PageDown, Cmd::PageBy(1.0)),
            (egui::Key::PageUp, Cmd::PageBy(-1.0)),
            (egui::Key::ArrowRight, Cmd::PageBy(step)),
            (egui::Key::ArrowLeft, Cmd::PageBy(-step)),
            (egui::Key::Plus, Cmd::StepSensitivity(1)),
            (egui::Key::Equals, Cmd::StepSensitivity(1)),
            (egui::Key::Minus, Cmd::StepSensitivity(-1)),
        ] {
            if i.key_pressed(key) {
                cmds.push(cmd);
            }
        }
        if i.modifiers.command && i.key_pressed(egui::Key::Z) {
            cmds.push(if i.modifiers.shift { Cmd::Redo } else { Cmd::Undo });
        }
        if i.modifiers.command && i.key_pressed(egui::Key::Y) {
            cmds.push(Cmd::Redo);
        }
    });
}

fn time_axis(
    painter: &egui::Painter,
    plot: Rect,
    rect: Rect,
    t0: f64,
    page: f64,
    color: Color32,
    x_of: &dyn Fn(f64) -> f32,
) {
    let step = [1.0, 2.0, 5.0, 10.0, 15.0, 30.0].into_iter().find(|s| page / s <= 12.0).unwrap_or(60.0);
    let mut s = (t0 / step).ceil() * step;
    while s <= t0 + page + 1e-9 {
        painter.text(
            pos2(x_of(s), rect.bottom() - 2.0),
            egui::Align2::CENTER_BOTTOM,
            clock(s),
            egui::FontId::proportional(11.0),
            color,
        );
        s += step;
    }
    painter.hline(plot.x_range(), plot.bottom(), Stroke::new(1.0, color.gamma_multiply(0.4)));
}

#[allow(clippy::too_many_arguments)]
fn annotations(
    painter: &egui::Painter,
    plot: Rect,
    items: &[Annotation],
    selected: Option<usize>,
    t0: f64,
    page: f64,
    x_of: &dyn Fn(f64) -> f32,
    visuals: &egui::Visuals,
) {
    let color = Color32::from_rgb(240, 160, 40);
    for (i, a) in items.iter().enumerate() {
        let end = a.onset_s + a.duration_s.unwrap_or(0.0);
        if end < t0 || a.onset_s > t0 + page {
            continue;
        }
        let x = x_of(a.onset_s);
        let width = if selected == Some(i) { 2.5 } else { 1.0 };
        if let Some(d) = a.duration_s.filter(|d| *d > 0.0) {
            let r = Rect::from_min_max(pos2(x, plot.top()), pos2(x_of(a.onset_s + d), plot.bottom()));
            painter.rect_filled(r, 0.0, color.gamma_multiply(0.08));
        }
        painter.vline(x, plot.y_range(), Stroke::new(width, color));
        let galley = painter.layout_no_wrap(a.text.clone(), egui::FontId::proportional(11.0), color);
        let bg = Rect::from_min_size(pos2(x + 2.0, plot.top() + 1.0), galley.size() + vec2(4.0, 2.0));
        painter.rect_filled(bg, 2.0, visuals.extreme_bg_color.gamma_multiply(0.85));
        painter.galley(pos2(x + 4.0, plot.top() + 2.0), galley, color);
    }
}
