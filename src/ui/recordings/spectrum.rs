//! Spectrum panel of the Recordings room: Welch PSD of the recorded channels over the current page or the
//! whole recording (a background job with progress and cancel), drawn on a log power axis with the bands
//! shaded, and a band-power table (absolute µV², or relative % of a total range) exportable as CSV.
//! Channels are as recorded (before montage and display filters), as `brainlens psd/bandpower` compute them.

use crate::signal::Recording;
use crate::signal::bands::{self, Band};
use crate::signal::spectrum::file::channel_psds;
use crate::signal::spectrum::spectrogram::{Spectrogram, downsample_rows, multitaper_cdsa, spectrogram};
use crate::signal::spectrum::{
    Average, Integration, Psd, WelchParams, Window, band_power, peak_frequency, relative_band_power,
};
use crate::ui::jobs::Job;
use crate::ui::widgets::explore::{self, PlotView};
use crate::ui::widgets::palette::category;
use egui::{Align2, Color32, Rect, Sense, Stroke, pos2, vec2};
use egui_plot::{HoverPosition, Legend, Line, Plot, PlotPoint, Span, Text, VLine};
use std::sync::Arc;
use std::sync::atomic::Ordering;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Page,
    Recording,
}

/// What the PSDs were computed over (recomputed when it changes).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Key {
    start: f64,
    duration: Option<f64>,
    segment_s: f64,
    window: Window,
    average: Average,
}

pub struct SpectrumPanel {
    pub scope: Scope,
    /// Welch segment length in seconds (nperseg = segment × rate; 50 % overlap).
    pub segment_s: f64,
    pub window: Window,
    pub average: Average,
    pub relative: bool,
    pub integration: Integration,
    /// Total range of relative power.
    pub total: (f64, f64),
    pub log_power: bool,
    pub max_hz: f64,
    /// A frequency range to show, asked for outside the plot (a band's zoom button, `--spectrum-zoom`): applied
    /// on the next frame, power fitted to it.
    pub zoom_to: Option<(f64, f64)>,
    /// The plot's last drawn view (zoom and pan change it).
    pub view: Option<PlotView>,
    /// The frequency of the read-out under the plot: where the cursor is, or last was, over it.
    pub cursor_hz: Option<f64>,
    /// The power axis the plot was last drawn with (log or not): a switch refits the power to the view.
    drawn_log: Option<bool>,
    /// Channels drawn (indices into the recording's channels).
    pub shown: Vec<usize>,
    key: Option<Key>,
    pub(crate) job: Option<(Key, Job<Vec<Psd>>)>,
    pub psds: Option<Arc<Vec<Psd>>>,
    pub error: Option<String>,
    /// Whole-recording spectrogram of one channel (4-s Hann segments, or the 30-s CDSA from an hour on).
    pub spectrogram: Option<(usize, Arc<Spectrogram>)>,
    pub(crate) sg_job: Option<(usize, Job<Spectrogram>)>,
    sg_texture: Option<(usize, egui::TextureHandle)>,
    /// The bands of the table, the plot's shading and the scalp map: `signal::bands` unless the user edits them.
    pub bands: Vec<Band>,
    /// Band index (into `bands`) the scalp map shows.
    pub topo_band: usize,
    /// Electrode positions: the recording's `<stem>_positions.csv`, else standard 10-20 (None: unknown).
    positions: Vec<Option<[f64; 3]>>,
    topo_texture: Option<(u64, egui::TextureHandle, crate::signal::topomap::TopoMap)>,
}

impl SpectrumPanel {
    pub fn new(rec: &Recording) -> SpectrumPanel {
        SpectrumPanel {
            scope: Scope::Page,
            segment_s: 2.0,
            window: Window::Hann,
            average: Average::Mean,
            relative: false,
            integration: Integration::Trapezoid,
            total: (0.5, 45.0),
            log_power: true,
            max_hz: rec.channels().iter().map(|c| c.sample_rate / 2.0).fold(0.0, f64::max).min(60.0),
            zoom_to: None,
            view: None,
            cursor_hz: None,
            drawn_log: None,
            shown: (0..rec.channels().len().min(3)).collect(),
            key: None,
            job: None,
            psds: None,
            error: None,
            spectrogram: None,
            sg_job: None,
            sg_texture: None,
            bands: bands::table(),
            topo_band: 2,
            positions: {
                let labels: Vec<String> = rec.channels().iter().map(|c| c.label.clone()).collect();
                let own = crate::signal::topomap::recording_positions(rec, None).ok().flatten();
                crate::signal::topomap::positions_for(&labels, own.as_deref())
            },
            topo_texture: None,
        }
    }

