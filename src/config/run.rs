//! The checked settings of `run`: the sidecar's flags turned into globs, durations, socket
//! addresses and caps, with the pipeline's [`Config`] inside.
//!
//! Owns every check a `run` flag needs (a glob that parses, an interval that is a positive
//! duration, an address that is one, a telemetry path that is one); the errors are the
//! pipeline config's own ([`ConfigError`]). **Not here:** flag names and defaults
//! ([`crate::cli`]), anything that runs (`crate::run`), the web config file (`crate::web`).
//!
//! Cold: built once at start-up.

use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::time::Duration;

use super::{Config, ConfigError};
use crate::cli::{ReadFrom, RunArgs};

/// Everything `run` needs to know, checked.
#[derive(Debug, Clone)]
pub struct RunConfig {
    pub pipeline: Config,
    /// Globs of the files to follow; never empty once the demo (if any) has started.
    pub paths: Vec<String>,
    /// `--demo`: write the example log into a temporary directory and follow it.
    pub demo: bool,
    pub state_file: Option<PathBuf>,
    pub state_interval: Duration,
    pub state_reset_on_error: bool,
    pub read_from: ReadFrom,
    pub poll: bool,
    pub stat_interval: Duration,
    /// Files with a lag series of their own (`--max-file-series`).
    pub max_file_series: usize,
    /// Never empty.
    pub listen_addresses: Vec<Listen>,
    /// Starts with `/`.
    pub telemetry_path: String,
    pub web_config_file: Option<PathBuf>,
    /// At least 1.
    pub max_connections: usize,
    /// Positive.
    pub write_timeout: Duration,
    /// 0: no ring (the landing page and the API show none).
    pub recent_denials: usize,
}

impl RunConfig {
    /// Checks the `run` flags; the pipeline's first, in the order `--help` lists them.
    pub fn from_args(args: &RunArgs) -> Result<RunConfig, ConfigError> {
        let pipeline = Config::from_args(&args.pipeline)?;
        if args.paths.is_empty() && !args.demo {
            return Err(ConfigError::NoPath);
        }
        for pattern in &args.paths {
            glob::Pattern::new(pattern).map_err(|error| ConfigError::Glob {
                pattern: pattern.clone(),
                error,
            })?;
        }
        let listen_addresses = args
            .listen_addresses
            .iter()
            .map(|a| Listen::parse(a))
            .collect::<Result<Vec<_>, _>>()?;
        if listen_addresses.is_empty() {
            return Err(ConfigError::Empty {
                flag: "web.listen-address",
            });
        }
        if !args.telemetry_path.starts_with('/') {
            return Err(ConfigError::TelemetryPath {
                path: args.telemetry_path.clone(),
            });
        }
        Ok(RunConfig {
            pipeline,
            paths: args.paths.clone(),
            demo: args.demo,
            state_file: args.state_file.clone(),
            state_interval: positive("state-interval", args.state_interval)?,
            state_reset_on_error: args.state_reset_on_error,
            read_from: args.read_from,
            poll: args.poll,
            stat_interval: positive("stat-interval", args.stat_interval)?,
            max_file_series: args.max_file_series,
            listen_addresses,
            telemetry_path: args.telemetry_path.clone(),
            web_config_file: args.web_config_file.clone(),
            max_connections: super::at_least("web.max-connections", 1, args.max_connections)?,
            write_timeout: positive("web.write-timeout", args.write_timeout)?,
            recent_denials: args.recent_denials,
        })
    }
}

/// One `--web.listen-address`, as exporter-toolkit takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listen {
    /// `:PORT` (or `[::]:PORT`): every address family, IPv6 with IPv4 mapped into it, or IPv4
    /// alone on a host without IPv6.
    AllFamilies(u16),
    /// `host:port`, `IPv4:port` or `[IPv6]:port`: that one address (a host name is resolved once,
    /// at start-up, to its first address).
    Socket(SocketAddr),
}

impl Listen {
    /// Parses `:PORT`, `host:port`, `IPv4:port` or `[IPv6]:port`.
    pub fn parse(address: &str) -> Result<Listen, ConfigError> {
        let invalid = |reason: String| ConfigError::ListenAddress {
            address: address.to_string(),
            reason,
        };
        let Some((host, port)) = address.rsplit_once(':') else {
            return Err(invalid("want :PORT, host:port or [v6]:port".into()));
        };
        let port: u16 = port
            .parse()
            .map_err(|_| invalid(format!("port {port:?} is not a number from 0 to 65535")))?;
        if host.is_empty() || host == "[::]" {
            return Ok(Listen::AllFamilies(port));
        }
        if let Ok(socket) = address.parse::<SocketAddr>() {
            return Ok(Listen::Socket(socket));
        }
        if host.starts_with('[') || host.contains(':') {
            return Err(invalid(format!(
                "{host:?} is not an IPv6 address in brackets"
            )));
        }
        match (host, port).to_socket_addrs().map(|mut a| a.next()) {
            Ok(Some(socket)) => Ok(Listen::Socket(socket)),
            Ok(None) => Err(invalid(format!("host {host:?} has no address"))),
            Err(error) => Err(invalid(format!("cannot resolve host {host:?}: {error}"))),
        }
    }
}

