//! Reusable drawing helpers shared by the rooms.

pub mod explore;
pub mod heatmap;
pub mod markdown;
pub mod palette;
pub mod radar;
pub mod scene;
pub mod trace_raster;

/// The outcome of the last action of a panel: a plain line, or the error in the error colour.
pub fn outcome(ui: &mut egui::Ui, message: &Option<Result<String, String>>) {
    match message {
        Some(Ok(m)) => {
            ui.label(m);
        }
        Some(Err(e)) => {
            ui.colored_label(ui.visuals().error_fg_color, e);
        }
        None => {}
    }
}
