mod support;
use support::*;

use digifinex_core::catalog::{self, ParamMap};
use digifinex_core::spot::{
    CancelWithdrawRequest, DepositAddress, DepositAddressRequest, DepositHistory,
    DepositHistoryRequest, DepositRecord, DepositState, HistoryDirection, WithdrawHistoryRequest,
    WithdrawRecord, WithdrawRequest, WithdrawState,
};
use digifinex_core::{Amount, Config, Endpoint, Error, ErrorKind};

/// A withdrawal amount from its text.
fn amt(text: &str) -> Amount {
    text.parse().unwrap()
}

const BASE: &str = "https://openapi.digifinex.com/v3";

// ---------------------------------------------------------------------------------------------
// Meta

#[test]
fn wallet_endpoints_are_signed_with_success_code_200() {
    for (meta, idempotent) in [
        (DepositAddressRequest::META, true),
        (DepositHistoryRequest::META, true),
        (WithdrawHistoryRequest::META, true),
        (WithdrawRequest::META, false),
        (CancelWithdrawRequest::META, false),
    ] {
        assert_eq!(
            (meta.signed, meta.success_code, meta.idempotent),
            (true, 200, idempotent),
            "{}",
            meta.name
        );
    }
}

#[test]
fn unsigned_build_is_refused() {
    let e = digifinex_core::build(
        &DepositAddressRequest::new("usdt"),
        &Config::default(),
        None,
        NOW,
    )
    .unwrap_err();
    assert!(matches!(e, Error::Validation { ref field, .. } if field == "credentials"));
}

// ---------------------------------------------------------------------------------------------
// Request shapes

#[test]
fn deposit_address_shape() {
    assert_signed_get(
        &DepositAddressRequest::new("usdt"),
        &format!("{BASE}/deposit/address?currency=usdt"),
    );
}

#[test]
fn deposit_history_shape() {
    assert_signed_get(
        &DepositHistoryRequest::new(),
        &format!("{BASE}/deposit/history"),
    );
    assert_signed_get(
        &DepositHistoryRequest::new()
            .direct(HistoryDirection::Next)
            .size(500)
            .from(12)
            .currency("usdt"),
        &format!("{BASE}/deposit/history?currency=usdt&from=12&size=500&direct=next"),
    );
    assert_signed_get(
        &DepositHistoryRequest::new()
            .size(1)
            .direct(HistoryDirection::Prev),
        &format!("{BASE}/deposit/history?size=1&direct=prev"),
    );
}

#[test]
fn withdraw_history_shape() {
    assert_signed_get(
        &WithdrawHistoryRequest::new(),
        &format!("{BASE}/withdraw/history"),
    );
    assert_signed_get(
        &WithdrawHistoryRequest::new()
            .currency("btc")
            .from(7)
            .size(100)
            .direct(HistoryDirection::Prev),
        &format!("{BASE}/withdraw/history?currency=btc&from=7&size=100&direct=prev"),
    );
}

#[test]
fn withdraw_shape() {
    assert_signed_post(
        &WithdrawRequest::new("usdt", "0xabc", amt("10.5")).chain("ERC20"),
        &format!("{BASE}/withdraw/new"),
        "currency=usdt&chain=ERC20&address=0xabc&amount=10.5",
    );
    assert_signed_post(
        &WithdrawRequest::new("USDT", "1abc", amt("1")).chain("OMNI"),
        &format!("{BASE}/withdraw/new"),
        "currency=USDT&chain=OMNI&address=1abc&amount=1",
    );
    // Memo last; setter order does not matter.
    assert_signed_post(
        &WithdrawRequest::new("xrp", "rAddr", amt("25.000001")).memo("12345"),
        &format!("{BASE}/withdraw/new"),
        "currency=xrp&address=rAddr&amount=25.000001&memo=12345",
    );
    // A chain for another currency is passed through unchanged.
    assert_signed_post(
        &WithdrawRequest::new("eth", "0xdef", amt("0.01"))
            .memo("m")
            .chain("Arbitrum One"),
        &format!("{BASE}/withdraw/new"),
        "currency=eth&chain=Arbitrum+One&address=0xdef&amount=0.01&memo=m",
    );
    // Empty chain and memo count as not given.
    assert_signed_post(
        &WithdrawRequest::new("btc", "bc1q", amt("0.5"))
            .chain("")
            .memo(""),
        &format!("{BASE}/withdraw/new"),
        "currency=btc&address=bc1q&amount=0.5",
    );
}

