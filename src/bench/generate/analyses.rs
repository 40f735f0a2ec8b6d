//! The analyses that compute a template's reference answer, with BrainLens's own `signal` functions on the
//! suite's data files. Each takes the template's parameters and returns named answers; the conventions are
//! spelled out in the instructions of the templates that use them (`assets/bench/tasks/`), and
//! `scripts/reference/bench_suite_reference.py` recomputes them with scipy, MNE and YASA.

use crate::bench::error::{BenchError, Result};
use crate::signal::Recording;
use crate::signal::channel_stats::iqr_bounds;
use crate::signal::connectivity::{Method, connectivity};
use crate::signal::physio::{ecg_clean, eog_activity, find_r_peaks, hrv};
use crate::signal::sleep::agreement::agreement;
use crate::signal::sleep::hypnogram::{Codes, Hypnogram};
use crate::signal::sleep::stats::sleep_statistics;
use crate::signal::spectrum::{Integration, Psd, WelchParams, band_power, peak_frequency, relative_band_power};
use crate::signal::view::{Pick, View, epochs, evoked, pearson, variance, welch_2s};
use serde_json::{Map, Value, json};
use std::path::Path;

/// What an analysis sees: the data file (and label file) of the instance and the merged parameters.
pub struct Inputs<'a> {
    pub data: Option<&'a Path>,
    pub params: &'a Map<String, Value>,
}

