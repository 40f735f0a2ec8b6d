//! BrainBench case files: discovery (`case<d>/case<d>_<d>.json`), loading and validation with errors that
//! name the file and the JSON path.

use super::canonical::{int_coerced, number};
use super::scoring::Metric;
use crate::util::parallel as par;
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
    /// Odd but usable content, scored as the reference scores it (`bench validate --strict` refuses these).
    pub warnings: Vec<CaseError>,
    /// The case file as read; null for cases loaded by [`load_cases_for_scoring`] (which also leave the
    /// parser prompt empty).
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

/// The `errors` category of a case's warnings in a result file.
pub const WARNING_CATEGORY: &str = "case_warning";

type Problems = Vec<(String, String)>;

/// `v[section][key]` (a JSON pointer without parsing one: this runs for every case of a suite).
fn field<'a>(v: &'a Value, section: &str, key: &str) -> Option<&'a Value> {
    v.get(section)?.get(key)
}

fn push(errs: &mut Problems, path: &str, msg: String) {
    errs.push((path.to_string(), msg));
}

/// What the reference runner itself cannot run: not an object, a section that is not an object, no non-empty
/// `eval_config.metrics` list, no `agent_input.instruction`. Only these refuse a case.
pub fn refusals(v: &Value) -> Problems {
    let mut errs = Problems::new();
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
    if let Some(input) = root.get("agent_input").and_then(Value::as_object) {
        if !input.contains_key("instruction") {
            push(&mut errs, "agent_input.instruction", "missing".into());
        }
    }
    if let Some(eval) = root.get("eval_config").and_then(Value::as_object) {
        match eval.get("metrics") {
            Some(Value::Array(m)) if !m.is_empty() => {}
            Some(Value::Array(_)) => {
                push(&mut errs, "eval_config.metrics", "empty (a case needs at least one metric)".into())
            }
            None => push(&mut errs, "eval_config.metrics", "missing".into()),
            Some(other) => push(&mut errs, "eval_config.metrics", format!("expected a list, got {}", describe(other))),
        }
    }
    errs
}

/// Every problem of a case value (empty = valid): the refusals, then everything odd that the reference still
/// scores, each message saying how it is scored. `bench validate --strict` and the suite generator refuse all.
pub fn validate(v: &Value) -> Problems {
    let mut errs = refusals(v);
    errs.extend(warnings(v));
    errs
}

