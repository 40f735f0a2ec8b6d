//! Binary L2-penalised logistic regression, as scikit-learn's `LogisticRegression` defines it: minimise
//! `C Σ logloss(yᵢ, xᵢ·w + b) + ½‖w‖²` with the intercept unpenalised; its strength chosen as
//! `LogisticRegressionCV` does (the mean accuracy over `StratifiedKFold` folds, the first best `C` of the
//! grid, then a refit on every sample).
//!
//! Connectome features are wide (4,005 for AAL-90) and cohorts hold hundreds of subjects, so the solver
//! works in the samples' span: `w = Xᵀα`, Newton steps on `(α, b)` through the `n × n` Gram matrix (an
//! `(n + 1)`-square solve per step) instead of the `p × p` Hessian. The problem is strictly convex, so the
//! minimiser is the one any converged solver finds.

use nalgebra::{DMatrix, DVector};

/// scikit-learn's default grid for `LogisticRegressionCV(Cs=10)`: `np.logspace(-4, 4, 10)`.
pub fn default_cs() -> Vec<f64> {
    (0..10).map(|i| 10f64.powf(-4.0 + 8.0 * i as f64 / 9.0)).collect()
}

/// A fitted model: `P(y = 1 | x) = σ(x·w + b)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Fitted {
    pub w: Vec<f64>,
    pub b: f64,
    pub c: f64,
    /// Newton steps taken.
    pub iterations: usize,
}

impl Fitted {
    pub fn decision(&self, x: &[f64]) -> f64 {
        x.iter().zip(&self.w).map(|(a, b)| a * b).sum::<f64>() + self.b
    }
    pub fn probability(&self, x: &[f64]) -> f64 {
        sigmoid(self.decision(x))
    }
}

fn sigmoid(u: f64) -> f64 {
    if u >= 0.0 { 1.0 / (1.0 + (-u).exp()) } else { u.exp() / (1.0 + u.exp()) }
}

/// `log(1 + eᵘ)` without overflow.
fn softplus(u: f64) -> f64 {
    if u > 0.0 { u + (-u).exp().ln_1p() } else { u.exp().ln_1p() }
}

/// Rows of a row-major `n × p` matrix.
fn rows(x: &[f64], p: usize) -> DMatrix<f64> {
    DMatrix::from_row_slice(x.len() / p.max(1), p, x)
}

/// Fits on the row-major `n × p` matrix `x` with labels `y` (true = the positive class) at strength `c`.
pub fn fit(x: &[f64], p: usize, y: &[bool], c: f64) -> Fitted {
    let xm = rows(x, p);
    let k = &xm * xm.transpose();
    let (alpha, b, iterations) = solve(&k, y, c, None);
    let w = xm.transpose() * alpha;
    Fitted { w: w.as_slice().to_vec(), b, c, iterations }
}

/// Newton's method on `(α, b)` for the Gram matrix `k`, from `start` (a neighbouring `C`'s solution) or
/// zero; returns α, b and the steps taken.
fn solve(k: &DMatrix<f64>, y: &[bool], c: f64, start: Option<&(DVector<f64>, f64)>) -> (DVector<f64>, f64, usize) {
    let n = y.len();
    let t = DVector::from_iterator(n, y.iter().map(|&v| if v { 1.0 } else { 0.0 }));
    let objective = |alpha: &DVector<f64>, b: f64| -> f64 {
        let ka = k * alpha;
        let loss: f64 = (0..n).map(|i| softplus(ka[i] + b) - t[i] * (ka[i] + b)).sum();
        c * loss + 0.5 * alpha.dot(&ka)
    };
    let (mut alpha, mut b) = start.cloned().unwrap_or_else(|| (DVector::<f64>::zeros(n), 0.0));
    let mut f = objective(&alpha, b);
    let mut steps = 0;
    for _ in 0..100 {
        let u = k * &alpha + DVector::from_element(n, b);
        let prob = u.map(sigmoid);
        let d = prob.map(|q| q * (1.0 - q));
        // v = C(p − y) + α: the primal gradient is Xᵀv (so its squared norm is vᵀKv) and C Σ(p − y) for b.
        let v = (&prob - &t) * c + &alpha;
        let grad_w = v.dot(&(k * &v)).max(0.0).sqrt();
        let grad_b = c * (&prob - &t).sum();
        if grad_w.max(grad_b.abs()) <= 1e-9 * (1.0 + c * n as f64) {
            break;
        }
        // The Newton system with K factored out of its first block row:
        // (C D K + I) Δα + C D 1 Δb = −v,   C 1ᵀ D K Δα + C 1ᵀ D 1 Δb = −C 1ᵀ(p − y).
        let mut h = DMatrix::<f64>::zeros(n + 1, n + 1);
        let dk = DMatrix::from_fn(n, n, |i, j| c * d[i] * k[(i, j)]);
        h.view_mut((0, 0), (n, n)).copy_from(&dk);
        for i in 0..n {
            h[(i, i)] += 1.0;
            h[(i, n)] = c * d[i];
        }
        for j in 0..n {
            h[(n, j)] = (0..n).map(|i| dk[(i, j)]).sum();
        }
        h[(n, n)] = c * d.sum();
        let mut rhs = DVector::<f64>::zeros(n + 1);
        rhs.rows_mut(0, n).copy_from(&(-&v));
        rhs[n] = -grad_b;
        let Some(step) = h.lu().solve(&rhs) else { break };
        let (da, db) = (step.rows(0, n).into_owned(), step[n]);
        // Backtracking: a full step almost always; halve until the objective does not rise.
        let mut s = 1.0;
        let mut moved = false;
        for _ in 0..40 {
            let (a2, b2) = (&alpha + &da * s, b + db * s);
            let f2 = objective(&a2, b2);
            if f2 <= f + 1e-12 * f.abs().max(1.0) {
                alpha = a2;
                b = b2;
                f = f2;
                moved = true;
                break;
            }
            s *= 0.5;
        }
        steps += 1;
        if !moved {
            break;
        }
    }
    (alpha, b, steps)
}

