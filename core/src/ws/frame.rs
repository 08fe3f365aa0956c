//! Server frames: the zlib layer and the tolerant decoder (`docs/protocol.md`, "Frames").
//!
//! Every server frame is a WebSocket **binary** frame whose payload is one complete zlib stream
//! (RFC 1950: a 2-byte header, usually `78 DA`, a deflate body and an Adler-32 trailer) holding
//! one JSON document. Each frame is independent: a fresh inflater per frame, no shared window.
//!
//! The tolerant decoder: a binary frame is inflated; when that fails and the payload starts
//! with `{` or `[` it is taken as plain JSON; a text frame is plain JSON; anything else is an
//! [`FrameError`] (the connection drops that frame and goes on). Nothing here panics on any
//! input bytes (fuzzed by `fuzz/fuzz_targets/ws_frame.rs`).

use std::borrow::Cow;

/// A frame received from the server, as the transport got it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame<'a> {
    /// A binary frame's payload (normally a zlib stream).
    Binary(&'a [u8]),
    /// A text frame's payload.
    Text(&'a str),
}

/// Why a frame could not be turned into JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FrameError {
    /// A binary frame that is neither a valid zlib stream nor plain JSON.
    Inflate {
        /// The inflater's reason.
        reason: &'static str,
        /// The payload's first bytes (at most 16), for the log.
        head: Vec<u8>,
    },
    /// The inflated payload is larger than [`MAX_INFLATED`].
    TooLarge,
    /// The payload is not JSON text (not UTF-8, or not an object or array).
    NotJson,
}

impl std::fmt::Display for FrameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FrameError::Inflate { reason, head } => {
                write!(
                    f,
                    "binary frame is not zlib ({reason}); starts with {head:02x?}"
                )
            }
            FrameError::TooLarge => write!(f, "frame inflates to more than {MAX_INFLATED} bytes"),
            FrameError::NotJson => f.write_str("frame payload is not a JSON object or array"),
        }
    }
}

impl std::error::Error for FrameError {}

/// The largest inflated frame accepted: 16 MiB. The largest observed frame (swap `all_ticker`,
/// 172 rows) inflates to about 56 KB; the limit only stops a hostile stream from exhausting
/// memory.
pub const MAX_INFLATED: usize = 16 << 20;

/// Inflates one zlib stream (header, deflate body and Adler-32 trailer, all checked).
///
/// DESIGN: through flate2's zlib-rs backend, the inflater the rest of the workspace uses for
/// gzip (it builds a stream's tables faster than miniz_oxide, which each frame, a stream of its
/// own, pays for once; docs/benchmarks.md). The output grows from four times the payload up to
/// [`MAX_INFLATED`].
pub fn inflate(payload: &[u8]) -> Result<Vec<u8>, FrameError> {
    inflate_limited(payload, MAX_INFLATED)
}

fn inflate_limited(payload: &[u8], limit: usize) -> Result<Vec<u8>, FrameError> {
    use flate2::{Decompress, FlushDecompress, Status};
    let invalid = |reason: &'static str| FrameError::Inflate {
        reason,
        head: payload.iter().take(16).copied().collect(),
    };
    let mut z = Decompress::new(true);
    let mut out: Vec<u8> = Vec::with_capacity(payload.len().saturating_mul(4).max(64).min(limit));
    loop {
        let (read, written) = (z.total_in(), z.total_out());
        let at = usize::try_from(read).unwrap_or(usize::MAX);
        let input = payload.get(at..).unwrap_or_default();
        match z.decompress_vec(input, &mut out, FlushDecompress::Finish) {
            Ok(Status::StreamEnd) => return Ok(out),
            Ok(Status::Ok | Status::BufError) => {
                if out.len() == out.capacity() {
                    // The output is full: more room, up to the limit.
                    let room = limit.saturating_sub(out.len());
                    if room == 0 {
                        return Err(FrameError::TooLarge);
                    }
                    out.reserve_exact(out.len().max(64).min(room));
                } else if z.total_in() == read && z.total_out() == written {
                    // Room to write, and nothing moved: the input ended before the stream.
                    return Err(invalid("truncated stream"));
                }
            }
            Err(e) => {
                return Err(invalid(match e.message() {
                    Some("incorrect data check") => "Adler-32 mismatch",
                    _ => "invalid zlib data",
                }))
            }
        }
    }
}

/// The JSON text of a frame by the tolerant rule (see the module docs): borrowed for a text
/// frame or a plain-JSON binary frame, owned when inflated.
pub fn decode(frame: Frame<'_>) -> Result<Cow<'_, [u8]>, FrameError> {
    let text: Cow<'_, [u8]> = match frame {
        Frame::Text(t) => Cow::Borrowed(t.as_bytes()),
        Frame::Binary(payload) => match inflate(payload) {
            Ok(v) => Cow::Owned(v),
            Err(FrameError::TooLarge) => return Err(FrameError::TooLarge),
            Err(e) => {
                if looks_like_json(payload) {
                    Cow::Borrowed(payload)
                } else {
                    return Err(e);
                }
            }
        },
    };
    if looks_like_json(&text) && std::str::from_utf8(&text).is_ok() {
        Ok(text)
    } else {
        Err(FrameError::NotJson)
    }
}

