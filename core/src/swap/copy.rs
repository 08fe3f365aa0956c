//! Swap copy endpoints.

use crate::catalog::CatalogEntry;

/// Every swap copy endpoint, in documentation order.
pub(crate) static ENTRIES: &[CatalogEntry] = &[];
