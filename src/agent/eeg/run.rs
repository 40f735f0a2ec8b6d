//! The BrainAgent (EEG) paradigm: a supervisor routes the objective to a sub-agent; the sub-agent plans over
//! the shared state round by round, and each round the longest executable prefix of its plan runs; then the
//! model writes the report, to which the measured results (tool outputs) are appended verbatim.

use super::code::{self, CodeSteps};
use super::state::SharedState;
use super::tools::{self, Domain, ToolSpec};
use super::trace::{CallRecord, ChangeRecord, EegTrace, PlanRound, Route, StepKind, StepRecord};
use crate::agent::error::{AgentError, Result};
use crate::agent::grounding;
use crate::llm::extract_json;
use crate::llm::schema::Schema;
use crate::llm::{ChatModel, ChatRequest, ErrorClass, LlmError, Message, ResponseFormat};
use crate::util::cancel::Cancel;
use serde_json::{Map, Value, json};
use std::path::Path;

/// What the BrainAgent's final report holds: `System` = the model's text plus BrainLens's labelled
/// "Measured results" section (tool outputs); `Model` = the model's text alone, like CodeAct's report, for a
/// like-for-like comparison of what the model itself wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReportMode {
    #[default]
    System,
    Model,
}

impl ReportMode {
    pub fn name(self) -> &'static str {
        match self {
            ReportMode::System => "system",
            ReportMode::Model => "model",
        }
    }
    pub fn parse(s: &str) -> Result<ReportMode, AgentError> {
        match s {
            "system" => Ok(ReportMode::System),
            "model" => Ok(ReportMode::Model),
            o => Err(format!("unknown report mode {o:?} (system or model)").into()),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Settings {
    pub max_rounds: usize,
    pub max_steps: usize,
    pub max_tokens: u32,
    pub report_tokens: u32,
    pub temperature: f32,
    pub seed: u64,
    pub report: ReportMode,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            max_rounds: 4,
            max_steps: 6,
            max_tokens: 320,
            report_tokens: 200,
            temperature: 0.0,
            seed: 0,
            report: ReportMode::System,
        }
    }
}

pub const AGENTS: [(&str, Domain, &str); 3] = [
    ("SleepAgent", Domain::Sleep, "sleep recordings and hypnograms: staging, sleep statistics, scorer agreement"),
    (
        "NeurocogAgent",
        Domain::Neurocog,
        "event-related analyses: stimulus events, epochs, evoked responses, task-related power",
    ),
    (
        "PhysiolAgent",
        Domain::Physiol,
        "physiological signals: ECG and heart rate variability, EOG activity, EEG-EOG coupling",
    ),
];

/// The sub-agent whose domain tools a BrainBench subset's tasks need; `None` for a subset the common tools
/// serve (Foundational Analysis), where any sub-agent will do.
pub fn agent_for_subset(subset: &str) -> Option<&'static str> {
    let s = subset.to_lowercase();
    if s.contains("sleep") {
        Some("SleepAgent")
    } else if s.contains("neurocog") {
        Some("NeurocogAgent")
    } else if s.contains("physiol") {
        Some("PhysiolAgent")
    } else {
        None
    }
}

/// What the planner is told when its plan gave nothing to run.
const EMPTY_PLAN: &str = "Your plan had no steps but done was false, so nothing ran this round. Plan at \
least one step with the tools above (inspecting or loading the task's data file comes first), or set done to \
true with no steps if the task is complete or its data cannot be loaded.";

/// The outcome of one instance for the runner.
pub struct Outcome {
    /// The full report (model text + measured results), empty when the agent failed before writing one.
    pub report: String,
    pub trace: EegTrace,
    /// An LLM failure that ended the run (infrastructure errors are rerun by the runner).
    pub failure: Option<LlmError>,
}

struct Ctx<'a> {
    model: &'a dyn ChatModel,
    cancel: &'a Cancel,
    s: &'a Settings,
}

const SYSTEM: &str = "You are part of BrainAgent, an EEG analysis agent in BrainLens. Tools run real signal \
processing on the task's files and register their outputs in a shared state under ids; you refer to data only \
by these ids. Reply with JSON only, exactly in the requested shape.";

