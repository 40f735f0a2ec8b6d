//! EDF, EDF+ and BDF(+) files: lenient reader with repair report, lossless writer.

pub mod derive;
pub mod error;
pub mod fields;
pub mod header;
pub mod layout;
pub mod reader;
pub mod save;
pub mod tal;
pub mod writer;

pub use error::{EdfError, Repair};
pub use header::{EdfFormat, Header, SignalHeader, StartTime};
pub use reader::{Annotation, EdfFile};
pub use writer::{WriteSpec, write_edf};
