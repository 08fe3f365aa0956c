//! Which market: a spot pair or a swap instrument, by index.

/// A spot pair or a swap instrument, by its index in the family's list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    /// A spot (and margin) pair.
    Spot(usize),
    /// A swap instrument.
    Swap(usize),
}
