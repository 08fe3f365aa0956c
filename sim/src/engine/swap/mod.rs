//! The perpetual swap engine: the family's records ([`store`]), matching, positions and
//! margin ([`engine`]), funding, liquidations and triggers as time passes ([`timed`]), copy
//! trading's records ([`copy`]), request weights ([`limits`]) and the error codes
//! ([`errors`]).

pub(crate) mod copy;
pub(crate) mod engine;
pub(crate) mod errors;
pub(crate) mod limits;
pub(crate) mod store;
pub(crate) mod timed;
