//! Declaring endpoints: the [`request!`](crate::request!) macro and the traits it builds on.
//!
//! Every endpoint of both families is written once, as one `request!` declaration. From it come
//! the request struct, its constructor (`new`, taking the required fields in declaration order),
//! one setter per optional field, the [`Endpoint`](crate::Endpoint) implementation (its
//! [`Meta`](crate::Meta), the validation and the wire encoding: query, form or JSON body), the
//! [`FromParams`](crate::params::FromParams) implementation used by the catalog, the CLI and the
//! fuzzers, and the [`Describe`] implementation: every parameter's name, type, whether it is
//! required, allowed values, rules, default and meaning ([`ParamInfo`], what `digifinex
//! describe` prints). The recipe for a new endpoint is in `CONTRIBUTING.md`.
//!
//! A field's type says how it is written, read and described: [`Param`] for one parameter,
//! [`Fields`] for a value that is several parameters (an order: side, price, amount), [`Body`]
//! for a value that is the whole JSON body (a batch array), [`PathParam`] for the `{market}` path
//! segment. A field's declared checks ([`Check`]: [`range`], [`positive`], [`non_empty`], a
//! [`Rule`], or any function `fn(&'static str, &T) -> Result<(), Error>`) run before anything is
//! written and say what they require; [`server_default`] and [`example`] sit among them to
//! declare the venue's default and a sample value, checking nothing. Checks that involve several
//! fields are one hand-written function named by `validate`. The description and the validation
//! come from the same declaration, so they cannot disagree.
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

use std::borrow::{Borrow, Cow};
use std::marker::PhantomData;

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
    /// Describes the type in `info` for `digifinex describe`: its name, its allowed values
    /// when they are a closed set, an example. By default it says nothing (`value`).
    #[inline]
    fn describe(info: &mut ParamInfo) {
        let _ = info;
    }
}

