//! Domain tools: sleep (hypnograms), neurocognitive (events, epochs, ERPs) and physiological (ECG, EOG,
//! segment statistics, cross-channel correlation).

use super::super::state::{SharedState, columns_of};
use super::common::input_path;
use super::{Args, registered};
use crate::agent::tools::ToolError;
use crate::signal::Recording;
use crate::signal::physio::{self, ecg_clean, find_r_peaks, hrv};
use crate::signal::sleep::agreement::agreement;
use crate::signal::sleep::hypnogram::{Codes, Hypnogram};
use crate::signal::sleep::stats::sleep_statistics;
use crate::signal::view::{epochs, evoked, pearson, variance};
use serde_json::{Value, json};
use std::path::Path;

/// Loads the named column, then the file's other scoring columns (those that read as stages: not an `epoch`
/// or `subject` column), each under its own labels id; a column already loaded from the file keeps its id.
/// Measured with Qwen2.5-Coder-1.5B on the seed-11 suite: with one column loaded a call, every Sleep instance
/// of both paradigms on a two-scoring file planned `scorer_agreement(a: lab1, b: lab1)`, and none loaded the
/// second column, not even when the refusal named the exact `load_hypnogram` call (a97970c: Sleep
/// case5_1–5_3, 0 of 3 loaded it).
pub(super) fn load_hypnogram(a: &Args, st: &mut SharedState) -> Result<Value, ToolError> {
    let (given, column) = (a.s("path"), a.s("column"));
    let path = input_path(st, given)?;
    let (id, mut detail) = load_column(st, &path, given, column)?;
    let mut also = serde_json::Map::new();
    for other in columns_of(&path) {
        if other == column || st.labels_of(given, &other).is_some() {
            continue;
        }
        if let Ok((other_id, _)) = load_column(st, &path, given, &other) {
            also.insert(other_id, json!(other));
        }
    }
    if !also.is_empty() {
        detail["also_loaded"] = Value::Object(also);
    }
    Ok(registered(id, detail))
}

/// Column `column` of the hypnogram file `path` (`given` as the step named it) as a labels id: the id that
/// already holds it, or a new one.
fn load_column(st: &mut SharedState, path: &Path, given: &str, column: &str) -> Result<(String, Value), ToolError> {
    // A column that holds no stages (the 1.5B model took the `epoch` numbering column): the error names the
    // file's columns.
    let h = Hypnogram::load(path, Some(column), None, Codes::Sri).map_err(|e| {
        let header = std::fs::read_to_string(path).ok().and_then(|t| t.lines().next().map(str::to_string));
        match header {
            Some(h) if h.chars().any(char::is_alphabetic) => format!("{e} (the file's columns: {})", h.trim()),
            _ => e.to_string(),
        }
    })?;
    let detail = json!({"column": column, "epochs": h.stages.len(), "epoch_s": h.epoch_s});
    let id = match st.labels_of(given, column) {
        Some(held) => held.to_string(),
        None => st.add_labels(h, given, column),
    };
    Ok((id, detail))
}

pub(super) fn hypnogram_stats(a: &Args, st: &mut SharedState) -> Result<Value, ToolError> {
    let h = &st.labels.get(a.s("labels")).ok_or("no such labels")?.hypnogram;
    let s = sleep_statistics(h)?;
    let awakenings = s.awakenings;
    let mut v = s.to_json();
    if let Value::Object(m) = &mut v {
        m.remove("transition_counts");
        m.remove("transition_stages");
        let rem_from_onset = s.Lat_REM.zip(s.SOL).map(|(r, o)| r - o);
        m.insert("REM_latency_from_onset".into(), json!(rem_from_onset));
        m.insert("awakenings".into(), json!(awakenings));
    }
    Ok(registered(st.add_result("sleep statistics (minutes; % of TST)", v.clone()), v))
}

pub(super) fn scorer_agreement(a: &Args, st: &mut SharedState) -> Result<Value, ToolError> {
    let x = &st.labels.get(a.s("a")).ok_or("no such labels a")?.hypnogram;
    let y = &st.labels.get(a.s("b")).ok_or("no such labels b")?.hypnogram;
    let g = agreement(x, y)?;
    let v = json!({"kappa": g.kappa, "agreement_pct": 100.0 * g.accuracy, "epochs": g.epochs});
    Ok(registered(st.add_result("scorer agreement", v.clone()), v))
}

