//! Instance browser: filter every instance of the collection (model, paradigm, subset, task, difficulty,
//! metric type, score range, errors, text in instruction/report), then read one: instruction, report
//! (Markdown), parser output, each metric with ground truth, prediction, raw and weighted score, artifacts,
//! sandbox / CodeAct trace, errors, tokens and timing.

use super::Loaded;
use crate::bench::aggregate::LEVEL_NAMES;
use crate::bench::case::Case;
use crate::bench::results::Instance;
use serde_json::Value;
use std::hash::{Hash, Hasher};

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    pub model: String,
    pub paradigm: String,
    pub subset: String,
    pub task: String,
    /// 0 = any, 1..=3 = easy/medium/hard.
    pub level: usize,
    pub metric_type: String,
    pub min_score: f64,
    pub max_score: f64,
    pub errors_only: bool,
    pub search: String,
}

#[derive(Default)]
pub struct State {
    pub filter: Filter,
    cache: Option<(u64, Vec<(usize, usize)>)>,
    pub selected: Option<(usize, usize)>,
}

fn filter_key(f: &Filter, runs: usize) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    format!("{f:?}").hash(&mut h);
    runs.hash(&mut h);
    h.finish()
}

/// Does instance `i` of run `run` pass the filter?
pub fn matches(data: &Loaded, f: &Filter, run: usize, i: &Instance, inst: usize) -> bool {
    let r = &data.collection.runs[run];
    let score = 100.0 * i.normalised();
    let max = if f.max_score > 0.0 { f.max_score } else { 100.0 };
    (f.model.is_empty() || r.model == f.model)
        && (f.paradigm.is_empty() || r.paradigm == f.paradigm)
        && (f.subset.is_empty() || i.bench_subset.as_deref() == Some(f.subset.as_str()))
        && (f.task.is_empty() || i.task_id().to_lowercase().contains(&f.task.to_lowercase()))
        && (f.level == 0 || data.report.levels.level(i.difficulty_weight()) == f.level)
        && (f.metric_type.is_empty()
            || i.metric_details.values().any(|d| d.metric_type.as_deref() == Some(f.metric_type.as_str())))
        && score >= f.min_score - 1e-9
        && score <= max + 1e-9
        && (!f.errors_only || !i.errors.is_empty())
        && (f.search.is_empty() || {
            let needle = f.search.to_lowercase();
            i.report().to_lowercase().contains(&needle)
                || i.instance_id.to_lowercase().contains(&needle)
                || data.case_of(run, inst).is_some_and(|c| c.instruction.to_lowercase().contains(&needle))
        })
}

/// The (run, instance) pairs that pass the filter, cached until the filter changes.
pub fn filtered<'a>(data: &Loaded, st: &'a mut State) -> &'a [(usize, usize)] {
    let key = filter_key(&st.filter, data.collection.runs.len());
    if st.cache.as_ref().is_none_or(|(k, _)| *k != key) {
        let mut rows = Vec::new();
        for (ri, r) in data.collection.runs.iter().enumerate() {
            for (ii, i) in r.result.instances.iter().enumerate() {
                if matches(data, &st.filter, ri, i, ii) {
                    rows.push((ri, ii));
                }
            }
        }
        st.cache = Some((key, rows));
    }
    &st.cache.as_ref().expect("filled above").1
}

fn combo(ui: &mut egui::Ui, label: &str, value: &mut String, options: &[String]) {
    let any = format!("any {label}");
    let shown = if value.is_empty() { any.clone() } else { value.clone() };
    egui::ComboBox::from_id_salt(label).selected_text(shown).show_ui(ui, |ui| {
        ui.selectable_value(value, String::new(), &any);
        for o in options {
            ui.selectable_value(value, o.clone(), o);
        }
    });
}

