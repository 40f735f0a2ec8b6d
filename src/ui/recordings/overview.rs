//! The whole-recording strip under the traces: min/max envelope of the top trace's channel from the
//! overview pyramid, annotation ticks, the current page marked; click or drag to jump.

use super::{Cmd, OpenRecording};
use egui::{Color32, Rect, Sense, Stroke, pos2};

/// Draws the strip.
pub fn show(ui: &mut egui::Ui, o: &OpenRecording, cmds: &mut Vec<Cmd>) {
    let (rect, response) = ui.allocate_exact_size(ui.available_size(), Sense::click_and_drag());
    let painter = ui.painter_at(rect);
    let visuals = ui.visuals();
    painter.rect_filled(rect, 2.0, visuals.extreme_bg_color);
    let total = o.duration_s.max(1e-9);
    let x_of = |t: f64| rect.left() + (t / total) as f32 * rect.width();
    let channel = o.view.shown().first().and_then(|&d| o.derivations.get(d)).map(|d| d.terms[0].0);
    match (&o.pyramid, channel) {
        (Some(p), Some(c)) => {
            let buckets = rect.width().max(1.0) as usize;
            let env = p.envelope(c, 0.0, total, buckets);
            // Robust vertical scale: the 98th percentile of the bucket spans, so one artefact does not
            // flatten the night.
            let mut spans: Vec<f32> = env.iter().flatten().map(|(lo, hi)| hi.abs().max(lo.abs())).collect();
            spans.sort_by(f32::total_cmp);
            let scale = spans.get(spans.len() * 98 / 100).copied().unwrap_or(1.0).max(1e-12);
            let mid = rect.center().y;
            let half = rect.height() * 0.45;
            let color = Color32::from_rgb(110, 150, 200);
            for (i, e) in env.iter().enumerate() {
                if let Some((lo, hi)) = e {
                    let x = rect.left() + i as f32 + 0.5;
                    let y0 = mid - (hi / scale).clamp(-1.0, 1.0) * half;
                    let y1 = mid - (lo / scale).clamp(-1.0, 1.0) * half;
                    painter.vline(x, y0..=y1.max(y0 + 1.0), Stroke::new(1.0, color));
                }
            }
            let label = o.rec.channels()[c].label.clone();
            painter.text(
                rect.left_top() + egui::vec2(4.0, 2.0),
                egui::Align2::LEFT_TOP,
                format!("overview: {label}"),
                egui::FontId::proportional(10.0),
                visuals.weak_text_color(),
            );
        }
        _ => {
            painter.text(
                rect.center(),
                egui::Align2::CENTER_CENTER,
                "building overview…",
                egui::FontId::proportional(11.0),
                visuals.weak_text_color(),
            );
        }
    }
    for a in o.annotations.items() {
        painter.vline(
            x_of(a.onset_s),
            rect.top()..=rect.top() + 8.0,
            Stroke::new(1.0, Color32::from_rgb(240, 160, 40)),
        );
    }
    let page = Rect::from_min_max(
        pos2(x_of(o.view.start_s), rect.top()),
        pos2(x_of(o.view.start_s + o.view.page_s).max(x_of(o.view.start_s) + 2.0), rect.bottom()),
    );
    painter.rect_filled(page, 0.0, visuals.selection.bg_fill.gamma_multiply(0.35));
    painter.rect_stroke(page, 0.0, Stroke::new(1.5, visuals.selection.stroke.color), egui::StrokeKind::Inside);
    if let Some(p) = response.interact_pointer_pos().filter(|_| response.clicked() || response.dragged()) {
        let t = ((p.x - rect.left()) / rect.width()) as f64 * total;
        cmds.push(Cmd::GoTo(t - o.view.page_s / 2.0));
    }
}