pub(super) fn read_events(a: &Args, st: &mut SharedState) -> Result<Value, ToolError> {
    let rec = st.recordings.get(a.s("recording")).ok_or("no such recording")?;
    let r = Recording::open(&input_path(st, &rec.path)?)?;
    let ev: Vec<(f64, String)> = r.annotations()?.iter().map(|x| (x.onset_s, x.text.clone())).collect();
    let mut counts = indexmap::IndexMap::<String, usize>::new();
    for (_, t) in &ev {
        *counts.entry(t.clone()).or_default() += 1;
    }
    Ok(registered(st.add_events(ev), json!({"counts": counts})))
}

pub(super) fn event_intervals(a: &Args, st: &mut SharedState) -> Result<Value, ToolError> {
    let ev = st.events.get(a.s("events")).ok_or("no such events")?;
    let prefixes = a.list("prefixes").unwrap_or_default();
    let mut on: Vec<f64> =
        ev.iter().filter(|(_, t)| prefixes.iter().any(|p| t.starts_with(p.as_str()))).map(|x| x.0).collect();
    on.sort_by(f64::total_cmp);
    if on.len() < 2 {
        return Err("fewer than two matching events".into());
    }
    let isi: Vec<f64> = on.windows(2).map(|w| 1000.0 * (w[1] - w[0])).collect();
    let v = json!({"mean_interval_ms": isi.iter().sum::<f64>() / isi.len() as f64, "events": on.len()});
    Ok(registered(st.add_result("inter-event interval", v.clone()), v))
}

pub(super) fn epoch_average(a: &Args, st: &mut SharedState) -> Result<Value, ToolError> {
    let onsets = condition_onsets(st, a)?;
    let v = st.view(a.s("view"))?;
    let (tmin, tmax) = (a.need_f("tmin")?, a.need_f("tmax")?);
    let eps = epochs(v, &onsets, tmin, tmax, true);
    if eps.is_empty() {
        return Err("no epoch fits in the view".into());
    }
    let mut e = v.clone();
    e.data = evoked(&eps);
    e.stretches = vec![0..e.n_times()];
    e.t0 = (tmin * v.sfreq).round() / v.sfreq;
    e.ops.push(format!(
        "evoked '{}' {tmin}..{tmax} s, {} epochs (time axis relative to the event)",
        a.s("condition"),
        eps.len()
    ));
    let n = eps.len();
    Ok(registered(st.add_view(e), json!({"epochs": n})))
}

pub(super) fn peak_latency(a: &Args, st: &mut SharedState) -> Result<Value, ToolError> {
    let v = st.view(a.s("view"))?;
    let (tmin, tmax) = (a.need_f("tmin")?, a.need_f("tmax")?);
    let positive = a.opt_s("polarity") == Some("positive");
    let mut per = serde_json::Map::new();
    for (l, x) in v.labels.iter().zip(&v.data) {
        let mut best: Option<(f64, f64)> = None;
        for (i, y) in x.iter().enumerate() {
            let t = v.t0 + i as f64 / v.sfreq;
            let better = |b: f64| if positive { *y > b } else { *y < b };
            if t >= tmin - 1e-9 && t <= tmax + 1e-9 && best.is_none_or(|(_, b)| better(b)) {
                best = Some((t, *y));
            }
        }
        let (t, y) = best.ok_or("the window holds no sample")?;
        per.insert(l.clone(), json!({"latency_ms": 1000.0 * t, "value": y}));
    }
    let v = json!({"per_channel": per});
    Ok(registered(
        st.add_result(&format!("{} peak {tmin}-{tmax} s", if positive { "positive" } else { "negative" }), v.clone()),
        v,
    ))
}

