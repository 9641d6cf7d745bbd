//! The spec's public contract: a good spec parses, and every error names its field path
//! (`bulk.docs: ...`, `targets[0]: ...`).

use rustls::pki_types::ServerName;
use serde_json::{json, Value};
use shardlab_engine::spec::{ScheduleSpec, TlsSpec};
use shardlab_engine::{Runner, Spec};
use std::time::Duration;

fn good() -> Value {
    json!({
        "targets": ["http://127.0.0.1:9200"],
        "bulk_path": "/systembase/_bulk",
        "generator": {"kind": "systembase", "variant": "bulk", "seed": 42},
        "bulk": {"docs": 1000},
        "clients": 8,
        "schedule": {"kind": "closed"},
        "stop": {"duration_s": 60.0, "docs": null},
        "interval_s": 1.0,
        "retry": {"kind": "none"},
        "threads": 1,
        "request_timeout_s": 60.0,
        "drain_timeout_s": 30.0
    })
}

fn error_of(edit: impl FnOnce(&mut Value)) -> String {
    let mut v = good();
    edit(&mut v);
    Spec::from_json(&v.to_string()).unwrap_err().0
}

#[test]
fn a_good_spec_parses() {
    let s = Spec::from_json(&good().to_string()).unwrap();
    assert_eq!(s.clients, 8);
    assert!(s.headers.is_empty());
    assert_eq!(s.parsed_targets()[0].authority, "127.0.0.1:9200");
    let mut v = good();
    v["schedule"] = json!({"kind": "poisson", "rate_per_s": 20.0});
    v["retry"] = json!({"kind": "backoff", "max_attempts": 8, "initial_ms": 50, "max_ms": 5000});
    v["headers"] = json!([["Authorization", "Basic eDp5"]]);
    v["targets"] = json!(["http://es1/", "http://[::1]:9201"]);
    let s = Spec::from_json(&v.to_string()).unwrap();
    assert_eq!(s.schedule, ScheduleSpec::Poisson { rate_per_s: 20.0 });
    let t = s.parsed_targets();
    assert_eq!(
        (t[0].authority.as_str(), t[1].authority.as_str()),
        ("es1:80", "[::1]:9201")
    );
}

#[test]
fn https_targets_are_accepted() {
    let mut v = good();
    v["targets"] = json!([
        "https://es1:9200",
        "http://es2",
        "https://[::1]/",
        "https://10.0.0.1"
    ]);
    let s = Spec::from_json(&v.to_string()).unwrap();
    assert_eq!(s.tls, TlsSpec::default());
    assert!(s.tls.verify && s.tls.ca_file.is_none());
    let t = s.parsed_targets();
    let authorities: Vec<&str> = t.iter().map(|t| t.authority.as_str()).collect();
    assert_eq!(
        authorities,
        ["es1:9200", "es2:80", "[::1]:443", "10.0.0.1:443"]
    );
    let name = |i: usize| t[i].tls_name.clone();
    assert_eq!(name(0), Some(ServerName::try_from("es1").unwrap()));
    assert_eq!(name(1), None);
    assert!(matches!(name(2), Some(ServerName::IpAddress(_))));
    assert!(matches!(name(3), Some(ServerName::IpAddress(_))));
    let config = s.tls_config.expect("built for https targets");
    assert_eq!(config.alpn_protocols, [b"http/1.1".to_vec()]);
    // http only: nothing to build
    assert!(Spec::from_json(&good().to_string())
        .unwrap()
        .tls_config
        .is_none());
    // verify: false builds too
    v["tls"] = json!({"verify": false, "ca_file": null});
    let s = Spec::from_json(&v.to_string()).unwrap();
    assert!(!s.tls.verify && s.tls_config.is_some());
}

#[test]
fn messages_name_the_field() {
    assert_eq!(
        error_of(|v| v["clients"] = json!(0)),
        "clients: must be at least 1"
    );
    assert_eq!(
        error_of(|v| v["bulk"]["docs"] = json!("x")),
        "bulk.docs: invalid type: string \"x\", expected u64"
    );
    assert_eq!(
        error_of(|v| v["targets"] = json!(["ftp://a:9200"])),
        "targets[0]: expected http://host:port or https://host:port, got \"ftp://a:9200\""
    );
    assert_eq!(
        error_of(|v| v["targets"] = json!(["http://a", "https://a:99999"])),
        "targets[1]: bad host or port in \"https://a:99999\""
    );
    let e = error_of(|v| v["tls"] = json!({"verify": true, "bogus": 1}));
    assert!(e.starts_with("tls.bogus: unknown field `bogus`"), "{e}");
    let e = error_of(|v| v["tls"] = json!({"verify": "no"}));
    assert!(e.starts_with("tls.verify: invalid type"), "{e}");
    let e = error_of(|v| v["tls"] = json!({"ca_file": 3}));
    assert!(e.starts_with("tls.ca_file: invalid type"), "{e}");
    assert!(error_of(|v| v["targets"][0] = json!(3)).starts_with("targets[0]: invalid type"));
    assert!(error_of(|v| v["bogus"] = json!(1)).contains("unknown field `bogus`"));
    let e = error_of(|v| v["bulk"]["extra"] = json!(1));
    assert!(e.starts_with("bulk.extra: unknown field `extra`"), "{e}");
    assert_eq!(
        error_of(|v| v["bulk"] = json!({"docs": 1, "bytes": 2})),
        "bulk: set exactly one of docs or bytes"
    );
    assert_eq!(
        error_of(|v| v["bulk"] = json!({"docs": 0})),
        "bulk.docs: must be at least 1"
    );
    assert_eq!(
        error_of(|v| v["stop"] = json!({"duration_s": null, "docs": null})),
        "stop: set duration_s, docs, or both"
    );
    assert!(
        error_of(|v| v["schedule"] = json!({"kind": "fixed", "rate_per_s": 0.0}))
            .starts_with("schedule.rate_per_s: must be a positive number")
    );
    assert!(
        error_of(|v| v["schedule"] = json!({"kind": "warp"})).contains("unknown variant `warp`")
    );
    assert!(error_of(|v| v["generator"]["variant"] = json!("huge"))
        .starts_with("generator.variant: unknown variant `huge`"));
    assert_eq!(
        error_of(|v| v["retry"] =
            json!({"kind": "backoff", "max_attempts": 0, "initial_ms": 1, "max_ms": 2})),
        "retry.max_attempts: must be at least 1"
    );
    assert_eq!(
        error_of(|v| v["threads"] = json!(0)),
        "threads: must be at least 1"
    );
    assert!(error_of(|v| {
        v.as_object_mut().unwrap().remove("clients");
    })
    .contains("missing field `clients`"));
    assert_eq!(
        error_of(|v| v["headers"] = json!([["Bad Name", "x"]])),
        "headers[0]: invalid header name"
    );
    // Every request is built from it, so it is checked once, here.
    let e = error_of(|v| v["bulk_path"] = json!("/a b/_bulk"));
    assert!(e.starts_with("bulk_path: not a valid request path"), "{e}");
}

