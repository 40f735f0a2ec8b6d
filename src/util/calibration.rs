//! Probability calibration and how it is measured, as scikit-learn defines them: Platt's sigmoid
//! (`CalibratedClassifierCV(method="sigmoid")`: `P = 1 / (1 + exp(a·s + b))` fitted to Platt's smoothed
//! targets) and isotonic regression (`method="isotonic"`: the pool-adjacent-violators fit, linear
//! interpolation between its points, clipped outside them); the area under the ROC curve (ties counted half,
//! `roc_auc_score`), the Brier score (`brier_score_loss`) and the expected calibration error over ten
//! equal-width bins of P(positive) (`calibration_curve(strategy="uniform")`, each bin weighted by its share).

use serde::{Deserialize, Serialize};

/// Which calibration to fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    Sigmoid,
    Isotonic,
}

impl Method {
    pub fn parse(s: &str) -> Result<Method, String> {
        match s {
            "sigmoid" | "platt" => Ok(Method::Sigmoid),
            "isotonic" => Ok(Method::Isotonic),
            other => Err(format!("unknown calibration '{other}': use sigmoid (Platt) or isotonic")),
        }
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            Method::Sigmoid => "sigmoid",
            Method::Isotonic => "isotonic",
        }
    }
}

/// A fitted map from a classifier's score to P(positive).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "method", rename_all = "lowercase")]
pub enum Calibrator {
    /// `P = 1 / (1 + exp(a·s + b))`.
    Sigmoid { a: f64, b: f64 },
    /// Increasing points `(x, y)`; `P` interpolated between them, the end values outside.
    Isotonic { x: Vec<f64>, y: Vec<f64> },
}

impl Calibrator {
    /// Fits `method` to scores `s` and outcomes `y` (true: positive). Needs both outcomes.
    pub fn fit(method: Method, s: &[f64], y: &[bool]) -> Result<Calibrator, String> {
        let positives = y.iter().filter(|v| **v).count();
        if s.len() != y.len() || positives == 0 || positives == y.len() {
            return Err(format!(
                "calibration needs scores of both outcomes ({} scores, {positives} positive of {})",
                s.len(),
                y.len()
            ));
        }
        if let Some(v) = s.iter().find(|v| !v.is_finite()) {
            return Err(format!("calibration needs finite scores, not {v}"));
        }
        Ok(match method {
            Method::Sigmoid => {
                let (a, b) = platt(s, y);
                Calibrator::Sigmoid { a, b }
            }
            Method::Isotonic => {
                let (x, y) = isotonic(s, y);
                Calibrator::Isotonic { x, y }
            }
        })
    }

    pub fn method(&self) -> Method {
        match self {
            Calibrator::Sigmoid { .. } => Method::Sigmoid,
            Calibrator::Isotonic { .. } => Method::Isotonic,
        }
    }

    /// P(positive) for score `s`.
    pub fn apply(&self, s: f64) -> f64 {
        match self {
            Calibrator::Sigmoid { a, b } => sigmoid(-(a * s + b)),
            Calibrator::Isotonic { x, y } => interpolate(x, y, s),
        }
    }

    /// True when the calibrator's numbers can be used (finite, points increasing and matched).
    pub fn is_valid(&self) -> bool {
        match self {
            Calibrator::Sigmoid { a, b } => a.is_finite() && b.is_finite(),
            Calibrator::Isotonic { x, y } => {
                !x.is_empty()
                    && x.len() == y.len()
                    && x.iter().chain(y).all(|v| v.is_finite())
                    && x.windows(2).all(|w| w[0] < w[1])
                    && y.windows(2).all(|w| w[0] <= w[1])
            }
        }
    }
}

fn sigmoid(u: f64) -> f64 {
    if u >= 0.0 { 1.0 / (1.0 + (-u).exp()) } else { u.exp() / (1.0 + u.exp()) }
}

