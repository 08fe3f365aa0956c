//! `digifinex-sim [--addr ADDR] [--public] [--seed N] [--no-limits] [--still]`
//! `[--market FILE [--speed X]] [--latency L] [--synthetic SPOT,SWAP]`: runs the simulator until
//! killed and prints its base URLs and a funded demo key pair.
//!
//! The options are [`digifinex_sim::options`], shared with `digifinex sim` (the same simulator
//! behind the `digifinex` command line): an option exists in both or in neither.
//!
//! A non-loopback `--addr` (such as `0.0.0.0:8080`) is refused unless `--public` is given: the
//! control API under `/__sim` is unauthenticated and hands out API secrets.

use digifinex_sim::options::{Parsed, SimOptions, OPTIONS_HELP};
use digifinex_sim::Sim;
use std::process::ExitCode;

fn usage() -> String {
    format!(
        "usage: digifinex-sim [OPTIONS]\n\n{OPTIONS_HELP}\n\n`digifinex sim` (the command line \
         tool, crate digifinex-cli) runs the same simulator with the same options."
    )
}

fn main() -> ExitCode {
    let options = match SimOptions::parse(std::env::args().skip(1)) {
        Ok(Parsed::Run(o)) => o,
        Ok(Parsed::Help) => {
            println!("{}", usage());
            return ExitCode::SUCCESS;
        }
        Err(msg) => return fail(&msg),
    };
    let config = match options.config() {
        Ok(c) => c,
        Err(msg) => return fail(&msg),
    };
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
    println!("spot_ws_url: {}", sim.spot_ws_url());
    println!("swap_ws_url: {}", sim.swap_ws_url());
    println!("demo_account: {}", demo.account);
    println!("demo_key: {}", demo.keys.key);
    println!("demo_secret: {}", demo.keys.secret);
    sim.wait();
    ExitCode::SUCCESS
}

fn fail(msg: &str) -> ExitCode {
    eprintln!("error: {msg}\n{}", usage());
    ExitCode::from(2)
}
