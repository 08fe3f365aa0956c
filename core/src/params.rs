//! Wire parameters by name, and building a typed request from them ([`FromParams`]): how the
//! catalog, the CLI and the fuzzers write requests as text (`symbol=btc_usdt limit=5`) or JSON.

use std::collections::BTreeMap;

use rust_decimal::Decimal;
use serde_json::value::RawValue;

use crate::de::num::parse_decimal;
use crate::error::{Error, ValidationKind};
use crate::text::closest;

/// Builds a typed request from wire parameters.
pub trait FromParams: Sized {
    /// Reads the fields this request needs; unknown keys are refused by the caller.
    fn from_params(params: &mut ParamMap) -> Result<Self, Error>;
}

/// One parameter value: text as typed (`k=v`), or a JSON token (`--json`, nested values).
#[derive(Debug, Clone)]
enum ParamValue {
    Text(String),
    Json(Box<RawValue>),
}

/// Wire parameters by name, consumed field by field by [`FromParams`] implementations; or, for
/// the swap batch endpoints, a JSON array body whose elements are parameter objects.
#[derive(Debug, Clone, Default)]
pub struct ParamMap {
    values: BTreeMap<String, ParamValue>,
    /// Variables captured from the path (`market=margin` of `/v3/margin/order/new`).
    path_vars: BTreeMap<String, String>,
    array: Option<Vec<Box<RawValue>>>,
}

impl ParamMap {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a variable captured from the path by the catalog's `find` (`market=margin`). A
    /// parameter of the same name may also be given; it must then agree with the path (see
    /// `ParamMap::take_market` in [`crate::spot`]).
    pub fn insert_path_var(&mut self, key: impl Into<String>, value: impl Into<String>) {
        self.path_vars.insert(key.into(), value.into());
    }

    /// Adds a text parameter (as given by `k=v` on the command line).
    pub fn insert_text(&mut self, key: impl Into<String>, value: impl Into<String>) {
        self.values
            .insert(key.into(), ParamValue::Text(value.into()));
    }

    /// Adds every member of a JSON object, keeping each value's exact text.
    pub fn insert_json_object(&mut self, json: &str) -> Result<(), Error> {
        let map: BTreeMap<String, Box<RawValue>> = serde_json::from_str(json)
            .map_err(|e| Error::validation("json", format!("not a JSON object: {e}")))?;
        for (k, v) in map {
            self.values.insert(k, ParamValue::Json(v));
        }
        Ok(())
    }

    /// Adds a JSON body: the members of an object (as [`ParamMap::insert_json_object`]), or an
    /// array of parameter objects (the swap batch endpoints), read by
    /// [`ParamMap::take_array_body`].
    pub fn insert_json(&mut self, json: &str) -> Result<(), Error> {
        if json.trim_start().starts_with('[') {
            let items: Vec<Box<RawValue>> = serde_json::from_str(json)
                .map_err(|e| Error::validation("json", format!("not a JSON array: {e}")))?;
            self.array = Some(items);
            Ok(())
        } else {
            self.insert_json_object(json)
        }
    }

    /// Takes the JSON array body, one parameter map per element (each must be an object).
    pub fn take_array_body(&mut self) -> Result<Vec<ParamMap>, Error> {
        let items = self
            .array
            .take()
            .ok_or_else(|| Error::validation("body", "must be a JSON array of objects"))?;
        items
            .iter()
            .enumerate()
            .map(|(i, raw)| {
                let mut m = ParamMap::new();
                m.insert_json_object(raw.get())
                    .map_err(|e| element_error(i, e))?;
                Ok(m)
            })
            .collect()
    }

    /// Whether `key` is present.
    pub fn contains(&self, key: &str) -> bool {
        self.values.contains_key(key)
    }

    /// Takes the text of `key`: a JSON string is unescaped, a number keeps its digits;
    /// `null` is absent.
    pub fn take_opt_str(&mut self, key: &'static str) -> Result<Option<String>, Error> {
        match self.values.remove(key) {
            None => Ok(None),
            Some(ParamValue::Text(s)) => Ok(Some(s)),
            Some(ParamValue::Json(raw)) => {
                let text = raw.get();
                match text.as_bytes().first() {
                    Some(b'"') => serde_json::from_str::<String>(text)
                        .map(Some)
                        .map_err(|e| Error::validation(key, e.to_string())),
                    Some(b'n') => Ok(None),
                    Some(b'-' | b'0'..=b'9' | b't' | b'f') => Ok(Some(text.to_owned())),
                    _ => Err(Error::validation(key, "expected a string or a number")),
                }
            }
        }
    }

    /// Takes a required text parameter.
    pub fn take_str(&mut self, key: &'static str) -> Result<String, Error> {
        self.take_opt_str(key)?.ok_or_else(|| Error::missing(key))
    }

    /// Takes the raw JSON text of `key` (arrays and objects, e.g. the batch `list`); a text
    /// parameter is returned as given.
    pub fn take_opt_raw(&mut self, key: &'static str) -> Option<String> {
        match self.values.remove(key)? {
            ParamValue::Text(s) => Some(s),
            ParamValue::Json(raw) => Some(raw.get().to_owned()),
        }
    }