/// Everything odd in a case that the reference still scores, each message saying how it is scored.
fn warnings(v: &Value) -> Problems {
    let mut errs = Problems::new();
    if let Some(d) = field(v, "meta_info", "difficult").filter(|d| !d.is_null()) {
        match number(d).filter(|_| d.is_number()) {
            Some(x) if x > 0.0 => {}
            Some(x) if x < 0.0 => {
                push(&mut errs, "meta_info.difficult", format!("negative ({x}): weighs the summary negatively"))
            }
            Some(_) => push(&mut errs, "meta_info.difficult", "0: counted as 1".into()),
            None => push(
                &mut errs,
                "meta_info.difficult",
                match number(d) {
                    Some(x) => format!("a number written as {}: read as {x}", describe(d)),
                    None => format!("not a number ({}): counted as 1", describe(d)),
                },
            ),
        }
    }
    if let Some(other) = field(v, "agent_input", "instruction").filter(|i| !i.is_string()) {
        push(&mut errs, "agent_input.instruction", format!("expected a string, got {}: used as text", describe(other)));
    }
    let Some(metrics) = field(v, "eval_config", "metrics").and_then(Value::as_array) else { return errs };
    let mut ids = std::collections::HashSet::new();
    for (i, m) in metrics.iter().enumerate() {
        let at = |k: &str| format!("eval_config.metrics[{i}]{}{k}", if k.is_empty() { "" } else { "." });
        let Some(obj) = m.as_object() else {
            push(
                &mut errs,
                &at(""),
                format!("expected an object, got {}: skipped, as the reference skips it", describe(m)),
            );
            continue;
        };
        let id = super::scoring::id_of(obj.get("metric_id").unwrap_or(&Value::Null));
        match obj.get("metric_id") {
            Some(Value::String(_)) => {}
            None | Some(Value::Null) => {
                push(&mut errs, &at("metric_id"), "missing: scored as \"unknown_metric\"".into())
            }
            Some(other) => push(
                &mut errs,
                &at("metric_id"),
                format!("expected a string, got {}: scored as {id:?}", describe(other)),
            ),
        }
        if !ids.insert(id.clone()) {
            push(
                &mut errs,
                &at("metric_id"),
                format!("duplicate id {id:?}: both count in the total, the later one's details are kept"),
            );
        }
        let kind = obj.get("type").and_then(Value::as_str).unwrap_or("");
        if !KNOWN_TYPES.contains(&kind) {
            let t = describe(obj.get("type").unwrap_or(&Value::Null));
            push(&mut errs, &at("type"), format!("unknown validation unit {t}: scores 0 with an error"));
        }
        match obj.get("weight") {
            Some(w @ Value::Number(_)) if number(w).is_some_and(|x| x >= 0.0) => {}
            Some(w @ Value::Number(_)) => {
                push(&mut errs, &at("weight"), format!("negative ({w}): subtracts from the total"))
            }
            Some(w) => push(
                &mut errs,
                &at("weight"),
                match number(w) {
                    Some(x) => format!("a number written as {}: read as {x}", describe(w)),
                    None => format!("not a number ({}): weight 0", describe(w)),
                },
            ),
            None => push(&mut errs, &at("weight"), "missing: weight 0".into()),
        }
        match obj.get("target_key") {
            Some(Value::String(_)) => {}
            Some(other) => {
                push(&mut errs, &at("target_key"), format!("expected a string, got {}: reads nothing", describe(other)))
            }
            None => push(&mut errs, &at("target_key"), "missing: reads nothing".into()),
        }
        match obj.get("params") {
            Some(Value::Object(p)) => validate_params(kind, p, &at("params"), &mut errs),
            Some(other) => push(
                &mut errs,
                &at("params"),
                format!("expected an object, got {}: read as no parameters", describe(other)),
            ),
            None => push(&mut errs, &at("params"), "missing: read as no parameters".into()),
        }
    }
    errs
}

