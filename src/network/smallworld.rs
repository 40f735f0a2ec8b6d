//! Small-worldness of a binary undirected graph with networkx 3.6's definitions:
//! σ = (C/C_r)/(L/L_r) with C the transitivity (`nx.sigma`), and ω = L_r/L − C/C_l with C the average
//! clustering (`nx.omega`). References are built as networkx builds them: degree-preserving double-edge
//! swaps that keep the graph connected (`random_reference`), and swaps that move links towards a ring
//! lattice (`lattice_reference`, including networkx's acceptance rule as written). The connectivity test
//! after a swap is a breadth-first search (networkx asks `local_edge_connectivity(G, a, b) == 0`, the same
//! question, with a max-flow). References run in parallel; each has its own seeded MT19937 stream.
//! The weighted variant (not in networkx) keeps each link's weight on the rewired link and measures
//! weighted clustering (Onnela) and weighted path length (lengths 1/w) instead.

use crate::network::error::NetworkError;
use crate::util::cancel::Cancel;
use crate::util::rng::Mt19937;
use std::sync::atomic::{AtomicU64, Ordering};

/// Parameters as `nx.sigma(G, niter, nrand, seed)` / `nx.omega(G, niter, nrand, seed)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SmallWorldParams {
    pub niter: usize,
    pub nrand: usize,
    pub seed: u32,
    /// The weighted variant: weights travel with rewired links; C is `transitivity_wu` (σ) or mean
    /// `clustering_coef_wu` (ω) and L the mean shortest path over lengths 1/w.
    pub weighted: bool,
}

impl Default for SmallWorldParams {
    fn default() -> Self {
        Self { niter: 5, nrand: 10, seed: 0, weighted: false }
    }
}

/// σ and ω with the reference statistics they came from.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SmallWorld {
    pub sigma: f64,
    pub omega: f64,
    pub transitivity: f64,
    pub avg_clustering: f64,
    pub path_length: f64,
    /// Mean transitivity and path length of the σ random references, path length of the ω random
    /// references, and the largest average clustering among the graph and its lattice references.
    pub sigma_random_transitivity: f64,
    pub sigma_random_path_length: f64,
    pub omega_random_path_length: f64,
    pub omega_lattice_clustering: f64,
}

/// A simple undirected graph as neighbour lists plus an adjacency bit matrix.
#[derive(Debug, Clone)]
pub struct Graph {
    n: usize,
    adj: Vec<Vec<usize>>,
    /// Link weights (0 = no link); 1 for every link of a binary graph.
    wt: Vec<f64>,
}

impl Graph {
    /// The graph of the non-zero off-diagonal entries of a symmetric matrix.
    pub fn from_matrix(w: &[f64], n: usize) -> Graph {
        let adj = (0..n).map(|i| (0..n).filter(|&j| j != i && w[i * n + j] != 0.0).collect()).collect();
        let wt = (0..n * n).map(|k| if k / n != k % n { w[k] } else { 0.0 }).collect();
        Graph { n, adj, wt }
    }

    fn edges(&self) -> usize {
        self.adj.iter().map(Vec::len).sum::<usize>() / 2
    }

    fn has(&self, a: usize, b: usize) -> bool {
        self.wt[a * self.n + b] != 0.0
    }

    fn add(&mut self, a: usize, b: usize, w: f64) {
        self.adj[a].push(b);
        self.adj[b].push(a);
        self.wt[a * self.n + b] = w;
        self.wt[b * self.n + a] = w;
    }

    fn remove(&mut self, a: usize, b: usize) {
        self.adj[a].retain(|&x| x != b);
        self.adj[b].retain(|&x| x != a);
        self.wt[a * self.n + b] = 0.0;
        self.wt[b * self.n + a] = 0.0;
    }

