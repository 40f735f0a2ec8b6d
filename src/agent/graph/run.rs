//! The pipeline of one analysis: understanding → Think-Report-Action-Observation rounds → analysis →
//! reflection (BrainAgent and its ablations), the prompting baselines, and the evidence-knn floor. Every step
//! lands in the trace as it happens (`on_update`), so the GUI shows the run live and a failure keeps what came
//! before it.

use super::call::{Caller, StepError};
use super::context::{Evidence, GraphContext};
use super::method::{Method, ReflectionForm, Settings};
use super::prompts;
use super::task::Task;
use super::tools::{self, CARD, FINISH, HARK, Resources, TOOLS};
use super::trace::{Claim, Counters, Decision, Outcome, OutcomeClass, Reflection, Round, Trace};
use crate::llm::ChatModel;
use crate::util::cancel::Cancel;
use serde_json::{Value, json};
use std::sync::Arc;

pub struct Agent {
    pub task: Task,
    pub model: Option<Arc<dyn ChatModel>>,
    pub resources: Resources,
    pub settings: Settings,
}

/// Observations are cut to this many characters in later prompts (the trace keeps them whole).
const OBSERVATION_CHARS: usize = 900;

fn cut(s: &str, n: usize) -> (String, bool) {
    if s.chars().count() <= n { (s.to_string(), false) } else { (s.chars().take(n).collect::<String>(), true) }
}

impl Agent {
    pub fn new(task: Task, model: Option<Arc<dyn ChatModel>>, resources: Resources, settings: Settings) -> Agent {
        Agent { task, model, resources, settings }
    }

    /// The tools offered in round 1.
    pub fn initial_menu(&self) -> Vec<String> {
        TOOLS
            .iter()
            .filter(|t| match t.name {
                HARK => self.settings.hark && self.resources.hark.is_some(),
                CARD => self.settings.card && self.resources.memory.is_some(),
                _ => true,
            })
            .map(|t| t.name.to_string())
            .collect()
    }

    /// Analyses one graph. Never panics on model output: failures end in a classified outcome with the trace
    /// so far.
    pub fn analyze(&self, ctx: &GraphContext, seed: u64, cancel: &Cancel, on_update: &mut dyn FnMut(&Trace)) -> Trace {
        self.analyze_with(self.model.as_ref(), ctx, seed, cancel, on_update)
    }

    /// `analyze` with another model than the agent's (a reflection re-run answers the earlier steps from a
    /// stored run: `reuse`).
    pub fn analyze_with(
        &self,
        model: Option<&Arc<dyn ChatModel>>,
        ctx: &GraphContext,
        seed: u64,
        cancel: &Cancel,
        on_update: &mut dyn FnMut(&Trace),
    ) -> Trace {
        let started = std::time::Instant::now();
        let mut trace = Trace {
            sample: ctx.name.clone(),
            graph: ctx.path.display().to_string(),
            task: self.task.name.clone(),
            method: self.settings.name(),
            model: model.filter(|_| self.settings.method.uses_model()).map_or("none".into(), |m| m.name()),
            sampling: model
                .filter(|_| self.settings.method.uses_model())
                .and_then(|m| m.sampling())
                .unwrap_or_default(),
            seed,
            understanding: None,
            rounds: Vec::new(),
            report: String::new(),
            analysis: None,
            reflection: None,
            hybrid: None,
            decision: None,
            outcome: Outcome { class: OutcomeClass::Ok, message: String::new(), step: String::new() },
            evidence: ctx.evidence(),
            calls: Vec::new(),
            counters: Counters::default(),
            elapsed_ms: 0.0,
        };
        on_update(&trace);
        let result = self.pipeline(model, ctx, seed, cancel, &mut trace, on_update);
        if let Err((step, e)) = result {
            trace.outcome = Outcome { class: e.class, message: e.message, step };
            trace.decision = None;
        }
        trace.elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
        on_update(&trace);
        trace
    }