/// The parameters of a validation unit of type `kind` that are missing or odd, and how each is scored
/// (`at` = the params' JSON path).
fn validate_params(kind: &str, params: &serde_json::Map<String, Value>, at: &str, errs: &mut Problems) {
    let p = |k: &str| format!("{at}.{k}");
    // A number the rules read with float(): a JSON number is fine; a numeric string is read; anything else fails.
    let number_param = |k: &str, absent: &str, errs: &mut Problems| match params.get(k) {
        Some(Value::Number(_)) => {}
        Some(x) => errs.push((
            p(k),
            match number(x) {
                Some(v) => format!("a number written as {}: read as {v}", describe(x)),
                None => format!("not a number ({}): scores 0", describe(x)),
            },
        )),
        None => errs.push((p(k), absent.to_string())),
    };
    let mode_in = |allowed: &[&str], errs: &mut Problems| {
        if let Some(mode) = params.get("match_mode") {
            if !mode.as_str().is_some_and(|s| allowed.contains(&s.to_lowercase().as_str())) {
                errs.push((
                    p("match_mode"),
                    format!("expected one of {}, got {}: scores 0 with an error", allowed.join(", "), describe(mode)),
                ));
            }
        }
    };
    let list_truth = |errs: &mut Problems| match params.get("gt_value") {
        Some(Value::Array(_) | Value::String(_)) => {}
        Some(other) => errs.push((
            p("gt_value"),
            format!("expected a list or a comma-separated string, got {}: scores 0", describe(other)),
        )),
        None => errs.push((p("gt_value"), "missing: scores 0".into())),
    };
    let int_param = |k: &str, fallback: &str, errs: &mut Problems| {
        let Some(v) = params.get(k) else { return };
        match int_coerced(v) {
            _ if v.is_i64() || v.is_u64() => {}
            Some(n) => errs.push((p(k), format!("not an integer ({}): read as {n}", describe(v)))),
            None => errs.push((p(k), format!("not an integer ({}): {fallback}", describe(v)))),
        }
    };
    let top_k_at_least = |floor: i64, meaning: &str, errs: &mut Problems| {
        if let Some(k) = params.get("top_k").and_then(int_coerced).filter(|k| *k < floor) {
            errs.push((p("top_k"), format!("{k}: {meaning}")));
        }
    };
    match kind {
        "numeric_check" => {
            number_param("gt_value", "missing: scores 0", errs);
            number_param("tolerance", "missing: exact equality", errs);
            if let Some(t) = params.get("tolerance").and_then(number).filter(|t| *t < 0.0) {
                errs.push((p("tolerance"), format!("negative ({t}): scores 0")));
            }
        }
        "categorical_check" if !params.contains_key("gt_value") => {
            errs.push((p("gt_value"), "missing: compared as None".into()))
        }
        "set_match_check" => {
            list_truth(errs);
            mode_in(&SET_MODES, errs);
            int_param("top_k", "ignored (every prediction kept)", errs);
            top_k_at_least(1, "keeps every prediction", errs);
            if let Some(x) = params.get("score_per_hit").filter(|x| !x.is_number()) {
                errs.push((
                    p("score_per_hit"),
                    match number(x) {
                        Some(v) => format!("a number written as {}: read as {v}", describe(x)),
                        None => format!("not a number ({}): per_hit_fraction scores 0 with an error", describe(x)),
                    },
                ));
            }
        }
        "sequence_match_check" => {
            list_truth(errs);
            mode_in(&SEQUENCE_MODES, errs);
            int_param("top_k", "the truth's length", errs);
            top_k_at_least(1, "read as 1", errs);
            int_param("min_overlap", "read as 1", errs);
            int_param("allow_order_slip", "read as 0", errs);
            if params.get("allow_order_slip").and_then(int_coerced) == Some(-1) {
                errs.push((p("allow_order_slip"), "-1: divides by zero, scores 0 with an error".into()));
            }
            if let Some(w) = params.get("position_weights") {
                if !w.as_array().is_some_and(|items| items.iter().all(Value::is_number)) {
                    errs.push((
                        p("position_weights"),
                        format!("expected a list of numbers, got {}: 1/(i+1) is used when it is not one for the truth's length", describe(w)),
                    ));
                }
            }
        }
        "semantic_consistency" | "safety_compliance" | "factual_qa_check" => match params.get("judge_prompt") {
            Some(Value::String(s)) if !s.trim().is_empty() => {}
            Some(other) => errs.push((
                p("judge_prompt"),
                format!("expected a non-empty string, got {}: never judged, scores 0", describe(other)),
            )),
            None => errs.push((p("judge_prompt"), "missing: never judged, scores 0".into())),
        },
        "file_status_check" => {
            if let Some(c) = params.get("validator_config").filter(|c| !c.is_object()) {
                errs.push((p("validator_config"), format!("expected an object, got {}: ignored", describe(c))));
            }
        }
        _ => {}
    }
}

impl Case {
    /// Builds a case from a JSON value. Only what the reference cannot run is refused (every refusal with its
    /// JSON path); everything odd it still scores is kept in `warnings`, each naming the file and JSON path.
    pub fn from_value(raw: Value, file: &Path) -> Result<Case, Vec<CaseError>> {
        Case::build(raw, file, false)
    }