impl Inputs<'_> {
    fn f(&self, key: &str) -> Result<f64, BenchError> {
        self.params
            .get(key)
            .and_then(Value::as_f64)
            .ok_or_else(|| format!("parameter {key:?} (a number) missing").into())
    }
    fn s(&self, key: &str) -> Result<&str, BenchError> {
        self.params
            .get(key)
            .and_then(Value::as_str)
            .ok_or_else(|| format!("parameter {key:?} (a string) missing").into())
    }
    fn strings(&self, key: &str) -> Result<Vec<String>, BenchError> {
        self.params
            .get(key)
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
            .ok_or_else(|| format!("parameter {key:?} (a list of strings) missing").into())
    }
    /// The template's own bands, `[[name, lo, hi], …]`: a task states its edges in its text (the app's
    /// default table is `signal::bands`).
    fn bands(&self) -> Result<Vec<(String, f64, f64)>, BenchError> {
        let bad = || BenchError::from("parameter \"bands\" (a list of [name, lo, hi]) missing or malformed");
        let list = self.params.get("bands").and_then(Value::as_array).ok_or_else(bad)?;
        list.iter()
            .map(|b| match b.as_array().map(Vec::as_slice) {
                Some([n, lo, hi]) => Some((n.as_str()?.to_string(), lo.as_f64()?, hi.as_f64()?)),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()
            .filter(|v| !v.is_empty())
            .ok_or_else(bad)
    }
    fn data(&self) -> Result<&Path, BenchError> {
        self.data.ok_or_else(|| BenchError::from("this analysis needs a data file"))
    }
    fn eeg(&self) -> Result<View, BenchError> {
        Ok(View::load(self.data()?, Pick::Kind("eeg"))?)
    }
    fn channel(&self, label: &str) -> Result<View, BenchError> {
        Ok(View::load(self.data()?, Pick::Labels(&[label.to_string()]))?)
    }
}

fn trapz(p: &Psd, lo: f64, hi: f64) -> Result<f64, BenchError> {
    Ok(band_power(p, lo, hi, Integration::Trapezoid)?)
}

/// Runs the analysis `name`.
pub fn run(name: &str, inp: &Inputs) -> Result<Map<String, Value>, BenchError> {
    let v = match name {
        "none" => json!({}),
        "band_relative" => band_relative(inp)?,
        "dominant_band" => {
            let v = inp.channel(inp.s("channel")?)?;
            let p = welch_2s(&v.data[0], v.sfreq)?;
            let bands = inp.bands()?;
            let powers: Vec<f64> = bands.iter().map(|(_, lo, hi)| trapz(&p, *lo, *hi)).collect::<Result<_, _>>()?;
            json!({"band": bands[argmax(&powers)].0})
        }
        "peak_frequency" => {
            let v = inp.channel(inp.s("channel")?)?;
            let p = welch_2s(&v.data[0], v.sfreq)?;
            json!({"freq": peak_frequency(&p, inp.f("lo")?, inp.f("hi")?).ok_or("empty range")?})
        }
        "variance_ranking" => {
            let v = inp.eeg()?;
            let k = inp.f("top_k")? as usize;
            let vars: Vec<f64> = v.data.iter().map(|x| variance(x)).collect();
            json!({"ranking": ranked(&v.labels, &vars).into_iter().take(k).collect::<Vec<_>>()})
        }
        "iqr_outliers" => {
            let v = inp.eeg()?;
            let vars: Vec<f64> = v.data.iter().map(|x| variance(x)).collect();
            let (lo, hi) = iqr_bounds(&vars);
            json!({"count": vars.iter().filter(|x| **x < lo || **x > hi).count()})
        }
        "iqr_alpha_set" => {
            let v = inp.eeg()?;
            let vars: Vec<f64> = v.data.iter().map(|x| variance(x)).collect();
            let (lo, hi) = iqr_bounds(&vars);
            let kept: Vec<String> =
                v.labels.iter().zip(&vars).filter(|(_, x)| **x >= lo && **x <= hi).map(|(l, _)| l.clone()).collect();
            let rel = relative_powers(&v.select(&kept)?, inp)?;
            let mean = rel.iter().sum::<f64>() / rel.len() as f64;
            let above: Vec<&String> = kept.iter().zip(&rel).filter(|(_, r)| **r > mean).map(|(l, _)| l).collect();
            json!({"channels": above, "excluded": v.labels.len() - kept.len()})
        }
        "plv_dominant_band" => {
            let v = inp.eeg()?.select(&inp.strings("channels")?)?;
            let mut means = Vec::new();
            let bands = inp.bands()?;
            for (_, lo, hi) in &bands {
                let m = connectivity(&v.data, v.sfreq, Method::Plv, Some((*lo, *hi)), &WelchParams::default())?;
                let n = v.labels.len();
                let pairs: Vec<f64> =
                    (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))).map(|(i, j)| m[i * n + j]).collect();
                means.push(pairs.iter().sum::<f64>() / pairs.len() as f64);
            }
            json!({"band": bands[argmax(&means)].0, "mean_plv": means})
        }
        "eeg_shape" => {
            let v = inp.eeg()?;
            json!({"channel_count": v.labels.len(), "sfreq": v.sfreq, "n_times": v.n_times()})
        }
        "sleep_stat" => sleep_stat(inp)?,
        "scorer_agreement" => {
            let (a, b) = (hypnogram(inp, "reference")?, hypnogram(inp, "device")?);
            let ag = agreement(&a, &b)?;
            json!({"kappa": ag.kappa, "accuracy_pct": 100.0 * ag.accuracy})
        }
        "event_count" => {
            let events = events(inp.data()?)?;
            let want = inp.s("condition")?;
            json!({"count": events.iter().filter(|(_, t)| t == want).count()})
        }
        "isi_mean" => {
            let onsets: Vec<f64> =
                events(inp.data()?)?.into_iter().filter(|(_, t)| is_stimulus(t)).map(|(o, _)| o).collect();
            let isi: Vec<f64> = onsets.windows(2).map(|w| 1000.0 * (w[1] - w[0])).collect();
            json!({"isi_ms": isi.iter().sum::<f64>() / isi.len() as f64})
        }
        "erp_peak_latency" => erp_peak_latency(inp)?,
        "alpha_change" => alpha_change(inp)?,
        "ecg_hrv" => {
            let v = View::load(inp.data()?, Pick::Kind("ecg"))?;
            let clean = ecg_clean(&v.data[0], v.sfreq, 50.0)?;
            let h = hrv(&find_r_peaks(&clean, v.sfreq), v.sfreq)?;
            json!({"hr_bpm": h.HR, "rmssd_ms": h.RMSSD, "beats": h.beats})
        }
        "eog_segment_ranking" => {
            let v = View::load(inp.data()?, Pick::Kind("eog"))?;
            let seg = inp.f("segment_s")?;
            let n = (v.duration_s() / seg).floor() as usize;
            let sds: Vec<f64> = (0..n)
                .map(|k| Ok(variance(&v.crop(k as f64 * seg, (k + 1) as f64 * seg)?.data[0]).sqrt()))
                .collect::<Result<_, BenchError>>()?;
            let names: Vec<String> = (1..=n).map(|k| format!("S{k}")).collect();
            json!({"ranking": ranked(&names, &sds)})
        }
        "eog_events" => {
            let v = View::load(inp.data()?, Pick::Kind("eog"))?;
            json!({"events": eog_activity(&v.data[0], v.sfreq, inp.f("k")?)?.events})
        }
        "eeg_eog_correlation" => {
            let eog = View::load(inp.data()?, Pick::Kind("eog"))?;
            let eeg = inp.eeg()?;
            let r: Vec<f64> = eeg.data.iter().map(|x| pearson(x, &eog.data[0]).abs()).collect();
            let best = argmax(&r);
            json!({"channel": eeg.labels[best], "abs_r": r[best]})
        }
        other => return Err(format!("unknown analysis {other:?}").into()),
    };
    Ok(v.as_object().cloned().unwrap_or_default())
}

