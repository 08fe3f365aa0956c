//! Swap account: balances, transfers with spot, positions, margin mode, position margin,
//! leverage, fee rates, bills, funding fees and transfer records (all signed).

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::{check_positive, known_code, private_meta, TransferType};
use crate::catalog::{entry, CatalogEntry, FromParams, ParamMap};
use crate::endpoint::{Endpoint, Meta, Method, Params};
use crate::error::Error;
use crate::json::JsonWriter;

/// Every swap account endpoint, in documentation order.
pub(crate) static ENTRIES: &[CatalogEntry] = &[entry::<TransferRequest>()];

// ---------------------------------------------------------------------------------------------

/// `POST /swap/v2/account/transfer`: moves funds between the spot and swap accounts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransferRequest {
    transfer_type: TransferType,
    currency: String,
    amount: Decimal,
}

impl TransferRequest {
    /// Transfers `amount` of `currency` in direction `transfer_type`.
    pub fn new(transfer_type: TransferType, currency: impl Into<String>, amount: Decimal) -> Self {
        TransferRequest {
            transfer_type,
            currency: currency.into(),
            amount,
        }
    }
}

impl Endpoint for TransferRequest {
    type Output = TransferAck;
    const META: Meta = private_meta("swap.transfer", Method::Post, "/swap/v2/account/transfer");
    fn encode(&self, p: &mut Params) -> Result<(), Error> {
        let kind = known_code("type", self.transfer_type, TransferType::code, |t| {
            matches!(t, TransferType::Unknown(_))
        })?;
        if self.currency.is_empty() {
            return Err(Error::validation("currency", "is required"));
        }
        check_positive("transfer_amount", &self.amount)?;
        let mut w = JsonWriter::new();
        w.begin_object()
            .int("type", kind)
            .str("currency", &self.currency)
            .decimal_string("transfer_amount", &self.amount)
            .end_object();
        p.set_json_body(w);
        Ok(())
    }
}

impl FromParams for TransferRequest {
    fn from_params(p: &mut ParamMap) -> Result<Self, Error> {
        Ok(TransferRequest {
            transfer_type: TransferType::from_code(p.take_int("type")?),
            currency: p.take_str("currency")?,
            amount: p.take_decimal("transfer_amount")?,
        })
    }
}

/// Answer of [`TransferRequest`]: the echoed request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TransferAck {
    /// Direction.
    #[serde(rename = "type")]
    pub transfer_type: TransferType,
    /// Currency.
    #[serde(default, with = "crate::de::string")]
    pub currency: String,
    /// Amount transferred.
    #[serde(with = "crate::de::decimal")]
    pub transfer_amount: Decimal,
}
