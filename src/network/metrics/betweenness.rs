//! Node betweenness centrality (bctpy `betweenness_wei` on connection lengths, `betweenness_bin`):
//! Brandes (2001), J Math Sociol 25:163, counting ordered pairs (each undirected pair twice, unnormalised).

use super::paths::{adjacency, dijkstra};

/// Betweenness from a connection-length matrix (0 = no link): `bct.betweenness_wei(L)`.
pub fn betweenness_wei(l: &[f64], n: usize) -> Vec<f64> {
    brandes(&adjacency(l, n), n).0
}

/// Betweenness of a binary network: `bct.betweenness_bin(A)` (every link has length 1).
pub fn betweenness_bin(a: &[f64], n: usize) -> Vec<f64> {
    brandes(&adjacency(&unit_lengths(a), n), n).0
}

/// Betweenness and the shortest-path distance matrix from one Dijkstra per source (what
/// `betweenness_wei(L)` and `distance_wei(L)[0]` give), sources split over the available cores.
pub fn betweenness_and_distance(l: &[f64], n: usize) -> (Vec<f64>, Vec<f64>) {
    brandes(&adjacency(l, n), n)
}

/// Lengths of a binary network: 1 for every link.
pub fn unit_lengths(a: &[f64]) -> Vec<f64> {
    a.iter().map(|&v| if v != 0.0 { 1.0 } else { 0.0 }).collect()
}

fn brandes(adj: &[Vec<(usize, f64)>], n: usize) -> (Vec<f64>, Vec<f64>) {
    let threads = std::thread::available_parallelism().map_or(1, |p| p.get()).clamp(1, 8).min(n.max(1));
    let mut dist = vec![f64::INFINITY; n * n];
    let chunk = n.div_ceil(threads);
    let partials: Vec<Vec<f64>> = std::thread::scope(|scope| {
        let handles: Vec<_> = dist
            .chunks_mut(chunk * n)
            .enumerate()
            .map(|(t, rows)| scope.spawn(move || brandes_sources(adj, n, t * chunk, rows)))
            .collect();
        handles.into_iter().map(|h| h.join().expect("betweenness worker")).collect()
    });
    let mut bc = vec![0.0; n];
    for p in partials {
        for (b, v) in bc.iter_mut().zip(p) {
            *b += v;
        }
    }
    (bc, dist)
}

/// Brandes accumulation for the sources `first..first + rows.len() / n`, writing their distance rows.
fn brandes_sources(adj: &[Vec<(usize, f64)>], n: usize, first: usize, rows: &mut [f64]) -> Vec<f64> {
    let mut bc = vec![0.0; n];
    let mut done = vec![false; n];
    let mut sigma = vec![0.0f64; n];
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut order = Vec::with_capacity(n);
    let mut delta = vec![0.0f64; n];
    for (k, dist) in rows.chunks_mut(n).enumerate() {
        let s = first + k;
        sigma.iter_mut().for_each(|x| *x = 0.0);
        preds.iter_mut().for_each(Vec::clear);
        order.clear();
        sigma[s] = 1.0;
        dijkstra(
            adj,
            s,
            dist,
            &mut done,
            |v| order.push(v),
            |v, w, alt, old| {
                if alt < old {
                    sigma[w] = sigma[v];
                    preds[w].clear();
                    preds[w].push(v);
                } else if alt == old {
                    sigma[w] += sigma[v];
                    preds[w].push(v);
                }
            },
        );
        delta.iter_mut().for_each(|x| *x = 0.0);
        for &w in order.iter().rev() {
            for &v in &preds[w] {
                delta[v] += sigma[v] / sigma[w] * (1.0 + delta[w]);
            }
            if w != s {
                bc[w] += delta[w];
            }
        }
    }
    bc
}
