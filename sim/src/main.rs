//! `digifinex-sim [--addr ADDR] [--seed N] [--no-limits]`: runs the simulator until killed and
//! prints its base URLs and a funded demo key pair.

use digifinex_sim::{Sim, SimConfig};
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut config = SimConfig::default();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--addr" => match args.next().and_then(|v| v.parse().ok()) {
                Some(addr) => config.addr = addr,
                None => return usage("--addr needs an address like 127.0.0.1:8080"),
            },
            "--seed" => match args.next().and_then(|v| v.parse().ok()) {
                Some(seed) => config.seed = seed,
                None => return usage("--seed needs an integer"),
            },
            "--no-limits" => config = config.without_limits(),
            "-h" | "--help" => {
                println!("usage: digifinex-sim [--addr ADDR] [--seed N] [--no-limits]");
                return ExitCode::SUCCESS;
            }
            other => return usage(&format!("unknown argument {other}")),
        }
    }
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
    eprintln!("error: {msg}\nusage: digifinex-sim [--addr ADDR] [--seed N] [--no-limits]");
    ExitCode::from(2)
}
