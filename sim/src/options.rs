//! The simulator's command-line options, one definition for both ways of running it:
//! `digifinex-sim [OPTIONS]` (this crate's binary) and `digifinex sim [OPTIONS]` (the CLI,
//! which hands its arguments to [`SimOptions::parse`]). An option added here exists in both.

use std::net::SocketAddr;
use std::path::PathBuf;

use rust_decimal::Decimal;

use crate::config::SimConfig;
use crate::host::check_bind_addr;
use crate::market::{Latency, MarketConfig};

/// The options and what they do, one per line pair, for `--help` of both commands.
pub const OPTIONS_HELP: &str = concat!(
    "  --addr ADDR   listen address (default 127.0.0.1:0, any free port); only loopback\n",
    "                addresses unless --public is given\n",
    "  --public      allow a non-loopback --addr: the control API (/__sim) is unauthenticated\n",
    "                and hands out API secrets to anyone who can reach the port\n",
    "  --seed N      seed of every generated value: books, ids, keys (default 1)\n",
    "  --no-limits   turn off request-weight limits, bans and withdrawal frequency limits\n",
    "  --still       no order flow: every market stands still around its configured price\n",
    "                (the synthetic maker's fixed quotes) and moves only with your orders\n",
    "  --market FILE replay a recorded market (digifinex record): the books, trades, tickers,\n",
    "                mark and index prices and funding of the pairs and instruments it names\n",
    "                come from FILE; the clock starts at the recording's start\n",
    "  --speed X     run the clock X times faster than real time (default 1): the order flow,\n",
    "                or the replay with --market, lives X seconds each second\n",
    "  --latency L   time from an order request to the matching engine: none (default),\n",
    "                fixed:MS, uniform:MIN:MAX or lognormal:MEDIAN:SIGMA (drawn from the seed)\n",
    "  --synthetic SPOT,SWAP\n",
    "                add SPOT synthetic spot pairs (s0_usdt, s1_usdt, ...) and SWAP synthetic\n",
    "                swap instruments (S0USDTPERP, ...) beside the default markets, each with the\n",
    "                order flow (unless --still), prices drawn from the seed; at most 5000 each\n",
    "  -h, --help    print this help"
);

/// The most synthetic spot pairs, and the most synthetic swap instruments, `--synthetic` adds.
pub const MAX_SYNTHETIC: usize = 5_000;

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed {
    /// Run the simulator with these options.
    Run(SimOptions),
    /// Print the help ([`OPTIONS_HELP`]) and exit.
    Help,
}

/// The simulator's command-line options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimOptions {
    /// `--addr ADDR`: the listen address (`127.0.0.1:0` by default, any free port).
    pub addr: SocketAddr,
    /// `--public`: allow a non-loopback `--addr`.
    pub public: bool,
    /// `--seed N`: the seed of every generated value (1 by default).
    pub seed: u64,
    /// `--no-limits`: turn off request-weight limits, bans and withdrawal frequency limits.
    pub no_limits: bool,
    /// `--still`: no order flow (still markets).
    pub still: bool,
    /// `--market FILE`: a recording to replay.
    pub market: Option<PathBuf>,
    /// `--speed X`: replay speed (times real time; 1 by default).
    pub speed: Decimal,
    /// `--latency L`: the order latency model.
    pub latency: Latency,
    /// `--synthetic SPOT,SWAP`: synthetic spot pairs and swap instruments added beside the
    /// default markets (`(0, 0)` by default; see [`SimConfig::with_synthetic`]).
    pub synthetic: (usize, usize),
}

impl Default for SimOptions {
    fn default() -> Self {
        let config = SimConfig::default();
        SimOptions {
            addr: config.addr,
            public: false,
            seed: config.seed,
            no_limits: false,
            still: false,
            market: None,
            speed: Decimal::ONE,
            latency: Latency::None,
            synthetic: (0, 0),
        }
    }
}

