//! The Agent panel of the Networks room: task, method (with ablations) and the model from the Model window;
//! Analyze runs BrainAgent on the open graph in the background and the trace grows live — each round's
//! thought, report, tool call and observation; the final card (label, confidence, rationale whose region names
//! select the region in the network views, "research use only — not a diagnosis"), the reflection's before
//! and after, interpretability scores and radar, export as JSON and Markdown; and batch results (run files of
//! `brainagent agent eval`) with a metrics table, the radar per method and a drill-down into each sample.

mod batch;
mod view;

use super::OpenNetwork;
use crate::agent::graph::tools::Resources;
use crate::agent::graph::{
    Agent, CardQuery, GraphContext, Method, ReflectionForm, Settings, Task, Trace, interpret, setup,
};
use crate::llm::config::ProviderConfig;
use crate::ui::jobs::Job;
use crate::util::cancel::Cancel;
use std::sync::{Arc, Mutex};

pub struct AgentPanel {
    pub open: bool,
    pub task: String,
    pub settings: Settings,
    pub seed: u64,
    pub(crate) job: Option<Job<(Trace, interpret::Scores)>>,
    cancel: Cancel,
    live: Arc<Mutex<Option<Trace>>>,
    pub trace: Option<Trace>,
    pub scores: Option<interpret::Scores>,
    pub error: Option<String>,
    pub message: Option<Result<String, String>>,
    pub export_path: String,
    /// HARK's index and the case memory of the last analysis, reused while the task and settings ask for the
    /// same ones (building HARK reads the knowledge base and its embeddings).
    resources: Arc<Mutex<Option<(String, Resources)>>>,
    pub batch: batch::BatchView,
    /// Start an analysis as soon as a network is open (the `--agent` flag).
    pub autostart: bool,
    /// brainagent-hybrid: the saved cohort model (`brainlens cohort train`).
    pub cohort_model: String,
}

impl Default for AgentPanel {
    fn default() -> Self {
        AgentPanel {
            open: false,
            task: "fingerprint".into(),
            settings: Settings::for_method(Method::Brainagent),
            seed: 0,
            job: None,
            cancel: Cancel::default(),
            live: Arc::new(Mutex::new(None)),
            trace: None,
            scores: None,
            error: None,
            message: None,
            export_path: String::new(),
            resources: Default::default(),
            batch: Default::default(),
            autostart: false,
            cohort_model: String::new(),
        }
    }
}

/// What the panel asks of the room after drawing (applied by the room: selection, HARK/CARD focus).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Intents {
    pub select_region: Option<usize>,
    /// Ring these regions on the brain views (the regions the agent's rationale names).
    pub highlight: Option<Vec<usize>>,
    pub show_round: Option<crate::agent::graph::trace::Round>,
}

