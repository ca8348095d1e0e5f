# syntax=docker/dockerfile:1
#
# denials-exporter: a static (musl) Rust binary on a distroless base, running as UID/GID 10403.
#
#   docker build -t denials-exporter:dev .
#   docker buildx build --platform linux/amd64,linux/arm64 -t <registry>/denials-exporter:<version> --push .
#   docker buildx build --target binary --output type=local,dest=dist .   # the binary alone
#
# Each platform builds natively in its own stage (under QEMU when the builder's CPU differs);
# .github/workflows/release.yml builds each one on a runner of its own architecture instead and
# publishes ghcr.io/<owner>/<repository> with provenance and an SBOM.
#
# Base images are pinned by tag. For reproducible builds pin them by digest as well, e.g.
#   FROM docker.io/library/rust:1.95-slim-bookworm@sha256:<digest> AS builder
# with the digest from `docker buildx imagetools inspect <image>`, and let a bot (Renovate,
# Dependabot) keep it current. See docs/deploy.md.

ARG RUST_VERSION=1.95

# ---- build ---------------------------------------------------------------------------------
FROM docker.io/library/rust:${RUST_VERSION}-slim-bookworm AS builder

# TARGETARCH is set by BuildKit (amd64, arm64); plain `docker build` on x86_64 leaves it empty.
ARG TARGETARCH
ENV CC_x86_64_unknown_linux_musl=musl-gcc \
    CC_aarch64_unknown_linux_musl=musl-gcc \
    CARGO_TERM_COLOR=never

SHELL ["/bin/bash", "-o", "pipefail", "-c"]

# musl-tools is left unpinned on purpose: the tag pins Debian bookworm, whose point releases
# bring security fixes (hadolint DL3008).
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends musl-tools \
 && rm -rf /var/lib/apt/lists/*

RUN case "${TARGETARCH:-amd64}" in \
      amd64) echo x86_64-unknown-linux-musl ;; \
      arm64) echo aarch64-unknown-linux-musl ;; \
      *) echo "unsupported TARGETARCH: ${TARGETARCH}" >&2; exit 1 ;; \
    esac > /rust-target \
 && rustup target add "$(cat /rust-target)"

WORKDIR /src
# The build context has no .git: build.rs takes the revision that --version and
# denials_exporter_build_info report from here (`unknown` when the build argument is not given).
ARG REVISION=unknown
ENV DENIALS_EXPORTER_REVISION=${REVISION}
# The whole crate (see .dockerignore for what is left out); dependencies come from Cargo.lock.
COPY . .

# The binary must be fully static (the final image has no libc): fail the build if it is not.
# One target cache per architecture, so that an emulated and a native build never share one.
RUN --mount=type=cache,target=/usr/local/cargo/registry,sharing=locked \
    --mount=type=cache,target=/src/target,id=denials-exporter-target-${TARGETARCH} \
    target="$(cat /rust-target)" \
 && cargo build --release --locked --target "$target" --bin denials-exporter \
 && install -D -m 0755 "target/$target/release/denials-exporter" /out/denials-exporter \
 && if readelf -d /out/denials-exporter | grep NEEDED; then \
      echo "denials-exporter is dynamically linked" >&2; exit 1; fi \
 && /out/denials-exporter --version \
 && mkdir -p /out/state

# ---- the binary alone: `--target binary --output type=local,dest=DIR` (the release assets) ----
FROM scratch AS binary
COPY --from=builder /out/denials-exporter /denials-exporter

# ---- run -----------------------------------------------------------------------------------
FROM gcr.io/distroless/static-debian12:nonroot

# Set by the release build: the version tag, the commit it was built from, and where its source
# lives, e.g. --build-arg VERSION=0.1.0 --build-arg REVISION="$(git rev-parse HEAD)"
# --build-arg SOURCE=https://github.com/<org>/denials-exporter
ARG VERSION=0.1.0
ARG REVISION=unknown
ARG SOURCE=unknown
LABEL org.opencontainers.image.title="denials-exporter" \
      org.opencontainers.image.description="Counts AI-agent permission denials from executor logs, exactly once, and exports them to Prometheus" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="${SOURCE}"

COPY --from=builder /out/denials-exporter /usr/local/bin/denials-exporter
# Default home of the state file, writable by the runtime user (in Kubernetes an emptyDir is mounted here).
COPY --from=builder --chown=10403:10403 /out/state /var/lib/denials-exporter

# Numeric, so Kubernetes' runAsNonRoot can verify it without a passwd entry.
USER 10403:10403
EXPOSE 10403

# No HEALTHCHECK: the image has no shell or HTTP client to run one, and Kubernetes ignores it in
# favour of the pod's probes on /-/healthy and /-/ready (see deploy/kubernetes/checkov-skips.md).
ENTRYPOINT ["/usr/local/bin/denials-exporter"]
CMD ["run", "--path=/var/log/executor/*.log", "--state-file=/var/lib/denials-exporter/state.json"]
