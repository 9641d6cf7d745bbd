//! The engine spec: the JSON document Python hands to `Engine(spec_json)`.
//!
//! Parsing and validation happen once, before any connection opens. Every error names the
//! field path (`bulk.docs: ...`, `targets[0]: ...`) so the user can find what to fix.

use crate::estimate;
use rustls::pki_types::ServerName;
use rustls::ClientConfig;
use serde::Deserialize;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// An invalid spec; the message starts with the field path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecError(pub String);

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SpecError {}

/// Bounds; the same as shardlab.plan's, checked again here because the spec is the contract.
pub const MAX_BULK_DOCS: u64 = 100_000;
/// 100 MiB: OpenSearch's default `http.max_content_length`; a larger bulk is refused anyway.
pub const MAX_BULK_BYTES: u64 = 100 * 1024 * 1024;
pub const MAX_CLIENTS: u32 = 100_000;
pub const MAX_THREADS: u32 = 256;
pub const MIN_INTERVAL_S: f64 = 0.001;

fn err(field: &str, problem: impl fmt::Display) -> SpecError {
    SpecError(format!("{field}: {problem}"))
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    pub targets: Vec<String>,
    pub bulk_path: String,
    #[serde(default)]
    pub headers: Vec<(String, String)>,
    pub generator: GeneratorSpec,
    pub bulk: BulkSize,
    pub clients: u32,
    pub schedule: ScheduleSpec,
    pub stop: StopSpec,
    pub interval_s: f64,
    pub retry: RetrySpec,
    pub threads: u32,
    pub request_timeout_s: f64,
    pub drain_timeout_s: f64,
    /// Every target down this long stops the run (StopReason::Unreachable).
    #[serde(default = "default_unreachable_timeout_s")]
    pub unreachable_timeout_s: f64,
    #[serde(default)]
    pub tls: TlsSpec,
    /// Compiled from `tls` by `from_json` when some target is https (not part of the JSON).
    #[serde(skip)]
    pub tls_config: Option<Arc<ClientConfig>>,
    /// Estimated by `from_json` (see estimate.rs): the body bytes of one bulk (not JSON).
    #[serde(skip)]
    pub estimated_bulk_bytes: u64,
}

/// `tls`: how https targets are verified. Optional; the default verifies against the system
/// roots.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TlsSpec {
    /// false: accept any certificate (a lab's self-signed one); see tls.rs.
    #[serde(default = "yes")]
    pub verify: bool,
    /// A PEM file of CA certificates trusted besides the system roots.
    #[serde(default)]
    pub ca_file: Option<String>,
}

impl Default for TlsSpec {
    fn default() -> Self {
        TlsSpec {
            verify: true,
            ca_file: None,
        }
    }
}

fn yes() -> bool {
    true
}

