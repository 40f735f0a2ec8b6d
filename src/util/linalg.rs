//! Dense symmetric matrices as row-major `n × n` slices, with nalgebra underneath: matrix functions through
//! the eigenvalues (what scipy's `eigh` followed by `V f(Λ) Vᵀ` computes), the inverse of a positive-definite
//! matrix, and `AᵀA` of a tall matrix. See docs/architecture.md for why nalgebra.

use nalgebra::{DMatrix, SymmetricEigen};

fn matrix(a: &[f64], n: usize) -> DMatrix<f64> {
    DMatrix::from_row_slice(n, n, a)
}

fn row_major(m: &DMatrix<f64>) -> Vec<f64> {
    let (r, c) = m.shape();
    (0..r).flat_map(|i| (0..c).map(move |j| m[(i, j)])).collect()
}

/// Eigenvalues (ascending) and eigenvectors of a symmetric matrix; `vectors[k]` belongs to `values[k]`.
pub struct Eigen {
    pub values: Vec<f64>,
    vectors: DMatrix<f64>,
}

impl Eigen {
    pub fn of(a: &[f64], n: usize) -> Eigen {
        let e = SymmetricEigen::new(matrix(a, n));
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&i, &j| e.eigenvalues[i].total_cmp(&e.eigenvalues[j]));
        let values = order.iter().map(|&k| e.eigenvalues[k]).collect();
        let vectors = DMatrix::from_fn(n, n, |i, k| e.eigenvectors[(i, order[k])]);
        Eigen { values, vectors }
    }

    /// `V f(Λ) Vᵀ`, row-major.
    pub fn map(&self, f: impl Fn(f64) -> f64) -> Vec<f64> {
        let n = self.values.len();
        let mut scaled = self.vectors.clone();
        for k in 0..n {
            let fk = f(self.values[k]);
            scaled.column_mut(k).scale_mut(fk);
        }
        row_major(&(scaled * self.vectors.transpose()))
    }
}

/// `f(A)` for a symmetric `A`: `f` applied to its eigenvalues, its eigenvectors kept.
pub fn map_eigenvalues(a: &[f64], n: usize, f: impl Fn(f64) -> f64) -> Vec<f64> {
    Eigen::of(a, n).map(f)
}

/// The inverse of a symmetric positive-definite matrix (Cholesky); `None` when it is not positive definite.
pub fn inverse_spd(a: &[f64], n: usize) -> Option<Vec<f64>> {
    let c = matrix(a, n).cholesky()?;
    Some(row_major(&c.inverse()))
}

/// `A B` for row-major `n × n` matrices.
pub fn product(a: &[f64], b: &[f64], n: usize) -> Vec<f64> {
    row_major(&(matrix(a, n) * matrix(b, n)))
}

/// `XᵀX` (`cols × cols`, row-major) of a row-major `rows × cols` matrix.
pub fn gram(x: &[f64], rows: usize, cols: usize) -> Vec<f64> {
    let m = DMatrix::from_row_slice(rows, cols, x);
    // Through nalgebra's blocked product (matrixmultiply's dgemm): faster here than `tr_mul`'s dot products.
    row_major(&(m.transpose() * &m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_root_and_inverse_of_a_known_matrix() {
        // [[2, 1], [1, 2]]: eigenvalues 1 and 3 (eigenvectors (1, −1)/√2 and (1, 1)/√2).
        let a = [2.0, 1.0, 1.0, 2.0];
        let e = Eigen::of(&a, 2);
        assert!((e.values[0] - 1.0).abs() < 1e-12 && (e.values[1] - 3.0).abs() < 1e-12);
        let s = e.map(f64::sqrt);
        let back = product(&s, &s, 2);
        for (x, y) in back.iter().zip(a) {
            assert!((x - y).abs() < 1e-12);
        }
        let inv = inverse_spd(&a, 2).unwrap();
        let expect = [2.0 / 3.0, -1.0 / 3.0, -1.0 / 3.0, 2.0 / 3.0];
        for (x, y) in inv.iter().zip(expect) {
            assert!((x - y).abs() < 1e-12);
        }
        assert!(inverse_spd(&[1.0, 2.0, 2.0, 1.0], 2).is_none(), "indefinite");
        assert_eq!(gram(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 3, 2), vec![35.0, 44.0, 44.0, 56.0]);
    }
}