#[test]
fn cancel_withdraw_shape() {
    assert_signed_post(
        &CancelWithdrawRequest::new("42"),
        &format!("{BASE}/withdraw/cancel"),
        "withdraw_id=42",
    );
}

// ---------------------------------------------------------------------------------------------
// Validation

#[test]
fn history_size_range() {
    assert_invalid(&DepositHistoryRequest::new().size(0), "size");
    assert_invalid(&DepositHistoryRequest::new().size(501), "size");
    assert_invalid(&WithdrawHistoryRequest::new().size(0), "size");
    assert_invalid(&WithdrawHistoryRequest::new().size(501), "size");
    assert!(build_req(&DepositHistoryRequest::new().size(1)).is_ok());
    assert!(build_req(&WithdrawHistoryRequest::new().size(500)).is_ok());
}

#[test]
fn history_empty_currency() {
    assert_invalid(&DepositHistoryRequest::new().currency(""), "currency");
    assert_invalid(&WithdrawHistoryRequest::new().currency(" "), "currency");
}

#[test]
fn deposit_address_empty_currency() {
    assert_invalid(&DepositAddressRequest::new(""), "currency");
}

#[test]
fn withdraw_usdt_needs_chain() {
    assert_invalid(&WithdrawRequest::new("usdt", "0xabc", amt("1")), "chain");
    assert_invalid(&WithdrawRequest::new("UsDt", "0xabc", amt("1")), "chain");
    assert_invalid(
        &WithdrawRequest::new("usdt", "0xabc", amt("1")).chain(""),
        "chain",
    );
}

#[test]
fn withdraw_usdt_refuses_other_chains() {
    assert_invalid(
        &WithdrawRequest::new("usdt", "Txyz", amt("1")).chain("TRC20"),
        "chain",
    );
    assert_invalid(
        &WithdrawRequest::new("USDT", "0xabc", amt("1")).chain("erc-20"),
        "chain",
    );
}

#[test]
fn withdraw_amount_positive() {
    assert_invalid(&WithdrawRequest::new("btc", "bc1q", amt("0")), "amount");
    assert_invalid(&WithdrawRequest::new("btc", "bc1q", amt("0.000")), "amount");
    assert_invalid(&WithdrawRequest::new("btc", "bc1q", amt("-1")), "amount");
}

#[test]
fn withdraw_address_and_currency_non_empty() {
    assert_invalid(&WithdrawRequest::new("btc", "", amt("1")), "address");
    assert_invalid(&WithdrawRequest::new("btc", "  ", amt("1")), "address");
    assert_invalid(&WithdrawRequest::new("", "bc1q", amt("1")), "currency");
}

#[test]
fn cancel_withdraw_id_form() {
    assert_invalid(&CancelWithdrawRequest::new(""), "withdraw_id");
    assert_invalid(&CancelWithdrawRequest::new("12a"), "withdraw_id");
}

// ---------------------------------------------------------------------------------------------
// Decoding

