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

use std::cell::Cell;

use ureq::unversioned::transport::{
    Buffers, ConnectionDetails, Connector, DefaultConnector, NextTimeout, Transport,
};

thread_local! {
    /// A request byte was handed to a connection since the last [`begin`].
    static WRITTEN: Cell<bool> = const { Cell::new(false) };
    /// Inside [`PhaseConnector::connect`]: writes there (a proxy's CONNECT) set up the
    /// connection and are not the request.
    static CONNECTING: Cell<bool> = const { Cell::new(false) };
}

/// Starts an exchange on this thread: nothing written yet.
pub(crate) fn begin() {
    WRITTEN.with(|w| w.set(false));
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
