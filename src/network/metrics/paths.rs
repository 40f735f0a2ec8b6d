//! Shortest paths, characteristic path length and global efficiency (bctpy `distance_wei`,
//! `distance_bin`, `charpath`, `efficiency_wei`, `efficiency_bin`).

/// Shortest-path lengths from a connection-length matrix (0 = no link): `bct.distance_wei(L)[0]`;
/// unreachable pairs are `f64::INFINITY`. Dijkstra from every node.
pub fn distance_wei(l: &[f64], n: usize) -> Vec<f64> {
    let mut d = vec![f64::INFINITY; n * n];
    let mut done = vec![false; n];
    for u in 0..n {
        let row = &mut d[u * n..(u + 1) * n];
        row[u] = 0.0;
        done.iter_mut().for_each(|x| *x = false);
        loop {
            let mut v = usize::MAX;
            let mut best = f64::INFINITY;
            for (i, &x) in row.iter().enumerate() {
                if !done[i] && x < best {
                    best = x;
                    v = i;
                }
            }
            if v == usize::MAX {
                break;
            }
            done[v] = true;
            for w in 0..n {
                let len = l[v * n + w];
                if len != 0.0 && !done[w] && best + len < row[w] {
                    row[w] = best + len;
                }
            }
        }
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

/// Global efficiency of a binary network: `bct.efficiency_bin(A)`.
pub fn efficiency_bin(a: &[f64], n: usize) -> f64 {
    inverse_mean(&distance_bin(a, n), n)
}

fn inverse_mean(d: &[f64], n: usize) -> f64 {
    let s: f64 = (0..n * n).filter(|&k| k / n != k % n).map(|k| 1.0 / d[k]).sum();
    s / (n * n - n) as f64
}
