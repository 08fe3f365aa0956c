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

/// `recording_header(path)`: the recording's header: `version`, `created_ms`, `source`, `spot`
/// (`symbol`, `price_precision`, `amount_precision`, `min_amount`, `min_value`) and `swap`
/// (`instrument_id`, `base`, `quote`, `contract_value`, `price_precision`, `tick_size`,
/// `min_order_amount`, `funding_interval_hours`), decimals as `decimal.Decimal`.
#[pyfunction]
pub(crate) fn recording_header<'py>(
    py: Python<'py>,
    path: PathBuf,
) -> PyResult<Bound<'py, PyDict>> {
    let reader = py
        .detach(|| digifinex_market::Reader::open(&path))
        .map_err(|e| PyOSError::new_err(format!("{}: {e}", path.display())))?;
    let h = reader.header();
    let dec = |d: &digifinex_core::Decimal| -> PyResult<Bound<'py, PyAny>> {
        crate::to_py::decimal_class(py)?.call1((d.to_string(),))
    };
    let out = PyDict::new(py);
    out.set_item("version", h.version)?;
    out.set_item("created_ms", h.created_ms)?;
    out.set_item("source", h.source.as_deref())?;
    let spot = PyList::empty(py);
    for p in &h.spot {
        let d = PyDict::new(py);
        d.set_item("symbol", &p.symbol)?;
        d.set_item("price_precision", p.price_precision)?;
        d.set_item("amount_precision", p.amount_precision)?;
        d.set_item("min_amount", dec(&p.min_amount)?)?;
        d.set_item("min_value", dec(&p.min_value)?)?;
        spot.append(d)?;
    }
    out.set_item("spot", spot)?;
    let swap = PyList::empty(py);
    for i in &h.swap {
        let d = PyDict::new(py);
        d.set_item("instrument_id", &i.instrument_id)?;
        d.set_item("base", &i.base)?;
        d.set_item("quote", &i.quote)?;
        d.set_item("contract_value", dec(&i.contract_value)?)?;
        d.set_item("price_precision", i.price_precision)?;
        d.set_item("tick_size", dec(&i.tick_size)?)?;
        d.set_item("min_order_amount", dec(&i.min_order_amount)?)?;
        d.set_item("funding_interval_hours", i.funding_interval_hours)?;
        swap.append(d)?;
    }
    out.set_item("swap", swap)?;
    Ok(out)
}