fn argmax(v: &[f64]) -> usize {
    (0..v.len()).fold(0, |b, i| if v[i] > v[b] { i } else { b })
}

/// Labels sorted by value, largest first (ties keep the original order).
fn ranked(labels: &[String], values: &[f64]) -> Vec<String> {
    let mut idx: Vec<usize> = (0..labels.len()).collect();
    idx.sort_by(|&a, &b| values[b].total_cmp(&values[a]));
    idx.into_iter().map(|i| labels[i].clone()).collect()
}

/// Band-pass (FIR, `l_freq`–`h_freq`), Welch 2 s, band power ÷ total power (trapezoid), per channel, in %.
fn relative_powers(v: &View, inp: &Inputs) -> Result<Vec<f64>, BenchError> {
    let f = v.filter(Some(inp.f("l_freq")?), Some(inp.f("h_freq")?))?;
    f.data
        .iter()
        .map(|x| {
            let p = welch_2s(x, f.sfreq)?;
            let (band, total) = ((inp.f("band_lo")?, inp.f("band_hi")?), (inp.f("total_lo")?, inp.f("total_hi")?));
            Ok(100.0 * relative_band_power(&p, band, total, Integration::Trapezoid)?)
        })
        .collect()
}

fn band_relative(inp: &Inputs) -> Result<Value, BenchError> {
    let rel = relative_powers(&inp.eeg()?, inp)?;
    Ok(json!({"mean_pct": rel.iter().sum::<f64>() / rel.len() as f64}))
}

/// One scoring column of the instance's hypnogram CSV (SRI codes).
fn hypnogram(inp: &Inputs, column: &str) -> Result<Hypnogram, BenchError> {
    Ok(Hypnogram::load(inp.data()?, Some(column), None, Codes::Sri)?)
}