/// Platt's fit: `(a, b)` minimising the log-loss of `σ(−(a·s + b))` against the targets
/// `(N₊ + 1)/(N₊ + 2)` and `1/(N₋ + 2)`, by Newton's method (the problem is convex in `(a, b)`).
fn platt(s: &[f64], y: &[bool]) -> (f64, f64) {
    let n1 = y.iter().filter(|v| **v).count() as f64;
    let n0 = y.len() as f64 - n1;
    let t: Vec<f64> = y.iter().map(|&v| if v { (n1 + 1.0) / (n1 + 2.0) } else { 1.0 / (n0 + 2.0) }).collect();
    // In u = −(a·s + b) the model is σ(u); fit (α, β) = (−a, −b) for u = α·s + β.
    let loss = |al: f64, be: f64| -> f64 {
        s.iter()
            .zip(&t)
            .map(|(&x, &ti)| {
                let u = al * x + be;
                let softplus = if u > 0.0 { u + (-u).exp().ln_1p() } else { u.exp().ln_1p() };
                softplus - ti * u
            })
            .sum()
    };
    let (mut al, mut be) = (0.0, ((n1 + 1.0) / (n0 + 1.0)).ln());
    let mut f = loss(al, be);
    for _ in 0..200 {
        let (mut g0, mut g1, mut h00, mut h01, mut h11) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for (&x, &ti) in s.iter().zip(&t) {
            let p = sigmoid(al * x + be);
            let (r, d) = (p - ti, p * (1.0 - p));
            g0 += r * x;
            g1 += r;
            h00 += d * x * x;
            h01 += d * x;
            h11 += d;
        }
        if g0.abs().max(g1.abs()) <= 1e-12 * s.len() as f64 {
            break;
        }
        let det = h00 * h11 - h01 * h01;
        if det.abs() < f64::MIN_POSITIVE {
            break;
        }
        let (d0, d1) = ((h11 * g0 - h01 * g1) / det, (h00 * g1 - h01 * g0) / det);
        let mut step = 1.0;
        let mut moved = false;
        for _ in 0..50 {
            let (a2, b2) = (al - step * d0, be - step * d1);
            let f2 = loss(a2, b2);
            if f2 <= f {
                (al, be, f, moved) = (a2, b2, f2, true);
                break;
            }
            step *= 0.5;
        }
        if !moved {
            break;
        }
    }
    (-al, -be)
}

/// The increasing step fit of `y` on `s` (pool adjacent violators; equal scores pooled first), as points.
fn isotonic(s: &[f64], y: &[bool]) -> (Vec<f64>, Vec<f64>) {
    let mut order: Vec<usize> = (0..s.len()).collect();
    order.sort_by(|&i, &j| s[i].total_cmp(&s[j]));
    // Blocks of (x, mean y, weight): equal x pooled, then violators merged.
    let mut blocks: Vec<(f64, f64, f64)> = Vec::new();
    for &i in &order {
        let v = if y[i] { 1.0 } else { 0.0 };
        match blocks.last_mut() {
            Some(last) if last.0 == s[i] => {
                last.1 = (last.1 * last.2 + v) / (last.2 + 1.0);
                last.2 += 1.0;
            }
            _ => blocks.push((s[i], v, 1.0)),
        }
    }
    let xs: Vec<f64> = blocks.iter().map(|b| b.0).collect();
    // Pools of (mean, weight, how many x-blocks).
    let mut pools: Vec<(f64, f64, usize)> = Vec::new();
    for &(_, m, w) in &blocks {
        pools.push((m, w, 1));
        while pools.len() > 1 && pools[pools.len() - 2].0 > pools[pools.len() - 1].0 {
            let (m2, w2, k2) = pools.pop().unwrap_or_default();
            let last = pools.last_mut().expect("two pools");
            last.0 = (last.0 * last.1 + m2 * w2) / (last.1 + w2);
            last.1 += w2;
            last.2 += k2;
        }
    }
    let ys: Vec<f64> = pools.iter().flat_map(|&(m, _, k)| std::iter::repeat_n(m, k)).collect();
    (xs, ys)
}

/// `np.interp(s, x, y)`: linear between points, the end values outside.
fn interpolate(x: &[f64], y: &[f64], s: f64) -> f64 {
    if x.is_empty() {
        return f64::NAN;
    }
    if s <= x[0] {
        return y[0];
    }
    if s >= x[x.len() - 1] {
        return y[y.len() - 1];
    }
    let j = x.partition_point(|&v| v <= s);
    let (x0, x1, y0, y1) = (x[j - 1], x[j], y[j - 1], y[j]);
    y0 + (y1 - y0) * (s - x0) / (x1 - x0)
}

