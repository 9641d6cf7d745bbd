//! Runs against dead and dying targets: refused connections fail over to a live target and
//! are never counted as requests or latencies; requests whose connection breaks leave their
//! documents unknown; documents no target took are counted as not sent.

use serde_json::json;
use shardlab_engine::{NullSink, Runner, StopReason, Totals};
use std::io::Read;
use std::net::TcpListener;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A port on which nothing listens: bound, then let go.
fn dead_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn url(port: u16) -> String {
    format!("http://127.0.0.1:{port}")
}

fn spec(targets: &[String], clients: u32, duration_s: f64) -> String {
    json!({
        "targets": targets,
        "bulk_path": "/systembase/_bulk",
        "generator": {"kind": "systembase", "variant": "bulk", "seed": 42},
        "bulk": {"docs": 100},
        "clients": clients,
        "schedule": {"kind": "closed"},
        "stop": {"duration_s": duration_s, "docs": null},
        "interval_s": 0.5,
        "retry": {"kind": "none"},
        "threads": 2,
        "request_timeout_s": 10.0,
        "drain_timeout_s": 5.0
    })
    .to_string()
}

fn run(spec: &str) -> Totals {
    let r = Runner::new(spec).unwrap();
    r.start().unwrap();
    let t = r.finish().unwrap();
    assert_eq!(t.stopped_by, StopReason::Duration);
    t
}

#[test]
fn clients_of_a_dead_target_fail_over_to_the_live_one() {
    let sink = NullSink::start(0, 2).unwrap();
    // Clients 0 and 2 have the dead target as their home.
    let t = run(&spec(&[url(dead_port()), url(sink.port())], 4, 3.0));
    let c = t.counters;
    println!("connect_errors in 3 s: {}", c.connect_errors);
    assert!(c.docs_acked > 0);
    assert_eq!((c.docs_acked, c.requests), (sink.docs(), sink.requests()));
    assert_eq!(c.docs_sent, c.docs_acked, "every document sent was acked");
    assert_eq!(c.requests_ok, c.requests);
    let lost = (
        c.docs_failed,
        c.docs_rejected,
        c.docs_unknown,
        c.docs_not_sent,
    );
    assert_eq!(lost, (0, 0, 0, 0));
    // Probes only: a few per second per client at most, not thousands.
    assert!(
        c.connect_errors >= 1 && c.connect_errors < 4 * 3 * 4,
        "{c:?}"
    );
    // Only the sink's answers have latencies.
    assert_eq!(
        (t.service.count, t.response.count),
        (c.requests, c.requests)
    );
    assert_eq!(t.failed_service.count, 0);
    let per_target: Vec<(u64, u64)> = t
        .target_errors
        .iter()
        .map(|e| (e.connect_errors, e.transport_errors))
        .collect();
    assert_eq!(per_target, [(c.connect_errors, 0), (0, 0)]);
    assert_eq!(t.target_errors[1].url, url(sink.port()));
    assert_eq!(t.errors.len(), 1);
    assert_eq!(t.errors[0].kind, "connect");
}

/// Accepts connections, reads a little of each request, and closes it.
struct Breaker {
    port: u16,
    stop: Arc<AtomicBool>,
}

impl Breaker {
    fn start() -> Breaker {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        std::thread::spawn(move || {
            while !stopped.load(Relaxed) {
                match listener.accept() {
                    Ok((mut stream, _)) => {
                        stream.set_nonblocking(false).unwrap();
                        let _ = stream.read(&mut [0u8; 64]);
                    } // dropped: closed with most of the request unread
                    Err(_) => std::thread::sleep(Duration::from_millis(1)),
                }
            }
        });
        Breaker { port, stop }
    }
}

impl Drop for Breaker {
    fn drop(&mut self) {
        self.stop.store(true, Relaxed);
    }
}

