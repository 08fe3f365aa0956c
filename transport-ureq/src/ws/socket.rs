//! A socket's thread: it opens the socket (connect, TLS and upgrade within `connect_timeout`
//! in all), reads whole messages (each within `message_timeout` of its first byte) into the
//! stream's bounded queue, and writes what the stream hands it.

use std::io::{self, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::time::{Duration, Instant};

use digifinex_core::ws::{Link, SocketReport, StreamInput};
use tungstenite::protocol::Message;

use super::Tls;

/// How often a socket thread looks at its commands while no frame comes.
const TICK: Duration = Duration::from_millis(20);

/// A socket's thread: open, then move frames both ways until closed.
pub(super) fn run_socket(
    link: &Link<Tls>,
    id: u32,
    g: u64,
    tx: &SyncSender<StreamInput>,
    commands: &Receiver<Option<String>>,
) {
    let mut ws = match open(link) {
        Ok(ws) => ws,
        Err(detail) => {
            let _ = tx.send(StreamInput::Socket(id, g, SocketReport::Failed(detail)));
            return;
        }
    };
    if tx
        .send(StreamInput::Socket(id, g, SocketReport::Opened))
        .is_err()
    {
        return;
    }
    let end = loop {
        match commands.try_recv() {
            Ok(Some(text)) => match ws.send(Message::text(text)) {
                Ok(()) => continue,
                Err(e) => break e.to_string(),
            },
            Ok(None) | Err(mpsc::TryRecvError::Disconnected) => {
                let _ = ws.close(None);
                let _ = ws.flush();
                return;
            }
            Err(mpsc::TryRecvError::Empty) => {}
        }
        let frame = match ws.read() {
            Ok(Message::Binary(b)) => {
                StreamInput::Socket(id, g, SocketReport::Frame(b.to_vec(), false))
            }
            Ok(Message::Text(t)) => {
                StreamInput::Socket(id, g, SocketReport::Frame(t.as_bytes().to_vec(), true))
            }
            Ok(Message::Close(f)) => {
                break f.map_or_else(
                    || "close frame".to_owned(),
                    |f| format!("close frame {} {}", u16::from(f.code), f.reason),
                )
            }
            // tungstenite queues the pong; it goes out with the next write or flush.
            Ok(_) => {
                ws.get_mut().since = None;
                let _ = ws.flush();
                continue;
            }
            Err(tungstenite::Error::Io(e))
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                continue
            }
            Err(e) => break e.to_string(),
        };
        ws.get_mut().since = None;
        if tx.send(frame).is_err() {
            return;
        }
    };
    let _ = tx.send(StreamInput::Socket(id, g, SocketReport::Closed(end)));
}

/// The socket under the websocket: plain TCP or rustls over TCP, read under a deadline.
trait Io: Read + Write + Send {}
impl<T: Read + Write + Send> Io for T {}

/// A byte stream whose reads fail once a message (or the handshake) took longer than its
/// limit since its first byte (or since the handshake began).
struct Timed {
    inner: Box<dyn Io>,
    limit: Duration,
    since: Option<Instant>,
}

impl Read for Timed {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.since.is_some_and(|t| t.elapsed() > self.limit) {
            return Err(io::Error::other(format!(
                "no whole message within {:?}",
                self.limit
            )));
        }
        let n = self.inner.read(buf)?;
        if n > 0 && self.since.is_none() {
            self.since = Some(Instant::now());
        }
        Ok(n)
    }
}

impl Write for Timed {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// TCP, TLS and the upgrade, all within `connect_timeout`; an error is the reason given to
/// the machine.
fn open(link: &Link<Tls>) -> Result<tungstenite::WebSocket<Timed>, String> {
    let (t, limit) = (&link.target, link.settings.connect_timeout());
    let start = Instant::now();
    let addrs = (t.host.as_str(), t.port)
        .to_socket_addrs()
        .map_err(|e| format!("resolve {}: {e}", t.host))?;
    let mut last = format!("no address for {}", t.host);
    let mut tcp = None;
    for addr in addrs {
        let left = limit
            .saturating_sub(start.elapsed())
            .max(Duration::from_millis(1));
        match TcpStream::connect_timeout(&addr, left) {
            Ok(s) => {
                tcp = Some(s);
                break;
            }
            Err(e) => last = format!("connect {addr}: {e}"),
        }
    }
    let tcp = tcp.ok_or(last)?;
    let _ = tcp.set_nodelay(true);
    tcp.set_read_timeout(Some(TICK))
        .and_then(|()| tcp.set_write_timeout(Some(limit)))
        .map_err(|e| e.to_string())?;
    let inner: Box<dyn Io> = match &link.tls {
        None => Box::new(tcp),
        Some(config) => {
            let name = rustls::pki_types::ServerName::try_from(t.host.clone())
                .map_err(|e| format!("server name {}: {e}", t.host))?;
            let session = rustls::ClientConnection::new(config.clone(), name)
                .map_err(|e| format!("tls: {e}"))?;
            Box::new(rustls::StreamOwned::new(session, tcp))
        }
    };
    // The handshake's deadline runs from the start of the connect.
    let io = Timed {
        inner,
        limit,
        since: Some(start),
    };
    let mut attempt = tungstenite::client(t.url.as_str(), io);
    loop {
        match attempt {
            Ok((mut ws, _)) => {
                ws.get_mut().since = None;
                ws.get_mut().limit = link.settings.message_timeout();
                return Ok(ws);
            }
            Err(tungstenite::HandshakeError::Interrupted(mid)) => attempt = mid.handshake(),
            Err(tungstenite::HandshakeError::Failure(tungstenite::Error::Http(resp))) => {
                return Err(format!("HTTP {}", resp.status().as_u16()))
            }
            Err(tungstenite::HandshakeError::Failure(e)) => return Err(format!("handshake: {e}")),
        }
    }
}
