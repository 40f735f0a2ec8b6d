//! A JSON Schema that cannot be compiled (the keyword and its path in the schema), or a value that does not
//! match one (the path in the value and what was expected).

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SchemaError {
    /// Unsupported or malformed schema; the text names the keyword and its path.
    #[error("{0}")]
    Compile(String),
    /// A value against a compiled schema; the text names the path and the expectation.
    #[error("{0}")]
    Mismatch(String),
}

crate::util::error::text_conversions!(SchemaError, SchemaError::Mismatch);
