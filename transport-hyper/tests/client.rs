//! The async client over real loopback HTTP against a scripted server.

// Shared with the tracing tests.
mod common;
// The script server; the blocking client's tests have the same copy.
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
use digifinex_hyper::Client;
use futures_util::StreamExt;
use support::{hmac_hex, Reply, TestServer, BOOK};

#[tokio::test]
async fn a_public_get_is_decoded() {
    let server = TestServer::scripted(vec![Reply::ok(BOOK)]);
    let c = client(&server).build().unwrap();
    let r = c
        .send_full(&OrderBookRequest::new("btc_usdt").limit(5))
        .await
        .unwrap();
    assert_eq!(r.value.bids.len(), 1);
    assert_eq!(r.status, 200);
    assert_eq!(r.attempts, 1);
    let seen = server.seen();
    assert_eq!(seen[0].method, "GET");
    assert_eq!(seen[0].target, "/v3/order_book?symbol=btc_usdt&limit=5");
    assert!(seen[0].header("access-sign").is_none());
}

#[tokio::test]
async fn a_signed_spot_post_carries_a_valid_signature() {
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
    let placed = c.send(&order()).await.unwrap();
    assert_eq!(placed.order_id, "198361cecdc65f9c8c9bb2fa68faec40");
    let seen = server.seen();
    assert_eq!(seen[0].method, "POST");
    assert_eq!(seen[0].path(), "/v3/spot/order/new");
    assert_eq!(
        seen[0].body,
        b"market=spot&symbol=btc_usdt&price=30000&amount=0.01&type=buy"
    );
}

#[tokio::test]
async fn a_signed_swap_get_carries_a_valid_signature() {
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
        .await
        .unwrap();
    assert!(balances.is_empty());
    assert_eq!(
        server.seen()[0].target,
        "/swap/v2/account/balance?currency=USDT"
    );
}

#[tokio::test]
async fn a_get_is_retried_after_502_a_dropped_connection_and_a_truncated_body() {
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
    let r = c
        .send_full(&OrderBookRequest::new("btc_usdt"))
        .await
        .unwrap();
    assert_eq!(r.attempts, 4);
    assert_eq!(server.seen().len(), 4);
}

#[tokio::test]
async fn a_429_with_retry_after_is_waited_for() {
    let server = TestServer::scripted(vec![
        Reply::json(429, "too many").with_header("retry-after", "1"),
        Reply::ok(BOOK),
    ]);
    let c = client(&server).build().unwrap();
    let t = Instant::now();
    let r = c
        .send_full(&OrderBookRequest::new("btc_usdt"))
        .await
        .unwrap();
    assert!(
        t.elapsed() >= Duration::from_millis(950),
        "{:?}",
        t.elapsed()
    );
    assert_eq!(r.attempts, 2);
}

