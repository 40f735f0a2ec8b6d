//! Communities: Louvain modularity maximisation exactly as bctpy's `community_louvain(W, gamma, seed=s)`
//! (Blondel et al. 2008; same node order from numpy's seeded `RandomState`, same tolerances, so the same
//! partition for the same seed), Newman's modularity Q of a partition, participation coefficient and
//! within-module degree z-score (Guimerà & Amaral 2005).

use super::rng::Mt19937;

/// Relabels a partition to 1..=k in order of first appearance of the sorted labels (numpy `unique`
/// inverse + 1).
fn relabel(ci: &[usize]) -> Vec<usize> {
    let mut uniq: Vec<usize> = ci.to_vec();
    uniq.sort_unstable();
    uniq.dedup();
    ci.iter().map(|c| uniq.binary_search(c).expect("label present") + 1).collect()
}

/// Louvain communities (labels 1..=k) and modularity Q of a non-negative undirected matrix:
/// `bct.community_louvain(W, gamma=gamma, seed=seed)`.
pub fn community_louvain(w: &[f64], n: usize, gamma: f64, seed: u32) -> (Vec<usize>, f64) {
    let mut rng = Mt19937::new(seed);
    let s: f64 = w.iter().sum();
    if s == 0.0 {
        return ((1..=n).collect(), 0.0);
    }
    let row: Vec<f64> = (0..n).map(|i| (0..n).map(|j| w[i * n + j]).sum()).collect();
    let col: Vec<f64> = (0..n).map(|j| (0..n).map(|i| w[i * n + j]).sum()).collect();
    let mut b: Vec<f64> = (0..n * n).map(|k| w[k] - gamma * row[k / n] * col[k % n] / s).collect();
    let mut ci: Vec<usize> = (1..=n).collect();
    let mut m = n;
    let mut q0 = f64::NEG_INFINITY;
    let mut q: f64 = (0..n).map(|i| b[i * n + i]).sum::<f64>() / s;
    let mut first = true;
    while q - q0 > 1e-10 {
        // Node-to-module strengths start as B itself: every node is its own module.
        let mut hnm = b.clone();
        let mut mb: Vec<usize> = (1..=m).collect();
        let mut flag = true;
        let mut it = 0;
        while flag && it < 1000 {
            it += 1;
            flag = false;
            for u in rng.permutation(m) {
                let ma = mb[u] - 1;
                let mut best = f64::NEG_INFINITY;
                let mut arg = 0;
                for k in 0..m {
                    let dq = if k == ma { 0.0 } else { hnm[u * m + k] - hnm[u * m + ma] + b[u * m + u] };
                    if dq > best {
                        best = dq;
                        arg = k;
                    }
                }
                if best > 1e-10 {
                    flag = true;
                    for x in 0..m {
                        hnm[x * m + arg] += b[x * m + u];
                        hnm[x * m + ma] -= b[x * m + u];
                    }
                    mb[u] = arg + 1;
                }
            }
        }
        let mb = relabel(&mb);
        if first {
            ci = mb.clone();
            first = false;
        } else {
            ci = ci.iter().map(|&c| mb[c - 1]).collect();
        }
        let k = *mb.iter().max().unwrap_or(&1);
        // Module-to-module sums, each cell accumulated in the order the pairs (x, y) appear.
        let mut b1 = vec![0.0; k * k];
        for x in 0..m {
            for y in 0..m {
                let (i, j) = (mb[x] - 1, mb[y] - 1);
                if i <= j {
                    b1[i * k + j] += b[x * m + y];
                }
            }
        }
        for i in 0..k {
            for j in 0..i {
                b1[i * k + j] = b1[j * k + i];
            }
        }
        b = b1;
        m = k;
        q0 = q;
        q = (0..m).map(|i| b[i * m + i]).sum::<f64>() / s;
    }
    (ci, q)
}

/// Newman's modularity of partition `ci`: Q = (1/s) Σᵢⱼ [Wᵢⱼ − γ kᵢkⱼ/s] δ(cᵢ, cⱼ) (the Q that
/// `community_louvain` reports for its partition).
pub fn modularity(w: &[f64], n: usize, ci: &[usize], gamma: f64) -> f64 {
    let s: f64 = w.iter().sum();
    if s == 0.0 {
        return 0.0;
    }
    let row: Vec<f64> = (0..n).map(|i| (0..n).map(|j| w[i * n + j]).sum()).collect();
    let col: Vec<f64> = (0..n).map(|j| (0..n).map(|i| w[i * n + j]).sum()).collect();
    let mut q = 0.0;
    for i in 0..n {
        for j in 0..n {
            if ci[i] == ci[j] {
                q += w[i * n + j] - gamma * row[i] * col[j] / s;
            }
        }
    }
    q / s
}

/// Participation coefficient: `bct.participation_coef(W, ci)` = 1 − Σₘ (kᵢₘ/kᵢ)²; 0 for isolated nodes.
pub fn participation_coef(w: &[f64], n: usize, ci: &[usize]) -> Vec<f64> {
    let ci = relabel(ci);
    let k = *ci.iter().max().unwrap_or(&1);
    (0..n)
        .map(|i| {
            let ko: f64 = (0..n).map(|j| w[i * n + j]).sum();
            if ko == 0.0 {
                return 0.0;
            }
            let mut per = vec![0.0; k + 1];
            for j in 0..n {
                if w[i * n + j] != 0.0 {
                    per[ci[j]] += w[i * n + j];
                }
            }
            1.0 - per.iter().map(|v| v * v).sum::<f64>() / (ko * ko)
        })
        .collect()
}

/// Within-module degree z-score: `bct.module_degree_zscore(W, ci)` (population standard deviation; 0
/// where a module's degrees do not vary).
pub fn module_degree_zscore(w: &[f64], n: usize, ci: &[usize]) -> Vec<f64> {
    let ci = relabel(ci);
    let mut z = vec![0.0; n];
    let k = *ci.iter().max().unwrap_or(&1);
    for m in 1..=k {
        let members: Vec<usize> = (0..n).filter(|&i| ci[i] == m).collect();
        let koi: Vec<f64> = members.iter().map(|&i| members.iter().map(|&j| w[i * n + j]).sum()).collect();
        let mean = koi.iter().sum::<f64>() / koi.len() as f64;
        let sd = (koi.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / koi.len() as f64).sqrt();
        for (&i, &v) in members.iter().zip(&koi) {
            let zi = (v - mean) / sd;
            z[i] = if zi.is_nan() { 0.0 } else { zi };
        }
    }
    z
}