    /// As [`Case::from_value`]; `scoring_only` keeps only what scoring needs (no `raw` or parser prompt; the
    /// instruction, for the claims check), taking the metrics out of the JSON instead of copying them.
    fn build(mut raw: Value, file: &Path, scoring_only: bool) -> Result<Case, Vec<CaseError>> {
        let at = |(json_path, message): (String, String)| CaseError { file: file.to_path_buf(), json_path, message };
        let refused = refusals(&raw);
        if !refused.is_empty() {
            return Err(refused.into_iter().map(at).collect());
        }
        let warnings = warnings(&raw).into_iter().map(at).collect();
        let s = |section: &str, key: &str| field(&raw, section, key).and_then(Value::as_str).unwrap_or("").to_string();
        let (case_id, bench_subset) = (s("meta_info", "case_id"), s("meta_info", "bench_subset"));
        // float(difficult or 1.0), as the reference's summary reads it.
        let difficulty = field(&raw, "meta_info", "difficult").and_then(number).filter(|d| *d != 0.0).unwrap_or(1.0);
        // The instruction stays (a few hundred bytes): rescoring checks a report's claims against it.
        let instruction = match &raw["agent_input"]["instruction"] {
            Value::String(t) => t.clone(),
            other => other.to_string(),
        };
        let parser_prompt = if scoring_only { String::new() } else { s("eval_config", "parser_prompt") };
        // Metrics that are not objects are skipped, as the reference skips them.
        let metrics = if scoring_only {
            let list = raw.get_mut("eval_config").and_then(|e| e.get_mut("metrics")).map(Value::take);
            list.and_then(|l| match l {
                Value::Array(items) => {
                    Some(items.into_iter().filter(Value::is_object).map(Metric::from_owned).collect())
                }
                _ => None,
            })
        } else {
            raw["eval_config"]["metrics"]
                .as_array()
                .map(|m| m.iter().filter(|m| m.is_object()).map(Metric::from_value).collect())
        };
        Ok(Case {
            path: Some(file.to_path_buf()),
            case_id,
            bench_subset,
            difficulty,
            instruction,
            parser_prompt,
            metrics: metrics.unwrap_or_default(),
            warnings,
            raw: if scoring_only { Value::Null } else { raw },
        })
    }

    /// Loads and validates one case file.
    pub fn load(file: &Path) -> Result<Case, Vec<CaseError>> {
        Case::load_as(file, false)
    }

    fn load_as(file: &Path, scoring_only: bool) -> Result<Case, Vec<CaseError>> {
        let fail = |message: String| vec![CaseError { file: file.to_path_buf(), json_path: String::new(), message }];
        let raw: Value = CASE_BUFFER.with_borrow_mut(|buf| -> Result<Value, Vec<CaseError>> {
            let text = read_into(file, buf).map_err(|e| fail(format!("cannot read: {e}")))?;
            let text = std::str::from_utf8(text).map_err(|e| fail(format!("cannot read: not UTF-8: {e}")))?;
            super::json::from_str(text).map_err(|e| fail(format!("not valid JSON: {e}")))
        })?;
        Case::build(raw, file, scoring_only)
    }

    /// The warnings as instance `errors` entries: `case_warning: <file>: <json path>: <message>`.
    pub fn warning_errors(&self) -> Vec<String> {
        self.warnings.iter().map(|w| format!("{WARNING_CATEGORY}: {w}")).collect()
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
    // Names that are not UTF-8 cannot match the ASCII pattern.
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let folder = path.parent().and_then(Path::file_name).and_then(|n| n.to_str()).unwrap_or_default();
    let Some(stem) = name.strip_suffix(".json") else { return false };
    let Some((a, b)) = stem.split_once('_') else { return false };
    digits_after(a, "case") && !b.is_empty() && b.bytes().all(|c| c.is_ascii_digit()) && digits_after(&folder, "case")
}

/// The case files under `root` (a case file, a subset folder, or a suite of subsets), sorted by path.
pub fn find_case_files(root: &Path) -> std::io::Result<Vec<PathBuf>> {
    super::files_under(root, is_case_file)
}

thread_local! {
    /// One read buffer per loading thread, reused for every case file (a suite is thousands of small files).
    static CASE_BUFFER: std::cell::RefCell<Vec<u8>> = std::cell::RefCell::new(vec![0u8; 64 << 10]);
}

/// The whole of `file` in `buf` (grown when the file is larger): open and read, without asking the file's
/// size first — a read shorter than the room left is the end of a regular file.
fn read_into<'a>(file: &Path, buf: &'a mut Vec<u8>) -> std::io::Result<&'a [u8]> {
    use std::io::Read;
    let mut f = std::fs::File::open(file)?;
    let mut len = 0;
    loop {
        if len == buf.len() {
            buf.resize(buf.len() * 2, 0);
        }
        let n = match f.read(&mut buf[len..]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        len += n;
        if n == 0 || len < buf.len() {
            break;
        }
    }
    Ok(&buf[..len])
}