    fn pipeline(
        &self,
        model: Option<&Arc<dyn ChatModel>>,
        ctx: &GraphContext,
        seed: u64,
        cancel: &Cancel,
        trace: &mut Trace,
        on_update: &mut dyn FnMut(&Trace),
    ) -> Result<(), (String, StepError)> {
        let s = &self.settings;
        if s.method == Method::EvidenceKnn {
            return self.knn(ctx, trace).map_err(|e| ("evidence-knn".to_string(), e));
        }
        if s.method.is_baseline() {
            return self.baseline(ctx, trace).map_err(|e| (s.method.as_str().to_string(), e));
        }
        let model = model.ok_or_else(|| {
            (
                "setup".to_string(),
                StepError {
                    class: OutcomeClass::ConfigurationError,
                    message: "this method needs a language model".into(),
                },
            )
        })?;
        // BrainAgent's tool menu is constant (every round lists the whole initial menu), so it goes into the system
        // message with the task: the part of every prompt that is the same for every subject.
        let tools_text = (s.method == Method::Brainagent).then(|| tools::menu_text(&self.initial_menu()));
        let system = prompts::system(&self.task, tools_text.as_deref());
        let caller = Caller {
            model: model.as_ref(),
            system: &system,
            cancel,
            temperature: s.temperature,
            max_tokens: s.max_tokens,
            seed,
        };
        if s.method == Method::BrainagentHybrid {
            return self.hybrid(&caller, ctx, trace);
        }
        // The graph's own evidence (G/R/M/N) heads every prompt; retrieved knowledge and cases are cited by the
        // ids their observations show.
        let measured = prompts::measured_block(&evidence_table(&trace.evidence));
        let links = format!("{}{}", ctx.description.coupling_text(5), ctx.description.links_text(s.max_links));
        // As the paper's baselines (Direct, CoT, Reflection) and its "w/o understanding" ablation: the model gets
        // the serialised graph (triplets) and the task only — no measured values, no coupling summary.
        let graph_only = match s.method {
            Method::Direct | Method::Cot | Method::Reflection => true,
            Method::Brainagent => !s.understanding,
            Method::BrainagentHybrid | Method::EvidenceKnn | Method::Majority | Method::Logistic => false,
        };
        let mut known = if graph_only {
            prompts::graph_block(&ctx.description.links_text(s.max_links))
        } else {
            format!("{measured}\n\n{links}")
        };
        let mut observations: Vec<String> = Vec::new();
        if s.method == Method::Brainagent {
            if s.understanding {
                // Any reading with the three levels is accepted (it is text for the later steps).
                let u = caller
                    .ask_accepting(
                        trace,
                        "understanding",
                        prompts::understanding(&measured, &links),
                        "understanding",
                        prompts::understanding_schema(&ctx.connectome.labels),
                        &prompts::understanding_accepted(),
                        &|_| Ok(()),
                    )
                    .map_err(|e| ("understanding".to_string(), e))?;
                // The measured values stay; the model's reading (not a measurement) replaces the links.
                known = format!("{measured}\n\nYour understanding of it: {u}");
                trace.understanding = Some(u);
                on_update(trace);
            }
            self.rounds(ctx, &caller, trace, &known, &mut observations, on_update)?;
        }
        let context = prompts::context_block(&known, &observations);
        // Claims cite the ids the model was shown; a graph-only prompt shows none.
        let evidence_ids: Vec<String> =
            if graph_only { Vec::new() } else { trace.evidence.iter().map(|e| e.id.clone()).collect() };
        let cot = s.method == Method::Cot;
        let v = caller
            .ask(
                trace,
                "analysis",
                prompts::analysis(&self.task, &context, &trace.report, cot, !graph_only, s.rationale_first),
                "analysis",
                prompts::analysis_schema(&self.task, cot, &evidence_ids, s.rationale_first),
                &|v| self.check_decision(v),
            )
            .map_err(|e| ("analysis".to_string(), e))?;
        let analysis = with_label_probabilities(decision_of(&v, &trace.evidence), trace, &self.task.labels);
        trace.analysis = Some(analysis.clone());
        trace.decision = Some(analysis.clone());
        on_update(trace);
        if s.reflection && matches!(s.method, Method::Brainagent | Method::Reflection) {
            let before = serde_json::to_string(
                &json!({"label": analysis.label, "confidence": analysis.confidence, "claims": analysis.claims}),
            )
            .unwrap_or_default();
            let v = caller
                .ask(
                    trace,
                    "reflection",
                    prompts::reflection(&self.task, &context, &trace.report, &before, s.reflection_form),
                    "reflection",
                    prompts::reflection_schema(&self.task, &evidence_ids, s.reflection_form),
                    &|v| self.check_decision(v),
                )
                .map_err(|e| ("reflection".to_string(), e))?;
            let proposed = with_label_probabilities(decision_of(&v, &trace.evidence), trace, &self.task.labels);
            // In the `revise` form a revision counts only when the model says so, otherwise the analysis stands
            // as it was; in the `label` form the reflection's answer is the final one.
            let revise = match s.reflection_form {
                ReflectionForm::Revise => v["revise"].as_bool().unwrap_or(false),
                ReflectionForm::Label => true,
            };
            let after = if revise { proposed } else { analysis.clone() };
            let revised = revise
                && (after.label != analysis.label
                    || after.confidence != analysis.confidence
                    || after.rationale != analysis.rationale);
            trace.reflection = Some(Reflection {
                critique: v["critique"].as_str().unwrap_or("").to_string(),
                revised,
                before: analysis,
                after: after.clone(),
            });
            trace.decision = Some(after);
        }
        Ok(())
    }

