//! The open dialog's questions for a file that does not say everything about itself: the sampling rate of
//! an array (`.npy`, `.npz`/`.mat`/`.csv` without one) and the sample width of a Neuroscan CNT file whose
//! header leaves it open. Shown when opening fails for want of one of them; the recording that was open stays.

use crate::signal::edf::EdfError;
use crate::signal::open_options::{CntFormat, OpenOptions, needs_cnt_format, needs_rate};
use std::path::PathBuf;

/// A file waiting for the user's answer.
pub struct OpenPrompt {
    pub path: PathBuf,
    /// Why the file could not be opened as it is (the reader's error).
    pub reason: String,
    pub options: OpenOptions,
    pub rate_text: String,
    pub asks_rate: bool,
    pub asks_cnt_format: bool,
    /// A rate that cannot be read, shown under the field.
    pub input_error: Option<String>,
}

impl OpenPrompt {
    /// The prompt for `e`, when it asks for something the user can give; `options` are those already tried.
    pub fn for_error(path: &std::path::Path, e: &EdfError, options: OpenOptions) -> Option<OpenPrompt> {
        let (asks_rate, asks_cnt_format) = (needs_rate(e), needs_cnt_format(e));
        (asks_rate || asks_cnt_format).then(|| OpenPrompt {
            path: path.to_path_buf(),
            reason: e.to_string(),
            options: OpenOptions { cnt_format: options.cnt_format.or(Some(CntFormat::Int16)), ..options },
            rate_text: options.rate.map_or(String::new(), |r| r.to_string()),
            asks_rate,
            asks_cnt_format,
            input_error: None,
        })
    }
}

/// What the user chose.
pub enum Answer {
    Open(PathBuf, OpenOptions),
    Cancel,
}

/// Draws the prompt; returns the answer once given.
pub fn window(ctx: &egui::Context, p: &mut OpenPrompt) -> Option<Answer> {
    let mut answer = None;
    let name = p.path.file_name().map_or_else(|| p.path.display().to_string(), |n| n.to_string_lossy().into_owned());
    egui::Window::new(format!("Open {name}"))
        .collapsible(false)
        .resizable(false)
        .anchor(egui::Align2::CENTER_TOP, [0.0, 120.0])
        .show(ctx, |ui| {
            ui.label(&p.reason);
            ui.separator();
            if p.asks_cnt_format {
                ui.horizontal(|ui| {
                    ui.label("Sample width");
                    let f = p.options.cnt_format.get_or_insert(CntFormat::Int16);
                    ui.radio_value(f, CntFormat::Int16, "16-bit (int16)");
                    ui.radio_value(f, CntFormat::Int32, "32-bit (int32)");
                });
            }
            if p.asks_rate {
                ui.horizontal(|ui| {
                    ui.label("Sampling rate (Hz)");
                    ui.add(egui::TextEdit::singleline(&mut p.rate_text).id_salt("open_rate").desired_width(90.0));
                });
            }
            if let Some(e) = &p.input_error {
                ui.colored_label(ui.visuals().error_fg_color, e);
            }
            ui.horizontal(|ui| {
                if ui.button("Open").clicked() {
                    let rate = if p.asks_rate {
                        match p.rate_text.trim().parse::<f64>() {
                            Ok(r) if r.is_finite() && r > 0.0 => Some(r),
                            _ => {
                                p.input_error =
                                    Some(format!("{:?} is not a rate in Hz (a positive number)", p.rate_text));
                                return;
                            }
                        }
                    } else {
                        p.options.rate
                    };
                    answer = Some(Answer::Open(p.path.clone(), OpenOptions { rate, ..p.options }));
                }
                if ui.button("Cancel").clicked() {
                    answer = Some(Answer::Cancel);
                }
            });
        });
    answer
}
