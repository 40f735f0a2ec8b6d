//! `Connectome`: a square weighted matrix with region labels, validated on construction. Problems are
//! errors naming the file, the entry and the value, or explicit, reported fixes — never silent.

use super::error::{Result, fail, invalid};

/// What to do with an asymmetric matrix when an undirected graph is required.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Asymmetry {
    /// Refuse it with an error naming the most asymmetric pair.
    #[default]
    Error,
    /// Replace W by (W + Wᵀ) / 2 and report it.
    Symmetrize,
    /// Keep it as a directed network (`w[i * n + j]` is the link i → j).
    Directed,
}

/// A weighted network: `w[i * n + j]` is the weight between regions i and j (from i to j when directed).
#[derive(Debug, Clone, PartialEq)]
pub struct Connectome {
    pub n: usize,
    pub w: Vec<f64>,
    pub labels: Vec<String>,
    /// True when loaded with [`Asymmetry::Directed`] from an asymmetric matrix.
    pub directed: bool,
    /// Fixes applied while loading, in words (shown to the user).
    pub fixes: Vec<String>,
}

/// Entries closer than this (relative) count as symmetric, as `numpy.allclose` with rtol 1e-5, atol 1e-8.
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-8 + 1e-5 * b.abs()
}

impl Connectome {
    /// Validates a row-major `rows × cols` matrix read from `name`: square, finite, symmetric (or
    /// symmetrised on request), zero diagonal (a non-zero diagonal is zeroed and reported). Labels, when
    /// given, must number the rows; missing labels become "R1", "R2", …
    pub fn from_matrix(
        name: &str,
        rows: usize,
        cols: usize,
        w: Vec<f64>,
        labels: Option<Vec<String>>,
        asym: Asymmetry,
    ) -> Result<Self> {
        if rows != cols {
            fail!(name, "matrix is {rows} × {cols}; a connectome must be square");
        }
        if rows < 2 {
            fail!(name, "matrix is {rows} × {cols}; a network needs at least 2 regions");
        }
        let n = rows;
        if w.len() != n * n {
            fail!(name, "{} values for a {n} × {n} matrix", w.len());
        }
        if let Some(i) = w.iter().position(|v| !v.is_finite()) {
            fail!(name, "entry [{}, {}] is {} (NaN and infinite weights are not allowed)", i / n, i % n, w[i]);
        }
        let labels = match labels {
            Some(l) if l.len() != n => fail!(name, "{} labels for {n} regions", l.len()),
            Some(l) => l,
            None => (1..=n).map(|i| format!("R{i}")).collect(),
        };
        let mut c = Connectome { n, w, labels, directed: false, fixes: Vec::new() };
        let mut worst: Option<(usize, usize, f64)> = None;
        for i in 0..n {
            for j in i + 1..n {
                let (a, b) = (c.w[i * n + j], c.w[j * n + i]);
                if !close(a, b) && !close(b, a) && worst.is_none_or(|(_, _, d)| (a - b).abs() > d) {
                    worst = Some((i, j, (a - b).abs()));
                }
            }
        }
        if let Some((i, j, _)) = worst {
            match asym {
                Asymmetry::Error => invalid!(
                    "{name}: matrix is not symmetric: [{i}, {j}] = {} but [{j}, {i}] = {}; pass --symmetrize to use (W + Wᵀ)/2",
                    c.w[i * n + j],
                    c.w[j * n + i]
                ),
                Asymmetry::Symmetrize => {
                    for i in 0..n {
                        for j in i + 1..n {
                            let m = (c.w[i * n + j] + c.w[j * n + i]) / 2.0;
                            c.w[i * n + j] = m;
                            c.w[j * n + i] = m;
                        }
                    }
                    c.fixes.push(format!("symmetrised as (W + Wᵀ)/2 (largest difference at [{i}, {j}])"));
                }
                Asymmetry::Directed => c.directed = true,
            }
        }
        let diag: Vec<usize> = (0..n).filter(|&i| c.w[i * n + i] != 0.0).collect();
        if let Some(&first) = diag.first() {
            c.fixes.push(format!(
                "diagonal set to 0 ({} non-zero entries, e.g. [{first}, {first}] = {})",
                diag.len(),
                c.w[first * n + first]
            ));
            for &i in &diag {
                c.w[i * n + i] = 0.0;
            }
        }
        Ok(c)
    }

    /// Weight between regions i and j.
    pub fn get(&self, i: usize, j: usize) -> f64 {
        self.w[i * self.n + j]
    }

    /// A copy with new weights (same labels).
    pub fn with_weights(&self, w: Vec<f64>) -> Self {
        Connectome { n: self.n, w, labels: self.labels.clone(), directed: self.directed, fixes: self.fixes.clone() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_matrices_are_named() {
        let e = Connectome::from_matrix("m.csv", 2, 3, vec![0.0; 6], None, Asymmetry::Error).unwrap_err();
        assert!(e.to_string().contains("m.csv: matrix is 2 × 3"));
        let e =
            Connectome::from_matrix("m.csv", 2, 2, vec![0.0, f64::NAN, 1.0, 0.0], None, Asymmetry::Error).unwrap_err();
        assert!(e.to_string().contains("entry [0, 1] is NaN"), "{e}");
        let e = Connectome::from_matrix("m.csv", 2, 2, vec![0.0, 0.5, 0.2, 0.0], None, Asymmetry::Error).unwrap_err();
        assert!(e.to_string().contains("[0, 1] = 0.5 but [1, 0] = 0.2"), "{e}");
        let c = Connectome::from_matrix("m.csv", 2, 2, vec![1.0, 0.5, 0.25, 1.0], None, Asymmetry::Symmetrize).unwrap();
        assert_eq!(c.w, vec![0.0, 0.375, 0.375, 0.0]);
        assert_eq!(c.fixes.len(), 2);
        assert_eq!(c.labels, vec!["R1", "R2"]);
    }
}
