//! A small writer for swap v2 JSON request bodies.
//!
//! A swap POST body is serialised once, by this writer, and those exact bytes are both signed and
//! sent. Members are written in the order the endpoint writes them (the documented order), numbers
//! from their exact text (a [`Decimal`] is written in plain notation, never through `f64`), strings
//! escaped by serde_json.
//!
//! DESIGN: writing by hand instead of `serde_json::to_vec` of a derived struct keeps `Decimal`
//! numbers exact without serde_json's `arbitrary_precision` feature (which would change serde_json
//! for every crate in a user's program) and makes the one-pass, one-allocation body cheap to sign.

use rust_decimal::Decimal;

/// Writes one JSON value: an object (`{..}`) or an array of objects (`[{..},{..}]`).
#[derive(Debug, Default)]
pub struct JsonWriter {
    buf: Vec<u8>,
    /// Whether the current object already has a member (so the next one needs a comma).
    has_member: bool,
}

impl JsonWriter {
    /// An empty writer.
    pub fn new() -> Self {
        JsonWriter {
            buf: Vec::with_capacity(128),
            has_member: false,
        }
    }

    /// Opens an object.
    pub fn begin_object(&mut self) -> &mut Self {
        self.buf.push(b'{');
        self.has_member = false;
        self
    }

    /// Closes the current object.
    pub fn end_object(&mut self) -> &mut Self {
        self.buf.push(b'}');
        self.has_member = true;
        self
    }

    /// Opens an array.
    pub fn begin_array(&mut self) -> &mut Self {
        self.buf.push(b'[');
        self.has_member = false;
        self
    }

    /// Closes the current array.
    pub fn end_array(&mut self) -> &mut Self {
        self.buf.push(b']');
        self.has_member = true;
        self
    }

    /// Writes the separator before an array element.
    pub fn element(&mut self) -> &mut Self {
        if self.has_member {
            self.buf.push(b',');
        }
        self.has_member = false;
        self
    }

    fn key(&mut self, key: &str) {
        if self.has_member {
            self.buf.push(b',');
        }
        self.has_member = true;
        write_str(&mut self.buf, key);
        self.buf.push(b':');
    }

    /// `"key":"value"` (escaped).
    pub fn str(&mut self, key: &str, value: &str) -> &mut Self {
        self.key(key);
        write_str(&mut self.buf, value);
        self
    }

    /// `"key":"value"` when present.
    pub fn opt_str(&mut self, key: &str, value: Option<&str>) -> &mut Self {
        if let Some(v) = value {
            self.str(key, v);
        }
        self
    }

    /// `"key":123` for an integer.
    pub fn int(&mut self, key: &str, value: i64) -> &mut Self {
        self.key(key);
        if value < 0 {
            self.buf.push(b'-');
        }
        let mut digits = [0; 20];
        let digits = crate::text::uint(value.unsigned_abs(), &mut digits);
        self.buf.extend_from_slice(digits);
        self
    }

    /// `"key":123` when present.
    pub fn opt_int(&mut self, key: &str, value: Option<i64>) -> &mut Self {
        if let Some(v) = value {
            self.int(key, v);
        }
        self
    }

    /// `"key":1.5`: a decimal as a JSON number in plain notation.
    pub fn decimal_number(&mut self, key: &str, value: &Decimal) -> &mut Self {
        self.key(key);
        crate::text::push_decimal(&mut self.buf, value);
        self
    }

    /// `"key":"1.5"`: a decimal as a JSON string in plain notation.
    pub fn decimal_string(&mut self, key: &str, value: &Decimal) -> &mut Self {
        self.key(key);
        self.buf.push(b'"');
        crate::text::push_decimal(&mut self.buf, value);
        self.buf.push(b'"');
        self
    }

    /// `"key":"1.5"` when present.
    pub fn opt_decimal_string(&mut self, key: &str, value: Option<&Decimal>) -> &mut Self {
        if let Some(v) = value {
            self.decimal_string(key, v);
        }
        self
    }

