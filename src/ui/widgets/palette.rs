//! The core's colour scales as egui colours.

use crate::util::chart::colors;

/// A colour per module, network, series or band (`util::chart::colors::category`).
pub fn category(k: usize) -> egui::Color32 {
    let [r, g, b] = colors::category(k);
    egui::Color32::from_rgb(r, g, b)
}
