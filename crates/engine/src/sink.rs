//! NullSink: a minimal HTTP/1.1 server on 127.0.0.1 that answers every bulk request at once
//! with `errors:false` and one item per action line. For tests and bench/, it runs on its
//! own threads so a Python process can host it while another process drives it.

use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::thread::JoinHandle;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::sync::watch;

/// The item for each document, shaped like a real OpenSearch answer.
const ITEM: &[u8] = br#"{"index":{"_index":"sink","_id":"0","_version":1,"result":"created","_shards":{"total":1,"successful":1,"failed":0},"_seq_no":0,"_primary_term":1,"status":201}}"#;

/// What a sink has answered: bulk requests (POSTs) and their documents (action lines).
#[derive(Default)]
pub struct Stats {
    pub requests: AtomicU64,
    pub docs: AtomicU64,
}

pub struct NullSink {
    port: u16,
    stats: Arc<Stats>,
    shutdown: watch::Sender<bool>,
    thread: Option<JoinHandle<()>>,
}

impl NullSink {
    pub fn start(port: u16, threads: usize) -> io::Result<NullSink> {
        let mut builder = if threads <= 1 {
            tokio::runtime::Builder::new_current_thread()
        } else {
            let mut b = tokio::runtime::Builder::new_multi_thread();
            b.worker_threads(threads);
            b
        };
        let rt = builder.enable_all().thread_name("shardlab-sink").build()?;
        let std_listener = std::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], port)))?;
        std_listener.set_nonblocking(true)?;
        let port = std_listener.local_addr()?.port();
        let stats = Arc::new(Stats::default());
        let (shutdown, mut shutdown_rx) = watch::channel(false);
        let st = stats.clone();
        let thread = std::thread::Builder::new()
            .name("shardlab-sink".into())
            .spawn(move || {
                rt.block_on(async move {
                    let listener = match TcpListener::from_std(std_listener) {
                        Ok(l) => l,
                        Err(_) => return,
                    };
                    loop {
                        tokio::select! {
                            _ = shutdown_rx.wait_for(|s| *s) => break,
                            accepted = listener.accept() => {
                                if let Ok((stream, _)) = accepted {
                                    let _ = stream.set_nodelay(true);
                                    tokio::spawn(serve(stream, st.clone()));
                                }
                            }
                        }
                    }
                });
                rt.shutdown_background();
            })?;
        Ok(NullSink {
            port,
            stats,
            shutdown,
            thread: Some(thread),
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn requests(&self) -> u64 {
        self.stats.requests.load(Relaxed)
    }

    pub fn docs(&self) -> u64 {
        self.stats.docs.load(Relaxed)
    }

    /// Stop accepting and drop every connection. Safe to call twice.
    pub fn close(&mut self) {
        self.shutdown.send_replace(true);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for NullSink {
    fn drop(&mut self) {
        self.close();
    }
}

/// Count action lines: lines starting with `{"index"` or `{"create"`.
pub fn count_actions(body: &[u8]) -> u64 {
    let is_action =
        |line: &[u8]| line.starts_with(b"{\"index\"") || line.starts_with(b"{\"create\"");
    let mut n = u64::from(is_action(body));
    for nl in memchr::memchr_iter(b'\n', body) {
        n += u64::from(is_action(&body[nl + 1..]));
    }
    n
}

fn content_length(head: &[u8]) -> Option<usize> {
    for line in head.split(|&b| b == b'\n') {
        if line.len() > 15 && line[..15].eq_ignore_ascii_case(b"content-length:") {
            return std::str::from_utf8(&line[15..]).ok()?.trim().parse().ok();
        }
    }
    Some(0)
}

/// A bulk sink over any stream, for tests and bench: serve one keep-alive connection until
/// the peer closes it, counting into `stats` (over TCP in `NullSink`; over TLS in the TLS
/// tests).
pub async fn serve<S>(mut stream: S, stats: Arc<Stats>) -> io::Result<()>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let mut buf: Vec<u8> = Vec::with_capacity(1 << 16);
    let mut items: Vec<u8> = Vec::new(); // ITEM,ITEM,... grown on demand, reused
    let mut head = Vec::with_capacity(1 << 16);
    loop {
        // Read up to the end of the headers.
        let mut searched = 0;
        let head_end = loop {
            if let Some(p) = memchr::memmem::find(&buf[searched..], b"\r\n\r\n") {
                break searched + p + 4;
            }
            searched = buf.len().saturating_sub(3);
            buf.reserve(1 << 16);
            if stream.read_buf(&mut buf).await? == 0 {
                return Ok(());
            }
        };
        let Some(len) = content_length(&buf[..head_end]) else {
            stream
                .write_all(
                    b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                )
                .await?;
            return Ok(());
        };
        let total = head_end + len;
        if buf.len() < total {
            buf.reserve(total - buf.len());
        }
        while buf.len() < total {
            if stream.read_buf(&mut buf).await? == 0 {
                return Ok(());
            }
        }
        let is_post = buf.starts_with(b"POST ");
        let n = if is_post {
            count_actions(&buf[head_end..total])
        } else {
            0
        };
        stats.requests.fetch_add(u64::from(is_post), Relaxed);
        stats.docs.fetch_add(n, Relaxed);
        buf.drain(..total);

        let n = n as usize;
        let need = n * (ITEM.len() + 1);
        while items.len() < need {
            items.extend_from_slice(ITEM);
            items.push(b',');
        }
        let list = &items[..need.saturating_sub(1)];
        const PREFIX: &[u8] = br#"{"took":0,"errors":false,"items":["#;
        head.clear();
        head.extend_from_slice(
            b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ",
        );
        head.extend_from_slice((PREFIX.len() + list.len() + 2).to_string().as_bytes());
        head.extend_from_slice(b"\r\n\r\n");
        head.extend_from_slice(PREFIX);
        head.extend_from_slice(list);
        head.extend_from_slice(b"]}");
        stream.write_all(&head).await?; // one write: headers and body in one segment train
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_action_lines() {
        let body = b"{\"index\":{}}\n{\"a\":1}\n{\"index\":{}}\n{\"b\":\"{\\\"index\\\"\"}\n";
        assert_eq!(count_actions(body), 2);
        assert_eq!(count_actions(b""), 0);
    }

    #[test]
    fn answers_a_bulk_request() {
        use std::io::{Read, Write};
        let mut sink = NullSink::start(0, 1).unwrap();
        let body = "{\"index\":{}}\n{\"a\":1}\n{\"index\":{}}\n{\"a\":2}\n";
        let mut s = std::net::TcpStream::connect(("127.0.0.1", sink.port())).unwrap();
        for _ in 0..2 {
            write!(
                s,
                "POST /x/_bulk HTTP/1.1\r\nHost: a\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )
            .unwrap();
            let mut got = Vec::new();
            let mut chunk = [0u8; 4096];
            while !got.ends_with(b"]}") {
                let k = s.read(&mut chunk).unwrap();
                assert!(k > 0);
                got.extend_from_slice(&chunk[..k]);
            }
            let text = String::from_utf8(got).unwrap();
            let json = text.split("\r\n\r\n").nth(1).unwrap();
            let v: serde_json::Value = serde_json::from_str(json).unwrap();
            assert_eq!(v["errors"], false);
            assert_eq!(v["items"].as_array().unwrap().len(), 2);
        }
        assert_eq!((sink.requests(), sink.docs()), (2, 4));
        sink.close();
        sink.close();
    }
}
