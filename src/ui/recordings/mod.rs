//! The Recordings room: open EDF/BDF files, page through stacked traces, montages, display filters,
//! annotations with undo/redo, overview strip, header dialog with the repair report.

pub mod bids_window;
pub mod connectivity_window;
pub mod hrv_window;
mod open_prompt;
mod overview;
mod properties;
mod side_panel;
pub mod sleep_window;
pub mod spectrum;
pub mod stats_window;
mod toolbar;
mod traces;
pub mod view;

use crate::signal::Recording;
use crate::signal::annotations::AnnotationEditor;
use crate::signal::edf::save::save_with_annotations;
use crate::signal::edf::{Annotation, Repair};
use crate::signal::filter::display::DisplayFilter;
use crate::signal::montage::{Derivation, Montage};
use crate::signal::open_options::OpenOptions;
use crate::signal::page::{Trace, compute_page};
use crate::signal::pyramid::Pyramid;
use crate::ui::jobs::{Job, JobSlot, cancel_all, running};
use crate::ui::room::{AppCmd, JobStatus, Room, Shell};
use crate::ui::settings::Settings;
use std::path::PathBuf;
use std::sync::Arc;
use view::ViewState;

/// A user intent collected while drawing, applied after the frame.
#[derive(Debug, Clone, PartialEq)]
pub enum Cmd {
    Open(PathBuf),
    PageBy(f64),
    GoTo(f64),
    SetPageLength(f64),
    StepSensitivity(i32),
    SetSensitivity(f64),
    SetMontage(Montage),
    SetFilter(DisplayFilter),
    SetEpochGrid(bool),
    AddAnnotation(Annotation),
    UpdateAnnotation(usize, Annotation),
    DeleteAnnotation(usize),
    SelectAnnotation(Option<usize>),
    Undo,
    Redo,
    SaveAs(PathBuf),
    SetVisible(usize, bool),
    MoveChannel(usize, i32),
    ChannelGain(usize, f64),
}

/// An open recording and everything the room shows of it.
pub struct OpenRecording {
    pub rec: Arc<Recording>,
    pub duration_s: f64,
    pub view: ViewState,
    pub derivations: Vec<Derivation>,
    pub montage_errors: Vec<String>,
    pub annotations: AnnotationEditor,
    pub selected_annotation: Option<usize>,
    pub traces: Vec<Trace>,
    page_key: Option<(f64, f64, Montage, DisplayFilter)>,
    /// Increases whenever `traces` is recomputed (keys the trace texture).
    pub page_generation: u64,
    pub trace_texture: Option<(traces::RasterKey, egui::TextureHandle)>,
    pub page_error: Option<String>,
    pub pyramid: Option<Arc<Pyramid>>,
    pyramid_job: Option<Job<Pyramid>>,
    pub repairs: Vec<Repair>,
    pub properties_open: bool,
    /// Text fields of the side panel and toolbar.
    pub new_annotation_text: String,
    pub bipolar_text: String,
    pub save_path: String,
    /// Edit buffer of the selected annotation and its last parse error.
    pub draft: Option<side_panel::Draft>,
    pub draft_error: Option<String>,
    /// Time and value under the mouse: (seconds, trace label, value, unit).
    pub cursor: Option<(f64, String, f64, String)>,
    /// The spectrum panel, when open.
    pub spectrum: Option<spectrum::SpectrumPanel>,
    pub sleep: sleep_window::SleepWindow,
    pub hrv: hrv_window::HrvWindow,
    pub connectivity: connectivity_window::ConnectivityWindow,
    pub stats: stats_window::StatsWindow,
}

/// State of the Recordings room.
pub struct RecordingsRoom {
    pub current: Option<OpenRecording>,
    pub error: Option<String>,
    pub message: Option<String>,
    pub path_field: String,
    pub commands: Vec<Cmd>,
    opened: Option<PathBuf>,
    /// A file that needs a sampling rate or a CNT sample width before it opens.
    pub prompt: Option<open_prompt::OpenPrompt>,
    /// The BIDS window: export and dataset browsing.
    pub bids: bids_window::BidsPanel,
}

