//! `file_status_check`: where a reported artifact path may point (workspace confinement) and what the file
//! must hold (EEG signal fields, image non-empty + optional vision judge).

use super::{Metric, ScoreContext, judge::judge_value_score};
use crate::bench::canonical::number;
use crate::bench::error::{BenchError, Result};
use crate::bench::signal_file::SignalFile;
use serde_json::{Map, Value, json};
use std::path::{Component, Path, PathBuf};

/// A reported artifact resolved to a file on disk.
#[derive(Debug, Clone)]
pub struct ArtifactFile {
    pub path: PathBuf,
}

/// Resolves a reported path. `Ok(None)`: not a path (not a non-empty string). `Err`: a confinement violation
/// (strict mode: an absolute path other than `/workspace/…`, an escape by `..`, a symbolic link on the way).
pub fn resolve_artifact(value: &Value, ctx: &ScoreContext) -> Result<Option<ArtifactFile>, BenchError> {
    let Some(raw) = value.as_str().map(str::trim).filter(|s| !s.is_empty()) else { return Ok(None) };
    let raw = raw.replace('\\', "/");
    let root = match &ctx.workspace {
        Some(w) => w.canonicalize().unwrap_or_else(|_| w.clone()),
        None => std::env::current_dir().unwrap_or_default(),
    };
    let relative = if let Some(rest) = raw.strip_prefix("/workspace/") {
        rest.to_string()
    } else if raw == "/workspace" {
        String::new()
    } else if Path::new(&raw).is_absolute() {
        if ctx.strict {
            return Err(format!("artifact path is absolute and outside /workspace: {raw}").into());
        }
        return Ok(Some(ArtifactFile { path: PathBuf::from(raw) }));
    } else {
        raw.clone()
    };
    let mut path = root.clone();
    let mut depth = 0usize;
    for part in Path::new(&relative).components() {
        match part {
            Component::Normal(name) => {
                path.push(name);
                depth += 1;
                if ctx.strict && path.symlink_metadata().is_ok_and(|m| m.file_type().is_symlink()) {
                    return Err(format!("artifact path passes through a symbolic link: {raw}").into());
                }
            }
            Component::ParentDir => {
                if depth == 0 {
                    if ctx.strict {
                        return Err(format!("artifact path escapes the workspace: {raw}").into());
                    }
                    path.push("..");
                } else {
                    path.pop();
                    depth -= 1;
                }
            }
            _ => {}
        }
    }
    Ok(Some(ArtifactFile { path }))
}

/// A weighted field of `validator_config`: `{"value": …, "weight": w, "tolerance": t?}`.
struct Field<'a> {
    name: &'a str,
    value: &'a Value,
    weight: f64,
    tolerance: Option<f64>,
}

fn fields(config: &Map<String, Value>) -> Vec<Field<'_>> {
    config
        .iter()
        .filter(|(name, _)| !matches!(name.as_str(), "file_name" | "vlm_prompt"))
        .filter_map(|(name, spec)| {
            let weight = number(spec.get("weight")?)?;
            (weight > 0.0).then(|| Field {
                name,
                value: spec.get("value").unwrap_or(&Value::Null),
                weight,
                tolerance: spec.get("tolerance").and_then(number),
            })
        })
        .collect()
}

