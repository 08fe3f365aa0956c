//! The blocking client over real loopback HTTP against a scripted server.

mod common;
mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{client, order, KEY, SECRET};
use digifinex_core::paging::{DepositPager, WindowPager};
use digifinex_core::policy::RetryPolicy;
use digifinex_core::spot::{HistoryDirection, Market, MyTradesRequest, OrderBookRequest};
use digifinex_core::{
    swap, Credentials, Decimal, Error, ErrorKind, Family, OffsetClock, SystemClock,
    TransportErrorKind,
};
use digifinex_ureq::Client;
use support::{hmac_hex, Reply, TestServer, BOOK};

#[test]
fn a_public_get_is_decoded() {
    let server = TestServer::scripted(vec![Reply::ok(BOOK)]);
    let c = client(&server).build().unwrap();
    let r = c
        .send_full(&OrderBookRequest::new("btc_usdt").limit(5))
        .unwrap();
    assert_eq!(r.value.bids.len(), 1);
    assert_eq!(r.status, 200);
    assert_eq!(r.attempts, 1);
    let seen = server.seen();
    assert_eq!(seen[0].method, "GET");
    assert_eq!(seen[0].target, "/v3/order_book?symbol=btc_usdt&limit=5");
    assert!(seen[0].header("access-sign").is_none());
}

