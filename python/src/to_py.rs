//! Typed answers to Python values: a `serde` serializer that builds Python objects directly.
//!
//! The shape is the JSON `digifinex call` prints (the models' `Serialize`), with two
//! differences that make it native: a decimal (serialized by the core inside the
//! [`DECIMAL_NEWTYPE`] newtype struct) becomes `decimal.Decimal` built from its exact text,
//! never a float, and integers stay Python `int`s (timestamps in milliseconds or seconds as the
//! venue gives them). Maps and structs become `dict`s, sequences and tuples `list`s, unit and
//! `None` `None`.
//!
//! DESIGN: no intermediate `serde_json::Value` (whose strings would lose which ones were
//! decimals) and no JSON text round trip; floats cannot occur (no model holds one), and a
//! float reaching this serializer is refused rather than passed through.

use digifinex_core::DECIMAL_NEWTYPE;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyList, PyString};
use pyo3::IntoPyObjectExt;
use serde::ser::{self, Serialize};

/// `decimal.Decimal`, imported once.
static DECIMAL: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// The `decimal.Decimal` class.
pub(crate) fn decimal_class(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    DECIMAL
        .get_or_try_init(py, || {
            Ok::<_, PyErr>(py.import("decimal")?.getattr("Decimal")?.unbind())
        })
        .map(|c| c.bind(py))
}

/// Converts `value` into Python objects.
pub(crate) fn to_py<'py, T: Serialize + ?Sized>(
    py: Python<'py>,
    value: &T,
) -> PyResult<Bound<'py, PyAny>> {
    value.serialize(ToPy { py }).map_err(|e| e.0)
}

/// A conversion failure: the Python error (an import, an allocation) or a value no model has.
#[derive(Debug)]
pub(crate) struct ConvError(PyErr);

impl std::fmt::Display for ConvError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.0, f)
    }
}

impl std::error::Error for ConvError {}

impl ser::Error for ConvError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        ConvError(pyo3::exceptions::PyValueError::new_err(msg.to_string()))
    }
}

impl From<PyErr> for ConvError {
    fn from(e: PyErr) -> Self {
        ConvError(e)
    }
}

#[derive(Clone, Copy)]
struct ToPy<'py> {
    py: Python<'py>,
}

type Out<'py> = Result<Bound<'py, PyAny>, ConvError>;

impl<'py> ToPy<'py> {
    fn int<I: IntoPyObject<'py>>(self, v: I) -> Out<'py> {
        Ok(v.into_bound_py_any(self.py)?)
    }
}

/// Builds a `decimal.Decimal` from the text the inner value serializes as.
struct DecimalText<'py> {
    py: Python<'py>,
}

impl<'py> ser::Serializer for ToPy<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = ConvError;
    type SerializeSeq = Seq<'py>;
    type SerializeTuple = Seq<'py>;
    type SerializeTupleStruct = Seq<'py>;
    type SerializeTupleVariant = Seq<'py>;
    type SerializeMap = Map<'py>;
    type SerializeStruct = Map<'py>;
    type SerializeStructVariant = Map<'py>;

    fn serialize_bool(self, v: bool) -> Out<'py> {
        Ok(PyBool::new(self.py, v).to_owned().into_any())
    }
    fn serialize_i8(self, v: i8) -> Out<'py> {
        self.int(v)
    }
    fn serialize_i16(self, v: i16) -> Out<'py> {
        self.int(v)
    }
    fn serialize_i32(self, v: i32) -> Out<'py> {
        self.int(v)
    }
    fn serialize_i64(self, v: i64) -> Out<'py> {
        self.int(v)
    }
    fn serialize_i128(self, v: i128) -> Out<'py> {
        self.int(v)
    }
    fn serialize_u8(self, v: u8) -> Out<'py> {
        self.int(v)
    }
    fn serialize_u16(self, v: u16) -> Out<'py> {
        self.int(v)
    }
    fn serialize_u32(self, v: u32) -> Out<'py> {
        self.int(v)
    }
    fn serialize_u64(self, v: u64) -> Out<'py> {
        self.int(v)
    }
    fn serialize_u128(self, v: u128) -> Out<'py> {
        self.int(v)
    }
    fn serialize_f32(self, _v: f32) -> Out<'py> {
        Err(ser::Error::custom(
            "a float in a model (money is never a float)",
        ))
    }
    fn serialize_f64(self, _v: f64) -> Out<'py> {
        Err(ser::Error::custom(
            "a float in a model (money is never a float)",
        ))
    }
    fn serialize_char(self, v: char) -> Out<'py> {
        let mut buf = [0u8; 4];
        self.serialize_str(v.encode_utf8(&mut buf))
    }
    fn serialize_str(self, v: &str) -> Out<'py> {
        Ok(PyString::new(self.py, v).into_any())
    }
    fn serialize_bytes(self, v: &[u8]) -> Out<'py> {
        Ok(pyo3::types::PyBytes::new(self.py, v).into_any())
    }
    fn serialize_none(self) -> Out<'py> {
        Ok(self.py.None().into_bound(self.py))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Out<'py> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Out<'py> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Out<'py> {
        self.serialize_none()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Out<'py> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Out<'py> {
        if name == DECIMAL_NEWTYPE {
            value.serialize(DecimalText { py: self.py })
        } else {
            value.serialize(self)
        }
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Out<'py> {
        let d = PyDict::new(self.py);
        d.set_item(variant, value.serialize(self)?)?;
        Ok(d.into_any())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Seq<'py>, ConvError> {
        Ok(Seq {
            to: self,
            list: PyList::empty(self.py),
            variant: None,
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<Seq<'py>, ConvError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Seq<'py>, ConvError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Seq<'py>, ConvError> {
        Ok(Seq {
            to: self,
            list: PyList::empty(self.py),
            variant: Some(variant),
        })
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Map<'py>, ConvError> {
        Ok(Map {
            to: self,
            dict: PyDict::new(self.py),
            key: None,
            variant: None,
        })
    }
    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<Map<'py>, ConvError> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Map<'py>, ConvError> {
        Ok(Map {
            to: self,
            dict: PyDict::new(self.py),
            key: None,
            variant: Some(variant),
        })
    }
}

/// A list being built.
pub(crate) struct Seq<'py> {
    to: ToPy<'py>,
    list: Bound<'py, PyList>,
    variant: Option<&'static str>,
}