impl SimOptions {
    /// Reads the arguments after the command's name: `--addr ADDR` (or `--addr=ADDR`),
    /// `--public`, `--seed N` (or `--seed=N`), `--no-limits`, `--still`, `--market FILE`,
    /// `--speed X`, `--latency L`, `--synthetic SPOT,SWAP`, `-h`/`--help`. The error is one
    /// line naming the argument.
    pub fn parse<I, S>(args: I) -> Result<Parsed, String>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut options = SimOptions::default();
        let mut args = args.into_iter().map(Into::into);
        while let Some(arg) = args.next() {
            let (name, inline) = match arg.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (n.to_owned(), Some(v.to_owned())),
                _ => (arg.clone(), None),
            };
            let mut value = |what: &str| {
                inline
                    .clone()
                    .or_else(|| args.next())
                    .ok_or_else(|| format!("{name} needs {what}"))
            };
            match name.as_str() {
                "--addr" => {
                    let text = value("an address like 127.0.0.1:8080")?;
                    options.addr = text.parse().map_err(|_| {
                        format!("--addr {text:?} is not an address like 127.0.0.1:8080")
                    })?;
                }
                "--seed" => {
                    let text = value("an integer")?;
                    options.seed = text
                        .parse()
                        .map_err(|_| format!("--seed {text:?} is not an integer (0 or more)"))?;
                }
                "--market" => options.market = Some(PathBuf::from(value("a recording file")?)),
                "--speed" => {
                    let text = value("a number")?;
                    options.speed = crate::num::parse_dec(&text)
                        .filter(|s| *s > Decimal::ZERO && *s <= Decimal::from(1_000_000))
                        .ok_or_else(|| {
                            format!("--speed {text:?} is not a number above 0 and at most 1000000")
                        })?;
                }
                "--latency" => {
                    let text = value("a model like fixed:50")?;
                    options.latency = text.parse().map_err(|e| format!("--latency {e}"))?;
                }
                "--synthetic" => {
                    let text = value("two counts like 716,300")?;
                    options.synthetic = parse_synthetic(&text).ok_or_else(|| {
                        format!(
                            "--synthetic {text:?} is not two counts like 716,300 (spot pairs, \
                             swap instruments; each at most {MAX_SYNTHETIC})"
                        )
                    })?;
                }
                "--public" | "--no-limits" | "--still" | "-h" | "--help" if inline.is_some() => {
                    return Err(format!("{name} takes no value"));
                }
                "--public" => options.public = true,
                "--still" => options.still = true,
                "--no-limits" => options.no_limits = true,
                "-h" | "--help" => return Ok(Parsed::Help),
                _ => return Err(format!("unknown argument {arg:?}")),
            }
        }
        Ok(Parsed::Run(options))
    }

    /// The simulator's configuration; refuses a non-loopback address without `--public`.
    pub fn config(&self) -> Result<SimConfig, String> {
        if check_bind_addr(self.addr, self.public).is_err() {
            return Err(format!(
                "refusing to listen on {}: it is not a loopback address, and the simulator's \
                 control API (/__sim) is unauthenticated and hands out API secrets to anyone who \
                 can reach it; pass --public to listen there anyway",
                self.addr
            ));
        }
        let config = SimConfig {
            clock_speed: self.speed,
            addr: self.addr,
            allow_public_bind: self.public,
            market: self
                .market
                .as_ref()
                .map(|m| MarketConfig::file(m).with_speed(self.speed)),
            latency: self.latency.clone(),
            ..SimConfig::with_seed(self.seed)
        }
        .with_synthetic(self.synthetic.0, self.synthetic.1);
        let config = if self.still {
            config.without_flow()
        } else {
            config
        };
        Ok(if self.no_limits {
            config.without_limits()
        } else {
            config
        })
    }
}