    pub fn busy(&self) -> bool {
        self.job.is_some() || self.sg_job.is_some()
    }

    /// The channel the spectrogram shows: the first one drawn in the PSD plot.
    pub fn spectrogram_channel(&self) -> Option<usize> {
        self.shown.first().copied()
    }

    /// Starts the spectrogram job for the first shown channel when it changed; collects a finished one.
    fn refresh_spectrogram(&mut self, rec: &Arc<Recording>, ctx: &egui::Context) {
        if let Some((c, job)) = &mut self.sg_job {
            match job.poll() {
                Some(Ok(Some(s))) => {
                    self.spectrogram = Some((*c, Arc::new(s)));
                    self.sg_job = None;
                }
                Some(Ok(None)) => self.sg_job = None,
                Some(Err(e)) => {
                    self.error = Some(format!("spectrogram: {e:#}"));
                    self.sg_job = None;
                }
                None => ctx.request_repaint_after(std::time::Duration::from_millis(30)),
            }
        }
        let Some(want) = self.spectrogram_channel() else { return };
        let have = self.spectrogram.as_ref().map(|(c, _)| *c);
        let pending = self.sg_job.as_ref().map(|(c, _)| *c);
        if have == Some(want) || pending == Some(want) {
            return;
        }
        let rec = rec.clone();
        let job = Job::spawn("Spectrogram", 1, move |_, _| {
            let fs = rec.channels()[want].sample_rate;
            let d = rec.read(&[want], 0.0, rec.duration_s()? + 1.0)?.remove(0);
            // Recordings of an hour or more: the 30-s-epoch multitaper CDSA (1-Hz bandwidth) of sleep studies;
            // shorter ones: 4-s Hann segments.
            let s = if d.values.len() as f64 / fs >= 3600.0 {
                multitaper_cdsa(&d.values, fs, 30.0, Some(1.0))
            } else {
                let p = WelchParams { nperseg: Some((4.0 * fs) as usize), noverlap: Some(0), ..Default::default() };
                spectrogram(&d.values, fs, &p)
            }
            .map_err(|e| anyhow::anyhow!(e))?;
            Ok(Some(downsample_rows(&s, 1500)))
        });
        self.sg_job = Some((want, job));
    }

    pub fn cancel(&self) {
        if let Some((_, j)) = &self.job {
            j.cancel();
        }
    }

    /// Starts a job when the window or parameters changed; collects a finished one.
    pub fn refresh(&mut self, rec: &Arc<Recording>, page: (f64, f64), ctx: &egui::Context) {
        self.refresh_spectrogram(rec, ctx);
        let (start, duration) = match self.scope {
            Scope::Page => (page.0, Some(page.1)),
            Scope::Recording => (0.0, None),
        };
        let key = Key { start, duration, segment_s: self.segment_s, window: self.window, average: self.average };
        if let Some((k, job)) = &mut self.job {
            if let Some(result) = job.poll() {
                let k = k.clone();
                self.job = None;
                match result {
                    Ok(Some(p)) => {
                        self.psds = Some(Arc::new(p));
                        self.error = None;
                        self.key = Some(k);
                    }
                    Ok(None) => self.key = Some(k),
                    Err(e) => {
                        self.error = Some(format!("{e:#}"));
                        self.key = Some(k);
                    }
                }
            } else {
                ctx.request_repaint_after(std::time::Duration::from_millis(30));
            }
        }
        let pending = self.job.as_ref().map(|(k, _)| k);
        if self.key.as_ref() == Some(&key) || pending == Some(&key) {
            return;
        }
        if let Some((_, j)) = &self.job {
            j.cancel();
        }
        let rec = rec.clone();
        let k2 = key.clone();
        let chans: Vec<usize> = (0..rec.channels().len()).collect();
        let job = Job::spawn("Spectrum", 1000, move |progress, cancel| {
            let fs = rec.channels().first().map_or(1.0, |c| c.sample_rate);
            let p = WelchParams {
                nperseg: Some(((k2.segment_s * fs).round() as usize).max(2)),
                window: k2.window,
                average: k2.average,
                ..Default::default()
            };
            match channel_psds(&rec, &chans, k2.start, k2.duration, &p, cancel, &|f| {
                progress.store((f * 1000.0) as u64, Ordering::Relaxed)
            }) {
                Ok(v) => Ok(Some(v)),
                Err(_) if cancel.is_cancelled() => Ok(None),
                Err(e) => Err(anyhow::anyhow!(e)),
            }
        });
        self.job = Some((key, job));
        ctx.request_repaint_after(std::time::Duration::from_millis(30));
    }

