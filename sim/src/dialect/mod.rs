//! The dialects, above the engine and the drivers: how clients speak to the exchange. The
//! spot v3 and swap v2 REST families ([`spot`], [`swap`], over the request and response values
//! of [`wire`] and the route tables of [`route`]), both websockets ([`ws`]) and the control API
//! ([`control`]).

pub(crate) mod control;
pub(crate) mod route;
pub(crate) mod spot;
pub(crate) mod swap;
pub(crate) mod wire;
pub(crate) mod ws;