fn default_unreachable_timeout_s() -> f64 {
    30.0
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeneratorSpec {
    pub kind: GeneratorKind,
    pub variant: Variant,
    pub seed: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GeneratorKind {
    Systembase,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    Bulk,
    Bigbulk,
}

/// Exactly one of `docs` or `bytes` (checked in `validate`, for a clearer message than an
/// untagged enum would give).
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BulkSize {
    pub docs: Option<u64>,
    pub bytes: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum ScheduleSpec {
    Closed,
    Fixed { rate_per_s: f64 },
    Poisson { rate_per_s: f64 },
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StopSpec {
    pub duration_s: Option<f64>,
    pub docs: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum RetrySpec {
    None,
    Backoff {
        max_attempts: u32,
        initial_ms: u64,
        max_ms: u64,
    },
}

/// One `http://host:port` or `https://host:port` target, split once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// `host:port`, for connecting and for the Host header.
    pub authority: String,
    /// https only: the name the server's certificate must match (a DNS name or an IP address).
    pub tls_name: Option<ServerName<'static>>,
}

impl Spec {
    /// Parse and validate. The error names the field path.
    pub fn from_json(json: &str) -> Result<Spec, SpecError> {
        let de = &mut serde_json::Deserializer::from_str(json);
        let mut spec: Spec = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            if path == "." {
                SpecError(inner.to_string())
            } else {
                err(&path, strip_position(&inner.to_string()))
            }
        })?;
        spec.validate()?;
        spec.estimated_bulk_bytes = estimate::checked_bulk_bytes(spec.bulk, &spec.generator)?;
        spec.compile_tls()?;
        Ok(spec)
    }

    /// Build the TLS client config once, here, so that a bad `tls.ca_file` fails before any
    /// connection opens. Without https targets a given `ca_file` is still checked.
    fn compile_tls(&mut self) -> Result<(), SpecError> {
        if self.targets.iter().any(|t| t.starts_with("https://")) {
            self.tls_config = Some(crate::tls::client_config(&self.tls)?);
        } else if let Some(path) = &self.tls.ca_file {
            crate::tls::read_ca_file(path)?;
        }
        Ok(())
    }

    fn validate(&self) -> Result<(), SpecError> {
        if self.targets.is_empty() {
            return Err(err("targets", "must name at least one target"));
        }
        for (i, t) in self.targets.iter().enumerate() {
            parse_target(t).map_err(|p| err(&format!("targets[{i}]"), p))?;
        }
        if !self.bulk_path.starts_with('/') {
            return Err(err("bulk_path", "must start with '/'"));
        }
        if let Err(e) = self.bulk_path.parse::<hyper::Uri>() {
            return Err(err("bulk_path", format!("not a valid request path: {e}")));
        }
        for (i, (name, value)) in self.headers.iter().enumerate() {
            let bad_name = name.is_empty()
                || !name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
            if bad_name {
                return Err(err(&format!("headers[{i}]"), "invalid header name"));
            }
            if value.bytes().any(|b| b == b'\r' || b == b'\n') {
                return Err(err(&format!("headers[{i}]"), "invalid header value"));
            }
        }
        match (self.bulk.docs, self.bulk.bytes) {
            (Some(0), None) => return Err(err("bulk.docs", "must be at least 1")),
            (None, Some(0)) => return Err(err("bulk.bytes", "must be at least 1")),
            (Some(n), None) if n > MAX_BULK_DOCS => {
                return Err(err(
                    "bulk.docs",
                    format!("at most {MAX_BULK_DOCS}, got {n}"),
                ))
            }
            (None, Some(b)) if b > MAX_BULK_BYTES => {
                return Err(err(
                    "bulk.bytes",
                    format!(
                        "at most {MAX_BULK_BYTES} (OpenSearch's default \
                         http.max_content_length), got {b}"
                    ),
                ))
            }
            (Some(_), None) | (None, Some(_)) => {}
            _ => return Err(err("bulk", "set exactly one of docs or bytes")),
        }
        if self.clients == 0 {
            return Err(err("clients", "must be at least 1"));
        }
        if self.clients > MAX_CLIENTS {
            return Err(err(
                "clients",
                format!("at most {MAX_CLIENTS}, got {}", self.clients),
            ));
        }
        match self.schedule {
            ScheduleSpec::Closed => {}
            ScheduleSpec::Fixed { rate_per_s } | ScheduleSpec::Poisson { rate_per_s } => {
                positive("schedule.rate_per_s", rate_per_s)?
            }
        }
        if self.stop.duration_s.is_none() && self.stop.docs.is_none() {
            return Err(err("stop", "set duration_s, docs, or both"));
        }
        if let Some(d) = self.stop.duration_s {
            positive("stop.duration_s", d)?;
        }
        if self.stop.docs == Some(0) {
            return Err(err("stop.docs", "must be at least 1"));
        }
        positive("interval_s", self.interval_s)?;
        if self.interval_s < MIN_INTERVAL_S {
            return Err(err(
                "interval_s",
                format!(
                    "must be at least {MIN_INTERVAL_S} (1 ms), got {}",
                    self.interval_s
                ),
            ));
        }
        if let RetrySpec::Backoff {
            max_attempts,
            initial_ms,
            max_ms,
        } = self.retry
        {
            if max_attempts == 0 {
                return Err(err("retry.max_attempts", "must be at least 1"));
            }
            if max_ms < initial_ms {
                return Err(err("retry.max_ms", "must be at least retry.initial_ms"));
            }
        }
        if self.threads == 0 {
            return Err(err("threads", "must be at least 1"));
        }
        if self.threads > MAX_THREADS {
            return Err(err(
                "threads",
                format!("at most {MAX_THREADS}, got {}", self.threads),
            ));
        }
        positive("request_timeout_s", self.request_timeout_s)?;
        positive("drain_timeout_s", self.drain_timeout_s)?;
        positive("unreachable_timeout_s", self.unreachable_timeout_s)?;
        Ok(())
    }

    pub fn parsed_targets(&self) -> Vec<Target> {
        self.targets
            .iter()
            .map(|t| parse_target(t).expect("validated"))
            .collect()
    }

    /// Never zero (tokio's `interval` panics on a zero period), even for a spec that was not
    /// validated.
    pub fn interval(&self) -> Duration {
        let min = Duration::from_secs_f64(MIN_INTERVAL_S);
        Duration::try_from_secs_f64(self.interval_s).map_or(min, |d| d.max(min))
    }
}

fn positive(field: &str, v: f64) -> Result<(), SpecError> {
    if v > 0.0 && v.is_finite() && v < 1e9 {
        Ok(())
    } else {
        Err(err(field, format!("must be a positive number, got {v}")))
    }
}

/// serde_json appends " at line 1 column 42"; the path already says where.
fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

/// `http://host:port[/]` -> `host:port` (port defaults to 80; 443 for https).
fn parse_target(url: &str) -> Result<Target, String> {
    let expected = || format!("expected http://host:port or https://host:port, got {url:?}");
    let (rest, tls, default_port) = if let Some(rest) = url.strip_prefix("http://") {
        (rest, false, "80")
    } else if let Some(rest) = url.strip_prefix("https://") {
        (rest, true, "443")
    } else {
        return Err(expected());
    };
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    if rest.is_empty() || rest.contains(['/', '?', '#', '@', ' ']) {
        return Err(expected());
    }
    // `[v6]:port`, `[v6]`, `host:port` or `host`.
    let (host, port) = match rest.rfind(':') {
        Some(i) if !rest[i..].contains(']') => (&rest[..i], Some(&rest[i + 1..])),
        _ => (rest, None),
    };
    if host.is_empty() || port.is_some_and(|p| p.parse::<u16>().is_err()) {
        return Err(format!("bad host or port in {url:?}"));
    }
    let authority = format!("{host}:{}", port.unwrap_or(default_port));
    let tls_name = if tls {
        // `[::1]` -> `::1`; an IP address becomes ServerName::IpAddress.
        let bare = host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(host);
        let name = ServerName::try_from(bare.to_string())
            .map_err(|_| format!("{bare:?} is not a valid TLS server name (in {url:?})"))?;
        Some(name)
    } else {
        None
    };
    Ok(Target {
        authority,
        tls_name,
    })
}
