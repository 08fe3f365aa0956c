//! What a connection is subscribed to: channels, their targets, and the text form the CLI
//! reads (`spot:depth:btc_usdt`, `swap:ticker:BTCUSDTPERP`, `spot:order`).

use serde::Serialize;

use crate::types::Family;

/// A stream channel (`docs/protocol.md`, "Subscribing").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Channel {
    /// Public trades (spot, swap).
    Trades,
    /// Order book (spot, swap).
    Depth,
    /// One market's ticker (spot, swap).
    Ticker,
    /// Every market's ticker (spot, swap).
    AllTicker,
    /// Own orders (spot, swap; private).
    Order,
    /// Own algo orders (spot; private).
    OrderAlgo,
    /// Own balances (spot; private).
    Balance,
    /// Trade-price candles (`cur_candle`, swap).
    Candle,
    /// Index price (swap).
    IndexPrice,
    /// Mark price (swap).
    MarkPrice,
    /// Mark-price candles (swap).
    MarkCandle,
    /// Price band (swap).
    PriceRange,
    /// Funding rate (`fund_rate`, swap).
    FundRate,
    /// Estimated settlement price (swap, dated contracts).
    EstimatedSettlePrice,
    /// Own account balances (swap; private).
    Account,
    /// Own positions (swap; private).
    Position,
}

/// What a channel takes as its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    /// One market (symbol or instrument), required.
    Market,
    /// Nothing.
    None,
    /// Optional (a spot balance's currency; none means all).
    Optional,
}

impl Channel {
    /// Every channel, for parsing.
    const ALL: [Channel; 16] = [
        Channel::Trades,
        Channel::Depth,
        Channel::Ticker,
        Channel::AllTicker,
        Channel::Order,
        Channel::OrderAlgo,
        Channel::Balance,
        Channel::Candle,
        Channel::IndexPrice,
        Channel::MarkPrice,
        Channel::MarkCandle,
        Channel::PriceRange,
        Channel::FundRate,
        Channel::EstimatedSettlePrice,
        Channel::Account,
        Channel::Position,
    ];

    /// The wire name (`depth`, `cur_candle`, `fund_rate`): `<name>.subscribe`, `<name>.update`.
    pub fn wire(self) -> &'static str {
        match self {
            Channel::Trades => "trades",
            Channel::Depth => "depth",
            Channel::Ticker => "ticker",
            Channel::AllTicker => "all_ticker",
            Channel::Order => "order",
            Channel::OrderAlgo => "order_algo",
            Channel::Balance => "balance",
            Channel::Candle => "cur_candle",
            Channel::IndexPrice => "index_price",
            Channel::MarkPrice => "mark_price",
            Channel::MarkCandle => "mark_candle",
            Channel::PriceRange => "price_range",
            Channel::FundRate => "fund_rate",
            Channel::EstimatedSettlePrice => "estimated_settle_price",
            Channel::Account => "account",
            Channel::Position => "position",
        }
    }

    /// The channel of a wire name.
    pub fn from_wire(name: &str) -> Option<Channel> {
        Channel::ALL
            .into_iter()
            .find(|c| c.wire().eq_ignore_ascii_case(name))
            .or(match name {
                "candle" => Some(Channel::Candle),
                _ => None,
            })
    }

    /// Whether the family offers the channel.
    pub fn in_family(self, family: Family) -> bool {
        use Channel::*;
        match family {
            Family::Spot => matches!(
                self,
                Trades | Depth | Ticker | AllTicker | Order | OrderAlgo | Balance
            ),
            Family::Swap => !matches!(self, OrderAlgo | Balance),
        }
    }

    /// Whether the channel needs an authenticated connection.
    pub fn is_private(self) -> bool {
        matches!(
            self,
            Channel::Order
                | Channel::OrderAlgo
                | Channel::Balance
                | Channel::Account
                | Channel::Position
        )
    }

    fn target(self, family: Family) -> Target {
        match (family, self) {
            (_, Channel::AllTicker) | (Family::Swap, Channel::Account) => Target::None,
            // DESIGN: the private channels take markets (spot also currencies); without one
            // the subscribe is sent with none (`[]` on spot, no `instrument_id` on swap),
            // which the venue's documents leave unknown (`docs/protocol.md`, "Decisions where
            // the venue is unknown") and the simulator reads as "all".
            (_, Channel::Order | Channel::OrderAlgo | Channel::Balance | Channel::Position) => {
                Target::Optional
            }
            _ => Target::Market,
        }
    }
}

/// The swap depth levels the venue accepts (docs/protocol.md, "Books, gaps and recovery").
pub const SWAP_DEPTH_LEVELS: [u16; 3] = [10, 20, 100];

/// The swap depth level used when none is given.
pub const DEFAULT_SWAP_DEPTH_LEVEL: u16 = 20;