    /// Weighted statistics: (`transitivity_wu`, mean `clustering_coef_wu`, mean shortest path over lengths
    /// 1/w between all ordered pairs) of the weights (normalised to max 1 by the caller).
    fn weighted_stats(&self) -> (f64, f64, f64) {
        use super::metrics::{clustering, paths};
        let n = self.n;
        let c = clustering::clustering_coef_wu(&self.wt, n).iter().sum::<f64>() / n as f64;
        let d = paths::distance_wei(&super::threshold::lengths(&self.wt), n);
        let l = (0..n * n).filter(|&k| k / n != k % n).map(|k| d[k]).sum::<f64>() / (n * (n - 1)) as f64;
        (clustering::transitivity_wu(&self.wt, n), c, l)
    }

    /// True when a path joins a and b.
    fn connected(&self, a: usize, b: usize) -> bool {
        let mut seen = vec![false; self.n];
        let mut stack = vec![a];
        seen[a] = true;
        while let Some(v) = stack.pop() {
            if v == b {
                return true;
            }
            for &w in &self.adj[v] {
                if !seen[w] {
                    seen[w] = true;
                    stack.push(w);
                }
            }
        }
        false
    }

    /// The largest connected component and the original indices of its nodes.
    pub fn largest_component(&self) -> (Graph, Vec<usize>) {
        let mut comp = vec![usize::MAX; self.n];
        let mut sizes = Vec::new();
        for s in 0..self.n {
            if comp[s] != usize::MAX {
                continue;
            }
            let id = sizes.len();
            let mut stack = vec![s];
            comp[s] = id;
            let mut size = 0;
            while let Some(v) = stack.pop() {
                size += 1;
                for &w in &self.adj[v] {
                    if comp[w] == usize::MAX {
                        comp[w] = id;
                        stack.push(w);
                    }
                }
            }
            sizes.push(size);
        }
        let best = (0..sizes.len()).max_by_key(|&c| (sizes[c], usize::MAX - c)).unwrap_or(0);
        let keep: Vec<usize> = (0..self.n).filter(|&v| comp[v] == best).collect();
        let m = keep.len();
        let mut w = vec![0.0; m * m];
        for (i, &a) in keep.iter().enumerate() {
            for (j, &b) in keep.iter().enumerate() {
                w[i * m + j] = self.wt[a * self.n + b];
            }
        }
        (Graph::from_matrix(&w, m), keep)
    }

    /// Number of connected components.
    pub fn components(&self) -> usize {
        let mut seen = vec![false; self.n];
        let mut count = 0;
        for s in 0..self.n {
            if seen[s] {
                continue;
            }
            count += 1;
            let mut stack = vec![s];
            seen[s] = true;
            while let Some(v) = stack.pop() {
                for &w in &self.adj[v] {
                    if !seen[w] {
                        seen[w] = true;
                        stack.push(w);
                    }
                }
            }
        }
        count
    }

    /// `nx.transitivity`: 3 × triangles / connected triples.
    pub fn transitivity(&self) -> f64 {
        let (mut tri, mut triples) = (0.0, 0.0);
        for v in 0..self.n {
            let d = self.adj[v].len() as f64;
            triples += d * (d - 1.0);
            tri += self.closed(v) as f64;
        }
        if triples == 0.0 { 0.0 } else { tri / triples }
    }

    /// Ordered pairs of neighbours of v that are linked (twice the triangles at v).
    fn closed(&self, v: usize) -> usize {
        let nb = &self.adj[v];
        let mut c = 0;
        for (i, &x) in nb.iter().enumerate() {
            for &y in &nb[i + 1..] {
                if self.has(x, y) {
                    c += 2;
                }
            }
        }
        c
    }

    /// `nx.average_clustering`: mean local clustering, 0 for nodes of degree < 2.
    pub fn average_clustering(&self) -> f64 {
        (0..self.n)
            .map(|v| {
                let d = self.adj[v].len() as f64;
                if d < 2.0 { 0.0 } else { self.closed(v) as f64 / (d * (d - 1.0)) }
            })
            .sum::<f64>()
            / self.n as f64
    }

