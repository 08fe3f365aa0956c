//! No key, secret or signature reaches a log at any level: both clients make signed REST
//! calls and authenticate a private websocket against the simulator under a TRACE `tracing`
//! subscriber and a logger taking every `log` record (the dependencies' channel: ureq's wire
//! dump and tungstenite's frame log are TRACE records there), and the output is searched (the
//! in-process simulator's own records, from its thread, are left out: it is the server). The
//! signatures are read on the wire by a loopback server that records the requests it gets.
//! And no level is capped: the program's own `log::trace!` reaches its logger, and so do the
//! dependencies' TRACE dumps (the search is over real dumps).

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use digifinex_core::ws::Event;
use digifinex_core::{spot, swap, Credentials, Family};
use digifinex_sim::{Sim, SimConfig};

/// Everything logged by anyone in this process.
fn sink() -> &'static Mutex<String> {
    static SINK: OnceLock<Mutex<String>> = OnceLock::new();
    SINK.get_or_init(|| Mutex::new(String::new()))
}

struct Logger;

impl log::Log for Logger {
    fn enabled(&self, _: &log::Metadata<'_>) -> bool {
        true
    }
    fn log(&self, record: &log::Record<'_>) {
        // The simulator serves on its own thread in this process with tungstenite too, which
        // logs the frames it receives (the clients' `server.auth`): those are the server's
        // records, not the clients'. A simulator record from any other thread is kept (and
        // would fail the test, never pass it wrongly).
        if std::thread::current().name() == Some("digifinex-sim") {
            return;
        }
        let line = format!(
            "[log {} {}] {}\n",
            record.level(),
            record.target(),
            record.args()
        );
        sink().lock().unwrap().push_str(&line);
    }
    fn flush(&self) {}
}

#[derive(Clone)]
struct Writer;

impl std::io::Write for Writer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        sink()
            .lock()
            .unwrap()
            .push_str(&String::from_utf8_lossy(buf));
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn wait_for_auth(mut next: impl FnMut() -> Option<Event>) {
    let end = Instant::now() + Duration::from_secs(10);
    loop {
        assert!(Instant::now() < end, "no private subscription in 10 s");
        if let Some(Event::Subscribed { subscriptions }) = next() {
            if subscriptions.iter().any(|s| s.channel.is_private()) {
                return;
            }
        }
    }
}

/// A loopback HTTP server that records each request's head and answers `{}`; its URL and
/// the heads.
fn recording_server() -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let heads = Arc::new(Mutex::new(Vec::new()));
    let seen = heads.clone();
    std::thread::spawn(move || {
        for tcp in listener.incoming().flatten() {
            let seen = seen.clone();
            std::thread::spawn(move || {
                let mut tcp = tcp;
                tcp.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
                let mut head = Vec::new();
                let mut buf = [0u8; 4096];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match tcp.read(&mut buf) {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                seen.lock()
                    .unwrap()
                    .push(String::from_utf8_lossy(&head).into_owned());
                let _ = tcp.write_all(
                    b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}",
                );
            });
        }
    });
    (url, heads)
}

