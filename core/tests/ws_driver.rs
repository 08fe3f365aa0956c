//! The stream loop both transports run (`digifinex_core::ws::StreamCore`), without sockets: the
//! steps it hands out (paced opening of the sockets 40 swap subscriptions need, commands on
//! each socket's line, waits that match the peekable deadline, closing), the REST offset
//! reaching `server.auth`, and no REST read of the stream's own.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use digifinex_core::session::Session;
use digifinex_core::track::Tracker;
use digifinex_core::ws::{
    Line, SocketReport, Step, StreamBuilder, StreamCore, StreamInput, StreamTransport,
};
use digifinex_core::ManualClock;
use digifinex_core::{Credentials, Family, TimestampMillis};

const T0: i64 = 1_700_000_000_000;

/// What a socket's line was handed.
#[derive(Clone, Default)]
struct Recorded(Rc<RefCell<Vec<Option<String>>>>);

impl Line for Recorded {
    fn command(&self, command: Option<String>) {
        self.0.borrow_mut().push(command);
    }
}

impl Recorded {
    fn texts(&self) -> Vec<String> {
        self.0.borrow().iter().flatten().cloned().collect()
    }
    fn closed(&self) -> bool {
        self.0.borrow().last() == Some(&None)
    }
}

/// A transport that only hands back the settings (the core needs no sockets to be tested).
struct NoSockets;

impl StreamTransport for NoSockets {
    type Stream = ();
    type Tls = ();
    type Rest = Session;
    type Connector = ();
    type Tracked = ();
    fn build(_: StreamBuilder<Self>) -> Result<(), digifinex_core::Error> {
        Ok(())
    }
    fn track(_: StreamBuilder<Self>, _: Tracker) -> Result<(), digifinex_core::Error> {
        Ok(())
    }
    fn session(rest: &Session) -> &Session {
        rest
    }
}

type Core = StreamCore<Recorded, ()>;

fn core(builder: StreamBuilder<NoSockets>) -> Core {
    let (settings, tls, _) = builder.into_parts();
    StreamCore::new(settings, tls, |_| panic!("no TLS for ws://")).unwrap()
}

fn swap_builder(clock: &Arc<ManualClock>, instruments: usize) -> StreamBuilder<NoSockets> {
    let mut b = StreamBuilder::<NoSockets>::new(Family::Swap)
        .url("ws://127.0.0.1:9/")
        .allow_http(true)
        .seed(7)
        .clock(clock.clone());
    for i in 0..instruments {
        b = b.subscribe(format!("swap:ticker:C{i}USDTPERP").parse().unwrap());
    }
    b
}

/// Steps (past events) to the next socket to open.
fn next_open(c: &mut Core, rest: Option<&Session>) -> (u32, u64) {
    for _ in 0..1_000 {
        match c.step(rest) {
            Step::Open { socket, generation } => return (socket, generation),
            Step::Event(_) => {}
            other => panic!("unexpected {other:?}"),
        }
    }
    panic!("no open")
}

/// Steps until the core waits; returns the events' names and the wait.
fn until_wait(c: &mut Core, rest: Option<&Session>) -> (Vec<String>, std::time::Duration) {
    let mut events = Vec::new();
    for _ in 0..1_000 {
        match c.step(rest) {
            Step::Event(e) => events.push(format!("{e:?}").chars().take(40).collect()),
            Step::Wait(d) => return (events, d),
            other => panic!("unexpected {other:?}"),
        }
    }
    panic!("no wait")
}

