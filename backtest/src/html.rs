//! The report as a self-contained HTML page: inline SVG plots (equity, inventory, price with
//! the fills), the figures in a table, no script and nothing fetched, so it opens in a
//! browser with no network. Several runs side by side share the plots (one colour each).
//!
//! Coordinates are computed in decimals and written with one decimal place.

use rust_decimal::Decimal;
use serde_json::Value;

use crate::Report;

const W: i64 = 900;
const H: i64 = 220;
const PAD: i64 = 40;
const COLOURS: [&str; 4] = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"];

/// A figure of the table, read from a report.
type Figure = dyn Fn(&Report) -> String;

/// One series of points `(time_ms, value)`.
type Series = Vec<(i64, Decimal)>;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn dec(v: &Value) -> Option<Decimal> {
    v.as_str()?.parse().ok()
}

fn series(r: &Report, list: &str, pick: impl Fn(&Value) -> Option<Decimal>) -> Series {
    r.json[list]
        .as_array()
        .map(|rows| {
            rows.iter()
                .filter_map(|row| Some((row["time_ms"].as_i64()?, pick(row)?)))
                .collect()
        })
        .unwrap_or_default()
}

/// The plot of `lines` (one per run) and `marks` (fills: time, price, buy) in one SVG.
fn plot(title: &str, lines: &[(usize, Series)], marks: &[(usize, i64, Decimal, bool)]) -> String {
    let points = lines
        .iter()
        .flat_map(|(_, s)| s.iter().copied())
        .chain(marks.iter().map(|m| (m.1, m.2)));
    let (mut t0, mut t1, mut v0, mut v1) = (i64::MAX, i64::MIN, Decimal::MAX, Decimal::MIN);
    for (t, v) in points {
        t0 = t0.min(t);
        t1 = t1.max(t);
        v0 = v0.min(v);
        v1 = v1.max(v);
    }
    let mut svg = format!(
        "<figure><figcaption>{}</figcaption><svg xmlns=\"http://www.w3.org/2000/svg\" \
         viewBox=\"0 0 {W} {H}\" width=\"{W}\" height=\"{H}\">\
         <rect x=\"0\" y=\"0\" width=\"{W}\" height=\"{H}\" fill=\"#fff\" stroke=\"#ccc\"/>",
        esc(title)
    );
    if t0 > t1 {
        svg.push_str("<text x=\"20\" y=\"30\">no data</text></svg></figure>");
        return svg;
    }
    let span_t = Decimal::from((t1 - t0).max(1));
    let span_v = if v1 > v0 { v1 - v0 } else { Decimal::ONE };
    let inner_w = Decimal::from(W - 2 * PAD);
    let inner_h = Decimal::from(H - 2 * PAD);
    let x = |t: i64| (Decimal::from(PAD) + Decimal::from(t - t0) / span_t * inner_w).round_dp(1);
    let y = |v: Decimal| (Decimal::from(H - PAD) - (v - v0) / span_v * inner_h).round_dp(1);
    svg.push_str(&format!(
        "<text x=\"4\" y=\"{}\" font-size=\"11\">{}</text><text x=\"4\" y=\"{}\" \
         font-size=\"11\">{}</text>",
        PAD,
        v1.round_dp(6).normalize(),
        H - PAD,
        v0.round_dp(6).normalize()
    ));
    for (run, s) in lines {
        let colour = COLOURS.get(run % COLOURS.len()).copied().unwrap_or("#000");
        let pts: Vec<String> = s
            .iter()
            .map(|(t, v)| format!("{},{}", x(*t), y(*v)))
            .collect();
        svg.push_str(&format!(
            "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"1.5\" points=\"{}\"/>",
            pts.join(" ")
        ));
    }
    for (run, t, p, buy) in marks {
        let colour = if *buy { "#2ca02c" } else { "#d62728" };
        let shape = if *run == 0 { "circle" } else { "rect" };
        if shape == "circle" {
            svg.push_str(&format!(
                "<circle cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"{colour}\"/>",
                x(*t),
                y(*p)
            ));
        } else {
            svg.push_str(&format!(
                "<rect x=\"{}\" y=\"{}\" width=\"5\" height=\"5\" fill=\"{colour}\"/>",
                x(*t) - Decimal::TWO,
                y(*p) - Decimal::TWO
            ));
        }
    }
    svg.push_str("</svg></figure>");
    svg
}