    pub(super) fn check_decision(&self, v: &Value) -> Result<(), (OutcomeClass, String)> {
        if let Some(l) = v.get("label").and_then(Value::as_str)
            && !self.task.labels.iter().any(|x| x == l)
        {
            return Err((
                OutcomeClass::OutOfLabelSet,
                format!("label \"{l}\" is not one of {}", self.task.labels.join(", ")),
            ));
        }
        if let Some(c) = v.get("confidence").and_then(Value::as_f64)
            && !(0.0..=1.0).contains(&c)
        {
            return Err((OutcomeClass::InvalidOutput, format!("confidence {c} is not between 0 and 1")));
        }
        Ok(())
    }

    fn rounds(
        &self,
        ctx: &GraphContext,
        caller: &Caller,
        trace: &mut Trace,
        known: &str,
        observations: &mut Vec<String>,
        on_update: &mut dyn FnMut(&Trace),
    ) -> Result<(), (String, StepError)> {
        let s = &self.settings;
        let mut menu = self.initial_menu();
        // The whole initial menu is in the system message (constant, so it stays in the cached prefix); each
        // round names the tools left at its end.
        for index in 1..=s.rounds {
            let step = format!("round {index}");
            // Round 1 gathers evidence: finishing before any observation would leave the analysis nothing but the
            // understanding (a small model otherwise often picks `finish` at once).
            let offered: Vec<String> = if index == 1 && s.card_first && menu.iter().any(|m| m == CARD) {
                vec![CARD.to_string()]
            } else if index == 1 && menu.iter().any(|m| m != FINISH) {
                menu.iter().filter(|m| *m != FINISH).cloned().collect()
            } else {
                menu.clone()
            };
            let context = prompts::context_block(known, observations);
            let prompt = prompts::step(&context, &trace.report, &offered, index, s.rounds, s.report_chars);
            let menu_now = offered.clone();
            // Constrained decoding gets each tool's own closed arguments; a reply is accepted with any arguments
            // object, which `check_args` then repairs or rejects (models that do not follow schemas drift).
            let loose = prompts::step_schema(
                json!({"type": "object", "properties": {"tool": {"enum": offered}, "arguments": {"type": "object"}}, "required": ["tool", "arguments"]}),
                s.report_chars,
            );
            let strict = prompts::step_schema(tools::action_schema(&offered, ctx), s.report_chars);
            let v = match caller.ask_accepting(trace, &step, prompt, "step", strict, &loose, &|v| match v
                .pointer("/action/tool")
                .and_then(Value::as_str)
            {
                Some(t) if !menu_now.iter().any(|m| m == t) => Err((
                    OutcomeClass::InvalidOutput,
                    format!("tool \"{t}\" is not on the menu ({})", menu_now.join(", ")),
                )),
                _ => Ok(()),
            }) {
                Ok(v) => v,
                // An unusable step ends the loop; the analysis goes on with the evidence gathered so far.
                Err(e) if e.class == OutcomeClass::InvalidOutput => {
                    trace.rounds.push(Round::failed(index, &offered, &e.message));
                    on_update(trace);
                    break;
                }
                Err(e) => {
                    trace.rounds.push(Round::failed(index, &offered, &e.message));
                    return Err((step, e));
                }
            };
            let (report, truncated) = cut(v["report"].as_str().unwrap_or(""), s.report_chars);
            trace.report = report.clone();
            let tool = v.pointer("/action/tool").and_then(Value::as_str).unwrap_or("").to_string();
            let arguments = v.pointer("/action/arguments").cloned().unwrap_or(Value::Null);
            let mut round = Round {
                index,
                menu: offered.clone(),
                think: v["think"].as_str().unwrap_or("").to_string(),
                report,
                report_truncated: truncated,
                tool: tool.clone(),
                arguments: arguments.clone(),
                checked: Value::Null,
                data: Value::Null,
                ..Default::default()
            };
            let spec = tools::spec(&tool);
            let mut checked = spec.map(|t| tools::check_args(t, &arguments, ctx));
            // The router chose a tool whose arguments do not fit: ask once more for them alone, with the tool's
            // own schema (constrained decoding fills exactly its parameters).
            if let (Some(t), Some(Err(first))) = (spec, &checked)
                && !t.params.is_empty()
            {
                let prompt = prompts::arguments(&context, t, &first.to_string());
                let label = format!("{step} arguments");
                trace.counters.argument_retries += 1;
                match caller.ask(trace, &label, prompt, "arguments", tools::args_schema(t, ctx), &|_| Ok(())) {
                    Ok(again) => {
                        round.arguments_retry = Some(again.clone());
                        let first = first.to_string();
                        checked = Some(tools::check_args(t, &again, ctx).map(|mut c| {
                            c.repairs.insert(0, format!("arguments asked again with the tool's schema ({first})"));
                            c
                        }));
                    }
                    Err(e) if e.class == OutcomeClass::InvalidOutput => {}
                    Err(e) => {
                        round.error = Some(e.message.clone());
                        trace.rounds.push(round);
                        return Err((step, e));
                    }
                }
            }
            self.execute(checked, &tool, &mut round, trace, &mut menu, ctx);
            let (obs, _) = cut(&round.observation, OBSERVATION_CHARS);
            observations.push(format!(
                "Round {index}, {tool}({}): {obs}",
                serde_json::to_string(&round.arguments).unwrap_or_default()
            ));
            trace.rounds.push(round);
            on_update(trace);
            if tool == FINISH || menu.iter().all(|m| m == FINISH) {
                break;
            }
        }
        Ok(())
    }

