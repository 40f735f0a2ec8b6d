//! BrainBench case files: discovery (`case<d>/case<d>_<d>.json`), loading and validation with errors that
//! name the file and the JSON path.

use super::canon::number;
use super::scoring::Metric;
use serde_json::Value;
use std::fmt;
use std::path::{Path, PathBuf};

/// A loaded, validated case.
#[derive(Debug, Clone)]
pub struct Case {
    pub path: Option<PathBuf>,
    pub case_id: String,
    pub bench_subset: String,
    /// `meta_info.difficult` (default 1).
    pub difficulty: f64,
    pub instruction: String,
    pub parser_prompt: String,
    pub metrics: Vec<Metric>,
    pub raw: Value,
}

/// A problem with one case file: which file, where in it, what.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseError {
    pub file: PathBuf,
    /// JSON path like `eval_config.metrics[2].params.tolerance` (empty for the file as a whole).
    pub json_path: String,
    pub message: String,
}

impl fmt::Display for CaseError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if self.json_path.is_empty() {
            write!(f, "{}: {}", self.file.display(), self.message)
        } else {
            write!(f, "{}: {}: {}", self.file.display(), self.json_path, self.message)
        }
    }
}

impl std::error::Error for CaseError {}

/// Short description of a JSON value for messages: `"0.5%"`, `a list`, `null`.
pub fn describe(v: &Value) -> String {
    match v {
        Value::String(s) if s.chars().count() <= 40 => format!("{s:?}"),
        Value::String(_) => "a long string".into(),
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "an object".into(),
        other => other.to_string(),
    }
}

const SET_MODES: [&str; 2] = ["exact", "per_hit_fraction"];
const SEQUENCE_MODES: [&str; 3] = ["per_hit_fraction_order", "exact_order", "weighted_partial_order"];
const KNOWN_TYPES: [&str; 8] = [
    "numeric_check",
    "categorical_check",
    "set_match_check",
    "sequence_match_check",
    "semantic_consistency",
    "safety_compliance",
    "factual_qa_check",
    "file_status_check",
];

fn push(errs: &mut Vec<(String, String)>, path: &str, msg: String) {
    errs.push((path.to_string(), msg));
}

/// Every problem of a case value (empty = valid).
pub fn validate(v: &Value) -> Vec<(String, String)> {
    let mut errs: Vec<(String, String)> = Vec::new();
    let Some(root) = v.as_object() else {
        push(&mut errs, "", format!("expected a JSON object, got {}", describe(v)));
        return errs;
    };
    for section in ["meta_info", "agent_input", "eval_config"] {
        match root.get(section) {
            Some(Value::Object(_)) => {}
            None => push(&mut errs, section, "missing (a case needs meta_info, agent_input and eval_config)".into()),
            Some(other) => push(&mut errs, section, format!("expected an object, got {}", describe(other))),
        }
    }
    if let Some(d) = v.pointer("/meta_info/difficult").filter(|d| !d.is_null()) {
        match number(d).filter(|_| d.is_number()) {
            Some(x) if x > 0.0 => {}
            _ => push(&mut errs, "meta_info.difficult", format!("expected a positive number, got {}", describe(d))),
        }
    }
    match v.pointer("/agent_input/instruction") {
        Some(Value::String(_)) => {}
        None if root.get("agent_input").is_some_and(Value::is_object) => {
            push(&mut errs, "agent_input.instruction", "missing".into())
        }
        None => {}
        Some(other) => {
            push(&mut errs, "agent_input.instruction", format!("expected a string, got {}", describe(other)))
        }
    }
    let Some(eval) = root.get("eval_config").and_then(Value::as_object) else { return errs };
    let metrics = match eval.get("metrics") {
        Some(Value::Array(m)) if !m.is_empty() => m,
        Some(Value::Array(_)) => {
            push(&mut errs, "eval_config.metrics", "empty (a case needs at least one metric)".into());
            return errs;
        }
        None => {
            push(&mut errs, "eval_config.metrics", "missing".into());
            return errs;
        }
        Some(other) => {
            push(&mut errs, "eval_config.metrics", format!("expected a list, got {}", describe(other)));
            return errs;
        }
    };
    let mut ids = std::collections::HashSet::new();
    for (i, m) in metrics.iter().enumerate() {
        let at = |k: &str| format!("eval_config.metrics[{i}]{}{k}", if k.is_empty() { "" } else { "." });
        let Some(obj) = m.as_object() else {
            push(&mut errs, &at(""), format!("expected an object, got {}", describe(m)));
            continue;
        };
        match obj.get("metric_id") {
            Some(Value::String(id)) => {
                if !ids.insert(id.clone()) {
                    push(&mut errs, &at("metric_id"), format!("duplicate id {id:?}"));
                }
            }
            Some(other) => push(&mut errs, &at("metric_id"), format!("expected a string, got {}", describe(other))),
            None => push(&mut errs, &at("metric_id"), "missing".into()),
        }
        let kind = obj.get("type").and_then(Value::as_str).unwrap_or("");
        if !KNOWN_TYPES.contains(&kind) {
            push(
                &mut errs,
                &at("type"),
                format!("unknown validation unit {}", describe(obj.get("type").unwrap_or(&Value::Null))),
            );
        }
        match obj.get("weight") {
            Some(w @ Value::Number(_)) if number(w).is_some_and(|x| x >= 0.0) => {}
            Some(other) => {
                push(&mut errs, &at("weight"), format!("expected a non-negative number, got {}", describe(other)))
            }
            None => push(&mut errs, &at("weight"), "missing".into()),
        }
        match obj.get("target_key") {
            Some(Value::String(_)) => {}
            Some(other) => push(&mut errs, &at("target_key"), format!("expected a string, got {}", describe(other))),
            None => push(&mut errs, &at("target_key"), "missing".into()),
        }
        let params = match obj.get("params") {
            Some(Value::Object(p)) => p,
            Some(other) => {
                push(&mut errs, &at("params"), format!("expected an object, got {}", describe(other)));
                continue;
            }
            None => {
                push(&mut errs, &at("params"), "missing".into());
                continue;
            }
        };
        validate_params(kind, params, &at("params"), &mut errs);
    }
    errs
}

