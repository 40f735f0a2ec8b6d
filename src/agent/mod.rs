//! Agents over the analysis core. `graph`: BrainAgent for connectomes (understanding, the
//! Think-Report-Action-Observation loop over HARK, CARD and the network analysis functions, analysis,
//! reflection, baselines, batch evaluation and interpretability scores).

pub mod graph;
