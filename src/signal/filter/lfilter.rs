//! Transfer-function filtering as scipy.signal: `lfilter` (direct form II transposed), `lfilter_zi` and
//! `filtfilt(b, a, x, method='pad')` (odd extension of 3·max(len(a), len(b)) samples).

/// `lfilter(b, a, x, zi=zi)` in place; `zi` holds max(len(a), len(b)) − 1 states and is updated.
pub fn lfilter(b: &[f64], a: &[f64], x: &mut [f64], zi: &mut [f64]) {
    let n = b.len().max(a.len());
    let a0 = a[0];
    let coef = |v: &[f64], i: usize| v.get(i).copied().unwrap_or(0.0) / a0;
    for v in x.iter_mut() {
        let xin = *v;
        let y = coef(b, 0) * xin + zi.first().copied().unwrap_or(0.0);
        for i in 1..n {
            let next = if i < n - 1 { zi[i] } else { 0.0 };
            zi[i - 1] = coef(b, i) * xin - coef(a, i) * y + next;
        }
        *v = y;
    }
}

/// `lfilter_zi(b, a)`: the state of a step response's steady state.
pub fn lfilter_zi(b: &[f64], a: &[f64]) -> Vec<f64> {
    let n = b.len().max(a.len());
    let a0 = a[0];
    let bb: Vec<f64> = (0..n).map(|i| b.get(i).copied().unwrap_or(0.0) / a0).collect();
    let aa: Vec<f64> = (0..n).map(|i| a.get(i).copied().unwrap_or(0.0) / a0).collect();
    let m = n - 1;
    if m == 0 {
        return Vec::new();
    }
    // (I − companion(a)ᵀ) zi = b[1:] − a[1:]·b[0]; companion(a)ᵀ has −a[1:] in its first column and ones
    // above the diagonal.
    let mut mat = vec![vec![0.0; m + 1]; m];
    for r in 0..m {
        mat[r][r] += 1.0;
        mat[r][0] += aa[r + 1];
        if r + 1 < m {
            mat[r][r + 1] -= 1.0;
        }
        mat[r][m] = bb[r + 1] - aa[r + 1] * bb[0];
    }
    // Gaussian elimination with partial pivoting.
    for c in 0..m {
        let piv = (c..m).max_by(|&i, &j| mat[i][c].abs().total_cmp(&mat[j][c].abs())).unwrap_or(c);
        mat.swap(c, piv);
        let d = mat[c][c];
        for r in 0..m {
            if r != c && mat[r][c] != 0.0 {
                let f = mat[r][c] / d;
                for k in c..=m {
                    mat[r][k] -= f * mat[c][k];
                }
            }
        }
    }
    (0..m).map(|r| mat[r][m] / mat[r][r]).collect()
}

/// `filtfilt(b, a, x)` with scipy's default odd padding of 3·max(len(a), len(b)) samples.
pub fn filtfilt(b: &[f64], a: &[f64], x: &[f64]) -> Vec<f64> {
    let n = x.len();
    if n == 0 {
        return Vec::new();
    }
    let edge = (3 * b.len().max(a.len())).min(n - 1);
    let mut ext = Vec::with_capacity(n + 2 * edge);
    ext.extend((1..=edge).rev().map(|i| 2.0 * x[0] - x[i]));
    ext.extend_from_slice(x);
    ext.extend((1..=edge).map(|i| 2.0 * x[n - 1] - x[n - 1 - i]));
    let zi = lfilter_zi(b, a);
    let mut z: Vec<f64> = zi.iter().map(|v| v * ext[0]).collect();
    lfilter(b, a, &mut ext, &mut z);
    ext.reverse();
    let mut z: Vec<f64> = zi.iter().map(|v| v * ext[0]).collect();
    lfilter(b, a, &mut ext, &mut z);
    ext.reverse();
    ext[edge..edge + n].to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moving_average_steady_state() {
        // A constant through a normalised moving average stays constant (steady-state initial conditions).
        let y = filtfilt(&[1.0; 7], &[7.0], &[2.5; 50]);
        assert!(y.iter().all(|v| (v - 2.5).abs() < 1e-12));
        // scipy.signal.lfilter_zi([1, 1, 1], [3]) = [0.6667, 0.3333].
        let zi = lfilter_zi(&[1.0, 1.0, 1.0], &[3.0]);
        assert!((zi[0] - 2.0 / 3.0).abs() < 1e-12 && (zi[1] - 1.0 / 3.0).abs() < 1e-12, "{zi:?}");
    }
}