#[test]
fn a_signed_spot_post_carries_a_valid_signature() {
    let server = TestServer::start(|_, req| {
        let sign = hmac_hex(SECRET, &req.body);
        let ok = req.header("access-key") == Some(KEY)
            && req.header("access-sign") == Some(sign.as_str())
            && req.header("access-timestamp").is_some()
            && req.header("content-type") == Some("application/x-www-form-urlencoded");
        if ok {
            Reply::ok(r#"{"code":0,"order_id":"198361cecdc65f9c8c9bb2fa68faec40"}"#)
        } else {
            Reply::ok(r#"{"code":10003}"#)
        }
    });
    let c = client(&server).build().unwrap();
    let placed = c.send(&order()).unwrap();
    assert_eq!(placed.order_id, "198361cecdc65f9c8c9bb2fa68faec40");
    let seen = server.seen();
    assert_eq!(seen[0].method, "POST");
    assert_eq!(seen[0].path(), "/v3/spot/order/new");
    assert_eq!(
        seen[0].body,
        b"market=spot&symbol=btc_usdt&price=30000&amount=0.01&type=buy"
    );
}

#[test]
fn a_signed_swap_get_carries_a_valid_signature() {
    let server = TestServer::start(|_, req| {
        let ts = req.header("access-timestamp").unwrap_or("");
        let text = format!("{ts}GET{}", req.target);
        if req.header("access-sign") == Some(hmac_hex(SECRET, text.as_bytes()).as_str()) {
            Reply::ok(r#"{"code":0,"data":[]}"#)
        } else {
            Reply::ok(r#"{"code":10003,"msg":"bad sign"}"#)
        }
    });
    let c = client(&server).build().unwrap();
    let balances = c
        .send(&swap::BalanceRequest::new().currency("USDT"))
        .unwrap();
    assert!(balances.is_empty());
    assert_eq!(
        server.seen()[0].target,
        "/swap/v2/account/balance?currency=USDT"
    );
}

#[test]
fn a_get_is_retried_after_502_a_dropped_connection_and_a_truncated_body() {
    let server = TestServer::scripted(vec![
        Reply::html(502, "<html>bad gateway</html>"),
        Reply::Drop,
        Reply::Truncated {
            status: 200,
            body: BOOK.as_bytes().to_vec(),
        },
        Reply::ok(BOOK),
    ]);
    let c = client(&server).build().unwrap();
    let r = c.send_full(&OrderBookRequest::new("btc_usdt")).unwrap();
    assert_eq!(r.attempts, 4);
    assert_eq!(server.seen().len(), 4);
}

#[test]
fn a_429_with_retry_after_is_waited_for() {
    let server = TestServer::scripted(vec![
        Reply::json(429, "too many").with_header("retry-after", "1"),
        Reply::ok(BOOK),
    ]);
    let c = client(&server).build().unwrap();
    let t = Instant::now();
    let r = c.send_full(&OrderBookRequest::new("btc_usdt")).unwrap();
    assert!(
        t.elapsed() >= Duration::from_millis(950),
        "{:?}",
        t.elapsed()
    );
    assert_eq!(r.attempts, 2);
}

#[test]
fn a_timeout_is_a_network_error_for_a_get() {
    let server = TestServer::scripted(vec![Reply::Delay(
        Duration::from_secs(2),
        Box::new(Reply::ok(BOOK)),
    )]);
    let c = client(&server)
        .timeout(Duration::from_millis(300))
        .retry_policy(RetryPolicy::never())
        .build()
        .unwrap();
    let t = Instant::now();
    let e = c.send(&OrderBookRequest::new("btc_usdt")).unwrap_err();
    assert!(t.elapsed() < Duration::from_millis(1500));
    assert_eq!(e.kind(), ErrorKind::Network, "{e}");
    assert!(matches!(
        e,
        Error::Transport {
            kind: TransportErrorKind::Timeout,
            ..
        }
    ));
}

#[test]
fn a_timeout_of_an_order_is_an_unknown_outcome_and_not_resent() {
    let server = TestServer::scripted(vec![Reply::Delay(
        Duration::from_secs(2),
        Box::new(Reply::ok(r#"{"code":0,"order_id":"x"}"#)),
    )]);
    let c = client(&server)
        .read_timeout(Duration::from_millis(300))
        .build()
        .unwrap();
    let e = c.send(&order()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::OutcomeUnknown, "{e}");
    assert_eq!(server.seen().len(), 1);
}

#[test]
fn an_order_whose_connection_drops_is_sent_exactly_once() {
    let server = TestServer::scripted(vec![Reply::Drop, Reply::ok(r#"{"code":0,"order_id":"x"}"#)]);
    let c = client(&server).build().unwrap();
    match c.send(&order()).unwrap_err() {
        Error::OutcomeUnknown { method, body, .. } => {
            assert_eq!(method, "POST");
            assert_eq!(
                body,
                "market=spot&symbol=btc_usdt&price=30000&amount=0.01&type=buy"
            );
        }
        other => panic!("{other:?}"),
    }
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(server.seen().len(), 1);
}

#[test]
fn a_refused_connection_is_a_definite_network_error_even_for_an_order() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let c = Client::builder()
        .spot_base_url(format!("http://127.0.0.1:{port}/v3"))
        .allow_http(true)
        .credentials(Credentials::new(KEY, SECRET))
        .build()
        .unwrap();
    let e = c.send(&order()).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Transport {
                kind: TransportErrorKind::Connect,
                ..
            }
        ),
        "{e:?}"
    );
}

#[test]
fn plain_http_is_refused_without_allow_http() {
    let e = Client::builder()
        .spot_base_url("http://127.0.0.1:9/v3")
        .build()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidRequest);
}

#[test]
fn rate_limit_headers_are_parsed_into_usage() {
    let server = TestServer::scripted(vec![Reply::ok(r#"{"code":0,"data":1700000000123}"#)
        .with_header("ip-weight-minute-use", "12")
        .with_header("ip-weight-minute-remain", "1188")]);
    let c = client(&server).build().unwrap();
    let r = c.send_full(&swap::ServerTimeRequest).unwrap();
    assert_eq!(r.value.0, 1_700_000_000_123);
    let ip = r.usage.ip.unwrap();
    assert_eq!((ip.used, ip.remaining), (Some(12), Some(1188)));
    assert_eq!(r.headers["ip-weight-minute-use"], "12");
}

/// A server whose clock is 30 s ahead of the client's and that rejects stale timestamps.
#[test]
fn a_10008_rejection_syncs_the_clock_and_resends_once() {
    let server = TestServer::start(|_, req| {
        let server_now = SystemClock.now_secs() + 30;
        match req.path() {
            "/v3/time" => Reply::ok(&format!(r#"{{"server_time":{server_now},"code":0}}"#)),
            _ => {
                let ts: i64 = req
                    .header("access-timestamp")
                    .and_then(|t| t.parse().ok())
                    .unwrap_or(0);
                if (server_now - ts).abs() > 5 {
                    Reply::ok(r#"{"code":10008}"#)
                } else {
                    Reply::ok(r#"{"code":0,"order_id":"abc"}"#)
                }
            }
        }
    });
    let c = client(&server)
        .clock(Arc::new(OffsetClock {
            inner: SystemClock,
            offset_ms: 0,
        }))
        .build()
        .unwrap();
    let r = c.send_full(&order()).unwrap();
    assert_eq!(r.value.order_id, "abc");
    let paths: Vec<String> = server.seen().iter().map(|s| s.path().to_owned()).collect();
    assert_eq!(
        paths,
        ["/v3/spot/order/new", "/v3/time", "/v3/spot/order/new"]
    );
    let off = c.session().offset_ms();
    assert!((28_000..=32_000).contains(&off), "{off}");
}

#[test]
fn sync_time_on_demand_for_swap() {
    let server = TestServer::start(|_, _| {
        let now = SystemClock.now_ms() - 4_000;
        Reply::ok(&format!(r#"{{"code":0,"data":{now}}}"#))
    });
    let c = client(&server).build().unwrap();
    let off = c.sync_time(Family::Swap).unwrap();
    assert!((-4_500..=-3_500).contains(&off), "{off}");
    assert_eq!(c.session().offset_ms(), off);
    assert_eq!(server.seen()[0].path(), "/swap/v2/public/time");
}

#[test]
fn a_body_over_the_limit_is_a_transport_error() {
    let server = TestServer::scripted(vec![Reply::ok(BOOK)]);
    let c = client(&server)
        .max_body_size(10)
        .retry_policy(RetryPolicy::never())
        .build()
        .unwrap();
    let e = c.send(&OrderBookRequest::new("btc_usdt")).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Transport {
                kind: TransportErrorKind::Other,
                ..
            }
        ),
        "{e:?}"
    );
}

#[test]
fn a_custom_agent_still_hands_error_statuses_to_the_core() {
    let server = TestServer::scripted(vec![Reply::html(503, "down"), Reply::ok(BOOK)]);
    // A default agent treats 4xx/5xx as errors; the client configures each request.
    let agent = digifinex_ureq::ureq::Agent::new_with_defaults();
    let c = client(&server)
        .agent(agent)
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap();
    let r = c.send_full(&OrderBookRequest::new("btc_usdt")).unwrap();
    assert_eq!(r.attempts, 2);
}

/// A caller's agent follows redirects by default (ureq's `max_redirects` is 10): the client
/// turns that off per request, so the 3xx reaches the core and the target sees nothing.
#[test]
fn a_caller_agent_never_follows_a_redirect() {
    let target = TestServer::scripted(vec![Reply::ok(BOOK), Reply::ok(BOOK)]);
    let location = format!("{}/v3/order_book?symbol=btc_usdt", target.url());
    let server =
        TestServer::start(move |_, _| Reply::html(307, "moved").with_header("location", &location));
    let agent = digifinex_ureq::ureq::Agent::new_with_defaults();
    assert_eq!(agent.config().max_redirects(), 10);
    let c = client(&server).agent(agent).build().unwrap();
    match c.send(&OrderBookRequest::new("btc_usdt")).unwrap_err() {
        Error::Redirect {
            status: 307,
            location: Some(l),
        } => assert!(l.starts_with(&target.url()), "{l}"),
        other => panic!("{other:?}"),
    }
    let e = c.send(&order()).unwrap_err();
    match &e {
        Error::OutcomeUnknown { cause, .. } => {
            assert!(
                matches!(**cause, Error::Redirect { status: 307, .. }),
                "{e:?}"
            )
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(server.seen().len(), 2);
    assert!(target.seen().is_empty());
}

/// A host that does not resolve: nothing was sent, so an order fails definitely (ureq reports
/// the lookup as an I/O error, which used to be read as a lost connection). Also with a
/// caller's agent, whose connector is replaced by the client's.
#[test]
fn a_dns_failure_is_a_definite_connect_error_even_for_an_order() {
    for agent in [None, Some(digifinex_ureq::ureq::Agent::new_with_defaults())] {
        let mut b = Client::builder()
            .spot_base_url("http://digifinex-test.invalid/v3")
            .allow_http(true)
            .credentials(Credentials::new(KEY, SECRET));
        if let Some(agent) = agent {
            b = b.agent(agent);
        }
        let e = b.build().unwrap().send(&order()).unwrap_err();
        match &e {
            Error::Transport { kind, source, .. } => {
                assert_eq!(*kind, TransportErrorKind::Connect, "{e:?}");
                // ureq's own error is the source.
                let source = source.as_ref().unwrap();
                assert!(source.is::<digifinex_ureq::ureq::Error>(), "{source:?}");
            }
            other => panic!("{other:?}"),
        }
    }
}

/// A CONNECT proxy that refuses the tunnel: the proxy's exchange is part of connecting (it is
/// written inside the connector), so nothing of the request was sent and an order fails
/// definitely.
#[test]
fn a_proxy_refusing_the_tunnel_is_a_definite_connect_error() {
    let proxy = TestServer::start(|_, _| Reply::html(403, "denied"));
    let agent: digifinex_ureq::ureq::Agent = digifinex_ureq::ureq::Agent::config_builder()
        .proxy(Some(
            digifinex_ureq::ureq::Proxy::new(&format!("http://{}", proxy.addr)).unwrap(),
        ))
        .build()
        .into();
    let c = Client::builder()
        .spot_base_url("https://digifinex-test.invalid/v3")
        .credentials(Credentials::new(KEY, SECRET))
        .agent(agent)
        .build()
        .unwrap();
    let e = c.send(&order()).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Transport {
                kind: TransportErrorKind::Connect,
                ..
            }
        ),
        "{e:?}"
    );
    let seen = proxy.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].method, "CONNECT");
}

#[test]
fn deposit_history_pages_by_id() {
    // Ids 1..=7, `from` inclusive, ascending with `prev`.
    let server = TestServer::start(|_, req| {
        let q: std::collections::HashMap<String, String> =
            url_pairs(req.query()).into_iter().collect();
        let size: u64 = q["size"].parse().unwrap();
        let from: u64 = q.get("from").map_or(1, |f| f.parse().unwrap());
        let data: Vec<String> = (from..=7)
            .take(size as usize)
            .map(|id| {
                format!(r#"{{"id":{id},"currency":"usdt","amount":"1.5","address":"a","state":3}}"#)
            })
            .collect();
        Reply::ok(&format!(r#"{{"code":200,"data":[{}]}}"#, data.join(",")))
    });
    let c = client(&server).build().unwrap();
    let ids: Vec<String> = c
        .items(DepositPager::new(HistoryDirection::Prev).size(3))
        .map(|r| r.unwrap().id)
        .collect();
    assert_eq!(ids, ["1", "2", "3", "4", "5", "6", "7"]);
    // `from` is inclusive here: pages 1-3, 3-5, 5-7, then 7 alone ends the walk.
    assert_eq!(server.seen().len(), 4);
}

#[test]
fn own_trades_page_back_through_time_windows() {
    // Trades every hour for the last 5 days (seconds); newest first within a window.
    let now = SystemClock.now_secs();
    let times: Vec<i64> = (0..120).map(|h| now - 1800 - h * 3600).collect();
    let server = TestServer::start(move |_, req| {
        let q: std::collections::HashMap<String, String> =
            url_pairs(req.query()).into_iter().collect();
        let (s, e): (i64, i64) = (
            q["start_time"].parse().unwrap(),
            q["end_time"].parse().unwrap(),
        );
        let limit: usize = q["limit"].parse().unwrap();
        let list: Vec<String> = times
            .iter()
            .filter(|t| **t >= s && **t <= e)
            .take(limit)
            .map(|t| {
                format!(
                    r#"{{"symbol":"btc_usdt","order_id":"o{t}","id":"{t}","price":1,"amount":1,"timestamp":{t},"side":"buy"}}"#
                )
            })
            .collect();
        Reply::ok(&format!(r#"{{"code":0,"list":[{}]}}"#, list.join(",")))
    });
    let c = client(&server).build().unwrap();
    let pager =
        WindowPager::lookback(MyTradesRequest::new(Market::Spot), c.session().now()).limit(50);
    let mut pages = c.pages(pager);
    let mut got = Vec::new();
    for page in pages.by_ref() {
        got.extend(page.unwrap().into_iter().map(|t| t.timestamp.unwrap().0));
    }
    assert!(!pages.pager().truncated());
    let mut want: Vec<i64> = (0..120).map(|h| now - 1800 - h * 3600).collect();
    want.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(got, want);
}

fn url_pairs(q: &str) -> Vec<(String, String)> {
    q.split('&')
        .filter(|p| !p.is_empty())
        .filter_map(|p| p.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

trait Now {
    fn now_ms(&self) -> i64;
    fn now_secs(&self) -> i64 {
        self.now_ms() / 1000
    }
}

impl Now for SystemClock {
    fn now_ms(&self) -> i64 {
        digifinex_core::Clock::now(self).0
    }
}

#[cfg(any(feature = "ring", feature = "aws-lc-rs"))]
/// Over TLS: the test server's certificate is signed by the test CA only (`tests/data/`).
fn tls_client(server: &TestServer) -> digifinex_ureq::ClientBuilder {
    Client::builder()
        .spot_base_url(server.spot_url())
        .swap_base_url(server.url())
        .credentials(Credentials::new(KEY, SECRET))
        .retry_policy(RetryPolicy {
            max_retries: 0,
            ..RetryPolicy::default()
        })
}

#[test]
#[cfg(any(feature = "ring", feature = "aws-lc-rs"))]
fn https_with_the_servers_root_trusted_works_over_one_kept_connection() {
    let server = TestServer::start_tls(|_, _| Reply::ok(BOOK));
    assert!(server.url().starts_with("https://127.0.0.1:"));
    let c = tls_client(&server)
        .trust_only_roots([support::test_ca_der()])
        .build()
        .unwrap();
    for _ in 0..3 {
        let book = c.send(&OrderBookRequest::new("btc_usdt")).unwrap();
        assert_eq!(book.bids[0].price, Decimal::new(300005, 1));
    }
    let seen = server.seen();
    assert_eq!(seen.len(), 3);
    assert_eq!(seen[0].target, "/v3/order_book?symbol=btc_usdt");
}

/// The key and signature reach ureq as stand-ins and are put in place under TLS too (the
/// connection's output buffer is the plaintext, before rustls).
#[test]
#[cfg(any(feature = "ring", feature = "aws-lc-rs"))]
fn a_signed_post_over_https_carries_the_real_key_and_signature() {
    let server = TestServer::start_tls(|_, req| {
        let ok = req.header("access-key") == Some(KEY)
            && req.header("access-sign") == Some(hmac_hex(SECRET, &req.body).as_str());
        Reply::ok(if ok {
            r#"{"code":0,"order_id":"198361cecdc65f9c8c9bb2fa68faec40"}"#
        } else {
            r#"{"code":10003}"#
        })
    });
    let c = tls_client(&server)
        .trust_only_roots([support::test_ca_der()])
        .build()
        .unwrap();
    let placed = c.send(&order()).unwrap();
    assert_eq!(placed.order_id, "198361cecdc65f9c8c9bb2fa68faec40");
}

#[test]
#[cfg(any(feature = "ring", feature = "aws-lc-rs"))]
fn https_with_an_unknown_root_fails_to_connect_and_sends_nothing() {
    let server = TestServer::start_tls(|_, _| Reply::ok(BOOK));
    // The default roots (webpki, or the system's) do not know the test CA.
    let c = tls_client(&server).build().unwrap();
    let e = c.send(&OrderBookRequest::new("btc_usdt")).unwrap_err();
    match &e {
        Error::Transport { kind, message, .. } => {
            assert_eq!(*kind, TransportErrorKind::Connect, "{message}");
            assert!(
                message.to_ascii_lowercase().contains("certificate"),
                "{message}"
            );
        }
        other => panic!("expected a transport error, got {other:?}"),
    }
    assert_eq!(e.kind(), ErrorKind::Network);
    // An order refused at the handshake was never sent: a definite failure, not an unknown
    // outcome.
    let e = c.send(&order()).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Transport {
                kind: TransportErrorKind::Connect,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(server.seen().is_empty());
}

#[test]
fn trust_only_roots_rejects_what_cannot_be_a_root() {
    for roots in [vec![b"not a certificate".to_vec()], vec![]] {
        let e = Client::builder()
            .trust_only_roots(roots)
            .build()
            .unwrap_err();
        assert!(
            matches!(e, Error::Validation { ref field, .. } if field == "trust_only_roots"),
            "{e:?}"
        );
    }
}

#[test]
fn a_body_that_stalls_past_the_read_limit_is_a_timeout() {
    let server = TestServer::scripted(vec![Reply::Stall {
        status: 200,
        body: BOOK.as_bytes().to_vec(),
        stall: Duration::from_secs(3),
    }]);
    let c = client(&server)
        .read_timeout(Duration::from_millis(300))
        .retry_policy(RetryPolicy::never())
        .build()
        .unwrap();
    let t = Instant::now();
    let e = c.send(&OrderBookRequest::new("btc_usdt")).unwrap_err();
    let took = t.elapsed();
    // The head came at once; the per-read limit runs out while the body stalls.
    assert!(took >= Duration::from_millis(300), "{took:?}");
    assert!(took < Duration::from_millis(1500), "{took:?}");
    match e {
        Error::Transport {
            kind: TransportErrorKind::Timeout,
            ..
        } => {}
        other => panic!("expected a timeout, got {other:?}"),
    }
}
