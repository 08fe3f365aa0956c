//! The choice of a socket's dialect ([`Dialect`]), made once per connection: the one place
//! that names both families' dialects (so the trait's module imports neither of them).

use crate::types::Family;
use crate::ws::protocol::Dialect;
use crate::ws::spot::SpotDialect;
use crate::ws::swap::SwapDialect;

/// The dialect of `family`'s socket.
pub(crate) fn dialect(family: Family) -> &'static dyn Dialect {
    match family {
        Family::Spot => &SpotDialect,
        Family::Swap => &SwapDialect,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ws::event::{AuthCause, ReplyError};

    /// Each family's dialect and its rules: the channel limit, code 5, code 8.
    #[test]
    fn the_dialects_rules() {
        let code = |c: i64| ReplyError {
            code: Some(c),
            message: None,
        };
        let spot = dialect(Family::Spot);
        assert_eq!(spot.family(), Family::Spot);
        assert_eq!(spot.max_channels(), None);
        assert!(!spot.already_subscribed(&code(5)));
        assert_eq!(spot.auth_refusal_cause(&code(8)), None);
        let swap = dialect(Family::Swap);
        assert_eq!(swap.family(), Family::Swap);
        assert_eq!(swap.max_channels(), Some(crate::ws::MAX_SWAP_CHANNELS));
        assert!(swap.already_subscribed(&code(5)));
        assert!(!swap.already_subscribed(&code(2)));
        assert_eq!(
            swap.auth_refusal_cause(&code(8)),
            Some(AuthCause::Permission)
        );
        assert_eq!(swap.auth_refusal_cause(&code(3)), None);
        // The auth frames: spot sends the timestamp as a string, swap as a number.
        assert_eq!(
            spot.auth(1, "k", 5, "s"),
            r#"{"id":1,"method":"server.auth","params":["k","5","s"]}"#
        );
        assert_eq!(
            swap.auth(1, "k", 5, "s"),
            r#"{"apikey":"k","event":"server.auth","id":1,"signature":"s","timestamp":5}"#
        );
    }
}