    /// Takes an optional exact decimal.
    pub fn take_opt_decimal(&mut self, key: &'static str) -> Result<Option<Decimal>, Error> {
        match self.take_opt_str(key)? {
            None => Ok(None),
            Some(s) => parse_decimal(&s)
                .map(Some)
                .map_err(|e| Error::validation(key, format!("{s:?}: {e}"))),
        }
    }

    /// Takes a required exact decimal.
    pub fn take_decimal(&mut self, key: &'static str) -> Result<Decimal, Error> {
        self.take_opt_decimal(key)?
            .ok_or_else(|| Error::missing(key))
    }

    /// Takes an optional integer of type `T`.
    pub fn take_opt_int<T: std::str::FromStr>(
        &mut self,
        key: &'static str,
    ) -> Result<Option<T>, Error> {
        match self.take_opt_str(key)? {
            None => Ok(None),
            Some(s) => s.trim().parse::<T>().map(Some).map_err(|_| {
                Error::validation(
                    key,
                    format!("{s:?} is not a valid {}", std::any::type_name::<T>()),
                )
            }),
        }
    }

    /// Takes a required integer of type `T`.
    pub fn take_int<T: std::str::FromStr>(&mut self, key: &'static str) -> Result<T, Error> {
        self.take_opt_int(key)?.ok_or_else(|| Error::missing(key))
    }

    /// Takes an optional flag: `1`/`0`/`true`/`false`.
    pub fn take_opt_flag(&mut self, key: &'static str) -> Result<Option<bool>, Error> {
        match self.take_opt_str(key)?.as_deref().map(str::trim) {
            None => Ok(None),
            Some("1" | "true") => Ok(Some(true)),
            Some("0" | "false") => Ok(Some(false)),
            Some(other) => Err(Error::validation(
                key,
                format!("{other:?} is not a flag (0, 1, true or false)"),
            )),
        }
    }

    /// Takes a variable captured from the path (`market`), if any.
    pub(crate) fn take_path_var(&mut self, key: &str) -> Option<String> {
        self.path_vars.remove(key)
    }

    /// Refuses any parameter no field consumed (a typo would otherwise be dropped silently).
    pub fn finish(self) -> Result<(), Error> {
        if self.array.is_some() {
            return Err(Error::validation(
                "body",
                "this endpoint takes a JSON object, not an array",
            ));
        }
        match self
            .values
            .into_keys()
            .chain(self.path_vars.into_keys())
            .next()
        {
            None => Ok(()),
            Some(k) => Err(Error::unknown_parameter(k, "")),
        }
    }

    /// [`ParamMap::finish`] for an endpoint whose parameters are `known`: the error for a
    /// parameter no field consumed lists them, and names the closest one when the parameter
    /// looks like a typo of it (`limt`: did you mean `limit`?).
    pub fn finish_known(self, known: &[&str]) -> Result<(), Error> {
        match self.finish() {
            Err(Error::Validation {
                field,
                kind: ValidationKind::Unknown,
                ..
            }) => Err(unknown_parameter(field.into_owned(), known)),
            other => other,
        }
    }

    /// The error for the first parameter given that is not in `known` (a typo), if any: what
    /// to report when reading the parameters failed while a name was mistyped (`symbl` makes
    /// `symbol` missing; the typo is the news).
    pub fn unknown_error(&self, known: &[&str]) -> Option<Error> {
        self.values
            .keys()
            .find(|k| !known.contains(&k.as_str()))
            .map(|k| unknown_parameter(k.clone(), known))
    }
}

/// The error for a parameter `key` the endpoint does not take, listing the ones it takes
/// (`known`) and naming the closest when `key` looks like a typo of it.
pub fn unknown_parameter(key: String, known: &[&str]) -> Error {
    let hint = if known.is_empty() {
        "this endpoint takes no parameters".to_owned()
    } else {
        let takes = format!("this endpoint takes: {}", known.join(", "));
        match closest(&key, known) {
            Some(close) => format!("did you mean `{close}`? ({takes})"),
            None => takes,
        }
    };
    Error::unknown_parameter(key, hint)
}

/// Names the array element in a validation error: `price` becomes `[3].price`.
pub fn element_error(index: usize, e: Error) -> Error {
    match e {
        Error::Validation { ref field, .. } => {
            let field = format!("[{index}].{field}");
            e.with_field(field)
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::edit_distance;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("limt", "limit"), 1);
        assert_eq!(edit_distance("symbl", "symbol"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("abc", "abc"), 0);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn unknown_parameters_list_the_known_ones() {
        assert_eq!(
            unknown_parameter("limt".into(), &["symbol", "limit"]).to_string(),
            "unknown parameter `limt`: did you mean `limit`? (this endpoint takes: symbol, limit)"
        );
        assert_eq!(
            unknown_parameter("depth".into(), &["symbol", "limit"]).to_string(),
            "unknown parameter `depth`: this endpoint takes: symbol, limit"
        );
        assert_eq!(
            unknown_parameter("x".into(), &[]).to_string(),
            "unknown parameter `x`: this endpoint takes no parameters"
        );
    }
}
