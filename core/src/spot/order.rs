//! PLACEHOLDER

use crate::catalog::CatalogEntry;

pub(crate) const ENTRIES: &[CatalogEntry] = &[];
