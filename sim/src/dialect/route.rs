//! Route tables: how the spot family ([`crate::dialect::spot::ROUTES`]), the swap family
//! ([`crate::dialect::swap::ROUTES`]) and the control API ([`crate::dialect::control::http::ROUTES`]) find the
//! handler of a request.
//!
//! Each table has one [`Route`] per endpoint: method, path template, weight, [`Auth`] and
//! handler function. The family's `handle` looks the request up with [`find`] and does the rest
//! once for every endpoint (weights and bans, authentication, parameters, the answer's shape).
//!
//! **To add an endpoint: add one row to the family's table and write its handler** (a function
//! from the family's context to its result, in the file of its resource group). Nothing else
//! lists endpoints; the swap `public/api_weight` answer is read from its table.
//!
//! Path templates are matched segment by segment, exactly (case-sensitive, no trailing slash
//! unless the family trims it first):
//! - a literal segment matches itself;
//! - `{market}` matches `spot` or `margin` (the spot family's market segment);
//! - `{name}` matches any one non-empty segment;
//! - a last segment `{name*}` matches the non-empty rest of the path, slashes included.

use crate::engine::accounts::Permission;
use http::Method;

/// Who may call a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Auth {
    /// No authentication.
    Public,
    /// Signed, needs the read permission.
    Read,
    /// Signed, needs the trade permission.
    Trade,
    /// Signed, needs the withdraw permission.
    Withdraw,
}

impl Auth {
    /// The permission the route needs (`None`: public).
    pub fn permission(self) -> Option<Permission> {
        match self {
            Auth::Public => None,
            Auth::Read => Some(Permission::Read),
            Auth::Trade => Some(Permission::Trade),
            Auth::Withdraw => Some(Permission::Withdraw),
        }
    }
}

/// One endpoint: method, path template, weight, authentication and handler.
#[derive(Debug, Clone)]
pub struct Route<H: 'static> {
    /// HTTP method.
    pub method: Method,
    /// Path template (see the module doc).
    pub path: &'static str,
    /// Request weight.
    pub weight: u32,
    /// Who may call it.
    pub auth: Auth,
    /// The handler.
    pub handler: H,
}

/// The values a template's placeholders matched, by placeholder name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Captures<'p> {
    items: Vec<(&'static str, &'p str)>,
}

impl<'p> Captures<'p> {
    /// The value of placeholder `name` (`market` for `{market}`, `id` for `{id}` or `{id*}`).
    pub fn get(&self, name: &str) -> Option<&'p str> {
        self.items.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
    }
}

/// The outcome of looking a request up in a table.
#[derive(Debug)]
pub enum Match<'t, 'p, H: 'static> {
    /// The route of this method and path, with the placeholders' values.
    Found(&'t Route<H>, Captures<'p>),
    /// The path is known, for another method (the first route of that path).
    WrongMethod(&'t Route<H>),
    /// No route has this path.
    Unknown,
}

/// Looks `method` and `path` up in `table` (first matching row wins).
pub fn find<'t, 'p, H>(table: &'t [Route<H>], method: &Method, path: &'p str) -> Match<'t, 'p, H> {
    let mut other = None;
    for route in table {
        let mut caps = Captures::default();
        if matches(route.path, path, &mut caps) {
            if route.method == *method {
                return Match::Found(route, caps);
            }
            other = other.or(Some(route));
        }
    }
    match other {
        Some(route) => Match::WrongMethod(route),
        None => Match::Unknown,
    }
}

/// Whether `path` matches `template`, recording the placeholders' values.
fn matches<'p>(template: &'static str, path: &'p str, caps: &mut Captures<'p>) -> bool {
    let (Some(mut t), Some(mut p)) = (template.strip_prefix('/'), path.strip_prefix('/')) else {
        return false;
    };
    loop {
        let (tseg, trest) = split(t);
        let placeholder = tseg.strip_prefix('{').and_then(|s| s.strip_suffix('}'));
        if let Some(name) = placeholder.and_then(|n| n.strip_suffix('*')) {
            if p.is_empty() || trest.is_some() {
                return false;
            }
            caps.items.push((name, p));
            return true;
        }
        let (pseg, prest) = split(p);
        let ok = match placeholder {
            Some("market") => pseg == "spot" || pseg == "margin",
            Some(_) => !pseg.is_empty(),
            None => tseg == pseg,
        };
        if !ok {
            return false;
        }
        if let Some(name) = placeholder {
            caps.items.push((name, pseg));
        }
        match (trest, prest) {
            (None, None) => return true,
            (Some(a), Some(b)) => {
                t = a;
                p = b;
            }
            _ => return false,
        }
    }
}

/// The first segment and, when there is a `/`, the text after it.
fn split(s: &str) -> (&str, Option<&str>) {
    match s.split_once('/') {
        Some((a, b)) => (a, Some(b)),
        None => (s, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Vec<Route<u8>> {
        let r = |method, path, handler| Route {
            method,
            path,
            weight: 1,
            auth: Auth::Public,
            handler,
        };
        vec![
            r(Method::GET, "/ping", 1),
            r(Method::POST, "/{market}/order/new", 2),
            r(Method::POST, "/withdraw/cancel/{id}", 3),
            r(Method::DELETE, "/keys/{key*}", 4),
            r(Method::GET, "/clock", 5),
            r(Method::POST, "/clock", 6),
        ]
    }

    fn found(method: Method, path: &str) -> Option<(u8, Vec<(&'static str, &str)>)> {
        match find(&table(), &method, path) {
            Match::Found(r, c) => Some((r.handler, c.items)),
            _ => None,
        }
    }

    #[test]
    fn literals_placeholders_and_tails() {
        assert_eq!(found(Method::GET, "/ping"), Some((1, vec![])));
        assert_eq!(
            found(Method::POST, "/margin/order/new"),
            Some((2, vec![("market", "margin")]))
        );
        assert_eq!(
            found(Method::POST, "/withdraw/cancel/17"),
            Some((3, vec![("id", "17")]))
        );
        assert_eq!(
            found(Method::DELETE, "/keys/a/b"),
            Some((4, vec![("key", "a/b")]))
        );
        assert_eq!(found(Method::POST, "/clock"), Some((6, vec![])));
        for path in [
            "/ping/",
            "ping",
            "/Ping",
            "/futures/order/new",
            "/spot/order/new/",
            "/spot/order",
            "/withdraw/cancel/",
            "/withdraw/cancel/1/2",
            "/keys/",
            "/keys",
            "",
            "/",
        ] {
            assert!(
                matches!(find(&table(), &Method::GET, path), Match::Unknown),
                "{path}"
            );
        }
        assert!(matches!(
            find(&table(), &Method::GET, "/spot/order/new"),
            Match::WrongMethod(r) if r.handler == 2
        ));
        assert!(matches!(
            find(&table(), &Method::DELETE, "/clock"),
            Match::WrongMethod(r) if r.handler == 5
        ));
    }
}
