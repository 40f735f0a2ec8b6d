//! The hybrid paradigm's code steps: a plan step `python` (a purpose, not code) is carried out by asking the
//! model for one `<execute>` block — CodeAct's system prompt, environment and reply format — and running it in
//! the instance's CodeAct kernel (same sandbox, same limits). The results the tools registered are in the
//! kernel as the dict `state` (and as files under `<workspace>/state/`); what the block prints is registered
//! as a result, labelled as code the model wrote, and is the step's observation. A block that failed, or
//! printed nothing, is written again once, shown what happened.

use super::state::SharedState;
use super::trace::{CallRecord, CodeBlock, PlanRound, StepKind, StepRecord};
use crate::agent::codeact;
use crate::llm::{ChatModel, ChatRequest, ErrorClass, LlmError, Message, Repetition, ResponseFormat};
use crate::sandbox::kernel::Kernel;
use crate::util::cancel::Cancel;
use serde_json::{Value, json};

/// When a hybrid planner may plan a `python` step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CodeRule {
    /// From the first step on.
    Always,
    /// Once a tool step has run without an error (the data is opened with validated tools first).
    AfterTools,
    /// Once a tool step failed, was refused by its checks, or repeated an earlier one: until then the run is
    /// BrainAgent's, prompt for prompt.
    #[default]
    OnFailure,
}

impl CodeRule {
    pub const NAMES: [&str; 3] = ["always", "after-tools", "on-failure"];

    pub fn parse(s: &str) -> Result<CodeRule, String> {
        match s.trim() {
            "always" => Ok(CodeRule::Always),
            "after-tools" => Ok(CodeRule::AfterTools),
            "on-failure" => Ok(CodeRule::OnFailure),
            o => Err(format!("unknown code rule {o:?} ({})", CodeRule::NAMES.join(", "))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            CodeRule::Always => "always",
            CodeRule::AfterTools => "after-tools",
            CodeRule::OnFailure => "on-failure",
        }
    }

    /// Whether `python` is on the menu after `rounds`.
    pub fn allows(self, rounds: &[PlanRound]) -> bool {
        let tool_steps = || rounds.iter().flat_map(|r| &r.executed).filter(|s| s.kind == StepKind::Tool);
        match self {
            CodeRule::Always => true,
            CodeRule::AfterTools => tool_steps().any(|s| s.status == "ok"),
            CodeRule::OnFailure => tool_steps().any(|s| s.status != "ok"),
        }
    }

    /// Why a `python` step named before the rule allows it is refused.
    pub fn until(self) -> &'static str {
        match self {
            CodeRule::Always => "",
            CodeRule::AfterTools => "python comes on the menu once a tool step has run",
            CodeRule::OnFailure => "python comes on the menu only if a tool step fails",
        }
    }
}

/// What a hybrid run needs for its code steps.
pub struct CodeSteps<'k> {
    pub rule: CodeRule,
    /// The instance's kernel (started at its first block: `Kernel::deferred`).
    pub kernel: &'k mut Kernel,
    /// CodeAct's settings for the blocks: timeout, observation length, tokens, sampling.
    pub settings: codeact::Settings,
    /// Blocks per step: the first, and one more after an error or a block that printed nothing.
    pub tries: usize,
    /// Code steps an instance may run (each up to `tries` blocks); then `python` leaves the menu. A block of the
    /// 1.5B model is 300–400 tokens, a minute or more on this CPU.
    pub max_steps: usize,
    /// Code steps run so far.
    pub ran: usize,
}

impl CodeSteps<'_> {
    /// Whether `python` is on the menu after `rounds`: the rule allows it and the budget is not spent.
    pub fn allowed(&self, rounds: &[PlanRound]) -> bool {
        self.ran < self.max_steps && self.rule.allows(rounds)
    }
}

/// How the refusal of a `python` step whose purpose names a usable tool begins (the run takes `python` off the
/// menu on it: `run::run_with`).
pub const PURPOSE_REFUSED: &str = "python: the purpose names the tool";