#[test]
fn decode_deposit_addresses() {
    let out = decode::<DepositAddressRequest>(
        r#"{"code":200,"data":[
            {"currency":"USDT","address":"0xd9aF","addressTag":"","chain":"ERC20"},
            {"currency":"XRP","address":"rXyz","addressTag":"104632","chain":"","extra":1},
            {"currency":"BTC","address":"bc1q"}
        ]}"#,
    )
    .unwrap();
    assert_eq!(
        out.data,
        vec![
            answer!(DepositAddress {
                currency: Some("USDT".into()),
                address: "0xd9aF".into(),
                address_tag: None,
                chain: Some("ERC20".into()),
            }),
            answer!(DepositAddress {
                currency: Some("XRP".into()),
                address: "rXyz".into(),
                address_tag: Some("104632".into()),
                chain: None,
            }),
            answer!(DepositAddress {
                currency: Some("BTC".into()),
                address: "bc1q".into(),
                address_tag: None,
                chain: None,
            }),
        ]
    );
    // The address is what the caller uses: required. The rest may be placeholders.
    let out = decode::<DepositAddressRequest>(
        r#"{"code":200,"data":[{"currency":null,"address":"0x1","addressTag":null,"chain":""}]}"#,
    )
    .unwrap();
    assert_eq!(out.data[0].currency, None);
    assert_eq!(out.data[0].address, "0x1");
    for bad in [
        r#"{"code":200,"data":[{"currency":"USDT","address":""}]}"#,
        r#"{"code":200,"data":[{"currency":"USDT","address":"-"}]}"#,
        r#"{"code":200,"data":[{"currency":"USDT"}]}"#,
    ] {
        match decode::<DepositAddressRequest>(bad) {
            Err(Error::Decode { path, .. }) => assert!(path.starts_with("data[0]"), "{path}"),
            other => panic!("{bad}: {other:?}"),
        }
    }
    // A null list is empty.
    assert!(
        decode::<DepositAddressRequest>(r#"{"code":200,"data":null}"#)
            .unwrap()
            .data
            .is_empty()
    );
}

#[test]
fn decode_deposit_history_current_shape() {
    let out = decode::<DepositHistoryRequest>(
        r#"{"code":200,"data":[{"id":1171,"currency":"xrp","hashId":"ed03094b84eafbe4bc16e7ef766ee959885ee5bcb265872baaa9c64e1cf86c2b","chain":"","amount":"7.457467","address":"rae93V8d2mdoUQHwBDBdM4NHCMehRJAsbm","state":3,"created_date":"2020-04-20 11:23:00","update_date":"2020-04-20 13:23:00"}]}"#,
    )
    .unwrap();
    let [r] = out.data.as_slice() else {
        panic!("one record expected: {out:?}")
    };
    assert_eq!(r.id, "1171");
    assert_eq!(r.currency.as_deref(), Some("xrp"));
    assert_eq!(
        r.hash_id.as_deref(),
        Some("ed03094b84eafbe4bc16e7ef766ee959885ee5bcb265872baaa9c64e1cf86c2b")
    );
    assert_eq!(r.chain, None);
    assert_eq!(r.amount, Some(d("7.457467")));
    assert_eq!(
        r.address.as_deref(),
        Some("rae93V8d2mdoUQHwBDBdM4NHCMehRJAsbm")
    );
    assert_eq!(r.state, Some(DepositState::Deposited));
    assert_eq!(r.created_date.as_deref(), Some("2020-04-20 11:23:00"));
    assert_eq!(r.update_date.as_deref(), Some("2020-04-20 13:23:00"));
    assert_eq!((r.memo.clone(), r.fee), (None, None));
    // Rendered with the current wire names.
    let v = serde_json::to_value(r).unwrap();
    assert_eq!(
        v["hashId"],
        "ed03094b84eafbe4bc16e7ef766ee959885ee5bcb265872baaa9c64e1cf86c2b"
    );
    assert_eq!(v["amount"], "7.457467");
    assert_eq!(v["state"], 3);
}