/// Asks the desktop for a recording to open (None when cancelled or no dialog service is running).
pub fn pick_recording() -> Option<PathBuf> {
    let mut exts: Vec<String> =
        crate::signal::recording::EXTENSIONS.iter().flat_map(|e| [e.to_string(), e.to_uppercase()]).collect();
    exts.push("rec".into());
    rfd::FileDialog::new()
        .add_filter("Recordings (EDF, BDF, GDF, BrainVision, Neuroscan CNT, EEGLAB, FIF, NumPy, MATLAB, CSV)", &exts)
        .pick_file()
}

impl RecordingsRoom {
    pub fn new(_settings: &Settings) -> Self {
        Self {
            current: None,
            error: None,
            message: None,
            path_field: String::new(),
            commands: Vec::new(),
            opened: None,
            prompt: None,
            bids: Default::default(),
        }
    }

    /// Opens `path`; on failure the error is shown and the current recording stays open. Returns success.
    /// A file that needs a sampling rate or a CNT sample width asks for it ([`open_prompt`]).
    pub fn open(&mut self, path: PathBuf, settings: &Settings) -> bool {
        self.open_with(path, crate::signal::open_options::defaults(), settings)
    }

    /// Opens `path` with `options` (see [`Self::open`]).
    pub fn open_with(&mut self, path: PathBuf, options: OpenOptions, settings: &Settings) -> bool {
        let rec = match Recording::open_with(&path, &options) {
            Ok(r) => r,
            Err(e) => {
                // A question the user can answer is asked in the prompt, not shown as an error.
                self.prompt = open_prompt::OpenPrompt::for_error(&path, &e, options);
                self.error = if self.prompt.is_some() { None } else { Some(e.to_string()) };
                return false;
            }
        };
        self.prompt = None;
        match Ok::<_, String>(rec).and_then(|rec| {
            let duration = rec.duration_s().map_err(|e| e.to_string())?;
            let annotations = rec.annotations().map_err(|e| e.to_string())?.to_vec();
            Ok((rec, duration, annotations))
        }) {
            Ok((rec, duration_s, annotations)) => {
                let rec = Arc::new(rec);
                let (derivations, montage_errors) = Montage::AsRecorded.derivations(rec.channels());
                let page_s = settings.page_s;
                let view =
                    ViewState::new(derivations.len(), page_s, settings.display_filter.clone(), settings.epoch_grid);
                let r2 = rec.clone();
                let total = Pyramid::block_count(&rec);
                let pyramid_job = Job::spawn("Overview", total, move |p, c| Ok(Pyramid::build(&r2, p, c)?));
                let repairs = rec.repairs();
                let save_path = default_save_path(rec.path());
                let mut open = OpenRecording {
                    rec,
                    duration_s,
                    view,
                    derivations,
                    montage_errors,
                    annotations: AnnotationEditor::new(annotations),
                    selected_annotation: None,
                    traces: Vec::new(),
                    page_key: None,
                    page_generation: 0,
                    trace_texture: None,
                    page_error: None,
                    pyramid: None,
                    pyramid_job: Some(pyramid_job),
                    repairs,
                    properties_open: false,
                    new_annotation_text: String::from("Event"),
                    bipolar_text: String::new(),
                    save_path,
                    draft: None,
                    draft_error: None,
                    cursor: None,
                    spectrum: None,
                    sleep: Default::default(),
                    hrv: Default::default(),
                    connectivity: Default::default(),
                    stats: Default::default(),
                };
                open.refresh_page();
                // Rows share roughly 600 points of height in the default window.
                let row_mm = 600.0 / open.derivations.len().max(1) as f64 / view::POINTS_PER_MM;
                open.view.sensitivity = view::auto_sensitivity(&open.traces, row_mm);
                self.path_field = open.rec.path().display().to_string();
                self.current = Some(open);
                self.error = None;
                self.message = None;
                self.opened = Some(path);
                true
            }
            Err(e) => {
                self.error = Some(e);
                false
            }
        }
    }

