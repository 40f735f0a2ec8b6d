//! The side panel: channels (show/hide, order, per-channel gain) and annotations (list, jump, add, edit,
//! delete, undo/redo, save as a new EDF+ file).

use super::traces::clock;
use super::{Cmd, OpenRecording};
use crate::signal::edf::Annotation;
use std::path::PathBuf;

/// Edit buffer of the selected annotation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Draft {
    pub index: usize,
    pub onset: String,
    pub duration: String,
    pub text: String,
}

impl Draft {
    fn of(index: usize, a: &Annotation) -> Self {
        Draft {
            index,
            onset: format!("{}", a.onset_s),
            duration: a.duration_s.map(|d| d.to_string()).unwrap_or_default(),
            text: a.text.clone(),
        }
    }

    fn parse(&self) -> Result<Annotation, String> {
        let onset_s = self
            .onset
            .trim()
            .parse::<f64>()
            .map_err(|_| format!("onset '{}' is not a number of seconds", self.onset))?;
        let duration_s = match self.duration.trim() {
            "" => None,
            d => Some(
                d.parse::<f64>()
                    .ok()
                    .filter(|v| *v >= 0.0)
                    .ok_or(format!("duration '{d}' is not a non-negative number"))?,
            ),
        };
        Ok(Annotation { onset_s, duration_s, text: self.text.clone() })
    }
}

/// Draws the panel.
pub fn show(ui: &mut egui::Ui, o: &mut OpenRecording, cmds: &mut Vec<Cmd>) {
    egui::ScrollArea::vertical().id_salt("side").show(ui, |ui| {
        egui::CollapsingHeader::new(format!("Channels ({})", o.derivations.len()))
            .default_open(false)
            .show(ui, |ui| channels(ui, o, cmds));
        egui::CollapsingHeader::new(format!("Annotations ({})", o.annotations.items().len()))
            .default_open(true)
            .show(ui, |ui| annotations(ui, o, cmds));
    });
}

fn channels(ui: &mut egui::Ui, o: &OpenRecording, cmds: &mut Vec<Cmd>) {
    for &d in &o.view.order {
        let Some(der) = o.derivations.get(d) else { continue };
        ui.horizontal(|ui| {
            let mut v = o.view.visible[d];
            if ui.checkbox(&mut v, &der.label).changed() {
                cmds.push(Cmd::SetVisible(d, v));
            }
            if ui.small_button("up").clicked() {
                cmds.push(Cmd::MoveChannel(d, -1));
            }
            if ui.small_button("down").clicked() {
                cmds.push(Cmd::MoveChannel(d, 1));
            }
            if ui.small_button("×0.5").clicked() {
                cmds.push(Cmd::ChannelGain(d, 0.5));
            }
            if ui.small_button("×2").clicked() {
                cmds.push(Cmd::ChannelGain(d, 2.0));
            }
            if o.view.gain[d] != 1.0 {
                ui.label(format!("×{}", o.view.gain[d]));
            }
        });
    }
}

fn annotations(ui: &mut egui::Ui, o: &mut OpenRecording, cmds: &mut Vec<Cmd>) {
    ui.horizontal(|ui| {
        let l = ui.label("Text").id;
        ui.add(egui::TextEdit::singleline(&mut o.new_annotation_text).desired_width(110.0)).labelled_by(l);
        if ui.button("Add annotation").on_hover_text("At the page start; or double-click the traces").clicked() {
            cmds.push(Cmd::AddAnnotation(Annotation {
                onset_s: o.view.start_s,
                duration_s: None,
                text: o.new_annotation_text.clone(),
            }));
        }
    });
    ui.horizontal(|ui| {
        if ui.add_enabled(o.annotations.can_undo(), egui::Button::new("Undo")).clicked() {
            cmds.push(Cmd::Undo);
        }
        if ui.add_enabled(o.annotations.can_redo(), egui::Button::new("Redo")).clicked() {
            cmds.push(Cmd::Redo);
        }
        if o.annotations.is_dirty() {
            ui.label("unsaved edits");
        }
    });
    ui.horizontal(|ui| {
        let l = ui.label("File").id;
        ui.add(egui::TextEdit::singleline(&mut o.save_path).desired_width(160.0)).labelled_by(l);
        if ui
            .button("Save as")
            .on_hover_text("Writes a new EDF+/BDF+ file; the original is never overwritten")
            .clicked()
        {
            cmds.push(Cmd::SaveAs(PathBuf::from(o.save_path.trim())));
        }
    });
    if let Some(i) = o.selected_annotation
        && let Some(a) = o.annotations.items().get(i)
    {
        if o.draft.as_ref().is_none_or(|d| d.index != i) {
            o.draft = Some(Draft::of(i, a));
        }
        if let Some(d) = &mut o.draft {
            ui.group(|ui| {
                ui.label("Selected annotation");
                egui::Grid::new("draft").num_columns(2).show(ui, |ui| {
                    let l = ui.label("Onset (s)").id;
                    ui.text_edit_singleline(&mut d.onset).labelled_by(l);
                    ui.end_row();
                    let l = ui.label("Duration (s)").id;
                    ui.text_edit_singleline(&mut d.duration).labelled_by(l);
                    ui.end_row();
                    let l = ui.label("Text").id;
                    ui.text_edit_singleline(&mut d.text).labelled_by(l);
                    ui.end_row();
                });
                ui.horizontal(|ui| {
                    if ui.button("Apply").clicked() {
                        match d.parse() {
                            Ok(a) => cmds.push(Cmd::UpdateAnnotation(i, a)),
                            Err(e) => o.draft_error = Some(e),
                        }
                    }
                    if ui.button("Delete").clicked() {
                        cmds.push(Cmd::DeleteAnnotation(i));
                    }
                });
                if let Some(e) = &o.draft_error {
                    ui.colored_label(ui.visuals().error_fg_color, e);
                }
            });
        }
    } else {
        o.draft = None;
    }
    ui.separator();
    egui::Grid::new("annotations").striped(true).num_columns(3).show(ui, |ui| {
        for (i, a) in o.annotations.items().iter().enumerate() {
            let selected = o.selected_annotation == Some(i);
            if ui.selectable_label(selected, clock(a.onset_s)).clicked() {
                cmds.push(Cmd::SelectAnnotation(Some(i)));
                cmds.push(Cmd::GoTo(a.onset_s - o.view.page_s / 2.0));
            }
            ui.label(a.duration_s.map_or(String::new(), |d| format!("{d} s")));
            ui.label(&a.text);
            ui.end_row();
        }
    });
}
