//! Thresholding and weight conversion, as bctpy 0.6.1 defines them (`threshold_proportional`,
//! `threshold_absolute`, `weight_conversion`).

/// How negative weights of a signed (correlation) matrix are treated before thresholding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Negatives {
    /// Keep them (bctpy's behaviour: proportional thresholding ranks by signed value, so they go last).
    Keep,
    /// Set them to zero (positive-only networks, the usual choice for weighted metrics).
    #[default]
    Zero,
    /// Use absolute values (strong anticorrelations count as strong connections).
    Absolute,
}

/// Applies the chosen treatment of negative weights.
pub fn apply_negatives(w: &[f64], how: Negatives) -> Vec<f64> {
    match how {
        Negatives::Keep => w.to_vec(),
        Negatives::Zero => w.iter().map(|&v| v.max(0.0)).collect(),
        Negatives::Absolute => w.iter().map(|v| v.abs()).collect(),
    }
}

/// Round half up, as bctpy's `teachers_round`.
fn teachers_round(x: f64) -> usize {
    if x > 0.0 && x.rem_euclid(1.0) >= 0.5 { x.ceil() as usize } else { x.floor().max(0.0) as usize }
}

/// Keeps the strongest `p` (0..=1) of the n² − n off-diagonal links, as `bct.threshold_proportional(W, p)`:
/// diagonal cleared; for a symmetric matrix the upper triangle is ranked and mirrored; links ranked by signed
/// weight, descending. Ties are ordered like numpy's stable argsort reversed (later entries first); bctpy's
/// default quicksort can order exact ties differently.
pub fn proportional(w: &[f64], n: usize, p: f64) -> Vec<f64> {
    let mut out = w.to_vec();
    for i in 0..n {
        out[i * n + i] = 0.0;
    }
    let symmetric =
        (0..n).all(|i| (0..n).all(|j| (out[i * n + j] - out[j * n + i]).abs() <= 1e-8 + 1e-5 * out[j * n + i].abs()));
    let ud = if symmetric { 2.0 } else { 1.0 };
    if symmetric {
        for i in 0..n {
            for j in 0..=i {
                out[i * n + j] = 0.0;
            }
        }
    }
    let mut links: Vec<usize> = (0..n * n).filter(|&k| out[k] != 0.0).collect();
    links.sort_by(|&a, &b| out[a].total_cmp(&out[b]));
    links.reverse();
    let keep = teachers_round((n * n - n) as f64 * p / ud);
    for &k in links.iter().skip(keep) {
        out[k] = 0.0;
    }
    if symmetric {
        for i in 0..n {
            for j in 0..i {
                out[i * n + j] = out[j * n + i];
            }
        }
    }
    out
}

/// Zeroes the diagonal and every weight below `thr`, as `bct.threshold_absolute(W, thr)`.
pub fn absolute(w: &[f64], n: usize, thr: f64) -> Vec<f64> {
    let mut out: Vec<f64> = w.iter().map(|&v| if v < thr { 0.0 } else { v }).collect();
    for i in 0..n {
        out[i * n + i] = 0.0;
    }
    out
}

/// 1 where a link exists, as `weight_conversion(W, 'binarize')`.
pub fn binarize(w: &[f64]) -> Vec<f64> {
    w.iter().map(|&v| if v != 0.0 { 1.0 } else { 0.0 }).collect()
}

/// W / max|W|, as `weight_conversion(W, 'normalize')`; an all-zero matrix stays zero.
pub fn normalize(w: &[f64]) -> Vec<f64> {
    let m = w.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    if m == 0.0 { w.to_vec() } else { w.iter().map(|v| v / m).collect() }
}

/// Connection lengths 1/w for links (0 stays 0, meaning no link), as `weight_conversion(W, 'lengths')`.
pub fn lengths(w: &[f64]) -> Vec<f64> {
    w.iter().map(|&v| if v != 0.0 { 1.0 / v } else { 0.0 }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proportional_keeps_the_strongest_links() {
        // 4 nodes, 6 undirected links; 50 % keeps round(12 · 0.5 / 2) = 3.
        let w = vec![
            0.0, 0.9, 0.1, 0.5, //
            0.9, 0.0, 0.3, 0.2, //
            0.1, 0.3, 0.0, 0.8, //
            0.5, 0.2, 0.8, 0.0,
        ];
        let t = proportional(&w, 4, 0.5);
        let kept: Vec<f64> = (0..4)
            .flat_map(|i| (i + 1..4).map(move |j| (i, j)))
            .map(|(i, j)| t[i * 4 + j])
            .filter(|v| *v != 0.0)
            .collect();
        assert_eq!(kept, vec![0.9, 0.5, 0.8]);
        assert_eq!(t[3 * 4 + 2], 0.8, "mirrored");
        assert_eq!(teachers_round(2.5), 3);
        assert_eq!(teachers_round(2.4), 2);
    }
}
