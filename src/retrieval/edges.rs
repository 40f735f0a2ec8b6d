//! The supervised graph encoder for CARD on a cohort: fitted on the training split only. A graph is its Fisher-z
//! upper triangle, each edge standardised by the training split's mean and SD and weighted by how strongly it
//! separates the labels there — the square root of the one-way ANOVA F statistic (|t| of a pooled-variance
//! t-test for two labels) — then scaled to unit length, so CARD's dot product is a cosine in the edges that
//! tell the labels apart. Chosen on ADHD-200 (the development cohort) over the unweighted standardised edges, a
//! top-m edge selection, the logistic regression's |w| and site-wise standardisation (docs/networks.md).

use super::error::{Result, RetrievalError};
use crate::network::Connectome;
use crate::network::features::fisher_z_upper;

/// Standardisation and weights per upper-triangle edge, from a training split.
#[derive(Debug, Clone, PartialEq)]
pub struct EdgeEncoder {
    pub n: usize,
    mean: Vec<f64>,
    sd: Vec<f64>,
    /// sqrt(F) per edge (0 where the edge is constant in the training split).
    pub weight: Vec<f64>,
    /// Training graphs it was fitted on.
    pub samples: usize,
}

/// One-way ANOVA F statistic of each column of `rows` (samples × features) across the groups in `labels`, as
/// `scipy.stats.f_oneway`: (between-group SS / (k − 1)) / (within-group SS / (N − k)). A column without
/// within-group spread gets 0 when its groups agree and infinity when they differ.
pub fn anova_f(rows: &[Vec<f64>], labels: &[String]) -> Vec<f64> {
    let mut groups: Vec<&String> = labels.iter().collect();
    groups.sort();
    groups.dedup();
    let (n, k) = (rows.len(), groups.len());
    let dim = rows.first().map_or(0, Vec::len);
    let member: Vec<usize> = labels.iter().map(|l| groups.iter().position(|g| *g == l).unwrap_or(0)).collect();
    let mut count = vec![0.0; k];
    for &g in &member {
        count[g] += 1.0;
    }
    let mut f = vec![0.0; dim];
    let mut sums = vec![0.0; k];
    for (j, out) in f.iter_mut().enumerate() {
        sums.iter_mut().for_each(|s| *s = 0.0);
        for (r, &g) in rows.iter().zip(&member) {
            sums[g] += r[j];
        }
        let grand = sums.iter().sum::<f64>() / n as f64;
        let means: Vec<f64> = sums.iter().zip(&count).map(|(s, c)| s / c).collect();
        let between: f64 = means.iter().zip(&count).map(|(m, c)| c * (m - grand).powi(2)).sum();
        let within: f64 = rows.iter().zip(&member).map(|(r, &g)| (r[j] - means[g]).powi(2)).sum();
        let (df_b, df_w) = ((k - 1) as f64, (n - k) as f64);
        *out = match (between / df_b, within / df_w) {
            (_, w) if w > 0.0 => (between / df_b) / w,
            (b, _) if b > 1e-300 => f64::INFINITY,
            _ => 0.0,
        };
    }
    f
}

impl EdgeEncoder {
    /// Fits on the training graphs (`(name, graph)`, names for errors) and their labels: at least two labels,
    /// more graphs than labels, every graph a correlation connectome of the same size.
    pub fn fit(graphs: &[(String, Connectome)], labels: &[String]) -> Result<EdgeEncoder> {
        let mut distinct: Vec<&String> = labels.iter().collect();
        distinct.sort();
        distinct.dedup();
        if distinct.len() < 2 || graphs.len() <= distinct.len() || graphs.len() != labels.len() {
            return Err(RetrievalError::from(format!(
                "the supervised graph encoder needs graphs of at least two labels and more graphs than labels \
                 (got {} graphs, {} labels)",
                graphs.len(),
                distinct.len()
            )));
        }
        let n = graphs[0].1.n;
        let rows: Vec<Vec<f64>> = graphs
            .iter()
            .map(|(name, c)| {
                if c.n != n {
                    return Err(RetrievalError::from(format!("{name}: {} regions, unlike the first graph's {n}", c.n)));
                }
                fisher_z_upper(name, c).map_err(|e| RetrievalError::from(e.to_string()))
            })
            .collect::<Result<_>>()?;
        let dim = rows[0].len();
        let count = rows.len() as f64;
        let mean: Vec<f64> = (0..dim).map(|j| rows.iter().map(|r| r[j]).sum::<f64>() / count).collect();
        let sd: Vec<f64> =
            (0..dim).map(|j| (rows.iter().map(|r| (r[j] - mean[j]).powi(2)).sum::<f64>() / count).sqrt()).collect();
        let weight = anova_f(&rows, labels)
            .into_iter()
            .zip(&sd)
            .map(|(f, &s)| if s > 0.0 && f.is_finite() { f.sqrt() } else { 0.0 })
            .collect();
        Ok(EdgeEncoder { n, mean, sd, weight, samples: graphs.len() })
    }

