//! The 3-D view in the Networks room: the core's software renderer (`network::plot::brain3d`) drawn into
//! a texture, re-rendered only when the camera, the style, the selection or the network changes. Drag to
//! orbit, right-drag to pan, scroll to zoom, presets for the five standard views; click picks the front-most
//! node under the pointer, hover names it.

use super::{Cmd, OpenNetwork};
use crate::network::plot::NodeMark;
use crate::network::plot::brain3d::{self, Camera, Mesh};
use std::hash::{Hash, Hasher};

/// State of the 3-D view (kept across networks: the surface is loaded once).
#[derive(Default)]
pub struct View3d {
    pub camera: Option<Camera>,
    /// The surface drawn and its name; the last good one stays when a new one cannot be read.
    mesh: Option<(Mesh, String)>,
    /// What the surface field holds: `pial`, `infl` or GIFTI paths.
    pub surface_field: String,
    pub error: Option<String>,
    texture: Option<(u64, egui::TextureHandle)>,
    marks: Vec<NodeMark>,
    /// Renders done (the frame-time benchmark checks each measured frame rendered anew).
    pub renders: u64,
}

impl View3d {
    /// Loads the surface `spec`; on failure the previous surface stays and the error is shown.
    pub fn load(&mut self, spec: &str) {
        match brain3d::load_mesh(spec) {
            Ok((mesh, name)) => {
                self.mesh = Some((mesh, name));
                self.texture = None;
                self.error = None;
            }
            Err(e) => self.error = Some(format!("surface not loaded (the previous one stays): {e}")),
        }
    }

    /// Turns the camera by `degrees` about the vertical axis.
    pub fn turn(&mut self, degrees: f32) {
        let c = self.camera.get_or_insert_with(Camera::default);
        c.azimuth = (c.azimuth + degrees).rem_euclid(360.0);
    }

    fn controls(&mut self, ui: &mut egui::Ui) {
        ui.horizontal_wrapped(|ui| {
            let cam = self.camera.get_or_insert_with(Camera::default);
            for p in ["left", "right", "front", "back", "top"] {
                if ui.button(p).clicked()
                    && let Ok(c) = cam.preset(p)
                {
                    *cam = c;
                }
            }
            ui.label(format!("azimuth {:.0}°, elevation {:.0}°, zoom {:.2}", cam.azimuth, cam.elevation, cam.zoom));
            if ui.button("reset").clicked() {
                *cam = Camera::default();
            }
            ui.separator();
            let id = ui.label("surface").id;
            ui.add(egui::TextEdit::singleline(&mut self.surface_field).desired_width(180.0))
                .labelled_by(id)
                .on_hover_text("pial or infl (fsaverage5), conte69 (Schaefer parcels painted in the node colours), or GIFTI files separated by commas (lh.gii,rh.gii)");
            if ui.button("Load surface").clicked() {
                let spec = self.surface_field.trim().to_string();
                self.load(&spec);
            }
        });
    }

    /// Draws the 3-D view of `o` in the space left.
    pub fn show(&mut self, ui: &mut egui::Ui, o: &mut OpenNetwork) {
        if self.surface_field.is_empty() {
            self.surface_field = "pial".into();
        }
        if self.mesh.is_none() && self.error.is_none() {
            let spec = self.surface_field.clone();
            self.load(&spec);
        }
        self.controls(ui);
        ui.horizontal_wrapped(|ui| super::figure::figure_controls(ui, &mut o.style));
        if let Some(e) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, e);
        }
        let Some((mesh, name)) = &self.mesh else { return };
        let size = egui::vec2(ui.available_width(), (ui.available_height() - 24.0).max(120.0));
        let (rect, response) = ui.allocate_exact_size(size, egui::Sense::click_and_drag());
        response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Image, true, "3-D view"));
        let cam = self.camera.get_or_insert_with(Camera::default);
        if response.dragged_by(egui::PointerButton::Primary) {
            let d = response.drag_delta();
            cam.azimuth = (cam.azimuth - d.x * 0.5).rem_euclid(360.0);
            cam.elevation = (cam.elevation + d.y * 0.5).clamp(-89.0, 89.0);
        }
        let ppp = ui.ctx().pixels_per_point();
        if response.dragged_by(egui::PointerButton::Secondary) {
            let d = response.drag_delta() * ppp;
            cam.pan = [cam.pan[0] + d.x, cam.pan[1] + d.y];
        }
        if response.hovered() {
            let scroll = ui.input(|i| i.smooth_scroll_delta.y);
            if scroll != 0.0 {
                cam.zoom = (cam.zoom * (scroll * 0.003).exp()).clamp(0.2, 8.0);
            }
        }
        let (w, h) = ((rect.width() * ppp).round() as u32, (rect.height() * ppp).round() as u32);
        let style = o.figure_style();
        let mut hasher = std::hash::DefaultHasher::new();
        (format!("{cam:?}{style:?}{name}"), o.generation, w, h, o.path.clone()).hash(&mut hasher);
        let key = hasher.finish();
        if self.texture.as_ref().is_none_or(|(k, _)| *k != key) {
            match brain3d::render(&o.input(), &style, mesh, cam, w, h) {
                Ok(frame) => {
                    let img = egui::ColorImage::from_rgba_unmultiplied(
                        [frame.width as usize, frame.height as usize],
                        &frame.rgba,
                    );
                    let tex = ui.ctx().load_texture("network-3d", img, egui::TextureOptions::LINEAR);
                    self.texture = Some((key, tex));
                    self.marks = frame.marks;
                    self.renders += 1;
                }
                Err(e) => {
                    ui.colored_label(ui.visuals().error_fg_color, format!("3-D view: {e}"));
                    return;
                }
            }
        }
        if let Some((_, tex)) = &self.texture {
            let uv = egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0));
            ui.painter_at(rect).image(tex.id(), rect, uv, egui::Color32::WHITE);
        }
        let pick = |p: egui::Pos2| -> Option<usize> {
            let q = [(p.x - rect.left()) * ppp, (p.y - rect.top()) * ppp];
            let hit = |m: &&NodeMark| (m.at[0] - q[0]).hypot(m.at[1] - q[1]) <= m.r + 3.0 * ppp;
            self.marks.iter().find(hit).map(|m| m.node)
        };
        if let Some(i) = response.hover_pos().and_then(pick) {
            response.clone().on_hover_text(o.connectome.labels[i].clone());
        }
        if response.clicked()
            && let Some(i) = response.interact_pointer_pos().and_then(pick)
        {
            o.commands.push(Cmd::Select(Some(i)));
        }
        ui.weak(format!(
            "surface: {name}; drag to orbit, right-drag to pan, scroll to zoom; nodes at atlas coordinates"
        ));
    }
}
