//! A connectome as a feature vector for a linear classifier: the Fisher z (`atanh`) of its upper triangle,
//! diagonal left out, row by row — what a neuroscientist feeds scikit-learn after nilearn's
//! `ConnectivityMeasure(vectorize=True, discard_diagonal=True)` (which lists the same entries in another
//! order; a linear model with an L2 penalty does not depend on the order).

use super::connectome::Connectome;
use super::error::{NetworkError, Result};

/// The number of features of an `n`-region connectome.
pub fn upper_len(n: usize) -> usize {
    n * n.saturating_sub(1) / 2
}

/// `atanh(w[i][j])` for `i < j`; a weight outside (−1, 1) is not a correlation and is refused by name.
pub fn fisher_z_upper(name: &str, c: &Connectome) -> Result<Vec<f64>> {
    let mut out = Vec::with_capacity(upper_len(c.n));
    for i in 0..c.n {
        for j in i + 1..c.n {
            let r = c.w[i * c.n + j];
            if r.is_nan() || r.abs() >= 1.0 {
                return Err(NetworkError::Invalid(format!(
                    "{name}: weight {r} between {} and {} is not a correlation in (−1, 1): the Fisher z needs correlation connectomes",
                    c.labels[i], c.labels[j]
                )));
            }
            out.push(r.atanh());
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::connectome::Asymmetry;

    #[test]
    fn upper_triangle_row_by_row_and_non_correlations_refused() {
        let w = vec![0.0, 0.5, -0.2, 0.5, 0.0, 0.1, -0.2, 0.1, 0.0];
        let c = Connectome::from_matrix("m", 3, 3, w, None, Asymmetry::Symmetrize).unwrap();
        let z = fisher_z_upper("m", &c).unwrap();
        let want = [0.5f64.atanh(), (-0.2f64).atanh(), 0.1f64.atanh()];
        assert_eq!(z.len(), upper_len(3));
        for (a, b) in z.iter().zip(want) {
            assert!((a - b).abs() < 1e-15);
        }
        let w = vec![0.0, 3.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0];
        let c = Connectome::from_matrix("s", 3, 3, w, None, Asymmetry::Symmetrize).unwrap();
        let e = fisher_z_upper("counts.npy", &c).unwrap_err().to_string();
        assert!(e.contains("counts.npy") && e.contains("not a correlation"), "{e}");
    }
}