impl Ctx<'_> {
    /// The supervisor's step: the sub-agent the task goes to (recorded in `trace.route`). When the task's
    /// subset is known and needs another sub-agent's tools, that one runs it, and the route says so.
    fn route(&self, trace: &mut EegTrace, query: &str, subset: Option<&str>) -> Result<String, LlmError> {
        // The sub-agents' list is the same for every task: in the system message, the prompt's stable head,
        // which the local engine keeps on disk for every later instance (the task follows in the user message).
        let head = format!(
            "You are the supervisor. Route the task to one sub-agent:\n{}",
            AGENTS.iter().map(|(n, _, d)| format!("- {n}: {d}")).collect::<Vec<_>>().join("\n")
        );
        let prompt = format!("Task:\n{query}\n\nAnswer {{\"agent\": name, \"reason\": short}}.");
        let route = self.ask(trace, "route", &head, prompt, "route", route_schema(), None, 60)?;
        let mut agent = route["agent"].as_str().unwrap_or("PhysiolAgent").to_string();
        let mut check = None;
        if let Some((subset, expected)) = subset.and_then(|s| Some((s, agent_for_subset(s)?)))
            && expected != agent
        {
            check = Some(format!(
                "the supervisor routed to {agent}, but {subset} tasks need {expected}'s tools: run by {expected}"
            ));
            agent = expected.to_string();
        }
        trace.route =
            Some(Route { agent: agent.clone(), reason: route["reason"].as_str().unwrap_or("").to_string(), check });
        Ok(agent)
    }

    /// One JSON step: schema-constrained request, reply re-validated (against `accept` when given: a looser
    /// shape whose remaining problems the step handles itself), one corrective retry. The system message is the
    /// agent's identity and then `head`, what the step says the same way for every task (the prompt's stable
    /// head, kept on disk by the local engine); `prompt` is the task's own.
    #[allow(clippy::too_many_arguments)]
    fn ask(
        &self,
        trace: &mut EegTrace,
        step: &str,
        head: &str,
        prompt: String,
        name: &str,
        schema: Value,
        accept: Option<&Value>,
        max_tokens: u32,
    ) -> Result<Value, LlmError> {
        let compile = |s: &Value| Schema::compile(s).map_err(|e| LlmError::config("agent", e));
        let compiled = compile(&schema)?;
        let compiled = match accept {
            Some(a) => compile(a)?,
            None => compiled,
        };
        let mut messages = vec![Message::system(format!("{SYSTEM}\n\n{head}")), Message::user(prompt)];
        let mut rec = CallRecord { step: step.to_string(), ..Default::default() };
        for attempt in 1..=2u32 {
            rec.attempts = attempt;
            let req = ChatRequest {
                temperature: self.s.temperature,
                max_tokens,
                seed: Some(self.s.seed),
                format: ResponseFormat::JsonSchema { name: name.to_string(), schema: schema.clone() },
                ..ChatRequest::new(messages.clone())
            };
            let resp = match self.model.chat_with(&req, self.cancel, &mut |_| {}) {
                Ok(r) => r,
                Err(e) => {
                    rec.error = Some(e.to_string());
                    trace.calls.push(rec);
                    return Err(e);
                }
            };
            rec.prompt_tokens += resp.usage.prompt_tokens;
            rec.completion_tokens += resp.usage.completion_tokens;
            rec.cached_tokens += resp.usage.cached_tokens;
            rec.disk_tokens += resp.usage.disk_tokens;
            rec.latency_ms += resp.latency_ms;
            rec.raw = resp.text.clone();
            let parsed = resp.json.clone().or_else(|| extract_json(&resp.text));
            let problem = match &parsed {
                None => "the reply is not JSON".to_string(),
                Some(v) => match compiled.validate(v) {
                    Ok(()) => {
                        trace.calls.push(rec);
                        return Ok(v.clone());
                    }
                    Err(e) => format!("the reply does not fit the schema: {e}"),
                },
            };
            rec.error = Some(problem.clone());
            messages.push(Message::assistant(resp.text));
            messages.push(Message::user(format!("{problem}. Answer again with JSON only.")));
        }
        let msg = rec.error.clone().unwrap_or_default();
        trace.calls.push(rec);
        Err(LlmError::model("agent", format!("{step}: {msg} (after a corrective retry)")))
    }
}

fn route_schema() -> Value {
    json!({"type": "object", "properties": {
        "agent": {"type": "string", "enum": AGENTS.iter().map(|a| a.0).collect::<Vec<_>>()},
        "reason": {"type": "string", "maxLength": 200}}, "required": ["agent", "reason"]})
}

/// The constrained plan: `done` comes first and decides the rest — not done has at least one step, done has
/// any number (run, then finish). A thought cut at its budget can therefore not close a round unplanned (the
/// capable model's failure when `steps` could be empty: `"…select_channels, ", "steps": [], "done": false`).
/// The first step uses a tool of `ready` (its inputs are in the state: it runs now) with no `$k`; later steps
/// any tool of `offered`, naming earlier steps' outputs as `$k`. Measured with SmolLM2 when any offered tool
/// could come first: it opened every plan with `plot` of `"$1"`, which nothing had registered. With nothing
/// ready, the plan can only be done.
fn plan_schema(ready: &[&ToolSpec], offered: &[&ToolSpec], state: &SharedState, max_steps: usize) -> Value {
    let branch = |done: bool, min: usize| {
        json!({"type": "object", "properties": {
            "done": {"const": done},
            "thought": {"type": "string", "maxLength": 200},
            "steps": {"type": "array", "minItems": min, "maxItems": max_steps,
                      "prefixItems": [tools::step_schema(ready, state, 1)],
                      "items": tools::step_schema(offered, state, max_steps)}},
            "required": ["done", "thought", "steps"]})
    };
    if ready.is_empty() {
        return json!({"type": "object", "properties": {
            "done": {"const": true}, "thought": {"type": "string", "maxLength": 200},
            "steps": {"type": "array", "maxItems": 0}}, "required": ["done", "thought", "steps"]});
    }
    json!({"anyOf": [branch(false, 1), branch(true, 0)]})
}

/// What a plan reply must be to be accepted: steps naming tools of the menu with any argument object. The
/// tools' own checks then find the longest executable prefix (for models that do not follow the schema;
/// constrained decoding always produces `plan_schema`'s executable steps).
fn loose_plan_schema(tools: &[&ToolSpec]) -> Value {
    json!({"type": "object", "properties": {
        "thought": {"type": "string"},
        "steps": {"type": "array", "items": {"type": "object", "properties": {
            "tool": {"enum": tools.iter().map(|t| t.name).collect::<Vec<_>>()},
            "args": {"type": "object"}}, "required": ["tool", "args"]}},
        "done": {"type": "boolean"}}, "required": ["thought", "steps", "done"]})
}

