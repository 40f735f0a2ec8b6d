//! The glass brain as nilearn draws it (`network::plot::glass`: its outlines, projections, edge rule), with
//! the display mode, edge percentile, node size and node colour; click selects a region everywhere,
//! hover names it, and the regions an agent or knowledge item cites are ringed.

use super::OpenNetwork;
use crate::network::plot::glass;

/// The display modes offered (nilearn's names).
const MODES: [&str; 9] = ["ortho", "lzry", "lyrz", "lr", "x", "y", "z", "l", "r"];

/// Draws the glass brain, or says why there is none (the atlas has no coordinates).
pub fn show(ui: &mut egui::Ui, o: &mut OpenNetwork) {
    if o.atlas.as_ref().is_none_or(|a| a.coords.is_none()) {
        ui.label("Glass brain: this atlas has no coordinates (give an atlas with x, y, z, e.g. a .node file); the circle shows the network instead.");
        return;
    }
    ui.horizontal_wrapped(|ui| {
        ui.label(format!("Glass brain — {}", o.selected_caption()));
        egui::ComboBox::from_label("display").selected_text(o.style.display_mode.clone()).show_ui(ui, |ui| {
            for m in MODES {
                ui.selectable_value(&mut o.style.display_mode, m.to_string(), m);
            }
        });
        super::figure::figure_controls(ui, &mut o.style);
        super::figure::export(ui, o, true);
    });
    let style = o.figure_style();
    let key = (format!("{style:?}"), o.generation, o.path.clone());
    let mut cache = std::mem::take(&mut o.glass_cache);
    let (w, h) = (ui.available_width(), (ui.available_height() - 40.0).max(80.0));
    match cache.show(ui, key, "glass brain figure", w, h, || glass::draw(&o.input(), &style)) {
        Ok((placed, figure)) => {
            super::figure::pick(o, figure, &placed);
            for note in &figure.notes {
                ui.weak(note);
            }
        }
        Err(e) => {
            ui.colored_label(ui.visuals().error_fg_color, format!("Glass brain: {e}"));
        }
    }
    o.glass_cache = cache;
}
