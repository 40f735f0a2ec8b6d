//! Local efficiency (bctpy `efficiency_wei(W, local=True)`, `efficiency_bin(A, local=True)`): the
//! efficiency of each node's neighbourhood without the node. The weighted form is Wang et al. (2016)'s,
//! with cube-rooted weights and lengths, as bctpy ≥ 0.5 computes it.

use super::paths::{adjacency, dijkstra};

fn cuberoot(x: f64) -> f64 {
    x.signum() * x.abs().powf(1.0 / 3.0)
}

/// Inverse shortest-path lengths among `nodes` with lengths `len(a, b)` (0 = no link), as bctpy's inner
/// `distance_inv_wei`: 0 on the diagonal and for unreachable pairs.
fn inverse_distances(k: usize, len: impl Fn(usize, usize) -> f64) -> Vec<f64> {
    let l: Vec<f64> = (0..k * k).map(|x| len(x / k, x % k)).collect();
    let adj = adjacency(&l, k);
    let mut e = vec![0.0; k * k];
    let (mut dist, mut done) = (vec![0.0; k], vec![false; k]);
    for s in 0..k {
        dijkstra(&adj, s, &mut dist, &mut done, |_| {}, |_, _, _, _| {});
        for t in 0..k {
            if t != s && dist[t].is_finite() {
                e[s * k + t] = 1.0 / dist[t];
            }
        }
    }
    e
}

/// bctpy's local-efficiency ratio for one node: Σ swₐ sw_b (eₐb + e_bₐ) / 2 over the neighbourhood, divided
/// by (Σ sa)² − Σ sa² (sa = links to and from the node); 0 when the numerator is 0.
fn neighbourhood_efficiency(sw: &[f64], sa: &[f64], e: &[f64]) -> f64 {
    let k = sw.len();
    let mut numer = 0.0;
    for a in 0..k {
        for b in 0..k {
            numer += sw[a] * sw[b] * (e[a * k + b] + e[b * k + a]);
        }
    }
    numer /= 2.0;
    if numer == 0.0 {
        return 0.0;
    }
    let total: f64 = sa.iter().sum();
    numer / (total * total - sa.iter().map(|x| x * x).sum::<f64>())
}

/// Evaluates `f` for every node, nodes split over the available cores.
fn per_node(n: usize, f: impl Fn(usize) -> f64 + Sync) -> Vec<f64> {
    let threads = std::thread::available_parallelism().map_or(1, |p| p.get()).clamp(1, 8).min(n.max(1));
    let chunk = n.div_ceil(threads).max(1);
    let mut out = vec![0.0; n];
    std::thread::scope(|s| {
        for (t, part) in out.chunks_mut(chunk).enumerate() {
            let f = &f;
            s.spawn(move || {
                for (k, slot) in part.iter_mut().enumerate() {
                    *slot = f(t * chunk + k);
                }
            });
        }
    });
    out
}

/// Weighted local efficiency per node: `bct.efficiency_wei(W, local=True)` (weights in [0, 1]).
pub fn local_efficiency_wei(w: &[f64], n: usize) -> Vec<f64> {
    let lengths: Vec<f64> = w.iter().map(|&x| if x == 0.0 { 0.0 } else { cuberoot(1.0 / x) }).collect();
    per_node(n, |u| {
        let v: Vec<usize> = (0..n).filter(|&j| w[u * n + j] != 0.0 || w[j * n + u] != 0.0).collect();
        let k = v.len();
        let sw: Vec<f64> = v.iter().map(|&j| cuberoot(w[u * n + j]) + cuberoot(w[j * n + u])).collect();
        let e = inverse_distances(k, |a, b| lengths[v[a] * n + v[b]]);
        let sa: Vec<f64> = v
            .iter()
            .map(|&j| f64::from(u8::from(w[u * n + j] != 0.0)) + f64::from(u8::from(w[j * n + u] != 0.0)))
            .collect();
        neighbourhood_efficiency(&sw, &sa, &e)
    })
}

/// Binary local efficiency per node: `bct.efficiency_bin(A, local=True)`.
pub fn local_efficiency_bin(a: &[f64], n: usize) -> Vec<f64> {
    per_node(n, |u| {
        let v: Vec<usize> = (0..n).filter(|&j| a[u * n + j] != 0.0).collect();
        let k = v.len();
        let e = inverse_distances(k, |x, y| if a[v[x] * n + v[y]] != 0.0 { 1.0 } else { 0.0 });
        let sa: Vec<f64> = v.iter().map(|&j| a[u * n + j] + a[j * n + u]).collect();
        neighbourhood_efficiency(&sa, &sa, &e)
    })
}