/// Runs the longest executable prefix of `steps`; returns the records and whether every step ran.
/// A step that repeats one that already ran in an earlier round (same tool, same arguments once resolved)
/// is not run again: its output is in the state, or it fails the same way (the tools are deterministic).
/// Measured: without this Qwen2.5-Coder-1.5B re-planned its first step every round, SmolLM2 a failing one;
/// the observation says which id to use, or what the failure was.
fn repeated(name: &str, args: &Value, earlier: &[PlanRound]) -> Option<String> {
    earlier.iter().find_map(|r| {
        r.executed
            .iter()
            .find(|s| matches!(s.status.as_str(), "ok" | "failed") && s.tool == name && &s.args == args)
            .map(|s| match &s.error {
                Some(e) => format!("{name} with these arguments already failed in round {}: {e}", r.round),
                None => {
                    let id = s.observation.get("id").and_then(Value::as_str).unwrap_or("its output");
                    format!("{name} with these arguments already ran in round {}: use {id} instead", r.round)
                }
            })
    })
}

/// The tools a plan may use and those its first step may use, without the tools taken off the menu.
/// `python` (the hybrid's code step) is on them only when `code_allowed`.
fn menus<'a>(
    tools: &[&'a ToolSpec],
    state: &SharedState,
    off: &[String],
    code_allowed: bool,
) -> (Vec<&'a ToolSpec>, Vec<&'a ToolSpec>) {
    let on = |t: &&ToolSpec| !off.iter().any(|o| o == t.name) && (code_allowed || t.name != tools::PYTHON.name);
    let mut offered = tools::offered(tools, state);
    offered.retain(on);
    let mut ready = tools::ready(tools, state);
    ready.retain(on);
    (offered, ready)
}

/// The tool and the reason when a plan's first step is one that already ran or failed with the same
/// (resolved) arguments, or (a hybrid's) a `python` step whose purpose names a tool it may not stand in for
/// (`code::purpose_check`).
fn first_step_refused(
    step: &Value,
    tools: &[&ToolSpec],
    state: &SharedState,
    earlier: &[PlanRound],
) -> Option<(String, String)> {
    let name = step["tool"].as_str()?;
    let t = tools.iter().find(|t| t.name == name)?;
    let (args, _) = tools::resolve_args(t, &step["args"], &[], state);
    if let Some(why) = repeated(name, &args, earlier) {
        return Some((name.to_string(), why));
    }
    let purpose = args["purpose"].as_str().filter(|_| name == tools::PYTHON.name)?;
    code::purpose_check(purpose, earlier).err().map(|why| (name.to_string(), why))
}

/// Tool steps that failed, were refused or repeated so far: a `python` step refused for its purpose stays off
/// the menu until this grows (the on-failure rule's own signal that code may help again).
fn tool_failures(rounds: &[PlanRound]) -> usize {
    rounds.iter().flat_map(|r| &r.executed).filter(|s| s.kind == StepKind::Tool && s.status != "ok").count()
}

/// A hybrid run's code steps with what running one needs beside the state.
struct Coder<'c, 'k> {
    steps: &'c mut CodeSteps<'k>,
    query: &'c str,
    model: &'c dyn ChatModel,
    round: usize,
    /// Whether the rule put `python` on this round's menu (a plan that names it otherwise is refused).
    allowed: bool,
    calls: Vec<CallRecord>,
}

/// Runs the longest executable prefix of `steps` (a `python` step by `coder`, the hybrid's); the records, and
/// the failure that ends the run when a code step's model or sandbox failed beyond the agent.
fn execute(
    steps: &[Value],
    tools: &[&ToolSpec],
    state: &mut SharedState,
    cancel: &Cancel,
    earlier: &[PlanRound],
    mut coder: Option<&mut Coder>,
) -> (Vec<StepRecord>, Option<LlmError>) {
    let mut produced: Vec<Option<String>> = Vec::new();
    let mut out = Vec::new();
    for step in steps {
        if cancel.is_cancelled() {
            break;
        }
        let name = step["tool"].as_str().unwrap_or("").to_string();
        let (args, repairs) = match tools.iter().find(|t| t.name == name) {
            Some(t) => tools::resolve_args(t, &step["args"], &produced, state),
            None => (step["args"].clone(), Vec::new()),
        };
        let kind = if name == tools::PYTHON.name && coder.is_some() { StepKind::Code } else { StepKind::Tool };
        let mut rec = StepRecord { tool: name.clone(), args: args.clone(), repairs, kind, ..Default::default() };
        let empty = Map::new();
        let map = args.as_object().unwrap_or(&empty);
        if let Some(why) = repeated(&name, &args, earlier) {
            rec.status = "repeated".into();
            rec.error = Some(why.clone());
            state.errors.push(why);
            state.planning.steps_skipped += steps.len() - out.len();
            out.push(rec);
            break;
        }
        let purpose = map.get("purpose").and_then(Value::as_str).unwrap_or("");
        let checked = match tools.iter().find(|t| t.name == name) {
            None => Err(format!("{name:?} is not one of this agent's tools").into()),
            Some(t) => tools::check(t, map, state),
        };
        let (checked, note) = match (checked, kind == StepKind::Code) {
            (Ok(()), true) => match code::purpose_check(purpose, earlier) {
                Ok(note) => (Ok(()), note),
                Err(e) => (Err(e.into()), None),
            },
            (checked, _) => (checked, None),
        };
        if let Err(e) = checked {
            rec.status = "not_executable".into();
            rec.error = Some(e.to_string());
            state.errors.push(e.to_string());
            state.planning.steps_skipped += steps.len() - out.len();
            out.push(rec);
            break;
        }
        // The budget counts this round's code steps too (a plan may hold several).
        let not_yet =
            name == tools::PYTHON.name && !coder.as_ref().is_some_and(|c| c.allowed && c.steps.ran < c.steps.max_steps);
        if let (true, Some(c)) = (not_yet, coder.as_deref()) {
            // A model that is not constrained by the plan's grammar (a remote one) may name it anyway.
            let why = if c.steps.ran >= c.steps.max_steps {
                format!("this instance's {} code step(s) are spent", c.steps.max_steps)
            } else {
                c.steps.rule.until().to_string()
            };
            let e = format!("python is not on the menu in this round: {why}");
            rec.status = "not_executable".into();
            rec.error = Some(e.clone());
            state.errors.push(e);
            state.planning.steps_skipped += steps.len() - out.len();
            out.push(rec);
            break;
        }
        if let (true, Some(c)) = (name == tools::PYTHON.name, coder.as_deref_mut()) {
            match c.steps.run(purpose, note.as_deref(), &args, c.query, state, c.model, cancel, c.round, &mut c.calls) {
                Ok(r) => {
                    let ok = r.status == "ok";
                    produced.push(r.observation.get("id").and_then(Value::as_str).map(str::to_string));
                    out.push(r);
                    if ok {
                        continue;
                    }
                    break;
                }
                Err(e) => return (out, Some(e)),
            }
        }
        match tools::run(&name, map, state) {
            Ok(obs) => {
                produced.push(obs.get("id").and_then(Value::as_str).map(str::to_string));
                rec.status = "ok".into();
                rec.observation = obs;
                state.planning.steps_executed += 1;
                out.push(rec);
            }
            Err(e) => {
                let e = format!("{name}: {e}");
                rec.status = "failed".into();
                rec.error = Some(e.clone());
                state.errors.push(e);
                state.planning.steps_failed += 1;
                out.push(rec);
                break;
            }
        }
    }
    (out, None)
}