/// Area under the ROC curve of scores `p` for outcomes `y`: the share of (positive, negative) pairs the
/// positive scores higher, ties counted half. None without both outcomes.
pub fn auroc(p: &[f64], y: &[bool]) -> Option<f64> {
    let n1 = y.iter().filter(|v| **v).count();
    let n0 = y.len() - n1;
    if n1 == 0 || n0 == 0 {
        return None;
    }
    // Mid-ranks of the scores (ties share their mean rank).
    let mut order: Vec<usize> = (0..p.len()).collect();
    order.sort_by(|&i, &j| p[i].total_cmp(&p[j]));
    let mut rank = vec![0.0; p.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && p[order[j + 1]] == p[order[i]] {
            j += 1;
        }
        let mid = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            rank[k] = mid;
        }
        i = j + 1;
    }
    let positive_ranks: f64 = (0..p.len()).filter(|&k| y[k]).map(|k| rank[k]).sum();
    Some((positive_ranks - (n1 * (n1 + 1)) as f64 / 2.0) / (n1 * n0) as f64)
}

/// Mean squared difference between P(positive) and the outcome. None for no samples.
pub fn brier(p: &[f64], y: &[bool]) -> Option<f64> {
    (!p.is_empty())
        .then(|| p.iter().zip(y).map(|(&q, &v)| (q - if v { 1.0 } else { 0.0 }).powi(2)).sum::<f64>() / p.len() as f64)
}

/// One bin of a reliability diagram.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bin {
    /// The bin's range of P(positive): (lower, upper] (the first one closed).
    pub lower: f64,
    pub upper: f64,
    pub samples: usize,
    /// Mean predicted P(positive) and the observed share of positives in the bin.
    pub mean_predicted: f64,
    pub observed: f64,
}

/// The non-empty bins of `bins` equal-width bins of P(positive) over [0, 1].
pub fn reliability(p: &[f64], y: &[bool], bins: usize) -> Vec<Bin> {
    let bins = bins.max(1);
    let step = 1.0 / bins as f64;
    let mut acc = vec![(0usize, 0.0, 0.0); bins];
    for (&q, &v) in p.iter().zip(y) {
        // As calibration_curve: edges k · (1 / bins) (numpy's linspace), a value on an edge in the bin below.
        let b = (1..bins).filter(|&k| k as f64 * step < q).count();
        acc[b].0 += 1;
        acc[b].1 += q;
        acc[b].2 += if v { 1.0 } else { 0.0 };
    }
    acc.iter()
        .enumerate()
        .filter(|(_, a)| a.0 > 0)
        .map(|(b, &(n, sp, sy))| Bin {
            lower: b as f64 * step,
            upper: (b + 1) as f64 * step,
            samples: n,
            mean_predicted: sp / n as f64,
            observed: sy / n as f64,
        })
        .collect()
}

/// Expected calibration error over `bins` equal-width bins: Σ (bin share) · |observed − mean predicted|.
pub fn ece(p: &[f64], y: &[bool], bins: usize) -> Option<f64> {
    (!p.is_empty()).then(|| {
        reliability(p, y, bins)
            .iter()
            .map(|b| b.samples as f64 / p.len() as f64 * (b.observed - b.mean_predicted).abs())
            .sum()
    })
}

/// The ECE a perfectly calibrated P would show on the same subjects: each subject's outcome drawn from its own
/// P (`y ~ Bernoulli(P)`, numpy's `RandomState(seed).random_sample((draws, n)) < P`), the ECE of each draw —
/// the consistency resampling of Bröcker & Smith (2007). On a few dozen subjects an ECE of 0.1 is what a
/// calibrated model shows, not evidence against it; this says how large.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EceIfCalibrated {
    pub draws: usize,
    /// Median and 90th percentile of the drawn ECEs (numpy's `median`, `percentile(…, 90)`, linear).
    pub median: f64,
    pub p90: f64,
    /// Share of draws at or above the observed ECE: small when the P is worse calibrated than chance explains.
    pub at_least_observed: f64,
}

