//! `call --format table`: aligned columns for the answers people read at a terminal.
//!
//! The layout is chosen by endpoint (not by sniffing the JSON), so a table always has the same
//! columns for the same command: order books (`/v3/order_book`, `/swap/v2/public/depth`),
//! tickers (`/v3/ticker`, `/swap/v2/public/ticker`, `/swap/v2/public/tickers`), balances
//! (`/v3/spot/assets`, `/v3/margin/assets`, `/swap/v2/account/balance`), orders (the spot and
//! margin order lists and detail, the swap open/history orders and order info) and swap
//! positions. Values are the typed result's JSON values: decimals as exact plain text, a
//! missing value as `-`.

use digifinex_core::catalog::CatalogEntry;
use digifinex_core::Decimal;
use serde_json::Value;

/// How one column gets its text from a row.
#[derive(Clone, Copy)]
pub(crate) enum Cell {
    /// The member as it is.
    Key(&'static str),
    /// The member through a naming function (status codes).
    Named(&'static str, fn(&Value) -> Option<&'static str>),
}

/// Where the rows are in the answer.
#[derive(Clone, Copy)]
pub(crate) enum Rows {
    /// The answer is the array of rows, or one row.
    Top,
    /// The member holds the array of rows, or one row.
    Member(&'static str),
}

/// The table of one endpoint.
#[derive(Clone, Copy)]
pub(crate) enum Layout {
    /// `SIDE PRICE AMOUNT`: asks from the highest down, then bids from the best down.
    Book,
    /// Rows and columns.
    Rows {
        rows: Rows,
        columns: &'static [(&'static str, Cell)],
    },
}

const SPOT_TICKER: &[(&str, Cell)] = &[
    ("SYMBOL", Cell::Key("symbol")),
    ("LAST", Cell::Key("last")),
    ("BID", Cell::Key("buy")),
    ("ASK", Cell::Key("sell")),
    ("HIGH", Cell::Key("high")),
    ("LOW", Cell::Key("low")),
    // A percent (`-1.91` is -1.91 %), unlike the swap ticker's fraction.
    ("CHANGE_%", Cell::Key("change")),
    ("VOLUME", Cell::Key("vol")),
];

const SWAP_TICKER: &[(&str, Cell)] = &[
    ("INSTRUMENT", Cell::Key("instrument_id")),
    ("LAST", Cell::Key("last")),
    ("BID", Cell::Key("best_bid")),
    ("ASK", Cell::Key("best_ask")),
    ("MARK", Cell::Key("mark_price")),
    ("HIGH", Cell::Key("high_24h")),
    ("LOW", Cell::Key("low_24h")),
    ("CHANGE", Cell::Key("price_change_percent")),
    ("VOLUME", Cell::Key("volume_24h")),
];

const SPOT_BALANCE: &[(&str, Cell)] = &[
    ("CURRENCY", Cell::Key("currency")),
    ("FREE", Cell::Key("free")),
    ("TOTAL", Cell::Key("total")),
];

const SWAP_BALANCE: &[(&str, Cell)] = &[
    ("CURRENCY", Cell::Key("currency")),
    ("EQUITY", Cell::Key("equity")),
    ("AVAILABLE", Cell::Key("avail_balance")),
    ("MARGIN", Cell::Key("margin")),
    ("FROZEN", Cell::Key("frozen_margin")),
    ("UNREALIZED_PNL", Cell::Key("unrealized_pnl")),
];

const SPOT_ORDER: &[(&str, Cell)] = &[
    ("ORDER_ID", Cell::Key("order_id")),
    ("SYMBOL", Cell::Key("symbol")),
    ("SIDE", Cell::Key("type")),
    ("PRICE", Cell::Key("price")),
    ("AMOUNT", Cell::Key("amount")),
    ("FILLED", Cell::Key("executed_amount")),
    ("AVG_PRICE", Cell::Key("avg_price")),
    ("STATUS", Cell::Named("status", spot_status)),
];

const SWAP_ORDER: &[(&str, Cell)] = &[
    ("ORDER_ID", Cell::Key("order_id")),
    ("INSTRUMENT", Cell::Key("instrument_id")),
    ("SIDE", Cell::Named("type", swap_side)),
    ("PRICE", Cell::Key("price")),
    ("SIZE", Cell::Key("size")),
    ("FILLED", Cell::Key("filled_qty")),
    ("AVG_PRICE", Cell::Key("price_avg")),
    ("STATE", Cell::Named("state", swap_state)),
];

const SWAP_POSITION: &[(&str, Cell)] = &[
    ("INSTRUMENT", Cell::Key("instrument_id")),
    ("SIDE", Cell::Key("side")),
    ("POSITION", Cell::Key("position")),
    ("AVG_COST", Cell::Key("avg_cost")),
    ("MARK", Cell::Key("mark_price")),
    ("LEVERAGE", Cell::Key("leverage")),
    ("MODE", Cell::Key("margin_mode")),
    ("LIQ_PRICE", Cell::Key("liquidation_price")),
    ("UNREALIZED_PNL", Cell::Key("unrealized_pnl")),
];

fn spot_status(v: &Value) -> Option<&'static str> {
    Some(match v.as_i64()? {
        0 => "open",
        1 => "partial",
        2 => "filled",
        3 => "cancelled",
        4 => "partial-cancelled",
        _ => return None,
    })
}

fn swap_side(v: &Value) -> Option<&'static str> {
    Some(match v.as_i64()? {
        1 => "open_long",
        2 => "open_short",
        3 => "close_long",
        4 => "close_short",
        _ => return None,
    })
}

