//! Errors and repair notes of the EDF/BDF reader.
//!
//! An error names the file, where in it the problem is (byte offset and field) and the bad value, as in
//! `test.edf: header byte 236 (number of data records): '-x' is not a whole number`.

use serde::Serialize;
use std::fmt;
use std::path::{Path, PathBuf};

/// A file that cannot be opened, with the place and value that made it unreadable.
#[derive(Debug, Clone, thiserror::Error)]
pub struct EdfError {
    /// The file that was being read.
    pub path: PathBuf,
    /// Byte offset of the offending field, when there is one.
    pub offset: Option<u64>,
    /// The field or structure that failed (e.g. "number of signals").
    pub field: String,
    /// What is wrong, including the bad value.
    pub problem: String,
}

impl EdfError {
    /// An error at a byte offset.
    pub fn at(path: &Path, offset: u64, field: &str, problem: impl Into<String>) -> Self {
        Self { path: path.to_path_buf(), offset: Some(offset), field: field.to_string(), problem: problem.into() }
    }

    /// An error about the file as a whole (I/O, size).
    pub fn file(path: &Path, field: &str, problem: impl Into<String>) -> Self {
        Self { path: path.to_path_buf(), offset: None, field: field.to_string(), problem: problem.into() }
    }
}

impl fmt::Display for EdfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.path.display();
        match self.offset {
            Some(off) => write!(f, "{name}: header byte {off} ({}): {}", self.field, self.problem),
            None => write!(f, "{name}: {}: {}", self.field, self.problem),
        }
    }
}

/// One recoverable spec violation that the lenient reader fixed, shown to the user as a repair report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Repair {
    /// Byte offset of the field, when the repair concerns one field.
    pub offset: Option<u64>,
    /// The field that was repaired.
    pub field: String,
    /// What was found and what the reader did instead.
    pub action: String,
}

impl Repair {
    /// A repair at a byte offset.
    pub fn at(offset: u64, field: &str, action: impl Into<String>) -> Self {
        Self { offset: Some(offset), field: field.to_string(), action: action.into() }
    }

    /// A repair of the file as a whole.
    pub fn file(field: &str, action: impl Into<String>) -> Self {
        Self { offset: None, field: field.to_string(), action: action.into() }
    }
}

impl fmt::Display for Repair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.offset {
            Some(off) => write!(f, "byte {off} ({}): {}", self.field, self.action),
            None => write!(f, "{}: {}", self.field, self.action),
        }
    }
}