/// Where parameters go: the query string or form body ([`Params`]) or a JSON body object
/// ([`JsonWriter`]), each value in its own form there ([`Param::put`] or
/// [`Param::put_json`]). A [`Fields`] value writes its parameters once, to either.
pub trait Sink {
    /// Writes `key` with `value`.
    fn field<P: Param>(&mut self, key: &'static str, value: &P) -> Result<(), Error>;
}

impl Sink for Params {
    fn field<P: Param>(&mut self, key: &'static str, value: &P) -> Result<(), Error> {
        value.put(key, self)
    }
}

impl Sink for JsonWriter {
    fn field<P: Param>(&mut self, key: &'static str, value: &P) -> Result<(), Error> {
        value.put_json(key, self)
    }
}

/// A value sent as several parameters (an order: its type, price and amount).
pub trait Fields: Sized {
    /// Checks the value before anything is written.
    fn check(&self) -> Result<(), Error>;
    /// Writes its parameters, in wire order, to a form or a JSON body: the one declaration of
    /// its wire shape.
    fn write<S: Sink>(&self, s: &mut S) -> Result<(), Error>;
    /// Writes its parameters to the query string or form body ([`Fields::write`]).
    fn put_all(&self, p: &mut Params) -> Result<(), Error> {
        self.write(p)
    }
    /// Writes its members to a JSON body object ([`Fields::write`]).
    fn put_json_all(&self, w: &mut JsonWriter) -> Result<(), Error> {
        self.write(w)
    }
    /// Reads it from wire parameters.
    fn take_all(p: &mut ParamMap) -> Result<Self, Error>;
    /// Appends its parameters, in wire order, for `digifinex describe`. By default none.
    #[inline]
    fn describe(out: &mut Vec<ParamInfo>) {
        let _ = out;
    }
}

/// Declares a value's [`Fields`] implementation from one list of its members, in wire order.
/// Each member's wire name, type, checks and meaning are written once; the check, the writer
/// (form and JSON alike, through a [`Sink`]), the reader from wire parameters and the
/// description for `digifinex describe` all come from that list.
///
/// ```text
/// fields! {
///     /// docs of the impl
///     impl Fields for Type {
///         |value| {                                   (wire order)
///             /// meaning
///             <req|opt> name [as "wire"]: ParamType [[checks]] = <expression over `value`>
///                 [=> |info| { more description }];
///         }
///         read => <expression over the members' names: Result<Type, Error>>;
///     }
/// }
/// ```
///
/// `req`: the expression gives the value (or a reference to it); always written; required when
/// read. `opt`: the expression gives an `Option`; written when `Some`; read as an `Option`.
/// `read` builds the value from what was read (refusing inconsistent combinations); the
/// members' checks run on the value before it is written.
macro_rules! fields {
    (
        $(#[$attr:meta])*
        impl Fields for $ty:ty {
            |$this:ident| {
                $(
                    $(#[doc = $doc:literal])*
                    $kind:ident $name:ident $(as $wire:literal)? : $t:ty
                    $([$($check:expr),+ $(,)?])?
                    = $get:expr
                    $(=> |$info:ident| $extra:block)?
                    ;
                )+
            }
            read => $build:expr;
        }
    ) => {
        $(#[$attr])*
        impl $crate::request::Fields for $ty {
            #[allow(unused_variables)]
            fn check(&self) -> ::std::result::Result<(), $crate::Error> {
                let $this = self;
                $( $crate::request::fields!(@check $kind $crate::request::fields!(@wire $name $($wire)?), $t, $get, [$($($check),+)?]); )+
                Ok(())
            }

            fn write<S: $crate::request::Sink>(&self, s: &mut S) -> ::std::result::Result<(), $crate::Error> {
                let $this = self;
                $( $crate::request::fields!(@write $kind s, $crate::request::fields!(@wire $name $($wire)?), $t, $get); )+
                Ok(())
            }

            fn take_all(p: &mut $crate::params::ParamMap) -> ::std::result::Result<Self, $crate::Error> {
                $( let $name = $crate::request::fields!(@take $kind p, $crate::request::fields!(@wire $name $($wire)?), $t); )+
                $build
            }

            #[inline]
            fn describe(out: &mut ::std::vec::Vec<$crate::request::ParamInfo>) {
                $( {
                    let mut info = $crate::request::ParamInfo::new(
                        $crate::request::fields!(@wire $name $($wire)?),
                        $crate::request::fields!(@required $kind),
                        &[$($doc),*],
                    );
                    <$t as $crate::request::Param>::describe(&mut info);
                    $($( $crate::request::Check::<$t, _>::describe(&($check), &mut info); )+)?
                    $( {
                        let $info = &mut info;
                        $extra
                    } )?
                    out.push(info);
                } )+
            }
        }
    };

    (@wire $name:ident) => { stringify!($name) };
    (@wire $name:ident $wire:literal) => { $wire };
    (@required req) => { true };
    (@required opt) => { false };

    (@check req $wire:expr, $t:ty, $get:expr, [$($check:expr),*]) => {
        $( $crate::request::Check::<$t, _>::check(&($check), $wire, ::std::borrow::Borrow::<$t>::borrow(&($get)))?; )*
    };
    (@check opt $wire:expr, $t:ty, $get:expr, []) => {};
    (@check opt $wire:expr, $t:ty, $get:expr, [$($check:expr),+]) => {
        if let Some(v) = $get {
            $( $crate::request::Check::<$t, _>::check(&($check), $wire, ::std::borrow::Borrow::<$t>::borrow(&v))?; )+
        }
    };

    (@write req $s:ident, $wire:expr, $t:ty, $get:expr) => {
        $crate::request::Sink::field::<$t>($s, $wire, ::std::borrow::Borrow::<$t>::borrow(&($get)))?;
    };
    (@write opt $s:ident, $wire:expr, $t:ty, $get:expr) => {
        if let Some(v) = $get {
            $crate::request::Sink::field::<$t>($s, $wire, ::std::borrow::Borrow::<$t>::borrow(&v))?;
        }
    };

    (@take req $p:ident, $wire:expr, $t:ty) => {
        <$t as $crate::request::Param>::take($p, $wire)?.ok_or_else(|| $crate::request::required($wire))?
    };
    (@take opt $p:ident, $wire:expr, $t:ty) => {
        <$t as $crate::request::Param>::take($p, $wire)?
    };
}
pub(crate) use fields;

/// A value that is the whole request body (the swap batch arrays).
pub trait Body: Sized {
    /// Checks the value and writes the body.
    fn write_body(&self, p: &mut Params) -> Result<(), Error>;
    /// Reads it from wire parameters (a JSON array body).
    fn take_body(p: &mut ParamMap) -> Result<Self, Error>;
    /// Appends its parameters for `digifinex describe`: the members of each element, named
    /// `[].name`. By default none.
    #[inline]
    fn describe(out: &mut Vec<ParamInfo>) {
        let _ = out;
    }
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
// Describing parameters

/// One parameter of an endpoint, as `digifinex describe` and [`crate::catalog`] show it.
///
/// Everything in it comes from the endpoint's `request!` declaration, so it cannot drift from
/// what the request sends and checks: the field's kind (`req` is required), its wire name, its
/// type's [`Param::describe`] (type name, allowed values), each declared check's
/// [`Check::describe`] (ranges, rules, the venue's default) and the field's documentation.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParamInfo {
    /// The wire name (`symbol`, `type`); `[].price` for a member of each element of a JSON
    /// array body.
    pub name: Cow<'static, str>,
    /// The type in words (`string`, `integer`, `decimal`, `code`).
    pub type_name: Cow<'static, str>,
    /// Whether every request carries it.
    pub required: bool,
    /// When it is required only in some requests, when, in words (`type buy or sell`).
    pub required_when: Option<Cow<'static, str>>,
    /// Whether the path gives it (the spot `{market}` segment): `/v3/margin/order/new` sends
    /// `market=margin`.
    pub in_path: bool,
    /// The values a request may send, when they are a closed set (codes and words).
    pub values: Vec<Choice>,
    /// Rules the value must follow, in words (`1..=150`, `> 0`).
    pub rules: Vec<Cow<'static, str>>,
    /// The value used when the parameter is not given: a declared default (then always sent)
    /// or the venue's documented default.
    pub default: Option<Cow<'static, str>>,
    /// A value that passes the declared checks (`btc_usdt`), for sample command lines.
    pub example: Option<Cow<'static, str>>,
    /// A value of the type (`1` for a decimal), the sample when nothing better is known.
    pub placeholder: Option<Cow<'static, str>>,
    /// What the parameter means: the field's documentation, as one line.
    pub doc: Cow<'static, str>,
}

/// One allowed value of a parameter: its wire text and, when the declaration names it, the
/// name (`1` and `open_long`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// What is sent (`1`, `crossed`).
    pub wire: Cow<'static, str>,
    /// Its documented name (`open_long`); empty when the wire text is the name.
    pub name: Cow<'static, str>,
}

impl Choice {
    /// A value with a name (`1`, `open_long`).
    pub fn named(wire: impl Into<Cow<'static, str>>, name: impl Into<Cow<'static, str>>) -> Self {
        Choice {
            wire: wire.into(),
            name: name.into(),
        }
    }

    /// A value that is its own name (`crossed`).
    pub fn word(wire: impl Into<Cow<'static, str>>) -> Self {
        Choice::named(wire, "")
    }
}

impl ParamInfo {
    /// A parameter named `name`, of an unknown type (`value`) until its type describes itself.
    /// `doc` is the field's documentation, one entry per line, joined into one line.
    pub fn new(name: impl Into<Cow<'static, str>>, required: bool, doc: &[&'static str]) -> Self {
        ParamInfo {
            name: name.into(),
            type_name: Cow::Borrowed("value"),
            required,
            required_when: None,
            in_path: false,
            values: Vec::new(),
            rules: Vec::new(),
            default: None,
            example: None,
            placeholder: None,
            doc: Cow::Owned(one_line(doc)),
        }
    }

    /// Sets the type's name.
    pub fn type_name(&mut self, name: impl Into<Cow<'static, str>>) -> &mut Self {
        self.type_name = name.into();
        self
    }

    /// Adds an allowed value.
    pub fn value(&mut self, choice: Choice) -> &mut Self {
        self.values.push(choice);
        self
    }

    /// Adds a rule in words.
    pub fn rule(&mut self, rule: impl Into<Cow<'static, str>>) -> &mut Self {
        self.rules.push(rule.into());
        self
    }

    /// Sets an example value, unless one is already set.
    pub fn example(&mut self, example: impl Into<Cow<'static, str>>) -> &mut Self {
        if self.example.is_none() {
            self.example = Some(example.into());
        }
        self
    }

    /// Sets the type's placeholder value (see [`ParamInfo::placeholder`]).
    pub fn placeholder(&mut self, value: impl Into<Cow<'static, str>>) -> &mut Self {
        self.placeholder = Some(value.into());
        self
    }

    /// Says when the parameter is required (`type buy or sell`), for one that is not always.
    pub fn required_when(&mut self, condition: impl Into<Cow<'static, str>>) -> &mut Self {
        self.required_when = Some(condition.into());
        self
    }

    /// The value for a sample command line: the declared example, else the first allowed
    /// value, else the default, else the type's placeholder; `None` for free text (an id).
    /// The samples of one endpoint's parameters make a request that passes its checks, the
    /// parameters required only in some requests included.
    pub fn sample(&self) -> Option<&str> {
        self.example
            .as_deref()
            .or_else(|| self.values.first().map(|c| c.wire.as_ref()))
            .or(self.default.as_deref())
            .or(self.placeholder.as_deref())
    }

    /// Prefixes the name (`[].` for the members of a JSON array body's elements).
    pub fn prefixed(mut self, prefix: &str) -> Self {
        self.name = Cow::Owned(format!("{prefix}{}", self.name));
        self
    }
}

/// The documentation lines of a field as one line: trimmed, joined by spaces, rustdoc link
/// brackets around code spans removed (`` [`Market`] `` reads `` `Market` ``).
fn one_line(doc: &[&str]) -> String {
    let mut out = String::new();
    for line in doc.iter().map(|l| l.trim()).filter(|l| !l.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(line);
    }
    out.replace("[`", "`").replace("`]", "`")
}

/// The wire text of a value (`10`, `prev`), as a query or form would carry it; `None` when the
/// value refuses to be written.
#[doc(hidden)]
pub fn wire_text<T: Param>(value: &T) -> Option<String> {
    let mut p = Params::new(TimestampMillis(0));
    value.put("v", &mut p).ok()?;
    p.as_str().strip_prefix("v=").map(str::to_owned)
}

/// The parameters of a request type, in wire order: what `digifinex describe` prints. The
/// `request!` macro implements it from the declaration.
pub trait Describe {
    /// Every parameter, in wire order (the members of a JSON array body's elements prefixed
    /// `[].`).
    fn params() -> Vec<ParamInfo>;
}

// ---------------------------------------------------------------------------------------------
// Declared checks

/// A declared check of a field of type `T` (`[range(1, 150)]`, `[check_symbol]`): it refuses a
/// value before anything is written, and says what it refuses so that `digifinex describe` can
/// show it. `M` only tells the implementations apart (checks are inferred, never named).
///
/// Any function `fn(&'static str, &U) -> Result<R, Error>` where `T: Borrow<U>` is a check that
/// says nothing (a `String` field takes a `fn(&'static str, &str)`); a [`Rule`] wraps such a
/// function with words; [`range`], [`positive`] and [`server_default`] describe themselves.
#[doc(hidden)]
pub trait Check<T: ?Sized, M> {
    /// Refuses a bad `value` of `field` with [`Error::Validation`] naming the field.
    fn check(&self, field: &'static str, value: &T) -> Result<(), Error>;
    /// Adds what the check requires to `info` (rules, an example, allowed values, a default).
    #[inline]
    fn describe(&self, info: &mut ParamInfo) {
        let _ = info;
    }
}

/// [`Check`] marker of plain functions.
#[doc(hidden)]
#[derive(Debug)]
pub struct FnCheck<U: ?Sized, R>(PhantomData<fn(&U) -> R>);

impl<T, U, R, F> Check<T, FnCheck<U, R>> for F
where
    T: ?Sized + Borrow<U>,
    U: ?Sized,
    F: Fn(&'static str, &U) -> Result<R, Error>,
{
    fn check(&self, field: &'static str, value: &T) -> Result<(), Error> {
        self(field, value.borrow()).map(|_| ())
    }
}

/// A check function with words for `digifinex describe`: the rule it enforces, an example that
/// passes, and, when it narrows a type's values, the values it lets through. It dereferences to
/// its function, so a `Rule` is still called like one (`check_symbol("symbol", s)`).
pub struct Rule<U: ?Sized + 'static> {
    check: fn(&'static str, &U) -> Result<(), Error>,
    rule: &'static str,
    example: Option<&'static str>,
    only: &'static [&'static str],
}

impl<U: ?Sized> Clone for Rule<U> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<U: ?Sized> Copy for Rule<U> {}

impl<U: ?Sized> std::fmt::Debug for Rule<U> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rule")
            .field("rule", &self.rule)
            .field("example", &self.example)
            .field("only", &self.only)
            .finish()
    }
}

impl<U: ?Sized> Rule<U> {
    /// The check `check`, described as `rule`.
    pub const fn new(check: fn(&'static str, &U) -> Result<(), Error>, rule: &'static str) -> Self {
        Rule {
            check,
            rule,
            example: None,
            only: &[],
        }
    }

    /// With a value that passes the check.
    pub const fn with_example(self, example: &'static str) -> Self {
        Rule {
            example: Some(example),
            ..self
        }
    }

    /// Letting through only these of the type's values (wire texts).
    pub const fn only(self, values: &'static [&'static str]) -> Self {
        Rule {
            only: values,
            ..self
        }
    }
}

impl<U: ?Sized> std::ops::Deref for Rule<U> {
    type Target = fn(&'static str, &U) -> Result<(), Error>;
    fn deref(&self) -> &Self::Target {
        &self.check
    }
}

/// [`Check`] marker of [`Rule`].
#[doc(hidden)]
#[derive(Debug)]
pub struct RuleCheck;

impl<T, U> Check<T, RuleCheck> for Rule<U>
where
    T: ?Sized + Borrow<U>,
    U: ?Sized,
{
    fn check(&self, field: &'static str, value: &T) -> Result<(), Error> {
        (self.check)(field, value.borrow())
    }
    #[inline]
    fn describe(&self, info: &mut ParamInfo) {
        info.rule(self.rule);
        if let Some(e) = self.example {
            info.example(e);
        }
        if !self.only.is_empty() {
            info.values.retain(|c| self.only.contains(&c.wire.as_ref()));
        }
    }
}

/// The check of [`range`]: the value must lie in `min..=max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range<T> {
    min: T,
    max: T,
}

/// A check: `value` must lie in `min..=max` (described as `min..=max`).
pub fn range<T: PartialOrd + std::fmt::Display>(min: T, max: T) -> Range<T> {
    Range { min, max }
}

impl<T: PartialOrd + std::fmt::Display> Range<T> {
    /// Refuses a `value` of `field` outside `min..=max`.
    pub fn check(&self, field: &'static str, value: &T) -> Result<(), Error> {
        if *value >= self.min && *value <= self.max {
            Ok(())
        } else {
            Err(Error::validation(
                field,
                format!("{value} is outside {}..={}", self.min, self.max),
            ))
        }
    }
}

/// [`Check`] marker of [`Range`].
#[doc(hidden)]
#[derive(Debug)]
pub struct RangeCheck;

impl<T: PartialOrd + std::fmt::Display> Check<T, RangeCheck> for Range<T> {
    fn check(&self, field: &'static str, value: &T) -> Result<(), Error> {
        Range::check(self, field, value)
    }
    #[inline]
    fn describe(&self, info: &mut ParamInfo) {
        info.rule(format!("{}..={}", self.min, self.max));
        info.example(self.min.to_string());
    }
}

/// The check [`positive`]: a price, amount, size or decimal must be strictly positive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Positive;

/// A check: a price, amount, size or decimal must be strictly positive (described as `> 0`).
/// Called directly as `positive.check(field, &value)`.
#[allow(non_upper_case_globals)]
pub const positive: Positive = Positive;

impl Positive {
    /// Refuses a `value` of `field` that is zero or negative.
    pub fn check<T: Copy + Into<Decimal>>(
        &self,
        field: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        let v: Decimal = (*value).into();
        if v.is_sign_positive() && !v.is_zero() {
            Ok(())
        } else {
            Err(Error::validation(field, format!("{v} must be positive")))
        }
    }
}

/// [`Check`] marker of [`Positive`].
#[doc(hidden)]
#[derive(Debug)]
pub struct PositiveCheck;

impl<T: Copy + Into<Decimal>> Check<T, PositiveCheck> for Positive {
    fn check(&self, field: &'static str, value: &T) -> Result<(), Error> {
        Positive::check(self, field, value)
    }
    #[inline]
    fn describe(&self, info: &mut ParamInfo) {
        info.rule("> 0");
    }
}

/// What [`server_default`] declares: the value the venue uses when the parameter is not sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerDefault<T>(T);

/// Declares, among a field's checks, the venue's documented default: the value it uses when the
/// parameter is not sent (`opt limit: u32 [range(1, 150), server_default(10)]`). It checks
/// nothing and is never sent (only the parameters the caller set are sent); `digifinex
/// describe` shows it.
pub fn server_default<T>(value: T) -> ServerDefault<T> {
    ServerDefault(value)
}

/// What [`example`] declares: a value for sample command lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Example<T>(T);

/// Declares, among a field's checks, the value `digifinex describe` uses in its sample command
/// line, when the type's first value would not do (`req to: TransferAccount [example(..)]`, as
/// `from` takes the first). It checks nothing.
pub fn example<T>(value: T) -> Example<T> {
    Example(value)
}

/// [`Check`] marker of [`Example`].
#[doc(hidden)]
#[derive(Debug)]
pub struct ExampleCheck;

impl<T: Param> Check<T, ExampleCheck> for Example<T> {
    fn check(&self, _: &'static str, _: &T) -> Result<(), Error> {
        Ok(())
    }
    #[inline]
    fn describe(&self, info: &mut ParamInfo) {
        if let Some(text) = wire_text(&self.0) {
            info.example(text);
        }
    }
}

/// [`Check`] marker of [`ServerDefault`].
#[doc(hidden)]
#[derive(Debug)]
pub struct DefaultCheck;

impl<T: Param> Check<T, DefaultCheck> for ServerDefault<T> {
    fn check(&self, _: &'static str, _: &T) -> Result<(), Error> {
        Ok(())
    }
    #[inline]
    fn describe(&self, info: &mut ParamInfo) {
        if let Some(text) = wire_text(&self.0) {
            info.default = Some(Cow::Owned(text));
        }
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
#[doc(hidden)]
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

/// `template` split around the first occurrence of `marker` (a `{name}` path segment), found
/// by its opening brace: what `request!`'s path writer uses (`str::split_once` builds a
/// substring searcher on every call). Not a stable API.
#[doc(hidden)]
#[inline]
pub fn split_marker<'t>(template: &'t str, marker: &str) -> Option<(&'t str, &'t str)> {
    let bytes = template.as_bytes();
    let mut from: usize = 0;
    loop {
        let at = from.checked_add(bytes.get(from..)?.iter().position(|&b| b == b'{')?)?;
        let rest = template.get(at..)?;
        if rest.starts_with(marker) {
            return Some((template.get(..at)?, rest.get(marker.len()..)?));
        }
        from = at.checked_add(1)?;
    }
}

/// The codes of `T` (as its [`Param::describe`] lists them) that `keep` accepts, joined with
/// `, `: which order types take a price, for a member's `required when`.
pub(crate) fn described_codes<T: Param>(keep: impl Fn(i64) -> bool) -> String {
    let mut info = ParamInfo::new("", true, &[]);
    T::describe(&mut info);
    let codes: Vec<&str> = info
        .values
        .iter()
        .map(|c| c.wire.as_ref())
        .filter(|w| w.parse::<i64>().is_ok_and(&keep))
        .collect();
    codes.join(", ")
}

/// The error for a required parameter that is absent.
#[doc(hidden)]
pub fn required(field: &'static str) -> Error {
    Error::missing(field)
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
    #[inline]
    fn describe(info: &mut ParamInfo) {
        info.type_name("string");
    }
}

macro_rules! int_param {
    ($($t:ty),*) => {$(
        impl Param for $t {
            fn put(&self, key: &'static str, p: &mut Params) -> Result<(), Error> {
                p.push_u64(key, u64::from(*self));
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
            #[inline]
            fn describe(info: &mut ParamInfo) {
                info.type_name("integer");
                info.placeholder("1");
            }
        }
    )*};
}
int_param!(u8, u16, u32, u64);

impl Param for i64 {
    fn put(&self, key: &'static str, p: &mut Params) -> Result<(), Error> {
        p.push_i64(key, *self);
        Ok(())
    }
    fn put_json(&self, key: &'static str, w: &mut JsonWriter) -> Result<(), Error> {
        w.int(key, *self);
        Ok(())
    }
    fn take(p: &mut ParamMap, key: &'static str) -> Result<Option<Self>, Error> {
        p.take_opt_int(key)
    }
    #[inline]
    fn describe(info: &mut ParamInfo) {
        info.type_name("integer");
        info.placeholder("1");
    }
}

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
    #[inline]
    fn describe(info: &mut ParamInfo) {
        info.type_name("flag (1 or 0, true or false)");
        info.placeholder("1");
    }
}

/// A flag sent as the number `1` or `0` in a form and in a JSON body alike (not `true`/`false`,
/// as a `bool` is in JSON); read from `1`, `0`, `true` or `false`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub(crate) struct OneOrZero(pub(crate) bool);

impl Param for OneOrZero {
    fn put(&self, key: &'static str, p: &mut Params) -> Result<(), Error> {
        p.push(key, if self.0 { "1" } else { "0" });
        Ok(())
    }
    fn put_json(&self, key: &'static str, w: &mut JsonWriter) -> Result<(), Error> {
        w.int(key, i64::from(self.0));
        Ok(())
    }
    fn take(p: &mut ParamMap, key: &'static str) -> Result<Option<Self>, Error> {
        Ok(p.take_opt_flag(key)?.map(OneOrZero))
    }
    #[inline]
    fn describe(info: &mut ParamInfo) {
        bool::describe(info);
    }
}

/// A plain decimal (a rate, a leverage): plain notation in a query or form, a JSON number in a
/// body.
impl Param for Decimal {
    fn put(&self, key: &'static str, p: &mut Params) -> Result<(), Error> {
        p.push_decimal(key, self);
        Ok(())
    }
    fn put_json(&self, key: &'static str, w: &mut JsonWriter) -> Result<(), Error> {
        w.decimal_number(key, self);
        Ok(())
    }
    fn take(p: &mut ParamMap, key: &'static str) -> Result<Option<Self>, Error> {
        p.take_opt_decimal(key)
    }
    #[inline]
    fn describe(info: &mut ParamInfo) {
        info.type_name("decimal");
        info.placeholder("1");
    }
}

/// Prices and amounts are JSON strings in a body (the documented form: `"price":"30000"`).
macro_rules! money_param {
    ($($t:ident => $json:ident, $name:literal),*) => {$(
        impl Param for $t {
            fn put(&self, key: &'static str, p: &mut Params) -> Result<(), Error> {
                p.push_decimal(key, &self.get());
                Ok(())
            }
            fn put_json(&self, key: &'static str, w: &mut JsonWriter) -> Result<(), Error> {
                w.$json(key, &self.get());
                Ok(())
            }
            fn take(p: &mut ParamMap, key: &'static str) -> Result<Option<Self>, Error> {
                Ok(p.take_opt_decimal(key)?.map($t::new))
            }
            #[inline]
            fn describe(info: &mut ParamInfo) {
                info.type_name($name);
                info.placeholder("1");
            }
        }
    )*};
}
// Sizes (contracts) are JSON numbers (`"size":1`), as documented.
money_param!(
    Price => decimal_string, "price (decimal)",
    Amount => decimal_string, "amount (decimal)",
    Size => decimal_number, "contracts (decimal)"
);

macro_rules! time_param {
    ($($t:ident => $name:literal),*) => {$(
        impl Param for $t {
            fn put(&self, key: &'static str, p: &mut Params) -> Result<(), Error> {
                p.push_i64(key, self.0);
                Ok(())
            }
            fn put_json(&self, key: &'static str, w: &mut JsonWriter) -> Result<(), Error> {
                w.int(key, self.0);
                Ok(())
            }
            fn take(p: &mut ParamMap, key: &'static str) -> Result<Option<Self>, Error> {
                Ok(p.take_opt_int(key)?.map($t))
            }
            #[inline]
            fn describe(info: &mut ParamInfo) {
                info.type_name($name);
            }
        }
    )*};
}
time_param!(TimestampSecs => "time (Unix seconds)", TimestampMillis => "time (Unix milliseconds)");

// ---------------------------------------------------------------------------------------------
// The declaration macro

/// Declares one endpoint: request struct, constructor, setters, [`Endpoint`](crate::Endpoint)
/// (meta, checks, encoding), [`FromParams`](crate::params::FromParams) and [`Describe`]. See
/// the [module documentation](mod@crate::request) and `CONTRIBUTING.md`. Field attributes are
/// doc comments only (they are the parameter's meaning in [`ParamInfo::doc`]).
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
///                                           (checks: `Check` values; `server_default(v)` and
///                                           `example(v)` describe without checking)
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
            fn encode(&self, _: &mut $crate::__private::Params) -> ::std::result::Result<(), $crate::Error> {
                Ok(())
            }
        }