fn swap_state(v: &Value) -> Option<&'static str> {
    Some(match v.as_i64()? {
        0 => "open",
        1 => "partial",
        2 => "filled",
        -1 => "canceled",
        _ => return None,
    })
}

/// The table layout of an endpoint, when it has one.
pub(crate) fn layout(entry: &CatalogEntry) -> Option<Layout> {
    let rows = |rows, columns| Some(Layout::Rows { rows, columns });
    match entry.meta.display_path().as_str() {
        "/v3/order_book" | "/swap/v2/public/depth" => Some(Layout::Book),
        "/v3/ticker" => rows(Rows::Member("ticker"), SPOT_TICKER),
        "/swap/v2/public/ticker" | "/swap/v2/public/tickers" => rows(Rows::Top, SWAP_TICKER),
        "/v3/spot/assets" | "/v3/margin/assets" => rows(Rows::Member("list"), SPOT_BALANCE),
        "/swap/v2/account/balance" => rows(Rows::Top, SWAP_BALANCE),
        "/v3/{market}/order"
        | "/v3/{market}/order/current"
        | "/v3/{market}/order/history"
        | "/v3/{market}/order/detail" => rows(Rows::Member("data"), SPOT_ORDER),
        "/swap/v2/trade/open_orders"
        | "/swap/v2/trade/history_orders"
        | "/swap/v2/trade/order_info" => rows(Rows::Top, SWAP_ORDER),
        "/swap/v2/account/positions" => rows(Rows::Top, SWAP_POSITION),
        _ => None,
    }
}

/// The table text, one line per row after the header, each line ending in a newline.
pub(crate) fn render(layout: Layout, value: &Value) -> String {
    match layout {
        Layout::Book => render_book(value),
        Layout::Rows { rows, columns } => {
            let items = match rows {
                Rows::Top => as_rows(value),
                Rows::Member(name) => value.get(name).map(as_rows).unwrap_or_default(),
            };
            let header: Vec<String> = columns.iter().map(|(h, _)| (*h).to_owned()).collect();
            let body = items
                .iter()
                .map(|row| {
                    columns
                        .iter()
                        .map(|(_, cell)| cell_text(row, *cell))
                        .collect()
                })
                .collect::<Vec<Vec<String>>>();
            aligned(&header, &body)
        }
    }
}

/// An array's elements, or an object as the only row.
fn as_rows(v: &Value) -> Vec<&Value> {
    match v {
        Value::Array(items) => items.iter().collect(),
        Value::Object(_) => vec![v],
        _ => Vec::new(),
    }
}

fn cell_text(row: &Value, cell: Cell) -> String {
    match cell {
        Cell::Key(key) => text(row.get(key)),
        Cell::Named(key, name) => match row.get(key) {
            Some(v) => name(v).map_or_else(|| text(Some(v)), str::to_owned),
            None => text(None),
        },
    }
}

fn text(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => "-".to_owned(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

fn render_book(value: &Value) -> String {
    let side = |name: &str| -> Vec<(Option<Decimal>, String, String)> {
        let mut levels: Vec<_> = value
            .get(name)
            .and_then(Value::as_array)
            .map(|levels| {
                levels
                    .iter()
                    .map(|l| {
                        let price = text(l.get(0));
                        let amount = text(l.get(1));
                        (price.parse::<Decimal>().ok(), price, amount)
                    })
                    .collect()
            })
            .unwrap_or_default();
        // Highest price first on both sides (a stable sort: unreadable prices keep their place).
        levels.sort_by_key(|l| std::cmp::Reverse(l.0));
        levels
    };
    let header = ["SIDE", "PRICE", "AMOUNT"].map(str::to_owned).to_vec();
    let mut body = Vec::new();
    for (label, name) in [("ask", "asks"), ("bid", "bids")] {
        for (_, price, amount) in side(name) {
            body.push(vec![label.to_owned(), price, amount]);
        }
    }
    aligned(&header, &body)
}

/// Columns separated by two spaces; the first column left-aligned, the others right-aligned
/// (they are numbers or codes), no trailing spaces.
fn aligned(header: &[String], body: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in body {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(header).chain(body.iter().map(Vec::as_slice)) {
        let mut line = String::new();
        for (i, (cell, w)) in row.iter().zip(&widths).enumerate() {
            let pad = w.saturating_sub(cell.chars().count());
            if i == 0 {
                line.push_str(cell);
                line.push_str(&" ".repeat(pad));
            } else {
                line.push_str("  ");
                line.push_str(&" ".repeat(pad));
                line.push_str(cell);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn book_puts_asks_above_bids_highest_first() {
        let v = json!({"asks": [["30015", "0.5"], ["30030", "1"]], "bids": [["29985", "2"]]});
        let t = render(Layout::Book, &v);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "SIDE  PRICE  AMOUNT");
        assert_eq!(lines[1], "ask   30030       1");
        assert_eq!(lines[2], "ask   30015     0.5");
        assert_eq!(lines[3], "bid   29985       2");
    }

    #[test]
    fn rows_name_codes_and_mark_missing_values() {
        let layout = Layout::Rows {
            rows: Rows::Member("data"),
            columns: SPOT_ORDER,
        };
        let v = json!({"data": {"order_id": "a1", "symbol": "btc_usdt", "type": "buy",
            "price": "1.50", "amount": "2", "executed_amount": "0", "status": 3}});
        let t = render(layout, &v);
        let row = t.lines().nth(1).unwrap_or_default();
        assert!(row.starts_with("a1"), "{t}");
        assert!(row.contains("1.50") && row.ends_with("cancelled"), "{t}");
        assert!(row.contains(" - "), "{t}");
    }
}