impl std::fmt::Display for Listen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Listen::AllFamilies(port) => write!(f, ":{port}"),
            Listen::Socket(socket) => write!(f, "{socket}"),
        }
    }
}

/// `seconds` as a duration above zero.
fn positive(flag: &'static str, seconds: f64) -> Result<Duration, ConfigError> {
    Duration::try_from_secs_f64(seconds)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or(ConfigError::NotPositive { flag, seconds })
}

#[cfg(test)]
mod tests {
    use clap::Parser as _;

    use super::*;
    use crate::cli::{Cli, Command};

    fn run_args(flags: &[&str]) -> RunArgs {
        let argv = ["denials-exporter", "run"].iter().chain(flags);
        match Cli::try_parse_from(argv).unwrap().command {
            Command::Run(args) => *args,
            Command::Replay(_) => unreachable!("parsed run"),
        }
    }

    #[test]
    fn valid_cases() {
        let c = RunConfig::from_args(&run_args(&["--path", "/l/*.log"])).unwrap();
        assert_eq!(c.paths, ["/l/*.log"]);
        assert_eq!(c.stat_interval, Duration::from_secs(1));
        assert_eq!(c.listen_addresses, [Listen::AllFamilies(10403)]);
        let c = RunConfig::from_args(&run_args(&["--demo", "--stat-interval", "0.25"])).unwrap();
        assert!(c.demo && c.paths.is_empty());
        assert_eq!(c.stat_interval, Duration::from_millis(250));
    }

    #[test]
    fn listen_addresses_as_exporter_toolkit_takes_them() {
        let socket = |s: &str| Listen::Socket(s.parse().unwrap());
        let cases = [
            (":9100", Listen::AllFamilies(9100)),
            ("[::]:9100", Listen::AllFamilies(9100)),
            ("0.0.0.0:9100", socket("0.0.0.0:9100")),
            ("127.0.0.1:0", socket("127.0.0.1:0")),
            ("[::1]:9100", socket("[::1]:9100")),
            ("[fe80::1%1]:9100", socket("[fe80::1%1]:9100")),
        ];
        for (text, want) in cases {
            assert_eq!(Listen::parse(text).unwrap(), want, "{text}");
        }
        let localhost = Listen::parse("localhost:9100").unwrap();
        assert!(
            matches!(localhost, Listen::Socket(s) if s.ip().is_loopback() && s.port() == 9100),
            "{localhost:?}"
        );
        for (text, want) in [
            ("9100", "want :PORT"),
            (":x", "port \"x\" is not a number"),
            (":70000", "port \"70000\""),
            ("::1:9100", "is not an IPv6 address in brackets"),
            ("[::1:9100", "is not an IPv6 address in brackets"),
            ("no-such-host.invalid:9100", "cannot resolve host"),
        ] {
            let error = Listen::parse(text).unwrap_err().to_string();
            assert!(error.contains(want), "{text}: {error}");
            assert!(error.starts_with("invalid --web.listen-address"), "{error}");
        }
    }

    #[test]
    fn invalid_cases() {
        let cases: &[(&[&str], &str)] = &[
            (
                &["--path", "[unclosed"],
                "invalid --path glob \"[unclosed\": ",
            ),
            (
                &["--path", "x", "--stat-interval", "0"],
                "--stat-interval must be positive, got 0",
            ),
            (
                &["--path", "x", "--state-interval=-1"],
                "--state-interval must be positive, got -1",
            ),
            (
                &["--path", "x", "--web.write-timeout", "0"],
                "--web.write-timeout must be positive",
            ),
            (
                &["--path", "x", "--web.max-connections", "0"],
                "--web.max-connections must be at least 1, got 0",
            ),
            (
                &["--path", "x", "--web.listen-address", "nope"],
                "invalid --web.listen-address \"nope\": ",
            ),
            (
                &["--path", "x", "--web.telemetry-path", "m"],
                "--web.telemetry-path must start with '/', got \"m\"",
            ),
            (
                &["--path", "x", "--max-tools", "0"],
                "--max-tools must be at least 1, got 0",
            ),
        ];
        for (flags, want) in cases {
            let error = RunConfig::from_args(&run_args(flags))
                .unwrap_err()
                .to_string();
            assert!(error.starts_with(want), "{flags:?}: {error}");
        }
    }
}
