//! `digifinex market`: work with `digifinex-market` recordings (`digifinex record`).
//!
//! `market export FILE --format parquet|csv --out DIR` writes one table per record kind,
//! `--format tardis` Tardis.dev's CSV layout, and `market export FILE... --dataset DIR` adds
//! recordings to a partitioned Parquet dataset (`digifinex_export`, behind the `export`
//! feature, off by default).
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
    /// tickers, funding, mark/index, markers) with exact decimals and UTC timestamps, to
    /// Tardis.dev's CSV layout, or adds recordings to a partitioned Parquet dataset.
    Export(ExportArgs),
}

/// The table format.
#[derive(Clone, Copy, ValueEnum)]
enum TableFormat {
    /// Apache Parquet (DECIMAL, TIMESTAMP(MICROS, UTC); snappy).
    Parquet,
    /// CSV with a header row (decimal text, ISO 8601 UTC times).
    Csv,
    /// Tardis.dev's CSV layout: one gzip CSV per exchange, data type, UTC day and symbol.
    Tardis,
}

/// `digifinex market export`.
#[derive(Args)]
struct ExportArgs {
    /// The recording (`digifinex record`; gzip JSON lines): one with --out, one or more with
    /// --dataset.
    #[arg(value_name = "FILE", required = true, num_args = 1..)]
    files: Vec<std::path::PathBuf>,
    /// Output format (with --out).
    #[arg(long, value_enum, required_unless_present = "dataset")]
    format: Option<TableFormat>,
    /// Directory for the tables (created when missing; files in it are replaced).
    #[arg(
        long,
        value_name = "DIR",
        required_unless_present = "dataset",
        conflicts_with = "dataset"
    )]
    out: Option<std::path::PathBuf>,
    /// Adds the recordings to the Hive-partitioned Parquet dataset in DIR (created when
    /// missing; a recording already in it is not added again), or at `s3://bucket/prefix`
    /// (built with the `s3` feature; credentials and endpoint from the AWS_* variables).
    #[arg(long, value_name = "DIR_OR_URL", conflicts_with_all = ["format", "float", "top"])]
    dataset: Option<String>,
    /// Dataset files are closed at about SIZE bytes (K, M, G: powers of 1024; default 128M).
    #[arg(long, value_name = "SIZE", requires = "dataset", value_parser = parse_size)]
    file_size: Option<u64>,
    /// Parquet decimals as DOUBLE (inexact binary floating point) instead of DECIMAL.
    #[arg(long)]
    float: bool,
    /// Books as the best N levels per side in columns (table book_top) instead of one row
    /// per level (1-1000).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1000))]
    top: Option<u16>,
    /// With --format tardis: only these data types, comma-separated Tardis names (trades,
    /// incremental_book_L2, book_snapshot_25, book_snapshot_5, quotes, derivative_ticker;
    /// default all).
    #[arg(long, value_name = "LIST", conflicts_with = "dataset")]
    data_types: Option<String>,
}

/// `128M`, `64K`, `4096`: bytes, with K, M or G for powers of 1024; 1 KiB to 64 GiB.
fn parse_size(text: &str) -> Result<u64, String> {
    let (digits, unit) = match text.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => text.split_at(i),
        None => (text, ""),
    };
    let shift = match unit {
        "" => 0,
        "K" | "k" => 10,
        "M" | "m" => 20,
        "G" | "g" => 30,
        _ => return Err(format!("{text:?}: a size is digits and K, M or G (128M)")),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("{text:?}: a size is digits and K, M or G (128M)"))?;
    let bytes = n
        .checked_mul(1u64 << shift)
        .filter(|b| (1 << 10..=64 << 30).contains(b))
        .ok_or_else(|| format!("{text:?} is out of range (1K to 64G)"))?;
    Ok(bytes)
}

pub(crate) fn run(args: MarketArgs) -> Result<(), Failure> {
    match args.command {
        MarketCommand::Export(a) => export(a),
    }
}

/// What an export read and skipped, on stderr.
#[cfg(feature = "export")]
fn report(file: &std::path::Path, s: &digifinex_export::Summary) {
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
    if s.unfit_records > 0 {
        skipped.push(format!(
            "{} record(s) with a value that does not fit DECIMAL(38, 18)",
            s.unfit_records
        ));
    }
    if s.bad_names > 0 {
        skipped.push(format!(
            "{} record(s) whose market name cannot be a file name",
            s.bad_names
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
        file.display(),
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
             reconnect) not in {}",
            s.dropped_deltas,
            if s.tables
                .iter()
                .any(|t| t.name.contains("incremental_book_L2"))
            {
                "incremental_book_L2"
            } else {
                "book_top"
            }
        );
    }
}

