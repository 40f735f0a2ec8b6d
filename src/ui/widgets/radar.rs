//! A radar chart drawn with egui shapes: one closed polygon per series over shared axes, 0 at the centre and
//! 1 at the rim, with a colour legend (the Bench room's unit radar and the agent's interpretability radar).

use crate::ui::widgets::palette::category;
use egui::{Align2, FontId, Pos2, Rect, Sense, Shape, Stroke, vec2};

/// Draws the legend and the chart; returns the area it covered (for PNG export).
pub fn show(ui: &mut egui::Ui, caption: &str, series: &[(String, Vec<Option<f64>>)], axes: &[String]) -> Rect {
    ui.vertical(|ui| {
        ui.label(caption);
        ui.horizontal_wrapped(|ui| {
            for (k, (n, _)) in series.iter().enumerate() {
                let (rect, _) = ui.allocate_exact_size(vec2(12.0, 12.0), Sense::hover());
                ui.painter().rect_filled(rect, 2.0, category(k));
                ui.label(n);
            }
        });
        let side = ui.available_width().clamp(300.0, 520.0);
        let (rect, _) = ui.allocate_exact_size(vec2(side, side), Sense::hover());
        let p = ui.painter_at(rect);
        let c = rect.center();
        let rad = side * 0.34;
        let n = axes.len().max(1);
        let at = |k: usize, v: f64| -> Pos2 {
            let a = -std::f32::consts::FRAC_PI_2 + k as f32 * std::f32::consts::TAU / n as f32;
            c + vec2(a.cos(), a.sin()) * rad * v as f32
        };
        let grid = Stroke::new(0.7, ui.visuals().weak_text_color());
        for ring in [0.25, 0.5, 0.75, 1.0] {
            p.add(Shape::closed_line((0..n).map(|k| at(k, ring)).collect(), grid));
        }
        for (k, l) in axes.iter().enumerate() {
            p.line_segment([c, at(k, 1.0)], grid);
            p.text(at(k, 1.16), Align2::CENTER_CENTER, l, FontId::proportional(12.0), ui.visuals().text_color());
        }
        for (s, (_, vals)) in series.iter().enumerate() {
            let col = category(s);
            let pts: Vec<Pos2> =
                vals.iter().enumerate().map(|(k, v)| at(k, v.unwrap_or(0.0).clamp(0.0, 1.0))).collect();
            p.add(Shape::convex_polygon(pts.clone(), col.gamma_multiply(0.12), Stroke::NONE));
            p.add(Shape::closed_line(pts.clone(), Stroke::new(2.0, col)));
            for q in pts {
                p.circle_filled(q, 3.0, col);
            }
        }
    })
    .response
    .rect
}
