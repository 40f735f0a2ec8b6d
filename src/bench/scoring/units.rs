//! The deterministic units: numeric, categorical, set and sequence matching.

use super::Metric;
use crate::bench::canon::{canonical, clamp01, dedupe, number, tokens};
use crate::bench::error::{BenchError, Result};
use serde_json::Value;
use std::collections::HashSet;

pub fn numeric(predicted: &Value, metric: &Metric) -> Result<f64, BenchError> {
    let (Some(pred), Some(gt)) = (number(predicted), number(metric.param("gt_value"))) else {
        return Ok(0.0);
    };
    let Some(tol) = number(metric.param("tolerance")) else { return Ok(0.0) };
    Ok(if tol < 0.0 {
        0.0
    } else if tol == 0.0 {
        f64::from(pred == gt)
    } else {
        f64::from((pred - gt).abs() <= tol)
    })
}

pub fn categorical(predicted: &Value, metric: &Metric) -> f64 {
    f64::from(canonical(predicted) == canonical(metric.param("gt_value")))
}

/// `top_k` as a count; absent is `None`, anything but a non-negative integer is an error.
fn top_k(metric: &Metric) -> Result<Option<usize>, BenchError> {
    match metric.param("top_k") {
        Value::Null => Ok(None),
        v => v
            .as_u64()
            .or_else(|| v.as_f64().filter(|f| *f >= 0.0 && f.fract() == 0.0).map(|f| f as u64))
            .map(|k| Some(k as usize))
            .ok_or_else(|| format!("top_k must be a non-negative integer, got {v}").into()),
    }
}

fn mode(metric: &Metric, default: &str) -> String {
    match metric.param("match_mode") {
        Value::String(s) if !s.trim().is_empty() => s.trim().to_lowercase(),
        _ => default.to_string(),
    }
}

pub fn set_match(predicted: &Value, metric: &Metric) -> Result<f64, BenchError> {
    let mut pred = tokens(predicted);
    if let Some(k) = top_k(metric)? {
        pred.truncate(k);
    }
    let pred: HashSet<String> = pred.into_iter().collect();
    let truth: HashSet<String> = tokens(metric.param("gt_value")).into_iter().collect();
    if truth.is_empty() {
        return Ok(f64::from(pred.is_empty()));
    }
    match mode(metric, "exact").as_str() {
        "exact" => Ok(f64::from(pred == truth)),
        "per_hit_fraction" => {
            let per_hit = match metric.param("score_per_hit") {
                Value::Null => 1.0 / truth.len() as f64,
                v => number(v).ok_or_else(|| format!("score_per_hit must be a number, got {v}"))?,
            };
            Ok(clamp01(pred.intersection(&truth).count() as f64 * per_hit))
        }
        other => Err(format!("unknown set match_mode {other:?}").into()),
    }
}

pub fn sequence_match(predicted: &Value, metric: &Metric) -> Result<f64, BenchError> {
    let pred = tokens(predicted);
    let truth = tokens(metric.param("gt_value"));
    if truth.is_empty() {
        return Ok(f64::from(pred.is_empty()));
    }
    match mode(metric, "weighted_partial_order").as_str() {
        "per_hit_fraction_order" => {
            let hits = truth.iter().enumerate().filter(|(i, t)| pred.get(*i) == Some(*t)).count();
            Ok(hits as f64 / truth.len() as f64)
        }
        "exact_order" => {
            let (pred, truth) = (dedupe(pred), dedupe(truth));
            let k = top_k(metric)?.unwrap_or(truth.len());
            Ok(f64::from(pred[..k.min(pred.len())] == truth[..k.min(truth.len())]))
        }
        "weighted_partial_order" => weighted_partial_order(pred, truth, metric),
        other => Err(format!("unknown sequence match_mode {other:?}").into()),
    }
}

fn weighted_partial_order(pred: Vec<String>, truth: Vec<String>, metric: &Metric) -> Result<f64, BenchError> {
    let (mut pred, mut truth) = (dedupe(pred), dedupe(truth));
    let k = top_k(metric)?.unwrap_or(truth.len());
    pred.truncate(k);
    truth.truncate(k);
    if truth.is_empty() {
        return Ok(f64::from(pred.is_empty()));
    }
    let weights: Vec<f64> = match metric.param("position_weights") {
        Value::Null => (0..truth.len()).map(|i| 1.0 / (i as f64 + 1.0)).collect(),
        Value::Array(items) if items.len() >= truth.len() => items[..truth.len()]
            .iter()
            .map(|w| number(w).ok_or_else(|| BenchError::from(format!("position_weights holds a non-number: {w}"))))
            .collect::<Result<_, _>>()?,
        v => return Err(format!("position_weights must be a list of at least {} numbers, got {v}", truth.len()).into()),
    };
    let slip = match metric.param("allow_order_slip") {
        Value::Null => 0.0,
        v => number(v).filter(|s| *s >= 0.0).ok_or_else(|| format!("allow_order_slip must be ≥ 0, got {v}"))?,
    };
    let min_overlap = match metric.param("min_overlap") {
        Value::Null => 1.0,
        v => number(v).ok_or_else(|| format!("min_overlap must be a number, got {v}"))?,
    };
    let mut overlap = 0usize;
    let mut position = 0.0;
    for (gt_pos, item) in truth.iter().enumerate() {
        if let Some(pred_pos) = pred.iter().position(|p| p == item) {
            overlap += 1;
            let distance = (gt_pos as f64 - pred_pos as f64).abs();
            position += weights[gt_pos] * (1.0 - distance / (slip + 1.0)).max(0.0);
        }
    }
    if (overlap as f64) < min_overlap {
        return Ok(0.0);
    }
    let total: f64 = weights.iter().sum();
    if total <= 0.0 {
        return Ok(0.0);
    }
    Ok(overlap as f64 / truth.len() as f64 * (position / total))
}