pub(super) fn event_power_change(a: &Args, st: &mut SharedState) -> Result<Value, ToolError> {
    let onsets = condition_onsets(st, a)?;
    let v = st.view(a.s("view"))?;
    let w = a.f("window").unwrap_or(0.5);
    let eps = epochs(v, &onsets, -w, w, false);
    let half = (w * v.sfreq).round() as usize;
    let (mut pre, mut post) = (0.0, 0.0);
    for e in &eps {
        for c in e {
            pre += c[..half].iter().map(|x| x * x).sum::<f64>() / half as f64;
            post += c[half + 1..].iter().map(|x| x * x).sum::<f64>() / (c.len() - half - 1) as f64;
        }
    }
    if eps.is_empty() || pre == 0.0 {
        return Err("no epoch fits in the view".into());
    }
    let v = json!({"change_pct": 100.0 * (post - pre) / pre, "epochs": eps.len()});
    Ok(registered(st.add_result(&format!("power change after '{}'", a.s("condition")), v.clone()), v))
}

pub(super) fn ecg_hrv(a: &Args, st: &mut SharedState) -> Result<Value, ToolError> {
    let v = st.view(a.s("view"))?;
    let clean = ecg_clean(&v.data[0], v.sfreq, 50.0)?;
    let h = hrv(&find_r_peaks(&clean, v.sfreq), v.sfreq)?;
    let r =
        json!({"beats": h.beats, "HR": h.HR, "MeanNN": h.MeanNN, "SDNN": h.SDNN, "RMSSD": h.RMSSD, "pNN50": h.pNN50});
    Ok(registered(st.add_result("heart rate variability (ms, bpm)", r.clone()), r))
}

pub(super) fn eog_activity(a: &Args, st: &mut SharedState) -> Result<Value, ToolError> {
    let v = st.view(a.s("view"))?;
    let e = physio::eog_activity(&v.data[0], v.sfreq, a.f("k").unwrap_or(4.0))?;
    let r = json!({"rms": e.rms, "events": e.events, "threshold": e.threshold});
    Ok(registered(st.add_result("EOG activity", r.clone()), r))
}

pub(super) fn segment_stats(a: &Args, st: &mut SharedState) -> Result<Value, ToolError> {
    let v = st.view(a.s("view"))?;
    let seg = a.need_f("segment_s")?;
    let n = (v.duration_s() / seg).floor() as usize;
    if n == 0 {
        return Err("the view is shorter than one segment".into());
    }
    let mut per = Vec::new();
    for k in 0..n {
        let c = v.crop(v.t0 + k as f64 * seg, v.t0 + (k + 1) as f64 * seg)?;
        per.push((format!("S{}", k + 1), variance(&c.data[0]).sqrt()));
    }
    let mut ranked = per.clone();
    ranked.sort_by(|x, y| y.1.total_cmp(&x.1));
    let r = json!({"per_channel": per.iter().map(|(k, s)| (k.clone(), json!(s))).collect::<serde_json::Map<_, _>>(),
                   "ranking": ranked.iter().map(|x| x.0.clone()).collect::<Vec<_>>()});
    Ok(registered(st.add_result(&format!("std per {seg}-s segment"), r.clone()), r))
}

pub(super) fn correlate(a: &Args, st: &mut SharedState) -> Result<Value, ToolError> {
    let v = st.view(a.s("view"))?;
    let r = st.view(a.s("reference"))?;
    if r.n_times() != v.n_times() {
        return Err("the views differ in length".into());
    }
    let vals: Vec<f64> = v.data.iter().map(|x| pearson(x, &r.data[0]).abs()).collect();
    let best = (0..vals.len()).fold(0, |b, i| if vals[i] > vals[b] { i } else { b });
    let res = json!({"per_channel": v.labels.iter().zip(&vals).map(|(l, x)| (l.clone(), json!(x))).collect::<serde_json::Map<_, _>>(),
                     "best": {"channel": v.labels[best], "abs_r": vals[best]}});
    let obs = json!({"best": res["best"].clone()});
    Ok(registered(st.add_result("|Pearson r| with the reference channel", res), obs))
}

fn condition_onsets(st: &SharedState, a: &Args) -> Result<Vec<f64>, ToolError> {
    let ev = st.events.get(a.s("events")).ok_or("no such events")?;
    let c = a.s("condition");
    let on: Vec<f64> = ev.iter().filter(|(_, t)| t.starts_with(c)).map(|x| x.0).collect();
    if on.is_empty() {
        return Err(format!("no event starts with {c:?}").into());
    }
    Ok(on)
}