fn filters(ui: &mut egui::Ui, data: &Loaded, f: &mut Filter) {
    let r = &data.report;
    ui.horizontal_wrapped(|ui| {
        combo(ui, "model", &mut f.model, &r.models);
        combo(ui, "paradigm", &mut f.paradigm, &r.paradigms);
        combo(ui, "subset", &mut f.subset, &r.subsets);
        combo(ui, "metric type", &mut f.metric_type, &data.metric_types);
        egui::ComboBox::from_id_salt("difficulty")
            .selected_text(if f.level == 0 { "any difficulty" } else { LEVEL_NAMES[f.level - 1] })
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut f.level, 0, "any difficulty");
                for (k, name) in LEVEL_NAMES.iter().enumerate() {
                    ui.selectable_value(&mut f.level, k + 1, *name);
                }
            });
    });
    ui.horizontal_wrapped(|ui| {
        if f.max_score <= 0.0 {
            f.max_score = 100.0;
        }
        ui.add(egui::Slider::new(&mut f.min_score, 0.0..=100.0).text("min score"));
        ui.add(egui::Slider::new(&mut f.max_score, 0.0..=100.0).text("max score"));
        ui.checkbox(&mut f.errors_only, "with errors");
        let l = ui.label("task");
        ui.add(egui::TextEdit::singleline(&mut f.task).desired_width(110.0)).labelled_by(l.id);
        let l = ui.label("search");
        ui.add(egui::TextEdit::singleline(&mut f.search).desired_width(160.0).hint_text("instruction or report"))
            .labelled_by(l.id);
        if ui.button("Clear filters").clicked() {
            *f = Filter::default();
        }
    });
}

pub fn show(ui: &mut egui::Ui, data: &Loaded, st: &mut State) {
    filters(ui, data, &mut st.filter);
    let rows = filtered(data, st).to_vec();
    ui.label(format!("{} of {} instances", rows.len(), data.collection.instance_count()));
    if let Some((r, i)) = st.selected {
        egui::Panel::right("bench_instance_detail").default_size(ui.available_width() * 0.55).show(ui, |ui| {
            egui::ScrollArea::vertical().id_salt("instance_detail").show(ui, |ui| detail(ui, data, r, i));
        });
    }
    let row_h = ui.text_style_height(&egui::TextStyle::Body) + 6.0;
    // Both directions: a wide row scrolls inside the list instead of running under the detail panel.
    egui::ScrollArea::both().id_salt("instance_list").auto_shrink(false).show_rows(
        ui,
        row_h,
        rows.len(),
        |ui, range| {
            egui::Grid::new("instance_rows").striped(true).num_columns(5).start_row(range.start).show(ui, |ui| {
                for &(r, i) in &rows[range] {
                    let run = &data.collection.runs[r];
                    let inst = &run.result.instances[i];
                    let sel = st.selected == Some((r, i));
                    if ui.selectable_label(sel, &inst.instance_id).clicked() {
                        st.selected = Some((r, i));
                    }
                    ui.label(format!("{} · {} · run {}", run.model, run.paradigm, run.run));
                    ui.label(format!("{:.1}", 100.0 * inst.normalised()));
                    ui.label(LEVEL_NAMES[data.report.levels.level(inst.difficulty_weight()) - 1]);
                    ui.label(if inst.errors.is_empty() {
                        String::new()
                    } else {
                        format!("{} error(s)", inst.errors.len())
                    });
                    ui.end_row();
                }
            });
        },
    );
}

fn json_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "–".into(),
        other => other.to_string(),
    }
}