#[cfg(feature = "export")]
fn nothing_exported(file: &std::path::Path) -> Failure {
    Failure::Other(format!(
        "nothing could be exported from {}: the recording is damaged before its first record",
        file.display()
    ))
}

#[cfg(feature = "export")]
fn export(a: ExportArgs) -> Result<(), Failure> {
    use digifinex_export::{Format, Options};
    if let Some(dataset) = &a.dataset {
        return export_dataset(&a.files, dataset, a.file_size);
    }
    let (Some(format), Some(out)) = (a.format, &a.out) else {
        return Err(Failure::Usage(
            "give --format and --out, or --dataset".to_owned(),
        ));
    };
    let [file] = a.files.as_slice() else {
        return Err(Failure::Usage(
            "--out takes one FILE (--dataset takes several)".to_owned(),
        ));
    };
    let s = match format {
        TableFormat::Tardis => {
            if a.float || a.top.is_some() {
                return Err(Failure::Usage(
                    "--float and --top do not apply to --format tardis".to_owned(),
                ));
            }
            let mut opts = digifinex_export::tardis::Options::default();
            if let Some(list) = &a.data_types {
                opts.data_types = list
                    .parse()
                    .map_err(|e| Failure::Usage(format!("--data-types: {e}")))?;
            }
            digifinex_export::tardis::export(file, out, &opts)
        }
        TableFormat::Parquet | TableFormat::Csv => {
            if a.data_types.is_some() {
                return Err(Failure::Usage(
                    "--data-types applies only to --format tardis".to_owned(),
                ));
            }
            let opts = Options {
                format: if matches!(format, TableFormat::Parquet) {
                    Format::Parquet
                } else {
                    Format::Csv
                },
                float: a.float,
                top: a.top.map(usize::from),
            };
            digifinex_export::export(file, out, &opts)
        }
    }
    .map_err(|e| Failure::Other(format!("{}: {e}", file.display())))?;
    for t in &s.tables {
        eprintln!("{:<11} {:>10} rows  {}", t.name, t.rows, t.path.display());
    }
    report(file, &s);
    if s.records == 0 && s.damaged() {
        return Err(nothing_exported(file));
    }
    Ok(())
}

/// `--dataset DIR`: each recording added in turn.
#[cfg(feature = "export")]
fn export_dataset(
    files: &[std::path::PathBuf],
    dataset: &str,
    file_size: Option<u64>,
) -> Result<(), Failure> {
    use digifinex_export::dataset;
    let opts = dataset::Options {
        file_bytes: file_size.unwrap_or(dataset::FILE_BYTES),
        ..dataset::Options::default()
    };
    let store = crate::storage::open(dataset, "--dataset")?;
    let dir = store.location();
    let done =
        dataset::export(files, store.as_ref(), &opts).map_err(|e| Failure::Other(e.to_string()))?;
    let mut empty = None;
    for e in &done {
        if e.already {
            eprintln!(
                "{}: already in {} (sha256 {}): nothing written",
                e.input.display(),
                dir,
                e.sha256
            );
            continue;
        }
        let rows: u64 = e.summary.tables.iter().map(|t| t.rows).sum();
        eprintln!(
            "{}: {} file(s), {rows} row(s) added to {}",
            e.input.display(),
            e.summary.tables.len(),
            dir
        );
        report(&e.input, &e.summary);
        if e.summary.records == 0 && e.summary.damaged() && empty.is_none() {
            empty = Some(e.input.clone());
        }
    }
    match empty {
        Some(file) => Err(nothing_exported(&file)),
        None => Ok(()),
    }
}

#[cfg(not(feature = "export"))]
fn export(a: ExportArgs) -> Result<(), Failure> {
    let _ = (
        a.files,
        a.format,
        a.out,
        a.dataset,
        a.file_size,
        a.float,
        a.top,
    );
    Err(Failure::Usage(
        "this digifinex was built without the `export` feature (cargo build -p digifinex-cli \
         --features export)"
            .to_owned(),
    ))
}