/// Whether the first non-blank byte opens an object or an array.
fn looks_like_json(bytes: &[u8]) -> bool {
    matches!(bytes.trim_ascii_start().first(), Some(b'{' | b'['))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A zlib stream at level 9 (`78 DA`), as the venue and the simulator send.
    pub(crate) fn zlib(json: &str) -> Vec<u8> {
        miniz_oxide::deflate::compress_to_vec_zlib(json.as_bytes(), 9)
    }

    /// The zlib vector of `docs/protocol.md` ("Frames"): the 69-byte ping reply, compressed at
    /// level 9, starts `78 da` and inflates back; a raw-deflate inflater rejects it.
    #[test]
    fn spec_vector_ping_reply() {
        let json = r#"{"event":"server.ping","id":7,"code":1,"msg":"success","data":"pong"}"#;
        assert_eq!(json.len(), 69);
        let z = zlib(json);
        assert_eq!(&z[..2], &[0x78, 0xda]);
        assert_eq!(inflate(&z).unwrap(), json.as_bytes());
        assert!(miniz_oxide::inflate::decompress_to_vec(&z).is_err());
        assert_eq!(decode(Frame::Binary(&z)).unwrap().as_ref(), json.as_bytes());
    }

    #[test]
    fn tolerant_rules() {
        // Text frames and plain JSON in binary frames pass through borrowed.
        let t = r#"{"id":1,"result":"pong","error":null}"#;
        assert!(matches!(decode(Frame::Text(t)), Ok(Cow::Borrowed(b)) if b == t.as_bytes()));
        assert!(matches!(
            decode(Frame::Binary(t.as_bytes())),
            Ok(Cow::Borrowed(b)) if b == t.as_bytes()
        ));
        assert!(matches!(
            decode(Frame::Binary(b"  [1]")),
            Ok(Cow::Borrowed(_))
        ));
        // Garbage is refused with the inflater's reason and the first bytes.
        assert_eq!(
            decode(Frame::Binary(b"\x01\x02")),
            Err(FrameError::Inflate {
                reason: "invalid zlib data",
                head: vec![1, 2]
            })
        );
        assert_eq!(decode(Frame::Text("pong")), Err(FrameError::NotJson));
        // A zlib stream of non-JSON is not JSON.
        assert_eq!(
            decode(Frame::Binary(&zlib("hello"))),
            Err(FrameError::NotJson)
        );
    }

    #[test]
    fn corrupt_trailer_and_truncation_are_refused() {
        let mut z = zlib(r#"{"a":1}"#);
        let last = z.len() - 1;
        z[last] ^= 0xff;
        assert!(matches!(
            inflate(&z),
            Err(FrameError::Inflate {
                reason: "Adler-32 mismatch",
                ..
            })
        ));
        let z = zlib(r#"{"a":1}"#);
        assert!(matches!(
            inflate(&z[..z.len() - 5]),
            Err(FrameError::Inflate { .. })
        ));
        assert!(inflate(&[]).is_err());
    }

    #[test]
    fn the_output_grows_to_the_limit_and_not_past_it() {
        // Inflates to 100,000 bytes from a few hundred: the output grows many times.
        let big = format!("[{}1]", "1,".repeat(49_999));
        let z = zlib(&big);
        assert!(z.len() < 1000, "{}", z.len());
        assert_eq!(inflate(&z).unwrap(), big.as_bytes());
        assert_eq!(inflate_limited(&z, big.len()).unwrap(), big.as_bytes());
        assert_eq!(
            inflate_limited(&z, big.len() - 1),
            Err(FrameError::TooLarge)
        );
        assert_eq!(inflate_limited(&z, 64), Err(FrameError::TooLarge));
        // Limits below the first allocation, and room of less than 64 bytes at the end.
        assert_eq!(inflate_limited(&z, 10), Err(FrameError::TooLarge));
        for limit in big.len() - 70..big.len() {
            assert_eq!(
                inflate_limited(&z, limit),
                Err(FrameError::TooLarge),
                "{limit}"
            );
        }
        assert_eq!(
            inflate_limited(b"x\x9c\x03\x00\x00\x00\x00\x01", 0).unwrap(),
            b""
        );
        // Cut anywhere, the stream is refused, never read as complete.
        for cut in 0..z.len() {
            let e = inflate(&z[..cut]).unwrap_err();
            assert!(matches!(e, FrameError::Inflate { .. }), "{cut}: {e:?}");
        }
        let short = zlib(r#"{"a":1}"#);
        assert!(matches!(
            inflate(&short[..short.len() - 5]),
            Err(FrameError::Inflate {
                reason: "truncated stream",
                ..
            })
        ));
    }

    #[test]
    fn each_frame_is_independent() {
        let a = zlib(r#"{"n":1}"#);
        let b = zlib(r#"{"n":2}"#);
        assert_eq!(inflate(&b).unwrap(), br#"{"n":2}"#);
        assert_eq!(inflate(&a).unwrap(), br#"{"n":1}"#);
    }
}
