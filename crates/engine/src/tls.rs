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
