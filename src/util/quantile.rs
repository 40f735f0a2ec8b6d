//! numpy's default (linear) percentile, one home for every layer that reports quartiles, medians or cuts.

/// `numpy.percentile(v, q)` (linear interpolation) of values already sorted ascending; NaN when empty.
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    let n = sorted.len();
    if n == 0 {
        return f64::NAN;
    }
    let pos = q / 100.0 * (n - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numpys_linear_percentile() {
        // numpy.percentile([1, 2, 3, 4], [25, 50, 75]) = [1.75, 2.5, 3.25].
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!([percentile(&v, 25.0), percentile(&v, 50.0), percentile(&v, 75.0)], [1.75, 2.5, 3.25]);
        assert!(percentile(&[], 50.0).is_nan());
    }
}