    /// Band power of channel `c` in band `b` as shown (absolute, or relative in %).
    pub fn value(&self, c: usize, lo: f64, hi: f64) -> Result<f64, String> {
        let psd = &self.psds.as_ref().ok_or("not computed")?[c];
        if self.relative {
            Ok(100.0 * relative_band_power(psd, (lo, hi), self.total, self.integration)?)
        } else {
            Ok(band_power(psd, lo, hi, self.integration)?)
        }
    }

    /// The band-power table as CSV (channel, one column per band, peak alpha frequency).
    pub fn table_csv(&self, rec: &Recording) -> String {
        let unit = if self.relative { "%" } else { "abs" };
        let mut out = String::from("channel");
        for Band { name, lo, hi } in &self.bands {
            out += &format!(",{name} {lo}-{hi} Hz ({unit})");
        }
        out += ",peak 7-13 Hz\n";
        for (c, ch) in rec.channels().iter().enumerate() {
            out += &ch.label.replace(',', " ");
            for b in &self.bands {
                out += &format!(",{}", self.value(c, b.lo, b.hi).map_or(String::new(), |v| v.to_string()));
            }
            let peak = self.psds.as_ref().and_then(|p| peak_frequency(&p[c], 7.0, 13.0));
            out += &format!(",{}\n", peak.map_or(String::new(), |v| v.to_string()));
        }
        out
    }
}

/// Draws the panel: controls, the PSD plot and the band-power table.
pub fn show(
    ui: &mut egui::Ui,
    rec: &Recording,
    sp: &mut SpectrumPanel,
    page: (f64, f64),
    message: &mut Option<String>,
) {
    ui.horizontal_wrapped(|ui| {
        ui.strong("Spectrum");
        ui.radio_value(&mut sp.scope, Scope::Page, "page");
        ui.radio_value(&mut sp.scope, Scope::Recording, "whole recording");
        ui.add(egui::Slider::new(&mut sp.segment_s, 0.5..=8.0).step_by(0.5).text("segment s"));
        egui::ComboBox::from_id_salt("psd_window").selected_text(sp.window.name()).show_ui(ui, |ui| {
            for w in [Window::Hann, Window::Hamming, Window::Blackman, Window::Boxcar] {
                ui.selectable_value(&mut sp.window, w, w.name());
            }
        });
        ui.radio_value(&mut sp.average, Average::Mean, "mean");
        ui.radio_value(&mut sp.average, Average::Median, "median");
        ui.checkbox(&mut sp.log_power, "log power");
        ui.add(egui::Slider::new(&mut sp.max_hz, 5.0..=250.0).logarithmic(true).text("max Hz"));
        if sp.busy() {
            ui.spinner();
            if ui.small_button("Cancel").clicked() {
                sp.cancel();
            }
        }
    });
    if let Some(e) = &sp.error {
        ui.colored_label(ui.visuals().error_fg_color, format!("Spectrum: {e}"));
    }
    let Some(psds) = sp.psds.clone() else {
        ui.label("computing…");
        return;
    };
    let avail = ui.available_width();
    let map_w = 170.0;
    let picker_w = 110.0;
    let plot_w = ((avail - map_w - picker_w) * 0.5).max(240.0);
    let table_w = (avail - map_w - picker_w - plot_w - 30.0).max(200.0);
    ui.horizontal_top(|ui| {
        ui.vertical(|ui| {
            ui.set_width(picker_w);
            channel_picker(ui, rec, sp);
        });
        ui.vertical(|ui| {
            ui.set_width(plot_w);
            plot(ui, rec, sp, &psds, plot_w);
        });
        ui.vertical(|ui| {
            ui.set_width(map_w - 10.0);
            scalp_map(ui, sp)
        });
        ui.vertical(|ui| {
            ui.set_width(table_w);
            table(ui, rec, sp, message)
        });
    });
    spectrogram_strip(ui, rec, sp, page);
}

