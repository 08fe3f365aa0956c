//! The native part of the `digifinex` Python package (PyO3, the stable ABI from CPython 3.9):
//! the exact client over the sans-IO core and the blocking transport, and the simulator in the
//! same process. The Python side (`python/digifinex/`) adds the helpers, the exception names
//! and the type stubs; users import `digifinex`, never this module.
#![forbid(unsafe_code)]
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use pyo3::prelude::*;

mod backtest;
mod client;
mod errors;
mod feed;
mod from_py;
mod recording;
mod sim;
mod stream;
mod to_py;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    backtest::register(m)?;
    m.add_class::<client::PyClient>()?;
    m.add_class::<sim::PySim>()?;
    m.add_class::<stream::PyStream>()?;
    m.add_class::<feed::PyFeedConsumer>()?;
    m.add_function(wrap_pyfunction!(client::decode, m)?)?;
    m.add_function(wrap_pyfunction!(recording::export_recording, m)?)?;
    m.add_function(wrap_pyfunction!(recording::recording_header, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