/// scikit-learn's `StratifiedKFold(n_splits).split` test-fold number of each sample (no shuffle): classes
/// numbered by first appearance, the sorted labels dealt round-robin into folds to size them, then each
/// class's samples take fold numbers in order.
pub fn stratified_folds(y: &[bool], n_splits: usize) -> Vec<usize> {
    let first = y.first().copied().unwrap_or(false);
    // Encoded by order of appearance: the first sample's class is 0.
    let code = |v: bool| usize::from(v != first);
    let mut order: Vec<usize> = y.iter().map(|&v| code(v)).collect();
    order.sort_unstable();
    let mut allocation = vec![[0usize; 2]; n_splits];
    for (i, &cl) in order.iter().enumerate() {
        allocation[i % n_splits][cl] += 1;
    }
    let mut folds = vec![0; y.len()];
    for cl in 0..2 {
        let mut numbers = (0..n_splits).flat_map(|f| std::iter::repeat_n(f, allocation[f][cl]));
        for (i, &v) in y.iter().enumerate() {
            if code(v) == cl {
                folds[i] = numbers.next().unwrap_or(0);
            }
        }
    }
    folds
}

/// Cross-validated choice of `C` and the refit.
#[derive(Debug, Clone, PartialEq)]
pub struct CvFit {
    pub model: Fitted,
    /// The grid and each value's mean accuracy over the folds.
    pub cs: Vec<f64>,
    pub scores: Vec<f64>,
    pub folds: usize,
}

/// `LogisticRegressionCV(Cs=cs, cv=StratifiedKFold(folds), scoring="accuracy", refit=True)`.
pub fn fit_cv(x: &[f64], p: usize, y: &[bool], cs: &[f64], n_splits: usize) -> CvFit {
    let n = y.len();
    let xm = rows(x, p);
    let k = &xm * xm.transpose();
    let fold = stratified_folds(y, n_splits);
    let mut scores = vec![0.0; cs.len()];
    for f in 0..n_splits {
        let train: Vec<usize> = (0..n).filter(|&i| fold[i] != f).collect();
        let test: Vec<usize> = (0..n).filter(|&i| fold[i] == f).collect();
        if train.is_empty() || test.is_empty() {
            continue;
        }
        let ktr = k.select_rows(&train).select_columns(&train);
        let kte = k.select_rows(&test).select_columns(&train);
        let ytr: Vec<bool> = train.iter().map(|&i| y[i]).collect();
        let mut last: Option<(DVector<f64>, f64)> = None;
        for (s, &c) in scores.iter_mut().zip(cs) {
            let (alpha, b, _) = solve(&ktr, &ytr, c, last.as_ref());
            let u = &kte * &alpha;
            let right = test.iter().enumerate().filter(|&(j, &i)| (u[j] + b > 0.0) == y[i]).count();
            *s += right as f64 / test.len() as f64 / n_splits as f64;
            last = Some((alpha, b));
        }
    }
    // The first best, as numpy's argmax.
    let best = scores.iter().enumerate().fold(0, |b, (i, &s)| if s > scores[b] { i } else { b });
    let (alpha, b, iterations) = solve(&k, y, cs[best], None);
    let w = xm.transpose() * alpha;
    CvFit {
        model: Fitted { w: w.as_slice().to_vec(), b, c: cs[best], iterations },
        cs: cs.to_vec(),
        scores,
        folds: n_splits,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_are_scikit_learns() {
        // scikit-learn 1.9.1: `StratifiedKFold(3).split(np.zeros(10), y)` for y = [1,1,0,0,1,0,1,1,0,1] gives
        // the test folds [0 1 2 3], [4 5 6], [7 8 9].
        let y = [true, true, false, false, true, false, true, true, false, true];
        assert_eq!(stratified_folds(&y, 3), vec![0, 0, 0, 0, 1, 1, 1, 2, 2, 2]);
    }

    #[test]
    fn a_separable_pair_is_fitted_to_the_optimum() {
        // One feature, x = ±1, labels by sign; C = 1: by symmetry b = 0 and w solves w = 2σ(−w), w ≈ 0.67483.
        let x = [1.0, -1.0];
        let m = fit(&x, 1, &[true, false], 1.0);
        assert!(m.b.abs() < 1e-10, "{m:?}");
        assert!((m.w[0] - 2.0 * sigmoid(-m.w[0])).abs() < 1e-10, "{m:?}");
        assert!((m.w[0] - 0.67483).abs() < 1e-5, "{m:?}");
    }
}
