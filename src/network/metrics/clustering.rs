//! Clustering and transitivity (bctpy `clustering_coef_wu`, `clustering_coef_bu`, `transitivity_wu`,
//! `transitivity_bu`). Weighted versions follow Onnela et al. (2005), Phys Rev E 71:065103: the geometric
//! mean of triangle weights, for weights normalised to [0, 1].

fn cuberoot(x: f64) -> f64 {
    x.signum() * x.abs().powf(1.0 / 3.0)
}

/// Per node, the sum over closed walks i→j→k→i of the product of cube-rooted weights: diag(W^{1/3})³.
fn cycles3(w: &[f64], n: usize) -> Vec<f64> {
    let ws: Vec<f64> = w.iter().map(|&v| if v == 0.0 { 0.0 } else { cuberoot(v) }).collect();
    let nbrs: Vec<Vec<usize>> = (0..n).map(|i| (0..n).filter(|&j| ws[i * n + j] != 0.0).collect()).collect();
    (0..n)
        .map(|i| {
            let mut s = 0.0;
            for &j in &nbrs[i] {
                let wij = ws[i * n + j];
                let mut inner = 0.0;
                for &k in &nbrs[j] {
                    inner += ws[j * n + k] * ws[k * n + i];
                }
                s += wij * inner;
            }
            s
        })
        .collect()
}

/// Weighted clustering per node and weighted transitivity from one count of weighted triangles:
/// (`bct.clustering_coef_wu(W)`, `bct.transitivity_wu(W)`).
pub fn clustering_transitivity_wu(w: &[f64], n: usize) -> (Vec<f64>, f64) {
    let cyc3 = cycles3(w, n);
    let kk: Vec<f64> = (0..n)
        .map(|i| {
            let k = (0..n).filter(|&j| w[i * n + j] != 0.0).count() as f64;
            k * (k - 1.0)
        })
        .collect();
    let c = cyc3.iter().zip(&kk).map(|(&c, &k)| if c == 0.0 { 0.0 } else { c / k }).collect();
    (c, cyc3.iter().sum::<f64>() / kk.iter().sum::<f64>())
}

/// Weighted clustering coefficient per node: `bct.clustering_coef_wu(W)`; 0 where a node closes no triangle.
pub fn clustering_coef_wu(w: &[f64], n: usize) -> Vec<f64> {
    clustering_transitivity_wu(w, n).0
}

/// Binary clustering coefficient per node: `bct.clustering_coef_bu(A)`.
pub fn clustering_coef_bu(a: &[f64], n: usize) -> Vec<f64> {
    (0..n)
        .map(|u| {
            let v: Vec<usize> = (0..n).filter(|&j| a[u * n + j] != 0.0).collect();
            let k = v.len() as f64;
            if v.len() < 2 {
                return 0.0;
            }
            let s: f64 = v.iter().flat_map(|&x| v.iter().map(move |&y| (x, y))).map(|(x, y)| a[x * n + y]).sum();
            s / (k * k - k)
        })
        .collect()
}

/// Weighted transitivity: `bct.transitivity_wu(W)` = Σ cyc3 / Σ k(k − 1).
pub fn transitivity_wu(w: &[f64], n: usize) -> f64 {
    clustering_transitivity_wu(w, n).1
}

/// Binary transitivity: `bct.transitivity_bu(A)` = trace(A³) / (ΣA² − trace(A²)).
pub fn transitivity_bu(a: &[f64], n: usize) -> f64 {
    let a2: Vec<f64> = (0..n * n)
        .map(|idx| {
            let (i, j) = (idx / n, idx % n);
            (0..n).map(|k| a[i * n + k] * a[k * n + j]).sum()
        })
        .collect();
    let tri3: f64 = (0..n).map(|i| (0..n).map(|k| a2[i * n + k] * a[k * n + i]).sum::<f64>()).sum();
    let trace2: f64 = (0..n).map(|i| a2[i * n + i]).sum();
    tri3 / (a2.iter().sum::<f64>() - trace2)
}