/// A `python` step's purpose checked against the run so far (`rounds`). A purpose that begins with a tool's name
/// (`tools::names_a_tool`) is most often that tool's call, or its error, copied into the purpose: refused, naming
/// the tool to plan instead — unless that tool failed in this instance and never ran without an error, which is
/// the case a tool failing opens code for (issue 64: "no tool covers the step, or a tool failed"; the Sleep
/// scorer-agreement tasks of the suite, where the tool was given one scoring twice and the refusal then left the
/// value to no one). Then the step runs, and its note (`Ok(Some)`) tells the code what the tool's error was.
/// `Ok(None)`: the purpose names no tool.
pub fn purpose_check(purpose: &str, rounds: &[PlanRound]) -> Result<Option<String>, String> {
    let Some(tool) = super::tools::names_a_tool(purpose) else { return Ok(None) };
    let steps: Vec<&StepRecord> =
        rounds.iter().flat_map(|r| &r.executed).filter(|s| s.kind == StepKind::Tool && s.tool == tool).collect();
    let failed = steps.iter().rev().find(|s| s.status != "ok").and_then(|s| s.error.clone());
    match failed {
        Some(error) if !steps.iter().any(|s| s.status == "ok") => Ok(Some(format!(
            "The validated tool {tool} failed in this run ({error}), so this step computes in Python what it \
             would have."
        ))),
        _ => Err(format!(
            "{PURPOSE_REFUSED} {tool}: plan {tool} as a tool step (python is for a value no tool computes, or one a \
             tool failed to compute)"
        )),
    }
}

/// The longest printed output kept in a step's observation and result (CodeAct's observation is cut at
/// `observation_chars`; the measured section cuts results at 1,500 characters too).
const KEPT: usize = 1500;

/// How a code step's registered result begins: never a tool's output.
const LABEL: &str = "printed by a python step (code the model wrote, run in the sandbox; not a validated tool)";

/// What a code step's registered result says it is.
pub fn result_label(purpose: &str) -> String {
    format!("{LABEL}: {purpose}")
}

/// Whether a registered result's `what` is a code step's (`result_label`).
pub fn is_code_result(what: &str) -> bool {
    what.starts_with(LABEL)
}

/// The shared state's results written where the kernel reads them, and the Python that loads them as `state`.
fn export_state(state: &SharedState, kernel: &Kernel) -> std::io::Result<String> {
    let dir = state.workspace.join("state");
    std::fs::create_dir_all(&dir)?;
    for (id, r) in &state.results {
        std::fs::write(dir.join(format!("{id}.json")), r.to_string())?;
    }
    let recordings: serde_json::Map<String, Value> =
        state.recordings.iter().map(|(id, r)| (id.clone(), json!(r.path))).collect();
    std::fs::write(dir.join("recordings.json"), Value::Object(recordings).to_string())?;
    let inside = format!("{}/state", kernel.workspace_inside());
    Ok(format!(
        "import json as _json, pathlib as _pathlib\nstate = {{_p.stem: _json.loads(_p.read_text()) for _p in \
         sorted(_pathlib.Path({inside:?}).glob('*.json')) if _p.stem != 'recordings'}}\nrecordings = \
         _json.loads(_pathlib.Path({inside:?}, 'recordings.json').read_text())\n"
    ))
}

fn ids(state: &SharedState) -> String {
    if state.results.is_empty() {
        "none yet".into()
    } else {
        state.results.keys().cloned().collect::<Vec<_>>().join(", ")
    }
}

fn prompt(query: &str, purpose: &str, note: Option<&str>, state: &SharedState) -> String {
    let files = state.path_options();
    let recordings: Vec<String> = state.recordings.iter().map(|(id, r)| format!("{id} = {}", r.path)).collect();
    format!(
        "Task:\n{query}\n\nShared state (what BrainLens's tools registered):\n{}\nIn this Python session the dict \
         `state` holds each result by id ({}) as {{\"what\": ..., \"value\": ...}}, and `recordings` maps rec ids to \
         paths ({}). The task's files are under /input, the working directory: {}.\n\nThis step, in Python: \
         {purpose}{}\nReply with one short <execute> block that computes it and prints each value with its name.",
        state.summary(),
        ids(state),
        if recordings.is_empty() { "none".into() } else { recordings.join(", ") },
        if files.is_empty() { "none".into() } else { files.join(", ") },
        note.map(|n| format!("\n{n}")).unwrap_or_default(),
    )
}

