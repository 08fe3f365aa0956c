//! Spot error codes and their messages.

use crate::json::J;

/// A spot error: code and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpotErr {
    /// Error code from the spec's table.
    pub code: i64,
    /// Message.
    pub msg: String,
}

/// Result of a handler: the whole response object, or an error.
pub type R = Result<J, SpotErr>;

/// The error `code` with its table message.
pub fn err(code: i64) -> SpotErr {
    SpotErr {
        code,
        msg: message(code).to_owned(),
    }
}

/// The error `code` with a specific message.
pub fn err_msg(code: i64, msg: impl Into<String>) -> SpotErr {
    SpotErr {
        code,
        msg: msg.into(),
    }
}

/// Message of each documented code.
pub fn message(code: i64) -> &'static str {
    match code {
        10001 => "wrong request method",
        10002 => "invalid API key",
        10003 => "signature mismatch",
        10004 => "illegal request parameters",
        10005 => "request frequency limit exceeded",
        10006 => "not authorized for this request",
        10007 => "IP address not whitelisted",
        10008 => "timestamp invalid",
        10009 => "endpoint unknown or ACCESS-KEY missing",
        10011 => "API key expired",
        20002 => "trading of this pair suspended",
        20007 => "price precision error",
        20008 => "amount precision error",
        20009 => "amount below minimum",
        20010 => "cash amount below minimum",
        20011 => "insufficient balance",
        20012 => "invalid trade type",
        20013 => "order not found",
        20014 => "invalid date format",
        20015 => "queried date range exceeds the limit",
        20018 => "API trading banned by the system",
        20019 => "wrong pair symbol",
        20020 => "trading rules violated; temporarily banned",
        20021 => "invalid currency",
        20022 => "end time must be at least the start time",
        20023 => "invalid transfer type",
        20024 => "invalid amount",
        20026 => "transfer amount exceeds balance",
        20030 => "no position on this pair",
        20031 => "batch order limit",
        20033 => "wrong withdrawal id",
        20034 => "withdrawals closed for this currency",
        20035 => "withdrawal amount limit",
        20037 => "address, tag or chain not in the withdrawal management list",
        20038 => "withdrawal address not whitelisted",
        20039 => "cannot cancel in the current status",
        20040 => "withdrawing too often",
        20041 => "daily withdrawal quota exceeded",
        20042 => "pair does not support API trading",
        _ => "system error",
    }
}
