//! The circle (`network::plot::circle`): regions grouped by network (or module) with the legend beside
//! it, edges above the glass brain's percentile bundled through the centre, labels on hover.

use super::OpenNetwork;
use crate::network::plot::circle;

/// Draws the circle in at most `max_h` points of height.
pub fn show(ui: &mut egui::Ui, o: &mut OpenNetwork, max_h: f32) {
    ui.label(format!("Circle — {}", o.selected_caption()));
    let style = o.figure_style();
    let key = (format!("{style:?}"), o.generation, o.path.clone());
    let mut cache = std::mem::take(&mut o.circle_cache);
    let (w, h) = (ui.available_width(), (max_h - 50.0).max(60.0));
    match cache.show(ui, key, "circle figure", w, h, || circle::draw(&o.input(), &style)) {
        Ok((placed, figure)) => super::figure::pick(o, figure, &placed),
        Err(e) => {
            ui.colored_label(ui.visuals().error_fg_color, format!("Circle: {e}"));
        }
    }
    o.circle_cache = cache;
    ui.horizontal(|ui| super::figure::export(ui, o, false));
}
