//! A scripted CodeAct model: for some task families it writes real analysis code (pandas/scikit-learn/mne/
//! scipy in the sandboxed kernel), then answers with a <solution> built from the printed values; its parser
//! copies `key: value` lines. Deterministic, so a Recorder turns it into a replay transcript.
#![allow(dead_code)]

use brainlens::llm::{ChatModel, ChatRequest, ChatResponse, LlmError, ResponseFormat, Role};
use brainlens::util::cancel::Cancel;
use serde_json::{Value, json};

pub type Override = dyn Fn(&ChatRequest) -> Option<Result<Value, LlmError>> + Send + Sync;

#[derive(Default)]
pub struct CodeActScripted {
    pub over: Option<Box<Override>>,
}

fn users(r: &ChatRequest) -> Vec<String> {
    r.messages.iter().filter(|m| m.role == Role::User).map(|m| m.content.clone()).collect()
}

fn data_path(task: &str) -> String {
    task.split("Load the data file: ").nth(1).and_then(|s| s.lines().next()).unwrap_or("").trim().to_string()
}

/// Code for the task, printing `key value` lines.
pub fn code_for(task: &str) -> String {
    let p = format!("/input/{}", data_path(task));
    if task.contains("Cohen's kappa") {
        return format!(
            "import pandas as pd\nfrom sklearn.metrics import cohen_kappa_score\nh = pd.read_csv({p:?})\nprint('kappa', cohen_kappa_score(h['reference'], h['device']))\nprint('agreement_pct', 100 * (h['reference'] == h['device']).mean())"
        );
    }
    if task.contains("total sleep time in minutes") {
        return format!(
            "import pandas as pd\nh = pd.read_csv({p:?})\nprint('tst_min', (h['reference'] > 0).sum() * 0.5)"
        );
    }
    if task.contains("sleep efficiency") && task.contains("column 'reference'") {
        return format!(
            "import pandas as pd\nh = pd.read_csv({p:?})\nprint('se_pct', 100 * (h['reference'] > 0).mean())"
        );
    }
    if task.contains("relative power of the") {
        let band = task.split("relative power of the ").nth(1).unwrap().split(" Hz").next().unwrap();
        let (lo, hi) = band.split_once('-').unwrap();
        return format!(
            "import mne, numpy as np\nfrom scipy.signal import welch\nraw = mne.io.read_raw_edf({p:?}, preload=True, verbose='error')\nraw.pick([c for c in raw.ch_names if 'EOG' not in c]).filter(0.5, 40.0, verbose='error')\nf, pxx = welch(raw.get_data(), raw.info['sfreq'], nperseg=int(2 * raw.info['sfreq']))\nband = lambda lo, hi: np.trapezoid(pxx[:, (f >= lo) & (f <= hi)], f[(f >= lo) & (f <= hi)])\nprint('band_rel_pct', (100 * band({lo}, {hi}) / band(0.5, 40.0)).mean())"
        );
    }
    if task.contains("resampled.npy") {
        return format!(
            "import mne, numpy as np, os\nfrom scipy.signal import resample_poly\nraw = mne.io.read_raw_edf({p:?}, preload=True, verbose='error')\nx = raw.get_data(picks=[c for c in raw.ch_names if 'EOG' not in c])\nos.makedirs('/workspace/file_check', exist_ok=True)\nnp.save('/workspace/file_check/resampled.npy', resample_poly(x, 1, 2, axis=1))\nprint('artifact_path', '/workspace/file_check/resampled.npy')"
        );
    }
    if task.contains("topomap.png") {
        return "from PIL import Image\nimport os\nos.makedirs('/workspace/file_check', exist_ok=True)\nImage.new('RGB', (32, 32), (200, 40, 40)).save('/workspace/file_check/topomap.png')\nprint('artifact_path', '/workspace/file_check/topomap.png')".into();
    }
    format!("import os\nprint('exists', os.path.exists({p:?}))")
}

fn reply(r: &ChatRequest) -> String {
    let u = users(r);
    let task = u.first().cloned().unwrap_or_default();
    let observations: Vec<&String> = u.iter().filter(|m| m.starts_with("Observation:")).collect();
    match observations.last() {
        None if !u.last().unwrap().starts_with("This is the last turn") => format!("<execute>\n{}\n", code_for(&task)),
        last => {
            let obs = last.map(|s| s.as_str()).unwrap_or("");
            let lines: Vec<String> =
                obs.lines().skip(1).filter_map(|l| l.split_once(' ').map(|(k, v)| format!("{k}: {v}"))).collect();
            let body = if obs.contains("exists False") {
                "The data file does not exist, so no values can be reported.".to_string()
            } else {
                lines.join("\n")
            };
            format!("<solution>\n{body}\n")
        }
    }
}

/// Parser: `key: value` lines of the report for the schema's keys.
fn parse(r: &ChatRequest) -> Value {
    let report = users(r).first().cloned().unwrap_or_default();
    let keys: Vec<String> = match &r.format {
        ResponseFormat::JsonSchema { schema, .. } => {
            schema["properties"].as_object().map(|o| o.keys().cloned().collect()).unwrap_or_default()
        }
        _ => vec![],
    };
    let mut out = serde_json::Map::new();
    for k in keys {
        let v = report
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{k}: ")))
            .map(|v| v.trim().parse::<f64>().map(Value::from).unwrap_or_else(|_| Value::from(v.trim())));
        let v = match k.as_str() {
            "data_available" => Some(Value::from(!report.contains("does not exist"))),
            _ => v,
        };
        out.insert(k, v.unwrap_or(Value::Null));
    }
    Value::Object(out)
}

impl ChatModel for CodeActScripted {
    fn name(&self) -> String {
        "scripted:codeact".into()
    }

    fn chat_with(&self, r: &ChatRequest, _c: &Cancel, _d: &mut dyn FnMut(&str)) -> Result<ChatResponse, LlmError> {
        if let Some(Some(v)) = self.over.as_ref().map(|f| f(r)) {
            return v.map(super::scripted::respond);
        }
        let v = match &r.format {
            ResponseFormat::JsonSchema { name, .. } if name == "parser_output" => parse(r),
            ResponseFormat::JsonSchema { .. } => json!({"score": 0.5, "reason": "scripted"}),
            _ => Value::String(reply(r)),
        };
        Ok(super::scripted::respond(v))
    }
}
