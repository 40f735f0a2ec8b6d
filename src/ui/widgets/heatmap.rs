//! A labelled heatmap: rows × columns of optional values, a colour per cell, the value written in each cell
//! when it fits; hovering a cell names its row, column and value.

use egui::{Align2, Color32, FontId, Rect, Sense, Stroke, pos2, vec2};

pub struct Heatmap<'a> {
    pub rows: &'a [String],
    pub cols: &'a [String],
    /// Row-major, `rows.len() × cols.len()`.
    pub values: &'a [Option<f64>],
    pub color: &'a dyn Fn(f64) -> Color32,
    /// printf-like precision of the values written in cells.
    pub decimals: usize,
    pub cell_w: f32,
    pub cell_h: f32,
}

/// Diverging blue–white–red around 0, saturating at ±`span` (the Bench's scale, also in its SVG/HTML).
pub fn diverging(v: f64, span: f64) -> Color32 {
    let [r, g, b] = crate::util::chart::colors::diverging(v, span);
    Color32::from_rgb(r, g, b)
}

/// Sequential white → dark blue over [lo, hi].
pub fn sequential(v: f64, lo: f64, hi: f64) -> Color32 {
    let [r, g, b] = crate::util::chart::colors::sequential(v, lo, hi);
    Color32::from_rgb(r, g, b)
}

/// Black or white, whichever reads better on `bg`.
fn ink(bg: Color32) -> Color32 {
    let l = 0.299 * bg.r() as f32 + 0.587 * bg.g() as f32 + 0.114 * bg.b() as f32;
    if l > 140.0 { Color32::BLACK } else { Color32::WHITE }
}

impl Heatmap<'_> {
    /// Draws the heatmap; returns the rectangle it covers (for PNG export).
    pub fn show(&self, ui: &mut egui::Ui) -> Rect {
        let font = FontId::proportional(12.0);
        let label_w = self.rows.iter().map(|r| r.chars().count()).max().unwrap_or(4) as f32 * 7.0 + 8.0;
        let head_h = if self.cell_w < 40.0 { 90.0 } else { 34.0 };
        let size = vec2(label_w + self.cols.len() as f32 * self.cell_w, head_h + self.rows.len() as f32 * self.cell_h);
        let (rect, response) = ui.allocate_exact_size(size, Sense::hover());
        let p = ui.painter_at(rect);
        let text = ui.visuals().text_color();
        let x0 = rect.left() + label_w;
        let y0 = rect.top() + head_h;
        for (j, c) in self.cols.iter().enumerate() {
            let x = x0 + (j as f32 + 0.5) * self.cell_w;
            if self.cell_w < 40.0 {
                let g = ui.fonts_mut(|f| f.layout_no_wrap(c.clone(), FontId::proportional(10.0), text));
                p.add(
                    egui::epaint::TextShape::new(pos2(x - 5.0, y0 - 4.0), g, text)
                        .with_angle(-std::f32::consts::FRAC_PI_2),
                );
            } else {
                p.text(pos2(x, y0 - 4.0), Align2::CENTER_BOTTOM, c, font.clone(), text);
            }
        }
        for (i, r) in self.rows.iter().enumerate() {
            let y = y0 + i as f32 * self.cell_h;
            p.text(pos2(x0 - 6.0, y + self.cell_h / 2.0), Align2::RIGHT_CENTER, r, font.clone(), text);
            for j in 0..self.cols.len() {
                let cell = Rect::from_min_size(pos2(x0 + j as f32 * self.cell_w, y), vec2(self.cell_w, self.cell_h));
                match self.values[i * self.cols.len() + j] {
                    Some(v) => {
                        let bg = (self.color)(v);
                        p.rect_filled(cell.shrink(0.5), 0.0, bg);
                        if self.cell_w >= 40.0 {
                            p.text(
                                cell.center(),
                                Align2::CENTER_CENTER,
                                format!("{v:.*}", self.decimals),
                                font.clone(),
                                ink(bg),
                            );
                        }
                    }
                    None => {
                        p.rect_stroke(cell.shrink(0.5), 0.0, Stroke::new(0.5, Color32::GRAY), egui::StrokeKind::Inside);
                    }
                }
            }
        }
        if let Some(pos) = response.hover_pos() {
            let (j, i) = (((pos.x - x0) / self.cell_w).floor(), ((pos.y - y0) / self.cell_h).floor());
            if i >= 0.0 && j >= 0.0 && (i as usize) < self.rows.len() && (j as usize) < self.cols.len() {
                let (i, j) = (i as usize, j as usize);
                let v = self.values[i * self.cols.len() + j];
                response.on_hover_text(format!(
                    "{} × {}: {}",
                    self.rows[i],
                    self.cols[j],
                    v.map_or("–".into(), |v| format!("{v:.*}", self.decimals + 1))
                ));
            }
        }
        rect
    }
}