/// The directed 3-cycle count and its normaliser (Fagiolo 2007) from a symmetrised matrix `s`
/// (cube-rooted weights or A + Aᵀ) and adjacency `a`: cyc3 = diag(S³)/2, CYC3 = K(K − 1) − 2·diag(A²)
/// with K the total (in + out) degree; K is ∞ where cyc3 = 0, as bctpy sets it.
fn directed_cycles(s: &[f64], a: &[f64], n: usize) -> (Vec<f64>, Vec<f64>) {
    let nbrs: Vec<Vec<usize>> = (0..n).map(|i| (0..n).filter(|&j| s[i * n + j] != 0.0).collect()).collect();
    let cyc3: Vec<f64> = (0..n)
        .map(|i| {
            let mut t = 0.0;
            for &j in &nbrs[i] {
                let mut inner = 0.0;
                for &k in &nbrs[j] {
                    inner += s[j * n + k] * s[k * n + i];
                }
                t += s[i * n + j] * inner;
            }
            t / 2.0
        })
        .collect();
    let norm = (0..n)
        .map(|i| {
            let k: f64 = (0..n).map(|j| a[i * n + j] + a[j * n + i]).sum();
            let k = if cyc3[i] == 0.0 { f64::INFINITY } else { k };
            let recip: f64 = (0..n).map(|j| a[i * n + j] * a[j * n + i]).sum();
            k * (k - 1.0) - 2.0 * recip
        })
        .collect();
    (cyc3, norm)
}

fn directed_inputs(w: &[f64], n: usize, binary: bool) -> (Vec<f64>, Vec<f64>) {
    let a: Vec<f64> = w.iter().map(|&v| if v != 0.0 { 1.0 } else { 0.0 }).collect();
    let s = (0..n * n)
        .map(|k| {
            let (i, j) = (k / n, k % n);
            if binary { a[k] + a[j * n + i] } else { cuberoot(w[k]) + cuberoot(w[j * n + i]) }
        })
        .collect();
    (s, a)
}

/// Weighted directed clustering per node: `bct.clustering_coef_wd(W)`.
pub fn clustering_coef_wd(w: &[f64], n: usize) -> Vec<f64> {
    let (s, a) = directed_inputs(w, n, false);
    let (cyc3, norm) = directed_cycles(&s, &a, n);
    cyc3.iter().zip(&norm).map(|(c, k)| c / k).collect()
}

/// Binary directed clustering per node: `bct.clustering_coef_bd(A)`.
pub fn clustering_coef_bd(a: &[f64], n: usize) -> Vec<f64> {
    let (s, a) = directed_inputs(a, n, true);
    let (cyc3, norm) = directed_cycles(&s, &a, n);
    cyc3.iter().zip(&norm).map(|(c, k)| c / k).collect()
}

/// Weighted directed transitivity: `bct.transitivity_wd(W)` (0 as soon as one node closes no cycle,
/// because bctpy's normaliser then holds an infinite term).
pub fn transitivity_wd(w: &[f64], n: usize) -> f64 {
    let (s, a) = directed_inputs(w, n, false);
    let (cyc3, norm) = directed_cycles(&s, &a, n);
    cyc3.iter().sum::<f64>() / norm.iter().sum::<f64>()
}

/// Binary directed transitivity: `bct.transitivity_bd(A)` (no infinite normaliser terms here).
pub fn transitivity_bd(a: &[f64], n: usize) -> f64 {
    let (s, a) = directed_inputs(a, n, true);
    let (cyc3, _) = directed_cycles(&s, &a, n);
    let norm: f64 = (0..n)
        .map(|i| {
            let k: f64 = (0..n).map(|j| a[i * n + j] + a[j * n + i]).sum();
            let recip: f64 = (0..n).map(|j| a[i * n + j] * a[j * n + i]).sum();
            k * (k - 1.0) - 2.0 * recip
        })
        .sum();
    cyc3.iter().sum::<f64>() / norm
}
