//! Drawing a trace: the timeline of rounds, the final card with clickable region names, the reflection's
//! before/after, interpretability scores and radar, and export.

use super::Intents;
use crate::agent::graph::interpret::{DIMENSIONS, Scores};
use crate::agent::graph::trace::{Change, Reflection, Round, word_diff};
use crate::agent::graph::{Decision, OutcomeClass, Trace};
use crate::ui::networks::OpenNetwork;

pub fn show(ui: &mut egui::Ui, t: &Trace, scores: Option<&Scores>, o: &OpenNetwork, intents: &mut Intents) {
    ui.label(format!("{} · task {} · method {} · model {} · seed {}", t.sample, t.task, t.method, t.model, t.seed));
    if !t.sampling.is_empty() {
        ui.weak(format!("Sampling: {}", t.sampling));
    }
    if let Some(u) = &t.understanding {
        egui::CollapsingHeader::new("Understanding (written by the model)").id_salt("agent_understanding").show(
            ui,
            |ui| {
                ui.monospace(serde_json::to_string_pretty(u).unwrap_or_default());
            },
        );
    }
    for r in &t.rounds {
        round_section(ui, r, intents);
    }
    if !t.calls.is_empty() {
        egui::CollapsingHeader::new(format!("Model calls ({})", t.calls.len())).id_salt("agent_calls").show(ui, |ui| {
            for c in &t.calls {
                let model = if c.model.is_empty() { &t.model } else { &c.model };
                ui.label(format!(
                    "{} · answered by {model} · {} prompt ({} cached{}) + {} completion tokens · {:.1} s{}",
                    c.step,
                    c.prompt_tokens,
                    c.cached_tokens,
                    if c.disk_tokens > 0 { format!(", {} from disk", c.disk_tokens) } else { String::new() },
                    c.completion_tokens,
                    c.ms / 1000.0,
                    c.error.as_deref().map(|e| format!(" · error: {e}")).unwrap_or_default()
                ));
            }
        });
    }
    ui.separator();
    match &t.decision {
        Some(d) => final_card(ui, d, t, o, intents),
        None if t.outcome.class == OutcomeClass::Ok => {
            ui.spinner();
            ui.label("running…");
        }
        None => {
            ui.colored_label(
                ui.visuals().error_fg_color,
                format!("No label: {} in {} — {}", t.outcome.class.as_str(), t.outcome.step, t.outcome.message),
            );
        }
    }
    if let Some(r) = &t.reflection {
        reflection_section(ui, r);
    }
    if let Some(h) = &t.hybrid {
        ledger(ui, h);
    }
    if let Some(s) = scores {
        ui.separator();
        ui.strong(format!("Interpretability (checks against this graph) · overall {:.2}", s.overall));
        ui.label(s.line(" · "));
        egui::CollapsingHeader::new("Interpretability radar").id_salt("agent_trace_radar").show(ui, |ui| {
            crate::ui::widgets::radar::show(
                ui,
                "0 at the centre, 1 at the rim",
                &[(t.method.clone(), s.values().iter().map(|v| Some(*v)).collect())],
                &DIMENSIONS.map(String::from),
            );
        });
    }
    ui.label(format!(
        "{} · {} arguments repaired, {} rejected",
        t.cost_line(),
        t.counters.repaired_arguments,
        t.counters.rejected_arguments
    ));
}

