//! Node betweenness centrality (bctpy `betweenness_wei` on connection lengths, `betweenness_bin`):
//! Brandes (2001), J Math Sociol 25:163, counting ordered pairs (each undirected pair twice, unnormalised).

/// Betweenness from a connection-length matrix (0 = no link): `bct.betweenness_wei(L)`.
pub fn betweenness_wei(l: &[f64], n: usize) -> Vec<f64> {
    brandes(n, |v, w| l[v * n + w])
}

/// Betweenness of a binary network: `bct.betweenness_bin(A)` (every link has length 1).
pub fn betweenness_bin(a: &[f64], n: usize) -> Vec<f64> {
    brandes(n, |v, w| if a[v * n + w] != 0.0 { 1.0 } else { 0.0 })
}

fn brandes(n: usize, len: impl Fn(usize, usize) -> f64) -> Vec<f64> {
    let mut bc = vec![0.0; n];
    let mut dist = vec![f64::INFINITY; n];
    let mut sigma = vec![0.0f64; n];
    let mut done = vec![false; n];
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut order = Vec::with_capacity(n);
    let mut delta = vec![0.0f64; n];
    for s in 0..n {
        dist.iter_mut().for_each(|d| *d = f64::INFINITY);
        sigma.iter_mut().for_each(|x| *x = 0.0);
        done.iter_mut().for_each(|x| *x = false);
        preds.iter_mut().for_each(Vec::clear);
        order.clear();
        dist[s] = 0.0;
        sigma[s] = 1.0;
        loop {
            let mut v = usize::MAX;
            let mut best = f64::INFINITY;
            for i in 0..n {
                if !done[i] && dist[i] < best {
                    best = dist[i];
                    v = i;
                }
            }
            if v == usize::MAX {
                break;
            }
            done[v] = true;
            order.push(v);
            for w in 0..n {
                let l = len(v, w);
                if l == 0.0 || done[w] {
                    continue;
                }
                let alt = best + l;
                if alt < dist[w] {
                    dist[w] = alt;
                    sigma[w] = sigma[v];
                    preds[w].clear();
                    preds[w].push(v);
                } else if alt == dist[w] {
                    sigma[w] += sigma[v];
                    preds[w].push(v);
                }
            }
        }
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
