//! The deterministic units: numeric, categorical, set and sequence matching, as `../shared/BRAINBENCH.md`
//! states the reference rules. Odd parameters are scored as the reference scores them; an `Err` is a metric
//! the reference scores 0 with an error.

use super::Metric;
use crate::bench::canonical::{canonical, clamp01, dedupe, int_coerced, number, tokens};
use crate::bench::error::{BenchError, Result};
use serde_json::Value;
use std::collections::HashSet;

pub fn numeric(predicted: &Value, metric: &Metric) -> Result<f64, BenchError> {
    // An absent tolerance is 0 (exact equality); one present but not a number is missing.
    let tol = metric.params.get("tolerance").map_or(Some(0.0), number);
    let (Some(pred), Some(gt), Some(tol)) = (number(predicted), number(metric.param("gt_value")), tol) else {
        return Ok(0.0);
    };
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

/// `match_mode`: absent → `default`; a string lower-cased; anything else (null, a number) is no known mode.
fn mode(metric: &Metric, default: &str) -> Option<String> {
    match metric.params.get("match_mode") {
        None => Some(default.to_string()),
        Some(Value::String(s)) => Some(s.to_lowercase()),
        Some(_) => None,
    }
}

fn unknown_mode(kind: &str, metric: &Metric) -> BenchError {
    format!("unknown {kind} match_mode {}", metric.params.get("match_mode").unwrap_or(&Value::Null)).into()
}

pub fn set_match(predicted: &Value, metric: &Metric) -> Result<f64, BenchError> {
    let truth = metric.param("gt_value");
    let is_list = |v: &Value| matches!(v, Value::Array(_) | Value::String(_));
    if !is_list(predicted) || !is_list(truth) {
        return Ok(0.0);
    }
    let mut pred = tokens(predicted);
    // top_k keeps the first k predictions only when k > 0; 0, negative or not int-coercible keeps them all.
    if let Some(k) = int_coerced(metric.param("top_k")).filter(|k| *k > 0) {
        pred.truncate(usize::try_from(k).unwrap_or(usize::MAX));
    }
    let pred: HashSet<String> = pred.into_iter().collect();
    let truth: HashSet<String> = tokens(truth).into_iter().collect();
    match mode(metric, "exact").as_deref() {
        Some("exact") => Ok(f64::from(pred == truth)),
        Some("per_hit_fraction") => {
            if truth.is_empty() {
                return Ok(f64::from(pred.is_empty()));
            }
            let per_hit = match metric.params.get("score_per_hit") {
                None => 1.0 / truth.len() as f64,
                Some(v) => number(v).ok_or_else(|| format!("score_per_hit is not a number: {v}"))?,
            };
            Ok(clamp01(pred.intersection(&truth).count() as f64 * per_hit))
        }
        _ => Err(unknown_mode("set", metric)),
    }
}

pub fn sequence_match(predicted: &Value, metric: &Metric) -> Result<f64, BenchError> {
    let truth = metric.param("gt_value");
    if predicted.is_null() || truth.is_null() {
        return Ok(0.0);
    }
    let (pred, truth) = (tokens(predicted), tokens(truth));
    let mode = mode(metric, "weighted_partial_order");
    match mode.as_deref() {
        Some("per_hit_fraction_order") => {
            if truth.is_empty() {
                return Ok(f64::from(pred.is_empty()));
            }
            let hits = truth.iter().enumerate().filter(|(i, t)| pred.get(*i) == Some(*t)).count();
            Ok(hits as f64 / truth.len() as f64)
        }
        Some("exact_order" | "weighted_partial_order") => {
            let (mut pred, mut truth) = (dedupe(pred), dedupe(truth));
            // top_k: default |gt|, at least 1; not int-coercible → |gt|.
            let k = int_coerced(metric.param("top_k")).unwrap_or(truth.len() as i64).max(1);
            let k = usize::try_from(k).unwrap_or(usize::MAX);
            pred.truncate(k);
            truth.truncate(k);
            if mode.as_deref() == Some("exact_order") {
                return Ok(f64::from(pred == truth));
            }
            weighted_partial_order(&pred, &truth, metric)
        }
        _ => Err(unknown_mode("sequence", metric)),
    }
}

/// Both lists already deduplicated and cut to top_k.
fn weighted_partial_order(pred: &[String], truth: &[String], metric: &Metric) -> Result<f64, BenchError> {
    if truth.is_empty() {
        return Ok(f64::from(pred.is_empty()));
    }
    let n = truth.len();
    let weights: Vec<f64> = match metric.param("position_weights") {
        Value::Array(items) if items.len() >= n && items[..n].iter().all(Value::is_number) => {
            items[..n].iter().filter_map(Value::as_f64).collect()
        }
        _ => (0..n).map(|i| 1.0 / (i as f64 + 1.0)).collect(),
    };
    let min_overlap = int_coerced(metric.param("min_overlap")).unwrap_or(1);
    let slip = int_coerced(metric.param("allow_order_slip")).unwrap_or(0);
    let found: Vec<(usize, usize)> = truth
        .iter()
        .enumerate()
        .filter_map(|(gt_pos, item)| pred.iter().position(|p| p == item).map(|pred_pos| (gt_pos, pred_pos)))
        .collect();
    if (found.len() as i64) < min_overlap {
        return Ok(0.0);
    }
    // slip + 1 as Python computes it (an integer; -1 divides by zero).
    let denominator = slip as f64 + 1.0;
    let mut position = 0.0;
    for &(gt_pos, pred_pos) in &found {
        if denominator == 0.0 {
            return Err("allow_order_slip -1 divides by zero".into());
        }
        let distance = (gt_pos as f64 - pred_pos as f64).abs();
        position += weights[gt_pos] * (1.0 - distance / denominator).max(0.0);
    }
    let total: f64 = weights.iter().sum();
    if total == 0.0 {
        return Err("position weights sum to zero".into());
    }
    Ok(found.len() as f64 / n as f64 * (position / total))
}
