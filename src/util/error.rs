//! The context a failure happened in ("reading cases.json", "labels.csv line 4"), for the core modules'
//! typed errors: `.context(…)` / `.with_context(|| …)` on any `Result` whose error displays, giving a
//! `ContextError` each module's error enum takes in with `#[from]`.

use std::fmt::Display;

/// What was being done (`context`) and what went wrong (`message`).
/// Displayed as `context: message`, or the context alone for an `Option` that was `None` (the context says
/// what is missing).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{context}{}{message}", if message.is_empty() { "" } else { ": " })]
pub struct ContextError {
    pub context: String,
    pub message: String,
}

pub trait Context<T> {
    fn context(self, context: impl Display) -> Result<T, ContextError>;
    fn with_context<C: Display>(self, context: impl FnOnce() -> C) -> Result<T, ContextError>;
}

impl<T, E: Display> Context<T> for Result<T, E> {
    fn context(self, context: impl Display) -> Result<T, ContextError> {
        self.map_err(|e| ContextError { context: context.to_string(), message: e.to_string() })
    }
    fn with_context<C: Display>(self, context: impl FnOnce() -> C) -> Result<T, ContextError> {
        self.map_err(|e| ContextError { context: context().to_string(), message: e.to_string() })
    }
}

impl<T> Context<T> for Option<T> {
    fn context(self, context: impl Display) -> Result<T, ContextError> {
        self.ok_or_else(|| ContextError { context: context.to_string(), message: String::new() })
    }
    fn with_context<C: Display>(self, context: impl FnOnce() -> C) -> Result<T, ContextError> {
        self.ok_or_else(|| ContextError { context: context().to_string(), message: String::new() })
    }
}

/// `From<String>`, `From<&str>` (both through `$ctor`, the variant or tuple struct that holds a message) and
/// `From<$ty> for String`, for an error type whose text is its message.
macro_rules! text_conversions {
    ($ty:ty, $ctor:path) => {
        impl From<String> for $ty {
            fn from(s: String) -> Self {
                $ctor(s)
            }
        }
        impl From<&str> for $ty {
            fn from(s: &str) -> Self {
                $ctor(s.to_string())
            }
        }
        impl From<$ty> for String {
            fn from(e: $ty) -> String {
                e.to_string()
            }
        }
    };
}

/// A module error enum's message conversions (`Invalid` holds the text) and `E::context`.
macro_rules! message_conversions {
    ($ty:ident) => {
        $crate::util::error::text_conversions!($ty, $ty::Invalid);

        impl $ty {
            /// This error, with what was being done when it happened.
            pub fn context(self, context: impl std::fmt::Display) -> Self {
                $ty::Context($crate::util::error::ContextError {
                    context: context.to_string(),
                    message: self.to_string(),
                })
            }
        }
    };
}

/// A module's error enum: the variants every module has (`Context`, `Io`, `Json`, `Invalid`, `Cancelled`)
/// and one transparent `#[from]` variant per lower layer it calls, the message conversions, `E::context`
/// and `Result<T, E = $name>`.
macro_rules! module_error {
    ($(#[doc = $doc:literal])* $name:ident { $($variant:ident: $inner:ty),* $(,)? }) => {
        $(#[doc = $doc])*
        #[derive(Debug, thiserror::Error)]
        pub enum $name {
            /// What was being done ("reading FILE", "FILE line 4") and what went wrong.
            #[error(transparent)]
            Context(#[from] $crate::util::error::ContextError),
            #[error(transparent)]
            Io(#[from] std::io::Error),
            #[error(transparent)]
            Json(#[from] serde_json::Error),
            $(
                #[error(transparent)]
                $variant(#[from] $inner),
            )*
            /// An input or parameter that cannot be used as given; the text names it and what was expected.
            #[error("{0}")]
            Invalid(String),
            /// Stopped by its `Cancel` token.
            #[error("cancelled")]
            Cancelled,
        }

        $crate::util::error::message_conversions!($name);

        pub type Result<T, E = $name> = std::result::Result<T, E>;
    };
}

pub(crate) use {message_conversions, module_error, text_conversions};

#[cfg(test)]
mod tests {
    use super::Context;

    #[test]
    fn context_names_what_was_done_and_a_missing_value_alone() {
        let e = "x".parse::<u32>().context("labels.csv line 4").unwrap_err();
        assert_eq!(e.to_string(), "labels.csv line 4: invalid digit found in string");
        let e = None::<u32>.with_context(|| "cases.json: no eval_config").unwrap_err();
        assert_eq!(e.to_string(), "cases.json: no eval_config");
    }
}