#[test]
fn decode_deposit_history_ccxt_sample_with_memo_fee_and_a_word_state() {
    // The record sampled in ccxt/ccxt js/digifinex.js (fetchTransactionsByType): older names,
    // memo and fee, and an undocumented word in `state`, which is kept.
    let out = decode::<DepositHistoryRequest>(
        r#"{"code":200,"data":[{"id":1171,"currency":"xrp","hash":"ed03094b","chain":"","amount":7.457467,"address":"rae93V8d2mdoUQHwBDBdM4NHCMehRJAsbm","memo":"100040","fee":0,"state":"safe","created_date":"2020-04-20 11:23:00","finished_date":"2020-04-20 13:23:00"}]}"#,
    )
    .unwrap();
    let r = &out.data[0];
    assert_eq!(r.hash_id.as_deref(), Some("ed03094b"));
    assert_eq!(r.memo.as_deref(), Some("100040"));
    assert_eq!(r.fee, Some(d("0")));
    assert_eq!(r.state, Some(DepositState::Other("safe".into())));
    assert_eq!(r.update_date.as_deref(), Some("2020-04-20 13:23:00"));
    // An unknown word survives a serialize round trip as its text.
    let json = serde_json::to_string(&out).unwrap();
    assert!(json.contains(r#""state":"safe""#), "{json}");
}

#[test]
fn both_spellings_of_renamed_fields_decode_and_the_current_one_wins() {
    let out = decode::<DepositHistoryRequest>(
        r#"{"code":200,"data":[
            {"id":1,"hashId":"new","hash":"old","update_date":"2020-01-02","finished_date":"2020-01-01"},
            {"id":2,"hashId":"","hash":"old","update_date":null,"finished_date":"2020-01-01"},
            {"id":3,"hashId":"-","update_date":""}
        ]}"#,
    )
    .unwrap();
    let got: Vec<_> = out
        .data
        .iter()
        .map(|r| (r.hash_id.as_deref(), r.update_date.as_deref()))
        .collect();
    assert_eq!(
        got,
        vec![
            (Some("new"), Some("2020-01-02")),
            (Some("old"), Some("2020-01-01")),
            (None, None)
        ]
    );
    let out = decode::<WithdrawHistoryRequest>(
        r#"{"code":200,"data":[{"id":1,"hash":"old","hashId":"new","finished_date":"f"}]}"#,
    )
    .unwrap();
    assert_eq!(out.data[0].hash_id.as_deref(), Some("new"));
    assert_eq!(out.data[0].update_date.as_deref(), Some("f"));
}

#[test]
fn decode_deposit_history_older_shape() {
    // Older description: `hash`, `finished_date`, amount as a number, id as a string.
    let out = decode::<DepositHistoryRequest>(
        r#"{"code":200,"data":[{"id":"1172","currency":"btc","hash":"abc","chain":"BTC","amount":0.00100000,"address":"bc1q","state":1,"created_date":"2020-04-21 01:00:00","finished_date":"2020-04-21 02:00:00"}]}"#,
    )
    .unwrap();
    let [r] = out.data.as_slice() else {
        panic!("one record expected: {out:?}")
    };
    assert_eq!(r.id, "1172");
    assert_eq!(r.hash_id.as_deref(), Some("abc"));
    assert_eq!(r.chain.as_deref(), Some("BTC"));
    assert_eq!(r.amount, Some(d("0.001")));
    assert_eq!(r.amount.unwrap().to_string(), "0.00100000");
    assert_eq!(r.state, Some(DepositState::InDeposit));
    assert_eq!(r.update_date.as_deref(), Some("2020-04-21 02:00:00"));
}