/// The value of header `name` in a request head (names compared case-insensitively).
fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|line| {
        let (n, v) = line.split_once(':')?;
        n.eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

/// Asserts that no 8 consecutive characters of `secret` are in `out` (a wire dump splits
/// what it shows into rows of 16 bytes).
fn assert_absent(out: &str, name: &str, secret: &str) {
    let chars: Vec<char> = secret.chars().collect();
    assert!(chars.len() >= 8, "{name} too short to search for");
    for window in chars.windows(8) {
        let piece: String = window.iter().collect();
        assert!(
            !out.contains(&piece),
            "a piece of the {name} ({piece}) is in the logs"
        );
    }
}

#[test]
fn no_secret_in_any_log_at_trace() {
    log::set_logger(&Logger).unwrap();
    log::set_max_level(log::LevelFilter::Trace);
    tracing::subscriber::set_global_default(
        tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_writer(|| Writer)
            .finish(),
    )
    .unwrap();
    // The program's own records at every level reach its logger (no level is compiled out).
    log::trace!(target: "user_program", "the program's own trace record");
    log::debug!(target: "user_program", "the program's own debug record");

    let sim = Sim::start(SimConfig::default().without_flow()).unwrap();
    let keys = sim.control().demo_account().keys;
    let creds = Credentials::new(keys.key.clone(), keys.secret.clone());
    let (recorder_url, heads) = recording_server();

    // Blocking: signed REST on both families, then a private socket.
    let client = digifinex_ureq::Client::builder()
        .spot_base_url(sim.spot_base_url())
        .swap_base_url(sim.swap_base_url())
        .allow_http(true)
        .credentials(creds.clone())
        .build()
        .unwrap();
    client.send(&spot::SpotAssetsRequest::new()).unwrap();
    client.send(&swap::BalanceRequest::new()).unwrap();
    // A signed request to the recording server, for its signature (the answer is not read).
    let recorded = digifinex_ureq::Client::builder()
        .spot_base_url(&recorder_url)
        .allow_http(true)
        .credentials(creds.clone())
        .build()
        .unwrap();
    let _ = recorded.send(&spot::SpotAssetsRequest::new());
    let mut stream = client
        .stream(Family::Spot)
        .subscribe("spot:order:btc_usdt".parse().unwrap())
        .build()
        .unwrap();
    wait_for_auth(|| stream.next_event());
    drop(stream);

    // Async: the same.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let client = digifinex_hyper::Client::builder()
        .spot_base_url(sim.spot_base_url())
        .swap_base_url(sim.swap_base_url())
        .allow_http(true)
        .credentials(creds.clone())
        .build()
        .unwrap();
    let recorded = digifinex_hyper::Client::builder()
        .spot_base_url(&recorder_url)
        .allow_http(true)
        .credentials(creds)
        .build()
        .unwrap();
    rt.block_on(async {
        client.send(&spot::SpotAssetsRequest::new()).await.unwrap();
        client.send(&swap::BalanceRequest::new()).await.unwrap();
        let _ = recorded.send(&spot::SpotAssetsRequest::new()).await;
        let mut stream = client
            .stream(Family::Swap)
            .subscribe("swap:order:BTCUSDTPERP".parse().unwrap())
            .build()
            .unwrap();
        let end = Instant::now() + Duration::from_secs(10);
        loop {
            assert!(Instant::now() < end, "no private subscription in 10 s");
            if let Some(Event::Subscribed { subscriptions }) = stream.next_event().await {
                if subscriptions.iter().any(|s| s.channel.is_private()) {
                    break;
                }
            }
        }
    });

    let out = sink().lock().unwrap().clone();
    // `TRACE_TEST_DUMP=<file>` keeps the captured output, to read what the libraries log.
    if let Ok(path) = std::env::var("TRACE_TEST_DUMP") {
        std::fs::write(path, &out).unwrap();
    }
    // The capture works: the clients' own spans and the HTTP library's DEBUG records are there.
    assert!(out.contains("[log DEBUG"), "no log record captured");
    assert!(
        out.contains("TRACE") || out.contains("DEBUG"),
        "no tracing output"
    );
    // No level is capped: the program's own TRACE record is there, and the dependencies' TRACE
    // dumps are too (ureq-proto's rows of written bytes, tungstenite's frames).
    assert!(
        out.contains("[log TRACE user_program] the program's own trace record"),
        "the program's own trace record is missing"
    );
    assert!(out.contains("[log DEBUG user_program] the program's own debug record"));
    assert!(
        out.contains("[log TRACE ureq_proto"),
        "no ureq-proto TRACE dump"
    );
    assert!(
        out.contains("[log TRACE tungstenite"),
        "no tungstenite TRACE record"
    );
    // ureq logged stand-ins where the key and signature go (its rows show a space as `.`).
    assert!(out.contains("access-key:.**"), "no stand-in in the dump");
    assert!(out.contains("access-sign:.***"), "no stand-in in the dump");
    // No 8 consecutive characters of the key or the secret, anywhere.
    assert_absent(&out, "key", &keys.key);
    assert_absent(&out, "secret", &keys.secret);
    // The signatures the recording server got: real on the wire (the key too), absent from
    // the logs.
    let heads = heads.lock().unwrap().clone();
    assert_eq!(
        heads.len(),
        2,
        "one signed request from each client: {heads:#?}"
    );
    for head in &heads {
        assert_eq!(
            header(head, "access-key"),
            Some(keys.key.as_str()),
            "{head}"
        );
        let sign = header(head, "access-sign").expect("a signature");
        assert_eq!(sign.len(), 64, "{head}");
        assert!(sign.bytes().all(|b| b.is_ascii_hexdigit()), "{head}");
        assert_absent(&out, "signature", sign);
    }
}
