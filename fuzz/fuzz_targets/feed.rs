#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| digifinex_fuzz::feed(data));
