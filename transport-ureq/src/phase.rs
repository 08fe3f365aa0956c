//! Which phase an exchange failed in: before or after a request byte could have been written.
//!
//! DESIGN: ureq reports failures with one error type whatever the phase (a DNS failure and a
//! connection reset are both `Error::Io`), so the client does not guess the phase from the
//! error. Every connection of the client's agent comes from [`PhaseConnector`], which wraps
//! ureq's `DefaultConnector` (TCP, TLS, proxies); its transport notes in a thread-local flag
//! that `transmit_output` was called. Connecting (the TLS handshake and a CONNECT proxy's own
//! exchange included) happens inside `connect`, where nothing is noted, so the flag is set by
//! the request head, the first thing ureq writes for a request. The blocking client runs each
//! exchange on the caller's thread from [`begin`] to the last body byte, so the flag read by
//! [`written`] after a failure is that exchange's: unset, nothing was sent (a definite failure);
//! set, the request may have reached the server.
//!
//! DESIGN: the same transport keeps the secret header values out of ureq's logs. ureq-proto
//! logs every byte it writes at TRACE (rows of hex and text), and the `log` records of a
//! dependency reach whatever logger the program installs, so the values of sensitive headers
//! (`HeaderValue::is_sensitive`: the core marks `ACCESS-KEY` and `ACCESS-SIGN` so) are handed
//! to ureq as stand-ins of the same length (`*` repeated) by [`hide`], and the transport puts
//! the real bytes in their place in the output buffer just before it transmits: ureq sees,
//! and logs, only the stars. The thread-local list works like the phase flag: one exchange
//! per thread at a time, from [`begin`] to its last byte.

use std::cell::{Cell, RefCell};

use ureq::unversioned::transport::{
    Buffers, ConnectionDetails, Connector, DefaultConnector, NextTimeout, Transport,
};

thread_local! {
    /// A request byte was handed to a connection since the last [`begin`].
    static WRITTEN: Cell<bool> = const { Cell::new(false) };
    /// Inside [`PhaseConnector::connect`]: writes there (a proxy's CONNECT) set up the
    /// connection and are not the request.
    static CONNECTING: Cell<bool> = const { Cell::new(false) };
    /// The hidden header values of this thread's exchange (see [`hide`]), in header order.
    static HIDDEN: RefCell<Vec<Hidden>> = const { RefCell::new(Vec::new()) };
}

/// A sensitive header value that ureq was given as stars.
struct Hidden {
    /// `\r\n`, the header's name, `: `, the stars, `\r\n`: the line as ureq writes it (the
    /// start of the line, the name and the end make a match unambiguous).
    line: Vec<u8>,
    /// Where the stars start in `line`.
    stars_at: usize,
    /// The real value.
    value: http::HeaderValue,
    /// Put in place already (a request's head is written once).
    done: bool,
}

/// Starts an exchange on this thread: nothing written yet, nothing hidden.
pub(crate) fn begin() {
    WRITTEN.with(|w| w.set(false));
    HIDDEN.with(|h| h.borrow_mut().clear());
}

/// Replaces each sensitive value in `headers` by as many `*` and notes it for this thread's
/// exchange: the connection writes the real value (see the module's docs). Call after
/// [`begin`].
pub(crate) fn hide(headers: &mut http::HeaderMap) {
    HIDDEN.with(|hidden| {
        let mut hidden = hidden.borrow_mut();
        for (name, value) in headers.iter_mut() {
            if !value.is_sensitive() || value.is_empty() {
                continue;
            }
            let stars = vec![b'*'; value.len()];
            let Ok(mut stand_in) = http::HeaderValue::from_bytes(&stars) else {
                continue;
            };
            stand_in.set_sensitive(true);
            let name = name.as_str().as_bytes();
            let line = [b"\r\n", name, b": ", &stars, b"\r\n"].concat();
            let value = std::mem::replace(value, stand_in);
            hidden.push(Hidden {
                line,
                stars_at: name.len().saturating_add(4),
                value,
                done: false,
            });
        }
    });
}

/// Drops the hidden values of this thread's exchange (its head is sent).
pub(crate) fn forget() {
    HIDDEN.with(|h| h.borrow_mut().clear());
}