    /// Runs a checked tool call (or records why it was rejected) into `round`; the evidence it returns
    /// joins the trace's, and a called tool leaves the menu when the settings say so.
    fn execute(
        &self,
        checked: Option<Result<tools::Checked, crate::agent::error::AgentError>>,
        tool: &str,
        round: &mut Round,
        trace: &mut Trace,
        menu: &mut Vec<String>,
        ctx: &GraphContext,
    ) {
        let s = &self.settings;
        match checked {
            None => {
                round.rejected = Some(format!("unknown tool \"{tool}\""));
                trace.counters.rejected_arguments += 1;
            }
            Some(Err(message)) => {
                trace.counters.rejected_arguments += 1;
                round.observation = format!("Rejected: {message}");
                round.rejected = Some(message.to_string());
            }
            Some(Ok(checked)) => {
                trace.counters.repaired_arguments += checked.repairs.len();
                round.repairs = checked.repairs.clone();
                round.checked = Value::Object(checked.args.clone());
                match tools::run(tool, &checked.args, ctx, &self.resources, &self.task.knowledge) {
                    Ok(out) => {
                        round.observation = out.text;
                        round.data = out.data;
                        for e in out.evidence {
                            if let Some(old) = trace.evidence.iter_mut().find(|x| x.id == e.id) {
                                *old = e;
                            } else {
                                trace.evidence.push(e);
                            }
                        }
                    }
                    Err(e) => {
                        round.observation = format!("Tool error: {e}");
                        round.error = Some(e.0);
                    }
                }
                if s.remove_called_tools && tool != FINISH {
                    menu.retain(|m| m != tool);
                }
            }
        }
    }

