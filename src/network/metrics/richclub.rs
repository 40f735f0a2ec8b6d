//! Rich club and assortativity (bctpy `rich_club_bu`, `rich_club_wu`, `assortativity_bin`,
//! `assortativity_wei` with flag 0, undirected).

use super::degree::{degrees_und, strengths_und};

/// Binary rich-club coefficient per level: `bct.rich_club_bu(A)[0]`; entry k (0-based) is the density among
/// nodes of degree > k + 1, for k < max degree (NaN where fewer than two nodes remain).
pub fn rich_club_bu(a: &[f64], n: usize) -> Vec<f64> {
    let deg = degrees_und(a, n);
    let klevel = deg.iter().fold(0.0f64, |m, &d| m.max(d)) as usize;
    (0..klevel)
        .map(|k| {
            let keep: Vec<usize> = (0..n).filter(|&i| deg[i] > (k + 1) as f64).collect();
            let nk = keep.len() as f64;
            let ek: f64 = keep.iter().flat_map(|&i| keep.iter().map(move |&j| a[i * n + j])).sum();
            ek / (nk * (nk - 1.0))
        })
        .collect()
}

/// Weighted rich-club coefficient per level: `bct.rich_club_wu(W)`; entry k is the weight among nodes of
/// degree ≥ k + 1 over the sum of as many of the network's largest weights.
pub fn rich_club_wu(w: &[f64], n: usize) -> Vec<f64> {
    let deg: Vec<usize> = (0..n).map(|j| (0..n).filter(|&i| w[i * n + j] != 0.0).count()).collect();
    let klevel = deg.iter().copied().max().unwrap_or(0);
    let mut rank: Vec<f64> = w.to_vec();
    rank.sort_by(|a, b| b.total_cmp(a));
    (0..klevel)
        .map(|k| {
            if deg.iter().all(|&d| d >= k + 1) {
                return f64::NAN;
            }
            let keep: Vec<usize> = (0..n).filter(|&i| deg[i] >= k + 1).collect();
            let (mut wr, mut er) = (0.0, 0usize);
            for &i in &keep {
                for &j in &keep {
                    let x = w[i * n + j];
                    wr += x;
                    er += usize::from(x != 0.0);
                }
            }
            wr / rank[..er].iter().sum::<f64>()
        })
        .collect()
}

/// Newman's assortativity over link end-point values (x = source, y = target), the formula bctpy uses:
/// (⟨xy⟩ − ⟨(x + y)/2⟩²) / (⟨(x² + y²)/2⟩ − ⟨(x + y)/2⟩²).
fn newman_r(pairs: impl Iterator<Item = (f64, f64)>) -> f64 {
    let (mut t1, mut t2, mut t3, mut k) = (0.0, 0.0, 0.0, 0.0);
    for (x, y) in pairs {
        t1 += x * y;
        t2 += 0.5 * (x + y);
        t3 += 0.5 * (x * x + y * y);
        k += 1.0;
    }
    let (t1, t2, t3) = (t1 / k, (t2 / k) * (t2 / k), t3 / k);
    (t1 - t2) / (t3 - t2)
}

/// Links i < j of an undirected matrix with their end-point values.
fn undirected_pairs<'a>(a: &'a [f64], n: usize, value: &'a [f64]) -> impl Iterator<Item = (f64, f64)> + 'a {
    (0..n).flat_map(move |i| (i + 1..n).filter(move |&j| a[i * n + j] > 0.0).map(move |j| (value[i], value[j])))
}

/// Degree assortativity: `bct.assortativity_bin(A, 0)`.
pub fn assortativity_bin(a: &[f64], n: usize) -> f64 {
    newman_r(undirected_pairs(a, n, &degrees_und(a, n)))
}

/// Strength assortativity: `bct.assortativity_wei(W, 0)`.
pub fn assortativity_wei(w: &[f64], n: usize) -> f64 {
    newman_r(undirected_pairs(w, n, &strengths_und(w, n)))
}

/// Directed assortativity, out-degree (or out-strength) of the source against in-degree (in-strength) of
/// the target over every directed link: `bct.assortativity_bin(A, 1)` / `bct.assortativity_wei(W, 1)`.
pub fn assortativity_dir(w: &[f64], n: usize, weighted: bool) -> f64 {
    let val = |v: f64| if weighted { v } else { f64::from(u8::from(v != 0.0)) };
    let out: Vec<f64> = (0..n).map(|i| (0..n).map(|j| val(w[i * n + j])).sum()).collect();
    let inn: Vec<f64> = (0..n).map(|j| (0..n).map(|i| val(w[i * n + j])).sum()).collect();
    let links = (0..n).flat_map(|i| (0..n).map(move |j| (i, j))).filter(|&(i, j)| w[i * n + j] > 0.0);
    newman_r(links.map(|(i, j)| (out[i], inn[j])))
}