/// The parameters a validation unit of type `kind` needs (`at` = the params' JSON path).
fn validate_params(kind: &str, params: &serde_json::Map<String, Value>, at: &str, errs: &mut Vec<(String, String)>) {
    let p = |k: &str| format!("{at}.{k}");
    let want_number = |k: &str, nonneg: bool, errs: &mut Vec<(String, String)>| match params.get(k) {
        Some(x @ Value::Number(_)) if !nonneg || number(x).is_some_and(|x| x >= 0.0) => {}
        Some(other) => errs.push((
            p(k),
            format!("expected a {}number, got {}", if nonneg { "non-negative " } else { "" }, describe(other)),
        )),
        None => errs.push((p(k), "missing".into())),
    };
    let mode_in = |allowed: &[&str], errs: &mut Vec<(String, String)>| {
        if let Some(mode) = params.get("match_mode") {
            if !mode.as_str().is_some_and(|s| allowed.contains(&s.trim().to_lowercase().as_str())) {
                errs.push((p("match_mode"), format!("expected one of {}, got {}", allowed.join(", "), describe(mode))));
            }
        }
    };
    let list_truth = |errs: &mut Vec<(String, String)>| match params.get("gt_value") {
        Some(Value::Array(_) | Value::String(_)) => {}
        Some(other) => {
            errs.push((p("gt_value"), format!("expected a list or a comma-separated string, got {}", describe(other))))
        }
        None => errs.push((p("gt_value"), "missing".into())),
    };
    let top_k = |errs: &mut Vec<(String, String)>| {
        if let Some(k) = params.get("top_k").filter(|k| !k.is_null()) {
            if k.as_u64().is_none() {
                errs.push((p("top_k"), format!("expected a non-negative integer, got {}", describe(k))));
            }
        }
    };
    match kind {
        "numeric_check" => {
            want_number("gt_value", false, errs);
            want_number("tolerance", true, errs);
        }
        "categorical_check" if !params.contains_key("gt_value") => errs.push((p("gt_value"), "missing".into())),
        "set_match_check" => {
            list_truth(errs);
            mode_in(&SET_MODES, errs);
            top_k(errs);
        }
        "sequence_match_check" => {
            list_truth(errs);
            mode_in(&SEQUENCE_MODES, errs);
            top_k(errs);
        }
        "semantic_consistency" | "safety_compliance" | "factual_qa_check" => match params.get("judge_prompt") {
            Some(Value::String(s)) if !s.trim().is_empty() => {}
            Some(other) => {
                errs.push((p("judge_prompt"), format!("expected a non-empty string, got {}", describe(other))))
            }
            None => errs.push((p("judge_prompt"), "missing (without it the judge is never asked)".into())),
        },
        "file_status_check" => {
            if let Some(c) = params.get("validator_config").filter(|c| !c.is_object()) {
                errs.push((p("validator_config"), format!("expected an object, got {}", describe(c))));
            }
        }
        _ => {}
    }
}

impl Case {
    /// Builds a case from a JSON value; every validation problem is returned, each with its JSON path.
    pub fn from_value(raw: Value, file: &Path) -> Result<Case, Vec<CaseError>> {
        let problems = validate(&raw);
        if !problems.is_empty() {
            return Err(problems
                .into_iter()
                .map(|(json_path, message)| CaseError { file: file.to_path_buf(), json_path, message })
                .collect());
        }
        let s = |ptr: &str| raw.pointer(ptr).and_then(Value::as_str).unwrap_or("").to_string();
        Ok(Case {
            path: Some(file.to_path_buf()),
            case_id: s("/meta_info/case_id"),
            bench_subset: s("/meta_info/bench_subset"),
            difficulty: raw.pointer("/meta_info/difficult").and_then(number).unwrap_or(1.0),
            instruction: s("/agent_input/instruction"),
            parser_prompt: s("/eval_config/parser_prompt"),
            metrics: raw["eval_config"]["metrics"]
                .as_array()
                .map(|m| m.iter().map(Metric::from_value).collect())
                .unwrap_or_default(),
            raw,
        })
    }

