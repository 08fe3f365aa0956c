//! The simulator's command-line options, one definition for both ways of running it:
//! `digifinex-sim [OPTIONS]` (this crate's binary) and `digifinex sim [OPTIONS]` (the CLI,
//! which hands its arguments to [`SimOptions::parse`]). An option added here exists in both.

use std::net::SocketAddr;

use crate::config::SimConfig;
use crate::server::check_bind_addr;

/// The options and what they do, one per line pair, for `--help` of both commands.
pub const OPTIONS_HELP: &str = "\
  --addr ADDR   listen address (default 127.0.0.1:0, any free port); only loopback
                addresses unless --public is given
  --public      allow a non-loopback --addr: the control API (/__sim) is unauthenticated
                and hands out API secrets to anyone who can reach the port
  --seed N      seed of every generated value: books, ids, keys (default 1)
  --no-limits   turn off request-weight limits, bans and withdrawal frequency limits
  -h, --help    print this help";

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
}

impl Default for SimOptions {
    fn default() -> Self {
        let config = SimConfig::default();
        SimOptions {
            addr: config.addr,
            public: false,
            seed: config.seed,
            no_limits: false,
        }
    }
}

impl SimOptions {
    /// Reads the arguments after the command's name: `--addr ADDR` (or `--addr=ADDR`),
    /// `--public`, `--seed N` (or `--seed=N`), `--no-limits`, `-h`/`--help`. The error is one
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
                "--public" | "--no-limits" | "-h" | "--help" if inline.is_some() => {
                    return Err(format!("{name} takes no value"));
                }
                "--public" => options.public = true,
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
            addr: self.addr,
            allow_public_bind: self.public,
            ..SimConfig::with_seed(self.seed)
        };
        Ok(if self.no_limits {
            config.without_limits()
        } else {
            config
        })
    }
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
