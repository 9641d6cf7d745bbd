//! End-to-end runs against an HTTPS bulk sink (`sink::serve` behind tokio-rustls, with a fresh
//! rcgen certificate) with various `tls` specs, and `tls.ca_file` spec errors.

use rustls::pki_types::PrivateKeyDer;
use rustls::ServerConfig;
use serde_json::{json, Value};
use shardlab_engine::sink::{serve, Stats};
use shardlab_engine::{Runner, Spec, StopReason, Totals};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use tokio_rustls::TlsAcceptor;

/// A file in the temp dir, removed on drop.
struct TempFile(PathBuf);

impl TempFile {
    fn new(contents: &str) -> TempFile {
        static N: AtomicU64 = AtomicU64::new(0);
        let name = format!(
            "shardlab-tls-{}-{}.pem",
            std::process::id(),
            N.fetch_add(1, Relaxed)
        );
        let path = std::env::temp_dir().join(name);
        std::fs::write(&path, contents).unwrap();
        TempFile(path)
    }

    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// An HTTPS NullSink on 127.0.0.1 with a fresh self-signed certificate for `names`.
struct TlsSink {
    port: u16,
    stats: Arc<Stats>,
    cert: TempFile,
    _rt: tokio::runtime::Runtime,
}

fn tls_sink(names: &[&str]) -> TlsSink {
    tls_sink_with(names, false)
}

/// `is_ca`: marked CA:TRUE, like `openssl req -x509` does by default.
fn tls_sink_with(names: &[&str], is_ca: bool) -> TlsSink {
    let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    let signing_key = rcgen::KeyPair::generate().unwrap();
    let mut params = rcgen::CertificateParams::new(names).unwrap();
    if is_ca {
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    }
    let cert = params.self_signed(&signing_key).unwrap();
    let key = PrivateKeyDer::Pkcs8(signing_key.serialize_der().into());
    let mut config =
        ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(vec![cert.der().clone()], key)
            .unwrap();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let port = listener.local_addr().unwrap().port();
    let stats = Arc::new(Stats::default());
    let st = stats.clone();
    rt.spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let (acceptor, st) = (acceptor.clone(), st.clone());
            tokio::spawn(async move {
                if let Ok(tls) = acceptor.accept(tcp).await {
                    let _ = serve(tls, st).await;
                }
            });
        }
    });
    TlsSink {
        port,
        stats,
        cert: TempFile::new(&cert.pem()),
        _rt: rt,
    }
}

fn spec(target: &str, tls: Value) -> String {
    json!({
        "targets": [target],
        "bulk_path": "/systembase/_bulk",
        "generator": {"kind": "systembase", "variant": "bulk", "seed": 42},
        "bulk": {"docs": 1000},
        "clients": 2,
        "schedule": {"kind": "closed"},
        "stop": {"duration_s": null, "docs": 5000},
        "interval_s": 1.0,
        "retry": {"kind": "none"},
        "threads": 1,
        "request_timeout_s": 10.0,
        "drain_timeout_s": 5.0,
        "tls": tls
    })
    .to_string()
}

fn run(spec: &str) -> Totals {
    let r = Runner::new(spec).unwrap();
    r.start().unwrap();
    let t = r.finish().unwrap();
    assert_eq!(t.stopped_by, StopReason::Docs);
    t
}

/// A run whose every connection fails its TLS handshake: nothing is sent, so it ends by its
/// duration (0.5 s), not by docs, with each client's one bulk not sent.
fn run_refused(spec: &str) -> Totals {
    let mut v: Value = serde_json::from_str(spec).unwrap();
    v["stop"] = json!({"duration_s": 0.5, "docs": 5000});
    let r = Runner::new(&v.to_string()).unwrap();
    r.start().unwrap();
    let t = r.finish().unwrap();
    assert_eq!(t.stopped_by, StopReason::Duration);
    let c = &t.counters;
    assert_eq!((c.requests, c.docs_sent, c.docs_acked), (0, 0, 0));
    assert_eq!(c.docs_not_sent, 2 * 1000, "one bulk per client");
    assert!(c.connect_errors >= 1, "{t:?}");
    assert_eq!(t.target_errors[0].connect_errors, c.connect_errors);
    assert_eq!(t.errors[0].kind, "connect");
    t
}

fn spec_error(spec: &str) -> String {
    match Runner::new(spec) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("the spec was accepted"),
    }
}

