//! Declaring endpoints: the [`request!`](crate::request!) macro and the traits it builds on.
//!
//! Every endpoint of both families is written once, as one `request!` declaration. From it come
//! the request struct, its constructor (`new`, taking the required fields in declaration order),
//! one setter per optional field, the [`Endpoint`](crate::Endpoint) implementation (its
//! [`Meta`](crate::Meta), the validation and the wire encoding: query, form or JSON body) and the
//! [`FromParams`](crate::params::FromParams) implementation used by the catalog, the CLI and the
//! fuzzers. The recipe for a new endpoint is in `CONTRIBUTING.md`.
//!
//! A field's type says how it is written and read: [`Param`] for one parameter, [`Fields`] for a
//! value that is several parameters (an order: side, price, amount), [`Body`] for a value that is
//! the whole JSON body (a batch array), [`PathParam`] for the `{market}` path segment. A field's
//! declared checks ([`range`], [`positive`], [`non_empty`] or any function
//! `fn(&'static str, &T) -> Result<(), Error>`) run before anything is written; checks that involve
//! several fields are one hand-written function named by `validate`.
//!
//! ```
//! use digifinex_core::{build, request, Config, Error, Family, Meta, Method, TimestampMillis};
//! use digifinex_core::request::range;
//!
//! /// The answer (any model with `Deserialize` and `Serialize`).
//! #[derive(Debug, serde::Deserialize, serde::Serialize)]
//! pub struct Echo {}
//!
//! request! {
//!     /// `GET /v3/echo`: an endpoint that does not exist, declared like every real one.
//!     pub struct EchoRequest => Echo;
//!     meta = Meta::new(Family::Spot, Method::Get, "spot.echo", "/echo");
//!     /// Echoes `text`.
//!     new;
//!     fields {
//!         /// What to echo.
//!         req text: String,
//!         /// How many times, 1..=3.
//!         opt times: u32 [range(1, 3)],
//!     }
//! }
//!
//! let req = EchoRequest::new("hi").times(2);
//! let http = build(&req, &Config::default(), None, TimestampMillis(0))?;
//! assert_eq!(http.uri(), "https://openapi.digifinex.com/v3/echo?text=hi&times=2");
//! let err = build(&EchoRequest::new("hi").times(4), &Config::default(), None, TimestampMillis(0));
//! assert!(matches!(err, Err(Error::Validation { ref field, .. }) if field == "times"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use rust_decimal::Decimal;

use crate::endpoint::Params;
use crate::error::Error;
pub use crate::json::JsonWriter;
use crate::money::{Amount, Price, Size};
use crate::params::ParamMap;
use crate::types::{Coded, TimestampMillis, TimestampSecs};

