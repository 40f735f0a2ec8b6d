//! BrainAgent for connectomes end to end on real HCP graphs with a scripted model recorded to a transcript and
//! replayed through the CLI, the baselines and ablations, and the failure modes the paper reports (answers
//! outside the label set, drifted tool arguments, invalid JSON, a timeout mid-loop): each ends in a recorded,
//! classified outcome with the trace kept.

mod common;

use brainlens::agent::graph::tools::{self, Resources};
use brainlens::agent::graph::{
    Agent, CardQuery, GraphContext, Method, OutcomeClass, Settings, Task, Trace, interpret, setup,
};
use brainlens::llm::ChatModel;
use brainlens::llm::replay::Recorder;
use brainlens::network::atlas::Atlas;
use brainlens::util::cancel::Cancel;
use common::scripted::{Scripted, round_of, timeout};
use serde_json::{Value, json};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

fn graph() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/cases/hcp_fingerprint/graphs/sub-100206_REST1_t0.npy")
}

fn context() -> GraphContext {
    GraphContext::load(&graph(), Some(&Atlas::load("schaefer100").unwrap())).unwrap()
}

fn resources(task: &Task, settings: &Settings) -> Resources {
    Resources {
        hark: Some(setup::hark().unwrap()),
        memory: Some(setup::memory_from(&task.memory_dir().unwrap(), settings, &[]).unwrap()),
        training: None,
        cohort_model: None,
    }
}

fn analyze(model: Arc<dyn ChatModel>, settings: Settings) -> Trace {
    let task = Task::load("fingerprint").unwrap();
    let res = resources(&task, &settings);
    Agent::new(task, Some(model), res, settings).analyze(&context(), 0, &Cancel::default(), &mut |_| {})
}

