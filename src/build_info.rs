//! What this binary is: version, git revision and target triple, fixed at build time by
//! `build.rs`. Read by `--version` and by `denials_exporter_build_info`.
//!
//! **Not here:** how the revision is found (`build.rs`: git, else `DENIALS_EXPORTER_REVISION`,
//! else `unknown`).

/// The crate version, e.g. `0.1.0`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The git revision built from (12 hex digits), or `unknown`.
pub const REVISION: &str = env!("BUILD_INFO_REVISION");
/// The target triple built for, e.g. `x86_64-unknown-linux-musl`.
pub const TARGET: &str = env!("BUILD_INFO_TARGET");
/// What `--version` prints after the program name.
pub const LONG_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (revision ",
    env!("BUILD_INFO_REVISION"),
    ", target ",
    env!("BUILD_INFO_TARGET"),
    ")"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_names_revision_and_target() {
        assert!(LONG_VERSION.starts_with(VERSION));
        assert!(LONG_VERSION.contains(REVISION));
        assert!(LONG_VERSION.contains(TARGET));
        assert!(!REVISION.is_empty() && !TARGET.is_empty());
    }
}
