//! The chat template stored in the GGUF (`tokenizer.chat_template`), rendered with minijinja as Hugging Face's
//! `apply_chat_template` renders it: blocks trimmed (`trim_blocks`, `lstrip_blocks`), `tojson` as Python's
//! `json.dumps` writes (`", "` and `": "`, non-ASCII kept), `raise_exception`, `strftime_now`, and the
//! request's `tools` (OpenAI function definitions) where the template takes them (Qwen's does).

use crate::llm::local::error::LocalError;
use crate::llm::types::Message;
use minijinja::{Environment, Error, ErrorKind, Value, context};

pub struct ChatTemplate {
    env: Environment<'static>,
    bos: String,
    eos: String,
}

/// serde_json's compact output with Python's default separators (`json.dumps` without `indent`).
struct PythonSeparators;

impl serde_json::ser::Formatter for PythonSeparators {
    fn begin_array_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
        if first { Ok(()) } else { w.write_all(b", ") }
    }
    fn begin_object_key<W: ?Sized + std::io::Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
        if first { Ok(()) } else { w.write_all(b", ") }
    }
    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b": ")
    }
}

/// `value | tojson` as Hugging Face defines it (`json.dumps(value, ensure_ascii=False)`).
fn tojson(value: Value) -> Result<Value, Error> {
    let json = serde_json::to_value(&value).map_err(|e| Error::new(ErrorKind::InvalidOperation, e.to_string()))?;
    let mut out = Vec::new();
    serde::Serialize::serialize(&json, &mut serde_json::Serializer::with_formatter(&mut out, PythonSeparators))
        .map_err(|e| Error::new(ErrorKind::InvalidOperation, e.to_string()))?;
    Ok(Value::from_safe_string(String::from_utf8_lossy(&out).into_owned()))
}

impl ChatTemplate {
    pub fn new(source: &str, bos: &str, eos: &str) -> Result<ChatTemplate, LocalError> {
        let mut env = Environment::new();
        env.set_trim_blocks(true);
        env.set_lstrip_blocks(true);
        env.add_function("raise_exception", |msg: String| -> Result<String, Error> {
            Err(Error::new(ErrorKind::InvalidOperation, msg))
        });
        env.add_function("strftime_now", |format: String| -> String { crate::util::time::strftime_now(&format) });
        env.add_filter("tojson", tojson);
        env.add_template_owned("chat", source.to_string()).map_err(|e| format!("chat template: {e}"))?;
        Ok(ChatTemplate { env, bos: bos.to_string(), eos: eos.to_string() })
    }

    /// The prompt text for `messages`, ending with the assistant turn's opening.
    pub fn render(&self, messages: &[Message]) -> Result<String, LocalError> {
        self.render_with_tools(messages, &[])
    }

    /// The prompt with `tools` (OpenAI function definitions; none = the template's branch without tools).
    pub fn render_with_tools(&self, messages: &[Message], tools: &[serde_json::Value]) -> Result<String, LocalError> {
        let template = self.env.get_template("chat").map_err(|e| LocalError::from(e.to_string()))?;
        let tools = (!tools.is_empty()).then(|| Value::from_serialize(tools));
        template
            .render(context! {
                messages => messages,
                tools => tools,
                add_generation_prompt => true,
                bos_token => self.bos,
                eos_token => self.eos,
            })
            .map_err(|e| format!("chat template: {e}").into())
    }
}
