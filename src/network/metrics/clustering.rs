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

/// Weighted clustering coefficient per node: `bct.clustering_coef_wu(W)`; 0 where a node closes no triangle.
pub fn clustering_coef_wu(w: &[f64], n: usize) -> Vec<f64> {
    let cyc3 = cycles3(w, n);
    (0..n)
        .map(|i| {
            let k = (0..n).filter(|&j| w[i * n + j] != 0.0).count() as f64;
            if cyc3[i] == 0.0 { 0.0 } else { cyc3[i] / (k * (k - 1.0)) }
        })
        .collect()
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
    let cyc3: f64 = cycles3(w, n).iter().sum();
    let kk: f64 = (0..n)
        .map(|i| {
            let k = (0..n).filter(|&j| w[i * n + j] != 0.0).count() as f64;
            k * (k - 1.0)
        })
        .sum();
    cyc3 / kk
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