pub(super) fn detail(ui: &mut egui::Ui, data: &Loaded, r: usize, i: usize) {
    let run = &data.collection.runs[r];
    let inst = &run.result.instances[i];
    let case = data.case_of(r, i);
    ui.heading(&inst.instance_id);
    ui.label(format!(
        "{} · {} · run {} · {} · difficulty {} · score {:.2} / {:.2}{}",
        run.model,
        run.paradigm,
        run.run,
        inst.bench_subset.as_deref().unwrap_or("?"),
        json_text(&inst.difficulty),
        inst.total_score,
        inst.max_score,
        if run.simulated { " · SIMULATED" } else { "" }
    ));
    if inst.is_infrastructure_failure() {
        ui.colored_label(
            egui::Color32::from_rgb(220, 140, 40),
            "infrastructure failure: excluded from every score (rerun it)",
        );
    }
    egui::CollapsingHeader::new("Instruction").default_open(true).show(ui, |ui| match case {
        Some(c) => {
            ui.label(c.query());
        }
        None => {
            ui.weak(format!(
                "case file {} not found beside the results",
                inst.source_json.as_deref().unwrap_or("(none)")
            ));
        }
    });
    egui::CollapsingHeader::new("Metrics").default_open(true).show(ui, |ui| metrics_grid(ui, inst, case));
    egui::CollapsingHeader::new("Agent report").default_open(true).show(ui, |ui| {
        if run.simulated {
            ui.weak("simulated report (no model was run)");
        }
        crate::ui::widgets::markdown::show(ui, inst.report());
    });
    egui::CollapsingHeader::new("Parser output").show(ui, |ui| {
        ui.monospace(serde_json::to_string_pretty(&inst.parser_output).unwrap_or_default());
    });
    if !inst.errors.is_empty() {
        egui::CollapsingHeader::new(format!("Errors ({})", inst.errors.len())).default_open(true).show(ui, |ui| {
            for e in &inst.errors {
                ui.colored_label(egui::Color32::from_rgb(220, 60, 60), e);
            }
        });
    }
    if inst.artifact_manifest.as_array().is_some_and(|a| !a.is_empty()) {
        egui::CollapsingHeader::new("Artifacts").show(ui, |ui| {
            ui.monospace(serde_json::to_string_pretty(&inst.artifact_manifest).unwrap_or_default());
        });
    }
    claims_sections(ui, inst);
    if !inst.sandbox.is_null() {
        let paradigm = inst.sandbox["trace"]["paradigm"].as_str().unwrap_or("");
        if paradigm == "brainagent" || paradigm == "hybrid" {
            let title = if paradigm == "hybrid" { "Hybrid trace (tool and code steps)" } else { "BrainAgent trace" };
            egui::CollapsingHeader::new(title)
                .default_open(true)
                .show(ui, |ui| super::agent_trace::show(ui, &inst.sandbox["trace"]));
            egui::CollapsingHeader::new("Parser and judge audit")
                .show(ui, |ui| ui.monospace(serde_json::to_string_pretty(&inst.sandbox["audit"]).unwrap_or_default()));
        } else {
            egui::CollapsingHeader::new("Sandbox / CodeAct trace").show(ui, |ui| sandbox(ui, &inst.sandbox));
        }
    }
    egui::CollapsingHeader::new("Tokens and timing").show(ui, |ui| {
        egui::Grid::new("tokens_timing").show(ui, |ui| {
            for (k, v) in &inst.token_usage {
                ui.label(format!("tokens {k}"));
                ui.label(json_text(v));
                ui.end_row();
            }
            for (k, v) in &inst.timing_sec {
                ui.label(format!("seconds {k}"));
                ui.label(json_text(v));
                ui.end_row();
            }
        });
    });
}

/// Every metric of the case, scored or not: type, ground truth, what the parser read, raw and weighted score.
fn metrics_grid(ui: &mut egui::Ui, inst: &Instance, case: Option<&Case>) {
    egui::Grid::new("metric_detail").striped(true).show(ui, |ui| {
        for h in ["metric", "type", "ground truth", "prediction", "raw", "weighted"] {
            ui.strong(h);
        }
        ui.end_row();
        // Every metric of the case, scored or not (an instance the target never answered has none scored).
        let mut ids: Vec<&str> = inst.metric_details.keys().map(String::as_str).collect();
        for m in case.map(|c| c.metrics.as_slice()).unwrap_or_default() {
            if !ids.contains(&m.metric_id.as_str()) {
                ids.push(&m.metric_id);
            }
        }
        for id in ids {
            let metric = case.and_then(|c| c.metrics.iter().find(|m| m.metric_id == id));
            let d = inst.metric_details.get(id);
            let key = d
                .and_then(|d| d.target_key.as_deref())
                .or_else(|| metric.and_then(|m| m.target_key.as_deref()))
                .unwrap_or("");
            let pred = if key == "full_text" {
                "(full report)".to_string()
            } else {
                json_text(inst.parser_output.get(key).unwrap_or(&Value::Null))
            };
            ui.label(id);
            ui.label(
                d.and_then(|d| d.metric_type.as_deref()).or_else(|| metric.map(|m| m.kind.as_str())).unwrap_or("?"),
            );
            ui.label(metric.map_or("(case not found)".into(), |m| json_text(m.param("gt_value"))));
            ui.label(pred);
            match d {
                Some(d) => {
                    ui.label(format!("{:.3}", d.raw_score));
                    ui.label(format!("{:.2} / {}", d.weighted_score, json_text(&d.weight)));
                }
                None => {
                    ui.weak("not scored");
                    ui.label(metric.map_or(String::new(), |m| format!("– / {}", m.weight)));
                }
            }
            ui.end_row();
            if let Some(e) = d.and_then(|d| d.error.as_ref()) {
                ui.label("");
                ui.colored_label(egui::Color32::from_rgb(220, 60, 60), e);
                ui.end_row();
            }
        }
    });
}