impl CodeSteps<'_> {
    fn request(&self, messages: Vec<Message>) -> ChatRequest {
        let s = &self.settings;
        ChatRequest {
            temperature: s.temperature,
            max_tokens: s.max_tokens,
            seed: Some(s.seed),
            stop: vec!["</execute>".into()],
            format: ResponseFormat::Tagged { tags: vec!["execute".into()] },
            repetition: Some(Repetition::off()),
            ..ChatRequest::new(messages)
        }
    }

    /// Carries out one `python` step of plan round `round`: the step's record (kind code, its blocks, the
    /// printed output as its observation and as a registered result when a block ran without an error; its model
    /// calls go to `calls`). `note` is `purpose_check`'s, for a step that stands in for a failed tool. `Err`
    /// only for a model failure that ends the run (a model error makes the step fail, as a tool's error does).
    #[allow(clippy::too_many_arguments)]
    pub fn run(
        &mut self,
        purpose: &str,
        note: Option<&str>,
        args: &Value,
        query: &str,
        state: &mut SharedState,
        model: &dyn ChatModel,
        cancel: &Cancel,
        round: usize,
        calls: &mut Vec<CallRecord>,
    ) -> Result<StepRecord, LlmError> {
        self.ran += 1;
        let mut rec =
            StepRecord { tool: "python".into(), args: args.clone(), kind: StepKind::Code, ..Default::default() };
        let fail = |mut rec: StepRecord, state: &mut SharedState, why: String| {
            let e = format!("python: {why}");
            rec.status = "failed".into();
            rec.error = Some(e.clone());
            state.errors.push(e);
            state.planning.steps_failed += 1;
            rec
        };
        let prelude = match export_state(state, self.kernel) {
            Ok(p) => p,
            Err(e) => return Ok(fail(rec, state, format!("the shared state could not be written for the code: {e}"))),
        };
        let mut messages = vec![Message::system(codeact::system()), Message::user(prompt(query, purpose, note, state))];
        let mut last_error: Option<String> = None;
        for attempt in 1..=self.tries.max(1) {
            if cancel.is_cancelled() {
                return Err(cancel.error("hybrid"));
            }
            let step = format!("code {round}{}", if attempt > 1 { " (again)" } else { "" });
            let resp = match model.chat_with(&self.request(messages.clone()), cancel, &mut |_| {}) {
                Ok(r) => r,
                Err(e) => {
                    calls.push(CallRecord { step, attempts: 1, error: Some(e.to_string()), ..Default::default() });
                    if e.class != ErrorClass::ModelError {
                        return Err(e);
                    }
                    return Ok(fail(rec, state, format!("the model gave no block: {}", e.message)));
                }
            };
            calls.push(CallRecord {
                step,
                attempts: 1,
                prompt_tokens: resp.usage.prompt_tokens,
                completion_tokens: resp.usage.completion_tokens,
                cached_tokens: resp.usage.cached_tokens,
                disk_tokens: resp.usage.disk_tokens,
                latency_ms: resp.latency_ms,
                raw: resp.text.clone(),
                error: None,
            });
            let Some((code, cut_note)) = codeact::executable(&resp, self.settings.max_tokens) else {
                return Ok(fail(rec, state, "the reply had no code to run".into()));
            };
            // The state is loaded afresh before every block (a restarted kernel has lost it), in a block of its
            // own so the model's block keeps its line numbers in a traceback.
            let infra = |why| LlmError::infra("sandbox", format!("the sandboxed kernel could not be started: {why}"));
            let loaded = self.kernel.exec(&prelude, self.settings.exec_timeout_s).map_err(infra)?;
            if let Some(err) = loaded.error {
                return Ok(fail(rec, state, format!("the shared state did not load in the kernel: {err}")));
            }
            // No kernel could be started: the infrastructure failed, not the agent (rerun, excluded).
            let e = self.kernel.exec(&code, self.settings.exec_timeout_s).map_err(infra)?;
            let mut obs = codeact::observation(&e, self.settings.observation_chars);
            if let Some(note) = cut_note {
                obs = format!("{note}\n{obs}");
            }
            let failed = e.error.is_some();
            // A block that raised nothing but printed nothing computed nothing the step can register (seen with
            // Qwen2.5-Coder-1.5B: a block of imports alone, cut at the token limit).
            let silent = !failed && e.stdout.trim().is_empty() && e.result.is_none();
            last_error = match &e.error {
                Some(t) => Some(format!("the block failed: {}", t.trim().lines().last().unwrap_or(""))),
                None if silent => Some("the block printed nothing".into()),
                None => None,
            };
            rec.code.push(CodeBlock {
                code: code.clone(),
                observation: obs.clone(),
                failed,
                timed_out: e.timed_out,
                seconds: e.seconds,
            });
            if last_error.is_none() {
                let printed: String = obs.chars().take(KEPT).collect();
                let id = state.add_result(&result_label(purpose), json!({"printed": printed}));
                rec.status = "ok".into();
                rec.observation = json!({"id": id, "printed": printed});
                state.planning.steps_executed += 1;
                return Ok(rec);
            }
            let again = if silent {
                "The block printed nothing, so it computed nothing for the step. Reply with one <execute> block that \
                 computes it and prints each value with its name."
            } else {
                "The block failed. Reply with one corrected <execute> block for the same step."
            };
            messages.push(Message::assistant(format!("<execute>\n{code}\n</execute>")));
            messages.push(Message::user(format!("Observation:\n{obs}\n{again}")));
        }
        // The exception alone (the observation's notes are for the block's next version, not for the plan).
        Ok(fail(rec, state, last_error.unwrap_or_default()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(kind: StepKind, status: &str) -> PlanRound {
        PlanRound {
            round: 1,
            executed: vec![StepRecord { tool: "t".into(), status: status.into(), kind, ..Default::default() }],
            ..Default::default()
        }
    }

    #[test]
    fn each_rule_opens_the_menu_when_it_says() {
        let none: [PlanRound; 0] = [];
        let ok = [round(StepKind::Tool, "ok")];
        let failed = [round(StepKind::Tool, "not_executable")];
        let code_failed = [round(StepKind::Code, "failed")];
        assert!(CodeRule::Always.allows(&none));
        assert!(!CodeRule::AfterTools.allows(&none) && CodeRule::AfterTools.allows(&ok));
        assert!(!CodeRule::AfterTools.allows(&failed));
        assert!(!CodeRule::OnFailure.allows(&ok) && CodeRule::OnFailure.allows(&failed));
        // A failed code step is not a failed tool: it does not open the menu by itself.
        assert!(!CodeRule::OnFailure.allows(&code_failed));
        for n in CodeRule::NAMES {
            assert_eq!(CodeRule::parse(n).unwrap().name(), n);
        }
        assert!(CodeRule::parse("sometimes").unwrap_err().contains("after-tools"));
    }

    /// A purpose that begins with a tool's name (a tool call or an error message copied into it) is refused
    /// while that tool has not failed, or has run; a value to compute is not; a purpose naming a tool that failed
    /// and never ran is the step code stands in for, told the tool's error.
    #[test]
    fn a_purpose_that_names_a_usable_tool_is_refused() {
        use crate::agent::eeg::tools;
        assert_eq!(tools::names_a_tool("load_hypnogram(path: 'data/h.csv')"), Some("load_hypnogram"));
        assert_eq!(tools::names_a_tool(" channel_stats"), Some("channel_stats"));
        assert_eq!(tools::names_a_tool("load_channels with these arguments already ran"), Some("load_channels"));
        assert_eq!(tools::names_a_tool("phase-locking value between EEG 001 and EEG 002"), None);
        assert_eq!(tools::names_a_tool("alpha_channels"), None);
        let step = |tool: &str, status: &str| StepRecord {
            tool: tool.into(),
            status: status.into(),
            error: (status != "ok").then(|| format!("{tool}: a and b are both lab1")),
            ..Default::default()
        };
        let rounds = |steps: Vec<StepRecord>| vec![PlanRound { round: 1, executed: steps, ..Default::default() }];
        assert_eq!(purpose_check("the PLV in the alpha band", &[]), Ok(None));
        // Never tried: plan the tool.
        let e = purpose_check("inspect_file(path: 'x.edf')", &[]).unwrap_err();
        assert!(e.starts_with(PURPOSE_REFUSED) && e.contains("plan inspect_file as a tool step"), "{e}");
        // Failed, never ran: the code stands in, told why.
        let failed = rounds(vec![step("scorer_agreement", "not_executable")]);
        let note = purpose_check("scorer_agreement(a: lab1, b: lab1)", &failed).unwrap().unwrap();
        assert!(note.contains("scorer_agreement failed") && note.contains("both lab1"), "{note}");
        // Failed once, then ran: its result is in the state.
        let ran = rounds(vec![step("scorer_agreement", "not_executable"), step("scorer_agreement", "ok")]);
        assert!(purpose_check("scorer_agreement", &ran).is_err());
        // A failed code step is not a failed tool.
        let code = rounds(vec![StepRecord { kind: StepKind::Code, ..step("scorer_agreement", "failed") }]);
        assert!(purpose_check("scorer_agreement", &code).is_err());
    }

    /// The budget: after `max_steps` code steps python leaves the menu whatever the rule says.
    #[test]
    fn the_code_steps_of_an_instance_are_bounded() {
        let d = tempfile::tempdir().unwrap();
        let mut kernel = Kernel::deferred(&crate::sandbox::Spec::new(d.path()), std::path::Path::new("python3"));
        let mut steps = CodeSteps {
            rule: CodeRule::Always,
            kernel: &mut kernel,
            settings: Default::default(),
            tries: 2,
            max_steps: 1,
            ran: 0,
        };
        assert!(steps.allowed(&[]));
        steps.ran = 1;
        assert!(!steps.allowed(&[]));
        assert!(!kernel.started(), "a deferred kernel starts at its first block");
    }
}
