//! No key, secret or signature reaches a log at any level: both clients make signed REST
//! calls and authenticate a private websocket against the simulator under a TRACE `tracing`
//! subscriber and a logger taking every `log` record (the dependencies' channel: ureq's wire
//! dump and tungstenite's frame log are TRACE records there), and the output is searched.

use std::sync::{Mutex, OnceLock};
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

    let sim = Sim::start(SimConfig::default().without_flow()).unwrap();
    let keys = sim.control().demo_account().keys;
    let creds = Credentials::new(keys.key.clone(), keys.secret.clone());

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
        .credentials(creds)
        .build()
        .unwrap();
    rt.block_on(async {
        client.send(&spot::SpotAssetsRequest::new()).await.unwrap();
        client.send(&swap::BalanceRequest::new()).await.unwrap();
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
    // The capture works: the clients' own spans and the HTTP library's DEBUG records are there.
    assert!(out.contains("[log DEBUG"), "no log record captured");
    assert!(
        out.contains("TRACE") || out.contains("DEBUG"),
        "no tracing output"
    );
    // No 8 consecutive characters of the key or the secret, anywhere (a wire dump splits
    // them into rows of 16 bytes).
    for (name, secret) in [("key", &keys.key), ("secret", &keys.secret)] {
        let chars: Vec<char> = secret.chars().collect();
        for window in chars.windows(8) {
            let piece: String = window.iter().collect();
            assert!(
                !out.contains(&piece),
                "a piece of the {name} ({piece}) is in the logs"
            );
        }
    }
}
