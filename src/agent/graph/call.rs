//! One model step: a schema-constrained request, the reply parsed and checked (JSON, schema, the step's own
//! rule such as "label in the task's set"), one corrective retry that tells the model what was wrong, and the
//! call recorded in the trace. Failures come back classified, never mapped to an answer.

use super::trace::{Call, OutcomeClass, Trace};
use crate::llm::extract_json;
use crate::llm::schema::Schema;
use crate::llm::{ChatModel, ChatRequest, ErrorClass, Message};
use crate::util::cancel::Cancel;
use serde_json::Value;

#[derive(Debug, Clone, PartialEq)]
pub struct StepError {
    pub class: OutcomeClass,
    pub message: String,
}

pub struct Caller<'a> {
    pub model: &'a dyn ChatModel,
    /// Every request's system message (`prompts::system`: the same for every subject, so it stays cached).
    pub system: &'a str,
    pub cancel: &'a Cancel,
    pub temperature: f32,
    pub max_tokens: u32,
    pub seed: u64,
}

fn class_of(e: ErrorClass) -> OutcomeClass {
    match e {
        ErrorClass::ApiInfrastructureError => OutcomeClass::ApiInfrastructureError,
        ErrorClass::ModelError => OutcomeClass::ModelError,
        ErrorClass::Cancelled => OutcomeClass::Cancelled,
        ErrorClass::Configuration => OutcomeClass::ConfigurationError,
    }
}

/// A step's own rule beyond the schema; `Err` = (class, what to tell the model).
pub type Check<'c> = &'c dyn Fn(&Value) -> Result<(), (OutcomeClass, String)>;

impl Caller<'_> {
    pub fn ask(
        &self,
        trace: &mut Trace,
        step: &str,
        prompt: String,
        schema_name: &str,
        schema: Value,
        check: Check,
    ) -> Result<Value, StepError> {
        let accept = schema.clone();
        self.ask_accepting(trace, step, prompt, schema_name, schema, &accept, check)
    }

    /// `ask` that sends `schema` (what constrained decoding produces) but accepts any reply valid against
    /// `accept`, a looser shape whose remaining problems the step repairs itself (drifted tool arguments from
    /// models that do not follow schemas). Size bounds are never reasons to refuse a reply (`without_bounds`).
    #[allow(clippy::too_many_arguments)]
    pub fn ask_accepting(
        &self,
        trace: &mut Trace,
        step: &str,
        prompt: String,
        schema_name: &str,
        schema: Value,
        accept: &Value,
        check: Check,
    ) -> Result<Value, StepError> {
        let compile = |s: &Value| {
            Schema::compile(s)
                .map_err(|e| StepError { class: OutcomeClass::ConfigurationError, message: e.to_string() })
        };
        let accept = &crate::llm::schema::without_bounds(accept);
        let compiled = compile(accept)?;
        if *accept != schema {
            compile(&schema)?;
        }
        let mut messages = vec![Message::system(self.system), Message::user(prompt)];
        let mut call = Call { step: step.to_string(), ..Default::default() };
        for attempt in 1..=2u32 {
            if self.cancel.is_cancelled() {
                return Err(StepError { class: OutcomeClass::Cancelled, message: "cancelled".into() });
            }
            let request = ChatRequest {
                temperature: self.temperature,
                max_tokens: self.max_tokens,
                seed: Some(self.seed),
                ..ChatRequest::new(messages.clone())
            }
            .with_schema(schema_name, schema.clone());
            call.attempts = attempt;
            let reply = match self.model.chat_with(&request, self.cancel, &mut |_| {}) {
                Ok(r) => r,
                Err(e) => {
                    call.error = Some(e.to_string());
                    trace.calls.push(call);
                    return Err(StepError { class: class_of(e.class), message: e.to_string() });
                }
            };
            call.prompt_tokens += reply.usage.prompt_tokens;
            call.cached_tokens += reply.usage.cached_tokens;
            call.disk_tokens += reply.usage.disk_tokens;
            call.completion_tokens += reply.usage.completion_tokens;
            call.drafted_tokens += reply.usage.drafted_tokens;
            call.accepted_tokens += reply.usage.accepted_tokens;
            call.ms += reply.latency_ms;
            call.raw = reply.text.clone();
            call.model = self.model.name();
            call.choices = reply.choices.clone();
            let value = reply.json.clone().or_else(|| extract_json(&reply.text));
            let problem = match &value {
                None => Some((OutcomeClass::InvalidOutput, "the reply is not JSON".to_string())),
                Some(v) => check(v)
                    .err()
                    .or_else(|| compiled.validate(v).err().map(|e| (OutcomeClass::InvalidOutput, e.to_string()))),
            };
            match problem {
                None => {
                    trace.calls.push(call);
                    return Ok(value.unwrap_or_default());
                }
                Some((class, message)) => {
                    match class {
                        OutcomeClass::OutOfLabelSet => trace.counters.out_of_label_set += 1,
                        _ => trace.counters.invalid_outputs += 1,
                    }
                    if attempt == 2 {
                        call.error = Some(message.clone());
                        trace.calls.push(call);
                        return Err(StepError { class, message });
                    }
                    messages.push(Message::assistant(reply.text));
                    messages.push(Message::user(format!(
                        "Your reply was not accepted: {message}. Answer again with only the JSON object, following the schema."
                    )));
                }
            }
        }
        Err(StepError { class: OutcomeClass::InvalidOutput, message: "no accepted reply".into() })
    }
}