    /// Loads and validates one case file.
    pub fn load(file: &Path) -> Result<Case, Vec<CaseError>> {
        let fail = |message: String| vec![CaseError { file: file.to_path_buf(), json_path: String::new(), message }];
        let text = std::fs::read_to_string(file).map_err(|e| fail(format!("cannot read: {e}")))?;
        let raw: Value = super::json::from_str(&text).map_err(|e| fail(format!("not valid JSON: {e}")))?;
        Case::from_value(raw, file)
    }

    /// The query the target agent gets: data file, label file (each when present) and the instruction.
    pub fn query(&self) -> String {
        let input = &self.raw["agent_input"];
        let mut parts = Vec::new();
        if let Some(p) = input.get("data_path").and_then(Value::as_str).filter(|p| !p.is_empty()) {
            parts.push(format!("Load the data file: {p}"));
        }
        if let Some(p) = input.get("label_path").and_then(Value::as_str).filter(|p| !p.is_empty()) {
            parts.push(format!("Load the label file: {p}"));
        }
        parts.push(format!("Instruction:\n{}", self.instruction));
        parts.join("\n\n")
    }

    /// The task a case belongs to: its folder (`case12`), as the reference lays subsets out.
    pub fn task_folder(&self) -> String {
        self.path
            .as_deref()
            .and_then(Path::parent)
            .and_then(Path::file_name)
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_else(|| self.case_id.clone())
    }

    /// The instance id the reference runner gives this case: `<subset>-<folder>-<file stem>`.
    pub fn instance_id(&self) -> String {
        let subset = self.bench_subset.strip_prefix("NeuroBench-").unwrap_or(&self.bench_subset);
        let subset = if subset.is_empty() { "Unknown" } else { subset };
        match &self.path {
            Some(p) => {
                format!("{subset}-{}-{}", self.task_folder(), p.file_stem().unwrap_or_default().to_string_lossy())
            }
            None => format!("{subset}-{}", self.case_id),
        }
    }
}

fn digits_after(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix).is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// `case<d>_<d>.json` inside a `case<d>` folder.
pub fn is_case_file(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let folder = path.parent().and_then(Path::file_name).map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let Some(stem) = name.strip_suffix(".json") else { return false };
    let Some((a, b)) = stem.split_once('_') else { return false };
    digits_after(a, "case") && !b.is_empty() && b.bytes().all(|c| c.is_ascii_digit()) && digits_after(&folder, "case")
}

/// The case files under `root` (a case file, a subset folder, or a suite of subsets), sorted by path.
pub fn find_case_files(root: &Path) -> std::io::Result<Vec<PathBuf>> {
    super::files_under(root, is_case_file)
}

/// Cases of a file, subset or suite; a bad case is reported and skipped, never aborting the rest.
#[derive(Debug, Default)]
pub struct CaseSet {
    pub cases: Vec<Case>,
    pub problems: Vec<CaseError>,
}

pub fn load_cases(root: &Path) -> Result<CaseSet, CaseError> {
    let files = find_case_files(root).map_err(|e| CaseError {
        file: root.to_path_buf(),
        json_path: String::new(),
        message: format!("cannot list: {e}"),
    })?;
    let mut set = CaseSet::default();
    for file in files {
        match Case::load(&file) {
            Ok(case) => set.cases.push(case),
            Err(problems) => set.problems.extend(problems),
        }
    }
    Ok(set)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn error_names_json_path() {
        let case = json!({"meta_info": {"case_id": "x"}, "agent_input": {"instruction": "i"},
            "eval_config": {"metrics": [
                {"metric_id": "a", "type": "numeric_check", "target_key": "k", "weight": 50, "params": {"gt_value": 1, "tolerance": 0.5}},
                {"metric_id": "b", "type": "numeric_check", "target_key": "k", "weight": 50, "params": {"gt_value": 1, "tolerance": 0.5}},
                {"metric_id": "c", "type": "numeric_check", "target_key": "k", "weight": 50, "params": {"gt_value": 1, "tolerance": "0.5%"}}]}});
        let errs = Case::from_value(case, Path::new("case1/case1_1.json")).unwrap_err();
        assert_eq!(errs.len(), 1);
        assert_eq!(
            errs[0].to_string(),
            "case1/case1_1.json: eval_config.metrics[2].params.tolerance: expected a non-negative number, got \"0.5%\""
        );
    }

    #[test]
    fn case_file_pattern() {
        assert!(is_case_file(Path::new("cases/case12/case12_3.json")));
        assert!(!is_case_file(Path::new("cases/case12/case12_3.bak.json")));
        assert!(!is_case_file(Path::new("cases/other/case12_3.json")));
        assert!(!is_case_file(Path::new("cases/case12/validation.json")));
    }
}