/// The report's claims that nothing did (flagged) and the sentences struck from the model's report.
fn claims_sections(ui: &mut egui::Ui, inst: &Instance) {
    if let Some(claims) = inst.sandbox["trace"]["ungrounded_claims"].as_array().filter(|c| !c.is_empty()) {
        egui::CollapsingHeader::new(format!("Report claims what nothing did ({})", claims.len()))
            .default_open(true)
            .show(ui, |ui| {
                ui.weak(
                    "Sentences of the report that state as done a step no tool or code performed, or state a value \
                     that neither the task nor any tool or code output holds (\"value\"; automatic check).",
                );
                for c in claims {
                    ui.colored_label(
                        egui::Color32::from_rgb(220, 60, 60),
                        format!("{}: \"{}\"", json_text(&c["work"]), json_text(&c["sentence"])),
                    );
                }
            });
    }
    let trace = &inst.sandbox["trace"];
    if let Some(claims) = trace["struck_claims"].as_array().filter(|c| !c.is_empty()) {
        egui::CollapsingHeader::new(format!("Struck from the model's report ({})", claims.len()))
            .default_open(true)
            .show(ui, |ui| {
                ui.weak(
                    "Sentences the model still wrote after being asked again, claiming a step no tool or code \
                     performed or a value nothing measured; the report above shows a marker in their place.",
                );
                for c in claims {
                    ui.colored_label(
                        egui::Color32::from_rgb(200, 140, 40),
                        format!("{}: \"{}\"", json_text(&c["work"]), json_text(&c["sentence"])),
                    );
                }
                let written = trace["report_as_written"].as_str().or(trace["solution_as_written"].as_str());
                if let Some(written) = written {
                    egui::CollapsingHeader::new("The report as the model wrote it").show(ui, |ui| {
                        ui.label(written);
                    });
                }
            });
    }
}

/// CodeAct rounds (`rounds: [{round, code, observation}]`) as code and output; anything else as JSON.
fn sandbox(ui: &mut egui::Ui, s: &Value) {
    if let Some(rounds) = s.get("rounds").and_then(Value::as_array) {
        for r in rounds {
            ui.horizontal(|ui| {
                ui.strong(format!("Round {}", json_text(r.get("round").unwrap_or(&Value::Null))));
                if let Some(code) = r.get("code").and_then(Value::as_str).filter(|c| !c.is_empty())
                    && ui
                        .small_button("Copy rerun command")
                        .on_hover_text("The shell command that runs this block again in the same sandbox")
                        .clicked()
                {
                    let (inputs, ws) = (json_text(&s["inputs"]), json_text(&s["workspace"]));
                    let only: Vec<String> = s["input_only"]
                        .as_array()
                        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
                        .unwrap_or_default();
                    ui.ctx().copy_text(crate::sandbox::rerun_command(&inputs, &only, &ws, code));
                }
            });
            if let Some(of) = r.get("resent_round").and_then(Value::as_u64) {
                ui.label(format!(
                    "The model first resent round {of}'s code; it was not run again, and the model was asked again \
                     (both replies: the trace below)."
                ));
            }
            if let Some(works) = r.get("solution_again").and_then(Value::as_array) {
                let works: Vec<&str> = works.iter().filter_map(Value::as_str).collect();
                ui.label(format!(
                    "The model's first solution claimed work no code that ran did ({}); it was told so and asked \
                     again (both replies: the trace below).",
                    works.join(", ")
                ));
            }
            ui.monospace(json_text(r.get("code").unwrap_or(&Value::Null)));
            ui.weak(json_text(r.get("observation").unwrap_or(&Value::Null)));
            ui.separator();
        }
    }
    let rest: serde_json::Map<String, Value> = s
        .as_object()
        .map(|o| o.iter().filter(|(k, _)| *k != "rounds").map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default();
    if !rest.is_empty() {
        ui.monospace(serde_json::to_string_pretty(&rest).unwrap_or_default());
    }
}
