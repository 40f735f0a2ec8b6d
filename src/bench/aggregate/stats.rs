//! Small statistics the aggregates use.

/// Mean pairwise absolute difference: mean over all pairs i < j of |s_i − s_j| (0 for fewer than 2 values).
/// Computed from the sorted values in O(n log n): Σ_k s_(k)·(2k − n + 1) / (n(n − 1)/2).
pub fn mpad(values: &[f64]) -> Option<f64> {
    let n = values.len();
    if n < 2 {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let sum: f64 = v.iter().enumerate().map(|(k, s)| s * (2.0 * k as f64 - n as f64 + 1.0)).sum();
    Some(sum / (n as f64 * (n as f64 - 1.0) / 2.0))
}

/// Least-squares slope of y over x (None for fewer than 2 distinct x).
pub fn slope(points: &[(f64, f64)]) -> Option<f64> {
    let n = points.len() as f64;
    if points.len() < 2 {
        return None;
    }
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

/// Pearson correlation (None when either side is constant or fewer than 2 pairs).
pub fn pearson(pairs: &[(f64, f64)]) -> Option<f64> {
    let n = pairs.len() as f64;
    if pairs.len() < 2 {
        return None;
    }
    let mx = pairs.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pairs.iter().map(|p| p.1).sum::<f64>() / n;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (x, y) in pairs {
        sxy += (x - mx) * (y - my);
        sxx += (x - mx).powi(2);
        syy += (y - my).powi(2);
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

/// Sample standard deviation (n − 1).
pub fn sample_std(values: &[f64]) -> Option<f64> {
    let n = values.len();
    if n < 2 {
        return None;
    }
    let m = values.iter().sum::<f64>() / n as f64;
    Some((values.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n as f64 - 1.0)).sqrt())
}

pub fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mpad_equals_pairwise_definition() {
        let v = [0.0, 1.0, 0.5, 0.5, 0.25];
        let mut brute = 0.0;
        let mut pairs = 0.0;
        for i in 0..v.len() {
            for j in i + 1..v.len() {
                brute += (v[i] - v[j]) as f64;
                brute -= 2.0 * ((v[i] - v[j]) as f64).min(0.0);
                pairs += 1.0;
            }
        }
        assert!((mpad(&v).unwrap() - brute / pairs).abs() < 1e-15);
        assert_eq!(mpad(&[1.0]), None);
    }

    #[test]
    fn slope_and_correlation() {
        assert_eq!(slope(&[(1.0, 2.0), (2.0, 4.0), (3.0, 6.0)]), Some(2.0));
        assert_eq!(pearson(&[(1.0, 2.0), (2.0, 4.0), (3.0, 6.5)]).map(|r| r > 0.99), Some(true));
        assert_eq!(sample_std(&[1.0, 3.0]), Some(2f64.sqrt()));
    }
}
