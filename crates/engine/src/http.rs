//! Keep-alive HTTP/1.1 connections (hyper) over TCP or, for https targets, TLS (rustls).
//! An `Endpoint` is one target as every client reaches it; a `Conn` is one client's
//! connection to it. Connecting and sending are separate steps, so a failure says how far
//! a request got (see `Failure`, and failover.rs for what follows from it).

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper::header::{HeaderName, HeaderValue, CONTENT_TYPE, HOST};
use hyper::rt::{Read, Write};
use hyper::{HeaderMap, Method, Request, Uri};
use hyper_util::rt::TokioIo;
use rustls::pki_types::ServerName;
use rustls::ClientConfig;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

/// Connecting (TCP, TLS and HTTP handshakes) may take the request timeout, but never more
/// than this: a node that drops packets must not hold a bulk for a whole request timeout
/// before it is sent elsewhere.
pub const CONNECT_TIMEOUT_MAX: Duration = Duration::from_secs(10);

/// The fixed parts of every request to one target.
#[derive(Debug, Clone)]
pub struct RequestTemplate {
    pub authority: String,
    pub path: String,
    pub headers: HeaderMap,
}

impl RequestTemplate {
    pub fn new(authority: &str, path: &str, extra: &[(String, String)]) -> RequestTemplate {
        let mut headers = HeaderMap::new();
        headers.insert(
            HOST,
            HeaderValue::from_str(authority).expect("validated authority"),
        );
        headers.insert(
            CONTENT_TYPE,
            HeaderValue::from_static("application/x-ndjson"),
        );
        for (name, value) in extra {
            // Both validated in spec.rs.
            let name = HeaderName::from_bytes(name.as_bytes()).expect("validated header name");
            let value = HeaderValue::from_str(value).expect("validated header value");
            headers.append(name, value);
        }
        RequestTemplate {
            authority: authority.to_string(),
            path: path.to_string(),
            headers,
        }
    }
}

/// A request that got no HTTP answer, by how far it got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// No connection: refused, timed out, or the TLS or HTTP handshake failed.
    Connect(String),
    /// hyper handed the request back unwritten: the connection had closed first.
    NotSent(String),
    /// The connection broke after the request was (at least partly) written.
    Broken(String),
    /// No answer within the request timeout.
    TimedOut(String),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Connect(m)
            | Failure::NotSent(m)
            | Failure::Broken(m)
            | Failure::TimedOut(m) => f.write_str(m),
        }
    }
}

pub struct Answer {
    pub status: u16,
    pub body: Bytes,
}

/// How an https target is reached: the run's client config and the name to verify.
#[derive(Clone)]
pub struct TlsTarget {
    connector: TlsConnector,
    name: ServerName<'static>,
}

impl TlsTarget {
    pub fn new(config: Arc<ClientConfig>, name: ServerName<'static>) -> TlsTarget {
        TlsTarget {
            connector: TlsConnector::from(config),
            name,
        }
    }
}

/// One target, shared by every client that sends to it.
pub struct Endpoint {
    template: RequestTemplate,
    uri: Uri,
    /// None: plain http.
    tls: Option<TlsTarget>,
    connect_timeout: Duration,
    request_timeout: Duration,
}

/// One keep-alive connection to an endpoint.
pub struct Conn(SendRequest<Full<Bytes>>);

impl Conn {
    /// Whether the connection can take a request; false once it has closed (e.g. its node
    /// died while it was idle), before anything was written to it.
    pub async fn ready(&mut self) -> bool {
        self.0.ready().await.is_ok()
    }
}

impl Endpoint {
    pub fn new(
        template: RequestTemplate,
        tls: Option<TlsTarget>,
        request_timeout: Duration,
    ) -> Endpoint {
        Endpoint {
            uri: template.path.parse().expect("validated bulk_path"),
            template,
            tls,
            connect_timeout: request_timeout.min(CONNECT_TIMEOUT_MAX),
            request_timeout,
        }
    }

    pub fn authority(&self) -> &str {
        &self.template.authority
    }

    fn fail(&self, what: &str, e: &dyn fmt::Display) -> String {
        format!("{what} {}: {e}", self.template.authority)
    }

    /// A new connection, within the connect timeout; every failure is `Failure::Connect`.
    pub async fn connect(&self) -> Result<Conn, Failure> {
        match tokio::time::timeout(self.connect_timeout, self.handshakes()).await {
            Ok(Ok(sender)) => Ok(Conn(sender)),
            Ok(Err(message)) => Err(Failure::Connect(message)),
            Err(_) => Err(Failure::Connect(self.fail(
                "connect",
                &format_args!("timed out after {:?}", self.connect_timeout),
            ))),
        }
    }

    async fn handshakes(&self) -> Result<SendRequest<Full<Bytes>>, String> {
        let stream = TcpStream::connect(&self.template.authority)
            .await
            .map_err(|e| self.fail("connect", &e))?;
        stream
            .set_nodelay(true)
            .map_err(|e| self.fail("connect", &e))?;
        // Only the transport differs; the HTTP handshake is the same for both.
        match &self.tls {
            None => handshake(TokioIo::new(stream)).await,
            Some(tls) => {
                let stream = tls
                    .connector
                    .connect(tls.name.clone(), stream)
                    .await
                    .map_err(|e| self.fail("tls handshake", &e))?;
                handshake(TokioIo::new(stream)).await
            }
        }
        .map_err(|e| self.fail("handshake", &e))
    }

    /// POST `body` on `conn` and read the whole answer, within the request timeout. After an
    /// error the connection must not be used again.
    pub async fn post(&self, conn: &mut Conn, body: Bytes) -> Result<Answer, Failure> {
        let mut req = Request::new(Full::new(body));
        *req.method_mut() = Method::POST;
        *req.uri_mut() = self.uri.clone();
        *req.headers_mut() = self.template.headers.clone();
        let exchange = async {
            let resp = conn.0.try_send_request(req).await.map_err(|e| {
                // hyper returns the request only if it never began writing it.
                if e.message().is_some() {
                    Failure::NotSent(self.fail("send", e.error()))
                } else {
                    Failure::Broken(self.fail("send", e.error()))
                }
            })?;
            let status = resp.status().as_u16();
            let body = resp
                .into_body()
                .collect()
                .await
                .map_err(|e| Failure::Broken(self.fail("read", &e)))?
                .to_bytes();
            Ok(Answer { status, body })
        };
        match tokio::time::timeout(self.request_timeout, exchange).await {
            Ok(result) => result,
            Err(_) => Err(Failure::TimedOut(format!(
                "timed out after {:?} ({})",
                self.request_timeout, self.template.authority
            ))),
        }
    }
}

/// The HTTP/1.1 handshake over any transport; the connection runs on its own task. Generic
/// (not boxed), so plain http pays nothing for TLS existing.
async fn handshake<T>(io: T) -> Result<SendRequest<Full<Bytes>>, hyper::Error>
where
    T: Read + Write + Unpin + Send + 'static,
{
    let (sender, conn) = hyper::client::conn::http1::handshake(io).await?;
    tokio::spawn(async move {
        // Ends when the sender is dropped or the peer closes; errors surface on the request
        // side.
        let _ = conn.await;
    });
    Ok(sender)
}
