//! The application shell: room tabs, menu, status bar with job progress, About box, settings.

use super::bench::BenchRoom;
use super::networks::{NetworksRoom, is_network_file};
use super::recordings::RecordingsRoom;
use super::room::{self, AppCmd, Shell};
use super::screenshot::{FrameStats, ScreenshotRequest};
use super::settings::{Settings, Theme};
use crate::build_info;
use std::path::PathBuf;

/// The three rooms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Room {
    Recordings,
    Networks,
    Bench,
}

/// The whole app state: persisted settings apart from runtime state (open files, jobs).
pub struct BrainLensApp {
    pub settings: Settings,
    persist: bool,
    pub room: Room,
    pub recordings: RecordingsRoom,
    pub networks: NetworksRoom,
    pub bench: BenchRoom,
    pub about_open: bool,
    pub llm: super::llm::LlmWindow,
    pub screenshot: Option<ScreenshotRequest>,
    pub frame_stats: Option<FrameStats>,
    applied_theme: Option<Theme>,
}

impl BrainLensApp {
    /// A new app; settings come from eframe's storage when there is one and `persist` is true.
    pub fn new(storage: Option<&dyn eframe::Storage>, persist: bool) -> Self {
        let settings = storage
            .filter(|_| persist)
            .and_then(|s| eframe::get_value::<Settings>(s, eframe::APP_KEY))
            .unwrap_or_default();
        Self {
            recordings: RecordingsRoom::new(&settings),
            networks: NetworksRoom::default(),
            bench: BenchRoom::default(),
            settings,
            persist,
            room: Room::Recordings,
            about_open: false,
            llm: Default::default(),
            screenshot: None,
            frame_stats: None,
            applied_theme: None,
        }
    }

    /// Opens a file in the room that reads it: connectome matrices in Networks, recordings in Recordings.
    pub fn open(&mut self, path: PathBuf) {
        if path.is_dir()
            || path.extension().is_some_and(|e| e.eq_ignore_ascii_case("json") || e.eq_ignore_ascii_case("jsonl"))
        {
            return self.open_bench(vec![path]);
        }
        let ok = if is_network_file(&path) {
            self.room = Room::Networks;
            // The room remembers it as its network when it next draws (`NetworksRoom::opened`).
            self.networks.open(path.clone())
        } else {
            self.room = Room::Recordings;
            self.recordings.open(path.clone(), &self.settings)
        };
        if ok {
            self.settings.remember(path);
        }
    }

    /// Opens BrainBench result files or folders in the Bench room (loaded in the background).
    pub fn open_bench(&mut self, paths: Vec<PathBuf>) {
        self.room = Room::Bench;
        for p in &paths {
            self.settings.remember(p.clone());
        }
        self.bench.open(paths);
    }

    /// Draws one frame into `ui` (the whole window) and applies the commands it collected.
    pub fn show(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        if self.applied_theme != Some(self.settings.theme) {
            ctx.set_theme(match self.settings.theme {
                Theme::Dark => egui::Theme::Dark,
                Theme::Light => egui::Theme::Light,
            });
            self.applied_theme = Some(self.settings.theme);
        }
        self.size_to_screen(&ctx);
        let dropped: Vec<PathBuf> = ctx.input(|i| i.raw.dropped_files.iter().map(|f| f.path().to_path_buf()).collect());
        if self.room == Room::Bench && !dropped.is_empty() {
            self.open_bench(dropped);
        } else if let Some(p) = dropped.into_iter().next() {
            // An array (.npy, .npz, .csv, .tsv) dropped on the Recordings room is a recording there; elsewhere
            // it opens by its kind (a connectome in the Networks room).
            let ext = p.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
            if self.room == Room::Recordings && crate::signal::recording::EXTENSIONS.contains(&ext.as_str()) {
                if self.recordings.open(p.clone(), &self.settings) {
                    self.settings.remember(p);
                }
            } else {
                self.open(p);
            }
        }
        egui::Panel::top("menu").show(ui, |ui| self.menu_bar(ui));
        egui::Panel::bottom("status").show(ui, |ui| self.status_bar(ui));
        // Rooms that run a model use the Model window's provider (with the session's key).
        let provider = self.llm.effective(&self.settings.llm);
        let mut commands = Vec::new();
        let mut shell = Shell { settings: &mut self.settings, provider: &provider, commands: &mut commands };
        let current: &mut dyn room::Room = match self.room {
            Room::Recordings => &mut self.recordings,
            Room::Networks => &mut self.networks,
            Room::Bench => &mut self.bench,
        };
        egui::CentralPanel::default().show(ui, |ui| current.show(ui, &mut shell));
        for c in commands {
            match c {
                AppCmd::Open(path) => self.open(path),
                AppCmd::Remember(path) => self.settings.remember(path),
            }
        }
        self.about_window(&ctx);
        self.llm.show(&ctx, &mut self.settings.llm);
    }

    /// At the very first start the window takes 90 % of the screen (at least 1024 × 700, at most 2560 × 1600);
    /// later starts keep the size eframe restored. Not while taking a screenshot or measuring frames.
    fn size_to_screen(&mut self, ctx: &egui::Context) {
        if self.settings.window_sized || self.screenshot.is_some() || self.frame_stats.is_some() {
            return;
        }
        let Some(screen) = ctx.input(|i| i.viewport().monitor_size) else { return };
        let want = (screen * 0.9).clamp(egui::vec2(1024.0, 700.0), egui::vec2(2560.0, 1600.0)).min(screen);
        ctx.send_viewport_cmd(egui::ViewportCommand::InnerSize(want));
        self.settings.window_sized = true;
    }