/// The whole recording's spectrogram of the first shown channel (log power, 0 to the plot's max Hz), with
/// the current page outlined.
fn spectrogram_strip(ui: &mut egui::Ui, rec: &Recording, sp: &mut SpectrumPanel, page: (f64, f64)) {
    let Some((c, s)) = sp.spectrogram.clone() else {
        if sp.sg_job.is_some() {
            ui.label("computing the spectrogram…");
        }
        return;
    };
    let nf_show = s.freqs.iter().take_while(|f| **f <= sp.max_hz).count().max(2);
    let key = (Arc::as_ptr(&s) as usize) ^ nf_show.rotate_left(40);
    if sp.sg_texture.as_ref().is_none_or(|(k, _)| *k != key) {
        let cols = s.times.len();
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        let logs: Vec<f64> = s.power.iter().map(|v| v.max(1e-30).log10()).collect();
        let mut sorted: Vec<f64> = logs.iter().copied().filter(|v| v.is_finite()).collect();
        sorted.sort_by(f64::total_cmp);
        if !sorted.is_empty() {
            lo = sorted[sorted.len() / 50];
            hi = sorted[sorted.len() - 1 - sorted.len() / 200];
        }
        let nf = s.freqs.len();
        let mut img = egui::ColorImage::filled([cols, nf_show], Color32::BLACK);
        for t in 0..cols {
            for f in 0..nf_show {
                let v = ((logs[t * nf + f] - lo) / (hi - lo).max(1e-9)) as f32;
                let [r, g, b] = crate::signal::topomap::colormap(v as f64);
                img.pixels[(nf_show - 1 - f) * cols + t] = Color32::from_rgb(r, g, b);
            }
        }
        sp.sg_texture = Some((key, ui.ctx().load_texture("spectrogram", img, egui::TextureOptions::LINEAR)));
    }
    let kind =
        if s.times.len() > 1 && s.times[1] - s.times[0] >= 29.0 { "30-s multitaper CDSA" } else { "4-s Hann segments" };
    ui.label(format!(
        "Spectrogram of {} (whole recording, {kind}, log power, 0–{:.0} Hz)",
        rec.channels()[c].label,
        s.freqs[nf_show - 1]
    ));
    let (rect, _) = ui.allocate_exact_size(vec2(ui.available_width(), 80.0), Sense::hover());
    if let Some((_, tex)) = &sp.sg_texture {
        ui.painter().image(tex.id(), rect, Rect::from_min_max(pos2(0.0, 0.0), pos2(1.0, 1.0)), Color32::WHITE);
    }
    let total = s.times.last().copied().unwrap_or(1.0) + s.times.first().copied().unwrap_or(0.0);
    let x = |t: f64| rect.left() + rect.width() * (t / total.max(1e-9)) as f32;
    let page_rect = Rect::from_x_y_ranges(x(page.0)..=x(page.0 + page.1).max(x(page.0) + 2.0), rect.y_range());
    ui.painter().rect_stroke(page_rect, 0.0, Stroke::new(1.5, Color32::WHITE), egui::StrokeKind::Inside);
}

fn channel_picker(ui: &mut egui::Ui, rec: &Recording, sp: &mut SpectrumPanel) {
    ui.label("channels");
    egui::ScrollArea::vertical().id_salt("psd_channels").max_height(170.0).show(ui, |ui| {
        for (c, ch) in rec.channels().iter().enumerate() {
            let mut on = sp.shown.contains(&c);
            if ui.checkbox(&mut on, &ch.label).changed() {
                if on {
                    sp.shown.push(c);
                } else {
                    sp.shown.retain(|&x| x != c);
                }
            }
        }
    });
}

