//! Who may reach the simulator: the loopback checks of the bind address, of `Host` headers
//! (the control API and websocket upgrades, DNS rebinding protection) and of a websocket
//! upgrade's `Origin`; shared with `digifinex replay`.

use std::net::{IpAddr, SocketAddr};

/// Whether the simulator may listen on `addr`: loopback addresses (`127.0.0.0/8`, `::1`, and
/// `::ffff:127.x.x.x`) always; any other address only when `public` is set, because the
/// unauthenticated control API under `/__sim` hands out API secrets to whoever reaches it.
pub fn check_bind_addr(addr: SocketAddr, public: bool) -> Result<(), String> {
    let ip = match addr.ip() {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
        v4 => v4,
    };
    if public || ip.is_loopback() {
        Ok(())
    } else {
        Err(format!(
            "refusing to listen on {addr}: it is not a loopback address, and the simulator's \
             control API (/__sim) is unauthenticated and hands out API secrets to anyone who \
             can reach it; pass --public (SimConfig::allow_public_bind) to listen there anyway"
        ))
    }
}

/// Whether the request's `Host` names the loopback or an IP address the server listens on
/// ([`is_loopback_host`]): a web page that reaches the simulator through DNS rebinding sends
/// its own host name and is refused. A request without `Host` is refused.
pub fn loopback_host(headers: &http::HeaderMap, bound: SocketAddr) -> bool {
    headers
        .get(http::header::HOST)
        .and_then(|h| h.to_str().ok())
        .is_some_and(|h| is_loopback_host(h, Some(bound.ip())))
}

/// Whether a `Host` header value (`name`, `name:port`, `v4:port`, `[v6]:port`) names the
/// loopback: `localhost` (any case, with or without the final dot), an address of
/// `127.0.0.0/8` or `::1`, or an IPv4-mapped loopback address (`[::ffff:127.0.0.1]`); or
/// `bound`, the address a server listens on (not the unspecified `0.0.0.0` or `::`). The
/// port, when present, is digits (at most 65535). Anything else is refused: other names (a
/// DNS rebinding page sends its own), `*.localhost`, user info, paths, an unbracketed IPv6
/// address, numeric forms other than dotted decimal.
///
/// The one check of the simulator's control API and websocket upgrades and of
/// `digifinex replay`.
pub fn is_loopback_host(host: &str, bound: Option<IpAddr>) -> bool {
    let host = host.trim();
    let (name, port) = if let Some(rest) = host.strip_prefix('[') {
        let Some((inside, after)) = rest.split_once(']') else {
            return false;
        };
        let port = match after.strip_prefix(':') {
            Some(p) => Some(p),
            None if after.is_empty() => None,
            None => return false,
        };
        // Only an IPv6 address goes in brackets.
        if inside.parse::<std::net::Ipv6Addr>().is_err() {
            return false;
        }
        (inside, port)
    } else {
        match host.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (host, None),
        }
    };
    let port_ok = port.is_none_or(|p| {
        p.is_empty()
            || (p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()) && p.parse::<u16>().is_ok())
    });
    if !port_ok || name.is_empty() {
        return false;
    }
    let name = name.strip_suffix('.').unwrap_or(name);
    if name.eq_ignore_ascii_case("localhost") {
        return true;
    }
    let Ok(ip) = name.parse::<IpAddr>() else {
        return false;
    };
    let ip = match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
        v4 => v4,
    };
    let bound = bound.map(|b| match b {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
        v4 => v4,
    });
    ip.is_loopback() || (Some(ip) == bound && !ip.is_unspecified())
}

/// Whether a websocket upgrade's `Origin` may connect: absent (not a browser), or a page
/// served from the loopback (`http://localhost:3000`, `https://127.0.0.1`, `http://[::1]:8080`:
/// an `http` or `https` origin whose host [`is_loopback_host`] accepts without a bound
/// address). `null` (a sandboxed page, a file) and every other origin are refused: any web
/// page the user opens could otherwise reach the simulator's sockets.
pub(crate) fn loopback_origin(origin: Option<&str>) -> bool {
    let Some(origin) = origin.map(str::trim) else {
        return true;
    };
    let Some((scheme, rest)) = origin.split_once("://") else {
        return false;
    };
    let web = scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https");
    web && !rest.contains(['/', '@', '?', '#']) && is_loopback_host(rest, None)
}