impl<'py> Seq<'py> {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), ConvError> {
        self.list.append(value.serialize(self.to)?)?;
        Ok(())
    }
    fn finish(self) -> Out<'py> {
        match self.variant {
            None => Ok(self.list.into_any()),
            Some(v) => {
                let d = PyDict::new(self.to.py);
                d.set_item(v, self.list)?;
                Ok(d.into_any())
            }
        }
    }
}

macro_rules! seq_impl {
    ($($tr:ident :: $m:ident),*) => {$(
        impl<'py> ser::$tr for Seq<'py> {
            type Ok = Bound<'py, PyAny>;
            type Error = ConvError;
            fn $m<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), ConvError> {
                self.push(value)
            }
            fn end(self) -> Out<'py> {
                self.finish()
            }
        }
    )*};
}

seq_impl!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

/// A dict being built.
pub(crate) struct Map<'py> {
    to: ToPy<'py>,
    dict: Bound<'py, PyDict>,
    key: Option<Bound<'py, PyAny>>,
    variant: Option<&'static str>,
}

impl<'py> Map<'py> {
    fn finish(self) -> Out<'py> {
        match self.variant {
            None => Ok(self.dict.into_any()),
            Some(v) => {
                let d = PyDict::new(self.to.py);
                d.set_item(v, self.dict)?;
                Ok(d.into_any())
            }
        }
    }
    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), ConvError> {
        self.dict.set_item(key, value.serialize(self.to)?)?;
        Ok(())
    }
}

impl<'py> ser::SerializeMap for Map<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = ConvError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), ConvError> {
        self.key = Some(key.serialize(self.to)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), ConvError> {
        let key = self
            .key
            .take()
            .ok_or_else(|| <ConvError as ser::Error>::custom("a map value without its key"))?;
        self.dict.set_item(key, value.serialize(self.to)?)?;
        Ok(())
    }
    fn end(self) -> Out<'py> {
        self.finish()
    }
}

impl<'py> ser::SerializeStruct for Map<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = ConvError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), ConvError> {
        self.field(key, value)
    }
    fn end(self) -> Out<'py> {
        self.finish()
    }
}

impl<'py> ser::SerializeStructVariant for Map<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = ConvError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), ConvError> {
        self.field(key, value)
    }
    fn end(self) -> Out<'py> {
        self.finish()
    }
}

