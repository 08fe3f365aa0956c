//! Python arguments to the wire parameters of an endpoint: one JSON object whose numbers keep
//! their exact text, read by the core's [`ParamMap`](digifinex_core::catalog::ParamMap) like
//! `digifinex call --json`.
//!
//! DESIGN: `decimal.Decimal`, `int` and `str` are accepted for numbers (a `Decimal` is written
//! in plain notation: `Decimal("1E-8")` is sent as `0.00000001`); a `float` is refused with a
//! `TypeError` naming the parameter, since its binary value is not the decimal the user read
//! (`0.1` is 0.1000000000000000055...). Lists, tuples and dicts (batch orders) are written
//! recursively, at most [`MAX_DEPTH`] deep; `None` members are left out (absent), as the
//! keyword arguments of an optional parameter usually mean.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::to_py::decimal_class;

/// How deep lists and dicts may nest in one parameter.
pub(crate) const MAX_DEPTH: usize = 16;

/// Writes `params` (name -> value, `None` values left out) as one JSON object.
pub(crate) fn params_json(params: &[(String, Bound<'_, PyAny>)]) -> PyResult<String> {
    let mut out = String::from("{");
    let mut first = true;
    for (name, value) in params {
        if value.is_none() {
            continue;
        }
        if !first {
            out.push(',');
        }
        first = false;
        push_str(&mut out, name);
        out.push(':');
        write_value(&mut out, value, name, 0)?;
    }
    out.push('}');
    Ok(out)
}

/// The builtin `format`, looked up once.
fn format_builtin(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    static FORMAT: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();
    FORMAT
        .get_or_try_init(py, || {
            Ok::<_, PyErr>(py.import("builtins")?.getattr("format")?.unbind())
        })
        .map(|f| f.bind(py))
}

/// Writes one value as JSON (`at` names it in errors).
pub(crate) fn value_json(value: &Bound<'_, PyAny>, at: &str) -> PyResult<String> {
    let mut out = String::new();
    write_value(&mut out, value, at, 0)?;
    Ok(out)
}

/// An exact decimal from a `decimal.Decimal`, an `int` or a `str` (never a float).
pub(crate) fn decimal_arg(value: &Bound<'_, PyAny>, at: &str) -> PyResult<digifinex_core::Decimal> {
    let text = value_json(value, at)?;
    let text = text.trim_matches('"');
    digifinex_core::Decimal::from_str_exact(text)
        .map_err(|_| PyValueError::new_err(format!("`{at}` is not a decimal: {text}")))
}

fn push_str(out: &mut String, s: &str) {
    // serde_json's escaping; writing a `str` to a `String` cannot fail.
    match serde_json::to_string(s) {
        Ok(text) => out.push_str(&text),
        Err(_) => out.push_str("\"\""),
    }
}

fn write_value(out: &mut String, v: &Bound<'_, PyAny>, at: &str, depth: usize) -> PyResult<()> {
    if depth > MAX_DEPTH {
        return Err(PyValueError::new_err(format!(
            "parameter `{at}` nests more than {MAX_DEPTH} levels"
        )));
    }
    let py = v.py();
    if v.is_none() {
        out.push_str("null");
    } else if v.is_instance_of::<PyBool>() {
        out.push_str(if v.is_truthy()? { "true" } else { "false" });
    } else if v.is_instance_of::<PyInt>() {
        out.push_str(&v.str()?.to_cow()?);
    } else if v.is_instance_of::<PyFloat>() {
        return Err(PyTypeError::new_err(format!(
            "parameter `{at}` is a float: pass a decimal.Decimal or a str (a float's binary value \
             is not the decimal you wrote)"
        )));
    } else if v.is_instance(decimal_class(py)?)? {
        if !v.call_method0("is_finite")?.is_truthy()? {
            return Err(PyValueError::new_err(format!(
                "parameter `{at}` is not a finite decimal"
            )));
        }
        // `str()` is plain notation for most values; an exponent form (`1E+2`, `1E-7`) is
        // written out with format(v, "f").
        let text = v.str()?;
        let text = text.to_cow()?;
        if text.contains(['E', 'e']) {
            let plain = format_builtin(py)?.call1((v, "f"))?;
            out.push_str(&plain.str()?.to_cow()?);
        } else {
            out.push_str(&text);
        }
    } else if let Ok(s) = v.cast::<PyString>() {
        push_str(out, &s.to_cow()?);
    } else if let Ok(list) = v.cast::<PyList>() {
        out.push('[');
        for (i, item) in list.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_value(out, &item, &format!("{at}[{i}]"), depth + 1)?;
        }
        out.push(']');
    } else if let Ok(tuple) = v.cast::<PyTuple>() {
        out.push('[');
        for (i, item) in tuple.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_value(out, &item, &format!("{at}[{i}]"), depth + 1)?;
        }
        out.push(']');
    } else if let Ok(dict) = v.cast::<PyDict>() {
        out.push('{');
        let mut first = true;
        for (k, item) in dict.iter() {
            let key = k.cast::<PyString>().map_err(|_| {
                PyTypeError::new_err(format!("parameter `{at}` has a key that is not a str"))
            })?;
            if item.is_none() {
                continue;
            }
            if !first {
                out.push(',');
            }
            first = false;
            let key = key.to_cow()?;
            push_str(out, &key);
            out.push(':');
            write_value(out, &item, &format!("{at}.{key}"), depth + 1)?;
        }
        out.push('}');
    } else {
        return Err(PyTypeError::new_err(format!(
            "parameter `{at}` is a {}: pass a str, int, decimal.Decimal, bool, list or dict",
            v.get_type().name()?
        )));
    }
    Ok(())
}