/// The PSDs of the shown channels as an explorable plot: drag or wheel pans, Ctrl+wheel zooms, a right-button
/// drag zooms to a box, a double click shows everything again; the bands shaded; power on a log10 axis when
/// `log_power`. Under it: zoom-to-band buttons and the read-out of every shown channel at the cursor.
fn plot(ui: &mut egui::Ui, rec: &Recording, sp: &mut SpectrumPanel, psds: &[Psd], w: f32) {
    let fmax = sp.max_hz;
    let log = sp.log_power;
    let y_of = |v: f64| if log { v.max(1e-30).log10() } else { v };
    let series: Vec<Vec<[f64; 2]>> = sp
        .shown
        .iter()
        .map(|&c| {
            let psd = &psds[c];
            psd.freqs
                .iter()
                .zip(&psd.psd)
                .filter(|(f, _)| **f <= fmax && (!log || **f > 0.0))
                .map(|(f, v)| [*f, y_of(*v)])
                .collect()
        })
        .collect();
    if series.iter().all(Vec::is_empty) {
        ui.weak("pick a channel");
        return;
    }
    let unit = rec.channels().first().map_or("", |c| c.physical_dimension.as_str());
    let y_label = if log { format!("log10 {unit}²/Hz") } else { format!("{unit}²/Hz") };
    let names: Vec<String> = sp.shown.iter().map(|&c| rec.channels()[c].label.clone()).collect();
    let bands = sp.bands.clone();
    if sp.drawn_log.is_some_and(|l| l != log) {
        // The view's power range was in the other axis' units: keep the frequencies, refit the power.
        sp.zoom_to = sp.zoom_to.or(sp.view.map(|v| v.x));
    }
    sp.drawn_log = Some(log);
    let mut zoom_to = sp.zoom_to.take();
    let cursor = sp.cursor_hz;
    let mut plot = Plot::new("spectrum_psd")
        .width(w)
        .height(190.0)
        .x_axis_label("Hz")
        .y_axis_label(y_label)
        .legend(Legend::default())
        .include_x(0.0)
        .include_x(fmax)
        .label_formatter(move |h| match h {
            HoverPosition::NearDataPoint { plot_name, position: p, .. } if !plot_name.is_empty() => {
                let v = if log { 10f64.powf(p.y) } else { p.y };
                Some(format!("{plot_name}\n{:.2} Hz: {v:.3e}", p.x))
            }
            HoverPosition::NearDataPoint { position: p, .. } | HoverPosition::Elsewhere { position: p } => {
                Some(format!("{:.2} Hz", p.x))
            }
        });
    if log {
        plot = plot.y_axis_formatter(explore::log_label);
    }
    let resp = plot.show(ui, |pu| {
        explore::apply_zoom(pu, &mut zoom_to, &series);
        // The bands unnamed as items (a name would put them in the legend, which is the channels'), their
        // names written at the top of the view.
        let top = pu.plot_bounds().max()[1];
        for (k, b) in bands.iter().enumerate().filter(|(_, b)| b.lo < fmax) {
            let fill = if k % 2 == 0 {
                Color32::from_rgba_unmultiplied(120, 160, 255, 28)
            } else {
                Color32::from_rgba_unmultiplied(255, 200, 120, 24)
            };
            let hi = b.hi.min(fmax);
            pu.add(Span::new("", b.lo..=hi).fill(fill).border_width(0.0));
            pu.text(
                Text::new("", PlotPoint::new((b.lo + hi) / 2.0, top), egui::RichText::new(&b.name).size(10.0))
                    .anchor(Align2::CENTER_TOP),
            );
        }
        for (k, (name, pts)) in names.iter().zip(&series).enumerate() {
            pu.line(Line::new(name.clone(), pts.clone()).color(category(k)).width(1.3));
        }
        if let Some(f) = cursor {
            pu.add(VLine::new("", f).color(Color32::from_gray(150)).width(0.8));
        }
        pu.pointer_coordinate().map(|p| p.x)
    });
    sp.view = Some(PlotView::of(&resp));
    if let Some(f) = resp.inner.filter(|f| (0.0..=fmax).contains(f)) {
        sp.cursor_hz = Some(f);
    }
    ui.horizontal_wrapped(|ui| {
        ui.weak("zoom to");
        for b in sp.bands.iter().filter(|b| b.lo < fmax) {
            if ui.small_button(&b.name).on_hover_text(format!("{}–{} Hz", b.lo, b.hi)).clicked() {
                sp.zoom_to = Some((b.lo, b.hi.min(fmax)));
            }
        }
        if ui.small_button("all").on_hover_text("the whole range (or double-click the plot)").clicked() {
            sp.zoom_to = Some((0.0, fmax));
        }
    });
    ui.label(readout(rec, sp, psds).unwrap_or_else(|| "read-out: move the cursor over the plot".into()));
}

