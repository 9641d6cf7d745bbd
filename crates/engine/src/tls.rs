//! TLS for https targets (rustls with the `ring` provider). The client config is built once,
//! when the spec is compiled, so a bad `tls.ca_file` fails before any connection opens.

use crate::spec::{SpecError, TlsSpec};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::{verify_server_name, WebPkiServerVerifier};
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::server::ParsedCertificate;
use rustls::{
    CertificateError, ClientConfig, DigitallySignedStruct, OtherError, RootCertStore,
    SignatureScheme,
};
use std::sync::Arc;

/// The crypto provider, always passed explicitly (never the process default, which another
/// library in the same process could install or which could be ambiguous).
fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// The certificates of `tls.ca_file`, read and parsed (at least one).
pub fn read_ca_file(path: &str) -> Result<Vec<CertificateDer<'static>>, SpecError> {
    let fail = |problem: String| SpecError(format!("tls.ca_file: {problem}"));
    let pem =
        std::fs::read(path).map_err(|e| fail(format!("cannot read {path}: {}", io_msg(&e))))?;
    let certs = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| fail(format!("bad PEM in {path}: {e}")))?;
    if certs.is_empty() {
        return Err(fail(format!("no certificate in {path}")));
    }
    // Parse each one now (as a trust anchor) so a corrupt certificate is a spec error too.
    for c in &certs {
        RootCertStore::empty()
            .add(c.clone())
            .map_err(|e| fail(format!("bad certificate in {path}: {e}")))?;
    }
    Ok(certs)
}

/// "No such file or directory (os error 2)" -> "No such file or directory".
fn io_msg(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// The client config for every https target of a run: ALPN http/1.1, and either the system
/// roots plus `ca_file`'s certificates, or (verify: false) any certificate.
pub fn client_config(tls: &TlsSpec) -> Result<Arc<ClientConfig>, SpecError> {
    let extra = match &tls.ca_file {
        Some(path) => read_ca_file(path)?,
        None => Vec::new(),
    };
    let provider = provider();
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| SpecError(format!("tls: {e}")))?;
    let mut config = if tls.verify {
        let mut roots = RootCertStore::empty();
        // The system's roots (/etc/ssl/certs, or SSL_CERT_FILE / SSL_CERT_DIR). Unreadable or
        // unparsable entries are skipped: a missing system store only means that a target
        // whose certificate is not in ca_file fails its handshake, with a message saying so.
        let system = rustls_native_certs::load_native_certs();
        roots.add_parsable_certificates(system.certs);
        for c in &extra {
            roots
                .add(c.clone())
                .map_err(|e| SpecError(format!("tls.ca_file: {e}")))?;
        }
        let webpki = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider)
            .build()
            .map_err(|e| SpecError(format!("tls: {e}")))?;
        if extra.is_empty() {
            builder.with_webpki_verifier(webpki).with_no_client_auth()
        } else {
            let verifier = CaFileVerifier {
                webpki,
                ca_file: extra,
            };
            builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(verifier))
                .with_no_client_auth()
        }
    } else {
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(AcceptAnyCert(provider)))
            .with_no_client_auth()
    };
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// `tls.verify: true` with a `ca_file`: webpki's verification, plus one case webpki refuses.
///
/// A lab's self-signed certificate made with `openssl req -x509` is marked CA:TRUE (OpenSSL's
/// default), and webpki refuses a CA certificate as the server's own (`CaUsedAsEndEntity`)
/// even when it is the trust anchor itself; OpenSSL, curl and Python accept it. When the
/// server presents exactly (byte for byte) a certificate of `ca_file`, the user trusts it
/// explicitly, so that error alone is overlooked: webpki had already checked its validity
/// dates (before the basic constraints), the name is still checked here, and the handshake
/// signatures still prove the server holds its key.
#[derive(Debug)]
struct CaFileVerifier {
    webpki: Arc<WebPkiServerVerifier>,
    ca_file: Vec<CertificateDer<'static>>,
}

impl ServerCertVerifier for CaFileVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let verdict = self.webpki.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        );
        match verdict {
            Err(rustls::Error::InvalidCertificate(CertificateError::Other(OtherError(e))))
                if matches!(
                    e.downcast_ref::<webpki::Error>(),
                    Some(webpki::Error::CaUsedAsEndEntity)
                ) && self.ca_file.iter().any(|c| c == end_entity) =>
            {
                verify_server_name(&ParsedCertificate::try_from(end_entity)?, server_name)?;
                Ok(ServerCertVerified::assertion())
            }
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.webpki.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.webpki.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.webpki.supported_verify_schemes()
    }
}

/// `tls.verify: false`: accept any server certificate, whatever its chain, name or dates.
///
/// For lab clusters with self-signed certificates (the OpenSearch demo config, a fresh
/// cluster without a CA): load generation against them must work without distributing a CA.
/// This gives encryption but no authentication, so it is opt-in per run. The handshake
/// signatures are still checked with the provider's algorithms, so the peer must hold the
/// private key of the certificate it presents (only whose certificate that is goes unchecked).
#[derive(Debug)]
struct AcceptAnyCert(Arc<CryptoProvider>);

impl ServerCertVerifier for AcceptAnyCert {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sink::{serve, Stats};
    use crate::{Runner, Spec, StopReason, Totals};
    use rustls::pki_types::PrivateKeyDer;
    use rustls::ServerConfig;
    use serde_json::{json, Value};
    use std::path::PathBuf;
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
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
        let mut config = ServerConfig::builder_with_provider(provider())
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
        let t = run(&spec(&target, json!({"ca_file": misnamed.cert.path()})));
        assert_eq!(t.counters.docs_acked, 0);
        assert!(t.errors[0].example.contains("not valid for name"), "{t:?}");
        // ...and only when it is that very certificate.
        let t = run(&spec(&target, json!({"ca_file": sink.cert.path()})));
        assert_eq!(t.counters.docs_acked, 0);
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
    fn an_untrusted_or_misnamed_certificate_fails_every_request() {
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
            let t = run(&spec(&target, tls));
            let c = &t.counters;
            assert_eq!((c.docs_acked, c.requests_transport), (0, 5));
            assert_eq!(c.docs_failed, 5000);
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
        let garbage =
            TempFile::new("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n");
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
}