/// The page of one or more runs, each with its label.
pub fn page(runs: &[(&str, &Report)]) -> String {
    let mut html = String::from(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Backtest report</title>\
         <style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}\
         td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}\
         th:first-child,td:first-child{text-align:left}figure{margin:1em 0}</style></head><body>\
         <h1>Backtest report</h1>",
    );
    // The figures, one column per run.
    let rows: [(&str, &Figure); 13] = [
        ("fill model", &|r| {
            r.json["fill_model"].as_str().unwrap_or("").to_owned()
        }),
        ("markets", &|r| r.json["markets"].to_string()),
        ("start (ms)", &|r| r.json["start_ms"].to_string()),
        ("end (ms)", &|r| r.json["end_ms"].to_string()),
        ("P&L total", &|r| {
            r.json["pnl"]["total"].as_str().unwrap_or("").to_owned()
        }),
        ("realized", &|r| {
            r.json["pnl"]["realized"].as_str().unwrap_or("").to_owned()
        }),
        ("unrealized", &|r| {
            r.json["pnl"]["unrealized"]
                .as_str()
                .unwrap_or("")
                .to_owned()
        }),
        ("fees", &|r| {
            r.json["pnl"]["fees"].as_str().unwrap_or("").to_owned()
        }),
        ("rebates", &|r| {
            r.json["pnl"]["rebates"].as_str().unwrap_or("").to_owned()
        }),
        ("max drawdown", &|r| {
            r.json["max_drawdown"].as_str().unwrap_or("").to_owned()
        }),
        ("turnover", &|r| {
            r.json["turnover"].as_str().unwrap_or("").to_owned()
        }),
        ("fills", &|r| r.json["fills_count"].to_string()),
        ("fill ratio", &|r| {
            r.json["fill_ratio"].as_str().unwrap_or("-").to_owned()
        }),
    ];
    html.push_str("<table><tr><th></th>");
    for (i, (label, _)) in runs.iter().enumerate() {
        let colour = COLOURS.get(i % COLOURS.len()).copied().unwrap_or("#000");
        html.push_str(&format!("<th style=\"color:{colour}\">{}</th>", esc(label)));
    }
    html.push_str("</tr>");
    for (name, f) in rows {
        html.push_str(&format!("<tr><td>{}</td>", esc(name)));
        for (_, r) in runs {
            html.push_str(&format!("<td>{}</td>", esc(&f(r))));
        }
        html.push_str("</tr>");
    }
    html.push_str("</table>");
    let equity: Vec<(usize, Series)> = runs
        .iter()
        .enumerate()
        .map(|(i, (_, r))| (i, series(r, "equity", |row| dec(&row["equity"]))))
        .collect();
    html.push_str(&plot("Equity (USDT)", &equity, &[]));
    // Spot pairs (inventory in the base currency), then perpetuals (net contracts).
    let listed = |key: &str| -> Vec<(String, &'static str)> {
        runs.first()
            .and_then(|(_, r)| r.json[key].as_array().cloned())
            .unwrap_or_default()
            .iter()
            .filter_map(|m| m.as_str().map(str::to_owned))
            .map(|m| {
                (
                    m,
                    if key == "markets" {
                        "base"
                    } else {
                        "contracts"
                    },
                )
            })
            .collect()
    };
    let mut markets = listed("markets");
    markets.extend(listed("swap_markets"));
    for (m, unit) in &markets {
        let held: Vec<(usize, Series)> = runs
            .iter()
            .enumerate()
            .map(|(i, (_, r))| (i, series(r, "inventory", |row| dec(&row[*unit][m]))))
            .collect();
        let what = if *unit == "base" {
            "base"
        } else {
            "net contracts"
        };
        html.push_str(&plot(&format!("Inventory of {m} ({what})"), &held, &[]));
        let mids: Vec<(usize, Series)> = runs
            .first()
            .map(|(_, r)| vec![(0, series(r, "prices", |row| dec(&row["mid"][m])))])
            .unwrap_or_default();
        let mut marks = Vec::new();
        for (i, (_, r)) in runs.iter().enumerate() {
            for f in r.json["fills"].as_array().into_iter().flatten() {
                if f["market"].as_str() != Some(m) {
                    continue;
                }
                if let (Some(t), Some(p)) = (f["time_ms"].as_i64(), dec(&f["price"])) {
                    marks.push((i, t, p, f["side"] == "buy"));
                }
            }
        }
        html.push_str(&plot(
            &format!("{m}: mid and fills (green buys, red sells)"),
            &mids,
            &marks,
        ));
    }
    html.push_str("</body></html>\n");
    html
}

impl Report {
    /// This run as a self-contained HTML page (see [`page`] for several side by side).
    pub fn to_html(&self) -> String {
        page(&[("run", self)])
    }
}
