//! Rooms whose issues have not landed yet: an honest empty state, no fake content.

/// Draws the empty state of a room that is not built yet.
pub fn coming_soon(ui: &mut egui::Ui, room: &str, what: &str) {
    ui.vertical_centered(|ui| {
        ui.add_space(ui.available_height() / 3.0);
        ui.heading(format!("{room} — coming soon"));
        ui.label(what);
    });
}
