//! The one place engine errors become Python exceptions.

use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::PyErr;
use shardlab_engine::EngineError;

create_exception!(
    shardlab._engine,
    SpecError,
    PyValueError,
    "The engine spec is invalid; the message names the field."
);

pub fn to_py(e: EngineError) -> PyErr {
    match e {
        EngineError::Spec(e) => SpecError::new_err(e.0),
        EngineError::State(s) => PyRuntimeError::new_err(s),
        EngineError::Internal(s) => PyRuntimeError::new_err(s),
    }
}

pub fn io_to_py(e: std::io::Error) -> PyErr {
    PyOSError::new_err(e.to_string())
}

/// A bad argument (e.g. undecodable histogram bytes); the message says which one.
pub fn value_error(message: String) -> PyErr {
    PyValueError::new_err(message)
}