/// Puts the hidden values of this thread's exchange in place in `out` (bytes about to be
/// transmitted).
fn reveal(out: &mut [u8]) {
    HIDDEN.with(|hidden| {
        for h in hidden.borrow_mut().iter_mut().filter(|h| !h.done) {
            let Some(at) = out.windows(h.line.len()).position(|w| w == h.line) else {
                continue;
            };
            let from = at.saturating_add(h.stars_at);
            if let Some(slot) = out.get_mut(from..from.saturating_add(h.value.len())) {
                slot.copy_from_slice(h.value.as_bytes());
                h.done = true;
            }
        }
    });
}

/// Whether the exchange started by [`begin`] on this thread has written (or tried to write)
/// request bytes.
pub(crate) fn written() -> bool {
    WRITTEN.with(Cell::get)
}

/// ureq's default connector chain, whose connections report their first write (see the
/// module's docs).
#[derive(Debug, Default)]
pub(crate) struct PhaseConnector(DefaultConnector);

impl Connector for PhaseConnector {
    type Out = PhaseTransport;

    fn connect(
        &self,
        details: &ConnectionDetails,
        chained: Option<()>,
    ) -> Result<Option<PhaseTransport>, ureq::Error> {
        // Restores the outer value on the way out: a CONNECT proxy connects to the proxy
        // through the same chain, nested in this call.
        struct Restore(bool);
        impl Drop for Restore {
            fn drop(&mut self) {
                CONNECTING.with(|c| c.set(self.0));
            }
        }
        let _restore = Restore(CONNECTING.with(|c| c.replace(true)));
        Ok(self.0.connect(details, chained)?.map(PhaseTransport))
    }
}

/// A connection that notes its writes in the thread's flag.
#[derive(Debug)]
pub(crate) struct PhaseTransport(Box<dyn Transport>);

impl Transport for PhaseTransport {
    fn buffers(&mut self) -> &mut dyn Buffers {
        self.0.buffers()
    }

    fn transmit_output(&mut self, amount: usize, timeout: NextTimeout) -> Result<(), ureq::Error> {
        if !CONNECTING.with(Cell::get) {
            // Noted before writing: a write that fails part-way may have sent bytes.
            WRITTEN.with(|w| w.set(true));
            if let Some(out) = self.0.buffers().output().get_mut(..amount) {
                reveal(out);
            }
        }
        self.0.transmit_output(amount, timeout)
    }

    fn await_input(&mut self, timeout: NextTimeout) -> Result<bool, ureq::Error> {
        self.0.await_input(timeout)
    }

    fn is_open(&mut self) -> bool {
        self.0.is_open()
    }

    fn is_tls(&self) -> bool {
        self.0.is_tls()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sensitive(v: &str) -> http::HeaderValue {
        let mut v = http::HeaderValue::from_str(v).unwrap();
        v.set_sensitive(true);
        v
    }

    #[test]
    fn sensitive_values_go_to_ureq_as_stars_and_on_the_wire_as_themselves() {
        let mut headers = http::HeaderMap::new();
        headers.insert("access-key", sensitive("the-key"));
        headers.insert("access-sign", sensitive("abcdef"));
        headers.insert("access-timestamp", "1700".parse().unwrap());
        begin();
        hide(&mut headers);
        assert_eq!(headers["access-key"], "*******");
        assert_eq!(headers["access-sign"], "******");
        assert!(headers["access-sign"].is_sensitive());
        assert_eq!(headers["access-timestamp"], "1700");
        // The head as ureq writes it, in two transmissions: the first line alone, then the
        // headers; the body (stars of its own) is left alone.
        let mut first = b"GET /x HTTP/1.1\r\n".to_vec();
        reveal(&mut first);
        assert_eq!(first, b"GET /x HTTP/1.1\r\n");
        let mut rest =
            b"\r\naccess-sign: ******\r\naccess-key: *******\r\nx: *******\r\n\r\n".to_vec();
        reveal(&mut rest);
        assert_eq!(
            String::from_utf8(rest).unwrap(),
            "\r\naccess-sign: abcdef\r\naccess-key: the-key\r\nx: *******\r\n\r\n"
        );
        // Done once: a later transmission (the body) is not touched.
        let mut body = b"\r\naccess-key: *******\r\n".to_vec();
        reveal(&mut body);
        assert_eq!(body, b"\r\naccess-key: *******\r\n");
        // The next exchange starts empty; `forget` drops the values.
        forget();
        HIDDEN.with(|h| assert!(h.borrow().is_empty()));
    }
}
