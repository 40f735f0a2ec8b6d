//! Communities: Louvain modularity maximisation exactly as bctpy's `community_louvain(W, gamma, seed=s)`
//! (Blondel et al. 2008; same node order from numpy's seeded `RandomState`, same tolerances, so the same
//! partition for the same seed), Newman's modularity Q of a partition, participation coefficient and
//! within-module degree z-score (Guimerà & Amaral 2005).

use crate::util::rng::Mt19937;

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

/// How often each pair of nodes shares a module across `partitions`: `bct.agreement` (diagonal 0).
pub fn agreement(partitions: &[Vec<usize>], n: usize) -> Vec<f64> {
    let mut d = vec![0.0; n * n];
    for p in partitions {
        for i in 0..n {
            for j in 0..n {
                if i != j && p[i] == p[j] {
                    d[i * n + j] += 1.0;
                }
            }
        }
    }
    d
}

/// Labels a partition 1..=k in order of each module's first node (bctpy `unique_partitions`' canonical form).
fn canonical(ci: &[usize]) -> Vec<usize> {
    let mut map: Vec<(usize, usize)> = Vec::new();
    ci.iter()
        .map(|c| match map.iter().find(|m| m.0 == *c) {
            Some(m) => m.1,
            None => {
                map.push((*c, map.len() + 1));
                map.len()
            }
        })
        .collect()
}

/// Consensus partition of an agreement matrix (fractions in [0, 1]): `bct.consensus_und(D, tau, reps)`
/// (Lancichinetti & Fortunato 2012): links below `tau` are dropped, `reps` Louvain runs partition the rest,
/// and their agreement is iterated until every run returns the same partition. bctpy partitions with
/// `modularity_louvain_und_sign`, which on these non-negative matrices optimises the same modularity as
/// `community_louvain` used here; runs are seeded `seed`, `seed + 1`, …, so results are reproducible but
/// not bctpy's random draws. Stops after 100 rounds with the most frequent partition.
pub fn consensus_und(d: &[f64], n: usize, tau: f64, reps: usize, seed: u32) -> Vec<usize> {
    let mut d = d.to_vec();
    let mut round = 0u32;
    loop {
        let mut dt: Vec<f64> = d.iter().map(|&v| if v >= tau { v } else { 0.0 }).collect();
        for i in 0..n {
            dt[i * n + i] = 0.0;
        }
        let runs: Vec<Vec<usize>> = (0..reps)
            .map(|r| canonical(&community_louvain(&dt, n, 1.0, seed.wrapping_add(round * reps as u32 + r as u32)).0))
            .collect();
        let mut unique = runs.clone();
        unique.sort();
        unique.dedup();
        if unique.len() == 1 || round >= 100 {
            let best = unique
                .iter()
                .max_by_key(|u| runs.iter().filter(|r| r == u).count())
                .cloned()
                .unwrap_or_else(|| (1..=n).collect());
            return best;
        }
        d = agreement(&runs, n).iter().map(|v| v / reps as f64).collect();
        round += 1;
    }
}

/// Consensus modules of `w`: `runs` seeded Louvain partitions, their agreement, then [`consensus_und`]
/// with τ = 0.5.
pub fn consensus_modules(w: &[f64], n: usize, gamma: f64, runs: usize, seed: u32) -> Vec<usize> {
    let parts: Vec<Vec<usize>> =
        (0..runs).map(|r| community_louvain(w, n, gamma, seed.wrapping_add(r as u32)).0).collect();
    let d: Vec<f64> = agreement(&parts, n).iter().map(|v| v / runs as f64).collect();
    consensus_und(&d, n, 0.5, runs, seed)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Two 4-cliques joined by one weak link.
    fn two_cliques() -> Vec<f64> {
        let n = 8;
        let mut w = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                if i != j && (i < 4) == (j < 4) {
                    w[i * n + j] = 1.0;
                }
            }
        }
        w[3 * n + 4] = 0.1;
        w[4 * n + 3] = 0.1;
        w
    }

    #[test]
    fn consensus_finds_the_two_cliques() {
        let w = two_cliques();
        let ci = consensus_modules(&w, 8, 1.0, 20, 1);
        assert_eq!(ci, vec![1, 1, 1, 1, 2, 2, 2, 2]);
        let q = modularity(&w, 8, &ci, 1.0);
        assert!(q > 0.45, "Q = {q}");
        let d = agreement(&[vec![1, 1, 2], vec![1, 2, 2]], 3);
        assert_eq!(d, vec![0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0]);
    }
}
