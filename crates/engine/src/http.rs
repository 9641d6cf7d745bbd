//! One keep-alive HTTP/1.1 connection per client (hyper), over TCP or, for https targets,
//! TLS (rustls). Connects lazily, and after any transport error drops the connection so the
//! next request reconnects.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper::header::{HeaderName, HeaderValue, CONTENT_TYPE, HOST};
use hyper::rt::{Read, Write};
use hyper::{HeaderMap, Method, Request};
use hyper_util::rt::TokioIo;
use rustls::pki_types::ServerName;
use rustls::ClientConfig;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

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

/// A transport failure: no HTTP answer.
#[derive(Debug, Clone)]
pub struct TransportError(pub String);

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

pub struct Connection {
    template: RequestTemplate,
    /// None: plain http.
    tls: Option<TlsTarget>,
    sender: Option<SendRequest<Full<Bytes>>>,
    timeout: Duration,
}

impl Connection {
    pub fn new(template: RequestTemplate, tls: Option<TlsTarget>, timeout: Duration) -> Connection {
        Connection {
            template,
            tls,
            sender: None,
            timeout,
        }
    }

    /// POST `body`; the whole exchange (connect included) is bounded by the request timeout.
    pub async fn post(&mut self, body: Bytes) -> Result<Answer, TransportError> {
        match tokio::time::timeout(self.timeout, self.exchange(body)).await {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(e)) => {
                self.sender = None;
                Err(e)
            }
            Err(_) => {
                self.sender = None;
                Err(TransportError(format!(
                    "timed out after {:?} ({})",
                    self.timeout, self.template.authority
                )))
            }
        }
    }

    async fn exchange(&mut self, body: Bytes) -> Result<Answer, TransportError> {
        let t = &self.template;
        let fail = |what: &str, e: &dyn std::fmt::Display| {
            TransportError(format!("{what} {}: {e}", t.authority))
        };
        let ready = match self.sender.as_mut() {
            Some(s) => s.ready().await.is_ok(),
            None => false,
        };
        if !ready {
            let stream = TcpStream::connect(&t.authority)
                .await
                .map_err(|e| fail("connect", &e))?;
            stream.set_nodelay(true).map_err(|e| fail("connect", &e))?;
            // Only the transport differs; the request below is the same for both.
            let sender = match &self.tls {
                None => handshake(TokioIo::new(stream)).await,
                Some(tls) => {
                    let stream = tls
                        .connector
                        .connect(tls.name.clone(), stream)
                        .await
                        .map_err(|e| fail("tls handshake", &e))?;
                    handshake(TokioIo::new(stream)).await
                }
            }
            .map_err(|e| fail("handshake", &e))?;
            self.sender = Some(sender);
        }
        let sender = self.sender.as_mut().expect("connected above");
        let mut req = Request::builder()
            .method(Method::POST)
            .uri(&t.path)
            .body(Full::new(body))
            .map_err(|e| fail("request", &e))?;
        *req.headers_mut() = t.headers.clone();
        let resp = sender
            .send_request(req)
            .await
            .map_err(|e| fail("send", &e))?;
        let status = resp.status().as_u16();
        let body = resp
            .into_body()
            .collect()
            .await
            .map_err(|e| fail("read", &e))?
            .to_bytes();
        Ok(Answer { status, body })
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