/// The inner value of a decimal newtype: only its text is accepted.
impl<'py> ser::Serializer for DecimalText<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = ConvError;
    type SerializeSeq = ser::Impossible<Bound<'py, PyAny>, ConvError>;
    type SerializeTuple = ser::Impossible<Bound<'py, PyAny>, ConvError>;
    type SerializeTupleStruct = ser::Impossible<Bound<'py, PyAny>, ConvError>;
    type SerializeTupleVariant = ser::Impossible<Bound<'py, PyAny>, ConvError>;
    type SerializeMap = ser::Impossible<Bound<'py, PyAny>, ConvError>;
    type SerializeStruct = ser::Impossible<Bound<'py, PyAny>, ConvError>;
    type SerializeStructVariant = ser::Impossible<Bound<'py, PyAny>, ConvError>;

    fn serialize_str(self, v: &str) -> Out<'py> {
        Ok(decimal_class(self.py)?.call1((v,))?)
    }
    fn collect_str<T: std::fmt::Display + ?Sized>(self, value: &T) -> Out<'py> {
        // A decimal's text is at most 31 bytes (28 digits, sign, point, a leading zero):
        // written on the stack, with a heap string only past 64 bytes.
        let mut buf = StackText::default();
        if std::fmt::write(&mut buf, format_args!("{value}")).is_ok() {
            if let Some(text) = buf.as_str() {
                return self.serialize_str(text);
            }
        }
        self.serialize_str(&value.to_string())
    }

    fn serialize_bool(self, _v: bool) -> Out<'py> {
        Err(not_text())
    }
    fn serialize_i8(self, _v: i8) -> Out<'py> {
        Err(not_text())
    }
    fn serialize_i16(self, _v: i16) -> Out<'py> {
        Err(not_text())
    }
    fn serialize_i32(self, _v: i32) -> Out<'py> {
        Err(not_text())
    }
    fn serialize_i64(self, _v: i64) -> Out<'py> {
        Err(not_text())
    }
    fn serialize_u8(self, _v: u8) -> Out<'py> {
        Err(not_text())
    }
    fn serialize_u16(self, _v: u16) -> Out<'py> {
        Err(not_text())
    }
    fn serialize_u32(self, _v: u32) -> Out<'py> {
        Err(not_text())
    }
    fn serialize_u64(self, _v: u64) -> Out<'py> {
        Err(not_text())
    }
    fn serialize_f32(self, _v: f32) -> Out<'py> {
        Err(not_text())
    }
    fn serialize_f64(self, _v: f64) -> Out<'py> {
        Err(not_text())
    }
    fn serialize_char(self, _v: char) -> Out<'py> {
        Err(not_text())
    }
    fn serialize_bytes(self, _v: &[u8]) -> Out<'py> {
        Err(not_text())
    }
    fn serialize_none(self) -> Out<'py> {
        Err(not_text())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Out<'py> {
        Err(not_text())
    }
    fn serialize_unit(self) -> Out<'py> {
        Err(not_text())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Out<'py> {
        Err(not_text())
    }
    fn serialize_unit_variant(self, _n: &'static str, _i: u32, _v: &'static str) -> Out<'py> {
        Err(not_text())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _value: &T,
    ) -> Out<'py> {
        Err(not_text())
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _n: &'static str,
        _i: u32,
        _v: &'static str,
        _value: &T,
    ) -> Out<'py> {
        Err(not_text())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, ConvError> {
        Err(not_text())
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, ConvError> {
        Err(not_text())
    }
    fn serialize_tuple_struct(
        self,
        _n: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, ConvError> {
        Err(not_text())
    }
    fn serialize_tuple_variant(
        self,
        _n: &'static str,
        _i: u32,
        _v: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, ConvError> {
        Err(not_text())
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, ConvError> {
        Err(not_text())
    }
    fn serialize_struct(
        self,
        _n: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, ConvError> {
        Err(not_text())
    }
    fn serialize_struct_variant(
        self,
        _n: &'static str,
        _i: u32,
        _v: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, ConvError> {
        Err(not_text())
    }
}

/// A short text written without allocating; `as_str` is `None` once it overflowed.
struct StackText {
    buf: [u8; 64],
    len: usize,
    overflow: bool,
}

impl Default for StackText {
    fn default() -> Self {
        StackText {
            buf: [0; 64],
            len: 0,
            overflow: false,
        }
    }
}

impl StackText {
    fn as_str(&self) -> Option<&str> {
        if self.overflow {
            return None;
        }
        self.buf
            .get(..self.len)
            .and_then(|b| std::str::from_utf8(b).ok())
    }
}

impl std::fmt::Write for StackText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len.saturating_add(s.len());
        match self.buf.get_mut(self.len..end) {
            Some(dst) => {
                dst.copy_from_slice(s.as_bytes());
                self.len = end;
            }
            None => self.overflow = true,
        }
        Ok(())
    }
}

fn not_text() -> ConvError {
    <ConvError as ser::Error>::custom("a decimal that is not text")
}