#[test]
fn a_connection_broken_mid_request_leaves_its_documents_unknown() {
    let breaker = Breaker::start();
    let t = run(&spec(&[url(breaker.port)], 2, 1.0));
    let c = t.counters;
    println!("{c:?}");
    assert!(c.docs_unknown > 0);
    assert_eq!(c.docs_acked, 0);
    assert_eq!(c.docs_unknown, c.docs_sent, "each request sent broke");
    assert_eq!(c.requests_transport, c.requests);
    assert_eq!(t.target_errors[0].transport_errors, c.requests);
    // The target backs off each time (it takes connections, then drops them): no spinning.
    assert!(c.requests < 40, "{c:?}");
    assert_eq!(
        t.service.count + t.response.count + t.failed_service.count,
        0
    );
    assert!(t.errors.iter().any(|e| e.kind == "transport"), "{t:?}");
}

#[test]
fn documents_no_target_took_are_not_sent_and_the_run_still_ends() {
    let started = Instant::now();
    let t = run(&spec(&[url(dead_port()), url(dead_port())], 3, 0.5));
    let c = t.counters;
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!((c.requests, c.docs_sent, c.docs_acked), (0, 0, 0));
    assert_eq!(c.docs_not_sent, 3 * 100, "each client's one bulk");
    assert!(c.connect_errors >= 2 && c.connect_errors < 40, "{c:?}");
    let refused: u64 = t.target_errors.iter().map(|e| e.connect_errors).sum();
    assert_eq!(refused, c.connect_errors);
    assert_eq!(t.service.count, 0);
}

#[test]
fn a_docs_run_whose_every_target_stays_down_gives_up() {
    // Stopping only on a doc count, against two dead targets: without a give-up rule it
    // would wait for ever.
    let mut spec: serde_json::Value =
        serde_json::from_str(&spec(&[url(dead_port()), url(dead_port())], 2, 1.0)).unwrap();
    spec["stop"] = json!({"duration_s": null, "docs": 1_000_000});
    spec["unreachable_timeout_s"] = json!(1.0);
    let started = Instant::now();
    let r = Runner::new(&spec.to_string()).unwrap();
    r.start().unwrap();
    let t = r.finish().unwrap();
    assert_eq!(t.stopped_by, StopReason::Unreachable);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(t.counters.docs_not_sent, 2 * 100, "each client's one bulk");
    assert_eq!(t.counters.docs_acked, 0);
}

#[test]
fn a_node_killed_mid_run_loses_no_document_count() {
    let mut first = NullSink::start(0, 1).unwrap();
    let second = NullSink::start(0, 1).unwrap();
    let r = Runner::new(&spec(&[url(first.port()), url(second.port())], 4, 2.0)).unwrap();
    r.start().unwrap();
    std::thread::sleep(Duration::from_millis(700));
    first.close(); // like kill -9: its connections drop, its port refuses
    let killed_at = Instant::now();
    let acked_before = second.docs();
    let t = r.finish().unwrap();
    let c = t.counters;
    println!("{c:?}");
    let received = first.docs() + second.docs();
    // A request cut off by the kill may have been received (the sink counts it) but never
    // answered: its documents are unknown, not acked, not failed.
    assert!(c.docs_acked <= received && received <= c.docs_acked + c.docs_unknown);
    assert_eq!(c.docs_sent, c.docs_acked + c.docs_unknown);
    assert_eq!((c.docs_failed, c.docs_not_sent), (0, 0));
    assert!(
        second.docs() > acked_before,
        "the clients went on with the live node"
    );
    assert!(c.connect_errors < 4 * 4 * 2, "{c:?}");
    assert!(killed_at.elapsed() < Duration::from_secs(3));
    assert_eq!(t.service.count, c.requests_ok);
    assert_eq!(t.target_errors[0].transport_errors, c.requests_transport);
}

#[test]
fn requests_abandoned_at_the_drain_timeout_leave_their_documents_unknown() {
    // Listening, never accepting: connections complete in the backlog, nothing answers.
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let mut v: serde_json::Value =
        serde_json::from_str(&spec(&[url(silent.local_addr().unwrap().port())], 2, 0.3)).unwrap();
    v["drain_timeout_s"] = json!(0.3);
    let t = run(&v.to_string());
    let c = t.counters;
    assert_eq!(t.in_flight_abandoned, 2);
    assert_eq!(c.docs_unknown, 2 * 100);
    // Abandoned requests are not counted as requests (`in_flight_abandoned` counts them).
    assert_eq!((c.requests, c.docs_sent, c.docs_not_sent), (0, 0, 0));
}