#[test]
fn bounds_are_checked() {
    let starts = |edit: fn(&mut Value), prefix: &str| {
        let e = error_of(edit);
        assert!(e.starts_with(prefix), "{e:?} should start with {prefix:?}");
    };
    starts(|v| v["interval_s"] = json!(0.0), "interval_s: ");
    starts(
        |v| v["interval_s"] = json!(0.0005),
        "interval_s: must be at least 0.001",
    );
    starts(|v| v["interval_s"] = json!(1e300), "interval_s: ");
    starts(|v| v["threads"] = json!(257), "threads: at most 256");
    starts(|v| v["clients"] = json!(100_001), "clients: at most 100000");
    starts(
        |v| v["bulk"] = json!({"docs": 100_001}),
        "bulk.docs: at most 100000",
    );
    starts(
        |v| v["bulk"] = json!({"bytes": 104_857_601u64}),
        "bulk.bytes: at most 104857600 (OpenSearch's default http.max_content_length)",
    );
    starts(
        |v| v["schedule"] = json!({"kind": "poisson", "rate_per_s": -1.0}),
        "schedule.rate_per_s: ",
    );
    starts(
        |v| v["request_timeout_s"] = json!(0.0),
        "request_timeout_s: ",
    );
    starts(|v| v["drain_timeout_s"] = json!(0.0), "drain_timeout_s: ");
    starts(|v| v["drain_timeout_s"] = json!(-1.0), "drain_timeout_s: ");
    starts(
        |v| v["stop"] = json!({"duration_s": 0.0, "docs": 5}),
        "stop.duration_s: ",
    );
    starts(
        |v| v["stop"] = json!({"duration_s": 5.0, "docs": 0}),
        "stop.docs: must be at least 1",
    );
    starts(
        |v| v["stop"] = json!({"duration_s": -1.0, "docs": null}),
        "stop.duration_s: ",
    );
    // the limits themselves are allowed
    let mut v = good();
    v["interval_s"] = json!(0.001);
    v["threads"] = json!(256);
    v["clients"] = json!(100_000);
    v["bulk"] = json!({"bytes": 104_857_600u64});
    assert!(Spec::from_json(&v.to_string()).is_ok());
    v["bulk"] = json!({"docs": 100_000});
    let s = Spec::from_json(&v.to_string()).unwrap();
    assert_eq!(s.interval(), Duration::from_millis(1));
}

#[test]
fn interval_is_never_zero() {
    let mut s = Spec::from_json(&good().to_string()).unwrap();
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        s.interval_s = bad;
        assert!(s.interval() >= Duration::from_millis(1), "{bad}");
    }
}

#[test]
fn a_docs_bulk_above_the_body_limit_is_refused_before_any_connection() {
    let mut v = good();
    v["generator"]["variant"] = json!("bigbulk");
    v["bulk"] = json!({"docs": 100_000});
    let e = Spec::from_json(&v.to_string()).unwrap_err().0;
    let (head, tail) = e.split_once("~").unwrap();
    assert_eq!(head, "bulk.docs: 100000 documents of ");
    assert!(tail.contains(" bytes make a ~2.3 GiB bulk body"), "{e}");
    assert!(
        e.ends_with(
            "above the 100 MiB limit (http.max_content_length): \
             use fewer --bulk-docs or --bulk-bytes"
        ),
        "{e}"
    );
    // the same through the runner, which opens nothing before compiling
    assert_eq!(Runner::new(&v.to_string()).err().unwrap().to_string(), e);
    // 1000 bigbulk docs are ~24 MB: fine, and the estimate says so
    v["bulk"] = json!({"docs": 1000});
    let s = Spec::from_json(&v.to_string()).unwrap();
    assert!((24_300_000..24_800_000).contains(&s.estimated_bulk_bytes));
    let r = Runner::new(&v.to_string()).unwrap();
    assert_eq!(r.estimated_bulk_bytes(), s.estimated_bulk_bytes);
    // a bytes bulk is estimated at its size
    v["bulk"] = json!({"bytes": 5_000_000});
    assert_eq!(
        Runner::new(&v.to_string()).unwrap().estimated_bulk_bytes(),
        5_000_000
    );
}
