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
pub fn inflate(payload: &[u8]) -> Result<Vec<u8>, FrameError> {
    use miniz_oxide::inflate::{decompress_to_vec_zlib_with_limit, TINFLStatus};
    decompress_to_vec_zlib_with_limit(payload, MAX_INFLATED).map_err(|e| match e.status {
        TINFLStatus::HasMoreOutput => FrameError::TooLarge,
        status => FrameError::Inflate {
            reason: match status {
                TINFLStatus::FailedCannotMakeProgress => "truncated stream",
                TINFLStatus::BadParam => "bad parameter",
                TINFLStatus::Adler32Mismatch => "Adler-32 mismatch",
                _ => "invalid zlib data",
            },
            head: payload.iter().take(16).copied().collect(),
        },
    })
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
    fn each_frame_is_independent() {
        let a = zlib(r#"{"n":1}"#);
        let b = zlib(r#"{"n":2}"#);
        assert_eq!(inflate(&b).unwrap(), br#"{"n":2}"#);
        assert_eq!(inflate(&a).unwrap(), br#"{"n":1}"#);
    }
}