/// The swap candle granularities (docs/protocol.md, "Subscribing").
pub const GRANULARITIES: [&str; 9] = ["1m", "5m", "15m", "30m", "1h", "4h", "12h", "1d", "1w"];

/// One subscription: a channel of a family, its target, and the depth level or candle
/// granularity where the channel takes one. Targets are kept upper case (`BTC_USDT`,
/// `BTCUSDTPERP`), the spelling both sockets document.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Subscription {
    /// The socket.
    pub family: Family,
    /// The channel.
    pub channel: Channel,
    /// Symbol (spot), instrument (swap) or currency (spot balance); `None` for channels
    /// without one (`all_ticker`, swap `account`) and for a private channel over every market.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Swap depth level (10, 20 or 100).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<u16>,
    /// Swap candle granularity (`1m`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub granularity: Option<String>,
}

/// Why a subscription or a request on a connection was refused locally.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SubscribeError {
    /// The text or the values do not name a subscription.
    Invalid {
        /// The subscription as given.
        given: String,
        /// What is wrong.
        reason: String,
    },
    /// A swap connection holds at most [`crate::ws::MAX_SWAP_CHANNELS`] channels; the venue
    /// kills the socket (and every stream on it) on the next one, so it is refused here.
    TooManyChannels {
        /// The limit.
        limit: usize,
    },
    /// A private channel on a connection without credentials.
    NeedsCredentials {
        /// The channel.
        channel: Channel,
    },
    /// The subscription belongs to the other socket.
    WrongFamily {
        /// The connection's family.
        connection: Family,
    },
    /// The stream the handle belongs to is gone.
    Closed,
}

impl std::fmt::Display for SubscribeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SubscribeError::Invalid { given, reason } => {
                write!(f, "invalid subscription `{given}`: {reason}")
            }
            SubscribeError::TooManyChannels { limit } => write!(
                f,
                "a swap connection holds at most {limit} channels (the venue drops the socket on the next)"
            ),
            SubscribeError::NeedsCredentials { channel } => write!(
                f,
                "channel `{}` is private: the connection needs credentials",
                channel.wire()
            ),
            SubscribeError::WrongFamily { connection } => {
                write!(f, "the subscription is not for the {connection} socket")
            }
            SubscribeError::Closed => f.write_str("the stream is closed"),
        }
    }
}

impl std::error::Error for SubscribeError {}

impl Subscription {
    /// A subscription, checked: the channel must exist in the family, a market channel needs a
    /// target, swap depth takes a level (default 20) and candles a granularity (default `1m`).
    pub fn new(
        family: Family,
        channel: Channel,
        target: Option<&str>,
    ) -> Result<Self, SubscribeError> {
        let given = || {
            format!(
                "{family}:{}{}",
                channel.wire(),
                target.map(|t| format!(":{t}")).unwrap_or_default()
            )
        };
        let invalid = |reason: &str| SubscribeError::Invalid {
            given: given(),
            reason: reason.to_owned(),
        };
        if !channel.in_family(family) {
            return Err(invalid(&format!(
                "{family} has no `{}` channel",
                channel.wire()
            )));
        }
        let target = target.map(str::trim).filter(|t| !t.is_empty());
        let target = match (channel.target(family), target) {
            (Target::Market, None) => return Err(invalid("the channel needs a market")),
            (Target::None, Some(_)) => return Err(invalid("the channel takes no target")),
            (_, t) => t.map(str::to_ascii_uppercase),
        };
        if let Some(t) = &target {
            if !t
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
            {
                return Err(invalid("a target is letters, digits, `_` and `-`"));
            }
        }
        let level = (family == Family::Swap && channel == Channel::Depth)
            .then_some(DEFAULT_SWAP_DEPTH_LEVEL);
        let granularity =
            (matches!(channel, Channel::Candle | Channel::MarkCandle)).then(|| "1m".to_owned());
        Ok(Subscription {
            family,
            channel,
            target,
            level,
            granularity,
        })
    }

    /// A spot subscription (`Subscription::spot(Channel::Depth, "btc_usdt")`).
    pub fn spot(channel: Channel, symbol: &str) -> Result<Self, SubscribeError> {
        Subscription::new(Family::Spot, channel, Some(symbol))
    }

    /// A swap subscription (`Subscription::swap(Channel::Ticker, "BTCUSDTPERP")`).
    pub fn swap(channel: Channel, instrument: &str) -> Result<Self, SubscribeError> {
        Subscription::new(Family::Swap, channel, Some(instrument))
    }

    /// The same swap depth subscription at another level (10, 20 or 100).
    pub fn with_level(mut self, level: u16) -> Result<Self, SubscribeError> {
        if self.level.is_none() || !SWAP_DEPTH_LEVELS.contains(&level) {
            return Err(SubscribeError::Invalid {
                given: self.to_string(),
                reason: format!("a level is 10, 20 or 100 on swap depth only, not {level}"),
            });
        }
        self.level = Some(level);
        Ok(self)
    }

