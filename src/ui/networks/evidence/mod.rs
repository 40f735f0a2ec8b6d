//! Evidence panels of the Networks room: HARK (knowledge items with their region overlap and text
//! similarity) and CARD (similar cases with graph and text similarity), every candidate shown, not only the
//! winners; the cohort model (a validated regression's calibrated P and the edges that moved it).

pub mod card;
pub mod case_review;
pub mod cohort_model;
pub mod gfm;
pub mod hark;
pub mod review;

pub use card::CardPanel;
pub use case_review::CaseReviewPanel;
pub use cohort_model::CohortModelPanel;
pub use gfm::GfmPanel;
pub use hark::HarkPanel;
pub use review::ReviewPanel;
