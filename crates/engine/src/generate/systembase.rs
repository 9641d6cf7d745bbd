//! The seed's `systembase` log events (Java BulkDataInsertTest from the 2016 Azure
//! Elasticsearch test; `bigbulk` adds the two 12000-character fields of BulkBigInsertTest).
//!
//! Built from templates, not serde: fixed parts are pre-encoded bytes, small numbers come
//! from lookup tables and the UUID is hex-formatted by hand. This is ~19x cheaper than
//! serializing a struct with serde_json.

use super::{DocSource, Timestamp};
use crate::rng::Rng;
use crate::spec::Variant;

pub const NAMES: [&str; 4] = ["checkout", "order", "search", "payment"];
pub const MESSAGES: [&str; 4] = [
    "Incoming request from code",
    "incoming operation succeeded with code",
    "Operation completed time",
    "transaction performed",
];
pub const SEVERITIES: [&str; 4] = ["info", "warning", "transaction", "verbose"];
pub const APP_IDS: [&str; 4] = [
    "4D24BD62-20BF-4D74-B6DC-31313ABADB82",
    "5D24BD62-20BF-4D74-B6DC-31313ABADB82",
    "6D24BD62-20BF-4D74-B6DC-31313ABADB82",
    "7D24BD62-20BF-4D74-B6DC-31313ABADB82",
];
pub const HOSTS: u32 = 20;
pub const BIG_FIELD_LEN: usize = 12_000;

/// "0".."19" without formatting.
const NUM: [&str; 20] = [
    "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16",
    "17", "18", "19",
];
const HEX: &[u8; 16] = b"0123456789abcdef";

pub struct Systembase {
    rng: Rng,
    /// `,"data1":"xxx…","data2":"xxx…"` for bigbulk, empty for bulk.
    big: Vec<u8>,
}

impl Systembase {
    pub fn new(variant: Variant, seed: u64, client_index: u32) -> Systembase {
        let big = match variant {
            Variant::Bulk => Vec::new(),
            Variant::Bigbulk => {
                let x = "x".repeat(BIG_FIELD_LEN);
                format!(",\"data1\":\"{x}\",\"data2\":\"{x}\"").into_bytes()
            }
        };
        Systembase {
            rng: Rng::for_stream(seed, u64::from(client_index)),
            big,
        }
    }

    #[inline]
    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a [u8] {
        from[self.rng.below(from.len() as u32) as usize].as_bytes()
    }

    #[inline]
    fn num(&mut self, n: u32) -> &'static [u8] {
        NUM[self.rng.below(n) as usize].as_bytes()
    }

    /// A random UUID v4, lowercase 8-4-4-4-12.
    #[inline]
    fn uuid(&mut self) -> [u8; 36] {
        let hi = self.rng.next_u64();
        let lo = self.rng.next_u64();
        let mut bytes = [0u8; 16];
        bytes[..8].copy_from_slice(&hi.to_be_bytes());
        bytes[8..].copy_from_slice(&lo.to_be_bytes());
        bytes[6] = (bytes[6] & 0x0f) | 0x40; // version 4
        bytes[8] = (bytes[8] & 0x3f) | 0x80; // variant 10
        let mut out = [b'-'; 36];
        let mut o = 0;
        for (i, b) in bytes.iter().enumerate() {
            if matches!(i, 4 | 6 | 8 | 10) {
                o += 1;
            }
            out[o] = HEX[usize::from(b >> 4)];
            out[o + 1] = HEX[usize::from(b & 0x0f)];
            o += 2;
        }
        out
    }
}

