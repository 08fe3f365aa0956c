//! Recordings (`digifinex record`) to tables: the export crate writes each table as Parquet
//! (decimals as `DECIMAL(38, 18)`, times as UTC microsecond timestamps) into a directory the
//! Python side reads with pyarrow and removes (`digifinex.read_recording`). Decimals never pass
//! through a float.

use std::path::PathBuf;

use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// `export_recording(path, out_dir, top=None)`: the recording's tables as Parquet files in
/// `out_dir`; returns the summary (`records`, `tables` [{name, rows, path}], `bad_lines`,
/// `messages`, `truncated`, `unknown_kinds`, `repeated_trades`, `dropped_deltas`,
/// `bad_times`, `unfit_records`, `damaged`).
#[pyfunction]
#[pyo3(signature = (path, out_dir, top=None))]
pub(crate) fn export_recording<'py>(
    py: Python<'py>,
    path: PathBuf,
    out_dir: PathBuf,
    top: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    if top.is_some_and(|n| n == 0 || n > 1000) {
        return Err(PyValueError::new_err("top is 1..=1000 levels per side"));
    }
    let opts = digifinex_export::Options {
        format: digifinex_export::Format::Parquet,
        float: false,
        top,
    };
    let summary = py
        .detach(|| digifinex_export::export(&path, &out_dir, &opts))
        .map_err(|e| PyOSError::new_err(format!("{}: {e}", path.display())))?;
    let out = PyDict::new(py);
    out.set_item("records", summary.records)?;
    let tables = PyList::empty(py);
    for t in &summary.tables {
        let d = PyDict::new(py);
        d.set_item("name", &t.name)?;
        d.set_item("rows", t.rows)?;
        d.set_item("path", t.path.to_string_lossy())?;
        tables.append(d)?;
    }
    out.set_item("tables", tables)?;
    out.set_item("bad_lines", summary.bad_lines)?;
    out.set_item("messages", summary.messages.clone())?;
    out.set_item("truncated", summary.truncated)?;
    out.set_item("unknown_kinds", summary.unknown_kinds)?;
    out.set_item("repeated_trades", summary.repeated_trades)?;
    out.set_item("dropped_deltas", summary.dropped_deltas)?;
    out.set_item("bad_times", summary.bad_times)?;
    out.set_item("unfit_records", summary.unfit_records)?;
    out.set_item("damaged", summary.damaged())?;
    Ok(out)
}