    /// Next page, back to the start after the last (used by the frame-time measurement).
    pub fn page_forward_wrapping(&mut self) {
        if let Some(o) = &self.current {
            let next = o.view.start_s + o.view.page_s;
            self.commands.push(Cmd::GoTo(if next + o.view.page_s > o.duration_s + 1e-9 { 0.0 } else { next }));
        }
    }

    /// True when the page is drawn and no job runs.
    pub fn settled(&self) -> bool {
        self.current.as_ref().is_none_or(|o| {
            o.pyramid_job.is_none()
                && o.page_key.is_some()
                && o.spectrum.as_ref().is_none_or(|s| !s.busy())
                && !o.hrv.busy()
                && !o.connectivity.busy()
                && !o.stats.busy()
                && !o.sleep.busy()
        })
    }

    /// Opens the spectrum panel of the current recording.
    pub fn open_spectrum(&mut self) {
        if let Some(o) = &mut self.current
            && o.spectrum.is_none()
        {
            o.spectrum = Some(spectrum::SpectrumPanel::new(&o.rec));
        }
    }

    /// Opens the HRV window of the current recording and computes it on its ECG channel (if one is named so).
    pub fn open_hrv(&mut self) {
        if let Some(o) = &mut self.current {
            o.hrv.open = true;
            o.hrv.pick_ecg(&o.rec);
            o.hrv.compute(&o.rec);
        }
    }