/// The read-out under the PSD plot: each shown channel's power at the frequency bin nearest the cursor.
pub fn readout(rec: &Recording, sp: &SpectrumPanel, psds: &[Psd]) -> Option<String> {
    let f = sp.cursor_hz?;
    let unit = rec.channels().first().map_or("", |c| c.physical_dimension.as_str());
    let values: Vec<String> = sp
        .shown
        .iter()
        .filter_map(|&c| {
            let psd = psds.get(c)?;
            let k = explore::nearest(&psd.freqs, f)?;
            Some(format!("{} {:.3e}", rec.channels()[c].label, psd.psd[k]))
        })
        .collect();
    let bin =
        sp.shown.first().and_then(|&c| psds.get(c)).and_then(|p| Some(p.freqs[explore::nearest(&p.freqs, f)?]))?;
    Some(format!("at {bin:.2} Hz ({unit}²/Hz): {}", values.join(" · ")))
}

fn table(ui: &mut egui::Ui, rec: &Recording, sp: &mut SpectrumPanel, message: &mut Option<String>) {
    ui.horizontal_wrapped(|ui| {
        ui.strong("Band power");
        ui.radio_value(&mut sp.relative, false, "absolute");
        ui.radio_value(&mut sp.relative, true, format!("relative % of {}–{} Hz", sp.total.0, sp.total.1));
        egui::ComboBox::from_id_salt("bp_integration")
            .selected_text(match sp.integration {
                Integration::Trapezoid => "trapezoid",
                Integration::Simpson => "simpson",
            })
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut sp.integration, Integration::Trapezoid, "trapezoid");
                ui.selectable_value(&mut sp.integration, Integration::Simpson, "simpson");
            });
        if ui.button("Export CSV").clicked() {
            let default = rec.path().with_extension("bandpower.csv");
            let name = default.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
            if let Some(p) = rfd::FileDialog::new().set_file_name(name).save_file() {
                *message = Some(match std::fs::write(&p, sp.table_csv(rec)) {
                    Ok(()) => format!("wrote {}", p.display()),
                    Err(e) => format!("{}: cannot write: {e}", p.display()),
                });
            }
        }
    });
    egui::CollapsingHeader::new("Band edges").id_salt("band_edges").show(ui, |ui| band_editor(ui, &mut sp.bands));
    egui::ScrollArea::both().id_salt("bandpower_table").max_height(170.0).show(ui, |ui| {
        egui::Grid::new("bandpower_grid").striped(true).show(ui, |ui| {
            ui.strong("channel");
            for Band { name, lo, hi } in &sp.bands {
                ui.strong(name).on_hover_text(format!("{lo}–{hi} Hz"));
            }
            ui.strong("peak α");
            ui.end_row();
            for (c, ch) in rec.channels().iter().enumerate() {
                ui.label(&ch.label);
                for b in &sp.bands {
                    match sp.value(c, b.lo, b.hi) {
                        Ok(v) if sp.relative => ui.label(format!("{v:.1}")),
                        Ok(v) => ui.label(format!("{v:.3}")),
                        Err(e) => ui.weak("–").on_hover_text(e),
                    };
                }
                let peak = sp.psds.as_ref().and_then(|p| peak_frequency(&p[c], 7.0, 13.0));
                ui.label(peak.map_or("–".into(), |f| format!("{f:.2} Hz")));
                ui.end_row();
            }
        });
    });
}