    /// The same candle subscription at another granularity (`5m`).
    pub fn with_granularity(mut self, granularity: &str) -> Result<Self, SubscribeError> {
        if self.granularity.is_none() || !GRANULARITIES.contains(&granularity) {
            return Err(SubscribeError::Invalid {
                given: self.to_string(),
                reason: format!(
                    "a granularity is one of {} on candles only",
                    GRANULARITIES.join(" ")
                ),
            });
        }
        self.granularity = Some(granularity.to_owned());
        Ok(self)
    }

    /// Whether this subscription receives the push of `channel` for `target`.
    pub(crate) fn matches(&self, channel: Channel, target: Option<&str>) -> bool {
        self.channel == channel
            && match (&self.target, target) {
                (Some(a), Some(b)) => a.eq_ignore_ascii_case(b),
                (None, _) => true,
                (Some(_), None) => false,
            }
    }
}

/// `FAMILY:CHANNEL[:TARGET[:LEVEL|GRANULARITY]]`, as the CLI prints and reads it.
impl std::fmt::Display for Subscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.family, self.channel.wire())?;
        if let Some(t) = &self.target {
            write!(f, ":{t}")?;
        }
        if let Some(l) = self.level {
            write!(f, ":{l}")?;
        }
        if let Some(g) = &self.granularity {
            write!(f, ":{g}")?;
        }
        Ok(())
    }
}

/// Reads `FAMILY:CHANNEL[:TARGET[:LEVEL|GRANULARITY]]`: `spot:depth:btc_usdt`,
/// `swap:depth:BTCUSDTPERP:100`, `swap:cur_candle:BTCUSDTPERP:5m`, `spot:order`,
/// `swap:account`. A private channel may go without a target (`spot:order`: every market).
impl std::str::FromStr for Subscription {
    type Err = SubscribeError;

    fn from_str(text: &str) -> Result<Self, SubscribeError> {
        let invalid = |reason: &str| SubscribeError::Invalid {
            given: text.to_owned(),
            reason: reason.to_owned(),
        };
        let mut parts = text.split(':');
        let family = match parts.next().map(str::to_ascii_lowercase).as_deref() {
            Some("spot") => Family::Spot,
            Some("swap") => Family::Swap,
            _ => return Err(invalid("the family is `spot` or `swap`")),
        };
        let channel = parts
            .next()
            .and_then(Channel::from_wire)
            .ok_or_else(|| invalid("unknown channel"))?;
        let target = parts.next();
        let extra = parts.next();
        if parts.next().is_some() {
            return Err(invalid("too many `:` parts"));
        }
        let sub = Subscription::new(family, channel, target)?;
        match extra {
            None => Ok(sub),
            Some(x) if sub.level.is_some() => {
                let level = x
                    .parse()
                    .map_err(|_| invalid("the level is 10, 20 or 100"))?;
                sub.with_level(level)
            }
            Some(x) if sub.granularity.is_some() => sub.with_granularity(x),
            Some(_) => Err(invalid("the channel takes no level or granularity")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_print() {
        let s: Subscription = "spot:depth:btc_usdt".parse().unwrap();
        assert_eq!(
            s,
            Subscription {
                family: Family::Spot,
                channel: Channel::Depth,
                target: Some("BTC_USDT".into()),
                level: None,
                granularity: None
            }
        );
        assert_eq!(s.to_string(), "spot:depth:BTC_USDT");
        let s: Subscription = "swap:depth:BTCUSDTPERP".parse().unwrap();
        assert_eq!(s.level, Some(20));
        assert_eq!(s.to_string(), "swap:depth:BTCUSDTPERP:20");
        let s: Subscription = "swap:depth:BTCUSDTPERP:100".parse().unwrap();
        assert_eq!(s.level, Some(100));
        let s: Subscription = "swap:cur_candle:BTCUSDTPERP:5m".parse().unwrap();
        assert_eq!(s.granularity.as_deref(), Some("5m"));
        assert_eq!("swap:account".parse::<Subscription>().unwrap().target, None);
        assert_eq!("spot:balance".parse::<Subscription>().unwrap().target, None);
        assert_eq!("spot:order".parse::<Subscription>().unwrap().target, None);
        assert_eq!(
            "spot:all_ticker".parse::<Subscription>().unwrap().channel,
            Channel::AllTicker
        );
    }

    #[test]
    fn refusals() {
        for bad in [
            "spot:depth",
            "spot:mark_price:BTC_USDT",
            "swap:balance:USDT",
            "swap:depth:BTCUSDTPERP:30",
            "swap:ticker:BTCUSDTPERP:20",
            "spot:nope:x",
            "fx:depth:x",
            "swap:all_ticker:X",
            "spot:depth:btc usdt",
            "spot:depth:a:b:c",
        ] {
            assert!(
                matches!(
                    bad.parse::<Subscription>(),
                    Err(SubscribeError::Invalid { .. })
                ),
                "{bad}"
            );
        }
    }
}
