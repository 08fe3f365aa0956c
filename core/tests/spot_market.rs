//! Public market data: exact request shapes, validation, and decoding of the spec's shapes, their
//! documented variants and real captures (`tests/data/real/`, sources in its SOURCES.md).

// Reads its fixtures from files: the core's no-I/O lint (`core/clippy.toml`) is for the library.
#![allow(clippy::disallowed_methods)]

mod support;

use digifinex_core::spot::*;
use digifinex_core::{Error, ErrorKind, TimestampSecs};
use support::*;

const BASE: &str = "https://openapi.digifinex.com/v3";

fn real(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/data/real/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

#[test]
fn public_requests_have_exact_shapes_and_no_auth_headers() {
    assert_public_get(&PingRequest, &format!("{BASE}/ping"));
    assert_public_get(&ServerTimeRequest, &format!("{BASE}/time"));
    assert_public_get(&MarketsRequest, &format!("{BASE}/markets"));
    assert_public_get(&TickerRequest::new(), &format!("{BASE}/ticker"));
    assert_public_get(
        &TickerRequest::new().symbol("btc_usdt"),
        &format!("{BASE}/ticker?symbol=btc_usdt"),
    );
    assert_public_get(
        &OrderBookRequest::new("btc_usdt"),
        &format!("{BASE}/order_book?symbol=btc_usdt"),
    );
    assert_public_get(
        &OrderBookRequest::new("btc_usdt").limit(150),
        &format!("{BASE}/order_book?symbol=btc_usdt&limit=150"),
    );
    assert_public_get(
        &TradesRequest::new("eth_usdt").limit(500),
        &format!("{BASE}/trades?symbol=eth_usdt&limit=500"),
    );
    // Only what the caller set is sent: no default limit.
    assert_public_get(
        &TradesRequest::new("eth_usdt"),
        &format!("{BASE}/trades?symbol=eth_usdt"),
    );
    // The pair is sent as the caller wrote it (the venue accepts either case).
    assert_public_get(
        &OrderBookRequest::new("BTC_USDT"),
        &format!("{BASE}/order_book?symbol=BTC_USDT"),
    );
    assert_public_get(
        &KlineRequest::new("btc_usdt", KlinePeriod::D1)
            .start_time(TimestampSecs(1_559_354_460))
            .end_time(TimestampSecs(1_559_365_260)),
        &format!(
            "{BASE}/kline?symbol=btc_usdt&period=1D&start_time=1559354460&end_time=1559365260"
        ),
    );
    assert_public_get(
        &KlineRequest::new("btc_usdt", KlinePeriod::M1),
        &format!("{BASE}/kline?symbol=btc_usdt&period=1"),
    );
    assert_public_get(&SpotSymbolsRequest, &format!("{BASE}/spot/symbols"));
    assert_public_get(&MarginSymbolsRequest, &format!("{BASE}/margin/symbols"));
    assert_public_get(&TradesSymbolsRequest, &format!("{BASE}/trades/symbols"));
    assert_public_get(
        &MarginCurrenciesRequest,
        &format!("{BASE}/margin/currencies"),
    );
    // DESIGN: /currencies is public (unsigned), success code 200.
    assert_public_get(&CurrenciesRequest::new(), &format!("{BASE}/currencies"));
    assert_public_get(
        &CurrenciesRequest::new().currency("usdt"),
        &format!("{BASE}/currencies?currency=usdt"),
    );
}

#[test]
fn public_requests_work_without_credentials_and_with_a_custom_base() {
    let cfg = digifinex_core::Config::default().with_spot_base_url("http://127.0.0.1:9000/v3/");
    let req = digifinex_core::build(&OrderBookRequest::new("btc_usdt"), &cfg, None, NOW).unwrap();
    assert_eq!(
        req.uri(),
        "http://127.0.0.1:9000/v3/order_book?symbol=btc_usdt"
    );
    assert!(req.headers().is_empty());
}

#[test]
fn public_request_validation_names_the_field() {
    assert_invalid(&OrderBookRequest::new("btc_usdt").limit(0), "limit");
    assert_invalid(&OrderBookRequest::new("btc_usdt").limit(151), "limit");
    assert_invalid(&OrderBookRequest::new("btcusdt"), "symbol");
    assert_invalid(&TradesRequest::new("btc_usdt").limit(0), "limit");
    assert_invalid(&TradesRequest::new("btc_usdt").limit(501), "limit");
    assert_invalid(&TradesRequest::new("usdt_"), "symbol");
    assert_invalid(&TickerRequest::new().symbol("BTC/USDT"), "symbol");
    assert_invalid(
        &KlineRequest::new("btc_usdt", KlinePeriod::M1)
            .start_time(TimestampSecs(100))
            .end_time(TimestampSecs(100)),
        "end_time",
    );
    assert_invalid(
        &KlineRequest::new("btc_usdt", KlinePeriod::M1)
            .start_time(TimestampSecs(0))
            .end_time(TimestampSecs(501 * 60)),
        "start_time",
    );
    // Exactly 500 one-minute candles is allowed.
    assert!(build_req(
        &KlineRequest::new("btc_usdt", KlinePeriod::M1)
            .start_time(TimestampSecs(0))
            .end_time(TimestampSecs(500 * 60))
    )
    .is_ok());
    assert_invalid(&CurrenciesRequest::new().currency(" "), "currency");
    // Issue 12: `end_time - start_time` overflowed `i64` here (a panic in a debug build, a
    // wrapped count that skipped the 500-candle check in release); any range too long to count
    // is the same validation error.
    for (start, end) in [
        (-1, i64::MAX),
        (i64::MIN, i64::MAX),
        (i64::MIN, 0),
        (i64::MIN, i64::MIN + 1),
        (-1_000, i64::MAX - 1),
    ] {
        for period in KlinePeriod::ALL {
            let req = KlineRequest::new("btc_usdt", period)
                .start_time(TimestampSecs(start))
                .end_time(TimestampSecs(end));
            if (i128::from(end) - i128::from(start)) / i128::from(period.seconds()) <= 500 {
                assert!(build_req(&req).is_ok(), "{start}..{end} {period:?}");
            } else {
                assert_invalid(&req, "start_time");
            }
        }
    }
    for bad in ["2", "1h", "1d1", ""] {
        match KlinePeriod::parse("period", bad) {
            Err(Error::Validation { field, .. }) => assert_eq!(field, "period"),
            other => panic!("{bad}: {other:?}"),
        }
    }
    for p in KlinePeriod::ALL {
        assert_eq!(KlinePeriod::parse("period", p.as_str()).unwrap(), p);
    }
}

#[test]
fn decodes_ping_time_markets() {
    assert_eq!(
        decode::<PingRequest>(r#"{"msg":"pong","code":0}"#)
            .unwrap()
            .msg
            .as_deref(),
        Some("pong")
    );
    // The success code alone is a pong.
    assert_eq!(decode::<PingRequest>(r#"{"code":0}"#).unwrap().msg, None);
    assert_eq!(
        decode::<PingRequest>(r#"{"msg":"","code":0}"#).unwrap().msg,
        None
    );
    assert_eq!(
        decode::<ServerTimeRequest>(r#"{"server_time":1589872188,"code":0}"#)
            .unwrap()
            .server_time,
        TimestampSecs(1_589_872_188)
    );
    assert_eq!(
        decode::<ServerTimeRequest>(r#"{"server_time":"1589872188","code":0}"#)
            .unwrap()
            .server_time,
        TimestampSecs(1_589_872_188)
    );
    // The server time is the whole answer: without it there is no answer.
    for bad in [
        r#"{"code":0}"#,
        r#"{"server_time":"","code":0}"#,
        r#"{"server_time":"-","code":0}"#,
        r#"{"server_time":null,"code":0}"#,
    ] {
        match decode::<ServerTimeRequest>(bad) {
            Err(Error::Decode { path, .. }) => {
                assert!(path == "server_time" || path == ".", "{bad}: {path}")
            }
            other => panic!("{bad}: {other:?}"),
        }
    }
    let m = decode::<MarketsRequest>(
        r#"{"data":[{"volume_precision":4,"price_precision":2,"market":"btc_usdt","min_amount":2,"min_volume":0.0001},
                    {"market":"eth_usdt","volume_precision":"3","min_amount":"1e-07"}],"date":1589873858,"code":0}"#,
    )
    .unwrap();
    assert_eq!(m.date, Some(TimestampSecs(1_589_873_858)));
    assert_eq!(m.data[0].market, "btc_usdt");
    assert_eq!(m.data[0].market, "BTC_USDT");
    assert_eq!(m.data[0].market, digifinex_core::Pair::new("btc_usdt"));
    assert_eq!(m.data[0].volume_precision, Some(4));
    assert_eq!(m.data[0].price_precision, Some(2));
    assert_eq!(m.data[0].min_amount, Some(d("2")));
    assert_eq!(m.data[0].min_volume, Some(d("0.0001")));
    assert_eq!(m.data[1].volume_precision, Some(3));
    assert_eq!(m.data[1].price_precision, None);
    assert_eq!(m.data[1].min_amount, Some(d("0.0000001")));
}

#[test]
fn decodes_tickers_with_high_low_as_strings() {
    let t = decode::<TickerRequest>(
        r#"{"ticker":[{"vol":40717.4461,"change":-1.91,"base_vol":392447999.65374,"sell":9592.23,
            "last":9592.22,"symbol":"btc_usdt","low":"9476.24","buy":9592.03,"high":"9793.87"}],
            "date":1589874294,"code":0}"#,
    )
    .unwrap();
    let x = &t.ticker[0];
    assert_eq!(x.symbol, "btc_usdt");
    assert_eq!(x.symbol.as_str(), "btc_usdt");
    assert_eq!(x.vol, Some(d("40717.4461")));
    assert_eq!(x.base_vol, Some(d("392447999.65374")));
    // `change` is a percent (docs/protocol.md): -1.91 is -1.91 %, the fraction -0.0191.
    assert_eq!(x.change_percent, Some(d("-1.91")));
    assert_eq!(x.change_fraction(), Some(d("-0.0191")));
    assert_eq!(x.last, Some(d("9592.22")));
    assert_eq!(x.sell, Some(d("9592.23")));
    assert_eq!(x.buy, Some(d("9592.03")));
    assert_eq!(x.high, Some(d("9793.87")));
    assert_eq!(x.low, Some(d("9476.24")));
    assert_eq!(t.date, Some(TimestampSecs(1_589_874_294)));
    // Missing and empty fields are None, not zero.
    let t = decode::<TickerRequest>(r#"{"ticker":[{"symbol":"x_y","last":""}],"code":0}"#).unwrap();
    assert_eq!(t.ticker[0].last, None);
    assert_eq!(t.ticker[0].high, None);
    assert_eq!(t.ticker[0].change_fraction(), None);
    // The wire name stays `change` in the rendered output too.
    let v = serde_json::to_value(&t.ticker[0]).unwrap();
    assert!(
        v.get("change").is_some() && v.get("change_percent").is_none(),
        "{v}"
    );
    // Placeholders in optional fields are absent; a garbled value is absent and reported; the
    // other rows are kept. The pair is the row's key: a row without one fails the answer.
    let body = br#"{"ticker":[{"symbol":"BTC_USDT","last":"-","vol":null,"change":"--","sell":"x"},
        {"symbol":"eth_usdt","last":2000.5}],"date":"","code":0}"#;
    let (t, unreadable) = digifinex_core::endpoint::parse_body_report::<Tickers>(
        &<TickerRequest as digifinex_core::Endpoint>::META,
        200,
        &http::HeaderMap::new(),
        body,
    )
    .unwrap();
    assert_eq!(t.ticker[0].symbol, "btc_usdt");
    assert_eq!(
        (
            t.ticker[0].last,
            t.ticker[0].vol,
            t.ticker[0].change_percent
        ),
        (None, None, None)
    );
    assert_eq!(t.ticker[0].sell, None);
    assert_eq!(t.ticker[1].last, Some(d("2000.5")));
    assert_eq!(t.date, None);
    assert_eq!(unreadable.len(), 1, "{unreadable:?}");
    assert_eq!(unreadable[0].path, "ticker[0].sell");
    for bad in [
        r#"{"ticker":[{"last":1}],"code":0}"#,
        r#"{"ticker":[{"symbol":"","last":1}],"code":0}"#,
        r#"{"ticker":[{"symbol":"-","last":1}],"code":0}"#,
    ] {
        match decode::<TickerRequest>(bad) {
            Err(Error::Decode { path, .. }) => assert!(path.starts_with("ticker[0]"), "{path}"),
            other => panic!("{bad}: {other:?}"),
        }
    }
    // A null or missing list is empty.
    assert!(decode::<TickerRequest>(r#"{"ticker":null,"code":0}"#)
        .unwrap()
        .ticker
        .is_empty());
    assert!(decode::<TickerRequest>(r#"{"code":0}"#)
        .unwrap()
        .ticker
        .is_empty());
}

#[test]
fn decodes_order_book_exactly() {
    let b = decode::<OrderBookRequest>(
        r#"{"bids":[[9559.43,0.0005],["9559.42","1e-07"]],"asks":[[9559.44,25.999999999999996]],"date":1589874294,"code":0}"#,
    )
    .unwrap();
    assert_eq!(b.bids.len(), 2);
    assert_eq!(
        b.bids[0],
        answer!(Level {
            price: d("9559.43"),
            amount: d("0.0005")
        })
    );
    assert_eq!(b.bids[1].amount.to_string(), "0.0000001");
    assert_eq!(b.asks[0].amount.to_string(), "25.999999999999996");
    assert_eq!(b.date, Some(TimestampSecs(1_589_874_294)));
    // Rendered as JSON strings in plain notation.
    let v = serde_json::to_value(&b).unwrap();
    assert_eq!(v["bids"][1], serde_json::json!(["9559.42", "0.0000001"]));
    // Placeholders in the envelope's optional date are absent.
    assert_eq!(
        decode::<OrderBookRequest>(r#"{"bids":[],"asks":[],"date":"-","code":0}"#)
            .unwrap()
            .date,
        None
    );
    // A level's price and size are required (a positional row's leading columns).
    // The error names the row, its message the column.
    for (bad, col) in [
        (
            r#"{"bids":[["",1]],"asks":[],"code":0}"#,
            "column 0 (price)",
        ),
        (
            r#"{"bids":[[1,"-"]],"asks":[],"code":0}"#,
            "column 1 (amount)",
        ),
        (
            r#"{"bids":[[1,null]],"asks":[],"code":0}"#,
            "column 1 (amount)",
        ),
        (r#"{"bids":[[1]],"asks":[],"code":0}"#, "column 1 (amount)"),
    ] {
        match decode::<OrderBookRequest>(bad) {
            Err(Error::Decode { path, message, .. }) => {
                assert_eq!(path, "bids[0]", "{bad}");
                assert!(message.contains(col), "{bad}: {message}");
            }
            other => panic!("{bad}: {other:?}"),
        }
    }
    // Extra columns are ignored; a short level is a decode error naming the path.
    assert!(decode::<OrderBookRequest>(r#"{"bids":[[1,2,3]],"asks":[],"code":0}"#).is_ok());
    match decode::<OrderBookRequest>(r#"{"bids":[[1]],"asks":[],"code":0}"#) {
        Err(Error::Decode {
            path, type_name, ..
        }) => {
            assert_eq!(path, "bids[0]");
            assert!(type_name.ends_with("OrderBook"), "{type_name}");
        }
        other => panic!("{other:?}"),
    }
}

fn level(price: &str, amount: &str) -> Level {
    answer!(Level {
        price: d(price),
        amount: d(amount),
    })
}

#[test]
fn best_bid_and_ask_are_found_by_price_in_any_order() {
    // The venue's published order: bids highest first, asks highest first (best ask LAST).
    let venue = decode::<OrderBookRequest>(
        r#"{"bids":[[9605.77,0.0016],[9605.46,0.0003],[9602.04,0.0127]],
            "asks":[[9627.22,0.025803],[9627.12,0.168543],[9626.52,0.0011529]],
            "date":1564509499,"code":0}"#,
    )
    .unwrap();
    assert_eq!(venue.best_bid(), Some(&level("9605.77", "0.0016")));
    assert_eq!(venue.best_ask(), Some(&level("9626.52", "0.0011529")));
    assert_eq!(venue.best_ask(), venue.asks.last());
    assert_eq!(venue.spread(), Some(d("20.75")));
    assert_eq!(venue.mid(), Some(d("9616.145")));
    // The same book with both sides reversed: the same best levels.
    let mut reversed = venue.clone();
    reversed.bids.reverse();
    reversed.asks.reverse();
    assert_eq!(reversed.best_bid(), Some(&level("9605.77", "0.0016")));
    assert_eq!(reversed.best_ask(), Some(&level("9626.52", "0.0011529")));
    assert_eq!(reversed.best_ask(), reversed.asks.first());
    assert_eq!(reversed.spread(), venue.spread());
    assert_eq!(reversed.mid(), venue.mid());
    // Any other order too.
    let mut shuffled = venue.clone();
    shuffled.bids.swap(0, 1);
    shuffled.asks.swap(1, 2);
    assert_eq!(shuffled.best_bid(), venue.best_bid());
    assert_eq!(shuffled.best_ask(), venue.best_ask());
    // The slice helpers work on any side (the swap depth shares `Level`).
    assert_eq!(
        Level::highest(&venue.asks),
        Some(&level("9627.22", "0.025803"))
    );
    assert_eq!(
        Level::lowest(&venue.bids),
        Some(&level("9602.04", "0.0127"))
    );
    // An empty side: no best level, no spread, no mid.
    let one_sided = decode::<OrderBookRequest>(r#"{"bids":[[1,2]],"code":0}"#).unwrap();
    assert_eq!(one_sided.best_ask(), None);
    assert_eq!(one_sided.spread(), None);
    assert_eq!(one_sided.mid(), None);
    // A crossed book shows a negative spread rather than hiding it.
    let crossed =
        decode::<OrderBookRequest>(r#"{"bids":[[10,1]],"asks":[[9.5,1]],"code":0}"#).unwrap();
    assert_eq!(crossed.spread(), Some(d("-0.5")));
}

#[test]
fn decodes_trades_with_int_or_string_ids() {
    let t = decode::<TradesRequest>(
        r#"{"data":[{"date":1589874294,"id":1234567890123,"amount":0.0018,"type":"buy","price":9559.43},
                    {"date":"1589874295","id":"abc","amount":"2","type":"sell","price":"9559.42"},
                    {"date":1589874296,"id":7,"amount":1,"type":"liquidation","price":1}],"date":1589874300,"code":0}"#,
    )
    .unwrap();
    assert_eq!(t.data[0].id, "1234567890123");
    assert_eq!(t.data[0].side, Some(TradeSide::Buy));
    assert_eq!(t.data[0].amount, Some(d("0.0018")));
    assert_eq!(t.data[0].price, Some(d("9559.43")));
    assert_eq!(t.data[1].id, "abc");
    assert_eq!(t.data[1].date, Some(TimestampSecs(1_589_874_295)));
    assert_eq!(t.data[1].side, Some(TradeSide::Sell));
    assert_eq!(t.data[2].side, Some(TradeSide::Other("liquidation".into())));
    assert_eq!(t.date, Some(TimestampSecs(1_589_874_300)));
    // Only the id is required: placeholders elsewhere are absent, the trade is kept.
    let t = decode::<TradesRequest>(
        r#"{"data":[{"date":"","id":8,"amount":"-","type":null,"price":"--"},{"id":"9"}],"code":0}"#,
    )
    .unwrap();
    assert_eq!(
        t.data[0],
        answer!(PublicTrade {
            id: "8".into(),
            date: None,
            amount: None,
            side: None,
            price: None,
        })
    );
    assert_eq!(t.data[1].id, "9");
    for bad in [
        r#"{"data":[{"date":1,"amount":1,"type":"buy","price":1}],"code":0}"#,
        r#"{"data":[{"id":"-","price":1}],"code":0}"#,
        r#"{"data":[{"id":null,"price":1}],"code":0}"#,
    ] {
        match decode::<TradesRequest>(bad) {
            Err(Error::Decode { path, .. }) => assert!(path.starts_with("data[0]"), "{path}"),
            other => panic!("{bad}: {other:?}"),
        }
    }
}

#[test]
fn decodes_real_kline_captures() {
    let k = decode::<KlineRequest>(&real("v3_kline_4.json")).unwrap();
    assert_eq!(
        k.data,
        vec![answer!(Candle {
            time: TimestampSecs(1_706_763_600),
            volume: d("3.36"),
            close: d("11.364"),
            high: d("11.367"),
            low: d("11.353"),
            open: d("11.357"),
        })]
    );
    let k = decode::<KlineRequest>(&real("v3_kline_5.json")).unwrap();
    assert_eq!(k.data.len(), 10);
    assert_eq!(k.data[0].time, TimestampSecs(1_559_354_760));
    assert!(k
        .data
        .iter()
        .all(|c| c.volume.is_zero() && c.close == d("13827.224895")));
    // Times are increasing but with gaps (missing minutes are absent).
    assert!(k.data.windows(2).all(|w| w[0].time < w[1].time));
    // All six columns are required; the error names the candle and the column.
    for (bad, col) in [
        (r#"{"data":[["-",1,2,3,4,5]],"code":0}"#, "column 0 (time)"),
        (r#"{"data":[[1,1,2,3,""]],"code":0}"#, "column 4 (low)"),
        (r#"{"data":[[1,1,2,3,4,null]],"code":0}"#, "column 5 (open)"),
    ] {
        match decode::<KlineRequest>(bad) {
            Err(Error::Decode { path, message, .. }) => {
                assert_eq!(path, "data[0]", "{bad}");
                assert!(message.contains(col), "{bad}: {message}");
            }
            other => panic!("{bad}: {other:?}"),
        }
    }
    // Extra columns are ignored.
    let k = decode::<KlineRequest>(r#"{"data":[[1,"2",3,4,5,6,7,"x"]],"code":0}"#).unwrap();
    assert_eq!(k.data[0].open, d("6"));
}

#[test]
fn decodes_real_symbol_capture_with_exponents_and_float_minimums() {
    let s = decode::<SpotSymbolsRequest>(&real("v3_spot_symbols_2.json")).unwrap();
    assert_eq!(s.symbol_list.len(), 716);
    let btc = &s.symbol_list[0];
    assert_eq!(btc.symbol, "BTC_USDT");
    assert_eq!(btc.symbol.as_str(), "btc_usdt");
    assert_eq!(btc.status, Some(SymbolStatus::Trading));
    assert_eq!(btc.minimum_amount.unwrap().to_string(), "0.0000001");
    assert_eq!(btc.minimum_value, Some(d("2")));
    assert_eq!(btc.amount_precision, Some(7));
    assert_eq!(btc.price_precision, Some(2));
    assert_eq!(
        btc.order_types,
        vec![SymbolOrderType::Limit, SymbolOrderType::Market]
    );
    assert_eq!(btc.zone.as_deref(), Some("MAIN"));
    assert_eq!(btc.is_allow, None);
    let eth = &s.symbol_list[1];
    assert_eq!(eth.minimum_value, Some(d("1.2")));
    assert_eq!(eth.minimum_amount, Some(d("0.0006")));
    assert!(s
        .symbol_list
        .iter()
        .all(|x| x.status == Some(SymbolStatus::Trading)));
}

#[test]
fn hand_trimmed_symbol_capture_decodes_as_a_model_but_is_not_an_envelope() {
    // The trimmed capture lacks `code`: the model tolerates its missing fields...
    let body = real("v3_spot_symbols_3.json");
    let list: SymbolList = serde_json::from_str(&body).unwrap();
    assert_eq!(list.symbol_list.len(), 4);
    assert_eq!(
        list.symbol_list[3].status,
        Some(SymbolStatus::Other("OFFLINE".into()))
    );
    assert_eq!(list.symbol_list[3].price_precision, None);
    // ...but a response without `code` is not taken as success.
    match decode::<SpotSymbolsRequest>(&body) {
        Err(Error::Decode { path, .. }) => assert_eq!(path, "code"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn decodes_margin_and_trades_symbols() {
    let m = decode::<MarginSymbolsRequest>(
        r#"{"symbol_list":[{"order_types":["LIMIT","MARKET","STOP"],"quote_asset":"USDT","minimum_value":2,
            "amount_precision":4,"status":"TRADING","minimum_amount":0.0001,"liquidation_rate":0.3,"symbol":"BTC_USDT",
            "zone":"MAIN","base_asset":"BTC","price_precision":2}],"code":0}"#,
    )
    .unwrap();
    assert_eq!(m.symbol_list[0].liquidation_rate, Some(d("0.3")));
    assert_eq!(
        m.symbol_list[0].order_types[2],
        SymbolOrderType::Other("STOP".into())
    );
    // Statuses beyond the spec's TRADING (HALT/HALTED, BREAK), an unknown one kept; a
    // placeholder order type is dropped.
    let m = decode::<MarginSymbolsRequest>(
        r#"{"symbol_list":[{"symbol":"A_USDT","status":"HALT","order_types":["LIMIT","",null,"MARKET"]},
            {"symbol":"B_USDT","status":"halted"},{"symbol":"C_USDT","status":"BREAK"},
            {"symbol":"D_USDT","status":"CLOSED"},{"symbol":"E_USDT","status":"-"}],"code":0}"#,
    )
    .unwrap();
    let statuses: Vec<_> = m.symbol_list.iter().map(|s| s.status.clone()).collect();
    assert_eq!(
        statuses,
        vec![
            Some(SymbolStatus::Halt),
            Some(SymbolStatus::Halt),
            Some(SymbolStatus::Break),
            Some(SymbolStatus::Other("CLOSED".into())),
            None
        ]
    );
    assert_eq!(
        m.symbol_list[0].order_types,
        vec![SymbolOrderType::Limit, SymbolOrderType::Market]
    );
    // The pair is each row's key.
    match decode::<MarginSymbolsRequest>(
        r#"{"symbol_list":[{"symbol":"","status":"TRADING"}],"code":0}"#,
    ) {
        Err(Error::Decode { path, .. }) => assert_eq!(path, "symbol_list[0].symbol"),
        other => panic!("{other:?}"),
    }
    let t = decode::<TradesSymbolsRequest>(
        r#"{"symbol_list":[{"symbol":"BTC_USDT","is_allow":1},{"symbol":"X_USDT","is_allow":"0"}],"code":0}"#,
    )
    .unwrap();
    assert_eq!(t.symbol_list[0].is_allow, Some(true));
    assert_eq!(t.symbol_list[1].is_allow, Some(false));
}

#[test]
fn decodes_margin_currencies() {
    let m = decode::<MarginCurrenciesRequest>(
        r#"{"currencys":["BTC","USDT"],"funding_time":"every 1 hour",
            "margin_fees":[{"currency_mark":"BTC","level":1,"range":"0-10","loan_fees":0.0002}],"code":0}"#,
    )
    .unwrap();
    assert_eq!(m.currencies, vec!["BTC", "USDT"]);
    assert_eq!(m.funding_time.as_deref(), Some("every 1 hour"));
    assert_eq!(m.margin_fees[0].currency_mark, "BTC");
    assert_eq!(m.margin_fees[0].level, Some(1));
    assert_eq!(m.margin_fees[0].range.as_deref(), Some("0-10"));
    assert_eq!(m.margin_fees[0].loan_fees, Some(d("0.0002")));
    // Optional fee fields may be placeholders; the currency is each row's key, and each
    // listed currency is its own key.
    let m = decode::<MarginCurrenciesRequest>(
        r#"{"currencys":["BTC"],"funding_time":"","margin_fees":[{"currency_mark":"BTC","level":"-","range":null,"loan_fees":""}],"code":0}"#,
    )
    .unwrap();
    assert_eq!(m.funding_time, None);
    assert_eq!(
        (
            m.margin_fees[0].level,
            m.margin_fees[0].range.clone(),
            m.margin_fees[0].loan_fees
        ),
        (None, None, None)
    );
    for (bad, at) in [
        (r#"{"currencys":["BTC","-"],"code":0}"#, "currencys[1]"),
        (
            r#"{"margin_fees":[{"currency_mark":"","level":1}],"code":0}"#,
            "margin_fees[0].currency_mark",
        ),
    ] {
        match decode::<MarginCurrenciesRequest>(bad) {
            Err(Error::Decode { path, .. }) => assert_eq!(path, at, "{bad}"),
            other => panic!("{bad}: {other:?}"),
        }
    }
}

#[test]
fn decodes_currencies_with_success_code_200_and_fee_rule() {
    let body = r#"{"data":[{"deposit_status":1,"min_deposit_amount":10,"withdraw_fee_rate":0,"min_withdraw_amount":10,
        "min_withdraw_fee":5,"currency":"USDT","withdraw_status":0,"chain":"OMNI","withdraw_fee_currency":"USDT"},
        {"currency":"BTC","chain":"","withdraw_fee_rate":"0.001","min_withdraw_fee":"0.0005","deposit_status":0}],"code":200}"#;
    let c = decode::<CurrenciesRequest>(body).unwrap();
    let usdt = &c.data[0];
    assert_eq!(usdt.currency, "USDT");
    assert_eq!(usdt.chain.as_deref(), Some("OMNI"));
    assert_eq!(usdt.deposit_status, Some(true));
    assert_eq!(usdt.withdraw_status, Some(false));
    assert_eq!(usdt.min_deposit_amount, Some(d("10")));
    assert_eq!(usdt.withdraw_fee_currency.as_deref(), Some("USDT"));
    let btc = &c.data[1];
    assert_eq!(btc.chain, None);
    // Rate-based fee below the minimum: the minimum applies; above it: the rate-based fee.
    assert_eq!(btc.withdraw_fee(d("0.1")), Some(d("0.0005")));
    assert_eq!(btc.withdraw_fee(d("2")), Some(d("0.002")));
    assert_eq!(usdt.withdraw_fee(d("100")), Some(d("5")));
    // Placeholders in optional settings are absent; the currency is each row's key.
    let c = decode::<CurrenciesRequest>(
        r#"{"data":[{"currency":"ETH","deposit_status":"-","min_withdraw_fee":"","withdraw_fee_rate":null}],"code":200}"#,
    )
    .unwrap();
    assert_eq!(c.data[0].deposit_status, None);
    assert_eq!(c.data[0].withdraw_fee(d("1")), None);
    match decode::<CurrenciesRequest>(r#"{"data":[{"currency":"","chain":"x"}],"code":200}"#) {
        Err(Error::Decode { path, .. }) => assert_eq!(path, "data[0].currency"),
        other => panic!("{other:?}"),
    }
    // Code 0 is not this endpoint's success code.
    let e = decode::<CurrenciesRequest>(r#"{"data":[],"code":0}"#).unwrap_err();
    assert_eq!(e.api_code(), Some(0));
}

#[test]
fn error_envelopes_win_over_shapes_and_statuses() {
    let e = decode::<OrderBookRequest>(r#"{"code":20019,"msg":"wrong symbol"}"#).unwrap_err();
    match &e {
        Error::Api(a) => {
            assert_eq!(a.code.code(), 20019);
            assert_eq!(a.message.as_deref(), Some("wrong symbol"));
            assert_eq!(a.status, 200);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(e.kind(), ErrorKind::InvalidRequest);
    let e = decode_status::<OrderBookRequest>(500, r#"{"code":50000}"#).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Server);
    assert_eq!(e.status(), Some(500));
    assert!(e.is_retryable());
    let e = decode_status::<PingRequest>(502, "<html>Bad gateway</html>").unwrap_err();
    match e {
        Error::HttpStatus { status, snippet } => {
            assert_eq!(status, 502);
            assert_eq!(snippet, "<html>Bad gateway</html>");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        decode_status::<PingRequest>(429, "").unwrap_err(),
        Error::RateLimited {
            status: 429,
            retry_after: None,
            ..
        }
    ));
    assert!(matches!(
        decode_status::<PingRequest>(403, "Forbidden").unwrap_err(),
        Error::Banned { status: 403, .. }
    ));
    // A truncated success body is a decode error, not an API error.
    let e = decode::<OrderBookRequest>(r#"{"code":0,"bids":[[1,2]"#).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Decode);
}

#[test]
fn retry_after_is_kept() {
    let resp = http::Response::builder()
        .status(429)
        .header("retry-after", "3")
        .body(&b"{}"[..])
        .unwrap();
    let e = digifinex_core::parse::<PingRequest>(&resp).unwrap_err();
    assert_eq!(e.retry_after(), Some(std::time::Duration::from_secs(3)));
    assert_eq!(e.kind(), ErrorKind::RateLimit);
}

#[test]
fn catalog_builds_the_same_requests() {
    use digifinex_core::catalog::{find, ParamMap};
    let (entry, vars) = find("GET", "/v3/order_book").unwrap();
    assert!(vars.is_empty());
    let mut p = ParamMap::new();
    p.insert_text("symbol", "btc_usdt");
    p.insert_text("limit", "5");
    let via_catalog = (entry.build)(p, &digifinex_core::Config::default(), None, NOW).unwrap();
    let typed = build_req(&OrderBookRequest::new("btc_usdt").limit(5)).unwrap();
    assert_eq!(render(&via_catalog), render(&typed));
    let (entry, _) = find("GET", "/v3/kline").unwrap();
    let mut p = ParamMap::new();
    p.insert_text("symbol", "btc_usdt");
    p.insert_text("period", "2");
    match (entry.build)(p, &digifinex_core::Config::default(), None, NOW) {
        Err(Error::Validation { field, .. }) => assert_eq!(field, "period"),
        other => panic!("{other:?}"),
    }
}