#[tokio::test]
async fn a_timeout_is_a_network_error_for_a_get() {
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
    let e = c
        .send(&OrderBookRequest::new("btc_usdt"))
        .await
        .unwrap_err();
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

#[tokio::test]
async fn without_timeouts_a_slow_answer_is_awaited_and_a_later_limit_turns_them_back_on() {
    let slow = || Reply::Delay(Duration::from_millis(600), Box::new(Reply::ok(BOOK)));
    let server = TestServer::scripted(vec![slow(), slow()]);
    let c = client(&server)
        .read_timeout(Duration::from_millis(200))
        .timeout(Duration::from_millis(200))
        .without_timeouts()
        .retry_policy(RetryPolicy::never())
        .build()
        .unwrap();
    let t = Instant::now();
    let book = c.send(&OrderBookRequest::new("btc_usdt")).await.unwrap();
    assert_eq!(book.bids.len(), 1);
    assert!(t.elapsed() >= Duration::from_millis(600));
    // Setting a limit after `without_timeouts` enables the timers again.
    let c = client(&server)
        .without_timeouts()
        .timeout(Duration::from_millis(200))
        .retry_policy(RetryPolicy::never())
        .build()
        .unwrap();
    let e = c
        .send(&OrderBookRequest::new("btc_usdt"))
        .await
        .unwrap_err();
    assert!(
        matches!(
            e,
            Error::Transport {
                kind: TransportErrorKind::Timeout,
                ..
            }
        ),
        "{e:?}"
    );
}

#[tokio::test]
async fn a_timeout_of_an_order_is_an_unknown_outcome_and_not_resent() {
    let server = TestServer::scripted(vec![Reply::Delay(
        Duration::from_secs(2),
        Box::new(Reply::ok(r#"{"code":0,"order_id":"x"}"#)),
    )]);
    let c = client(&server)
        .read_timeout(Duration::from_millis(300))
        .build()
        .unwrap();
    let e = c.send(&order()).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::OutcomeUnknown, "{e}");
    assert_eq!(server.seen().len(), 1);
}

#[tokio::test]
async fn an_order_whose_connection_drops_is_sent_exactly_once() {
    let server = TestServer::scripted(vec![Reply::Drop, Reply::ok(r#"{"code":0,"order_id":"x"}"#)]);
    let c = client(&server).build().unwrap();
    match c.send(&order()).await.unwrap_err() {
        Error::OutcomeUnknown { method, body, .. } => {
            assert_eq!(method, "POST");
            assert_eq!(
                body,
                "market=spot&symbol=btc_usdt&price=30000&amount=0.01&type=buy"
            );
        }
        other => panic!("{other:?}"),
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(server.seen().len(), 1);
}

#[tokio::test]
async fn a_refused_connection_is_a_definite_network_error_even_for_an_order() {
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
    let e = c.send(&order()).await.unwrap_err();
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

#[tokio::test]
async fn plain_http_is_refused_without_allow_http() {
    let e = Client::builder()
        .spot_base_url("http://127.0.0.1:9/v3")
        .build()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidRequest);
}

#[tokio::test]
async fn rate_limit_headers_are_parsed_into_usage() {
    let server = TestServer::scripted(vec![Reply::ok(r#"{"code":0,"data":1700000000123}"#)
        .with_header("ip-weight-minute-use", "12")
        .with_header("ip-weight-minute-remain", "1188")]);
    let c = client(&server).build().unwrap();
    let r = c.send_full(&swap::ServerTimeRequest).await.unwrap();
    assert_eq!(r.value.0, 1_700_000_000_123);
    let ip = r.usage.ip.unwrap();
    assert_eq!((ip.used, ip.remaining), (Some(12), Some(1188)));
    assert_eq!(r.headers["ip-weight-minute-use"], "12");
}

/// A server whose clock is 30 s ahead of the client's and that rejects stale timestamps.
#[tokio::test]
async fn a_10008_rejection_syncs_the_clock_and_resends_once() {
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
    let r = c.send_full(&order()).await.unwrap();
    assert_eq!(r.value.order_id, "abc");
    let paths: Vec<String> = server.seen().iter().map(|s| s.path().to_owned()).collect();
    assert_eq!(
        paths,
        ["/v3/spot/order/new", "/v3/time", "/v3/spot/order/new"]
    );
    let off = c.session().offset_ms();
    assert!((28_000..=32_000).contains(&off), "{off}");
}

#[tokio::test]
async fn sync_time_on_demand_for_swap() {
    let server = TestServer::start(|_, _| {
        let now = SystemClock.now_ms() - 4_000;
        Reply::ok(&format!(r#"{{"code":0,"data":{now}}}"#))
    });
    let c = client(&server).build().unwrap();
    let off = c.sync_time(Family::Swap).await.unwrap();
    assert!((-4_500..=-3_500).contains(&off), "{off}");
    assert_eq!(c.session().offset_ms(), off);
    assert_eq!(server.seen()[0].path(), "/swap/v2/public/time");
}

#[tokio::test]
async fn a_body_over_the_limit_is_a_transport_error() {
    let server = TestServer::scripted(vec![Reply::ok(BOOK)]);
    let c = client(&server)
        .max_body_size(10)
        .retry_policy(RetryPolicy::never())
        .build()
        .unwrap();
    let e = c
        .send(&OrderBookRequest::new("btc_usdt"))
        .await
        .unwrap_err();
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

#[tokio::test]
async fn a_custom_hyper_client_is_used() {
    use digifinex_hyper::hyper_util::client::legacy::{connect::HttpConnector, Client as Hyper};
    use digifinex_hyper::hyper_util::rt::TokioExecutor;
    let server = TestServer::scripted(vec![Reply::html(503, "down"), Reply::ok(BOOK)]);
    let mut connector = HttpConnector::new();
    connector.set_connect_timeout(Some(Duration::from_secs(2)));
    let hyper = Hyper::builder(TokioExecutor::new()).build(connector);
    let c = client(&server)
        .hyper_client(hyper)
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap();
    let r = c
        .send_full(&OrderBookRequest::new("btc_usdt"))
        .await
        .unwrap();
    assert_eq!(r.attempts, 2);
}

/// hyper-util's legacy client has no redirect following: a 3xx reaches the core, and the target
/// sees nothing, with the default client and with a caller's.
#[tokio::test]
async fn a_redirect_is_never_followed() {
    use digifinex_hyper::hyper_util::client::legacy::{connect::HttpConnector, Client as Hyper};
    use digifinex_hyper::hyper_util::rt::TokioExecutor;
    let target = TestServer::scripted(vec![Reply::ok(BOOK); 4]);
    let location = format!("{}/v3/order_book?symbol=btc_usdt", target.url());
    let server =
        TestServer::start(move |_, _| Reply::html(308, "moved").with_header("location", &location));
    let custom = client(&server)
        .hyper_client(Hyper::builder(TokioExecutor::new()).build(HttpConnector::new()))
        .build()
        .unwrap();
    let default = client(&server).build().unwrap();
    for c in [
        &custom.send(&OrderBookRequest::new("btc_usdt")).await,
        &default.send(&OrderBookRequest::new("btc_usdt")).await,
    ] {
        match c.as_ref().unwrap_err() {
            Error::Redirect {
                status: 308,
                location: Some(l),
            } => assert!(l.starts_with(&target.url()), "{l}"),
            other => panic!("{other:?}"),
        }
    }
    for e in [
        custom.send(&order()).await.unwrap_err(),
        default.send(&order()).await.unwrap_err(),
    ] {
        match &e {
            Error::OutcomeUnknown { cause, .. } => {
                assert!(
                    matches!(**cause, Error::Redirect { status: 308, .. }),
                    "{e:?}"
                )
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(server.seen().len(), 4);
    assert!(target.seen().is_empty());
}

/// A connector that never connects.
#[derive(Clone)]
struct NeverConnects;

impl tower_service::Service<http::Uri> for NeverConnects {
    type Response = digifinex_hyper::hyper_util::rt::TokioIo<tokio::net::TcpStream>;
    type Error = std::io::Error;
    type Future = std::pin::Pin<
        Box<dyn std::future::Future<Output = Result<Self::Response, std::io::Error>> + Send>,
    >;
    fn poll_ready(
        &mut self,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), std::io::Error>> {
        std::task::Poll::Ready(Ok(()))
    }
    fn call(&mut self, _: http::Uri) -> Self::Future {
        Box::pin(std::future::pending())
    }
}

/// The read limit runs from the start of the attempt; when it runs out before the request got
/// a connection, nothing was sent: a connect error, definite even for an order.
#[tokio::test]
async fn a_limit_that_runs_out_while_connecting_is_a_connect_error() {
    use digifinex_hyper::hyper_util::client::legacy::Client as Hyper;
    use digifinex_hyper::hyper_util::rt::TokioExecutor;
    let c = Client::builder()
        .spot_base_url("http://127.0.0.1:9/v3")
        .allow_http(true)
        .credentials(Credentials::new(KEY, SECRET))
        .hyper_client(Hyper::builder(TokioExecutor::new()).build(NeverConnects))
        .read_timeout(Duration::from_millis(200))
        .build()
        .unwrap();
    let e = c.send(&order()).await.unwrap_err();
    match &e {
        Error::Transport { kind, message, .. } => {
            assert_eq!(*kind, TransportErrorKind::Connect, "{e:?}");
            assert!(message.contains("no connection"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

/// A CONNECT proxy that refuses the tunnel: a connector error, so nothing was sent.
#[tokio::test]
async fn a_proxy_refusing_the_tunnel_is_a_definite_connect_error() {
    use digifinex_hyper::hyper_util::client::legacy::connect::{proxy::Tunnel, HttpConnector};
    use digifinex_hyper::hyper_util::client::legacy::Client as Hyper;
    use digifinex_hyper::hyper_util::rt::TokioExecutor;
    let proxy = TestServer::start(|_, _| Reply::html(403, "denied"));
    let mut tcp = HttpConnector::new();
    tcp.enforce_http(false);
    let tunnel = Tunnel::new(proxy.url().parse().unwrap(), tcp);
    let https = digifinex_hyper::hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(
            rustls::ClientConfig::builder_with_provider(Arc::new(
                rustls::crypto::ring::default_provider(),
            ))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(rustls::RootCertStore::empty())
            .with_no_client_auth(),
        )
        .https_only()
        .enable_http1()
        .wrap_connector(tunnel);
    let c = Client::builder()
        .spot_base_url("https://digifinex-test.invalid/v3")
        .credentials(Credentials::new(KEY, SECRET))
        .hyper_client(Hyper::builder(TokioExecutor::new()).build(https))
        .build()
        .unwrap();
    let e = c.send(&order()).await.unwrap_err();
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

#[tokio::test]
async fn deposit_history_pages_by_id() {
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
        .pages(DepositPager::new(HistoryDirection::Prev).size(3))
        .into_item_stream()
        .map(|r| r.unwrap().id)
        .collect()
        .await;
    assert_eq!(ids, ["1", "2", "3", "4", "5", "6", "7"]);
    // `from` is inclusive here: pages 1-3, 3-5, 5-7, then 7 alone ends the walk.
    assert_eq!(server.seen().len(), 4);
}

#[tokio::test]
async fn own_trades_page_back_through_time_windows() {
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
    while let Some(page) = pages.next_page().await {
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shared_client_serves_concurrent_tasks() {
    let server = TestServer::start(|_, _| Reply::ok(BOOK));
    let c = client(&server).build().unwrap();
    let tasks: Vec<_> = (0..16)
        .map(|_| {
            let c = c.clone();
            tokio::spawn(async move { c.send(&OrderBookRequest::new("btc_usdt")).await })
        })
        .collect();
    for t in tasks {
        assert_eq!(t.await.unwrap().unwrap().bids.len(), 1);
    }
    assert_eq!(server.seen().len(), 16);
}

/// Over TLS: the test server's certificate is signed by the test CA only (`tests/data/`).
fn tls_client(server: &TestServer) -> digifinex_hyper::ClientBuilder {
    Client::builder()
        .spot_base_url(server.spot_url())
        .swap_base_url(server.url())
        .credentials(Credentials::new(KEY, SECRET))
        .retry_policy(RetryPolicy {
            max_retries: 0,
            ..RetryPolicy::default()
        })
}

#[tokio::test]
async fn https_with_the_servers_root_trusted_works_over_one_kept_connection() {
    let server = TestServer::start_tls(|_, _| Reply::ok(BOOK));
    assert!(server.url().starts_with("https://127.0.0.1:"));
    let c = tls_client(&server)
        .trust_only_roots([support::test_ca_der()])
        .build()
        .unwrap();
    for _ in 0..3 {
        let book = c.send(&OrderBookRequest::new("btc_usdt")).await.unwrap();
        assert_eq!(book.bids[0].price, Decimal::new(300005, 1));
    }
    let seen = server.seen();
    assert_eq!(seen.len(), 3);
    assert_eq!(seen[0].target, "/v3/order_book?symbol=btc_usdt");
}

#[tokio::test]
async fn https_with_an_unknown_root_fails_to_connect_and_sends_nothing() {
    let server = TestServer::start_tls(|_, _| Reply::ok(BOOK));
    // The default roots (webpki, or the system's) do not know the test CA.
    let c = tls_client(&server).build().unwrap();
    let e = c
        .send(&OrderBookRequest::new("btc_usdt"))
        .await
        .unwrap_err();
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
    let e = c.send(&order()).await.unwrap_err();
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

#[tokio::test]
async fn a_body_that_stalls_past_the_read_limit_is_a_timeout() {
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
    let e = c
        .send(&OrderBookRequest::new("btc_usdt"))
        .await
        .unwrap_err();
    let took = t.elapsed();
    // The head came at once; the body limit runs from then (plus at most one tick, 37 ms).
    assert!(took >= Duration::from_millis(300), "{took:?}");
    assert!(took < Duration::from_millis(1500), "{took:?}");
    match e {
        Error::Transport {
            kind: TransportErrorKind::Timeout,
            ref message,
            ..
        } => assert!(message.contains("body"), "{message}"),
        other => panic!("expected a timeout, got {other:?}"),
    }
}
