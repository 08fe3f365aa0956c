//! Swap trade endpoints.

use crate::catalog::CatalogEntry;

/// Every swap trade endpoint, in documentation order.
pub(crate) static ENTRIES: &[CatalogEntry] = &[];
