//! Thin Python bindings: run a canonical configuration, list the registry.
use pyo3::prelude::*;

#[pymodule]
fn _core(_m: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