    /// A supervised baseline (`baseline::Training`): majority (the training split's most common label, its
    /// share as the confidence; ties go to the task's first label) or logistic (the regression's P).
    fn baseline(&self, ctx: &GraphContext, trace: &mut Trace) -> Result<(), StepError> {
        let fail = |m: String| StepError { class: OutcomeClass::ConfigurationError, message: m };
        let training = self.resources.training.as_ref().ok_or_else(|| {
            fail(format!("{} is a supervised baseline: it needs a training split", self.settings.method.as_str()))
        })?;
        let d = match (self.settings.method, &training.logistic) {
            (Method::Logistic, Some(l)) => l.decide(&ctx.name, &ctx.connectome).map_err(|e| fail(e.to_string()))?,
            (Method::Logistic, None) => return Err(fail("logistic: the regression was not trained".into())),
            _ => training.majority(&self.task),
        };
        trace.analysis = Some(d.clone());
        trace.decision = Some(d);
        Ok(())
    }

    /// evidence-knn: CARD's top-k cases vote, weighted by their similarity; no language model.
    fn knn(&self, ctx: &GraphContext, trace: &mut Trace) -> Result<(), StepError> {
        let fail = |m: String| StepError { class: OutcomeClass::ConfigurationError, message: m };
        let mem = self.resources.memory.as_ref().ok_or_else(|| fail("evidence-knn needs a case memory".into()))?;
        let text = tools::Memory::template_query(ctx);
        let own = mem.own_group(ctx);
        let hits = mem.query(ctx, &text, own.as_deref()).map_err(|e| fail(format!("{e:#}")))?;
        let chosen: Vec<_> = hits.iter().filter(|h| h.chosen).collect();
        let mut votes: Vec<(String, f64)> = self.task.labels.iter().map(|l| (l.clone(), 0.0)).collect();
        for h in &chosen {
            if let Some(v) = votes.iter_mut().find(|(l, _)| *l == h.label) {
                v.1 += (h.score as f64).max(0.0);
            }
        }
        let total: f64 = votes.iter().map(|v| v.1).sum();
        // Ties go to the label listed first among the nearest cases.
        let best = votes
            .iter()
            .cloned()
            .max_by(|a, b| {
                a.1.total_cmp(&b.1).then_with(|| {
                    let pos = |l: &str| chosen.iter().position(|h| h.label == l).unwrap_or(usize::MAX);
                    pos(&b.0).cmp(&pos(&a.0))
                })
            })
            .filter(|b| b.1 > 0.0)
            .ok_or_else(|| fail(format!("none of the {} nearest cases has a label of this task", chosen.len())))?;
        let mut evidence = Vec::new();
        let mut lines = Vec::new();
        for h in &chosen {
            evidence.push(format!("C:{}", h.case));
            trace.evidence.push(Evidence {
                id: format!("C:{}", h.case),
                text: format!("case {} labelled {} (similarity {:.3})", h.case, h.label, h.score),
            });
            lines.push(format!("[C:{}] {} {:.3}", h.case, h.label, h.score));
        }
        trace.rounds.push(Round {
            index: 1,
            menu: vec![CARD.into()],
            think: "No language model: the nearest cases vote, weighted by similarity.".into(),
            tool: CARD.into(),
            arguments: json!({"query": text}),
            checked: json!({"query": text}),
            observation: lines.join("\n"),
            data: json!({"query": text, "excluded_group": own, "hits": hits}),
            ..Default::default()
        });
        let d = Decision {
            label: best.0.clone(),
            confidence: if total > 0.0 { best.1 / total } else { 0.0 },
            rationale: format!(
                "Similarity-weighted vote of the {} nearest cases ({}): {}. Measured retrieval, no language model.",
                chosen.len(),
                lines.join(", "),
                votes.iter().map(|(l, v)| format!("{l} {v:.3}")).collect::<Vec<_>>().join(", ")
            ),
            evidence,
            ..Default::default()
        };
        trace.analysis = Some(d.clone());
        trace.decision = Some(d);
        Ok(())
    }
}

