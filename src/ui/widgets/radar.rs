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
            p.add(Shape::mesh(fan(c, &pts, col.gamma_multiply(0.12))));
            p.add(Shape::closed_line(pts.clone(), Stroke::new(2.0, col)));
            for q in pts {
                p.circle_filled(q, 3.0, col);
            }
        }
    })
    .response
    .rect
}

/// The area of a radar polygon as a fan of triangles from the centre: a radar polygon is star-shaped around
/// its centre but rarely convex, and a convex fill spills outside its outline.
fn fan(c: Pos2, pts: &[Pos2], fill: egui::Color32) -> egui::Mesh {
    let mut m = egui::Mesh::default();
    m.colored_vertex(c, fill);
    for &q in pts {
        m.colored_vertex(q, fill);
    }
    let n = pts.len() as u32;
    for k in 0..n {
        m.add_triangle(0, 1 + k, 1 + (k + 1) % n);
    }
    m
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_fill_covers_exactly_the_polygon() {
        // A non-convex radar (values 1, 0.1, 1, 0.1): the fan's triangles add up to the polygon's area
        // (shoelace), where a convex fill would cover the whole square.
        use egui::pos2;
        let c = pos2(0.0, 0.0);
        let pts = [pos2(0.0, -1.0), pos2(0.1, 0.0), pos2(0.0, 1.0), pos2(-0.1, 0.0)];
        let m = super::fan(c, &pts, egui::Color32::WHITE);
        let area: f32 = m
            .indices
            .chunks(3)
            .map(|t| {
                let [a, b, d] = [t[0], t[1], t[2]].map(|i| m.vertices[i as usize].pos);
                ((b - a).x * (d - a).y - (b - a).y * (d - a).x).abs() / 2.0
            })
            .sum();
        let shoelace: f32 =
            (0..4).map(|k| pts[k].x * pts[(k + 1) % 4].y - pts[(k + 1) % 4].x * pts[k].y).sum::<f32>().abs() / 2.0;
        assert!((area - shoelace).abs() < 1e-6 && (shoelace - 0.2).abs() < 1e-6, "{area} vs {shoelace}");
    }
}