/// `brainlens agent analyze GRAPH --task fingerprint --provider replay --transcript T` plus `extra`.
fn replay_args(graph: &str, transcript: &std::path::Path, extra: &[&str]) -> Vec<String> {
    let mut v: Vec<String> =
        ["agent", "analyze", graph, "--task", "fingerprint", "--provider", "replay", "--transcript"]
            .iter()
            .map(|s| s.to_string())
            .collect();
    v.push(transcript.display().to_string());
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

fn brainagent() -> Settings {
    Settings::for_method(Method::Brainagent)
}

#[test]
fn brainagent_runs_end_to_end_and_replays_identically_from_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let transcript = dir.path().join("agent.jsonl");
    let recorder: Arc<dyn ChatModel> =
        Arc::new(Recorder::new(Arc::new(Scripted::default()), &transcript, vec![]).unwrap());
    let t = analyze(recorder, brainagent());
    assert_eq!(t.outcome.class, OutcomeClass::Ok, "{:?}", t.outcome);
    // The loop: HARK, CARD, an analysis function, finish; each called tool left the menu.
    let tools: Vec<&str> = t.rounds.iter().map(|r| r.tool.as_str()).collect();
    assert_eq!(tools, ["retrieve_knowledge", "retrieve_case", "hubs", "finish"]);
    assert!(t.rounds[0].menu.contains(&"retrieve_knowledge".to_string()));
    assert!(!t.rounds[1].menu.contains(&"retrieve_knowledge".to_string()));
    // Drifted names repaired (regions_t → regions_q, query_t → query) and a region name mapped to its index.
    let r0 = &t.rounds[0];
    assert!(r0.repairs.iter().any(|r| r == "regions_t, renamed to regions_q"), "{:?}", r0.repairs);
    assert!(r0.repairs.iter().any(|r| r == "query_t, renamed to query"), "{:?}", r0.repairs);
    assert!(
        r0.repairs.iter().any(|r| r.contains("region name RH_SalVentAttn_2 read as its index")),
        "{:?}",
        r0.repairs
    );
    let idx = context().region("RH_SalVentAttn_2").unwrap();
    assert_eq!(r0.checked["regions_q"], json!([3, idx]));
    assert!(t.counters.repaired_arguments >= 3);
    assert!(r0.data["candidates"].as_array().is_some_and(|c| !c.is_empty()), "HARK candidates kept for the panel");
    // CARD leaves the graph's own run out of its retrieval.
    let card = &t.rounds[1].data;
    assert_eq!(card["excluded_group"], "sub-100206_REST1");
    assert!(card["hits"].as_array().unwrap().iter().all(|h| h["group"] != "sub-100206_REST1"));
    assert!(t.evidence.iter().any(|e| e.id.starts_with("C:")) && t.evidence.iter().any(|e| e.id.starts_with("K:")));
    // Decision, reflection (before and after kept), evidence ids checked against the table.
    let d = t.decision.clone().unwrap();
    assert!(["sub-100206", "sub-100307"].contains(&d.label.as_str()));
    assert_eq!(d.confidence, 0.6);
    let a = t.analysis.clone().unwrap();
    assert!(a.unknown_evidence.is_empty(), "the schema offers only ids of the table: {:?}", a.unknown_evidence);
    assert!(a.evidence.contains(&"G:modularity".to_string()) && a.evidence.contains(&"R:RH_DorsAttn_6".to_string()));
    // The rationale is claims, each with what it cites; an id written in a claim's text counts as cited by it.
    assert_eq!(a.claims.len(), 2);
    assert_eq!(a.claims[1].evidence, ["G:modularity"]);
    assert_eq!(d.claims[0].evidence, ["R:RH_DorsAttn_6"], "{:?}", d.claims);
    assert!(d.rationale.starts_with("Hubs RH_DorsAttn_6 [R:RH_DorsAttn_6]. Modularity"), "{}", d.rationale);
    let md = t.to_markdown();
    let value = t.evidence_text("G:modularity").unwrap();
    assert!(md.contains(&format!("  - `G:modularity` {value}")), "the cited value is shown under its claim");
    let refl = t.reflection.clone().unwrap();
    assert!(refl.revised && refl.before.confidence == 0.7 && refl.after.confidence == 0.6);
    assert_eq!(
        t.calls.iter().map(|c| c.step.as_str()).collect::<Vec<_>>(),
        ["understanding", "round 1", "round 2", "round 3", "round 4", "analysis", "reflection"]
    );
    // Interpretability checks: real hubs named, modularity quoted correctly (0.32 vs 0.320), a reflection.
    let s = interpret::score(&t, &context());
    assert!(s.region_insight > 0.5 && s.graph_insight > 0.5 && s.reflection_depth > 0.5, "{s:?}");

    // The same run from the CLI, answered from the transcript.
    let trace_file = dir.path().join("trace.json");
    let md = dir.path().join("trace.md");
    let g = graph();
    let args = replay_args(
        g.to_str().unwrap(),
        &transcript,
        &["--trace", trace_file.to_str().unwrap(), "--markdown", md.to_str().unwrap(), "--json"],
    );
    let v = common::json(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let replayed: Trace = serde_json::from_value(v["trace"].clone()).unwrap();
    assert_eq!(replayed.rounds, t.rounds);
    assert_eq!(replayed.decision, t.decision);
    assert_eq!(replayed.reflection, t.reflection);
    assert_eq!(replayed.understanding, t.understanding);
    let saved: Trace = serde_json::from_str(&std::fs::read_to_string(&trace_file).unwrap()).unwrap();
    assert_eq!(saved.rounds, t.rounds);
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(
        md.contains("Research use only — not a diagnosis")
            && md.contains("## Round 4")
            && md.contains("regions_t, renamed to regions_q")
    );
}

#[test]
fn baselines_and_ablations_make_the_calls_they_should() {
    let steps = |s: Settings| -> (Vec<String>, Trace) {
        let t = analyze(Arc::new(Scripted::default()), s);
        assert_eq!(t.outcome.class, OutcomeClass::Ok, "{:?}", t.outcome);
        (t.calls.iter().map(|c| c.step.clone()).collect(), t)
    };
    assert_eq!(steps(Settings::for_method(Method::Direct)).0, ["analysis"]);
    let (s, t) = steps(Settings::for_method(Method::Cot));
    assert_eq!(s, ["analysis"]);
    assert!(t.decision.unwrap().reasoning.is_some());
    assert_eq!(steps(Settings::for_method(Method::Reflection)).0, ["analysis", "reflection"]);
    let (s, t) = steps(Settings { understanding: false, ..brainagent() });
    assert_eq!(s.first().unwrap(), "round 1");
    assert_eq!(t.method, "brainagent-no-understanding");
    let (_, t) = steps(Settings { hark: false, ..brainagent() });
    assert!(t.rounds.iter().all(|r| !r.menu.contains(&"retrieve_knowledge".to_string())));
    assert_eq!(t.rounds[0].tool, "retrieve_case");
    // CARD first: round 1 offers CARD alone (the scripted model otherwise takes the first tool, HARK); the
    // rest of the menu follows from round 2.
    let (_, t) = steps(Settings { card_first: true, ..brainagent() });
    assert_eq!(t.rounds[0].menu, ["retrieve_case"]);
    assert_eq!(t.rounds[0].tool, "retrieve_case");
    assert!(t.evidence.iter().any(|e| e.id.starts_with("C:")), "the cases join the evidence");
    assert_eq!(t.rounds[1].tool, "retrieve_knowledge");
    assert_eq!(t.method, "brainagent-card-first");
    let (_, t) = steps(Settings { card_first: true, card: false, ..brainagent() });
    assert!(t.rounds.iter().all(|r| !r.menu.contains(&"retrieve_case".to_string())));
    assert_eq!(t.method, "brainagent-no-card");
    // From the CLI, CARD first is a BrainAgent setting that needs CARD.
    let g = graph();
    let t = std::path::Path::new("unused.jsonl");
    for (extra, want) in [
        (&["--method", "direct", "--card-first"][..], "settings of --method brainagent"),
        (&["--no-card", "--card-first"][..], "cannot be used with"),
        (&["--method", "cot", "--card-query", "template"][..], "settings of --method brainagent"),
        (&["--no-card", "--card-query", "template"][..], "cannot be used with"),
        (&["--method", "direct", "--rationale-first"][..], "settings of --method brainagent"),
    ] {
        let args = replay_args(g.to_str().unwrap(), t, extra);
        let (code, _, err) = common::run(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert_ne!(code, 0, "{extra:?}");
        assert!(err.contains(want), "{extra:?}: {err}");
    }
    let (_, t) = steps(Settings { card: false, hark: false, ..brainagent() });
    assert!(t.rounds.iter().all(|r| !r.menu.contains(&"retrieve_case".to_string())));
    let (s, t) = steps(Settings { reflection: false, ..brainagent() });
    assert_eq!(s.last().unwrap(), "analysis");
    assert!(t.reflection.is_none());
    // Rationale first: the analysis is asked for its claims before the label, in the prompt and in the order of
    // the reply's schema; the label written after them is the decision.
    let order = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let seen = order.clone();
    let m = Scripted::with(move |name, req| {
        (name == "analysis").then(|| {
            if let brainlens::llm::ResponseFormat::JsonSchema { schema, .. } = &req.format {
                *seen.lock().unwrap() = schema["properties"].as_object().unwrap().keys().cloned().collect();
            }
            let prompt = &req.messages.last().unwrap().content;
            assert!(prompt.contains("then choose the label the claims support"), "{prompt}");
            Ok(json!({"claims": [{"claim": "Modularity is high.", "evidence": ["G:modularity"]}],
                "label": "sub-100307", "confidence": 0.6}))
        })
    });
    let t = analyze(Arc::new(m), Settings { rationale_first: true, reflection: false, ..brainagent() });
    assert_eq!(*order.lock().unwrap(), ["claims", "label", "confidence"]);
    assert_eq!(t.decision.as_ref().unwrap().label, "sub-100307");
    assert_eq!(t.method, "brainagent-no-reflection-rationale-first");
    // Keeping called tools on the menu (the paper's failure mode: the first tool again and again).
    let (_, t) = steps(Settings { remove_called_tools: false, rounds: 3, ..brainagent() });
    assert!(t.rounds.iter().all(|r| r.tool == "retrieve_knowledge"));
}

#[test]
fn interpretability_checks_reward_true_claims_about_this_graph_only() {
    let with = |rationale: &'static str| {
        let m = Scripted::with(move |name, _| {
            (name == "analysis").then(|| {
                Ok(json!({"label": "sub-100206", "confidence": 0.5, "claims": [{"claim": rationale, "evidence": []}]}))
            })
        });
        interpret::score(&analyze(Arc::new(m), Settings::for_method(Method::Direct)), &context())
    };
    // Two real degree hubs, the measured modularity (0.3195) and density (0.200), the most cohesive network.
    let right = with(
        "LH_SomMot_3 and RH_DorsAttn_6 are hubs; modularity 0.320 and density 0.200; the salience network is the most cohesive.",
    );
    assert!((right.region_insight - (0.5 + 0.5 * 2.0 / 3.0)).abs() < 1e-12, "{right:?}");
    assert_eq!(right.graph_insight, 1.0);
    assert_eq!(right.subgraph_insight, 0.75);
    assert_eq!(right.reflection_depth, 0.0, "direct prompting has no reflection");
    // A region that is not a hub, a wrong modularity, the least cohesive network: nothing earned.
    let wrong = with("LH_Limbic_1 is the hub; modularity 0.9; the limbic network is the most cohesive.");
    assert_eq!((wrong.region_insight, wrong.graph_insight, wrong.subgraph_insight), (0.0, 0.0, 0.0), "{wrong:?}");
    assert!(right.overall > wrong.overall);
}

#[test]
fn evidence_knn_votes_over_the_nearest_cases_without_a_model() {
    let task = Task::load("fingerprint").unwrap();
    let res = resources(&task, &Settings::default());
    let t = Agent::new(task, None, res, Settings::for_method(Method::EvidenceKnn)).analyze(
        &context(),
        0,
        &Cancel::default(),
        &mut |_| {},
    );
    assert_eq!(t.outcome.class, OutcomeClass::Ok);
    assert!(t.calls.is_empty() && t.model == "none");
    let hits: Vec<Value> =
        t.rounds[0].data["hits"].as_array().unwrap().iter().filter(|h| h["chosen"] == true).cloned().collect();
    assert_eq!(hits.len(), 3);
    let d = t.decision.unwrap();
    let weight = |l: &str| hits.iter().filter(|h| h["label"] == l).map(|h| h["score"].as_f64().unwrap()).sum::<f64>();
    let total = weight("sub-100206") + weight("sub-100307");
    assert!((d.confidence - weight(&d.label) / total).abs() < 1e-6);
    assert!(weight(&d.label) >= total / 2.0);
    // CARD with the template query retrieves exactly the cases that vote here; with the model's query (the
    // paper's), it retrieves by the model's words.
    let card = |q: CardQuery| {
        let t = analyze(Arc::new(Scripted::default()), Settings { card_first: true, card_query: q, ..brainagent() });
        assert_eq!(t.rounds[0].tool, "retrieve_case");
        t
    };
    let templated = card(CardQuery::Template);
    assert_eq!(templated.method, "brainagent-card-first-template-query");
    let data = &templated.rounds[0].data;
    assert_eq!((&data["query"], &data["query_source"]), (&t.rounds[0].data["query"], &json!("template")));
    assert_eq!(data["model_query"], templated.rounds[0].checked["query"], "the model's query is recorded");
    let chosen = |d: &Value| -> Vec<Value> {
        d["hits"].as_array().unwrap().iter().filter(|h| h["chosen"] == true).map(|h| h["case"].clone()).collect()
    };
    assert_eq!(chosen(data), chosen(&t.rounds[0].data));
    assert!(templated.rounds[0].observation.starts_with("Retrieved with the graph's template report"));
    let modelled = card(CardQuery::Model);
    let data = &modelled.rounds[0].data;
    assert_eq!((&data["query"], &data["query_source"]), (&modelled.rounds[0].checked["query"], &json!("model")));
    assert_ne!(data["query"], t.rounds[0].data["query"]);
}

#[test]
fn an_answer_outside_the_label_set_is_retried_once_then_recorded_as_a_failure() {
    let always = Scripted::with(|name, _| {
        (name == "analysis").then(|| {
            Ok(json!({"label": "UNCERTAIN", "confidence": 0.5, "claims": [{"claim": "unclear", "evidence": []}]}))
        })
    });
    let t = analyze(Arc::new(always), brainagent());
    assert_eq!(t.outcome.class, OutcomeClass::OutOfLabelSet);
    assert_eq!(t.outcome.step, "analysis");
    assert!(t.outcome.message.contains("UNCERTAIN"));
    assert_eq!(t.counters.out_of_label_set, 2);
    assert!(t.decision.is_none(), "never silently mapped to a label");
    assert_eq!(t.rounds.len(), 4, "the trace before the failure is kept");
    let analysis = t.calls.iter().find(|c| c.step == "analysis").unwrap();
    assert_eq!(analysis.attempts, 2);
    // Corrected on the retry: accepted.
    let once = Scripted::with(|name, r| {
        (name == "analysis" && r.messages.len() == 2).then(|| {
            Ok(json!({"label": "UNCERTAIN", "confidence": 0.5, "claims": [{"claim": "unclear", "evidence": []}]}))
        })
    });
    let t = analyze(Arc::new(once), brainagent());
    assert_eq!(t.outcome.class, OutcomeClass::Ok);
    assert_eq!(t.counters.out_of_label_set, 1);
}

#[test]
fn drifted_arguments_are_repaired_when_unambiguous_and_rejected_otherwise() {
    let ctx = context();
    let hark = tools::spec("retrieve_knowledge").unwrap();
    let ok = tools::check_args(hark, &json!({"query_t": "x", "regions_t": [1, 2]}), &ctx).unwrap();
    assert_eq!(ok.args["query"], "x");
    assert_eq!(ok.args["regions_q"], json!([1, 2]));
    assert_eq!(ok.repairs.len(), 2);
    let e = tools::check_args(hark, &json!({"query": "x", "areas": [1]}), &ctx).unwrap_err().to_string();
    assert!(e.contains("unknown argument \"areas\"") && e.contains("regions_q"), "{e}");
    let e = tools::check_args(hark, &json!({"query": "x", "regions_q": [500]}), &ctx).unwrap_err().to_string();
    assert!(e.contains("not a region index 0–99"), "{e}");
    let profile = tools::spec("region_profile").unwrap();
    let e =
        tools::check_args(profile, &json!({"region_name": "LH_Vis_1", "region_id": 3}), &ctx).unwrap_err().to_string();
    assert!(e.contains("region_id"), "{e}");
    assert!(
        tools::check_args(tools::spec("hubs").unwrap(), &json!({"by": "eigenvector"}), &ctx)
            .unwrap_err()
            .to_string()
            .contains("one of degree")
    );
    assert!(tools::check_args(tools::spec("global_metrics").unwrap(), &json!("all"), &ctx).is_err());
    // In the loop: a rejected call is counted, the model reads why, and the tool stays on the menu.
    let drifting = Scripted::with(|name, r| match name {
        "step" if round_of(r) == 1 => Some(Ok(
            json!({"think": "t", "report": "r", "action": {"tool": "retrieve_knowledge", "arguments": {"text": "x", "areas": [1]}}}),
        )),
        "arguments" => Some(Ok(json!({"areas": [1]}))),
        _ => None,
    });

    let t = analyze(Arc::new(drifting), brainagent());
    assert_eq!(t.outcome.class, OutcomeClass::Ok);
    assert_eq!(t.counters.rejected_arguments, 1);
    assert!(t.rounds[0].rejected.is_some() && t.rounds[0].observation.starts_with("Rejected:"));
    assert!(t.rounds[1].menu.contains(&"retrieve_knowledge".to_string()));
    assert_eq!(t.rounds[1].tool, "retrieve_knowledge");
    assert_eq!(t.counters.argument_retries, 1);
    // Arguments missing altogether (a small model's "hubs" with {}): asked again with the tool's own schema.
    let empty = Scripted::with(|name, r| {
        (name == "step" && round_of(r) == 1)
            .then(|| Ok(json!({"think": "t", "report": "r", "action": {"tool": "hubs", "arguments": {}}})))
    });
    let t = analyze(Arc::new(empty), brainagent());
    assert_eq!(t.rounds[0].tool, "hubs");
    assert!(t.rounds[0].rejected.is_none(), "{:?}", t.rounds[0]);
    assert_eq!(t.rounds[0].checked["by"], "degree");
    assert!(t.rounds[0].repairs[0].starts_with("arguments asked again"));
    assert!(t.calls.iter().any(|c| c.step == "round 1 arguments"));
    assert_eq!((t.counters.argument_retries, t.counters.rejected_arguments), (1, 0));
}

#[test]
fn invalid_json_is_retried_once_then_recorded() {
    let prose = Scripted::with(|name, _| {
        (name == "analysis").then(|| Ok(Value::String("I think it is the first subject.".into())))
    });
    let t = analyze(Arc::new(prose), brainagent());
    assert_eq!(t.outcome.class, OutcomeClass::InvalidOutput);
    assert_eq!(t.counters.invalid_outputs, 2);
    assert_eq!(t.calls.last().unwrap().raw, "I think it is the first subject.");
    // A step that is not JSON ends the loop; the analysis goes on.
    let bad_step = Scripted::with(|name, _| (name == "step").then(|| Ok(Value::String("call the tool".into()))));
    let t = analyze(Arc::new(bad_step), brainagent());
    assert_eq!(t.outcome.class, OutcomeClass::Ok);
    assert_eq!(t.rounds.len(), 1);
    assert!(t.rounds[0].error.as_deref().unwrap().contains("not JSON"));
    // A schema-invalid reply (confidence out of range) is an invalid output too.
    let conf = Scripted::with(|name, _| {
        (name == "analysis")
            .then(|| Ok(json!({"label": "sub-100206", "confidence": 7, "claims": [{"claim": "x", "evidence": []}]})))
    });
    let t = analyze(Arc::new(conf), Settings::for_method(Method::Direct));
    assert_eq!(t.outcome.class, OutcomeClass::InvalidOutput);
    assert!(t.outcome.message.contains("between 0 and 1"));
}

#[test]
fn a_timeout_in_round_2_is_classified_and_the_trace_kept() {
    let dir = tempfile::tempdir().unwrap();
    let transcript = dir.path().join("t.jsonl");
    let flaky = Scripted::with(|name, r| (name == "step" && round_of(r) == 2).then(|| Err(timeout())));
    let rec: Arc<dyn ChatModel> = Arc::new(Recorder::new(Arc::new(flaky), &transcript, vec![]).unwrap());
    let t = analyze(rec, brainagent());
    assert_eq!(t.outcome.class, OutcomeClass::ApiInfrastructureError);
    assert_eq!(t.outcome.step, "round 2");
    assert!(t.outcome.class.rerun_on_resume());
    assert_eq!(t.rounds.len(), 2);
    assert_eq!(t.rounds[0].tool, "retrieve_knowledge");
    assert!(t.rounds[1].error.as_deref().unwrap().contains("timed out"));
    assert!(t.understanding.is_some() && t.decision.is_none());
    // Replayed from the transcript through the CLI: the same classified outcome, exit code 1, trace written.
    let trace_file = dir.path().join("trace.json");
    let g = graph();
    let args = replay_args(g.to_str().unwrap(), &transcript, &["--trace", trace_file.to_str().unwrap()]);
    let (code, _, err) = common::run(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, 1);
    assert!(err.contains("api_infrastructure_error in round 2"), "{err}");
    let saved: Trace = serde_json::from_str(&std::fs::read_to_string(&trace_file).unwrap()).unwrap();
    assert_eq!(saved.rounds[0], t.rounds[0]);
    assert!(saved.rounds[1].error.as_deref().unwrap().contains("timed out"));
    assert_eq!(saved.outcome.class, OutcomeClass::ApiInfrastructureError);
}

mod eval_tests {
    use super::*;
    use brainlens::agent::graph::cohort::{self, split};
    use brainlens::agent::graph::eval::{self, EvalJob, Header, metrics};
    use brainlens::network::cohort::source::Source;

    fn cohort() -> (Arc<Source>, Vec<cohort::Row>) {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/cases/hcp_fingerprint");
        let source = Source::folder(&dir.join("graphs"), &dir.join("labels.csv")).unwrap();
        let rows = source.subjects.clone();
        (Arc::new(source), rows)
    }

    #[test]
    fn the_split_is_seeded_group_aware_and_stratified() {
        let (_, rows) = cohort();
        let (test, train) = split(&rows, 0.2, 0).unwrap();
        assert_eq!((test.len(), train.len()), (10, 10), "one run (5 windows) of each subject is tested");
        for t in &test {
            assert!(train.iter().all(|r| r.group != t.group), "a run is never split");
        }
        for l in ["sub-100206", "sub-100307"] {
            assert_eq!(test.iter().filter(|r| r.label == l).count(), 5);
        }
        assert_eq!(split(&rows, 0.2, 0).unwrap().0, test, "same seed, same split");
        assert!(split(&rows, 1.5, 0).is_err());
    }

    /// Run i answers the label at index (seed % 2): every sample has one right and one wrong run.
    fn alternating() -> Scripted {
        Scripted::with(|name, r| {
            (name == "analysis").then(|| {
                let l = ["sub-100206", "sub-100307"][r.seed.unwrap_or(0) as usize % 2];
                Ok(json!({"label": l, "confidence": 0.6, "claims": [{"claim": "alternating", "evidence": []}]}))
            })
        })
    }

    fn job<'a>(agent: &'a Agent, out: PathBuf, concurrency: usize) -> EvalJob<'a> {
        let (source, rows) = cohort();
        let (test, _) = split(&rows, 0.2, 0).unwrap();
        let header = Header {
            kind: "run".into(),
            task: "fingerprint".into(),
            method: agent.settings.name(),
            model: "scripted:test".into(),
            split: 0.2,
            seed: 0,
            runs: 2,
            settings: agent.settings.clone(),
            test: test.iter().map(|r| r.id.clone()).collect(),
            sites: Vec::new(),
            memory_cases: 0,
            training_samples: 0,
            graphs: source.origin.graphs.clone().unwrap(),
            source: Some(source.origin.clone()),
            shard: None,
            model_threads: None,
            reused_from: None,
        };
        EvalJob { agent, source, test, header, concurrency, judge: true, out, reuse: None }
    }

    #[test]
    fn an_interrupted_evaluation_resumes_to_the_same_result_and_metrics_follow_pass_at_k() {
        let task = Task::load("fingerprint").unwrap();
        let agent = Agent::new(
            task.clone(),
            Some(Arc::new(alternating())),
            Resources::default(),
            Settings::for_method(Method::Direct),
        );
        let dir = tempfile::tempdir().unwrap();
        // Uninterrupted, one worker.
        let straight = eval::run(&job(&agent, dir.path().join("a.jsonl"), 1), &Cancel::default(), &|_, _| {}).unwrap();
        assert_eq!(straight.records.len(), 20);
        // Three workers, stopped after 5 runs, a half-written line appended (a kill mid-write), then resumed.
        let out = dir.path().join("b.jsonl");
        let cancel = Cancel::default();
        let stop = |done: usize, _| {
            if done >= 5 {
                cancel.cancel();
            }
        };
        eval::run(&job(&agent, out.clone(), 3), &cancel, &stop).unwrap();
        let partial = eval::read_run(&out).unwrap().records.len();
        assert!((5..20).contains(&partial), "{partial}");
        std::fs::OpenOptions::new().append(true).open(&out).unwrap().write_all(b"{\"kind\":\"sample\",\"sam").unwrap();
        let seen = std::sync::Mutex::new(Vec::new());
        let resumed =
            eval::run(&job(&agent, out.clone(), 3), &Cancel::default(), &|d, t| seen.lock().unwrap().push((d, t)))
                .unwrap();
        assert_eq!(seen.lock().unwrap()[0].0, partial, "finished runs are kept, not redone");
        let key = |r: &eval::Record| (r.sample.clone(), r.run, r.label.clone(), r.correct, r.outcome);
        assert_eq!(
            resumed.records.iter().map(key).collect::<Vec<_>>(),
            straight.records.iter().map(key).collect::<Vec<_>>()
        );
        assert_eq!(eval::read_run(&out).unwrap().records.len(), 20, "the file reads back whole");
        // Metrics: each sample has one right run of two.
        let m = metrics(&resumed, &task);
        assert_eq!((m.samples, m.runs, m.missing), (10, 2, 0));
        assert_eq!((m.pass_at_1, m.pass_at_k), (0.5, 1.0));
        // Ties (1 vote each, equal confidence) go to the first label: sub-100206 for every sample.
        assert_eq!(m.accuracy, 0.5);
        assert_eq!(m.confusion, vec![vec![5, 0, 0], vec![5, 0, 0]]);
        assert_eq!((m.recall, m.precision, m.positive_rate), (Some(0.0), None, 0.0));
        // The paper's pass criterion over k = 2 runs: every sample has a right run, so each counts as its true
        // label: the 5 positives are recalled and nothing else is called positive (5/5 and 5/5).
        assert_eq!((m.recall_at_k, m.precision_at_k), (Some(1.0), Some(1.0)));
        assert_eq!(m.prompt_tokens_per_sample, 2.0 * 2.0 * 100.0, "2 runs × (analysis + judge) × 100 tokens");
        assert!(m.judge.is_some());
        // A run file of another evaluation is refused.
        let other =
            Agent::new(task, Some(Arc::new(alternating())), Resources::default(), Settings::for_method(Method::Cot));
        let e = eval::run(&job(&other, out, 1), &Cancel::default(), &|_, _| {}).unwrap_err();
        assert!(e.to_string().contains("written by another evaluation"), "{e}");
    }

    /// A reflection re-run answers every step before reflection from a stored run (no live call but the
    /// reflection's), keeps the stored analysis, and takes the new form's label; a stored run of another
    /// evaluation is refused, and a replay that departs from the stored analysis stops the run.
    #[test]
    fn a_reflection_rerun_replays_the_stored_steps_and_asks_only_the_reflection() {
        use brainlens::agent::graph::ReflectionForm;
        use brainlens::agent::graph::reuse::Reuse;
        let task = Task::load("fingerprint").unwrap();
        let settings = Settings { card_first: true, card_query: CardQuery::Template, ..brainagent() };
        // Claims cite only ids every test graph has.
        let model = Scripted::with(|name, _| {
            (name == "analysis").then(|| {
                Ok(json!({"label": "sub-100206", "confidence": 0.7,
                    "claims": [{"claim": "Modularity is 0.32.", "evidence": ["G:modularity"]}]}))
            })
        });
        let stored_agent =
            Agent::new(task.clone(), Some(Arc::new(model)), resources(&task, &settings), settings.clone());
        let dir = tempfile::tempdir().unwrap();
        let stored = dir.path().join("stored.jsonl");
        let first = eval::run(&job(&stored_agent, stored.clone(), 1), &Cancel::default(), &|_, _| {}).unwrap();
        // The live model answers the reflection only (the other label, no "revise"); any other step is an error.
        let live = Scripted::with(|name, r| {
            Some(match name {
                "reflection" => {
                    let schema = match &r.format {
                        brainlens::llm::ResponseFormat::JsonSchema { schema, .. } => schema.clone(),
                        _ => Value::Null,
                    };
                    assert!(schema["properties"].get("revise").is_none(), "the label form asks no revise flag");
                    Ok(json!({"critique": "the cases disagree", "label": "sub-100307", "confidence": 0.55,
                        "claims": [{"claim": "Modularity 0.32.", "evidence": ["G:modularity"]}]}))
                }
                other => Err(brainlens::llm::LlmError::new(
                    brainlens::llm::ErrorClass::ModelError,
                    "scripted",
                    format!("{other} asked live"),
                )),
            })
        });
        let label_form = Settings { reflection_form: ReflectionForm::Label, ..settings.clone() };
        let agent = Agent::new(task.clone(), Some(Arc::new(live)), resources(&task, &label_form), label_form);
        let mut rerun = job(&agent, dir.path().join("label.jsonl"), 2);
        rerun.judge = false;
        rerun.reuse = Some(Reuse::open(&stored, &rerun.header).unwrap());
        let second = eval::run(&rerun, &Cancel::default(), &|_, _| {}).unwrap();
        assert_eq!(second.header.method, "brainagent-card-first-template-query-label-reflection");
        let m = metrics(&second, &task);
        assert_eq!(m.reused_from.as_deref(), Some(stored.display().to_string().as_str()), "the table names it");
        let label_run = dir.path().join("label.jsonl");
        let (code, text, err) = common::run(&["agent", "report", label_run.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
        assert!(
            text.contains(&format!("a reflection re-run of {}", stored.display()))
                && text.contains("its seconds a sample are the reflection's alone"),
            "{text}"
        );
        assert_eq!(second.records.len(), first.records.len());
        for (a, b) in first.records.iter().zip(&second.records) {
            assert_eq!((&a.sample, a.run), (&b.sample, b.run));
            assert_eq!(b.trace.outcome.class, OutcomeClass::Ok, "{:?}", b.trace.outcome);
            assert_eq!(a.trace.analysis, b.trace.analysis, "the analysis is the stored one");
            assert_eq!(a.trace.rounds, b.trace.rounds);
            assert_eq!(b.label.as_deref(), Some("sub-100307"));
            let r = b.trace.reflection.as_ref().unwrap();
            assert_eq!(r.revised, r.before.label != "sub-100307" || r.before.confidence != 0.55);
            // The stored steps' tokens are kept (the method's cost), the reflection's are the live call's.
            let n = a.trace.calls.iter().position(|c| c.step == "reflection").unwrap();
            assert_eq!(b.trace.calls.len(), n + 1, "no judge in a reflection re-run");
            for (x, y) in a.trace.calls[..n].iter().zip(&b.trace.calls) {
                assert_eq!((&x.step, &x.raw, x.prompt_tokens), (&y.step, &y.raw, y.prompt_tokens));
            }
            assert_eq!(b.trace.calls[n].step, "reflection");
        }
        // Another evaluation's run is refused: other settings than the reflection's form, another seed.
        let mut other = rerun.header.clone();
        other.settings.hark = false;
        let e = Reuse::open(&stored, &other).unwrap_err().to_string();
        assert!(e.contains("differ from this run's in more than the reflection's form"), "{e}");
        let mut other = rerun.header.clone();
        other.settings.reflection = false;
        let e = Reuse::open(&stored, &other).unwrap_err().to_string();
        assert!(e.contains("needs a method with reflection"), "{e}");
        let mut other = rerun.header.clone();
        other.seed = 5;
        assert!(Reuse::open(&stored, &other).unwrap_err().to_string().contains("another evaluation"));
        // A stored analysis the replay does not reproduce (its recorded label edited) stops the run.
        let text = std::fs::read_to_string(&stored).unwrap();
        let mut lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let analysis = &mut lines[1]["trace"]["analysis"]["label"];
        *analysis = json!(if analysis == "sub-100206" { "sub-100307" } else { "sub-100206" });
        let edited = dir.path().join("edited.jsonl");
        std::fs::write(&edited, lines.iter().map(|l| l.to_string() + "\n").collect::<String>()).unwrap();
        let mut bad = job(&agent, dir.path().join("bad.jsonl"), 1);
        bad.reuse = Some(Reuse::open(&edited, &bad.header).unwrap());
        let e = eval::run(&bad, &Cancel::default(), &|_, _| {}).unwrap_err().to_string();
        assert!(e.contains("departed from the stored analysis"), "{e}");
    }

    /// `brainlens agent eval --task fingerprint --graphs G --labels L --out O` plus `extra`.
    fn eval_args(
        graphs: &std::path::Path,
        labels: &std::path::Path,
        out: &std::path::Path,
        extra: &[&str],
    ) -> Vec<String> {
        let mut v: Vec<String> = vec!["agent".into(), "eval".into(), "--task".into(), "fingerprint".into()];
        for (flag, p) in [("--graphs", graphs), ("--labels", labels), ("--out", out)] {
            v.push(flag.into());
            v.push(p.display().to_string());
        }
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    }

    /// The paper's CARD top-k sweep as one command: `--cases 3,4,5,6` writes a run file per k (RUN.k3.jsonl, …)
    /// on the same split and prints one table, each row labelled with its k; each file equals a single run
    /// with that k.
    #[test]
    fn card_top_k_sweep_is_one_command_with_one_row_per_k() {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/cases/hcp_fingerprint");
        let (graphs, labels) = (dir.join("graphs"), dir.join("labels.csv"));
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("sweep.jsonl");
        let args = eval_args(&graphs, &labels, &out, &["--method", "evidence-knn", "--cases", "3,4,5,6", "--json"]);
        let v = common::json(&args.iter().map(String::as_str).collect::<Vec<_>>());
        let rows = v.as_array().unwrap();
        assert_eq!(rows.len(), 4);
        for (row, k) in rows.iter().zip([3, 4, 5, 6]) {
            assert_eq!(row["method"], format!("evidence-knn (CARD top-{k})"));
            assert!(dir.path().join(format!("sweep.k{k}.jsonl")).is_file());
        }
        let single = dir.path().join("k5.jsonl");
        let args = eval_args(&graphs, &labels, &single, &["--method", "evidence-knn", "--cases", "5", "--json"]);
        let one = common::json(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(
            (one["accuracy"].clone(), one["confusion"].clone()),
            (rows[2]["accuracy"].clone(), rows[2]["confusion"].clone())
        );
        let args = eval_args(&graphs, &labels, &out, &["--method", "direct", "--cases", "3,4"]);
        let (code, _, err) = common::run(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(code, 1);
        assert!(err.contains("needs CARD"), "{err}");
        let args = eval_args(&graphs, &labels, &out, &["--method", "evidence-knn", "--cases", "3,4", "--shard", "1/2"]);
        let (code, _, err) = common::run(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(code, 1);
        assert!(err.contains("shard one k at a time"), "{err}");
        let args = eval_args(&graphs, &labels, &out, &["--cases", "3,4", "--replay-before-reflection", "x.jsonl"]);
        let (code, _, err) = common::run(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(code, 1);
        assert!(err.contains("re-run one k at a time"), "{err}");
        // The reflection's form is a setting of reflection: refused for a method without it.
        let args = eval_args(&graphs, &labels, &out, &["--method", "direct", "--reflection-form", "label"]);
        let (code, _, err) = common::run(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(code, 1);
        assert!(err.contains("--reflection-form is a setting of reflection"), "{err}");
    }

    #[test]
    fn evidence_knn_eval_and_report_from_the_cli() {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/cases/hcp_fingerprint");
        let (graphs, labels) = (dir.join("graphs"), dir.join("labels.csv"));
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("knn.jsonl");
        let args = eval_args(&graphs, &labels, &out, &["--method", "evidence-knn", "--concurrency", "2", "--json"]);
        let m = common::json(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(m["samples"], 10);
        assert_eq!(m["failures"], json!({}));
        // The metrics recomputed here from the records' labels (k = 1; positive class sub-100307).
        let records = eval::read_run(&out).unwrap().records;
        let pred = |r: &eval::Record| r.label.clone().unwrap();
        let count = |f: &dyn Fn(&eval::Record) -> bool| records.iter().filter(|r| f(r)).count() as f64;
        let pos = "sub-100307";
        let tp = count(&|r| pred(r) == pos && r.truth == pos);
        let fp = count(&|r| pred(r) == pos && r.truth != pos);
        let fn_ = count(&|r| pred(r) != pos && r.truth == pos);
        let close = |a: &Value, b: f64| assert!((a.as_f64().unwrap() - b).abs() < 1e-12, "{a} vs {b}");
        close(&m["accuracy"], count(&|r| pred(r) == r.truth) / 10.0);
        close(&m["recall"], tp / (tp + fn_));
        close(&m["precision"], tp / (tp + fp));
        close(&m["positive_rate"], (tp + fp) / 10.0);
        let right_negatives = count(&|r| pred(r) == r.truth && r.truth != pos) as u64;
        assert_eq!(m["confusion"], json!([[right_negatives, 5 - right_negatives, 0], [fn_ as u64, tp as u64, 0]]));
        // The memory is the training split only: no test window retrieves a window of its own run.
        for r in eval::read_run(&out).unwrap().records {
            let own = r.sample.rsplit_once("_t").unwrap().0.to_string();
            assert!(r.trace.rounds[0].data["hits"].as_array().unwrap().iter().all(|h| h["group"] != own.as_str()));
        }
        let svg = dir.path().join("radar.svg");
        let v = common::json(&["agent", "report", out.to_str().unwrap(), "--svg", svg.to_str().unwrap(), "--json"]);
        assert_eq!(v[0]["accuracy"], m["accuracy"]);
        let text = std::fs::read_to_string(&svg).unwrap();
        // The legend names the method and its backbone (no model for evidence-knn).
        assert!(
            text.starts_with("<svg") && text.contains("Region Insight") && text.contains("evidence-knn (none)"),
            "{text}"
        );
        // Paper output: the metrics table as CSV and LaTeX, the figures as SVG and 300-dpi PNG.
        let (tex, fig) = (dir.path().join("tex"), dir.path().join("fig"));
        let (code, _, err) = common::run(&[
            "agent",
            "report",
            out.to_str().unwrap(),
            "--latex",
            tex.to_str().unwrap(),
            "--figures",
            fig.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
        let csv = std::fs::read_to_string(tex.join("metrics.csv")).unwrap();
        assert!(csv.starts_with("method,backbone,task,samples,runs,accuracy,recall (majority)"), "{csv}");
        assert!(csv.contains(&format!(",{:.4},", m["accuracy"].as_f64().unwrap())), "{csv}");
        assert!(std::fs::read_to_string(tex.join("metrics.tex")).unwrap().contains("\\toprule"));
        assert!(tex.join("tables.tex").is_file());
        for stem in ["precision_ranking", "interpretability_radar"] {
            assert!(std::fs::read_to_string(fig.join(format!("{stem}.svg"))).unwrap().starts_with("<svg"));
            assert!(fig.join(format!("{stem}.png")).is_file());
        }
        assert!(!fig.join("ablations.svg").exists(), "no ablation among the runs");
        // Labels outside the task's set are refused with the file named.
        let bad = dir.path().join("bad.csv");
        std::fs::write(&bad, "file,label\nsub-100206_REST1_t0.npy,UNCERTAIN\n").unwrap();
        let args = eval_args(&graphs, &bad, &dir.path().join("x.jsonl"), &[]);
        let (code, _, err) = common::run(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(code, 1);
        assert!(err.contains("bad.csv") && err.contains("UNCERTAIN"), "{err}");
    }
}

#[test]
fn region_arguments_can_only_name_regions_of_the_graph() {
    let ctx = context();
    let schema = tools::action_schema(&["region_profile".to_string(), "retrieve_case".to_string()], &ctx);
    let compiled = brainlens::llm::schema::Schema::compile(&schema).unwrap();
    let label = &ctx.labels()[3];
    let ok = json!({"tool": "region_profile", "arguments": {"region": label}});
    assert!(compiled.validate(&ok).is_ok());
    let invented = json!({"tool": "region_profile", "arguments": {"region": "RH_SomModes_1"}});
    assert!(compiled.validate(&invented).is_err(), "a label the graph does not have is outside the schema");
    // Free text (a query) is bounded for constrained decoding.
    let long = json!({"tool": "retrieve_case", "arguments": {"query": "x".repeat(tools::TEXT_CHARS + 1)}});
    assert!(compiled.validate(&long).is_err());
}

#[test]
fn each_step_prompt_continues_the_one_before() {
    // The prefix cache reuses a step's keys/values only if the next prompt starts with the same text: each
    // prompt must contain the one before up to its report line (what changes from step to step comes last).
    let seen = Arc::new(std::sync::Mutex::new(Vec::<(String, String)>::new()));
    let log = seen.clone();
    let model: Arc<dyn ChatModel> = Arc::new(Scripted::with(move |name, r| {
        log.lock().unwrap().push((name.to_string(), r.messages.last().unwrap().content.clone()));
        None
    }));
    let t = analyze(model, brainagent());
    assert_eq!(t.outcome.class, OutcomeClass::Ok, "{:?}", t.outcome);
    assert!(!t.rounds[0].menu.iter().any(|m| m == "finish"), "round 1 must call a tool: {:?}", t.rounds[0].menu);
    let prompts = seen.lock().unwrap().clone();
    let names: Vec<&str> = prompts.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names.first(), Some(&"understanding"));
    assert_eq!(&names[names.len() - 2..], ["analysis", "reflection"]);
    // The understanding and round 1 share the task and the measured values.
    let measured_end = prompts[0].1.find("[G:").and_then(|i| prompts[0].1[i..].find("\n\n").map(|j| i + j)).unwrap();
    assert!(prompts[1].1.starts_with(&prompts[0].1[..measured_end]));
    for w in prompts[1..].windows(2) {
        let head = w[0].1[..w[0].1.find("Your report so far").unwrap()].trim_end();
        let at = head.bytes().zip(w[1].1.bytes()).take_while(|(a, b)| a == b).count();
        assert!(w[1].1.starts_with(head), "{} does not continue {} from: {:?}", w[1].0, w[0].0, &head[at..]);
    }
}

#[test]
fn every_listed_graph_tool_runs_through_its_own_handler() {
    let ctx = context();
    let res = Resources::default();
    let mut names = std::collections::BTreeSet::new();
    for t in tools::TOOLS {
        assert!(names.insert(t.name), "{} listed twice", t.name);
        let args = serde_json::Map::new();
        let call = tools::Call { args: &args, ctx: &ctx, res: &res, knowledge_set: "fingerprint" };
        let direct = (t.run)(&call).map(|o| o.text);
        let by_name = tools::run(t.name, &args, &ctx, &res, "fingerprint").map(|o| o.text);
        assert_eq!(direct, by_name, "{}: the name dispatches to the listed handler", t.name);
    }
    // Without retrieval resources HARK and CARD say so; the analysis tools answer from the graph.
    let hark = tools::run(tools::HARK, &serde_json::Map::new(), &ctx, &res, "fingerprint").unwrap_err();
    assert!(hark.0.contains("knowledge base is not available"), "{hark}");
    assert!(tools::run("global_metrics", &serde_json::Map::new(), &ctx, &res, "").unwrap().text.contains("ensity"));
    assert!(tools::run("nope", &serde_json::Map::new(), &ctx, &res, "").unwrap_err().0.contains("unknown tool"));
}

/// The paper's baselines (Direct, CoT, Reflection) and its "w/o understanding" ablation see the serialised
/// graph (triplets) and the task only; BrainAgent with understanding sees the measured values too.
#[test]
fn baselines_and_the_no_understanding_ablation_see_the_graph_but_no_measured_values() {
    use std::sync::Mutex;
    let prompts = Arc::new(Mutex::new(Vec::<String>::new()));
    let seen = |s: Settings| -> Vec<String> {
        prompts.lock().unwrap().clear();
        let p = prompts.clone();
        let m = Scripted::with(move |_, req| {
            p.lock().unwrap().push(req.messages.iter().map(|m| m.content.clone()).collect::<Vec<_>>().join("\n"));
            None
        });
        let t = analyze(Arc::new(m), s);
        assert_eq!(t.outcome.class, OutcomeClass::Ok, "{:?}", t.outcome);
        prompts.lock().unwrap().clone()
    };
    for s in [
        Settings::for_method(Method::Direct),
        Settings::for_method(Method::Cot),
        Settings::for_method(Method::Reflection),
        Settings { understanding: false, ..brainagent() },
    ] {
        let method = s.method;
        for p in seen(s) {
            assert!(p.contains("Links (source, target, weight)"), "{method:?}: no triplets");
            assert!(!p.contains("Its measured values"), "{method:?}: the measured values leaked into {p}");
        }
    }
    let with = seen(brainagent());
    assert!(with[0].contains("Its measured values") && with[0].contains("Links (source, target, weight)"));
}

/// Direct through an OpenAI-compatible endpoint that returns `logprobs` (a scripted loopback server): the
/// decision records the model's own probability of each label (from the alternatives at the label's
/// diverging token: `206` 0.7 against `307` 0.2), not only the confidence it states.
#[test]
fn a_remote_models_label_probability_comes_from_its_logprobs() {
    use common::fake_openai::{Reply, fake};
    let text = "{\"label\": \"sub-100206\", \"confidence\": 0.9, \"claims\": []}";
    let (head, tail) = text.split_at(text.find("206").unwrap());
    let tokens = json!([
        {"token": head, "logprob": 0.0, "top_logprobs": []},
        {"token": "206", "logprob": 0.7f64.ln(),
         "top_logprobs": [{"token": "206", "logprob": 0.7f64.ln()}, {"token": "307", "logprob": 0.2f64.ln()}]},
        {"token": &tail[3..], "logprob": 0.0, "top_logprobs": []},
    ]);
    let body = json!({"model": "fake", "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
        "logprobs": {"content": tokens}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 9, "completion_tokens": 5}});
    let f = fake(vec![Reply::Ok(body.to_string())]);
    let config = brainlens::llm::config::ProviderConfig {
        provider: brainlens::llm::config::ProviderKind::Openai,
        base_url: f.url.clone(),
        model: "fake".into(),
        timeout_s: 10.0,
        ..Default::default()
    };
    let client = brainlens::llm::openai::OpenAiClient::new(&config).unwrap();
    let t = analyze(Arc::new(client), Settings::for_method(Method::Direct));
    assert_eq!(t.outcome.class, OutcomeClass::Ok, "{:?}", t.outcome);
    let d = t.decision.unwrap();
    assert_eq!((d.label.as_str(), d.confidence), ("sub-100206", 0.9));
    let p = d.label_probabilities.expect("the endpoint's logprobs give the labels' probabilities");
    let of = |l: &str| p.iter().find(|(x, _)| x == l).unwrap().1;
    assert!((of("sub-100206") - 0.7 / 0.9).abs() < 1e-9 && (of("sub-100307") - 0.2 / 0.9).abs() < 1e-9, "{p:?}");
    assert_eq!(f.requests.lock().unwrap()[0].1["logprobs"], json!(true));
}