#[cfg(test)]
mod tests {
    use super::{check_bind_addr, is_loopback_host, loopback_origin};
    use std::net::IpAddr;

    #[test]
    fn host_forms() {
        let bound: IpAddr = "10.1.2.3".parse().unwrap();
        let any: IpAddr = "0.0.0.0".parse().unwrap();
        // (host, bound, accepted)
        let table: &[(&str, Option<IpAddr>, bool)] = &[
            ("localhost", None, true),
            ("LOCALHOST", None, true),
            ("localhost.", None, true),
            ("LOCALHOST.", None, true),
            ("LocalHost.:8080", None, true),
            ("localhost:", None, true),
            ("  localhost:1  ", None, true),
            ("127.0.0.1", None, true),
            ("127.0.0.1:8080", None, true),
            ("127.1.2.3:65535", None, true),
            ("[::1]", None, true),
            ("[::1]:8080", None, true),
            ("[0:0:0:0:0:0:0:1]:1", None, true),
            ("[::ffff:127.0.0.1]", None, true),
            ("[::ffff:127.0.0.1]:9", None, true),
            ("[::FFFF:7f00:1]:9", None, true),
            ("10.1.2.3:80", Some(bound), true),
            ("[::ffff:10.1.2.3]:80", Some(bound), true),
            // Refused.
            ("10.1.2.3:80", None, false),
            ("10.1.2.4:80", Some(bound), false),
            ("0.0.0.0:80", Some(any), false),
            ("[::]:80", Some("::".parse().unwrap()), false),
            ("", None, false),
            (":80", None, false),
            ("evil.example.com", None, false),
            ("localhost.evil.example", None, false),
            ("evil.localhost", None, false),
            ("localhost..", None, false),
            ("127.0.0.1.nip.io", None, false),
            ("127.0.0.1:65536", None, false),
            ("127.0.0.1:80:90", None, false),
            ("127.0.0.1:8o", None, false),
            ("127.0.0.1:000080", None, false),
            ("user@localhost", None, false),
            ("localhost/path", None, false),
            ("::1", None, false),
            ("[::1", None, false),
            ("[::1]x", None, false),
            ("[::1]:x", None, false),
            ("[localhost]", None, false),
            ("[127.0.0.1]", None, false),
            ("[::ffff:10.0.0.1]", None, false),
            ("2130706433", None, false),
            ("0x7f.0.0.1", None, false),
            ("127.1", None, false),
        ];
        for (host, bound, want) in table {
            assert_eq!(is_loopback_host(host, *bound), *want, "{host:?} {bound:?}");
        }
    }

    #[test]
    fn origin_forms() {
        for ok in [
            None,
            Some("http://localhost"),
            Some("http://localhost:3000"),
            Some("HTTPS://LOCALHOST."),
            Some("http://127.0.0.1:8080"),
            Some("https://[::1]:8443"),
            Some("http://[::ffff:127.0.0.1]"),
        ] {
            assert!(loopback_origin(ok), "{ok:?}");
        }
        for no in [
            "null",
            "",
            "localhost",
            "http://evil.example",
            "https://localhost.evil.example",
            "http://localhost/",
            "http://localhost:3000/x",
            "http://user@localhost",
            "file://localhost",
            "ws://localhost",
            "chrome-extension://abc",
            "http://10.0.0.1",
            "http://0.0.0.0:8080",
        ] {
            assert!(!loopback_origin(Some(no)), "{no:?}");
        }
    }

    #[test]
    fn only_loopback_without_public() {
        for ok in [
            "127.0.0.1:0",
            "127.1.2.3:80",
            "[::1]:8080",
            "[::ffff:127.0.0.1]:1",
        ] {
            assert!(check_bind_addr(ok.parse().unwrap(), false).is_ok(), "{ok}");
        }
        for no in [
            "0.0.0.0:0",
            "[::]:0",
            "192.168.1.5:80",
            "[::ffff:10.0.0.1]:1",
            "8.8.8.8:1",
        ] {
            let e = check_bind_addr(no.parse().unwrap(), false).unwrap_err();
            assert!(e.contains("--public") && e.contains("/__sim"), "{e}");
            assert!(check_bind_addr(no.parse().unwrap(), true).is_ok(), "{no}");
        }
    }
}
