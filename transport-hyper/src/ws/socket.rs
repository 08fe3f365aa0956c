//! A socket's task: it opens the socket (connect, TLS and upgrade within `connect_timeout` in
//! all), reads whole messages (each within `message_timeout` of its first byte) into the
//! stream's bounded queue, and writes what the stream hands it.

use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use digifinex_core::ws::{Link, SocketReport, StreamInput};
use futures_util::{SinkExt, StreamExt};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::{self, protocol::Message};

use super::Tls;

/// A socket's task: open, then move frames both ways until closed.
pub(super) async fn run_socket(
    link: Arc<Link<Tls>>,
    id: u32,
    g: u64,
    tx: mpsc::Sender<StreamInput>,
    mut commands: mpsc::UnboundedReceiver<Option<String>>,
) {
    let (started, base) = (Arc::new(AtomicU64::new(0)), Instant::now());
    let opened = tokio::time::timeout(
        link.settings.connect_timeout(),
        open(&link, started.clone(), base),
    );
    let mut ws = match opened.await {
        Ok(Ok(ws)) => ws,
        Ok(Err(detail)) => {
            return drop(
                tx.send(StreamInput::Socket(id, g, SocketReport::Failed(detail)))
                    .await,
            )
        }
        Err(_) => {
            return drop(
                tx.send(StreamInput::Socket(
                    id,
                    g,
                    SocketReport::Failed("connect timed out".into()),
                ))
                .await,
            )
        }
    };
    if tx
        .send(StreamInput::Socket(id, g, SocketReport::Opened))
        .await
        .is_err()
    {
        return;
    }
    let limit = link.settings.message_timeout();
    let end = loop {
        // The message in progress must be whole by its first byte + the limit.
        let first = started.load(Ordering::Relaxed);
        let by = (first > 0).then(|| base + Duration::from_millis(first) + limit);
        let cut = async {
            match by {
                Some(at) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        let frame = tokio::select! {
            command = commands.recv() => match command {
                Some(Some(text)) => match ws.send(Message::text(text)).await {
                    Ok(()) => continue,
                    Err(e) => break e.to_string(),
                },
                Some(None) | None => return drop(ws.close(None).await),
            },
            () = cut => break format!("no whole message within {limit:?}"),
            message = ws.next() => match message {
                Some(Ok(Message::Binary(b))) => StreamInput::Socket(id, g, SocketReport::Frame(b.to_vec(), false)),
                Some(Ok(Message::Text(t))) => StreamInput::Socket(id, g, SocketReport::Frame(t.as_bytes().to_vec(), true)),
                Some(Ok(Message::Close(f))) => break f.map_or_else(
                    || "close frame".to_owned(),
                    |f| format!("close frame {} {}", u16::from(f.code), f.reason),
                ),
                Some(Ok(_)) => {
                    started.store(0, Ordering::Relaxed);
                    continue;
                }
                Some(Err(e)) => break e.to_string(),
                None => break "connection closed".to_owned(),
            },
        };
        started.store(0, Ordering::Relaxed);
        if tx.send(frame).await.is_err() {
            return;
        }
    };
    let _ = tx
        .send(StreamInput::Socket(id, g, SocketReport::Closed(end)))
        .await;
}

/// The socket under the websocket: plain TCP or rustls over TCP.
trait Io: AsyncRead + AsyncWrite + Unpin + Send + Sync {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send + Sync> Io for T {}

/// A byte stream that notes when the first byte of a message arrived (ms after `base`, in
/// `started`; 0 when none is in progress), for the message deadline.
struct Noted {
    inner: Box<dyn Io>,
    started: Arc<AtomicU64>,
    base: Instant,
}

impl AsyncRead for Noted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let result = Pin::new(&mut self.inner).poll_read(cx, buf);
        if buf.filled().len() > before && self.started.load(Ordering::Relaxed) == 0 {
            let ms = u64::try_from(self.base.elapsed().as_millis())
                .unwrap_or(u64::MAX)
                .max(1);
            self.started.store(ms, Ordering::Relaxed);
        }
        result
    }
}

impl AsyncWrite for Noted {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// TCP, TLS and the upgrade (the caller bounds the whole).
async fn open(
    link: &Link<Tls>,
    started: Arc<AtomicU64>,
    base: Instant,
) -> Result<tokio_tungstenite::WebSocketStream<Noted>, String> {
    let t = &link.target;
    let tcp = tokio::net::TcpStream::connect((t.host.as_str(), t.port))
        .await
        .map_err(|e| format!("connect {}:{}: {e}", t.host, t.port))?;
    let _ = tcp.set_nodelay(true);
    let inner: Box<dyn Io> = match &link.tls {
        None => Box::new(tcp),
        Some(config) => {
            let name = rustls::pki_types::ServerName::try_from(t.host.clone())
                .map_err(|e| format!("server name {}: {e}", t.host))?;
            let tls = tokio_rustls::TlsConnector::from(config.clone())
                .connect(name, tcp)
                .await;
            Box::new(tls.map_err(|e| format!("tls: {e}"))?)
        }
    };
    let io = Noted {
        inner,
        started: started.clone(),
        base,
    };
    let (ws, _) = tokio_tungstenite::client_async(t.url.as_str(), io)
        .await
        .map_err(|e| match e {
            tungstenite::Error::Http(resp) => format!("HTTP {}", resp.status().as_u16()),
            e => format!("handshake: {e}"),
        })?;
    started.store(0, Ordering::Relaxed);
    Ok(ws)
}