/// Cases of a file, subset or suite; a bad case is reported and skipped, never aborting the rest.
#[derive(Debug, Default)]
pub struct CaseSet {
    pub cases: Vec<Case>,
    pub problems: Vec<CaseError>,
}

pub fn load_cases(root: &Path) -> Result<CaseSet, CaseError> {
    load(root, false)
}

/// As [`load_cases`], but each case keeps only what scoring needs (`raw` is null, no parser prompt), which
/// keeps a 20,000-case suite in a few tens of MB.
pub fn load_cases_for_scoring(root: &Path) -> Result<CaseSet, CaseError> {
    load(root, true)
}

/// Loads the case files on every core (order kept; a thread that is done takes the next batch).
fn load(root: &Path, scoring_only: bool) -> Result<CaseSet, CaseError> {
    let files = find_case_files(root).map_err(|e| CaseError {
        file: root.to_path_buf(),
        json_path: String::new(),
        message: format!("cannot list: {e}"),
    })?;
    let loaded = par::map_collect(files.len(), par::threads(), 64, |i| Case::load_as(&files[i], scoring_only));
    let mut set = CaseSet::default();
    for result in loaded {
        match result {
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
    fn odd_content_is_a_warning_naming_the_json_path() {
        let case = json!({"meta_info": {"case_id": "x", "difficult": 0}, "agent_input": {"instruction": 5},
            "eval_config": {"metrics": [
                {"metric_id": "a", "type": "numeric_check", "target_key": "k", "weight": "50", "params": {"gt_value": 1}},
                "not a metric",
                {"metric_id": "c", "type": "numeric_check", "target_key": "k", "weight": 50, "params": {"gt_value": 1, "tolerance": "0.5%"}}]}});
        let case = Case::from_value(case, Path::new("case1/case1_1.json")).unwrap();
        let warnings: Vec<String> = case.warnings.iter().map(ToString::to_string).collect();
        assert_eq!(
            warnings,
            [
                "case1/case1_1.json: meta_info.difficult: 0: counted as 1",
                "case1/case1_1.json: agent_input.instruction: expected a string, got 5: used as text",
                "case1/case1_1.json: eval_config.metrics[0].weight: a number written as \"50\": read as 50",
                "case1/case1_1.json: eval_config.metrics[0].params.tolerance: missing: exact equality",
                "case1/case1_1.json: eval_config.metrics[1]: expected an object, got \"not a metric\": skipped, as the reference skips it",
                "case1/case1_1.json: eval_config.metrics[2].params.tolerance: not a number (\"0.5%\"): scores 0",
            ]
        );
        assert_eq!((case.metrics.len(), case.metrics[0].weight, case.difficulty), (2, 50.0, 1.0));
        assert_eq!(case.instruction, "5");
    }

    #[test]
    fn refused_only_where_the_reference_cannot_run() {
        let file = Path::new("case1/case1_1.json");
        for (case, path) in [
            (json!([1]), ""),
            (json!({"meta_info": {}, "agent_input": {}, "eval_config": {"metrics": [{}]}}), "agent_input.instruction"),
            (
                json!({"meta_info": {}, "agent_input": {"instruction": ""}, "eval_config": {"metrics": []}}),
                "eval_config.metrics",
            ),
            (
                json!({"meta_info": 1, "agent_input": {"instruction": ""}, "eval_config": {"metrics": [{}]}}),
                "meta_info",
            ),
        ] {
            let errs = Case::from_value(case, file).unwrap_err();
            assert_eq!(errs[0].json_path, path);
        }
    }

    #[test]
    fn case_file_pattern() {
        assert!(is_case_file(Path::new("cases/case12/case12_3.json")));
        assert!(!is_case_file(Path::new("cases/case12/case12_3.bak.json")));
        assert!(!is_case_file(Path::new("cases/other/case12_3.json")));
        assert!(!is_case_file(Path::new("cases/case12/validation.json")));
    }
}
