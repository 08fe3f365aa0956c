//! `digifinex-sim [--addr ADDR] [--public] [--seed N] [--no-limits]`: runs the simulator until
//! killed and prints its base URLs and a funded demo key pair.
//!
//! A non-loopback `--addr` (such as `0.0.0.0:8080`) is refused unless `--public` is given: the
//! control API under `/__sim` is unauthenticated and hands out API secrets.

use digifinex_sim::server::check_bind_addr;
use digifinex_sim::{Sim, SimConfig};
use std::process::ExitCode;

const USAGE: &str = "usage: digifinex-sim [--addr ADDR] [--public] [--seed N] [--no-limits]

  --addr ADDR   listen address (default 127.0.0.1:0, any free port); only loopback
                addresses unless --public is given
  --public      allow a non-loopback --addr: the control API (/__sim) is unauthenticated
                and hands out API secrets to anyone who can reach the port
  --seed N      seed of every generated value (books, ids, keys)
  --no-limits   turn off request-weight limits, bans and withdrawal frequency limits";

fn main() -> ExitCode {
    let mut config = SimConfig::default();
    let mut public = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--addr" => match args.next().and_then(|v| v.parse().ok()) {
                Some(addr) => config.addr = addr,
                None => return usage("--addr needs an address like 127.0.0.1:8080"),
            },
            "--public" => public = true,
            "--seed" => match args.next().and_then(|v| v.parse().ok()) {
                Some(seed) => config.seed = seed,
                None => return usage("--seed needs an integer"),
            },
            "--no-limits" => config = config.without_limits(),
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => return usage(&format!("unknown argument {other}")),
        }
    }
    if let Err(msg) = check_bind_addr(config.addr, public) {
        return usage(&msg);
    }
    config.allow_public_bind = public;
    let sim = match Sim::start(config) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let demo = sim.control().demo_account();
    println!("spot_base_url: {}", sim.spot_base_url());
    println!("swap_base_url: {}", sim.swap_base_url());
    println!("control_url: {}", sim.control_url());
    println!("demo_account: {}", demo.account);
    println!("demo_key: {}", demo.keys.key);
    println!("demo_secret: {}", demo.keys.secret);
    sim.wait();
    ExitCode::SUCCESS
}

fn usage(msg: &str) -> ExitCode {
    eprintln!("error: {msg}\n{USAGE}");
    ExitCode::from(2)
}
