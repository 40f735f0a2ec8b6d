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

impl From<String> for SchemaError {
    fn from(s: String) -> Self {
        SchemaError::Mismatch(s)
    }
}

impl From<&str> for SchemaError {
    fn from(s: &str) -> Self {
        SchemaError::Mismatch(s.to_string())
    }
}

impl From<SchemaError> for String {
    fn from(e: SchemaError) -> String {
        e.to_string()
    }
}
