//! The parser audit (BrainBench paper E.9) on the demo collection (SIMULATED results, labelled so): a scripted
//! second parser that reads every report as the stored parser did, except one field it reads differently,
//! gives exactly that disagreement and the agreement shares it implies; the CLI runs it against a scripted
//! OpenAI-compatible endpoint.

mod common;

use brainlens::bench::case::load_cases;
use brainlens::bench::collection::Collection;
use brainlens::harness::parser_audit::audit;
use brainlens::llm::{ChatModel, ChatRequest, ChatResponse, LlmError};
use brainlens::util::cancel::Cancel;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/bench/demo")
}

/// Answers each report with the stored parser output for it, but `changed_key` of the report `changed`.
struct Echo {
    stored: HashMap<String, Value>,
    changed: String,
    changed_key: String,
}

impl ChatModel for Echo {
    fn name(&self) -> String {
        "scripted:echo".into()
    }
    fn chat_with(&self, r: &ChatRequest, _: &Cancel, _: &mut dyn FnMut(&str)) -> Result<ChatResponse, LlmError> {
        let report = r.messages.last().unwrap().content.trim_start_matches("Report:\n").to_string();
        let mut v = self.stored.get(&report).cloned().unwrap_or(json!({}));
        if report == self.changed {
            v[&self.changed_key] = json!("something else");
        }
        Ok(common::scripted::respond(v))
    }
}

#[test]
fn one_field_read_differently_is_the_one_disagreement() {
    let c = Collection::load(&[demo().join("results")]);
    let cases = load_cases(&demo().join("cases")).unwrap().cases;
    // The same report text can occur in several instances; the stored reading is the same for each.
    let mut stored = HashMap::new();
    for r in &c.runs {
        for i in &r.result.instances {
            stored.insert(i.report().to_string(), i.parser_output.clone());
        }
    }
    let first = c.runs[0].result.instances.iter().find(|i| i.parser_output.as_object().is_some_and(|o| !o.is_empty()));
    let first = first.unwrap();
    let key = first.parser_output.as_object().unwrap().keys().next().unwrap().clone();
    let model = Echo { stored, changed: first.report().to_string(), changed_key: key.clone() };
    let a = audit(&c, &cases, &model, 40, &Cancel::default());
    assert_eq!(a.instances, 40, "{:?}", a.skipped);
    assert!(a.skipped.is_empty());
    assert!(a.overall.fields >= 40);
    // Only the changed report's field differs (every instance with that report text, if it repeats).
    assert!(!a.disagreements.is_empty());
    assert!(a.disagreements.iter().all(|d| d.target_key == key && d.audited == json!("something else")));
    assert_eq!(a.overall.agree, a.overall.fields - a.disagreements.len());
    let per_model: usize = a.by_model.iter().map(|g| g.fields).sum();
    let per_unit: usize = a.by_unit.iter().map(|g| g.fields).sum();
    assert_eq!((per_model, per_unit), (a.overall.fields, a.overall.fields));
    assert!((a.overall.share - a.overall.agree as f64 / a.overall.fields as f64).abs() < 1e-12);
}

#[test]
fn the_cli_audits_against_an_openai_compatible_parser() {
    use common::fake_openai::{Reply, fake, ok_body};
    // The first answered instance of the collection is Foundational Analysis case1_1 of simulated-large,
    // whose stored reading is {"alpha_rel_mean": 19.42836671351745}; the endpoint reads it so too.
    let f = fake(vec![Reply::Ok(ok_body(r#"{"alpha_rel_mean": 19.42836671351745}"#)); 2]);
    let demo = demo();
    let r = common::json(&[
        "bench",
        "audit-parser",
        demo.join("results").to_str().unwrap(),
        "--cases",
        demo.join("cases").to_str().unwrap(),
        "--n",
        "1",
        "--base-url",
        &f.url,
        "--json",
    ]);
    assert_eq!(r["instances"], 1, "{r}");
    assert_eq!(r["parser"], "openai:default");
    assert_eq!(
        (&r["overall"]["fields"], &r["overall"]["agree"], &r["overall"]["share"]),
        (&json!(1), &json!(1), &json!(1.0))
    );
    let body = &f.requests.lock().unwrap()[0].1;
    assert!(body["messages"][1]["content"].as_str().unwrap().contains("alpha_rel_mean"));
}