#[test]
fn forty_swap_subscriptions_open_two_sockets_paced_and_subscribe_each_share() {
    let clock = Arc::new(ManualClock::new(TimestampMillis(T0)));
    let mut c = core(swap_builder(&clock, 40));
    let lines = [Recorded::default(), Recorded::default()];

    // The first socket opens at once.
    let first = next_open(&mut c, None);
    c.opened(first.0, lines[0].clone());
    // The second waits for the pace (500 ms); the wait is the peekable deadline.
    let (_, wait) = until_wait(&mut c, None);
    assert_eq!(wait.as_millis(), 500);
    assert_eq!(c.next_deadline(), Some(TimestampMillis(T0 + 500)));
    assert_eq!(
        c.next_deadline(),
        Some(TimestampMillis(T0 + 500)),
        "peeking moves nothing"
    );
    clock.advance(500);
    let second = next_open(&mut c, None);
    assert_ne!(first.0, second.0);
    assert_ne!(first.1, second.1);
    c.opened(second.0, lines[1].clone());

    // Each socket, once open, is handed its share: 30 and 10 channels.
    c.apply(StreamInput::Socket(first.0, first.1, SocketReport::Opened));
    c.apply(StreamInput::Socket(
        second.0,
        second.1,
        SocketReport::Opened,
    ));
    let (events, _) = until_wait(&mut c, None);
    assert!(
        events.iter().any(|e| e.starts_with("Connected")),
        "{events:?}"
    );
    let channels = |l: &Recorded| -> usize {
        l.texts()
            .iter()
            .filter(|t| t.contains("ticker.subscribe") || t.contains("\"ticker\""))
            .map(|t| t.matches("USDTPERP").count())
            .sum()
    };
    assert_eq!(
        (channels(&lines[0]), channels(&lines[1])),
        (30, 10),
        "{:?} / {:?}",
        lines[0].texts(),
        lines[1].texts()
    );
    assert_eq!(c.streams().family(), Family::Swap);

    // A report of an older generation of a socket changes nothing.
    c.apply(StreamInput::Socket(
        first.0,
        first.1.wrapping_add(100),
        SocketReport::Closed("stale".into()),
    ));
    let (events, _) = until_wait(&mut c, None);
    assert!(
        !events.iter().any(|e| e.starts_with("Disconnected")),
        "{events:?}"
    );

    // Closing closes every line, then the stream stops.
    c.close();
    let mut stopped = false;
    for _ in 0..1_000 {
        match c.step(None) {
            Step::Stopped => {
                stopped = true;
                break;
            }
            Step::Event(_) => {}
            Step::Wait(_) => clock.advance(1_000),
            other => panic!("unexpected {other:?}"),
        }
    }
    assert!(stopped);
    assert!(lines.iter().all(Recorded::closed));
}

#[test]
fn a_socket_that_could_not_start_is_retried_later() {
    let clock = Arc::new(ManualClock::new(TimestampMillis(T0)));
    let mut c = core(swap_builder(&clock, 1));
    let (socket, generation) = next_open(&mut c, None);
    c.open_failed(socket, generation, "thread: out of threads".into());
    let (events, wait) = until_wait(&mut c, None);
    assert!(
        events.iter().any(|e| e.starts_with("Disconnected")),
        "{events:?}"
    );
    assert!(wait.as_millis() > 0);
    // After the backoff, the socket is opened again.
    clock.advance(i64::try_from(wait.as_millis()).unwrap());
    let again = loop {
        match c.step(None) {
            Step::Open { socket, .. } => break socket,
            Step::Event(_) => {}
            Step::Wait(d) => clock.advance(i64::try_from(d.as_millis()).unwrap().max(1)),
            other => panic!("unexpected {other:?}"),
        }
    };
    assert_eq!(again, socket);
}

#[test]
fn dropping_the_core_closes_every_line() {
    let clock = Arc::new(ManualClock::new(TimestampMillis(T0)));
    let mut c = core(swap_builder(&clock, 1));
    let line = Recorded::default();
    let (socket, _) = next_open(&mut c, None);
    c.opened(socket, line.clone());
    assert!(!line.closed());
    drop(c);
    assert!(line.closed());
}