        impl $crate::__private::FromParams for $name {
            #[inline]
            fn from_params(_: &mut $crate::__private::ParamMap) -> ::std::result::Result<Self, $crate::Error> {
                Ok($name)
            }
        }

        impl $crate::__private::Describe for $name {
            #[inline]
            fn params() -> ::std::vec::Vec<$crate::__private::ParamInfo> {
                ::std::vec::Vec::new()
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
                $(#[doc = $fdoc:literal])*
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
            $( $crate::request!(@setter $kind $field : $fty [$(#[doc = $fdoc])*]); )*
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
            fn encode(&self, p: &mut $crate::__private::Params) -> ::std::result::Result<(), $crate::Error> {
                $( $crate::request!(@check $kind self.$field, $crate::request!(@wire $field $($wire)?), $fty, [$($($check),+)?]); )*
                $( $window(self.$start, self.$end, p)?; )?
                $( $validate(self, p)?; )?
                let meta = <Self as $crate::Endpoint>::META;
                if meta.family == $crate::Family::Swap && meta.method == $crate::Method::Post {
                    #[allow(unused_mut)]
                    let mut w = $crate::__private::JsonWriter::new();
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

        impl $crate::__private::FromParams for $name {
            #[allow(unused_variables)]
            #[inline]
            fn from_params(p: &mut $crate::__private::ParamMap) -> ::std::result::Result<Self, $crate::Error> {
                Ok($name {
                    $( $field: $crate::request!(@take $kind p, $crate::request!(@wire $field $($wire)?), $fty $(, $default)?), )*
                })
            }
        }

        impl $crate::__private::Describe for $name {
            #[inline]
            fn params() -> ::std::vec::Vec<$crate::__private::ParamInfo> {
                #[allow(unused_mut)]
                let mut out = ::std::vec::Vec::new();
                $( $crate::request!(@describe $kind out, $crate::request!(@wire $field $($wire)?), $fty, [$($fdoc),*], [$($($check),+)?] $(, $default)?); )*
                out
            }
        }
    };

    // --- describing a field
    (@describe flat $out:ident, $wire:expr, $t:ty, [$($doc:expr),*], [$($check:expr),*]) => {
        <$t as $crate::__private::Fields>::describe(&mut $out);
    };
    (@describe body $out:ident, $wire:expr, $t:ty, [$($doc:expr),*], [$($check:expr),*]) => {
        <$t as $crate::__private::Body>::describe(&mut $out);
    };
    (@describe $kind:ident $out:ident, $wire:expr, $t:ty, [$($doc:expr),*], [$($check:expr),*] $(, $default:expr)?) => {{
        let mut info = $crate::__private::ParamInfo::new($wire, $crate::request!(@required $kind), &[$($doc),*]);
        <$t as $crate::__private::Param>::describe(&mut info);
        $( $crate::__private::Check::<$t, _>::describe(&($check), &mut info); )*
        $( info.default = $crate::__private::wire_text::<$t>(&$default).map(::std::borrow::Cow::Owned); )?
        $crate::request!(@path_rule $kind info);
        $out.push(info);
    }};
    (@required req) => { true };
    (@required path) => { true };
    (@required $kind:ident) => { false };
    (@path_rule path $info:ident) => { $info.in_path = true; };
    (@path_rule $kind:ident $info:ident) => {};

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
        $crate::request!(@new [$name] [$($doc)*] [$($args)* $field: impl $crate::__private::IntoArg<$t>,] [$($inits)* $field: $crate::__private::IntoArg::into_arg($field),] $($rest)*);
    };

    // --- setters
    (@setter opt $field:ident : $t:ty [$($doc:tt)*]) => {
        $($doc)*
        pub fn $field(mut self, $field: impl $crate::__private::IntoArg<$t>) -> Self {
            self.$field = Some($crate::__private::IntoArg::into_arg($field));
            self
        }
    };
    (@setter def $field:ident : $t:ty [$($doc:tt)*]) => {
        $($doc)*
        pub fn $field(mut self, $field: impl $crate::__private::IntoArg<$t>) -> Self {
            self.$field = $crate::__private::IntoArg::into_arg($field);
            self
        }
    };
    (@setter $kind:ident $field:ident : $t:ty [$($doc:tt)*]) => {};

    // --- path segment
    (@path path $out:ident $template:ident $value:expr, $t:ty) => {
        if let Some((before, after)) = $crate::request::split_marker($template, <$t as $crate::__private::PathParam>::MARKER) {
            $out.push_str(before);
            $out.push_str($crate::__private::PathParam::segment(&$value));
            $template = after;
        }
    };
    (@path $kind:ident $out:ident $template:ident $value:expr, $t:ty) => {};

    // --- checks
    (@check opt $value:expr, $wire:expr, $t:ty, [$($check:expr),*]) => {
        $( if let Some(v) = &$value {
            $crate::__private::Check::<$t, _>::check(&($check), $wire, v)?;
        } )*
    };
    (@check flat $value:expr, $wire:expr, $t:ty, [$($check:expr),*]) => {
        $crate::__private::Fields::check(&$value)?;
    };
    (@check body $value:expr, $wire:expr, $t:ty, [$($check:expr),*]) => {};
    (@check $kind:ident $value:expr, $wire:expr, $t:ty, [$($check:expr),*]) => {
        $( $crate::__private::Check::<$t, _>::check(&($check), $wire, &$value)?; )*
    };

    // --- JSON body
    (@body_only body $object:ident) => { $object = false; };
    (@body_only $kind:ident $object:ident) => {};
    (@whole body $value:expr, $p:ident) => { $crate::__private::Body::write_body(&$value, $p)?; };
    (@whole $kind:ident $value:expr, $p:ident) => {};
    (@json opt $value:expr, $wire:expr, $t:ty, $w:ident) => {
        if let Some(v) = &$value {
            $crate::__private::Param::put_json(v, $wire, &mut $w)?;
        }
    };
    (@json flat $value:expr, $wire:expr, $t:ty, $w:ident) => {
        $crate::__private::Fields::put_json_all(&$value, &mut $w)?;
    };
    (@json body $value:expr, $wire:expr, $t:ty, $w:ident) => {};
    (@json $kind:ident $value:expr, $wire:expr, $t:ty, $w:ident) => {
        $crate::__private::Param::put_json(&$value, $wire, &mut $w)?;
    };

    // --- query or form
    (@form opt $value:expr, $wire:expr, $t:ty, $p:ident) => {
        if let Some(v) = &$value {
            $crate::__private::Param::put(v, $wire, $p)?;
        }
    };
    (@form flat $value:expr, $wire:expr, $t:ty, $p:ident) => {
        $crate::__private::Fields::put_all(&$value, $p)?;
    };
    (@form body $value:expr, $wire:expr, $t:ty, $p:ident) => {
        $crate::__private::Body::write_body(&$value, $p)?;
    };
    (@form $kind:ident $value:expr, $wire:expr, $t:ty, $p:ident) => {
        $crate::__private::Param::put(&$value, $wire, $p)?;
    };

    // --- reading from wire parameters
    (@take req $p:ident, $wire:expr, $t:ty) => {
        <$t as $crate::__private::Param>::take($p, $wire)?.ok_or_else(|| $crate::__private::required($wire))?
    };
    (@take opt $p:ident, $wire:expr, $t:ty) => {
        <$t as $crate::__private::Param>::take($p, $wire)?
    };
    (@take def $p:ident, $wire:expr, $t:ty, $default:expr) => {
        <$t as $crate::__private::Param>::take($p, $wire)?.unwrap_or_else(|| $default)
    };
    (@take path $p:ident, $wire:expr, $t:ty) => {
        <$t as $crate::__private::PathParam>::take_path($p)?
    };
    (@take flat $p:ident, $wire:expr, $t:ty) => {
        <$t as $crate::__private::Fields>::take_all($p)?
    };
    (@take body $p:ident, $wire:expr, $t:ty) => {
        <$t as $crate::__private::Body>::take_body($p)?
    };
}

#[cfg(test)]
mod tests {
    use super::split_marker;

    #[test]
    fn split_marker_finds_the_segment() {
        assert_eq!(
            split_marker("/{market}/order/new", "{market}"),
            Some(("/", "/order/new"))
        );
        assert_eq!(
            split_marker("/a/{x}/b/{market}", "{market}"),
            Some(("/a/{x}/b/", ""))
        );
        assert_eq!(split_marker("/spot/order/new", "{market}"), None);
        assert_eq!(split_marker("/{mark", "{market}"), None);
        assert_eq!(split_marker("{", "{market}"), None);
    }
}
