//! Writers of the targets' input layouts, for seed corpora and regression inputs.

use crate::{entries, SPOT_HOT, STATUSES, SWAP_HOT};

/// The index of a catalog entry by its `meta.name`.
pub fn entry_index(name: &str) -> Option<u8> {
    entries()
        .iter()
        .position(|e| e.meta.name == name)
        .and_then(|i| u8::try_from(i).ok())
}

/// The status selector byte for `status` (`0` for 200).
pub fn status_byte(status: u16) -> u8 {
    if status == 200 {
        return 0;
    }
    STATUSES
        .iter()
        .position(|s| *s == status)
        .and_then(|i| u8::try_from(i + 128).ok())
        .unwrap_or(0)
}

/// A `catalog_decode` input.
pub fn catalog_decode(entry: u8, status: u16, headers: u8, body: &[u8]) -> Vec<u8> {
    [&[entry, status_byte(status), headers][..], body].concat()
}

/// A `spot_decode` or `swap_decode` input for the endpoint named `name`, if it is a hot type.
pub fn hot_decode(name: &str, status: u16, body: &[u8]) -> Option<(&'static str, Vec<u8>)> {
    for (target, table) in [("spot_decode", SPOT_HOT), ("swap_decode", SWAP_HOT)] {
        if let Some(i) = table.iter().position(|(n, _)| *n == name) {
            let i = u8::try_from(i).ok()?;
            return Some((target, [&[i, status_byte(status)][..], body].concat()));
        }
    }
    None
}

/// A `reader` input for the hot type named `name`, if it is one.
pub fn reader(name: &str, body: &[u8]) -> Option<Vec<u8>> {
    let i = crate::READER_TYPES.iter().position(|(n, _)| *n == name)?;
    Some([&[u8::try_from(i).ok()?][..], body].concat())
}

/// A `catalog_build` input: text parameters as `k=v` lines, then an optional JSON body.
pub fn catalog_build(
    entry: u8,
    flags: u8,
    text: &[(String, String)],
    json: Option<&str>,
) -> Vec<u8> {
    let mut out = vec![entry, flags];
    for (k, v) in text {
        out.extend_from_slice(k.as_bytes());
        out.push(b'=');
        out.extend_from_slice(v.as_bytes());
        out.push(b'\n');
    }
    if let Some(json) = json {
        out.push(0);
        out.extend_from_slice(json.as_bytes());
    }
    out
}
