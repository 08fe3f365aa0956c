//! CONTRIBUTING.md's recipe followed outside the crate: two endpoints that do not exist, each one
//! `request!` declaration plus its model, and their tests (exact bytes, declared checks, a
//! cross-field rule, the wire-parameter reader, decoding).

use digifinex_core::params::{FromParams, ParamMap};
use digifinex_core::request::{positive, range, Param};
use digifinex_core::{
    build, parse, request, Config, Credentials, Error, Family, Meta, Method, Params, Price, Size,
    TimestampMillis,
};

/// Answer of [`EchoRequest`] (the model: every field optional, as `digifinex_core::de` says).
#[derive(Debug, serde::Deserialize, serde::Serialize)]
pub struct Echo {
    /// What came back.
    #[serde(default)]
    pub text: Option<String>,
}

request! {
    /// `GET /v3/echo`: echoes a text (a spot GET: query parameters).
    pub struct EchoRequest => Echo;
    meta = Meta::new(Family::Spot, Method::Get, "spot.echo", "/echo");
    /// Echoes `text`.
    new;
    fields {
        /// What to echo.
        req text: String,
        /// How many times, 1..=3.
        opt times: u32 [range(1, 3)],
        /// Window start (ms); with `end`, `end` must be later.
        opt start: TimestampMillis,
        /// Window end (ms).
        opt end: TimestampMillis,
    }
    validate = check_window;
}

/// The cross-field rule, hand-written: `end` after `start`.
fn check_window(r: &EchoRequest, _: &Params) -> Result<(), Error> {
    // The request's fields are private to this module, as in the crate.
    match (r.start_end().0, r.start_end().1) {
        (Some(s), Some(e)) if e <= s => Err(Error::validation("end", "must be after start")),
        _ => Ok(()),
    }
}

impl EchoRequest {
    fn start_end(&self) -> (Option<TimestampMillis>, Option<TimestampMillis>) {
        (self.start, self.end)
    }
}

/// Answer of [`BidRequest`].
#[derive(Debug, serde::Deserialize, serde::Serialize)]
pub struct BidAck {}

request! {
    /// `POST /swap/v2/trade/bid`: a signed swap POST (a JSON body).
    pub struct BidRequest => BidAck;
    meta = Meta::new(Family::Swap, Method::Post, "swap.bid", "/swap/v2/trade/bid").signed();
    /// Bids `size` contracts of `instrument_id` at `price`.
    new;
    fields {
        /// The instrument.
        req instrument_id: String,
        /// Contracts (a JSON number).
        req size: Size [positive],
        /// Price (a JSON string).
        req price: Price [positive],
        /// Maker only.
        def post_only: bool = false,
    }
}

const NOW: TimestampMillis = TimestampMillis(1_700_000_000_000);

#[test]
fn a_declared_get_writes_its_query_in_declaration_order() {
    let req = EchoRequest::new("hi there")
        .times(2)
        .start(TimestampMillis(5))
        .end(TimestampMillis(9));
    let http = build(&req, &Config::default(), None, NOW).unwrap();
    assert_eq!(
        http.uri(),
        "https://openapi.digifinex.com/v3/echo?text=hi+there&times=2&start=5&end=9"
    );
    assert_eq!(http.method(), "GET");
    assert!(http.body().is_empty());
    // Optional fields left unset are not sent.
    let http = build(&EchoRequest::new("x"), &Config::default(), None, NOW).unwrap();
    assert_eq!(http.uri(), "https://openapi.digifinex.com/v3/echo?text=x");
}

#[test]
fn declared_checks_and_the_validate_rule_name_their_field() {
    let field = |r: &EchoRequest| match build(r, &Config::default(), None, NOW) {
        Err(Error::Validation { field, .. }) => field.into_owned(),
        other => panic!("expected a validation error, got {other:?}"),
    };
    assert_eq!(field(&EchoRequest::new("x").times(0)), "times");
    assert_eq!(field(&EchoRequest::new("x").times(4)), "times");
    assert_eq!(
        field(
            &EchoRequest::new("x")
                .start(TimestampMillis(9))
                .end(TimestampMillis(9))
        ),
        "end"
    );
}

#[test]
fn a_declared_swap_post_writes_one_json_object_and_signs_it() {
    let req = BidRequest::new(
        "BTCUSDTPERP",
        Size::ONE,
        "30000.5".parse::<Price>().unwrap(),
    );
    let creds = Credentials::new("key", "secret");
    let http = build(&req, &Config::default(), Some(&creds), NOW).unwrap();
    assert_eq!(
        http.uri(),
        "https://openapi.digifinex.com/swap/v2/trade/bid"
    );
    assert_eq!(
        std::str::from_utf8(http.body()).unwrap(),
        r#"{"instrument_id":"BTCUSDTPERP","size":1,"price":"30000.5","post_only":false}"#
    );
    assert_eq!(http.headers()["access-timestamp"], "1700000000000");
    assert_eq!(http.headers()["access-key"], "key");
    // A zero size is refused before anything is signed.
    let zero = BidRequest::new("BTCUSDTPERP", Size::ZERO, Price::ONE);
    assert!(matches!(
        build(&zero, &Config::default(), Some(&creds), NOW),
        Err(Error::Validation { ref field, .. }) if field == "size"
    ));
    // The setter of a defaulted field.
    let http = build(
        &BidRequest::new("BTCUSDTPERP", Size::ONE, Price::ONE).post_only(true),
        &Config::default(),
        Some(&creds),
        NOW,
    )
    .unwrap();
    assert!(std::str::from_utf8(http.body())
        .unwrap()
        .ends_with(r#""post_only":true}"#));
}

#[test]
fn the_declaration_also_reads_wire_parameters() {
    let mut p = ParamMap::new();
    p.insert_json_object(r#"{"instrument_id":"BTCUSDTPERP","size":2,"price":"1.5"}"#)
        .unwrap();
    let req = BidRequest::from_params(&mut p).unwrap();
    p.finish().unwrap();
    assert_eq!(
        req,
        BidRequest::new(
            "BTCUSDTPERP",
            Size::new(2.into()),
            "1.5".parse::<Price>().unwrap()
        )
    );
    // A missing required parameter names itself.
    let mut p = ParamMap::new();
    p.insert_text("instrument_id", "BTCUSDTPERP");
    assert!(matches!(
        BidRequest::from_params(&mut p),
        Err(Error::Validation { ref field, .. }) if field == "size"
    ));
    // Each field type reads itself (`Param::take`).
    let mut p = ParamMap::new();
    p.insert_text("t", "17");
    assert_eq!(
        <TimestampMillis as Param>::take(&mut p, "t").unwrap(),
        Some(TimestampMillis(17))
    );
}

#[test]
fn the_declared_model_decodes_through_the_core() {
    let body: &[u8] = br#"{"code":0,"text":"hi"}"#;
    let resp = http::Response::builder().status(200).body(body).unwrap();
    assert_eq!(
        parse::<EchoRequest>(&resp).unwrap().text.as_deref(),
        Some("hi")
    );
}