impl AgentPanel {
    /// Opens a saved trace (`agent analyze --trace`, the panel's JSON export, or a run file's record) for review.
    pub fn open_trace(&mut self, path: &std::path::Path) {
        let read = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display())).and_then(|t| {
            serde_json::from_str::<Trace>(&t).map_err(|e| format!("{}: not a BrainAgent trace: {e}", path.display()))
        });
        match read {
            Ok(t) => {
                self.trace = Some(t);
                self.scores = None;
                self.error = None;
                self.open = true;
            }
            Err(e) => self.error = Some(e),
        }
    }

    pub fn busy(&self) -> bool {
        self.job.as_ref().is_some_and(|j| j.is_running()) || self.batch.busy()
    }

    /// Starts the analysis of the open network in the background.
    pub fn start(&mut self, o: &OpenNetwork, provider: &ProviderConfig) {
        let task = match Task::load(&self.task) {
            Ok(t) => t,
            Err(e) => {
                self.error = Some(format!("{e:#}"));
                return;
            }
        };
        let (settings, provider, seed, path) = (self.settings.clone(), provider.clone(), self.seed, o.path.clone());
        let live = self.live.clone();
        self.cancel = Cancel::default();
        let cancel = self.cancel.clone();
        self.error = None;
        self.trace = None;
        self.scores = None;
        if let Ok(mut slot) = self.live.lock() {
            *slot = None;
        }
        let cache = self.resources.clone();
        let cohort_model =
            Some(std::path::PathBuf::from(self.cohort_model.trim())).filter(|p| !p.as_os_str().is_empty());
        self.job = Some(Job::spawn_with("BrainAgent analysis", 1, cancel.clone(), move |_, _| {
            let atlas = crate::network::atlas::Atlas::load(&task.atlas).ok();
            let ctx = GraphContext::load(&path, atlas.as_ref())?;
            let model = if settings.method.uses_model() {
                Some(provider.build().map_err(|e| anyhow::anyhow!("{e}"))?)
            } else {
                None
            };
            let memory_dir = task.memory_dir();
            // A baseline learns without the analysed graph's group, so what it learned belongs to that graph.
            let analysed = settings
                .method
                .is_baseline()
                .then(|| path.file_stem().map(|s| s.to_string_lossy().into_owned()))
                .flatten();
            let key = format!(
                "{}|{}|{:?}|{:?}|{}|{}",
                settings.needs_hark(),
                settings.needs_card(),
                analysed.as_ref().map(|a| (settings.method.as_str(), a)),
                memory_dir,
                settings.beta,
                settings.k
            );
            let mut cached = cache.lock().unwrap_or_else(|p| p.into_inner());
            let resources = match cached.as_ref().filter(|(k, _)| *k == key) {
                Some((_, r)) => r.clone(),
                None => {
                    let r = setup::resources(&task, &settings, memory_dir.as_deref(), analysed.as_deref())?;
                    *cached = Some((key, r.clone()));
                    r
                }
            };
            drop(cached);
            let mut resources = resources;
            if settings.needs_cohort_model() {
                resources.cohort_model = Some(setup::cohort_model(&task, cohort_model.as_deref())?);
            }
            let agent = Agent::new(task, model, resources, settings);
            let trace = agent.analyze(&ctx, seed, &cancel, &mut |t| {
                if let Ok(mut slot) = live.lock() {
                    *slot = Some(t.clone());
                }
            });
            let scores = interpret::score(&trace, &ctx);
            Ok(Some((trace, scores)))
        }));
    }

    fn poll(&mut self, ctx: &egui::Context) {
        let Some(job) = self.job.as_mut() else { return };
        match job.poll() {
            Some(Ok(Some((t, scores)))) => {
                self.job = None;
                self.scores = Some(scores);
                self.trace = Some(t);
            }
            Some(Ok(None)) => self.job = None,
            Some(Err(e)) => {
                self.job = None;
                self.error = Some(format!("{e:#}"));
            }
            None => {
                // The latest published state, taken (not cloned every frame).
                if let Some(t) = self.live.lock().ok().and_then(|mut slot| slot.take()) {
                    self.trace = Some(t);
                }
                ctx.request_repaint_after(std::time::Duration::from_millis(50));
            }
        }
    }

    pub fn show(&mut self, ctx: &egui::Context, o: &OpenNetwork, provider: &ProviderConfig) -> Intents {
        let mut intents = Intents::default();
        if !self.open {
            return intents;
        }
        if self.autostart {
            self.autostart = false;
            self.start(o, provider);
        }
        self.poll(ctx);
        let mut open = self.open;
        egui::Window::new("BrainAgent").open(&mut open).default_width(760.0).default_height(820.0).show(ctx, |ui| {
            self.controls(ui, o, provider);
            ui.separator();
            egui::ScrollArea::vertical().id_salt("agent_scroll").show(ui, |ui| {
                let batch = egui::CollapsingHeader::new("Batch results (run files of agent eval)")
                    .default_open(!self.batch.runs.is_empty());
                batch.show(ui, |ui| {
                    if let Some(t) = self.batch.show(ui, &self.task, &self.settings, provider) {
                        self.trace = Some(t);
                        self.scores = None;
                    }
                });
                if let Some(t) = self.trace.clone() {
                    view::export(ui, &t, &mut self.export_path, &mut self.message);
                    view::show(ui, &t, self.scores.as_ref(), o, &mut intents);
                }
            });
        });
        self.open = open;
        intents
    }

    fn controls(&mut self, ui: &mut egui::Ui, o: &OpenNetwork, provider: &ProviderConfig) {
        ui.horizontal_wrapped(|ui| {
            egui::ComboBox::from_label("Task").selected_text(&self.task).show_ui(ui, |ui| {
                for t in Task::names() {
                    ui.selectable_value(&mut self.task, t.clone(), t);
                }
            });
            let mut method = self.settings.method;
            egui::ComboBox::from_label("Method").selected_text(method.as_str()).show_ui(ui, |ui| {
                for m in [
                    Method::Direct,
                    Method::Cot,
                    Method::Reflection,
                    Method::Brainagent,
                    Method::BrainagentHybrid,
                    Method::EvidenceKnn,
                    Method::Majority,
                    Method::Logistic,
                ] {
                    ui.selectable_value(&mut method, m, m.as_str());
                }
            });
            if method != self.settings.method {
                self.settings = Settings { rounds: self.settings.rounds, ..Settings::for_method(method) };
            }
            if method == Method::Brainagent {
                ui.checkbox(&mut self.settings.understanding, "understanding");
                ui.checkbox(&mut self.settings.hark, "HARK");
                ui.checkbox(&mut self.settings.card, "CARD");
                ui.add_enabled(self.settings.card, egui::Checkbox::new(&mut self.settings.card_first, "CARD first"))
                    .on_hover_text(
                        "Round 1 calls CARD alone, so the analysis always sees the similar cases (not the \
                         paper's protocol: there the model picks any tool).",
                    );
                let mut templated = self.settings.card_query == CardQuery::Template;
                ui.add_enabled(self.settings.card, egui::Checkbox::new(&mut templated, "template query"))
                    .on_hover_text(
                        "CARD retrieves with the graph's template report as its text query, as evidence-knn \
                         votes (not the paper's protocol: there the model writes the query; it is recorded, not used).",
                    );
                self.settings.card_query = if templated { CardQuery::Template } else { CardQuery::Model };
                ui.checkbox(&mut self.settings.rationale_first, "rationale first").on_hover_text(
                    "The analysis writes its claims before the label, so the label follows a rationale (not the \
                     paper's order: a model decoding left to right otherwise picks the label before any claim).",
                );
                ui.checkbox(&mut self.settings.reflection, "reflection");
                ui.add(egui::DragValue::new(&mut self.settings.rounds).range(1..=8).prefix("rounds "));
            }
            if method == Method::BrainagentHybrid {
                ui.checkbox(&mut self.settings.card, "CARD");
                ui.checkbox(&mut self.settings.overrides, "overrides").on_hover_text(
                    "The analysis may override the evidence's decision, only by citing similar cases of the other                      label (evidence the cohort model did not weigh); otherwise the override is refused and recorded.",
                );
                let l = ui.label("Cohort model");
                ui.add(
                    egui::TextEdit::singleline(&mut self.cohort_model)
                        .hint_text("brainlens cohort train … --out MODEL.json")
                        .desired_width(260.0),
                )
                .labelled_by(l.id)
                .on_hover_text("a batch evaluation trains its own on the training split");
            }
            if self.settings.reflection {
                let mut label_only = self.settings.reflection_form == ReflectionForm::Label;
                ui.checkbox(&mut label_only, "label reflection").on_hover_text(
                    "Reflection writes its critique and the final label, which is the answer (the default form \
                     also asks \"revise\" before the label, which then counts only when revise is true).",
                );
                self.settings.reflection_form = if label_only { ReflectionForm::Label } else { ReflectionForm::Revise };
            }
            if self.settings.needs_card() {
                let encoder = &mut self.settings.card_encoder;
                egui::ComboBox::from_id_salt("card_encoder")
                    .selected_text(format!("CARD encoder: {}", encoder.as_str()))
                    .show_ui(ui, |ui| {
                        use crate::agent::graph::CardEncoder;
                        for e in [CardEncoder::Supervised, CardEncoder::Baseline, CardEncoder::Gfm] {
                            ui.selectable_value(encoder, e, format!("CARD encoder: {}", e.as_str()));
                        }
                    })
                    .response
                    .on_hover_text(
                        "The graph encoder of the case memory a batch evaluation builds from its training split: \
                         supervised (Fisher-z edges standardised and weighted by how they separate the training \
                         labels), baseline (unsupervised profiles and spectrum) or gfm (the learned graph encoder, trained \
                         self-supervised on the training split's graphs). A saved memory keeps its own.",
                    );
            }
        });
        ui.horizontal_wrapped(|ui| {
            let model = if self.settings.method.uses_model() {
                format!("model: {} (Model… window)", provider.describe_model())
            } else {
                "no language model".into()
            };
            ui.label(model);
            let running = self.busy();
            if ui.add_enabled(!running, egui::Button::new("Analyze")).clicked() {
                self.start(o, provider);
            }
            if ui.add_enabled(!running, egui::Button::new("Open trace…")).clicked()
                && let Some(p) = rfd::FileDialog::new().add_filter("Trace", &["json"]).pick_file()
            {
                self.open_trace(&p);
            }
            if running {
                ui.spinner();
                if ui.button("Cancel").clicked() {
                    self.cancel.cancel();
                }
            }
        });
        if let Some(e) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, format!("Error: {e}"));
        }
    }
}