fn sleep_stat(inp: &Inputs) -> Result<Value, BenchError> {
    let s = sleep_statistics(&hypnogram(inp, "reference")?)?;
    let need =
        |v: Option<f64>, what: &str| v.ok_or_else(|| BenchError::from(format!("{what} is undefined for this night")));
    Ok(match inp.s("stat")? {
        "TST" => json!({"value": s.TST}),
        "SE" => json!({"value": s.SE}),
        "REM_latency" => json!({"value": need(s.Lat_REM, "REM latency")? - need(s.SOL, "sleep onset")?}),
        "stage_pct" => json!({"deep_pct": need(s.pct_N3, "%N3")?, "rem_pct": need(s.pct_REM, "%REM")?}),
        "WASO" => json!({"waso_min": need(s.WASO, "WASO")?, "awakenings": s.awakenings}),
        "dominant_stage" => {
            let minutes = [("LIGHT", s.N1 + s.N2), ("DEEP", s.N3), ("REM", s.REM)];
            let best = argmax(&minutes.iter().map(|m| m.1).collect::<Vec<_>>());
            json!({"stage": minutes[best].0})
        }
        o => return Err(format!("unknown sleep statistic {o:?}").into()),
    })
}

/// (onset s, text) of every annotation.
fn events(path: &Path) -> Result<Vec<(f64, String)>, BenchError> {
    let rec = Recording::open(path)?;
    Ok(rec.annotations()?.iter().map(|a| (a.onset_s, a.text.clone())).collect())
}

fn is_stimulus(text: &str) -> bool {
    text.starts_with("auditory/") || text.starts_with("visual/")
}

fn onsets_with_prefix(path: &Path, prefix: &str) -> Result<Vec<f64>, BenchError> {
    Ok(events(path)?.into_iter().filter(|(_, t)| t.starts_with(prefix)).map(|(o, _)| o).collect())
}

fn erp_peak_latency(inp: &Inputs) -> Result<Value, BenchError> {
    let v = inp.channel(inp.s("channel")?)?.filter(Some(1.0), Some(30.0))?;
    let onsets = onsets_with_prefix(inp.data()?, inp.s("condition")?)?;
    let (tmin, tmax) = (-0.1, 0.3);
    let eps = epochs(&v, &onsets, tmin, tmax, true);
    if eps.is_empty() {
        return Err("no epoch fits in the recording".into());
    }
    let avg = &evoked(&eps)[0];
    let a = (tmin * v.sfreq).round();
    let (lo, hi) = (inp.f("win_lo")?, inp.f("win_hi")?);
    let mut best: Option<(f64, f64)> = None;
    for (i, y) in avg.iter().enumerate() {
        let t = (a + i as f64) / v.sfreq;
        if t >= lo - 1e-9 && t <= hi + 1e-9 && best.is_none_or(|(_, b)| *y < b) {
            best = Some((t, *y));
        }
    }
    let (t, _) = best.ok_or("the search window holds no sample")?;
    Ok(json!({"latency_ms": 1000.0 * t, "epochs": eps.len()}))
}

/// Alpha (8–13 Hz FIR band-pass) power after each stimulus (0–0.5 s) relative to before it (−0.5–0 s), in %
/// change of the condition's mean power, averaged over the view's channels.
fn alpha_change(inp: &Inputs) -> Result<Value, BenchError> {
    let v = inp.eeg()?.select(&inp.strings("channels")?)?.filter(Some(8.0), Some(13.0))?;
    let mut out = Map::new();
    let mut changes = Vec::new();
    for cond in ["visual", "auditory"] {
        let onsets = onsets_with_prefix(inp.data()?, cond)?;
        let eps = epochs(&v, &onsets, -0.5, 0.5, false);
        let half = (0.5 * v.sfreq).round() as usize;
        let (mut pre, mut post) = (0.0, 0.0);
        for e in &eps {
            for c in e {
                pre += c[..half].iter().map(|x| x * x).sum::<f64>() / half as f64;
                post += c[half + 1..].iter().map(|x| x * x).sum::<f64>() / (c.len() - half - 1) as f64;
            }
        }
        let change = 100.0 * (post - pre) / pre;
        out.insert(format!("{cond}_change_pct"), json!(change));
        changes.push(change);
    }
    out.insert("larger_decrease".into(), json!(if changes[0] < changes[1] { "VISUAL" } else { "AUDITORY" }));
    Ok(Value::Object(out))
}