#[test]
fn the_rest_offset_times_server_auth_and_the_stream_reads_nothing() {
    let clock = Arc::new(ManualClock::new(TimestampMillis(T0)));
    let builder = StreamBuilder::<NoSockets>::new(Family::Swap)
        .url("ws://127.0.0.1:9/")
        .allow_http(true)
        .clock(clock.clone())
        .credentials(Credentials::new("key", "secret"))
        .subscribe("swap:account".parse().unwrap());
    let mut c = core(builder);
    let line = Recorded::default();
    let rest = Session::builder().clock(clock.clone()).build();
    rest.set_offset_ms(5_000);
    let offset = Some(&rest);
    let (socket, generation) = next_open(&mut c, offset);
    c.opened(socket, line.clone());
    c.apply(StreamInput::Socket(
        socket,
        generation,
        SocketReport::Opened,
    ));
    let (_, _) = until_wait(&mut c, offset);
    let auth = line
        .texts()
        .into_iter()
        .find(|t| t.contains("server.auth"))
        .expect("auth sent");
    assert!(
        auth.contains(&format!("\"timestamp\":{}", T0 + 5_000)),
        "{auth}"
    );
    let id = |text: &str| -> u64 {
        let v: serde_json::Value = serde_json::from_str(text).unwrap();
        v["id"].as_u64().unwrap()
    };
    let reply = |event: &str, id: u64| {
        let text = format!(r#"{{"event":"{event}","id":{id},"code":1,"msg":"success"}}"#);
        StreamInput::Socket(
            socket,
            generation,
            SocketReport::Frame(text.into_bytes(), true),
        )
    };
    c.apply(reply("server.auth", id(&auth)));
    let (_, _) = until_wait(&mut c, offset);
    let sub = line
        .texts()
        .into_iter()
        .find(|t| t.contains("account.subscribe"))
        .expect("private subscription sent after the auth");
    c.apply(reply("account.subscribe", id(&sub)));
    // The subscription acknowledged on a new socket: reported, and nothing read over REST
    // (the account is the tracker's, fed by the events).
    let (events, _) = until_wait(&mut c, offset);
    assert!(
        events.iter().any(|e| e.starts_with("Subscribed")),
        "{events:?}"
    );
    let (events, _) = until_wait(&mut c, offset);
    assert!(events.is_empty(), "{events:?}");
}

/// A REST session that has not measured the clock yet gives no offset: the socket measures the
/// clock itself (`server.time` before `server.auth`) and signs at the measured server time; once
/// the session has measured, its offset is used again.
#[test]
fn an_unsynced_rest_session_leaves_the_clock_to_the_socket() {
    let clock = Arc::new(ManualClock::new(TimestampMillis(T0)));
    let builder = StreamBuilder::<NoSockets>::new(Family::Swap)
        .url("ws://127.0.0.1:9/")
        .allow_http(true)
        .clock(clock.clone())
        .credentials(Credentials::new("key", "secret"))
        .subscribe("swap:account".parse().unwrap());
    let mut c = core(builder);
    let rest = Session::builder().clock(clock.clone()).build();
    assert!(!rest.clock_measured());
    let line = Recorded::default();
    let (socket, generation) = next_open(&mut c, Some(&rest));
    c.opened(socket, line.clone());
    c.apply(StreamInput::Socket(
        socket,
        generation,
        SocketReport::Opened,
    ));
    let _ = until_wait(&mut c, Some(&rest));
    assert_eq!(line.texts(), vec![r#"{"event":"server.time","id":1}"#]);
    // The server is 30 s behind; answered 100 ms later.
    clock.advance(100);
    let time = format!(
        r#"{{"event":"server.time","id":1,"code":1,"msg":"success","data":{}}}"#,
        T0 + 50 - 30_000
    );
    c.apply(StreamInput::Socket(
        socket,
        generation,
        SocketReport::Frame(time.into_bytes(), true),
    ));
    let (events, _) = until_wait(&mut c, Some(&rest));
    assert!(
        events.iter().any(|e| e.starts_with("ClockMeasured")),
        "{events:?}"
    );
    let auth = line.texts().pop().unwrap();
    assert!(
        auth.contains(&format!("\"timestamp\":{}", T0 + 100 - 30_000)),
        "{auth}"
    );
}
