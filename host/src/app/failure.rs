//! A command's failure: the message printed on stderr and the exit code.

use crate::Error;

/// A failure with the exit code it maps to.
#[derive(Debug)]
pub struct Failure {
    pub code: i32,
    pub message: String,
}

impl Failure {
    pub fn input(message: impl Into<String>) -> Self {
        Failure {
            code: 1,
            message: message.into(),
        }
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        let code = match e {
            Error::Runtime(_) => 3,
            _ => 1,
        };
        Failure {
            code,
            message: e.to_string(),
        }
    }
}