    /// `nx.average_shortest_path_length` (connected graphs): mean over ordered pairs.
    pub fn average_path_length(&self) -> f64 {
        let mut total = 0.0;
        let mut dist = vec![usize::MAX; self.n];
        let mut queue = Vec::with_capacity(self.n);
        for s in 0..self.n {
            dist.iter_mut().for_each(|d| *d = usize::MAX);
            dist[s] = 0;
            queue.clear();
            queue.push(s);
            let mut head = 0;
            while head < queue.len() {
                let v = queue[head];
                head += 1;
                for &w in &self.adj[v] {
                    if dist[w] == usize::MAX {
                        dist[w] = dist[v] + 1;
                        total += dist[w] as f64;
                        queue.push(w);
                    }
                }
            }
        }
        total / (self.n * (self.n - 1)) as f64
    }

    /// `random_reference(G, niter)` (and `lattice_reference` when `lattice`), connectivity kept.
    fn rewired(&self, niter: usize, rng: &mut Mt19937, lattice: bool) -> Graph {
        let mut g = self.clone();
        let n = g.n;
        let degrees: Vec<f64> = (0..n).map(|v| g.adj[v].len() as f64).collect();
        let total: f64 = degrees.iter().sum();
        let mut cdf = vec![0.0];
        for d in &degrees {
            cdf.push(cdf.last().copied().unwrap_or(0.0) + d / total);
        }
        let nedges = g.edges();
        let tries = (n as f64 * nedges as f64 / (n as f64 * (n as f64 - 1.0) / 2.0)) as usize;
        let ring = |i: usize, j: usize| {
            let d = i.abs_diff(j);
            d.min(n - d)
        };
        let mut uniform = || {
            let a = (rng.next_u32() >> 5) as f64;
            let b = (rng.next_u32() >> 6) as f64;
            (a * 67_108_864.0 + b) / 9_007_199_254_740_992.0
        };
        let pick_neighbour =
            |g: &Graph, v: usize, u: f64| g.adj[v][((u * g.adj[v].len() as f64) as usize).min(g.adj[v].len() - 1)];
        for _ in 0..niter * nedges {
            let mut attempt = 0;
            while attempt < tries {
                let pick = |u: f64| cdf.partition_point(|&c| c < u).saturating_sub(1).min(n - 1);
                let (a, c) = (pick(uniform()), pick(uniform()));
                if a == c || g.adj[a].is_empty() || g.adj[c].is_empty() {
                    continue;
                }
                let b = pick_neighbour(&g, a, uniform());
                let d = pick_neighbour(&g, c, uniform());
                if b == a || b == c || b == d || d == a || d == c {
                    continue;
                }
                if !g.has(a, d) && !g.has(c, b) {
                    if !lattice || ring(a, b) + ring(c, d) >= ring(a, c) + ring(b, d) {
                        // Weights travel with their links (as bctpy's randmio_und moves them).
                        let (wab, wcd) = (g.wt[a * n + b], g.wt[c * n + d]);
                        g.add(a, d, wab);
                        g.add(c, b, wcd);
                        g.remove(a, b);
                        g.remove(c, d);
                        if g.connected(a, b) {
                            break;
                        }
                        g.remove(a, d);
                        g.remove(c, b);
                        g.add(a, b, wab);
                        g.add(c, d, wcd);
                    }
                }
                attempt += 1;
            }
        }
        g
    }
}