fn evidence_table(e: &[Evidence]) -> String {
    e.iter().take(80).map(|x| format!("[{}] {}", x.id, x.text)).collect::<Vec<_>>().join("\n")
}

/// The label probabilities of the last call's label choice (the enum whose options are the task's labels).
fn with_label_probabilities(mut d: Decision, trace: &Trace, labels: &[String]) -> Decision {
    let texts: Vec<String> = labels.iter().map(|l| Value::from(l.as_str()).to_string()).collect();
    d.label_probabilities = trace
        .calls
        .last()
        .and_then(|c| {
            c.choices
                .iter()
                .find(|ch| ch.options.len() == texts.len() && ch.options.iter().all(|(o, _)| texts.contains(o)))
        })
        .map(|ch| {
            ch.options
                .iter()
                .map(|(o, p)| (serde_json::from_str::<String>(o).unwrap_or_else(|_| o.clone()), *p))
                .collect()
        });
    d
}

/// A decision from a checked reply: its claims, the cited ids split into known and unknown.
pub(super) fn decision_of(v: &Value, table: &[Evidence]) -> Decision {
    let strings = |x: &Value| -> Vec<String> {
        x.as_array()
            .into_iter()
            .flatten()
            .filter_map(|x| x.as_str())
            .map(|s| s.trim().trim_matches(['[', ']']).to_string())
            .filter(|s| !s.is_empty())
            .collect()
    };
    let mut claims: Vec<Claim> = v["claims"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| Claim {
            text: c["claim"].as_str().unwrap_or("").trim().to_string(),
            evidence: strings(&c["evidence"]),
        })
        .filter(|c| !c.text.is_empty() || !c.evidence.is_empty())
        .collect();
    // Ids written in a claim's text (`[R:…]`) count as cited by it.
    for c in &mut claims {
        for e in table {
            if c.text.contains(&format!("[{}]", e.id)) && !c.evidence.contains(&e.id) {
                c.evidence.push(e.id.clone());
            }
        }
    }
    let rationale = claims.iter().map(|c| c.text.as_str()).collect::<Vec<_>>().join(" ");
    let cited: Vec<String> = claims.iter().flat_map(|c| c.evidence.clone()).collect();
    let (known, unknown): (Vec<String>, Vec<String>) =
        cited.into_iter().partition(|c| table.iter().any(|e| e.id == *c));
    let dedup = |mut v: Vec<String>| {
        let mut seen = std::collections::BTreeSet::new();
        v.retain(|x| seen.insert(x.clone()));
        v
    };
    Decision {
        label: v["label"].as_str().unwrap_or("").to_string(),
        confidence: v["confidence"].as_f64().unwrap_or(0.0),
        rationale,
        claims,
        evidence: dedup(known),
        unknown_evidence: dedup(unknown),
        reasoning: v.get("reasoning").and_then(Value::as_str).map(String::from),
        label_probabilities: None,
    }
}
