//! A command's failure: the message printed on stderr and the exit code.

use engram_host::Error;

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

    /// A failed write to the output, except a closed pipe (`engram list |
    /// head` stops reading: not a failure of the command).
    pub fn output(e: std::io::Error) -> Result<(), Failure> {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            Ok(())
        } else {
            Err(Failure {
                code: 1,
                message: format!("writing output: {e}"),
            })
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
