//! A BrainAgent (EEG) or hybrid instance trace: the supervisor's route, each planning round (the plan the model
//! wrote, then every executed step with its kind, arguments, status and observation or error; a hybrid code
//! step with its blocks and what they printed), the state changes, the model calls, and the report. What the
//! model wrote is labelled as such; a tool step's observation is a validated tool's output, a code step's is
//! what the model's code printed.

use serde_json::Value;

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn cut(s: &str, n: usize) -> String {
    if s.chars().count() > n { format!("{}…", s.chars().take(n).collect::<String>()) } else { s.to_string() }
}

pub fn show(ui: &mut egui::Ui, t: &Value) {
    let name = if t["paradigm"] == "hybrid" { "Hybrid (tools + sandboxed code)" } else { "BrainAgent (EEG)" };
    ui.label(format!("{name} · model {} · outcome {}", text(&t["model"]), text(&t["outcome"])));
    if let Some(e) = t["error"].as_str() {
        ui.colored_label(egui::Color32::from_rgb(220, 60, 60), format!("Error: {e}"));
    }
    if t["route"].is_object() {
        ui.label(format!(
            "Supervisor routed to {} (model's reason: {})",
            text(&t["route"]["agent"]),
            text(&t["route"]["reason"])
        ));
        if let Some(c) = t["route"]["check"].as_str() {
            ui.colored_label(egui::Color32::from_rgb(200, 130, 0), format!("Route check: {c}"));
        }
    }
    for r in t["rounds"].as_array().into_iter().flatten() {
        let steps = r["executed"].as_array().map_or(0, Vec::len);
        let header = format!(
            "Round {} · {} planned, {} executed{}",
            text(&r["round"]),
            r["plan"].as_array().map_or(0, Vec::len),
            steps,
            if r["done"].as_bool() == Some(true) { " · done" } else { "" }
        );
        egui::CollapsingHeader::new(header).id_salt(("eeg_round", text(&r["round"]))).default_open(true).show(
            ui,
            |ui| {
                if let Some(why) = r["replanned"].as_str() {
                    ui.colored_label(egui::Color32::from_rgb(200, 130, 0), format!("Planned again: {why}"));
                }
                ui.weak(format!("Thought (model): {}", text(&r["thought"])));
                egui::CollapsingHeader::new("State the model planned from")
                    .id_salt(("eeg_state", text(&r["round"])))
                    .show(ui, |ui| {
                        ui.monospace(text(&r["state_summary"]));
                    });
                for s in r["executed"].as_array().into_iter().flatten() {
                    let status = text(&s["status"]);
                    let color = match status.as_str() {
                        "ok" => egui::Color32::from_rgb(60, 150, 80),
                        "repeated" => egui::Color32::from_rgb(200, 130, 0),
                        _ => egui::Color32::from_rgb(220, 60, 60),
                    };
                    let code = s["kind"] == "code";
                    ui.horizontal_wrapped(|ui| {
                        ui.colored_label(color, status);
                        ui.label(if code { "[code]" } else { "[tool]" });
                        ui.strong(text(&s["tool"]));
                        ui.monospace(cut(&s["args"].to_string(), 200));
                    });
                    for (k, b) in s["code"].as_array().into_iter().flatten().enumerate() {
                        let failed = b["failed"].as_bool() == Some(true);
                        let head = format!(
                            "Block {} (model-written, ran in the sandbox{}, {:.1} s)",
                            k + 1,
                            if failed { ", failed" } else { "" },
                            b["seconds"].as_f64().unwrap_or(0.0)
                        );
                        egui::CollapsingHeader::new(head)
                            .id_salt(("hybrid_block", text(&r["round"]), text(&s["args"]), k))
                            .show(ui, |ui| {
                                ui.monospace(text(&b["code"]));
                                ui.weak(format!("printed: {}", cut(&text(&b["observation"]), 1200)));
                            });
                    }
                    match s["error"].as_str() {
                        Some(e) => ui.colored_label(egui::Color32::from_rgb(220, 60, 60), e),
                        None if code => ui
                            .weak(format!("= (printed by the code) {}", cut(&text(&s["observation"]["printed"]), 400))),
                        None => ui.weak(format!("= {}", cut(&s["observation"].to_string(), 400))),
                    };
                }
            },
        );
    }
    if let Some(why) = t["report_again"].as_str() {
        ui.colored_label(egui::Color32::from_rgb(200, 130, 0), format!("Report written again: {why}"));
    }
    egui::CollapsingHeader::new(format!("State changes ({})", t["changes"].as_array().map_or(0, Vec::len))).show(
        ui,
        |ui| {
            egui::Grid::new("eeg_changes").striped(true).show(ui, |ui| {
                for c in t["changes"].as_array().into_iter().flatten() {
                    ui.label(format!("round {}", text(&c["round"])));
                    ui.monospace(text(&c["id"]));
                    ui.label(text(&c["kind"]));
                    ui.label(cut(&text(&c["what"]), 120));
                    ui.end_row();
                }
            });
        },
    );
    egui::CollapsingHeader::new(format!("Model calls ({})", t["calls"].as_array().map_or(0, Vec::len))).show(
        ui,
        |ui| {
            for c in t["calls"].as_array().into_iter().flatten() {
                ui.label(format!(
                    "{} · {} attempt(s) · {} + {} tokens · {:.1} s{}",
                    text(&c["step"]),
                    text(&c["attempts"]),
                    text(&c["prompt_tokens"]),
                    text(&c["completion_tokens"]),
                    c["latency_ms"].as_f64().unwrap_or(0.0) / 1000.0,
                    c["error"].as_str().map_or(String::new(), |e| format!(" · {e}"))
                ));
                ui.weak(cut(&text(&c["raw"]), 300));
            }
        },
    );
}