/// One round of the timeline: think, report, action and its arguments (asked again, repaired, rejected), the
/// error, the observation, and a link to the HARK or CARD panel for a retrieval.
fn round_section(ui: &mut egui::Ui, r: &Round, intents: &mut Intents) {
    let mut flags = String::new();
    if !r.repairs.is_empty() {
        flags.push_str(" · repaired");
    }
    if r.rejected.is_some() {
        flags.push_str(" · rejected");
    }
    if r.error.is_some() {
        flags.push_str(" · error");
    }
    let title = format!("Round {} · {}{flags}", r.index, if r.tool.is_empty() { "(no action)" } else { &r.tool });
    egui::CollapsingHeader::new(title).id_salt(("agent_round", r.index)).show(ui, |ui| {
        if !r.think.is_empty() {
            ui.label(format!("Think (model): {}", r.think));
        }
        if !r.report.is_empty() {
            ui.label(format!("Report (model){}: {}", if r.report_truncated { ", cut to size" } else { "" }, r.report));
        }
        if !r.tool.is_empty() {
            ui.label(format!("Action: {}({})", r.tool, r.arguments));
        }
        if let Some(a) = &r.arguments_retry {
            ui.label(format!("Arguments asked again with the tool's schema: {a}"));
        }
        if !r.repairs.is_empty() {
            ui.label(format!("Arguments repaired: {}; checked: {}", r.repairs.join("; "), r.checked));
        }
        if let Some(m) = &r.rejected {
            ui.colored_label(ui.visuals().warn_fg_color, format!("Rejected: {m}"));
        }
        if let Some(e) = &r.error {
            ui.colored_label(ui.visuals().error_fg_color, format!("Error: {e}"));
        }
        if !r.observation.is_empty() {
            ui.label("Observation (measured or retrieved):");
            ui.monospace(r.observation.trim_end());
        }
        if matches!(r.tool.as_str(), "retrieve_knowledge" | "retrieve_case") && !r.data.is_null() {
            let label =
                if r.tool == "retrieve_knowledge" { "Show in the HARK panel" } else { "Show in the CARD panel" };
            if ui.button(label).clicked() {
                intents.show_round = Some(r.clone());
            }
        }
    });
}

/// The reflection: its critique, the rationale's word changes and the label, confidence and rationale before
/// and after.
fn reflection_section(ui: &mut egui::Ui, r: &Reflection) {
    ui.separator();
    ui.strong(format!("Reflection ({})", if r.revised { "revised the analysis" } else { "kept the analysis" }));
    ui.label(format!("Critique (model): {}", r.critique));
    if r.revised {
        ui.label("Rationale changes (removed struck through, added underlined):");
        ui.horizontal_wrapped(|ui| {
            ui.spacing_mut().item_spacing.x = 4.0;
            for c in word_diff(&r.before.rationale, &r.after.rationale) {
                match c {
                    Change::Same(w) => ui.label(w),
                    Change::Removed(w) => {
                        ui.label(egui::RichText::new(w).strikethrough().color(ui.visuals().error_fg_color))
                    }
                    Change::Added(w) => {
                        ui.label(egui::RichText::new(w).underline().color(ui.visuals().hyperlink_color))
                    }
                };
            }
        });
    }
    egui::Grid::new("agent_reflection").num_columns(3).striped(true).show(ui, |ui| {
        ui.label("");
        ui.strong("before");
        ui.strong("after");
        ui.end_row();
        ui.label("label");
        ui.label(&r.before.label);
        ui.label(&r.after.label);
        ui.end_row();
        ui.label("confidence");
        ui.label(format!("{:.2}", r.before.confidence));
        ui.label(format!("{:.2}", r.after.confidence));
        ui.end_row();
        ui.label("rationale");
        ui.add(egui::Label::new(&r.before.rationale).wrap());
        ui.add(egui::Label::new(&r.after.rationale).wrap());
        ui.end_row();
    });
}