/// `SPOT,SWAP`: two counts of at most [`MAX_SYNTHETIC`].
fn parse_synthetic(text: &str) -> Option<(usize, usize)> {
    let (spot, swap) = text.split_once(',')?;
    let count = |t: &str| {
        t.trim()
            .parse::<usize>()
            .ok()
            .filter(|n| *n <= MAX_SYNTHETIC)
    };
    Some((count(spot)?, count(swap)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> SimOptions {
        match SimOptions::parse(args.iter().copied()) {
            Ok(Parsed::Run(o)) => o,
            other => panic!("{args:?}: {other:?}"),
        }
    }

    #[test]
    fn every_option_in_both_spellings() {
        assert_eq!(run(&[]), SimOptions::default());
        let o = run(&[
            "--addr",
            "127.0.0.1:8080",
            "--seed",
            "7",
            "--no-limits",
            "--public",
        ]);
        assert_eq!(o.addr, "127.0.0.1:8080".parse().unwrap());
        assert_eq!(o.seed, 7);
        assert!(o.no_limits && o.public);
        assert_eq!(run(&["--addr=127.0.0.1:9", "--seed=3"]).seed, 3);
        assert_eq!(SimOptions::parse(["--help"]), Ok(Parsed::Help));
        assert_eq!(SimOptions::parse(["-h"]), Ok(Parsed::Help));
    }

    #[test]
    fn errors_name_the_argument() {
        let e = |args: &[&str]| SimOptions::parse(args.iter().copied()).unwrap_err();
        assert_eq!(e(&["--seed"]), "--seed needs an integer");
        assert_eq!(
            e(&["--seed", "x"]),
            "--seed \"x\" is not an integer (0 or more)"
        );
        assert_eq!(
            e(&["--addr", "here"]),
            "--addr \"here\" is not an address like 127.0.0.1:8080"
        );
        assert_eq!(e(&["--limits"]), "unknown argument \"--limits\"");
        assert_eq!(e(&["--public=yes"]), "--public takes no value");
    }

    #[test]
    fn market_speed_and_latency() {
        let o = run(&[
            "--market",
            "rec.jsonl.gz",
            "--speed=60",
            "--latency",
            "uniform:10:30",
        ]);
        assert_eq!(o.market, Some(PathBuf::from("rec.jsonl.gz")));
        assert_eq!(o.speed, Decimal::from(60));
        let c = o.config().unwrap();
        assert_eq!(
            c.market,
            Some(MarketConfig::file("rec.jsonl.gz").with_speed(Decimal::from(60)))
        );
        assert_eq!(
            c.latency,
            Latency::Uniform {
                min_ms: 10,
                max_ms: 30
            }
        );
        let e = |args: &[&str]| SimOptions::parse(args.iter().copied()).unwrap_err();
        assert_eq!(
            e(&["--speed", "0"]),
            "--speed \"0\" is not a number above 0 and at most 1000000"
        );
        assert!(e(&["--latency", "slow"]).starts_with("--latency \"slow\" is not none"));
        // Without a recording the clock runs faster, and the flow with it.
        let fast = run(&["--speed", "2"]).config().unwrap();
        assert_eq!((fast.clock_speed, fast.market), (Decimal::TWO, None));
        assert_eq!(run(&[]).config().unwrap().market, None);
        let still = run(&["--still"]).config().unwrap();
        assert!(still.markets.iter().all(|m| m.flow.is_none()));
        assert!(run(&[]).config().unwrap().markets[0].flow.is_some());
        assert_eq!(e(&["--still=1"]), "--still takes no value");
    }

    #[test]
    fn synthetic_markets_beside_the_default_ones() {
        assert_eq!(run(&[]).synthetic, (0, 0));
        let o = run(&["--synthetic", "716,300"]);
        assert_eq!(o.synthetic, (716, 300));
        assert_eq!(run(&["--synthetic=3,0"]).synthetic, (3, 0));
        assert_eq!(run(&["--synthetic", "5000,5000"]).synthetic, (5000, 5000));
        let c = run(&["--synthetic", "3,2", "--seed", "9"])
            .config()
            .unwrap();
        let defaults = SimConfig::default();
        assert_eq!(c.markets.len(), defaults.markets.len() + 3);
        assert_eq!(
            c.swap_instruments.len(),
            defaults.swap_instruments.len() + 2
        );
        let added: Vec<String> = c.markets[defaults.markets.len()..]
            .iter()
            .map(|m| m.symbol())
            .collect();
        assert_eq!(added, ["s0_usdt", "s1_usdt", "s2_usdt"]);
        let ids: Vec<&str> = c.swap_instruments[defaults.swap_instruments.len()..]
            .iter()
            .map(|i| i.instrument_id.as_str())
            .collect();
        assert_eq!(ids, ["S0USDTPERP", "S1USDTPERP"]);
        assert!(c.markets.iter().rev().take(3).all(|m| m.flow.is_some()));
        // The same seed gives the same markets; another seed other prices.
        let again = run(&["--synthetic=3,2", "--seed=9"]).config().unwrap();
        assert_eq!(again.markets, c.markets);
        assert_eq!(again.swap_instruments, c.swap_instruments);
        let other = run(&["--synthetic=3,2", "--seed=10"]).config().unwrap();
        assert_ne!(other.markets, c.markets);
        let still = run(&["--synthetic", "3,2", "--still"]).config().unwrap();
        assert!(still.markets.iter().all(|m| m.flow.is_none()));
        assert!(still.swap_instruments.iter().all(|i| i.flow.is_none()));
        let e = |args: &[&str]| SimOptions::parse(args.iter().copied()).unwrap_err();
        let refused = "is not two counts like 716,300 (spot pairs, swap instruments; each at \
                       most 5000)";
        for bad in ["5001,0", "0,5001", "716", "a,b", "-1,2", "1,2,3", ""] {
            assert_eq!(
                e(&["--synthetic", bad]),
                format!("--synthetic {bad:?} {refused}")
            );
        }
        assert_eq!(
            e(&["--synthetic"]),
            "--synthetic needs two counts like 716,300"
        );
    }

    #[test]
    fn config_follows_the_options() {
        let o = run(&["--no-limits", "--seed", "5"]);
        let c = o.config().unwrap();
        assert_eq!(c.seed, 5);
        assert!(!c.limits.weight_enabled && !c.limits.risk_control);
        assert!(run(&[]).config().unwrap().limits.weight_enabled);
        let public = run(&["--addr", "0.0.0.0:0"]);
        assert!(public.config().unwrap_err().contains("--public"));
        let allowed = run(&["--addr", "0.0.0.0:0", "--public"]).config().unwrap();
        assert!(allowed.allow_public_bind);
    }
}
