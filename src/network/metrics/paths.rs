//! Shortest paths, characteristic path length and global efficiency (bctpy `distance_wei`,
//! `distance_bin`, `charpath`, `efficiency_wei`, `efficiency_bin`).

/// Neighbour lists `(node, length)` of a connection-length matrix (0 = no link).
pub fn adjacency(l: &[f64], n: usize) -> Vec<Vec<(usize, f64)>> {
    (0..n).map(|v| (0..n).filter(|&w| l[v * n + w] != 0.0).map(|w| (w, l[v * n + w])).collect()).collect()
}

/// Dijkstra from `s` over non-negative lengths: fills `dist` (∞ = unreachable) and calls `settle(v, d)` in
/// the order nodes become final, and `relax(v, w, alt)` for every candidate path s→…→v→w to an unsettled w.
/// Each distance is the minimum over the same candidate sums D(v) + l(v, w) that bctpy's `distance_wei`
/// compares, so results are identical, not merely close.
pub fn dijkstra(
    adj: &[Vec<(usize, f64)>],
    s: usize,
    dist: &mut [f64],
    done: &mut [bool],
    mut settle: impl FnMut(usize),
    mut relax: impl FnMut(usize, usize, f64, f64),
) {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    dist.iter_mut().for_each(|d| *d = f64::INFINITY);
    done.iter_mut().for_each(|d| *d = false);
    dist[s] = 0.0;
    // Non-negative f64 order equals the order of their bit patterns.
    let mut heap = BinaryHeap::new();
    heap.push(Reverse((0f64.to_bits(), s)));
    while let Some(Reverse((bits, v))) = heap.pop() {
        if done[v] || f64::from_bits(bits) > dist[v] {
            continue;
        }
        done[v] = true;
        settle(v);
        let dv = dist[v];
        for &(w, len) in &adj[v] {
            if done[w] {
                continue;
            }
            let alt = dv + len;
            let old = dist[w];
            relax(v, w, alt, old);
            if alt < old {
                dist[w] = alt;
                heap.push(Reverse((alt.to_bits(), w)));
            }
        }
    }
}

/// Shortest-path lengths from a connection-length matrix (0 = no link): `bct.distance_wei(L)[0]`;
/// unreachable pairs are `f64::INFINITY`.
pub fn distance_wei(l: &[f64], n: usize) -> Vec<f64> {
    let adj = adjacency(l, n);
    let mut d = vec![f64::INFINITY; n * n];
    let mut done = vec![false; n];
    for u in 0..n {
        dijkstra(&adj, u, &mut d[u * n..(u + 1) * n], &mut done, |_| {}, |_, _, _, _| {});
    }
    d
}

/// Shortest-path lengths in links: `bct.distance_bin(A)`. Breadth-first search from every node.
pub fn distance_bin(a: &[f64], n: usize) -> Vec<f64> {
    let mut d = vec![f64::INFINITY; n * n];
    let mut queue = Vec::with_capacity(n);
    for u in 0..n {
        d[u * n + u] = 0.0;
        queue.clear();
        queue.push(u);
        let mut head = 0;
        while head < queue.len() {
            let v = queue[head];
            head += 1;
            for w in 0..n {
                if a[v * n + w] != 0.0 && d[u * n + w].is_infinite() {
                    d[u * n + w] = d[u * n + v] + 1.0;
                    queue.push(w);
                }
            }
        }
    }
    d
}

/// Characteristic path length and global efficiency from a distance matrix: `bct.charpath(D)` with its
/// defaults (diagonal excluded, infinite distances included, so a disconnected graph has λ = ∞).
pub fn charpath(d: &[f64], n: usize) -> (f64, f64) {
    let off: Vec<f64> = (0..n * n).filter(|&k| k / n != k % n).map(|k| d[k]).collect();
    let m = off.len() as f64;
    (off.iter().sum::<f64>() / m, off.iter().map(|x| 1.0 / x).sum::<f64>() / m)
}

/// Global efficiency of a weighted network (weights in [0, 1]): `bct.efficiency_wei(W)`, the mean inverse
/// shortest-path length over lengths 1/w.
pub fn efficiency_wei(w: &[f64], n: usize) -> f64 {
    let l = crate::network::threshold::lengths(w);
    inverse_mean(&distance_wei(&l, n), n)
}

/// Global efficiency from a distance matrix already computed (the mean of 1/D off the diagonal).
pub fn efficiency_from_distance(d: &[f64], n: usize) -> f64 {
    inverse_mean(d, n)
}

/// Global efficiency of a binary network: `bct.efficiency_bin(A)`.
pub fn efficiency_bin(a: &[f64], n: usize) -> f64 {
    inverse_mean(&distance_bin(a, n), n)
}

fn inverse_mean(d: &[f64], n: usize) -> f64 {
    let s: f64 = (0..n * n).filter(|&k| k / n != k % n).map(|k| 1.0 / d[k]).sum();
    s / (n * n - n) as f64
}
