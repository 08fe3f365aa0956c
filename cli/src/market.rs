//! `digifinex market`: work with `digifinex-market` recordings (`digifinex record`).
//!
//! `market export FILE --format parquet|csv --out DIR` writes one table per record kind
//! (`digifinex_export`, behind the `export` feature, on by default).
//!
//! DESIGN (damaged recordings): what is intact is exported; what was skipped (bad lines, a cut
//! end, unknown kinds) is counted on stderr. The exit code is 0 when anything was exported or
//! nothing was damaged, 1 when a damaged recording gave nothing (or the file is not a recording,
//! or writing failed).

use clap::{Args, Subcommand, ValueEnum};

use crate::Failure;

/// `digifinex market`.
#[derive(Args)]
pub(crate) struct MarketArgs {
    #[command(subcommand)]
    command: MarketCommand,
}

#[derive(Subcommand)]
enum MarketCommand {
    /// Exports a recording to one Parquet or CSV table per record kind (book levels, trades,
    /// tickers, funding, mark/index, markers) with exact decimals and UTC timestamps.
    Export(ExportArgs),
}

/// The table format.
#[derive(Clone, Copy, ValueEnum)]
enum TableFormat {
    /// Apache Parquet (DECIMAL, TIMESTAMP(MICROS, UTC); snappy).
    Parquet,
    /// CSV with a header row (decimal text, ISO 8601 UTC times).
    Csv,
}

/// `digifinex market export`.
#[derive(Args)]
struct ExportArgs {
    /// The recording (`digifinex record`; gzip JSON lines).
    file: std::path::PathBuf,
    /// Table format.
    #[arg(long, value_enum)]
    format: TableFormat,
    /// Directory for the tables (created when missing; files in it are replaced).
    #[arg(long, value_name = "DIR")]
    out: std::path::PathBuf,
    /// Parquet decimals as DOUBLE (inexact binary floating point) instead of DECIMAL.
    #[arg(long)]
    float: bool,
    /// Books as the best N levels per side in columns (table book_top) instead of one row
    /// per level (1-1000).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1000))]
    top: Option<u16>,
}

pub(crate) fn run(args: MarketArgs) -> Result<(), Failure> {
    match args.command {
        MarketCommand::Export(a) => export(a),
    }
}

#[cfg(feature = "export")]
fn export(a: ExportArgs) -> Result<(), Failure> {
    use digifinex_export::{Format, Options};
    let opts = Options {
        format: match a.format {
            TableFormat::Parquet => Format::Parquet,
            TableFormat::Csv => Format::Csv,
        },
        float: a.float,
        top: a.top.map(usize::from),
    };
    let s = digifinex_export::export(&a.file, &a.out, &opts)
        .map_err(|e| Failure::Other(format!("{}: {e}", a.file.display())))?;
    for t in &s.tables {
        eprintln!("{:<11} {:>10} rows  {}", t.name, t.rows, t.path.display());
    }
    let mut skipped = Vec::new();
    if s.bad_lines > 0 {
        skipped.push(format!("{} bad line(s)", s.bad_lines));
    }
    if s.unknown_kinds > 0 {
        skipped.push(format!("{} record(s) of unknown kinds", s.unknown_kinds));
    }
    if s.bad_times > 0 {
        skipped.push(format!(
            "{} record(s) with a time out of range",
            s.bad_times
        ));
    }
    if s.truncated {
        skipped.push(
            "the rest of the file from a cut line or an unfinished or damaged gzip member"
                .to_owned(),
        );
    }
    eprintln!(
        "exported {} record(s) from {}{}",
        s.records,
        a.file.display(),
        if skipped.is_empty() {
            String::new()
        } else {
            format!("; skipped {}", skipped.join(", "))
        }
    );
    for m in &s.messages {
        eprintln!("  {m}");
    }
    if s.repeated_trades > 0 {
        eprintln!(
            "{} repeated trade(s) (same id) written once",
            s.repeated_trades
        );
    }
    if s.dropped_deltas > 0 {
        eprintln!(
            "{} depth delta(s) without a valid book (before a snapshot, or after a resync or \
             reconnect) not in book_top",
            s.dropped_deltas
        );
    }
    if s.records == 0 && s.damaged() {
        return Err(Failure::Other(format!(
            "nothing could be exported from {}: the recording is damaged before its first record",
            a.file.display()
        )));
    }
    Ok(())
}

#[cfg(not(feature = "export"))]
fn export(a: ExportArgs) -> Result<(), Failure> {
    let _ = (a.file, a.format, a.out, a.float, a.top);
    Err(Failure::Usage(
        "this digifinex was built without the `export` feature (cargo build -p digifinex-cli \
         --features export)"
            .to_owned(),
    ))
}