    /// Draws the room and applies the commands collected while drawing.
    fn draw(&mut self, ui: &mut egui::Ui, settings: &mut Settings) {
        if let Some(o) = &mut self.current {
            o.poll_jobs(ui.ctx(), &mut self.message);
        }
        toolbar::show(ui, self);
        if let Some(p) = &mut self.prompt {
            match open_prompt::window(ui.ctx(), p) {
                Some(open_prompt::Answer::Open(path, options)) => {
                    self.open_with(path, options, settings);
                }
                Some(open_prompt::Answer::Cancel) => self.prompt = None,
                None => {}
            }
        }
        if let Some(e) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, format!("Error: {e}"));
        }
        if self.bids.open {
            bids_window::window(ui.ctx(), &mut self.bids, self.current.as_ref(), &mut self.commands);
        }
        let mut cmds = std::mem::take(&mut self.commands);
        match &mut self.current {
            Some(o) => {
                if !o.repairs.is_empty() {
                    properties::repair_banner(ui, o);
                }
                egui::Panel::right("rec_side").default_size(300.0).show(ui, |ui| side_panel::show(ui, o, &mut cmds));
                egui::Panel::bottom("rec_overview").exact_size(56.0).show(ui, |ui| overview::show(ui, o, &mut cmds));
                if let Some(h) = &o.sleep.hypnogram {
                    let h = h.clone();
                    let (start, page_s, dur) = (o.view.start_s, o.view.page_s, o.duration_s);
                    egui::Panel::bottom("rec_hypnogram")
                        .exact_size(30.0)
                        .show(ui, |ui| sleep_window::hypnogram_strip(ui, &h, (start, page_s), dur));
                }
                if let Some(sp) = &mut o.spectrum {
                    sp.refresh(&o.rec, (o.view.start_s, o.view.page_s), ui.ctx());
                    let rec = o.rec.clone();
                    egui::Panel::bottom("rec_spectrum").resizable(true).default_size(270.0).show(ui, |ui| {
                        spectrum::show(ui, &rec, sp, (o.view.start_s, o.view.page_s), &mut self.message)
                    });
                }
                egui::CentralPanel::default().show(ui, |ui| traces::show(ui, o, &mut cmds));
                properties::window(ui.ctx(), o);
                let page = (o.view.start_s, o.view.page_s);
                if o.sleep.open {
                    sleep_window::show(ui.ctx(), &mut o.sleep, &o.rec, page);
                }
                if o.hrv.open {
                    hrv_window::show(ui.ctx(), &mut o.hrv, &o.rec);
                }
                if o.connectivity.open {
                    connectivity_window::show(ui.ctx(), &mut o.connectivity, &o.rec, page);
                }
                if o.stats.open {
                    stats_window::show(ui.ctx(), &mut o.stats, &o.rec, page);
                }
            }
            None => {
                ui.vertical_centered(|ui| {
                    ui.add_space(80.0);
                    ui.heading("Open a recording");
                    ui.label("EDF/EDF+/BDF, GDF, BrainVision (.vhdr), Neuroscan (.cnt), EEGLAB (.set), FIF (.fif), arrays (.npy, .npz, .mat, .csv), or a BIDS dataset (BIDS…)");
                    ui.label("File > Open…, drop a file here, or type a path above.");
                });
            }
        }
        for c in cmds {
            self.apply(c, settings);
        }
        if let Some(o) = &mut self.current {
            o.refresh_page();
        }
    }

    fn apply(&mut self, cmd: Cmd, settings: &mut Settings) {
        if let Cmd::Open(p) = cmd {
            self.open(p, settings);
            return;
        }
        let Some(o) = &mut self.current else { return };
        let dur = o.duration_s;
        match cmd {
            Cmd::Open(_) => {}
            Cmd::PageBy(n) => o.view.page_by(n, dur),
            Cmd::GoTo(t) => o.view.go_to(t, dur),
            Cmd::SetPageLength(s) => {
                o.view.page_s = s;
                settings.page_s = s;
                o.view.go_to(o.view.start_s, dur);
            }
            Cmd::StepSensitivity(n) => o.view.step_sensitivity(n),
            Cmd::SetSensitivity(s) => o.view.sensitivity = s,
            Cmd::SetMontage(m) => {
                let (d, errors) = m.derivations(o.rec.channels());
                if d.is_empty() {
                    o.montage_errors =
                        if errors.is_empty() { vec!["the montage has no derivations".into()] } else { errors };
                    return;
                }
                o.view.reset_channels(d.len());
                o.derivations = d;
                o.montage_errors = errors;
                o.view.montage = m;
            }
            Cmd::SetFilter(f) => {
                settings.display_filter = f.clone();
                o.view.filter = f;
            }
            Cmd::SetEpochGrid(on) => {
                o.view.epoch_grid = on;
                settings.epoch_grid = on;
            }
            Cmd::AddAnnotation(a) => o.selected_annotation = Some(o.annotations.add(a)),
            Cmd::UpdateAnnotation(i, a) => o.selected_annotation = o.annotations.update(i, a).or(o.selected_annotation),
            Cmd::DeleteAnnotation(i) => {
                o.annotations.remove(i);
                o.selected_annotation = None;
            }
            Cmd::SelectAnnotation(i) => o.selected_annotation = i,
            Cmd::Undo => {
                o.annotations.undo();
                o.selected_annotation = None;
            }
            Cmd::Redo => {
                o.annotations.redo();
                o.selected_annotation = None;
            }
            Cmd::SaveAs(path) => match save_with_annotations(&o.rec, o.annotations.items(), &path) {
                Ok(()) => {
                    o.annotations.mark_saved();
                    self.message =
                        Some(format!("Saved {} annotations to {}", o.annotations.items().len(), path.display()));
                    self.error = None;
                }
                Err(e) => self.error = Some(format!("{e:#}")),
            },
            Cmd::SetVisible(i, v) => {
                if let Some(x) = o.view.visible.get_mut(i) {
                    *x = v;
                }
            }
            Cmd::MoveChannel(i, delta) => {
                if let Some(pos) = o.view.order.iter().position(|&k| k == i) {
                    let to = (pos as i64 + delta as i64).clamp(0, o.view.order.len() as i64 - 1) as usize;
                    let k = o.view.order.remove(pos);
                    o.view.order.insert(to, k);
                }
            }
            Cmd::ChannelGain(i, factor) => {
                if let Some(g) = o.view.gain.get_mut(i) {
                    *g = (*g * factor).clamp(1.0 / 64.0, 64.0);
                }
            }
        }
    }
}