#[test]
fn bulk_requests_over_tls_with_a_ca_file() {
    let sink = tls_sink(&["127.0.0.1", "localhost"]);
    for host in ["127.0.0.1", "localhost"] {
        let target = format!("https://{host}:{}", sink.port);
        let t = run(&spec(&target, json!({"ca_file": sink.cert.path()})));
        assert_eq!(t.counters.docs_acked, 5000, "{:?}", t.errors);
        assert_eq!(t.counters.requests_ok, 5);
    }
    assert_eq!(sink.stats.docs.load(Relaxed), 10_000);
    assert_eq!(sink.stats.requests.load(Relaxed), 10);
}

#[test]
fn a_self_signed_ca_certificate_in_ca_file_is_accepted_as_the_server_certificate() {
    let sink = tls_sink_with(&["127.0.0.1"], true);
    let target = format!("https://127.0.0.1:{}", sink.port);
    let t = run(&spec(&target, json!({"ca_file": sink.cert.path()})));
    assert_eq!(t.counters.docs_acked, 5000, "{:?}", t.errors);
    // ...only for its own names,
    let misnamed = tls_sink_with(&["localhost"], true);
    let target = format!("https://127.0.0.1:{}", misnamed.port);
    let t = run_refused(&spec(&target, json!({"ca_file": misnamed.cert.path()})));
    assert!(t.errors[0].example.contains("not valid for name"), "{t:?}");
    // ...and only when it is that very certificate.
    let t = run_refused(&spec(&target, json!({"ca_file": sink.cert.path()})));
    assert!(t.errors[0].example.contains("CaUsedAsEndEntity"), "{t:?}");
    assert_eq!(misnamed.stats.requests.load(Relaxed), 0);
}

#[test]
fn verify_false_accepts_a_self_signed_certificate() {
    let sink = tls_sink(&["localhost"]);
    // Neither trusted nor issued for 127.0.0.1: accepted anyway.
    let target = format!("https://127.0.0.1:{}", sink.port);
    let t = run(&spec(&target, json!({"verify": false})));
    assert_eq!(t.counters.docs_acked, 5000, "{:?}", t.errors);
    assert_eq!(sink.stats.docs.load(Relaxed), 5000);
}

#[test]
fn an_untrusted_or_misnamed_certificate_fails_every_connection() {
    let sink = tls_sink(&["localhost"]);
    let target = format!("https://127.0.0.1:{}", sink.port);
    let cases = [
        (json!({}), "UnknownIssuer"),
        (
            json!({"ca_file": sink.cert.path()}),
            "certificate not valid for name",
        ),
    ];
    for (tls, problem) in cases {
        let t = run_refused(&spec(&target, tls));
        let example = &t.errors[0].example;
        assert!(example.starts_with("tls handshake 127.0.0.1:"), "{example}");
        assert!(example.contains(problem), "{example}");
    }
    assert_eq!(sink.stats.requests.load(Relaxed), 0);
}

#[test]
fn a_bad_ca_file_is_a_spec_error() {
    let https = "https://127.0.0.1:9200";
    assert_eq!(
        spec_error(&spec(https, json!({"ca_file": "/nonexistent/ca.pem"}))),
        "tls.ca_file: cannot read /nonexistent/ca.pem: No such file or directory"
    );
    let empty = TempFile::new("not a certificate\n");
    let no_cert = format!("tls.ca_file: no certificate in {}", empty.path());
    assert_eq!(
        spec_error(&spec(https, json!({"ca_file": empty.path()}))),
        no_cert
    );
    // checked with http targets only too, and with verify: false
    let http = "http://127.0.0.1:9200";
    assert_eq!(
        spec_error(&spec(http, json!({"ca_file": empty.path()}))),
        no_cert
    );
    assert_eq!(
        spec_error(&spec(
            https,
            json!({"verify": false, "ca_file": empty.path()})
        )),
        no_cert
    );
    let garbage = TempFile::new("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n");
    let e = spec_error(&spec(https, json!({"ca_file": garbage.path()})));
    let prefix = format!("tls.ca_file: bad certificate in {}: ", garbage.path());
    assert!(e.starts_with(&prefix), "{e}");
    // a good one
    let cert = rcgen::generate_simple_self_signed(vec!["a".to_string()])
        .unwrap()
        .cert;
    let good = TempFile::new(&cert.pem());
    let s = Spec::from_json(&spec(https, json!({"ca_file": good.path()}))).unwrap();
    assert_eq!(s.tls.ca_file.as_deref(), Some(good.path()));
    assert!(s.tls_config.is_some());
}