    /// `"key":true` or `false`.
    pub fn bool(&mut self, key: &str, value: bool) -> &mut Self {
        self.key(key);
        self.buf
            .extend_from_slice(if value { b"true" } else { b"false" });
        self
    }

    /// The finished bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }
}

/// Writes `s` as a JSON string literal, escaped by serde_json.
fn write_str(buf: &mut Vec<u8>, s: &str) {
    // The usual member name or value needs no escape (serde_json escapes only the quote, the
    // backslash and control characters): copied as is.
    if plain(s.as_bytes()) {
        buf.reserve(s.len().saturating_add(2));
        buf.push(b'"');
        buf.extend_from_slice(s.as_bytes());
        buf.push(b'"');
        return;
    }
    use serde::Serializer;
    let mut ser = serde_json::Serializer::new(&mut *buf);
    // Serialising a &str into a Vec cannot fail.
    let _ = ser.serialize_str(s);
}

/// Whether `bytes` hold no byte JSON escapes: no quote, no backslash, no control character.
///
/// DESIGN (issue 28): eight bytes at a time, with the classic tests for a zero byte
/// (`(v - 0x01..) & !v & 0x80..`) and a byte below `n` (`(v - n..) & !v & 0x80..`, exact as a
/// yes or no for `n <= 0x80`); a member name or value is mostly one or two words.
#[inline]
fn plain(bytes: &[u8]) -> bool {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    let below = |v: u64, n: u8| v.wrapping_sub(ONES.wrapping_mul(u64::from(n))) & !v & HIGHS;
    let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS;
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let mut w = [0; 8];
        w.copy_from_slice(word);
        let v = u64::from_ne_bytes(w);
        if below(v, 0x20)
            | zero(v ^ ONES.wrapping_mul(u64::from(b'"')))
            | zero(v ^ ONES.wrapping_mul(u64::from(b'\\')))
            != 0
        {
            return false;
        }
    }
    words
        .remainder()
        .iter()
        .all(|&b| b >= 0x20 && b != b'"' && b != b'\\')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_members_in_order_with_exact_numbers() {
        let mut w = JsonWriter::new();
        w.begin_object()
            .str("instrument_id", "BTCUSDTPERP")
            .int("type", 1)
            .decimal_number("size", &"0.000000000000000000000000001".parse().unwrap())
            .decimal_string("price", &"30000.10".parse().unwrap())
            .bool("post_only", true)
            .str("q", "a\"b\\c\n")
            .end_object();
        assert_eq!(
            String::from_utf8(w.into_bytes()).unwrap(),
            r#"{"instrument_id":"BTCUSDTPERP","type":1,"size":0.000000000000000000000000001,"price":"30000.10","post_only":true,"q":"a\"b\\c\n"}"#
        );
    }

    #[test]
    fn plain_finds_every_byte_that_needs_an_escape_in_any_place() {
        for len in 0..20 {
            let base = vec![b'a'; len];
            assert!(plain(&base));
            for at in 0..len {
                for b in 0..=255u8 {
                    let mut text = base.clone();
                    text[at] = b;
                    let want = b >= 0x20 && b != b'"' && b != b'\\';
                    assert_eq!(plain(&text), want, "byte {b:#04x} at {at} of {len}");
                }
            }
        }
        // Bytes of multi-byte characters need no escape.
        assert!(plain("prix: 30 000 € — ü".as_bytes()));
    }

    #[test]
    fn arrays_of_objects() {
        let mut w = JsonWriter::new();
        w.begin_array();
        for id in ["1", "2"] {
            w.element()
                .begin_object()
                .str("instrument_id", "X")
                .str("order_id", id)
                .end_object();
        }
        w.end_array();
        assert_eq!(
            String::from_utf8(w.into_bytes()).unwrap(),
            r#"[{"instrument_id":"X","order_id":"1"},{"instrument_id":"X","order_id":"2"}]"#
        );
        let mut w = JsonWriter::new();
        w.begin_object().end_object();
        assert_eq!(w.into_bytes(), b"{}");
    }
}