pub fn file_status(
    predicted: &Value,
    metric: &Metric,
    ctx: &ScoreContext,
    evidence: &mut Map<String, Value>,
    violations: &mut Vec<String>,
) -> Result<f64, BenchError> {
    let artifact = match resolve_artifact(predicted, ctx) {
        Ok(Some(a)) => a,
        Ok(None) => return Ok(0.0),
        Err(violation) => {
            evidence.insert("violation".into(), json!(violation.to_string()));
            violations.push(violation.to_string());
            return Ok(0.0);
        }
    };
    let path = &artifact.path;
    let Some(meta) = path.metadata().ok().filter(|m| m.is_file()) else {
        evidence.insert("missing".into(), json!(path.display().to_string()));
        return Ok(0.0);
    };
    let empty_config = Map::new();
    let config = metric.param("validator_config").as_object().unwrap_or(&empty_config);
    if let Some(want) = config.get("file_name").and_then(|f| f.get("value")).and_then(Value::as_str) {
        let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
        if name != want {
            evidence.insert("file_name".into(), json!({"expected": want, "found": name}));
            return Ok(0.0);
        }
    }
    let mode = metric.param("match_mode").as_str().unwrap_or("").trim().to_lowercase();
    if mode == "image_file_match" {
        if meta.len() == 0 {
            return Ok(0.0);
        }
        let vlm = config.get("vlm_prompt");
        let weight = vlm.and_then(|v| v.get("weight")).and_then(number).unwrap_or(0.0);
        if weight <= 0.0 {
            return Ok(1.0);
        }
        let prompt = vlm.and_then(|v| v.get("value").or_else(|| v.get("prompt"))).and_then(Value::as_str);
        return match (ctx.vlm_judge, prompt) {
            (Some(judge), Some(prompt)) => judge
                .judge_image(path, prompt)
                .map(|answer| judge_value_score(&answer))
                .map_err(|e| format!("vision judge failed: {e}").into()),
            _ => Ok(0.0),
        };
    }
    let fields = fields(config);
    if fields.is_empty() {
        return Ok(f64::from(meta.len() > 0));
    }
    let signal = SignalFile::load(path)?;
    let (mut passed, mut total) = (0.0, 0.0);
    let mut checks = Map::new();
    for field in &fields {
        let (ok, found) = check_field(&signal, field)?;
        checks.insert(field.name.to_string(), json!({"expected": field.value, "found": found, "passed": ok}));
        total += field.weight;
        if ok {
            passed += field.weight;
        }
    }
    evidence.insert("fields".into(), Value::Object(checks));
    Ok(passed / total)
}

fn within(found: f64, want: &Value, tol: f64) -> bool {
    number(want).is_some_and(|w| (found - w).abs() <= tol)
}

/// One field: whether it passed and what the file holds.
fn check_field(s: &SignalFile, f: &Field) -> Result<(bool, Value), BenchError> {
    Ok(match f.name {
        "channel_count" => (within(s.channel_count() as f64, f.value, 0.0), json!(s.channel_count())),
        "npy_shape" => {
            let want: Option<Vec<usize>> =
                f.value.as_array().map(|a| a.iter().filter_map(|v| v.as_u64().map(|u| u as usize)).collect());
            (want.as_deref() == Some(&s.shape[..]), json!(s.shape))
        }
        "signal_rms" => {
            let rms = s.rms();
            let tol = f.tolerance.unwrap_or_else(|| 0.1 * number(f.value).unwrap_or(0.0).abs());
            (within(rms, f.value, tol), json!(rms))
        }
        "duration_sec" => match s.duration_s() {
            Some(d) => (within(d, f.value, f.tolerance.unwrap_or(1e-6)), json!(d)),
            None => (false, Value::Null),
        },
        "sfreq_hz" => match s.sfreq {
            Some(r) => (within(r, f.value, f.tolerance.unwrap_or(1e-6)), json!(r)),
            None => (false, Value::Null),
        },
        "channel_names" => {
            let want: Option<Vec<&str>> = f.value.as_array().map(|a| a.iter().filter_map(Value::as_str).collect());
            match &s.names {
                Some(names) => {
                    (want.is_some_and(|w| w == names.iter().map(String::as_str).collect::<Vec<_>>()), json!(names))
                }
                None => (false, Value::Null),
            }
        }
        "reference_mode" => {
            let ratio = s.common_mode_ratio();
            let tol = f.tolerance.unwrap_or(1e-3);
            let is_average = f.value.as_str().is_some_and(|v| v.trim().eq_ignore_ascii_case("average"));
            (is_average && ratio.is_some_and(|r| r <= tol), json!(ratio))
        }
        "bandpass_hz" => {
            let want: Option<Vec<f64>> = f.value.as_array().map(|a| a.iter().filter_map(number).collect());
            let tol = f.tolerance.unwrap_or(1e-6);
            match (s.bandpass, want.as_deref()) {
                (Some((lo, hi)), Some([wlo, whi])) => {
                    ((lo - wlo).abs() <= tol && (hi - whi).abs() <= tol, json!([lo, hi]))
                }
                (found, _) => (false, json!(found.map(|(l, h)| [l, h]))),
            }
        }
        other => return Err(format!("unknown validator_config field {other:?}").into()),
    })
}