/// brainagent-hybrid's evidence ledger: the evidence decision, what the analysis proposed and what the rule did,
/// then every item with its value, the label it supports, whether the cohort model weighed it and whether the
/// rationale cited it.
fn ledger(ui: &mut egui::Ui, h: &crate::agent::graph::ledger::Hybrid) {
    use crate::agent::graph::ledger::Rule;
    ui.separator();
    ui.strong(format!(
        "Evidence ledger · the evidence decides {} (P({}) = {:.3}, calibrated) · the analysis (model) concluded {}",
        h.evidence_label, h.positive, h.probability, h.proposed
    ));
    let rule = match h.rule {
        Rule::Agreed => "agreed",
        Rule::Overridden => "override taken",
        Rule::Refused => "override refused by rule",
        Rule::OverridesOff => "override not allowed (overrides off)",
    };
    ui.label(format!("Rule: {rule} — {}", h.reason));
    // A row a line: fixed cells, then the evidence text wrapped in the width that is left.
    let cells = |ui: &mut egui::Ui, texts: [&str; 4], strong: bool| {
        for (t, w) in texts.iter().zip([150.0, 60.0, 60.0, 50.0]) {
            let text = if strong { egui::RichText::new(*t).strong() } else { egui::RichText::new(*t) };
            ui.add_sized([w, 16.0], egui::Label::new(text).truncate());
        }
    };
    ui.horizontal(|ui| {
        cells(ui, ["id", "supports", "weighed", "cited"], true);
        ui.strong("evidence");
    });
    for i in &h.ledger {
        ui.horizontal(|ui| {
            let supports = i.supports.as_deref().unwrap_or("—");
            cells(ui, [&i.id, supports, if i.weighed { "yes" } else { "" }, if i.cited { "cited" } else { "" }], false);
            ui.add(egui::Label::new(&i.text).wrap());
        });
    }
}

/// The region a word of a rationale names (an atlas label, optionally written `R:label`, with punctuation).
fn region_of(word: &str, labels: &[String]) -> Option<usize> {
    let core = word.trim_matches(|c: char| !c.is_alphanumeric() && c != '_' && c != ':').trim_start_matches("R:");
    labels.iter().position(|l| l == core)
}