impl OpenRecording {
    /// Recomputes the displayed traces when the window, montage or filter changed.
    fn refresh_page(&mut self) {
        let key = (self.view.start_s, self.view.page_s, self.view.montage.clone(), self.view.filter.clone());
        if self.page_key.as_ref() == Some(&key) {
            return;
        }
        match compute_page(&self.rec, &self.derivations, &self.view.filter, self.view.start_s, self.view.page_s) {
            Ok(t) => {
                self.traces = t;
                self.page_error = None;
            }
            Err(e) => self.page_error = Some(e.to_string()),
        }
        self.page_key = Some(key);
        self.page_generation += 1;
    }

    fn poll_jobs(&mut self, ctx: &egui::Context, message: &mut Option<String>) {
        if let Some(job) = &mut self.pyramid_job {
            match job.poll() {
                Some(Ok(p)) => {
                    self.pyramid = p.map(Arc::new);
                    self.pyramid_job = None;
                }
                Some(Err(e)) => {
                    *message = Some(format!("Overview failed: {e:#}"));
                    self.pyramid_job = None;
                }
                None => ctx.request_repaint_after(std::time::Duration::from_millis(50)),
            }
        }
    }
}

/// "night.edf" → "night_annotated.edf" beside it (a new file: the original is never overwritten).
fn default_save_path(src: &std::path::Path) -> String {
    let stem = src.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "recording".into());
    // EDF/BDF keep their extension; other formats are saved as BDF+ (copy_template).
    let ext = match src.extension().map(|s| s.to_string_lossy().to_lowercase()) {
        Some(e) if e == "edf" || e == "bdf" => e,
        _ => "bdf".into(),
    };
    src.with_file_name(format!("{stem}_annotated.{ext}")).display().to_string()
}

impl OpenRecording {
    /// Every job slot of the recording's panels.
    fn job_slots(&self) -> Vec<&dyn JobSlot> {
        let mut slots: Vec<&dyn JobSlot> = vec![
            &self.pyramid_job,
            &self.hrv.job,
            &self.connectivity.job,
            &self.stats.job,
            &self.sleep.stage_job,
            &self.sleep.night_job,
        ];
        if let Some(sp) = &self.spectrum {
            slots.push(&sp.job);
            slots.push(&sp.sg_job);
        }
        slots
    }
}

impl Room for RecordingsRoom {
    fn show(&mut self, ui: &mut egui::Ui, shell: &mut Shell) {
        self.draw(ui, shell.settings);
        // A connectivity matrix opens in the Networks room; an opened file goes on the recent list.
        if let Some(p) = self.current.as_mut().and_then(|o| o.connectivity.to_open.take()) {
            shell.commands.push(AppCmd::Open(p));
        }
        if let Some(p) = self.opened.take() {
            shell.commands.push(AppCmd::Remember(p));
        }
    }

    fn status(&self) -> String {
        if let Some(m) = &self.message {
            return m.clone();
        }
        match &self.current {
            Some(o) => {
                let mut s = format!(
                    "{}  ·  {}  ·  {} channels  ·  {}",
                    o.rec.path().file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
                    o.rec.format_name(),
                    o.rec.channels().len(),
                    traces::clock(o.duration_s)
                );
                if let Some((t, label, v, unit)) = &o.cursor {
                    s.push_str(&format!("  ·  {} {label} = {v:.2} {unit}", traces::clock(*t)));
                }
                s
            }
            None => "No recording open".into(),
        }
    }

    fn jobs(&self) -> Vec<JobStatus> {
        self.current.as_ref().map(|o| running(&o.job_slots())).unwrap_or_default()
    }

    fn cancel(&mut self) {
        if let Some(o) = &self.current {
            cancel_all(&o.job_slots());
        }
    }

    fn settled(&self) -> bool {
        // The inherent method (tests call it without the trait in scope).
        RecordingsRoom::settled(self)
    }
}
