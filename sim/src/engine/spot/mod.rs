//! The spot and margin engine: the family's records ([`store`]), matching, fills and margin
//! ([`engine`]), risk control ([`risk`]), the wallet's records ([`wallet`]) and the family's
//! error codes ([`errors`]).

pub(crate) mod engine;
pub(crate) mod errors;
pub(crate) mod risk;
pub(crate) mod store;
pub(crate) mod wallet;