/// `EceIfCalibrated` of `p` against the `observed` ECE over `bins` bins; None without subjects or draws.
pub fn ece_if_calibrated(p: &[f64], observed: f64, bins: usize, draws: usize, seed: u32) -> Option<EceIfCalibrated> {
    if p.is_empty() || draws == 0 {
        return None;
    }
    let mut rng = crate::util::rng::Mt19937::new(seed);
    let mut e: Vec<f64> = (0..draws)
        .map(|_| {
            let y: Vec<bool> = p.iter().map(|&pi| rng.random_sample() < pi).collect();
            ece(p, &y, bins).unwrap_or(0.0)
        })
        .collect();
    e.sort_by(f64::total_cmp);
    Some(EceIfCalibrated {
        draws,
        median: crate::util::quantile::percentile(&e, 50.0),
        p90: crate::util::quantile::percentile(&e, 90.0),
        at_least_observed: e.iter().filter(|&&x| x >= observed - 1e-12).count() as f64 / draws as f64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auroc_counts_ties_half_and_needs_both_outcomes() {
        // Pairs (pos, neg): (0.8, 0.1) right, (0.8, 0.8) half, (0.4, 0.1) right, (0.4, 0.8) wrong: 2.5 / 4.
        let p = [0.1, 0.8, 0.8, 0.4];
        let y = [false, false, true, true];
        assert_eq!(auroc(&p, &y), Some(0.625));
        assert_eq!(auroc(&[0.2, 0.3], &[true, true]), None);
    }

    #[test]
    fn the_ece_of_a_calibrated_p_matches_numpy_resampling() {
        // Expected: numpy 2.x in the reference venv — p = 0.05 + 0.9·arange(30)/29,
        // u = RandomState(0).random_sample((200, 30)), the ECE of each row's outcomes u < p binned as
        // sklearn's calibration_curve (searchsorted on the inner edges); median, percentile 90 and the share
        // ≥ 0.15. Same generator, same draws: equal to 1e-12.
        let p: Vec<f64> = (0..30).map(|i| 0.05 + 0.9 * i as f64 / 29.0).collect();
        let r = ece_if_calibrated(&p, 0.15, 10, 200, 0).unwrap();
        assert!((r.median - 0.17660919540229883).abs() < 1e-12, "{r:?}");
        assert!((r.p90 - 0.23849425287356316).abs() < 1e-12, "{r:?}");
        assert_eq!((r.at_least_observed, r.draws), (0.745, 200));
        assert!(ece_if_calibrated(&[], 0.1, 10, 200, 0).is_none());
    }

    #[test]
    fn brier_and_ece_on_a_hand_computed_case() {
        let p = [0.05, 0.15, 0.95, 0.85];
        let y = [false, true, true, true];
        // Brier: (0.0025 + 0.7225 + 0.0025 + 0.0225) / 4.
        assert!((brier(&p, &y).unwrap() - 0.1875).abs() < 1e-15);
        // Bins [0, .1): 0.05 vs 0; [.1, .2): 0.15 vs 1; [.8, .9): 0.85 vs 1; [.9, 1]: 0.95 vs 1 — each a quarter.
        let want = (0.05 + 0.85 + 0.15 + 0.05) / 4.0;
        assert!((ece(&p, &y, 10).unwrap() - want).abs() < 1e-15);
        assert_eq!(reliability(&[1.0], &[true], 10)[0].lower, 0.9, "P = 1 is in the last bin");
        assert_eq!(reliability(&[0.3], &[true], 10)[0].lower, 0.2, "a value on an edge is in the bin below");
        assert_eq!(reliability(&[0.0], &[true], 10)[0].lower, 0.0);
    }

    #[test]
    fn platt_is_at_its_optimum_and_isotonic_is_increasing() {
        let s: Vec<f64> = (0..40).map(|i| (i as f64 - 20.0) / 5.0).collect();
        let y: Vec<bool> = (0..40).map(|i| (i * 7919) % 40 < i).collect();
        let Calibrator::Sigmoid { a, b } = Calibrator::fit(Method::Sigmoid, &s, &y).unwrap() else { panic!() };
        // The gradient of the smoothed log-loss is zero at (a, b).
        let n1 = y.iter().filter(|v| **v).count() as f64;
        let n0 = 40.0 - n1;
        let (mut g0, mut g1) = (0.0, 0.0);
        for (&x, &v) in s.iter().zip(&y) {
            let t = if v { (n1 + 1.0) / (n1 + 2.0) } else { 1.0 / (n0 + 2.0) };
            let p = 1.0 / (1.0 + (a * x + b).exp());
            g0 += (p - t) * x;
            g1 += p - t;
        }
        assert!(g0.abs() < 1e-9 && g1.abs() < 1e-9, "{g0} {g1}");
        assert!(a < 0.0, "higher scores, likelier positive");
        let iso = Calibrator::fit(Method::Isotonic, &s, &y).unwrap();
        let fitted: Vec<f64> = s.iter().map(|&x| iso.apply(x)).collect();
        assert!(fitted.windows(2).all(|w| w[0] <= w[1]));
        assert!(iso.is_valid());
        // The fit's mean equals the outcomes' mean (PAV preserves sums).
        assert!((fitted.iter().sum::<f64>() - n1).abs() < 1e-9);
        assert!(Calibrator::fit(Method::Sigmoid, &s, &[true; 40]).is_err());
    }
}
