//! Swap and copy-trading error codes and their messages.

use crate::json::J;

/// A swap error: code and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwapErr {
    /// Code from the spec's table.
    pub code: i64,
    /// Message.
    pub msg: String,
}

/// Result of a handler: the `data` value, or an error.
pub type R = Result<J, SwapErr>;

/// The error `code` with its table message.
pub fn err(code: i64) -> SwapErr {
    SwapErr {
        code,
        msg: message(code).to_owned(),
    }
}

/// The error `code` with a specific message.
pub fn err_msg(code: i64, msg: impl Into<String>) -> SwapErr {
    SwapErr {
        code,
        msg: msg.into(),
    }
}

/// Message of each documented code.
pub fn message(code: i64) -> &'static str {
    match code {
        400001 => "required parameter missing",
        400002 => "parameter invalid",
        400003 => "IP not authenticated",
        400004 => "signature mismatch",
        400005 => "permission denied",
        400006 => "invalid API key",
        401001 => "leverage cannot change while unfinished orders exist",
        401002 => "position open value above maximum",
        401003 => "balance insufficient",
        401004 => "instrument trading suspended",
        401005 => "instrument under maintenance",
        401006 => "order size below minimum",
        401007 => "price precision invalid",
        401008 => "instrument denies market orders",
        401009 => "market order unsupported when the opposite side is empty",
        401010 => "price above maximum buy price",
        401011 => "price below minimum sell price",
        401012 => "position too small to close",
        401013 => "order price inferior to liquidation price",
        401014 => "batch order or cancel count over 20",
        401015 => "action requires isolated position mode",
        401016 => "cannot do this while a position exists",
        401017 => "cannot do this while no position exists",
        401018 => "transfer request not allowed",
        401019 => "transfer in risk control",
        403001 => "frequency limit reached",
        403002 => "forbidden after repeated requests past the frequency limit",
        404001 => "expert locked, cannot open positions",
        404002 => "contract in settlement",
        404003 => "copy contract offline or nonexistent",
        404004 => "positions exist, margin mode or leverage cannot change",
        404005 => "copy orders exist, margin mode or leverage cannot change",
        404006 => "a pending order exists, margin mode or leverage cannot change",
        404007 => "order price deviates too far from mark price",
        404008 => "take-profit price must be above the order price",
        404009 => "take-profit price must be below the order price",
        404010 => "stop-loss price must be below the order price",
        404011 => "stop-loss price must be above the order price",
        404012 => "order already executed to close the position",
        404013 => "order does not exist",
        404014 => "take-profit already exists",
        404015 => "stop-loss already exists",
        _ => "system error",
    }
}
