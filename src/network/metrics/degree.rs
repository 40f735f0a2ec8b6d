//! Degree, strength and density (bctpy `degrees_und`, `strengths_und`, `density_und`).

/// Number of links of each node: `bct.degrees_und(W)`.
pub fn degrees_und(w: &[f64], n: usize) -> Vec<f64> {
    (0..n).map(|j| (0..n).filter(|&i| w[i * n + j] != 0.0).count() as f64).collect()
}

/// Sum of link weights of each node: `bct.strengths_und(W)` (column sums).
pub fn strengths_und(w: &[f64], n: usize) -> Vec<f64> {
    (0..n).map(|j| (0..n).map(|i| w[i * n + j]).sum()).collect()
}

/// Fraction of possible undirected links present: `bct.density_und(W)[0]` = k / ((n² − n) / 2), with k the
/// non-zero entries of the upper triangle.
pub fn density_und(w: &[f64], n: usize) -> f64 {
    let k = (0..n).flat_map(|i| (i..n).map(move |j| (i, j))).filter(|&(i, j)| w[i * n + j] != 0.0).count();
    k as f64 / ((n * n - n) as f64 / 2.0)
}

/// Total (in + out) degree: `bct.degrees_dir(W)[2]`.
pub fn degrees_dir(w: &[f64], n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| {
            (0..n).filter(|&j| w[j * n + i] != 0.0).count() as f64
                + (0..n).filter(|&j| w[i * n + j] != 0.0).count() as f64
        })
        .collect()
}

/// Total (in + out) strength: `bct.strengths_dir(W)` summed (in-strength + out-strength).
pub fn strengths_dir(w: &[f64], n: usize) -> Vec<f64> {
    (0..n).map(|i| (0..n).map(|j| w[j * n + i]).sum::<f64>() + (0..n).map(|j| w[i * n + j]).sum::<f64>()).collect()
}

/// Fraction of possible directed links present: `bct.density_dir(W)[0]` = k / (n² − n).
pub fn density_dir(w: &[f64], n: usize) -> f64 {
    w.iter().filter(|&&v| v != 0.0).count() as f64 / (n * n - n) as f64
}