    /// The unit-length weighted, standardised Fisher-z edges of `c` (`name` for errors).
    pub fn embed(&self, name: &str, c: &Connectome) -> Result<Vec<f32>> {
        if c.n != self.n {
            return Err(RetrievalError::from(format!(
                "{name}: {} regions; the supervised graph encoder was fitted on {}-region graphs",
                c.n, self.n
            )));
        }
        let z = fisher_z_upper(name, c).map_err(|e| RetrievalError::from(e.to_string()))?;
        let v: Vec<f64> = z
            .iter()
            .enumerate()
            .map(|(j, x)| if self.sd[j] > 0.0 { self.weight[j] * (x - self.mean[j]) / self.sd[j] } else { 0.0 })
            .collect();
        let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        Ok(v.iter().map(|x| if norm > 0.0 { (x / norm) as f32 } else { 0.0 }).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::connectome::Asymmetry;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn f_statistics_equal_scipy() {
        // Expected: scipy 1.16 `f_oneway` on the same columns (60.84; 3.1e-33, i.e. equal group means).
        let rows = vec![
            vec![0.1, 0.3, 0.0],
            vec![0.2, 0.1, 0.0],
            vec![0.15, 0.2, 0.0],
            vec![0.5, 0.25, 0.0],
            vec![0.45, 0.15, 0.0],
        ];
        let f = anova_f(&rows, &strings(&["a", "a", "a", "b", "b"]));
        assert!((f[0] - 60.84).abs() < 1e-9 && f[1].abs() < 1e-12 && f[2] == 0.0, "{f:?}");
        // Three groups: 3.5.
        let rows: Vec<Vec<f64>> = [0.1, 0.2, 0.3, 0.6, 0.5, 0.9].iter().map(|&x| vec![x]).collect();
        let f = anova_f(&rows, &strings(&["a", "a", "b", "b", "c", "c"]));
        assert!((f[0] - 3.5).abs() < 1e-12, "{f:?}");
    }

    fn graph(r: [f64; 3]) -> Connectome {
        let w = vec![0.0, r[0], r[1], r[0], 0.0, r[2], r[1], r[2], 0.0];
        Connectome::from_matrix("g", 3, 3, w, None, Asymmetry::Error).unwrap()
    }

    #[test]
    fn embeddings_weigh_the_edges_that_separate_the_labels() {
        // Edge (0,1) separates a from b; edge (0,2) varies alike in both; edge (1,2) is constant.
        let g = [[0.1, 0.3, 0.2], [0.2, 0.1, 0.2], [0.6, 0.1, 0.2], [0.7, 0.3, 0.2]];
        let graphs: Vec<(String, Connectome)> =
            g.iter().enumerate().map(|(i, r)| (format!("g{i}"), graph(*r))).collect();
        let e = EdgeEncoder::fit(&graphs, &strings(&["a", "a", "b", "b"])).unwrap();
        assert_eq!((e.weight[1], e.weight[2]), (0.0, 0.0));
        assert!(e.weight[0] > 1.0);
        let v = e.embed("q", &graph([0.65, 0.1, 0.5])).unwrap();
        // Only the separating edge counts, so the embedding is ±1 along it.
        assert_eq!(v, [1.0, 0.0, 0.0]);
        assert!(EdgeEncoder::fit(&graphs[..2], &strings(&["a", "a"])).unwrap_err().to_string().contains("two labels"));
        let big = Connectome::from_matrix("g", 2, 2, vec![0.0, 1.0, 1.0, 0.0], None, Asymmetry::Error).unwrap();
        assert!(e.embed("big.npy", &big).unwrap_err().to_string().contains("big.npy: 2 regions"));
        let not_r = graph([1.5, 0.1, 0.1]);
        assert!(e.embed("bad.npy", &not_r).unwrap_err().to_string().contains("bad.npy: weight 1.5"));
    }
}