/// A value sent as one request parameter.
pub trait Param: Sized {
    /// Writes `key=value` to the query string or form body.
    fn put(&self, key: &'static str, p: &mut Params) -> Result<(), Error>;
    /// Writes `"key":value` to a JSON body object.
    fn put_json(&self, key: &'static str, w: &mut JsonWriter) -> Result<(), Error>;
    /// Reads the value of `key` from wire parameters; `None` when absent.
    fn take(p: &mut ParamMap, key: &'static str) -> Result<Option<Self>, Error>;
}

/// A value sent as several parameters (an order: its type, price and amount).
pub trait Fields: Sized {
    /// Checks the value before anything is written.
    fn check(&self) -> Result<(), Error>;
    /// Writes its parameters to the query string or form body, in wire order.
    fn put_all(&self, p: &mut Params) -> Result<(), Error>;
    /// Writes its members to a JSON body object, in wire order.
    fn put_json_all(&self, w: &mut JsonWriter) -> Result<(), Error>;
    /// Reads it from wire parameters.
    fn take_all(p: &mut ParamMap) -> Result<Self, Error>;
}

/// A value that is the whole request body (the swap batch arrays).
pub trait Body: Sized {
    /// Checks the value and writes the body.
    fn write_body(&self, p: &mut Params) -> Result<(), Error>;
    /// Reads it from wire parameters (a JSON array body).
    fn take_body(p: &mut ParamMap) -> Result<Self, Error>;
}

/// A value that fills a path segment (`{market}`) and is also sent as a parameter.
pub trait PathParam: Param {
    /// The segment's marker in the path template (`{market}`).
    const MARKER: &'static str;
    /// The segment's text.
    fn segment(&self) -> &str;
    /// Reads it from the captured path variable or the parameter of the same name.
    fn take_path(p: &mut ParamMap) -> Result<Self, Error>;
}

/// What a constructor argument or setter of type `T` accepts: a `T` itself, or, for text, a
/// `&str` or `&String`. Integer literals infer to the field's type (`.limit(5)`), and nothing
/// converts into a money type, so a price cannot be passed where an amount belongs.
pub trait IntoArg<T> {
    /// The value.
    fn into_arg(self) -> T;
}

impl<T> IntoArg<T> for T {
    fn into_arg(self) -> T {
        self
    }
}

impl IntoArg<String> for &str {
    fn into_arg(self) -> String {
        self.to_owned()
    }
}

impl IntoArg<String> for &String {
    fn into_arg(self) -> String {
        self.clone()
    }
}

// ---------------------------------------------------------------------------------------------
// Declared checks

/// A check: `value` must lie in `min..=max`.
pub fn range<T: PartialOrd + std::fmt::Display>(
    min: T,
    max: T,
) -> impl Fn(&'static str, &T) -> Result<(), Error> {
    move |field, value| {
        if *value >= min && *value <= max {
            Ok(())
        } else {
            Err(Error::validation(
                field,
                format!("{value} is outside {min}..={max}"),
            ))
        }
    }
}

/// A check: a price, amount, size or decimal must be strictly positive.
pub fn positive<T: Copy + Into<Decimal>>(field: &'static str, value: &T) -> Result<(), Error> {
    let v: Decimal = (*value).into();
    if v.is_sign_positive() && !v.is_zero() {
        Ok(())
    } else {
        Err(Error::validation(field, format!("{v} must be positive")))
    }
}

/// A check: a text must not be empty or blank.
pub fn non_empty(field: &'static str, value: &str) -> Result<(), Error> {
    if value.trim().is_empty() {
        Err(Error::validation(field, "must not be empty"))
    } else {
        Ok(())
    }
}

/// A check: a text must have no whitespace and not be empty (ids, currencies, addresses).
pub fn token(field: &'static str, value: &str) -> Result<(), Error> {
    if value.is_empty() || value.chars().any(char::is_whitespace) {
        Err(Error::validation(
            field,
            format!("{value:?} must be non-empty and without spaces"),
        ))
    } else {
        Ok(())
    }
}

/// The wire code of an integer enum, refusing a value this library does not know (a request
/// sends only documented values).
pub fn known_code<T: Coded>(field: &'static str, value: &T) -> Result<i64, Error> {
    match value.code() {
        Some(code) if value.is_known() => Ok(code),
        Some(code) => Err(Error::validation(
            field,
            format!("{code} is not a documented value"),
        )),
        None => Err(Error::validation(field, "is not a documented value")),
    }
}

/// The error for a required parameter that is absent.
pub fn required(field: &'static str) -> Error {
    Error::validation(field, "is required")
}

// ---------------------------------------------------------------------------------------------
// Param implementations

impl Param for String {
    fn put(&self, key: &'static str, p: &mut Params) -> Result<(), Error> {
        p.push(key, self);
        Ok(())
    }
    fn put_json(&self, key: &'static str, w: &mut JsonWriter) -> Result<(), Error> {
        w.str(key, self);
        Ok(())
    }
    fn take(p: &mut ParamMap, key: &'static str) -> Result<Option<Self>, Error> {
        p.take_opt_str(key)
    }
}

macro_rules! int_param {
    ($($t:ty),*) => {$(
        impl Param for $t {
            fn put(&self, key: &'static str, p: &mut Params) -> Result<(), Error> {
                p.push_display(key, self);
                Ok(())
            }
            fn put_json(&self, key: &'static str, w: &mut JsonWriter) -> Result<(), Error> {
                let v = i64::try_from(*self)
                    .map_err(|_| Error::validation(key, format!("{self} is too large")))?;
                w.int(key, v);
                Ok(())
            }
            fn take(p: &mut ParamMap, key: &'static str) -> Result<Option<Self>, Error> {
                p.take_opt_int(key)
            }
        }
    )*};
}
int_param!(u8, u16, u32, u64, i64);

/// A flag: `1`/`0` in a query or form, `true`/`false` in a JSON body.
impl Param for bool {
    fn put(&self, key: &'static str, p: &mut Params) -> Result<(), Error> {
        p.push(key, if *self { "1" } else { "0" });
        Ok(())
    }
    fn put_json(&self, key: &'static str, w: &mut JsonWriter) -> Result<(), Error> {
        w.bool(key, *self);
        Ok(())
    }
    fn take(p: &mut ParamMap, key: &'static str) -> Result<Option<Self>, Error> {
        p.take_opt_flag(key)
    }
}

/// A plain decimal (a rate, a leverage): plain notation in a query or form, a JSON number in a
/// body.
impl Param for Decimal {
    fn put(&self, key: &'static str, p: &mut Params) -> Result<(), Error> {
        p.push_display(key, self);
        Ok(())
    }
    fn put_json(&self, key: &'static str, w: &mut JsonWriter) -> Result<(), Error> {
        w.decimal_number(key, self);
        Ok(())
    }
    fn take(p: &mut ParamMap, key: &'static str) -> Result<Option<Self>, Error> {
        p.take_opt_decimal(key)
    }
}

/// Prices and amounts are JSON strings in a body (the documented form: `"price":"30000"`).
macro_rules! money_param {
    ($($t:ident => $json:ident),*) => {$(
        impl Param for $t {
            fn put(&self, key: &'static str, p: &mut Params) -> Result<(), Error> {
                p.push_display(key, self);
                Ok(())
            }
            fn put_json(&self, key: &'static str, w: &mut JsonWriter) -> Result<(), Error> {
                w.$json(key, &self.get());
                Ok(())
            }
            fn take(p: &mut ParamMap, key: &'static str) -> Result<Option<Self>, Error> {
                Ok(p.take_opt_decimal(key)?.map($t::new))
            }
        }
    )*};
}
// Sizes (contracts) are JSON numbers (`"size":1`), as documented.
money_param!(Price => decimal_string, Amount => decimal_string, Size => decimal_number);

macro_rules! time_param {
    ($($t:ident),*) => {$(
        impl Param for $t {
            fn put(&self, key: &'static str, p: &mut Params) -> Result<(), Error> {
                p.push_display(key, self.0);
                Ok(())
            }
            fn put_json(&self, key: &'static str, w: &mut JsonWriter) -> Result<(), Error> {
                w.int(key, self.0);
                Ok(())
            }
            fn take(p: &mut ParamMap, key: &'static str) -> Result<Option<Self>, Error> {
                Ok(p.take_opt_int(key)?.map($t))
            }
        }
    )*};
}
time_param!(TimestampSecs, TimestampMillis);

// ---------------------------------------------------------------------------------------------
// The declaration macro

/// Declares one endpoint: request struct, constructor, setters, [`Endpoint`](crate::Endpoint)
/// (meta, checks, encoding) and [`FromParams`](crate::params::FromParams). See the
/// [module documentation](mod@crate::request) and `CONTRIBUTING.md`.
///
/// ```text
/// request! {
///     /// `METHOD /path`: what it does.          (docs and extra derives of the struct)
///     pub struct NameRequest => Output;
///     meta = <const Meta expression>;
///     /// What `new` builds.                     (docs of the constructor)
///     new;
///     fields {                                  (wire order)
///         /// doc
///         <kind> rust_name: Type [as "wire_name"] [[check, check...]] [= default],
///     }
///     [window = function(start_field, end_field);] (a time window: fn(Option<T>, Option<T>, &Params))
///     [validate = function;]                    (fn(&Self, &Params) -> Result<(), Error>)
/// }
/// ```
///
/// A request without fields (`fields {}`) is a unit struct, so the type is also its value.
///
/// Kinds: `req` (a constructor argument, always sent), `opt` (a setter, sent when set), `def`
/// (a setter over `= default`, always sent), `path` (a constructor argument filling the path
/// segment [`PathParam::MARKER`] and sent first as a parameter), `flat` (a constructor argument
/// of several parameters, [`Fields`]), `body` (a constructor argument that is the whole JSON
/// body, [`Body`]). Constructor arguments and setters take `impl IntoArg<Type>`. A swap `POST`
/// writes its fields as one JSON object; every other request writes them to the query string
/// (`GET`) or form body (spot `POST`).
#[macro_export]
macro_rules! request {
    // A request without parameters is a unit struct (`&spot::ServerTimeRequest` is a request).
    (
        $(#[$attr:meta])*
        $vis:vis struct $name:ident => $output:ty;
        meta = $meta:expr;
        $(#[$new_doc:meta])*
        new;
        fields {}
    ) => {
        $(#[$attr])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
        $vis struct $name;

        impl $name {
            $(#[$new_doc])*
            pub fn new() -> Self {
                $name
            }
        }

        impl $crate::Endpoint for $name {
            type Output = $output;
            const META: $crate::Meta = $meta;
            fn encode(&self, _: &mut $crate::Params) -> ::std::result::Result<(), $crate::Error> {
                Ok(())
            }
        }

        impl $crate::params::FromParams for $name {
            fn from_params(_: &mut $crate::params::ParamMap) -> ::std::result::Result<Self, $crate::Error> {
                Ok($name)
            }
        }
    };
    (
        $(#[$attr:meta])*
        $vis:vis struct $name:ident => $output:ty;
        meta = $meta:expr;
        $(#[$new_doc:meta])*
        new;
        fields {
            $(
                $(#[$fdoc:meta])*
                $kind:ident $field:ident : $fty:ty
                $(as $wire:literal)?
                $([$($check:expr),+ $(,)?])?
                $(= $default:expr)?
            ),* $(,)?
        }
        $(window = $window:ident ($start:ident, $end:ident);)?
        $(validate = $validate:path;)?
    ) => {
        // DESIGN: the fields are crate-visible (not public: the setters are the API) so that
        // code of the crate that judges a request, `reconcile`, reads the typed values
        // without a getter per field.
        $(#[$attr])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        $vis struct $name {
            $( pub(crate) $field: $crate::request!(@ty $kind $fty), )*
        }

        $crate::request!(@new [$name] [$(#[$new_doc])*] [] [] $( [$kind $field : $fty $(= $default)?] )*);

        impl $name {
            $( $crate::request!(@setter $kind $field : $fty [$(#[$fdoc])*]); )*
        }

        impl $crate::Endpoint for $name {
            type Output = $output;
            const META: $crate::Meta = $meta;

            fn write_path(&self, out: &mut ::std::string::String) {
                #[allow(unused_mut)]
                let mut template: &str = <Self as $crate::Endpoint>::META.path;
                $( $crate::request!(@path $kind out template self.$field, $fty); )*
                out.push_str(template);
            }

            #[allow(unused_assignments)]
            fn encode(&self, p: &mut $crate::Params) -> ::std::result::Result<(), $crate::Error> {
                $( $crate::request!(@check $kind self.$field, $crate::request!(@wire $field $($wire)?), $fty, [$($($check),+)?]); )*
                $( $window(self.$start, self.$end, p)?; )?
                $( $validate(self, p)?; )?
                let meta = <Self as $crate::Endpoint>::META;
                if meta.family == $crate::Family::Swap && meta.method == $crate::Method::Post {
                    #[allow(unused_mut)]
                    let mut w = $crate::request::JsonWriter::new();
                    #[allow(unused_mut, unused_variables)]
                    let mut object = true;
                    $( $crate::request!(@body_only $kind object); )*
                    if object {
                        w.begin_object();
                        $( $crate::request!(@json $kind self.$field, $crate::request!(@wire $field $($wire)?), $fty, w); )*
                        w.end_object();
                        p.set_json_body(w);
                    } else {
                        $( $crate::request!(@whole $kind self.$field, p); )*
                    }
                } else {
                    $( $crate::request!(@form $kind self.$field, $crate::request!(@wire $field $($wire)?), $fty, p); )*
                }
                Ok(())
            }
        }

        impl $crate::params::FromParams for $name {
            #[allow(unused_variables)]
            fn from_params(p: &mut $crate::params::ParamMap) -> ::std::result::Result<Self, $crate::Error> {
                Ok($name {
                    $( $field: $crate::request!(@take $kind p, $crate::request!(@wire $field $($wire)?), $fty $(, $default)?), )*
                })
            }
        }
    };

    // --- field type in the struct
    (@ty opt $t:ty) => { ::std::option::Option<$t> };
    (@ty $kind:ident $t:ty) => { $t };

    // --- wire name
    (@wire $field:ident) => { stringify!($field) };
    (@wire $field:ident $wire:literal) => { $wire };

    // --- constructor: accumulate arguments and initialisers
    (@new [$name:ident] [$($doc:tt)*] [$($args:tt)*] [$($inits:tt)*]) => {
        impl $name {
            $($doc)*
            #[allow(clippy::new_without_default)]
            pub fn new($($args)*) -> Self {
                $name { $($inits)* }
            }
        }
    };
    (@new [$name:ident] [$($doc:tt)*] [$($args:tt)*] [$($inits:tt)*] [opt $field:ident : $t:ty] $($rest:tt)*) => {
        $crate::request!(@new [$name] [$($doc)*] [$($args)*] [$($inits)* $field: None,] $($rest)*);
    };
    (@new [$name:ident] [$($doc:tt)*] [$($args:tt)*] [$($inits:tt)*] [def $field:ident : $t:ty = $default:expr] $($rest:tt)*) => {
        $crate::request!(@new [$name] [$($doc)*] [$($args)*] [$($inits)* $field: $default,] $($rest)*);
    };
    (@new [$name:ident] [$($doc:tt)*] [$($args:tt)*] [$($inits:tt)*] [$kind:ident $field:ident : $t:ty] $($rest:tt)*) => {
        $crate::request!(@new [$name] [$($doc)*] [$($args)* $field: impl $crate::request::IntoArg<$t>,] [$($inits)* $field: $crate::request::IntoArg::into_arg($field),] $($rest)*);
    };

    // --- setters
    (@setter opt $field:ident : $t:ty [$($doc:tt)*]) => {
        $($doc)*
        pub fn $field(mut self, $field: impl $crate::request::IntoArg<$t>) -> Self {
            self.$field = Some($crate::request::IntoArg::into_arg($field));
            self
        }
    };
    (@setter def $field:ident : $t:ty [$($doc:tt)*]) => {
        $($doc)*
        pub fn $field(mut self, $field: impl $crate::request::IntoArg<$t>) -> Self {
            self.$field = $crate::request::IntoArg::into_arg($field);
            self
        }
    };
    (@setter $kind:ident $field:ident : $t:ty [$($doc:tt)*]) => {};

    // --- path segment
    (@path path $out:ident $template:ident $value:expr, $t:ty) => {
        if let Some((before, after)) = $template.split_once(<$t as $crate::request::PathParam>::MARKER) {
            $out.push_str(before);
            $out.push_str($crate::request::PathParam::segment(&$value));
            $template = after;
        }
    };
    (@path $kind:ident $out:ident $template:ident $value:expr, $t:ty) => {};

    // --- checks
    (@check opt $value:expr, $wire:expr, $t:ty, [$($check:expr),*]) => {
        $( if let Some(v) = &$value {
            ($check)($wire, v)?;
        } )*
    };
    (@check flat $value:expr, $wire:expr, $t:ty, [$($check:expr),*]) => {
        $crate::request::Fields::check(&$value)?;
    };
    (@check body $value:expr, $wire:expr, $t:ty, [$($check:expr),*]) => {};
    (@check $kind:ident $value:expr, $wire:expr, $t:ty, [$($check:expr),*]) => {
        $( ($check)($wire, &$value)?; )*
    };

    // --- JSON body
    (@body_only body $object:ident) => { $object = false; };
    (@body_only $kind:ident $object:ident) => {};
    (@whole body $value:expr, $p:ident) => { $crate::request::Body::write_body(&$value, $p)?; };
    (@whole $kind:ident $value:expr, $p:ident) => {};
    (@json opt $value:expr, $wire:expr, $t:ty, $w:ident) => {
        if let Some(v) = &$value {
            $crate::request::Param::put_json(v, $wire, &mut $w)?;
        }
    };
    (@json flat $value:expr, $wire:expr, $t:ty, $w:ident) => {
        $crate::request::Fields::put_json_all(&$value, &mut $w)?;
    };
    (@json body $value:expr, $wire:expr, $t:ty, $w:ident) => {};
    (@json $kind:ident $value:expr, $wire:expr, $t:ty, $w:ident) => {
        $crate::request::Param::put_json(&$value, $wire, &mut $w)?;
    };

    // --- query or form
    (@form opt $value:expr, $wire:expr, $t:ty, $p:ident) => {
        if let Some(v) = &$value {
            $crate::request::Param::put(v, $wire, $p)?;
        }
    };
    (@form flat $value:expr, $wire:expr, $t:ty, $p:ident) => {
        $crate::request::Fields::put_all(&$value, $p)?;
    };
    (@form body $value:expr, $wire:expr, $t:ty, $p:ident) => {
        $crate::request::Body::write_body(&$value, $p)?;
    };
    (@form $kind:ident $value:expr, $wire:expr, $t:ty, $p:ident) => {
        $crate::request::Param::put(&$value, $wire, $p)?;
    };

    // --- reading from wire parameters
    (@take req $p:ident, $wire:expr, $t:ty) => {
        <$t as $crate::request::Param>::take($p, $wire)?.ok_or_else(|| $crate::request::required($wire))?
    };
    (@take opt $p:ident, $wire:expr, $t:ty) => {
        <$t as $crate::request::Param>::take($p, $wire)?
    };
    (@take def $p:ident, $wire:expr, $t:ty, $default:expr) => {
        <$t as $crate::request::Param>::take($p, $wire)?.unwrap_or_else(|| $default)
    };
    (@take path $p:ident, $wire:expr, $t:ty) => {
        <$t as $crate::request::PathParam>::take_path($p)?
    };
    (@take flat $p:ident, $wire:expr, $t:ty) => {
        <$t as $crate::request::Fields>::take_all($p)?
    };
    (@take body $p:ident, $wire:expr, $t:ty) => {
        <$t as $crate::request::Body>::take_body($p)?
    };
}
