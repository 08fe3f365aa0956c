//! The recording reader of `digifinex-market` (the lines `digifinex record` writes; issue 39's
//! hand-written depth-line scanner is on its hottest path).

use std::io::{Cursor, Write};

use digifinex_market::{Header, Reader, Record};

/// Records read from one input at most (an input of many short lines stays fast).
const MAX_RECORDS: usize = 10_000;

/// `recording`: the text of a recording after its header line (any bytes; gzip-compressed
/// here, as recordings are).
///
/// Properties: the reader never panics on the text; every record it reads, written again as
/// its line (the writer's text, which takes the fast paths, the depth-line scanner among
/// them), reads back as exactly that record.
pub fn recording(data: &[u8]) {
    checked(data);
}

/// [`recording`]'s check; the records read back.
fn checked(data: &[u8]) -> usize {
    let mut text = Header::default().to_line().into_bytes();
    text.push(b'\n');
    text.extend_from_slice(data);
    // A header line and gzip written here: the reader must take them.
    let mut reader = match Reader::new(Cursor::new(gzip(&text))) {
        Ok(r) => r,
        Err(e) => panic!("the reader refuses a default header: {e}"),
    };
    let mut n = 0;
    for item in reader.by_ref().take(MAX_RECORDS) {
        let Ok(record) = item else { continue };
        assert_eq!(
            read_back(&record),
            Some(record.clone()),
            "{}",
            record.to_line()
        );
        n += 1;
    }
    n
}

/// The record of `record.to_line()` alone after a header, read again.
fn read_back(record: &Record) -> Option<Record> {
    let mut text = Header::default().to_line().into_bytes();
    text.push(b'\n');
    text.extend_from_slice(record.to_line().as_bytes());
    text.push(b'\n');
    let mut reader = Reader::new(Cursor::new(gzip(&text))).ok()?;
    let first = reader.next()?.ok()?;
    reader.next().is_none().then_some(first)
}

fn gzip(text: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    // Writing to a vector does not fail.
    let _ = enc.write_all(text);
    enc.finish().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #[test]
    fn records_are_read_and_checked() {
        let lines = concat!(
            r#"{"t":5,"kind":"spot_depth","symbol":"btc_usdt","snapshot":false,"bids":[["1.5","2"]],"asks":[],"ts":4}"#,
            "\nnot json\n",
            r#" { "kind" : "swap_depth" , "t" : 6 , "snapshot" : true , "asks" : [ [ "1" , "2" ] ] , "bids" : [ ] , "instrument" : "BTCUSDTPERP" } "#,
            "\n",
            r#"{"t":7,"kind":"spot_trades","symbol":"btc_usdt","trades":[{"id":"9","time":7,"price":"1","qty":"2","side":"buy"}]}"#,
            "\n",
        );
        assert_eq!(super::checked(lines.as_bytes()), 3);
        assert_eq!(super::checked(b"\xff\x00{"), 0);
    }
}