    fn menu_bar(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            ui.menu_button("File", |ui| {
                if ui.button("Open…").clicked() {
                    ui.close();
                    if let Some(p) = super::recordings::pick_recording() {
                        self.open(p);
                    }
                }
                ui.menu_button("Recent", |ui| {
                    if self.settings.recent_files.is_empty() {
                        ui.label("No recent files");
                    }
                    for p in self.settings.recent_files.clone() {
                        if ui.button(p.display().to_string()).clicked() {
                            ui.close();
                            self.open(p);
                        }
                    }
                });
                if ui.button("Open sample workspace").clicked() {
                    ui.close();
                    self.open(super::sample_workspace());
                }
                ui.menu_button("Open sample network", |ui| {
                    for (name, path) in super::SAMPLE_NETWORKS {
                        if ui.button(name).clicked() {
                            ui.close();
                            self.open(crate::util::paths::bundled(path));
                        }
                    }
                });
                if ui.button("Open demo benchmark results (simulated)").clicked() {
                    ui.close();
                    self.open_bench(vec![super::bench::demo_results()]);
                }
            });
            ui.menu_button("View", |ui| {
                ui.radio_value(&mut self.settings.theme, Theme::Dark, "Dark theme");
                ui.radio_value(&mut self.settings.theme, Theme::Light, "Light theme");
            });
            if ui.button("Model…").on_hover_text("Language-model provider, connection test and chat").clicked() {
                self.llm.open = true;
            }
            if ui.button("About").clicked() {
                self.about_open = true;
            }
            ui.separator();
            for (room, name) in [(Room::Recordings, "Recordings"), (Room::Networks, "Networks"), (Room::Bench, "Bench")]
            {
                ui.selectable_value(&mut self.room, room, name);
            }
        });
    }

    /// The three rooms, each with its id, in tab order.
    fn rooms_mut(&mut self) -> [(Room, &mut dyn room::Room); 3] {
        [(Room::Recordings, &mut self.recordings), (Room::Networks, &mut self.networks), (Room::Bench, &mut self.bench)]
    }

    fn room_ref(&self, which: Room) -> &dyn room::Room {
        match which {
            Room::Recordings => &self.recordings,
            Room::Networks => &self.networks,
            Room::Bench => &self.bench,
        }
    }

    /// The current room's status line, then every running job of every room with its progress and a Cancel
    /// that stops that room's jobs.
    fn status_bar(&mut self, ui: &mut egui::Ui) {
        let here = self.room;
        ui.horizontal(|ui| {
            ui.label(self.room_ref(here).status());
            for (which, r) in self.rooms_mut() {
                let jobs = r.jobs();
                for (k, (name, frac)) in jobs.iter().enumerate() {
                    ui.separator();
                    let label = if which == here { name.clone() } else { format!("{which:?}: {name}") };
                    ui.add(
                        egui::ProgressBar::new(*frac)
                            .desired_width(140.0)
                            .text(format!("{label} {:.0}%", frac * 100.0)),
                    );
                    if k + 1 == jobs.len()
                        && ui.small_button("Cancel").on_hover_text(format!("Stop {which:?}'s jobs")).clicked()
                    {
                        r.cancel();
                    }
                }
            }
        });
    }

    fn about_window(&mut self, ctx: &egui::Context) {
        egui::Window::new("About BrainLens").open(&mut self.about_open).collapsible(false).show(ctx, |ui| {
            ui.heading("BrainLens");
            ui.label(format!("Version {}", build_info::VERSION));
            ui.label(format!("Commit {}", build_info::GIT_COMMIT));
            ui.label("An offline workbench for brain recordings, brain networks and LLM-agent benchmarks.");
            ui.label("Licence: MIT OR Apache-2.0");
        });
    }

    /// True when nothing is loading: used to decide when a screenshot may be taken.
    pub fn settled(&self) -> bool {
        self.room_ref(self.room).settled()
    }
}

impl eframe::App for BrainLensApp {
    fn ui(&mut self, ui: &mut egui::Ui, frame: &mut eframe::Frame) {
        let t0 = std::time::Instant::now();
        let measuring = match self.room {
            Room::Bench => self.frame_stats.is_some() && self.bench.data.is_some() && !self.bench.loading(),
            // Every measured frame turns the 3-D view and renders it anew (surface, nodes, 1,000 edges).
            Room::Networks => self.frame_stats.is_some() && self.networks.measure_3d_frame(),
            _ => self.frame_stats.is_some(),
        };
        if measuring {
            match self.room {
                // Every measured frame draws another view (and re-filters the instance browser each time it
                // comes round): the worst case while clicking through the dashboard.
                Room::Bench => self.bench.cycle_view(),
                Room::Networks => {}
                // Every measured frame reads, filters and draws a new page: the worst case while paging.
                _ => self.recordings.page_forward_wrapping(),
            }
        }
        self.show(ui);
        let ctx = ui.ctx().clone();
        if let Some(stats) = &mut self.frame_stats
            && !stats.done()
            && measuring
        {
            stats.ui_ms.push(t0.elapsed().as_secs_f64() * 1e3);
            if let Some(cpu) = frame.info().cpu_usage {
                stats.cpu_ms.push(cpu as f64 * 1e3);
            }
            if stats.done() {
                println!("{}", stats.report());
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            }
        }
        if self.frame_stats.as_ref().is_some_and(|s| !s.done()) {
            // (also while the Networks room prepares the benchmark's network)
            ctx.request_repaint();
        }
        let settled = self.settled();
        if let Some(shot) = &mut self.screenshot
            && let Some(result) = shot.on_frame(&ctx, settled)
        {
            match result {
                Ok(()) => println!("wrote {}", shot.path.display()),
                Err(e) => eprintln!("brainlens: error: screenshot: {e}"),
            }
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        }
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        if self.persist {
            eframe::set_value(storage, eframe::APP_KEY, &self.settings);
        }
    }
}