/// The band edges, editable (e.g. alpha 8–13 Hz as the IFCN glossary defines it); reset restores the table.
fn band_editor(ui: &mut egui::Ui, bands: &mut [Band]) {
    ui.weak("Hz, both edges included");
    egui::Grid::new("band_edges").show(ui, |ui| {
        for b in bands.iter_mut() {
            ui.label(&b.name);
            let hi = b.hi;
            ui.add(egui::DragValue::new(&mut b.lo).range(0.0..=hi - 0.1).speed(0.1));
            let lo = b.lo;
            ui.add(egui::DragValue::new(&mut b.hi).range(lo + 0.1..=500.0).speed(0.1));
            ui.end_row();
        }
    });
    if ui.button("Reset to the default table (YASA: alpha 8–12)").clicked() {
        bands.clone_from_slice(&bands::table());
    }
}

/// Scalp map of one band's power (absolute or relative, as the table) over the channels with positions.
fn scalp_map(ui: &mut egui::Ui, sp: &mut SpectrumPanel) {
    use crate::signal::topomap::{project, topomap};
    let chans: Vec<usize> = (0..sp.positions.len()).filter(|&c| sp.positions[c].is_some()).collect();
    if chans.len() < 3 {
        ui.weak("no scalp map: fewer than 3 channels with electrode positions");
        return;
    }
    sp.topo_band = sp.topo_band.min(sp.bands.len().saturating_sub(1));
    let Some(Band { name: topo_name, lo, hi }) = sp.bands.get(sp.topo_band).cloned() else { return };
    egui::ComboBox::from_id_salt("topo_band").selected_text(&topo_name).show_ui(ui, |ui| {
        for (k, b) in sp.bands.iter().enumerate() {
            ui.selectable_value(&mut sp.topo_band, k, &b.name);
        }
    });
    let Some(psds) = sp.psds.clone() else { return };
    let key = (Arc::as_ptr(&psds) as u64)
        ^ ((sp.topo_band as u64) << 56)
        ^ (u64::from(sp.relative) << 60)
        ^ lo.to_bits().rotate_left(7)
        ^ hi.to_bits().rotate_left(29);
    if sp.topo_texture.as_ref().is_none_or(|(k, _, _)| *k != key) {
        let values: Vec<Option<f64>> = chans.iter().map(|&c| sp.value(c, lo, hi).ok()).collect();
        let kept: Vec<(usize, f64)> = chans.iter().zip(&values).filter_map(|(&c, v)| v.map(|v| (c, v))).collect();
        let xy = project(&kept.iter().map(|(c, _)| sp.positions[*c].expect("filtered")).collect::<Vec<_>>());
        match topomap(kept.iter().map(|(c, _)| c.to_string()).collect(), xy, kept.iter().map(|k| k.1).collect(), 96) {
            Ok(map) => {
                let img = egui::ColorImage::from_rgba_unmultiplied([map.size, map.size], &map.rgba());
                let tex = ui.ctx().load_texture("topomap", img, egui::TextureOptions::LINEAR);
                sp.topo_texture = Some((key, tex, map));
            }
            Err(e) => {
                ui.weak(e.to_string());
                return;
            }
        }
    }
    let Some((_, tex, map)) = &sp.topo_texture else { return };
    let (rect, _) = ui.allocate_exact_size(vec2(150.0, 150.0), Sense::hover());
    let p = ui.painter_at(rect.expand(4.0));
    p.image(tex.id(), rect, Rect::from_min_max(pos2(0.0, 0.0), pos2(1.0, 1.0)), Color32::WHITE);
    let c = rect.center();
    let scale = rect.width() / 2.0 / map.extent as f32;
    let ink = ui.visuals().text_color();
    p.circle_stroke(c, scale, Stroke::new(1.2, ink));
    p.line_segment([c + vec2(-8.0, -scale), c + vec2(0.0, -scale - 9.0)], Stroke::new(1.2, ink));
    p.line_segment([c + vec2(8.0, -scale), c + vec2(0.0, -scale - 9.0)], Stroke::new(1.2, ink));
    for xy in &map.xy {
        p.circle_filled(c + vec2(xy[0] as f32 * scale, -(xy[1] as f32) * scale), 1.5, Color32::BLACK);
    }
    let (min, max) = map.values.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(*v), b.max(*v)));
    ui.label(format!("{topo_name} {lo}–{hi} Hz: {min:.3} … {max:.3}{}", if sp.relative { " %" } else { "" }));
}