#[test]
fn decode_deposit_states_and_missing_optionals() {
    for (state, want) in [
        ("1", Some(DepositState::InDeposit)),
        ("2", Some(DepositState::ToBeConfirmed)),
        ("3", Some(DepositState::Deposited)),
        ("4", Some(DepositState::Stopped)),
        ("9", Some(DepositState::Unknown(9))),
        // Words: the documented names, and the variant names in any case and separators.
        (r#""in deposit""#, Some(DepositState::InDeposit)),
        (r#""TO_BE_CONFIRMED""#, Some(DepositState::ToBeConfirmed)),
        (r#""successfully deposited""#, Some(DepositState::Deposited)),
        (r#""Deposited""#, Some(DepositState::Deposited)),
        (r#""stopped""#, Some(DepositState::Stopped)),
        (r#""3""#, Some(DepositState::Deposited)),
        (
            r#""confirming""#,
            Some(DepositState::Other("confirming".into())),
        ),
        // Placeholders: absent.
        (r#""""#, None),
        (r#""-""#, None),
        ("null", None),
    ] {
        let body = format!(r#"{{"code":200,"data":[{{"id":5,"amount":"1","state":{state}}}]}}"#);
        let out = decode::<DepositHistoryRequest>(&body).unwrap();
        let [r] = out.data.as_slice() else {
            panic!("one record expected: {out:?}")
        };
        assert_eq!(r.state, want, "{state}");
        assert_eq!(r.hash_id, None);
        assert_eq!(r.chain, None);
        assert_eq!(r.update_date, None);
    }
    // Only the id is required: a record with nothing else is kept whole.
    let out = decode::<DepositHistoryRequest>(r#"{"code":200,"data":[{"id":"77"}]}"#).unwrap();
    assert_eq!(
        out.data,
        vec![answer!(DepositRecord {
            id: "77".into(),
            currency: None,
            hash_id: None,
            chain: None,
            amount: None,
            address: None,
            memo: None,
            fee: None,
            state: None,
            created_date: None,
            update_date: None,
        })]
    );
    // Unknown state survives a serialize round trip.
    let out =
        decode::<DepositHistoryRequest>(r#"{"code":200,"data":[{"id":5,"amount":"1","state":9}]}"#)
            .unwrap();
    let json = serde_json::to_string(&out).unwrap();
    assert!(json.contains(r#""state":9"#), "{json}");
}

#[test]
fn decode_empty_history() {
    assert!(decode::<DepositHistoryRequest>(r#"{"code":200,"data":[]}"#)
        .unwrap()
        .data
        .is_empty());
    assert!(decode::<WithdrawHistoryRequest>(r#"{"code":200}"#)
        .unwrap()
        .data
        .is_empty());
}

#[test]
fn decode_withdraw_history_current_shape() {
    let out = decode::<WithdrawHistoryRequest>(
        r#"{"code":200,"data":[{"id":1171,"currency":"xrp","hashId":"ed03094b","chain":"","amount":"7.457467","address":"rae93V8d2mdoUQHwBDBdM4NHCMehRJAsbm","memo":"100040","fee":"0.1","state":3,"created_date":"2020-04-20 11:23:00","update_date":"2020-04-20 13:23:00"}]}"#,
    )
    .unwrap();
    let [r] = out.data.as_slice() else {
        panic!("one record expected: {out:?}")
    };
    assert_eq!(r.id, "1171");
    assert_eq!(r.hash_id.as_deref(), Some("ed03094b"));
    assert_eq!(r.chain, None);
    assert_eq!(r.amount, Some(d("7.457467")));
    assert_eq!(r.memo.as_deref(), Some("100040"));
    assert_eq!(r.fee, Some(d("0.1")));
    assert_eq!(r.state, Some(WithdrawState::Completed));
    assert_eq!(r.created_date.as_deref(), Some("2020-04-20 11:23:00"));
    assert_eq!(r.update_date.as_deref(), Some("2020-04-20 13:23:00"));
}

#[test]
fn decode_withdraw_history_older_shape() {
    let out = decode::<WithdrawHistoryRequest>(
        r#"{"code":200,"data":[{"id":"99","currency":"usdt","hash":"0xfe","chain":"ERC20","amount":12.5,"address":"0xabc","memo":"","fee":1,"state":4,"created_date":"2020-01-01 00:00:00","finished_date":"2020-01-01 01:00:00","unknown_field":[1,2]}]}"#,
    )
    .unwrap();
    let [r] = out.data.as_slice() else {
        panic!("one record expected: {out:?}")
    };
    assert_eq!(r.id, "99");
    assert_eq!(r.hash_id.as_deref(), Some("0xfe"));
    assert_eq!(r.chain.as_deref(), Some("ERC20"));
    assert_eq!(r.amount, Some(d("12.5")));
    assert_eq!(r.memo, None);
    assert_eq!(r.fee, Some(d("1")));
    assert_eq!(r.state, Some(WithdrawState::Rejected));
    assert_eq!(r.update_date.as_deref(), Some("2020-01-01 01:00:00"));
}

#[test]
fn decode_withdraw_states() {
    for (state, want) in [
        ("1", Some(WithdrawState::Applying)),
        ("2", Some(WithdrawState::ToBeConfirmed)),
        ("3", Some(WithdrawState::Completed)),
        ("4", Some(WithdrawState::Rejected)),
        ("0", Some(WithdrawState::Unknown(0))),
        ("application in progress", Some(WithdrawState::Applying)),
        ("APPLYING", Some(WithdrawState::Applying)),
        ("to-be-confirmed", Some(WithdrawState::ToBeConfirmed)),
        ("Completed", Some(WithdrawState::Completed)),
        ("rejected", Some(WithdrawState::Rejected)),
        ("cancelled", Some(WithdrawState::Other("cancelled".into()))),
        ("", None),
        ("-", None),
    ] {
        let body = format!(
            r#"{{"code":200,"data":[{{"id":5,"amount":"1","fee":"0","state":"{state}"}}]}}"#
        );
        let out = decode::<WithdrawHistoryRequest>(&body).unwrap();
        let [r] = out.data.as_slice() else {
            panic!("one record expected: {out:?}")
        };
        assert_eq!(r.state, want, "{state:?}");
    }
    // Only the id is required.
    let out = decode::<WithdrawHistoryRequest>(
        r#"{"code":200,"data":[{"id":6,"amount":"-","fee":"","state":null,"address":null}]}"#,
    )
    .unwrap();
    assert_eq!(
        out.data,
        vec![answer!(WithdrawRecord {
            id: "6".into(),
            currency: None,
            hash_id: None,
            chain: None,
            amount: None,
            address: None,
            memo: None,
            fee: None,
            state: None,
            created_date: None,
            update_date: None,
        })]
    );
}

#[test]
fn decode_withdraw_created_and_cancelled() {
    assert_eq!(
        decode::<WithdrawRequest>(r#"{"code":200,"withdraw_id":700}"#)
            .unwrap()
            .withdraw_id,
        "700"
    );
    assert_eq!(
        decode::<WithdrawRequest>(r#"{"code":200,"withdraw_id":"9007199254740993"}"#)
            .unwrap()
            .withdraw_id,
        "9007199254740993"
    );
    // The new withdrawal's id is the whole answer: required.
    for bad in [
        r#"{"code":200}"#,
        r#"{"code":200,"withdraw_id":""}"#,
        r#"{"code":200,"withdraw_id":null}"#,
    ] {
        match decode::<WithdrawRequest>(bad) {
            Err(Error::Decode { path, .. }) => {
                assert!(path == "withdraw_id" || path == ".", "{bad}: {path}")
            }
            other => panic!("{bad}: {other:?}"),
        }
    }
    assert_eq!(
        decode::<CancelWithdrawRequest>(r#"{"code":200,"withdraw_id":700}"#)
            .unwrap()
            .withdraw_id
            .as_deref(),
        Some("700")
    );
    assert_eq!(
        decode::<CancelWithdrawRequest>(r#"{"code":200,"withdraw_id":"701"}"#)
            .unwrap()
            .withdraw_id
            .as_deref(),
        Some("701")
    );
    // The cancel acknowledgement only echoes the id: without it, the success code is the answer.
    for ack in [
        r#"{"code":200}"#,
        r#"{"code":200,"withdraw_id":""}"#,
        r#"{"code":200,"withdraw_id":"-"}"#,
    ] {
        assert_eq!(
            decode::<CancelWithdrawRequest>(ack).unwrap().withdraw_id,
            None,
            "{ack}"
        );
    }
}

#[test]
fn decode_unreadable_optional_value_is_absent_and_reported_but_a_bad_id_fails() {
    let (out, unreadable) = digifinex_core::endpoint::parse_body_report::<DepositHistory>(
        &DepositHistoryRequest::META,
        200,
        &http::HeaderMap::new(),
        br#"{"code":200,"data":[{"id":1,"amount":"x","state":1},{"id":2,"amount":"3"}]}"#,
    )
    .unwrap();
    assert_eq!(out.data[0].amount, None);
    assert_eq!(out.data[0].state, Some(DepositState::InDeposit));
    assert_eq!(out.data[1].amount, Some(d("3")));
    assert_eq!(unreadable.len(), 1, "{unreadable:?}");
    assert_eq!(unreadable[0].path, "data[0].amount");
    for bad in [
        r#"{"code":200,"data":[{"amount":"1","state":1}]}"#,
        r#"{"code":200,"data":[{"id":"","amount":"1"}]}"#,
        r#"{"code":200,"data":[{"id":{"x":1},"amount":"1"}]}"#,
    ] {
        match decode::<DepositHistoryRequest>(bad) {
            Err(Error::Decode { path, .. }) => assert!(path.starts_with("data[0]"), "{path}"),
            other => panic!("{bad}: {other:?}"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Envelope

#[test]
fn code_zero_is_not_success_here() {
    // parse_body treats any code other than the endpoint's success code (200) as an API error.
    let e = decode::<DepositHistoryRequest>(r#"{"code":0,"data":[]}"#).unwrap_err();
    assert!(matches!(e, Error::Api(_)), "{e:?}");
    assert_eq!(e.api_code(), Some(0));
    let e = decode::<WithdrawHistoryRequest>(r#"{"code":0,"data":[]}"#).unwrap_err();
    assert_eq!(e.api_code(), Some(0));
    let e = decode::<WithdrawRequest>(r#"{"code":0,"withdraw_id":1}"#).unwrap_err();
    assert_eq!(e.api_code(), Some(0));
}

#[test]
fn code_200_is_success() {
    assert!(decode::<DepositHistoryRequest>(r#"{"code":200,"data":[]}"#).is_ok());
    assert!(decode::<WithdrawHistoryRequest>(r#"{"code":200,"data":[]}"#).is_ok());
    assert!(decode::<DepositAddressRequest>(r#"{"code":200,"data":[]}"#).is_ok());
}

#[test]
fn withdrawing_too_often_is_rate_limit() {
    let e = decode::<WithdrawRequest>(r#"{"code":20040}"#).unwrap_err();
    assert!(matches!(e, Error::Api(_)), "{e:?}");
    assert_eq!(e.api_code(), Some(20040));
    assert_eq!(e.kind(), ErrorKind::RateLimit);
    assert!(e.is_retryable());
}

// ---------------------------------------------------------------------------------------------
// Catalog

fn render_catalog(method: &str, path: &str, params: &[(&str, &str)]) -> Result<String, Error> {
    let (entry, vars) = catalog::find(method, path).unwrap();
    let mut map = ParamMap::new();
    for (k, v) in vars {
        map.insert_text(k, v);
    }
    for (k, v) in params {
        map.insert_text(*k, *v);
    }
    (entry.build)(map, &Config::default(), Some(&creds()), NOW).map(|r| render(&r))
}

#[test]
fn catalog_cancel_withdraw_matches_builder() {
    let from_catalog = render_catalog("POST", "/v3/withdraw/cancel", &[("withdraw_id", "42")]);
    let typed = render(&build_req(&CancelWithdrawRequest::new("42")).unwrap());
    assert_eq!(from_catalog.unwrap(), typed);
}

#[test]
fn catalog_finds_every_wallet_endpoint() {
    for (method, path, want) in [
        ("GET", "/v3/deposit/address", DepositAddressRequest::META),
        ("GET", "/v3/deposit/history", DepositHistoryRequest::META),
        ("GET", "/v3/withdraw/history", WithdrawHistoryRequest::META),
        ("POST", "/v3/withdraw/new", WithdrawRequest::META),
        ("POST", "/v3/withdraw/cancel", CancelWithdrawRequest::META),
    ] {
        let (entry, vars) = catalog::find(method, path).unwrap();
        assert_eq!(entry.meta, want, "{method} {path}");
        assert!(vars.is_empty());
    }
}

/// Method, path, wire parameters, and the rendered request of the typed builder.
type CatalogCase = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
    String,
);

#[test]
fn catalog_builds_match_typed_builders() {
    let cases: [CatalogCase; 4] = [
        (
            "GET",
            "/v3/deposit/address",
            &[("currency", "usdt")],
            render(&build_req(&DepositAddressRequest::new("usdt")).unwrap()),
        ),
        (
            "GET",
            "/v3/deposit/history",
            &[
                ("direct", "next"),
                ("size", "20"),
                ("from", "3"),
                ("currency", "btc"),
            ],
            render(
                &build_req(
                    &DepositHistoryRequest::new()
                        .currency("btc")
                        .from(3)
                        .size(20)
                        .direct(HistoryDirection::Next),
                )
                .unwrap(),
            ),
        ),
        (
            "GET",
            "/v3/withdraw/history",
            &[("direct", "prev")],
            render(
                &build_req(&WithdrawHistoryRequest::new().direct(HistoryDirection::Prev)).unwrap(),
            ),
        ),
        (
            "POST",
            "/v3/withdraw/new",
            &[
                ("memo", "7"),
                ("amount", "2.50"),
                ("address", "0xabc"),
                ("chain", "ERC20"),
                ("currency", "usdt"),
            ],
            render(
                &build_req(
                    &WithdrawRequest::new("usdt", "0xabc", amt("2.50"))
                        .chain("ERC20")
                        .memo("7"),
                )
                .unwrap(),
            ),
        ),
    ];
    for (method, path, params, want) in cases {
        assert_eq!(
            render_catalog(method, path, params).unwrap(),
            want,
            "{method} {path}"
        );
    }
}

#[test]
fn catalog_refuses_bad_direct_and_unknown_keys() {
    for (params, field) in [
        (&[("direct", "up")][..], "direct"),
        (&[("direct", "previous")][..], "direct"),
        (&[("size", "x")][..], "size"),
        (&[("size", "0")][..], "size"),
        (&[("limit", "5")][..], "limit"),
    ] {
        match render_catalog("GET", "/v3/deposit/history", params) {
            Err(Error::Validation { field: f, .. }) => assert_eq!(f, field, "{params:?}"),
            other => panic!("expected a validation error on {field}, got {other:?}"),
        }
    }
    // A word is read without case and sent as documented.
    assert_eq!(
        render_catalog("GET", "/v3/deposit/history", &[("direct", " PREV ")]).unwrap(),
        render_catalog("GET", "/v3/deposit/history", &[("direct", "prev")]).unwrap()
    );
    match render_catalog(
        "POST",
        "/v3/withdraw/new",
        &[("currency", "usdt"), ("address", "a"), ("amount", "1")],
    ) {
        Err(Error::Validation { field, .. }) => assert_eq!(field, "chain"),
        other => panic!("expected a validation error on chain, got {other:?}"),
    }
}