/// The regions named in `text`, in order of first mention.
pub fn regions_named(text: &str, labels: &[String]) -> Vec<usize> {
    let mut out = Vec::new();
    for i in text.split_whitespace().filter_map(|w| region_of(w, labels)) {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

/// The words of `text`, region names as links that select the region.
fn linked_words(ui: &mut egui::Ui, text: &str, o: &OpenNetwork, intents: &mut Intents) {
    ui.horizontal_wrapped(|ui| {
        ui.spacing_mut().item_spacing.x = 4.0;
        for word in text.split_whitespace() {
            match region_of(word, &o.connectome.labels) {
                Some(i) => {
                    if ui.link(word).on_hover_text(format!("select {}", o.connectome.labels[i])).clicked() {
                        intents.select_region = Some(i);
                    }
                }
                None => {
                    ui.label(word);
                }
            }
        }
    });
}

fn final_card(ui: &mut egui::Ui, d: &Decision, t: &Trace, o: &OpenNetwork, intents: &mut Intents) {
    let no_model = t.model == "none";
    ui.horizontal(|ui| {
        ui.heading(format!("Label: {}", d.label));
        ui.colored_label(ui.visuals().warn_fg_color, "research use only — not a diagnosis");
    });
    if t.hybrid.is_some() {
        // brainagent-hybrid: the decision's probability is the cohort model's, not the language model's.
        ui.add(
            egui::ProgressBar::new(d.confidence as f32)
                .text(format!(
                    "P({}) {:.2} (the cohort model's, calibrated; not the language model's)",
                    d.label, d.confidence
                ))
                .desired_width(420.0),
        );
    } else {
        ui.add(
            egui::ProgressBar::new(d.confidence as f32)
                .text(if no_model {
                    format!("confidence {:.2}", d.confidence)
                } else {
                    format!("confidence {:.2} (stated by the model)", d.confidence)
                })
                .desired_width(320.0),
        );
    }
    if let Some(p) = d.label_probability().filter(|_| t.hybrid.is_none()) {
        ui.add(
            egui::ProgressBar::new(p as f32)
                .text(if no_model {
                    format!("label probability {p:.2}")
                } else {
                    format!("label probability {p:.2} (the model's likelihood of this label among the labels)")
                })
                .desired_width(320.0),
        )
        .on_hover_text(
            d.label_probabilities.iter().flatten().map(|(l, p)| format!("{l}: {p:.3}")).collect::<Vec<_>>().join("\n"),
        );
    }
    ui.label(if no_model {
        format!("Rationale ({}):", t.rationale_source())
    } else {
        "Rationale (written by the model; region names select the region):".to_string()
    });
    if d.claims.is_empty() {
        linked_words(ui, &d.rationale, o, intents);
    }
    let text =
        std::iter::once(d.rationale.as_str()).chain(d.claims.iter().map(|c| c.text.as_str())).collect::<Vec<_>>();
    let cited = regions_named(&text.join(" "), &o.connectome.labels);
    if !cited.is_empty()
        && ui
            .button(format!("Ring the {} regions named on the glass brain and 3-D view", cited.len()))
            .on_hover_text("the regions the rationale names (the model's words), not a measurement")
            .clicked()
    {
        intents.highlight = Some(cited);
    }
    // Each claim (the model's words) with the values it cites (measured or retrieved, from the evidence table).
    for (k, c) in d.claims.iter().enumerate() {
        ui.horizontal(|ui| {
            ui.strong(format!("{}.", k + 1));
            linked_words(ui, &c.text, o, intents);
        });
        ui.indent(("agent_claim", k), |ui| {
            if c.evidence.is_empty() {
                ui.colored_label(ui.visuals().warn_fg_color, "cites no evidence");
            }
            for id in &c.evidence {
                match t.evidence_text(id) {
                    Some(text) => ui.label(egui::RichText::new(format!("[{id}] {text}")).weak()),
                    None => ui.colored_label(ui.visuals().warn_fg_color, format!("[{id}] not in the evidence table")),
                };
            }
        });
    }
    ui.label(format!(
        "Evidence cited: {}",
        if d.evidence.is_empty() { "none".to_string() } else { d.evidence.join(", ") }
    ));
    if !d.unknown_evidence.is_empty() {
        ui.colored_label(
            ui.visuals().warn_fg_color,
            format!("Cited but not in the evidence table: {}", d.unknown_evidence.join(", ")),
        );
    }
}

pub fn export(ui: &mut egui::Ui, t: &Trace, path: &mut String, message: &mut Option<Result<String, String>>) {
    ui.horizontal(|ui| {
        let l = ui.label("Export trace to").id;
        ui.add(egui::TextEdit::singleline(path).desired_width(300.0).hint_text("folder or file stem")).labelled_by(l);
        let stem = |ext: &str| {
            let p = std::path::PathBuf::from(path.trim());
            if p.is_dir() { p.join(format!("{}_{}.{ext}", t.sample, t.method)) } else { p.with_extension(ext) }
        };
        let mut write = |file: std::path::PathBuf, text: String| {
            *message = Some(match std::fs::write(&file, text) {
                Ok(()) => Ok(format!("wrote {}", file.display())),
                Err(e) => Err(format!("{}: cannot write: {e}", file.display())),
            });
        };
        let enabled = !path.trim().is_empty();
        if ui.add_enabled(enabled, egui::Button::new("Save JSON")).clicked() {
            write(stem("json"), serde_json::to_string_pretty(t).unwrap_or_default() + "\n");
        }
        if ui.add_enabled(enabled, egui::Button::new("Save Markdown")).clicked() {
            write(stem("md"), t.to_markdown());
        }
    });
    crate::ui::widgets::outcome(ui, message);
    ui.separator();
}

#[cfg(test)]
mod tests {
    /// Region names in a rationale, as written by a model: punctuation, the `R:` prefix and repeats.
    #[test]
    fn regions_named_in_a_rationale() {
        let labels: Vec<String> = ["LH_Vis_1", "LH_Vis_2", "RH_Default_2"].iter().map(|s| s.to_string()).collect();
        let text = "Hubs LH_Vis_2, and (R:RH_Default_2). LH_Vis_2 again; LH_Vis_10 is not a region.";
        assert_eq!(super::regions_named(text, &labels), vec![1, 2]);
    }
}