/// The planner's system head and user message. What is the same for every task of the sub-agent — the agent,
/// every tool of it, the instructions — goes into the system message (after the identity, `Ctx::ask`): the prompt's stable head, which the local
/// engine keeps on disk and loads for every later instance, shard and process (before, the task came first
/// and instances shared only the 60-token identity). The user message keeps what stays the same through a
/// run first (the task, the files), what changes last (the state, the last steps, which tools this plan may
/// use): the engine reuses the cached keys and values of a common prefix, so each round prefills only the
/// changing tail.
#[allow(clippy::too_many_arguments)]
fn plan_prompt(
    query: &str,
    agent: &str,
    state: &SharedState,
    tools: &[&ToolSpec],
    offered: &[&ToolSpec],
    ready: &[&ToolSpec],
    last: &[StepRecord],
    max_steps: usize,
) -> (String, String) {
    let names = |ts: &[&ToolSpec]| ts.iter().map(|t| t.name).collect::<Vec<_>>().join(", ");
    let is_python = |t: &ToolSpec| t.name == tools::PYTHON.name;
    let later: Vec<&ToolSpec> =
        tools.iter().filter(|t| !offered.iter().any(|o| o.name == t.name) && !is_python(t)).copied().collect();
    // The hybrid's python step is described only once its rule puts it on the menu: until then the prompt is
    // BrainAgent's own, word for word, so the two plan alike until code is allowed.
    let described: Vec<&ToolSpec> =
        tools.iter().filter(|t| !is_python(t) || offered.iter().any(|o| is_python(o))).copied().collect();
    let mut usable = format!("Tools this plan may use: {}", names(offered));
    if !ready.is_empty() {
        usable.push_str(&format!("; the first step uses one of: {}", names(ready)));
    }
    if !later.is_empty() {
        usable.push_str(&format!(
            ".\nNot yet (once a step registers what they take, or after a repeated step): {}",
            names(&later)
        ));
    }
    let last_text = if last.is_empty() {
        "none yet".to_string()
    } else {
        last.iter()
            .map(|r| match &r.error {
                Some(e) => format!("{} {} → {}: {e}", r.tool, r.args, r.status),
                None => format!("{} {} → {}", r.tool, r.args, super::state::short(&r.observation)),
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let head = format!(
        "You are {agent}.\n\nTools:\n{}\n\n\
         Plan the remaining steps (at most {max_steps}) as JSON {{\"done\": bool, \"thought\": short, \"steps\": [{{\"tool\": name, \"args\": {{...}}}}]}}; \
         the thought says in one sentence what the shared state still lacks for the task. \
         Arguments take ids from the shared state, or \"$k\" for the id step k of this plan registers. \
         A step whose output the shared state already holds is not planned again: use its id. \
         done false: at least one step. Set done to true (with no steps) when the shared state holds everything the task asks for, or when the data cannot be loaded.",
        tools::menu(&described),
    );
    let user = format!(
        "Task:\n{query}\n\nData files: {}\n\nShared state:\n{}\nLast steps:\n{last_text}\n\n{usable}.",
        files_line(state),
        state.summary(),
    );
    (head, user)
}

/// The data files a path may name, for the planner (the first 40).
fn files_line(state: &SharedState) -> String {
    let files = state.path_options();
    match files.len() {
        0 => "none".to_string(),
        n if n > 40 => format!("{} … ({n} in all)", files[..40].join(", ")),
        _ => files.join(", "),
    }
}

/// A hybrid's `python` step that its checks refused (not on the menu, a purpose naming a tool, no budget left):
/// nothing ran and nothing was computed, so the report's prompt leaves it out, its error too, and reads as
/// BrainAgent's would (measured on the seed-11 suite at 446a020: in Sleep case4_1–4_3 the refused python step
/// was the one difference from BrainAgent's report prompt, and the report then read N3 minutes as a
/// percentage). The delivered report's error list keeps it.
fn refused_code(s: &StepRecord) -> bool {
    s.kind == StepKind::Code && s.status == "not_executable"
}

/// Every step that ran, in order, with its outcome: what the report may describe as done.
fn steps_section(trace: &EegTrace) -> String {
    let steps: Vec<String> = trace
        .rounds
        .iter()
        .flat_map(|r| r.executed.iter().map(move |s| (r.round, s)))
        .filter(|(_, s)| !refused_code(s))
        .map(|(round, s)| {
            let what = match s.kind {
                StepKind::Tool => s.tool.clone(),
                StepKind::Code => format!("python code the model wrote ({})", s.args["purpose"].as_str().unwrap_or("")),
            };
            match &s.error {
                Some(e) => format!("- round {round}: {what} → {}: {e}", s.status),
                None => format!("- round {round}: {what} → {}", s.status),
            }
        })
        .collect();
    if steps.is_empty() {
        "Steps that ran: none (no tool ran; nothing was loaded, filtered or computed).\n".to_string()
    } else {
        format!("Steps that ran:\n{}\n", steps.join("\n"))
    }
}

/// The measured part of the report, written by BrainLens from the shared state (not by the model).
pub fn measured_section(state: &SharedState) -> String {
    measured_without(state, &[])
}

/// `measured_section` without the errors in `left_out`.
fn measured_without(state: &SharedState, left_out: &[&str]) -> String {
    let mut s = String::from("Measured results (tool outputs from BrainLens, by shared-state id):\n");
    if state.results.is_empty() && state.artifacts.is_empty() {
        s.push_str("- none\n");
    }
    // A hybrid's code steps print what the model's code computed: listed after the tools' results, under their
    // own heading, so a quantity both give is reported with the tool's value (on the hybrid's Sleep pilot the
    // report took a code block's sleep time, seconds read as minutes, over hypnogram_stats' measured one).
    let (code, tools): (Vec<_>, Vec<_>) =
        state.results.iter().partition(|(_, r)| code::is_code_result(r["what"].as_str().unwrap_or("")));
    for (i, (id, r)) in tools.into_iter().chain(code.iter().copied()).enumerate() {
        if i == state.results.len() - code.len() {
            s.push_str(
                "Printed by python code the model wrote (not validated tools; where a tool result above gives the \
                 same quantity, the tool's value is the one to report):\n",
            );
        }
        // Summary values first, per-channel tables last (they are what gets cut).
        let v = match &r["value"] {
            Value::Object(o) => {
                let mut m: Map<String, Value> =
                    o.iter().filter(|(k, _)| *k != "per_channel").map(|(k, v)| (k.clone(), v.clone())).collect();
                if let Some(p) = o.get("per_channel") {
                    m.insert("per_channel".into(), p.clone());
                }
                Value::Object(m)
            }
            other => other.clone(),
        };
        let text = v.to_string();
        let text = if text.chars().count() > 1500 {
            format!("{}…", text.chars().take(1500).collect::<String>())
        } else {
            text
        };
        s.push_str(&format!("- {id} {}: {text}\n", r["what"].as_str().unwrap_or("")));
    }
    for (id, a) in &state.artifacts {
        s.push_str(&format!("- {id} artifact written: {a}\n"));
    }
    let errors: Vec<&String> = state.errors.iter().filter(|e| !left_out.contains(&e.as_str())).collect();
    if !errors.is_empty() {
        s.push_str("Errors:\n");
        for e in errors {
            s.push_str(&format!("- {e}\n"));
        }
    }
    s
}

/// Runs the paradigm on one query. `inputs` is the read-only folder the task's paths are relative to;
/// artifacts go to `workspace/file_check/`; `subset` (the task's BrainBench subset, when known) checks the
/// supervisor's route.
pub fn run(
    query: &str,
    subset: Option<&str>,
    inputs: &Path,
    workspace: &Path,
    model: &dyn ChatModel,
    cancel: &Cancel,
    s: &Settings,
) -> Outcome {
    run_with(query, subset, inputs, workspace, model, cancel, s, None)
}

/// [`run`], or with `code` the hybrid paradigm: the same supervisor, tools, planner and report, plus the
/// `python` step on the menu when `code.rule` allows it (its blocks run in `code.kernel`).
#[allow(clippy::too_many_arguments)]
pub fn run_with(
    query: &str,
    subset: Option<&str>,
    inputs: &Path,
    workspace: &Path,
    model: &dyn ChatModel,
    cancel: &Cancel,
    s: &Settings,
    mut code: Option<&mut CodeSteps>,
) -> Outcome {
    let ctx = Ctx { model, cancel, s };
    let mut trace = EegTrace {
        paradigm: if code.is_some() { "hybrid" } else { "brainagent" }.into(),
        model: model.name(),
        sampling: model.sampling().unwrap_or_default(),
        outcome: "ok".into(),
        ..Default::default()
    };
    let mut state = SharedState::new(inputs, workspace);
    state.name_task_files(query);
    let fail = |mut trace: EegTrace, e: LlmError, report: String| {
        trace.outcome = crate::agent::outcome_of(e.class).into();
        trace.error = Some(e.to_string());
        Outcome { report, trace, failure: Some(e) }
    };
    let agent = match ctx.route(&mut trace, query, subset) {
        Ok(a) => a,
        Err(e) => return fail(trace, e, String::new()),
    };
    let domain = AGENTS.iter().find(|a| a.0 == agent).map_or(Domain::Physiol, |a| a.1);
    let mut tools = tools::toolset(domain);
    if code.is_some() {
        tools.push(&tools::PYTHON);
    }
    // Planning rounds.
    let mut last: Vec<StepRecord> = Vec::new();
    // Tools one of whose steps was refused as a repeat: off the menu from then on, so the model moves on
    // (measured: offered it again two rounds later, the 1.5B model repeated it again).
    let mut off_menu: Vec<String> = Vec::new();
    // The tool failures counted when a `python` step was refused for its purpose: python stays off the menu
    // until another tool step fails (measured on the suite: the 1.5B model planned the refused purpose again in
    // the next round, and each refused step in the report prompt's list moved its numbers).
    let mut python_off_at: Option<usize> = None;
    for round in 1..=s.max_rounds {
        if cancel.is_cancelled() {
            return fail(trace, cancel.error("agent"), String::new());
        }
        state.planning.round = round;
        let summary = state.summary();
        // Tools whose inputs are in the state or can be registered by an earlier step are offered (the others
        // are named, and come on the menu once something registers what they need); the first step is one
        // that runs now.
        let mut replanned = None;
        let mut plan = Value::Null;
        let mut again: Option<String> = None;
        // A plan with nothing to run is asked again once in the same round, with the reason: one that is not
        // done but has no steps, or whose first step repeats one that already ran (its tool then leaves the
        // menu). Measured with Qwen2.5-Coder-1.5B on the suite: a repeated first step otherwise spent a whole
        // round, 42 of the first 118 rounds (20 instances, e73f70b).
        let mut code_allowed = false;
        for attempt in 1..=2 {
            code_allowed = code.as_ref().is_some_and(|c| c.allowed(&trace.rounds))
                && python_off_at.is_none_or(|n| tool_failures(&trace.rounds) > n);
            let (offered, ready) = menus(&tools, &state, &off_menu, code_allowed);
            let (head, mut prompt) = plan_prompt(query, &agent, &state, &tools, &offered, &ready, &last, s.max_steps);
            let step = match &again {
                None => format!("plan {round}"),
                Some(why) => {
                    prompt = format!("{prompt}\n\n{why}");
                    format!("plan {round} (again)")
                }
            };
            plan = match ctx.ask(
                &mut trace,
                &step,
                &head,
                prompt,
                "plan",
                plan_schema(&ready, &offered, &state, s.max_steps),
                Some(&loose_plan_schema(&tools)),
                s.max_tokens,
            ) {
                Ok(v) => v,
                // An unusable plan ends planning; the report is still written from what the state holds.
                Err(e) if e.class == ErrorClass::ModelError => {
                    state.errors.push(format!("plan {round}: {}", e.message));
                    Value::Null
                }
                Err(e) => return fail(trace, e, String::new()),
            };
            if plan.is_null() || attempt == 2 {
                break;
            }
            let first = plan["steps"].as_array().and_then(|v| v.first());
            match first {
                None if plan["done"].as_bool() == Some(true) => break,
                None => {
                    replanned = Some("the plan had no steps but was not done".to_string());
                    again = Some(EMPTY_PLAN.to_string());
                }
                Some(step) => match first_step_refused(step, &tools, &state, &trace.rounds) {
                    None => break,
                    Some((tool, why)) => {
                        replanned = Some(format!("its first step was not run: {why}"));
                        again = Some(format!(
                            "Your plan's first step was not run: {why}. {tool} is off the menu now. Plan a step \
                             that has not run yet, or set done to true with no steps if the shared state holds \
                             everything the task asks for."
                        ));
                        if tool == tools::PYTHON.name {
                            python_off_at = Some(tool_failures(&trace.rounds));
                        } else {
                            off_menu.push(tool);
                        }
                    }
                },
            }
        }
        if plan.is_null() {
            break;
        }
        let steps: Vec<Value> = plan["steps"].as_array().cloned().unwrap_or_default();
        let done = plan["done"].as_bool().unwrap_or(false);
        if steps.is_empty() && !done {
            state.errors.push(format!("plan {round}: no steps twice, though not done: planning ended"));
        }
        let before = state.changes.len();
        let ready_before = tools::ready(&tools, &state).len();
        let mut coder = code.as_deref_mut().map(|steps| Coder {
            steps,
            query,
            model,
            round,
            allowed: code_allowed,
            calls: Vec::new(),
        });
        let (executed, failure) = execute(&steps, &tools, &mut state, cancel, &trace.rounds, coder.as_mut());
        trace.calls.extend(coder.map(|c| c.calls).unwrap_or_default());
        if let Some(e) = failure {
            return fail(trace, e, String::new());
        }
        off_menu.extend(executed.iter().filter(|r| r.status == "repeated").map(|r| r.tool.clone()));
        let refused_purpose =
            executed.iter().any(|r| r.error.as_deref().is_some_and(|e| e.starts_with(code::PURPOSE_REFUSED)));
        trace.changes.extend(state.changes[before..].iter().map(|c| ChangeRecord::of(round, c)));
        trace.rounds.push(PlanRound {
            round,
            state_summary: summary,
            thought: plan["thought"].as_str().unwrap_or("").to_string(),
            plan: Value::Array(steps.clone()),
            done,
            executed: executed.clone(),
            replanned,
        });
        if refused_purpose {
            python_off_at = Some(tool_failures(&trace.rounds));
        }
        last = executed;
        // "done" while the last steps made new tools runnable is not final: the plan could not start with them.
        // (Compared unfiltered on both sides: a tool taken off the menu as a repeat unlocks nothing.)
        let unlocked = tools::ready(&tools, &state).len() > ready_before;
        if steps.is_empty() || (done && !unlocked) {
            break;
        }
    }
    // Report.
    if let Err(e) = write_report(query, &mut state, model, cancel, s, &mut trace) {
        return fail(trace, e, String::new());
    }
    // The model's part is labelled before it starts, so nothing it writes can pass for the measured part.
    let report = match s.report {
        ReportMode::System => {
            format!("Report (written by the model):\n{}\n\n---\n{}", trace.report_text, measured_section(&state))
        }
        ReportMode::Model => trace.report_text.clone(),
    };
    Outcome { report, trace, failure: None }
}

/// What the report prompt asks, and asks again of a report that repeated its prompt.
const REPORT_RULES: &str = "state each requested value with the name the task gives it, taken from the measured \
     results above; if the data could not be loaded, say so and give no values. Describe only the steps listed as ok \
     above: nothing else was done.";

/// The report's own system message (the planner's is about tools, ids and JSON). Measured on the exact report
/// prompts of two suite instances (Foundational case 1, recorded with `--transcript --record` at ed45daa):
/// under the planner's system message Qwen2.5-Coder-1.5B answered with a copy of the prompt in both, with or
/// without a note not to; under this one in neither.
const REPORT_SYSTEM: &str = "You write the final report of an EEG analysis that BrainLens's tools ran: a few plain \
     sentences that state the requested values from the measured results. Never copy the task, the list of steps \
     or these instructions.";

/// The model's final report from the measured results (`trace.report_text`); a model error is noted in the
/// state and the run goes on, other failures end it.
fn write_report(
    query: &str,
    state: &mut SharedState,
    model: &dyn ChatModel,
    cancel: &Cancel,
    s: &Settings,
    trace: &mut EegTrace,
) -> Result<(), LlmError> {
    trace.measured = measured_section(state);
    let refused: Vec<&str> = trace
        .rounds
        .iter()
        .flat_map(|r| &r.executed)
        .filter(|s| refused_code(s))
        .filter_map(|s| s.error.as_deref())
        .collect();
    let measured = measured_without(state, &refused);
    let ran = steps_section(trace);
    let prompt = format!(
        "Task:\n{query}\n\n{ran}\n{measured}\nWrite the final report for this task in a few sentences: {REPORT_RULES}"
    );
    let done = grounding::done_by_tools(trace);
    // A report that repeats its prompt, or claims work no step did, is asked again once: a new request with
    // the reason added, not a second turn after the rejected report (asked in a second turn, Qwen repeated
    // its first report word for word in all 6 such re-asks of the system-report run and all 4 echo re-asks
    // of the first model-report instances at 377882c). What it still claims is flagged by the runner's check
    // (the trace's `ungrounded_claims`).
    let mut asked = prompt.clone();
    for attempt in 1..=2 {
        let step = if attempt == 1 { "report" } else { "report (again)" };
        let req = ChatRequest {
            temperature: s.temperature,
            max_tokens: s.report_tokens,
            seed: Some(s.seed),
            ..ChatRequest::new(vec![Message::system(REPORT_SYSTEM), Message::user(asked.clone())])
        };
        match model.chat_with(&req, cancel, &mut |_| {}) {
            Ok(r) => {
                trace.calls.push(CallRecord {
                    step: step.into(),
                    attempts: 1,
                    prompt_tokens: r.usage.prompt_tokens,
                    completion_tokens: r.usage.completion_tokens,
                    cached_tokens: r.usage.cached_tokens,
                    disk_tokens: r.usage.disk_tokens,
                    latency_ms: r.latency_ms,
                    raw: r.text.clone(),
                    error: None,
                });
                trace.report_text = r.text.trim().to_string();
                if attempt == 2 {
                    break;
                }
                let note = if grounding::repeats_prompt(&trace.report_text, query, &prompt) {
                    trace.report_again = Some("the report repeated its prompt (the task and the steps)".into());
                    "An earlier answer repeated the task and the list of steps instead of reporting. Write the \
                     report itself."
                        .to_string()
                } else {
                    let claims = grounding::ungrounded(&trace.report_text, &done, query);
                    if claims.is_empty() {
                        break;
                    }
                    let works = grounding::claimed_works(&claims).join(", ");
                    trace.report_again = Some(format!("the report claimed work no step did: {works}"));
                    format!(
                        "An earlier answer claimed work that no step did ({works}). Describe only the steps listed \
                         as ok above, state only values from the measured results, and say plainly what was not done."
                    )
                };
                asked = format!("{prompt}\n\n{note}");
            }
            Err(e) => {
                trace.calls.push(CallRecord {
                    step: step.into(),
                    attempts: 1,
                    error: Some(e.to_string()),
                    ..Default::default()
                });
                if e.class != ErrorClass::ModelError {
                    return Err(e);
                }
                state.errors.push(format!("report: {}", e.message));
                break;
            }
        }
    }
    // What the report still claims after the re-ask is struck from it, each sentence marked; the trace keeps
    // the model's text.
    let struck = grounding::strike(&trace.report_text, &done, query);
    if !struck.claims.is_empty() {
        trace.report_as_written = Some(std::mem::replace(&mut trace.report_text, struck.text));
        trace.struck_claims = struck.claims;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::schema::grammar::Grammar;

    /// The constrained plan refuses "not done, no steps" both as a value and byte by byte (what the decoder
    /// can produce), and takes "done, no steps" and "not done, one step".
    #[test]
    fn a_plan_that_is_not_done_has_a_step() {
        let d = tempfile::tempdir().unwrap();
        let state = SharedState::new(d.path(), d.path());
        let all = tools::toolset(Domain::Physiol);
        let offered = tools::offered(&all, &state);
        let schema = Schema::compile(&plan_schema(&tools::ready(&all, &state), &offered, &state, 6)).unwrap();
        let empty = json!({"done": false, "thought": "load first", "steps": []});
        assert!(schema.validate(&empty).is_err());
        assert!(schema.validate(&json!({"done": true, "thought": "nothing to do", "steps": []})).is_ok());
        let step = json!({"tool": "inspect_file", "args": {"path": "x.edf"}});
        let one = json!({"done": false, "thought": "inspect", "steps": [step]});
        let grammar = Grammar::new(schema.clone());
        let mut s = grammar.start();
        assert!(!grammar.feed_all(&mut s, br#"{"done":false,"thought":"load first","steps":[]"#));
        let mut s = grammar.start();
        assert!(grammar.feed_all(&mut s, br#"{"done":true,"thought":"x","steps":[]}"#) && s.finished());
        let mut s = grammar.start();
        let text = format!(r#"{{"done":false,"thought":"inspect","steps":[{step}]}}"#);
        assert!(grammar.feed_all(&mut s, text.as_bytes()) && s.finished(), "{text}");
        assert!(schema.validate(&one).is_ok());
        // The first step runs now (no `$k`, inputs in the state); later ones may chain on it.
        let chain = json!({"done": false, "thought": "load", "steps": [step,
            {"tool": "load_channels", "args": {"recording": "$1"}}]});
        assert!(schema.validate(&chain).is_ok(), "{chain}");
        let dangling = json!({"done": false, "thought": "plot", "steps": [
            {"tool": "plot", "args": {"view": "$1", "name": "x.png"}}]});
        assert!(schema.validate(&dangling).is_err());
        let mut s = grammar.start();
        assert!(!grammar.feed_all(&mut s, br#"{"done":false,"thought":"p","steps":[{"tool":"plot""#));
    }

    /// Two rounds' planner prompts agree up to the shared state (the engine's prefix cache serves that part),
    /// and what differs — the state, the last steps, the usable tools — comes after it. The system message,
    /// which describes every tool of the agent whether this round may use it or not, is the same for another
    /// task of the agent: it is the stable head the engine keeps on disk.
    #[test]
    fn rounds_share_the_prompt_up_to_the_state() {
        let d = tempfile::tempdir().unwrap();
        let all = tools::toolset(Domain::Physiol);
        let first = SharedState::new(d.path(), d.path());
        let mut later = SharedState::new(d.path(), d.path());
        later.errors.push("inspect_file: data/x.edf not found".into());
        let failed = StepRecord {
            tool: "inspect_file".into(),
            args: json!({"path": "data/x.edf"}),
            status: "failed".into(),
            error: Some("data/x.edf not found".into()),
            ..Default::default()
        };
        let prompt = |task: &str, st: &SharedState, offered: &[&ToolSpec], last: &[StepRecord]| {
            plan_prompt(task, "PhysiolAgent", st, &all, offered, &[], last, 6)
        };
        let (sys_a, a) = prompt("Report the channels of data/x.edf.", &first, &tools::offered(&all, &first), &[]);
        let (sys_b, b) = prompt("Report the channels of data/x.edf.", &later, &all[..3], &[failed]);
        let (sys_other, other) = prompt("Count the R-peaks of data/y.edf.", &first, &tools::offered(&all, &first), &[]);
        assert_eq!(sys_a, sys_b);
        assert_eq!(sys_a, sys_other, "another task of the agent has the same system message");
        assert!(!sys_a.contains("data/x.edf") && other.contains("data/y.edf"), "the task is in the user message");
        let common = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
        let state_at = a.find("Shared state:").unwrap();
        assert!(common >= state_at, "the prompts part at byte {common}, before the state (byte {state_at})");
        assert_ne!(a, b);
        // Every tool of the agent is described in the system message, whether this round may use it or not.
        for t in &all {
            assert!(sys_a.contains(&format!("- {}(", t.name)), "{} is described", t.name);
        }
    }

    /// The report's measured section lists the tools' results first and a code step's after them, under a
    /// heading that says the tool's value stands, whatever order they were registered in.
    #[test]
    fn code_results_come_after_the_tools_under_their_own_heading() {
        let d = tempfile::tempdir().unwrap();
        let mut state = SharedState::new(d.path(), d.path());
        let code_id = state.add_result(&code::result_label("total sleep time"), json!({"printed": "TST 13680"}));
        let tool_id = state.add_result("sleep statistics (minutes)", json!({"TST": 228.0}));
        let m = measured_section(&state);
        let (tool_at, heading_at, code_at) = (
            m.find(&format!("- {tool_id} ")).unwrap(),
            m.find("Printed by python code the model wrote").unwrap(),
            m.find(&format!("- {code_id} ")).unwrap(),
        );
        assert!(tool_at < heading_at && heading_at < code_at, "{m}");
        assert!(code::is_code_result(state.results[&code_id]["what"].as_str().unwrap()));
        // Without code results there is no heading.
        let mut tools_only = SharedState::new(d.path(), d.path());
        tools_only.add_result("sleep statistics (minutes)", json!({"TST": 228.0}));
        assert!(!measured_section(&tools_only).contains("Printed by python"));
    }
}
