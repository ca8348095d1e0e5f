//! Wiring only: carry old environment variable names over to the new ones, parse flags, build the configuration, dispatch `replay` or `run`, and turn an
//! error into one line on stderr and exit code 2.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

use denials_exporter::cli::{self, Cli, Command};
use denials_exporter::config::{Config, RunConfig};
use denials_exporter::{logging, memory, replay, run};

fn main() -> ExitCode {
    memory::tune();
    // Before parsing (clap reads one variable a flag) and while there is one thread.
    let environment = cli::env::apply();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) if !error.use_stderr() => error.exit(), // --help, --version
        Err(error) => {
            // One sentence, like every other error: clap's message without its usage block.
            let rendered = error.render().to_string();
            let sentence: Vec<&str> = rendered
                .lines()
                .take_while(|l| !l.trim().is_empty())
                .map(str::trim)
                .collect();
            let _ = writeln!(
                std::io::stderr(),
                "denials-exporter: {} (see --help)",
                sentence.join(" ").trim_start_matches("error: ")
            );
            return ExitCode::from(2);
        }
    };
    let result = match cli.command {
        Command::Replay(args) => logging::init(&args.log).and_then(|()| {
            environment.report();
            let config = Config::from_args(&args.pipeline)?;
            let text = replay::replay(config, &args.files)?;
            replay::print(&text)
        }),
        Command::Run(args) => logging::init(&args.log).and_then(|()| {
            environment.report();
            run::run(RunConfig::from_args(&args)?)
        }),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            let _ = writeln!(std::io::stderr(), "denials-exporter: {error:#}");
            ExitCode::from(2)
        }
    }
}
