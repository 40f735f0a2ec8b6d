//! A reflection re-run: every step before reflection answered from a stored run's replies, the reflection
//! asked of the live model. At temperature 0 the steps before reflection write what they wrote in the stored
//! run (the same prompts to the same model), so a reflection variant is measured at the cost of its own call,
//! about a tenth of a BrainAgent analysis. The stored run must be the same evaluation up to the reflection's
//! form; a reply that does not fit its step, or an analysis that comes out otherwise than stored, is an error.

use super::method::Settings;
use super::runfile::{Header, Record, read_run};
use super::trace::Call;
use crate::agent::error::{AgentError, Result};
use crate::llm::{ChatModel, ChatRequest, ChatResponse, ErrorClass, LlmError, ResponseFormat, Usage};
use crate::util::cancel::Cancel;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The step whose request goes to the live model.
const LIVE: &str = "reflection";

/// A stored run read for a reflection re-run.
#[derive(Debug, Clone)]
pub struct Reuse {
    pub path: PathBuf,
    records: BTreeMap<(String, usize), Record>,
}

impl Reuse {
    /// Reads `path` and checks that it is the evaluation `header` describes, up to the reflection's form.
    pub fn open(path: &Path, header: &Header) -> Result<Reuse> {
        let run = read_run(path)?;
        let a = &run.header;
        let fail = |what: &str| Err(AgentError::from(format!("{}: {what}; it cannot answer this run", path.display())));
        if !header.settings.reflection || !header.settings.method.uses_model() {
            return fail("a reflection re-run needs a method with reflection (brainagent or reflection)");
        }
        let same_up_to_reflection = Settings { reflection_form: a.settings.reflection_form, ..header.settings.clone() };
        if a.settings != same_up_to_reflection {
            return fail(&format!(
                "its method's settings differ from this run's in more than the reflection's form ({} against {})",
                a.method, header.method
            ));
        }
        if (&a.task, &a.model, a.split, a.seed, a.runs, &a.test)
            != (&header.task, &header.model, header.split, header.seed, header.runs, &header.test)
        {
            return fail(&format!(
                "written by another evaluation ({} / {} / split {} / seed {} / {} runs / {} test samples)",
                a.task,
                a.model,
                a.split,
                a.seed,
                a.runs,
                a.test.len()
            ));
        }
        let records = run.records.into_iter().map(|r| ((r.sample.clone(), r.run), r)).collect();
        Ok(Reuse { path: path.to_path_buf(), records })
    }

    /// The stored record of one (sample, run).
    pub fn record(&self, sample: &str, run: usize) -> Result<&Record> {
        self.records.get(&(sample.to_string(), run)).ok_or_else(|| {
            AgentError::from(format!(
                "{}: no record of {sample} (run {run}); the stored run is incomplete",
                self.path.display()
            ))
        })
    }
}

/// Whether a stored analysis reached reflection (one that failed before it has nothing to re-run).
pub fn reached_reflection(r: &Record) -> bool {
    r.trace.calls.iter().any(|c| c.step == LIVE)
}

/// Answers each request from the stored calls in order, the reflection's from `live`.
pub struct Replayed {
    live: Arc<dyn ChatModel>,
    calls: Vec<Call>,
    next: Mutex<usize>,
    source: String,
}

impl Replayed {
    pub fn new(live: Arc<dyn ChatModel>, stored: &Record, source: &Path) -> Replayed {
        let calls = stored.trace.calls.iter().take_while(|c| c.step != LIVE).cloned().collect();
        Replayed { live, calls, next: Mutex::new(0), source: format!("{} ({})", source.display(), stored.sample) }
    }
}

fn schema_name(req: &ChatRequest) -> Option<&str> {
    match &req.format {
        ResponseFormat::JsonSchema { name, .. } => Some(name),
        _ => None,
    }
}

impl ChatModel for Replayed {
    fn name(&self) -> String {
        self.live.name()
    }

    fn sampling(&self) -> Option<String> {
        self.live.sampling()
    }

    fn chat_with(
        &self,
        request: &ChatRequest,
        cancel: &Cancel,
        on_delta: &mut dyn FnMut(&str),
    ) -> std::result::Result<ChatResponse, LlmError> {
        let step = schema_name(request);
        if step == Some(LIVE) {
            return self.live.chat_with(request, cancel, on_delta);
        }
        let mut next = self.next.lock().unwrap_or_else(|p| p.into_inner());
        let diverged = |what: String| {
            Err(LlmError::new(
                ErrorClass::Configuration,
                "replay",
                format!("{}: {what}: the steps differ from the stored run's", self.source),
            ))
        };
        let Some(call) = self.calls.get(*next) else {
            return diverged(format!("no stored reply left for a {} request", step.unwrap_or("text")));
        };
        // The understanding and the analysis are asked under their own schema names (the rounds under others).
        if let Some(s) = step.filter(|s| ["understanding", "analysis"].contains(s))
            && call.step != s
        {
            return diverged(format!("the {s} request met the stored {} reply", call.step));
        }
        *next += 1;
        Ok(ChatResponse {
            text: call.raw.clone(),
            json: None,
            usage: Usage {
                prompt_tokens: call.prompt_tokens,
                completion_tokens: call.completion_tokens,
                cached_tokens: call.cached_tokens,
                disk_tokens: call.disk_tokens,
                ..Usage::default()
            },
            latency_ms: call.ms,
            model: call.model.clone(),
            finish_reason: "stop".into(),
            attempts: 1,
            choices: call.choices.clone(),
        })
    }
}