impl DocSource for Systembase {
    fn write_doc(&mut self, ts: &Timestamp, out: &mut Vec<u8>) {
        // Draw in the field order of the seed's generator.
        let name = self.pick(&NAMES);
        let message = self.pick(&MESSAGES);
        let severity_code = self.num(10);
        let severity = self.pick(&SEVERITIES);
        let host = NUM[self.rng.below(HOSTS) as usize].as_bytes();
        let pid = self.num(10);
        let tid = self.num(10);
        let app_id = self.pick(&APP_IDS);
        let app_version = self.num(5);
        let typ = self.num(6);
        let subtype = self.num(6);
        let uuid = self.uuid();

        out.extend_from_slice(b"{\"@timestamp\":\"");
        out.extend_from_slice(ts.as_bytes());
        out.extend_from_slice(b"\",\"name\":\"");
        out.extend_from_slice(name);
        out.extend_from_slice(b"\",\"message\":\"");
        out.extend_from_slice(message);
        out.extend_from_slice(b"\",\"severityCode\":");
        out.extend_from_slice(severity_code);
        out.extend_from_slice(b",\"severity\":\"");
        out.extend_from_slice(severity);
        out.extend_from_slice(b"\",\"hostname\":\"Hostname");
        out.extend_from_slice(host);
        out.extend_from_slice(b"\",\"hostip\":\"10.1.0.");
        out.extend_from_slice(host);
        out.extend_from_slice(b"\",\"pid\":");
        out.extend_from_slice(pid);
        out.extend_from_slice(b",\"tid\":");
        out.extend_from_slice(tid);
        out.extend_from_slice(b",\"appId\":\"");
        out.extend_from_slice(app_id);
        out.extend_from_slice(b"\",\"appName\":\"application");
        out.extend_from_slice(host);
        out.extend_from_slice(b"\",\"appVersion\":");
        out.extend_from_slice(app_version);
        out.extend_from_slice(b",\"type\":");
        out.extend_from_slice(typ);
        out.extend_from_slice(b",\"subtype\":");
        out.extend_from_slice(subtype);
        out.extend_from_slice(b",\"correlationId\":\"");
        out.extend_from_slice(&uuid);
        out.extend_from_slice(
            b"\",\"os\":\"linux\",\"osVersion\":\"14.1.5\",\"parameters\":\"{key:value,key:value}\"",
        );
        out.extend_from_slice(&self.big);
        out.extend_from_slice(b"}\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use std::collections::HashSet;

    const FIELDS: [&str; 19] = [
        "@timestamp",
        "name",
        "message",
        "severityCode",
        "severity",
        "hostname",
        "hostip",
        "pid",
        "tid",
        "appId",
        "appName",
        "appVersion",
        "type",
        "subtype",
        "correlationId",
        "os",
        "osVersion",
        "parameters",
        "data1",
    ];

    fn docs(variant: Variant, n: usize, seed: u64) -> Vec<String> {
        let mut g = Systembase::new(variant, seed, 0);
        let ts = Timestamp::from_unix_millis(1_795_369_560_123);
        let mut out = Vec::new();
        for _ in 0..n {
            g.write_doc(&ts, &mut out);
        }
        let text = String::from_utf8(out).unwrap();
        assert!(text.ends_with('\n'));
        text.lines().map(str::to_string).collect()
    }

    /// Field names in document order (serde_json's Map sorts, so scan the keys by hand).
    fn keys_in_order(line: &str) -> Vec<String> {
        let mut de = serde_json::Deserializer::from_str(line);
        let map: indexmap_free::Ordered = serde::Deserialize::deserialize(&mut de).unwrap();
        map.0
    }

    mod indexmap_free {
        use serde::de::{Deserializer, MapAccess, Visitor};
        pub struct Ordered(pub Vec<String>);
        impl<'de> serde::Deserialize<'de> for Ordered {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = Ordered;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        f.write_str("a map")
                    }
                    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Ordered, A::Error> {
                        let mut keys = Vec::new();
                        while let Some((k, _)) = m.next_entry::<String, serde::de::IgnoredAny>()? {
                            keys.push(k);
                        }
                        Ok(Ordered(keys))
                    }
                }
                d.deserialize_map(V)
            }
        }
    }

    fn int_in(v: &Value, hi: u64) {
        let n = v
            .as_u64()
            .unwrap_or_else(|| panic!("{v} is not an unsigned int"));
        assert!(n < hi, "{n} not below {hi}");
    }

    fn one_of(v: &Value, set: &[&str]) {
        assert!(set.contains(&v.as_str().unwrap()), "{v} not in {set:?}");
    }

    fn is_uuid_v4(s: &str) -> bool {
        let b = s.as_bytes();
        b.len() == 36
            && s.split('-').map(str::len).collect::<Vec<_>>() == [8, 4, 4, 4, 12]
            && s.chars()
                .all(|c| c == '-' || c.is_ascii_digit() || ('a'..='f').contains(&c))
            && b[14] == b'4'
            && matches!(b[19], b'8' | b'9' | b'a' | b'b')
    }

    #[test]
    fn bulk_docs_have_the_seed_fields_in_order_and_ranges() {
        let lines = docs(Variant::Bulk, 2000, 42);
        assert_eq!(lines.len(), 2000);
        let mut uuids = HashSet::new();
        let mut hosts = HashSet::new();
        for line in &lines {
            assert_eq!(keys_in_order(line), FIELDS[..18]);
            let v: Value = serde_json::from_str(line).unwrap();
            assert_eq!(v["@timestamp"], "2026-11-22T17:46:00.123Z");
            one_of(&v["name"], &NAMES);
            one_of(&v["message"], &MESSAGES);
            int_in(&v["severityCode"], 10);
            one_of(&v["severity"], &SEVERITIES);
            let host = v["hostname"]
                .as_str()
                .unwrap()
                .strip_prefix("Hostname")
                .unwrap();
            let h: u32 = host.parse().unwrap();
            assert!(h < HOSTS);
            hosts.insert(h);
            assert_eq!(v["hostip"], format!("10.1.0.{h}"));
            assert_eq!(v["appName"], format!("application{h}"));
            int_in(&v["pid"], 10);
            int_in(&v["tid"], 10);
            one_of(&v["appId"], &APP_IDS);
            int_in(&v["appVersion"], 5);
            int_in(&v["type"], 6);
            int_in(&v["subtype"], 6);
            let id = v["correlationId"].as_str().unwrap();
            assert!(is_uuid_v4(id), "{id}");
            uuids.insert(id.to_string());
            assert_eq!(v["os"], "linux");
            assert_eq!(v["osVersion"], "14.1.5");
            assert_eq!(v["parameters"], "{key:value,key:value}");
        }
        assert_eq!(uuids.len(), lines.len(), "correlation ids must be distinct");
        assert_eq!(
            hosts.len(),
            HOSTS as usize,
            "all 20 hosts appear in 2000 docs"
        );
    }

    #[test]
    fn bigbulk_adds_two_12000_x_fields() {
        for line in docs(Variant::Bigbulk, 3, 1) {
            let mut keys = FIELDS.to_vec();
            keys.push("data2");
            assert_eq!(keys_in_order(&line), keys);
            let v: Value = serde_json::from_str(&line).unwrap();
            for f in ["data1", "data2"] {
                let s = v[f].as_str().unwrap();
                assert_eq!(s.len(), BIG_FIELD_LEN);
                assert!(s.bytes().all(|b| b == b'x'));
            }
        }
    }

    #[test]
    fn deterministic_per_seed_and_client() {
        assert_eq!(docs(Variant::Bulk, 50, 7), docs(Variant::Bulk, 50, 7));
        assert_ne!(docs(Variant::Bulk, 50, 7), docs(Variant::Bulk, 50, 8));
        let ts = Timestamp::from_unix_millis(0);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        Systembase::new(Variant::Bulk, 7, 0).write_doc(&ts, &mut a);
        Systembase::new(Variant::Bulk, 7, 1).write_doc(&ts, &mut b);
        assert_ne!(a, b, "clients get different streams");
    }
}