/// σ and ω of a connected graph; `progress` counts finished references (3 per `nrand`); `cancel` stops
/// between references. Errors when the graph is disconnected (networkx raises as well) or too small.
pub fn small_world(
    g: &Graph,
    p: &SmallWorldParams,
    progress: &AtomicU64,
    cancel: &Cancel,
) -> Result<SmallWorld, NetworkError> {
    if g.n < 4 || g.edges() < 2 {
        return Err(NetworkError::Invalid(format!("{} nodes and {} links: too small for σ and ω", g.n, g.edges())));
    }
    let parts = g.components();
    if parts > 1 {
        return Err(NetworkError::Invalid(format!(
            "the graph has {parts} connected components; σ and ω need a connected graph"
        )));
    }
    // Each reference gets its own stream: seed, reference index and kind mixed into one MT19937 seed.
    let stream =
        |k: usize, kind: u32| Mt19937::new(p.seed.wrapping_mul(2_654_435_761).wrapping_add(k as u32 * 3 + kind));
    // (transitivity, average clustering, path length) of a graph, binary or weighted.
    let stats = |g: &Graph| {
        if p.weighted {
            g.weighted_stats()
        } else {
            (g.transitivity(), g.average_clustering(), g.average_path_length())
        }
    };
    let run = |k: usize| {
        let sr = stats(&g.rewired(p.niter, &mut stream(k, 0), false));
        progress.fetch_add(1, Ordering::Relaxed);
        let or = stats(&g.rewired(p.niter * 2, &mut stream(k, 1), false));
        progress.fetch_add(1, Ordering::Relaxed);
        let ol = stats(&g.rewired(p.niter, &mut stream(k, 2), true));
        progress.fetch_add(1, Ordering::Relaxed);
        (sr.0, sr.2, or.2, ol.1)
    };
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get()).clamp(1, 8);
    let results: Vec<(f64, f64, f64, f64)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let run = &run;
                s.spawn(move || {
                    (t..p.nrand)
                        .step_by(threads)
                        .take_while(|_| !cancel.is_cancelled())
                        .map(|k| (k, run(k)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut all: Vec<(usize, (f64, f64, f64, f64))> =
            handles.into_iter().flat_map(|h| h.join().expect("reference worker")).collect();
        all.sort_by_key(|x| x.0);
        all.into_iter().map(|x| x.1).collect()
    });
    if cancel.is_cancelled() {
        return Err(NetworkError::Cancelled);
    }
    let mean =
        |f: &dyn Fn(&(f64, f64, f64, f64)) -> f64| results.iter().map(f).sum::<f64>() / results.len().max(1) as f64;
    let (c, cavg, l) = stats(g);
    let (cr, lr_sigma, lr_omega) = (mean(&|r| r.0), mean(&|r| r.1), mean(&|r| r.2));
    let cl = results.iter().map(|r| r.3).fold(cavg, f64::max);
    Ok(SmallWorld {
        sigma: (c / cr) / (l / lr_sigma),
        omega: lr_omega / l - cavg / cl,
        transitivity: c,
        avg_clustering: cavg,
        path_length: l,
        sigma_random_transitivity: cr,
        sigma_random_path_length: lr_sigma,
        omega_random_path_length: lr_omega,
        omega_lattice_clustering: cl,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ring_lattice(n: usize, k: usize) -> Vec<f64> {
        let mut w = vec![0.0; n * n];
        for i in 0..n {
            for d in 1..=k {
                let j = (i + d) % n;
                w[i * n + j] = 1.0;
                w[j * n + i] = 1.0;
            }
        }
        w
    }

    #[test]
    fn a_ring_lattice_is_lattice_like() {
        let g = Graph::from_matrix(&ring_lattice(40, 3), 40);
        let degrees_before: Vec<usize> = g.adj.iter().map(Vec::len).collect();
        let r = g.rewired(5, &mut Mt19937::new(1), false);
        assert_eq!(r.adj.iter().map(Vec::len).collect::<Vec<_>>(), degrees_before, "degrees preserved");
        assert_eq!(r.components(), 1, "still connected");
        let sw = small_world(
            &g,
            &SmallWorldParams { niter: 5, nrand: 4, seed: 3, weighted: false },
            &AtomicU64::new(0),
            &Cancel::default(),
        )
        .unwrap();
        // Clustering of a ring lattice with k = 3: 3(k−1)/(2(2k−1)) = 0.6.
        assert!((sw.avg_clustering - 0.6).abs() < 1e-12);
        // networkx 3.6.1 on nx.watts_strogatz_graph(40, 6, 0) (this graph), niter=5, nrand=4, seeds 1–3:
        // omega −0.4213, −0.4219, −0.4197; sigma 2.847, 3.380, 2.974.
        assert!((-0.44..=-0.40).contains(&sw.omega), "ω = {}", sw.omega);
        assert!((2.5..=3.8).contains(&sw.sigma), "σ = {}", sw.sigma);
        let split =
            Graph::from_matrix(&[0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0], 4);
        assert!(
            small_world(&split, &SmallWorldParams::default(), &AtomicU64::new(0), &Cancel::default())
                .unwrap_err()
                .to_string()
                .contains("2 connected components")
        );
    }
}
