// The harness of rocketmq-client-rust (crates.io) for the suite's exec protocol
// (docs/reference/pipe.md), built by clients/rust/build.py against the version under test. It calls
// the crate's own code and answers what it returned:
//
//   - allocate: the crate's AllocateMessageQueueStrategy impls (AllocateMessageQueueAveragely,
//     ...ByCircle, ...ByConfig, ...ByMachineRoom, ...ByMachineRoomNearby with the request's inner
//     strategy and room resolver, ...ConsistentHash::try_new), which 1.0.0 re-exports from
//     rocketmq-model (allocation.rs), on the request's lists, each queue the crate's MessageQueue.
//     An Err is answered as its error, "illegal-argument" where its code is core.argument.invalid
//     (the crate keeps no message: rocketmq-model error.rs drops the detail), a panic as "other".
//   - select, SELECTOR_HASH: SelectMessageQueueByHash's select on TopicTest/broker-a/0..n-1, its
//     argument a Rust value of the crate's JavaHashCode: a &str, an i32, an i64, or an object whose
//     java_hash_code() is the argument's hashCode. A select that returns None is {"index": null}.
//
// What the crate's API cannot be given is unsupported (a whole request) or notRun (a select call),
// never a made-up answer: a null mqAll, cidAll, consumerGroup or currentCID (it takes slices and
// &CheetahString, which have no null); a lone UTF-16 surrogate (a Rust string cannot hold one); a
// null select argument (JavaHashCode has no null); SELECTOR_RANDOM (rand::rng(), seeded by the
// system: Java's Random seed cannot be given); FAULT_STRATEGY (its TopicPublishInfo is private, its
// counter starts at a random value and has no setter, its clock is the system's); and the sort
// (RebalanceImpl is pub(crate), so its rebalance cannot be reached: "sort": false).
use std::collections::HashMap;
use std::collections::HashSet;
use std::io::BufRead;
use std::io::Write;
use std::panic::catch_unwind;
use std::panic::AssertUnwindSafe;

use cheetah_string::CheetahString;
use rocketmq_client_rust::AllocateMessageQueueAveragely;
use rocketmq_client_rust::AllocateMessageQueueAveragelyByCircle;
use rocketmq_client_rust::AllocateMessageQueueByConfig;
use rocketmq_client_rust::AllocateMessageQueueByMachineRoom;
use rocketmq_client_rust::AllocateMessageQueueByMachineRoomNearby;
use rocketmq_client_rust::AllocateMessageQueueConsistentHash;
use rocketmq_client_rust::AllocateMessageQueueStrategy;
use rocketmq_client_rust::JavaHashCode;
use rocketmq_client_rust::MachineRoomResolver;
use rocketmq_client_rust::MessageQueueSelector;
use rocketmq_client_rust::SelectMessageQueueByHash;
use rocketmq_model::common::message::message_queue::MessageQueue;
use rocketmq_model::common::message::message_single::Message;
use serde_json::json;
use serde_json::Value;

const CRATE: &str = "rocketmq-client-rust";
/// the version cargo resolved and the crate's repository, as build.py read them from cargo metadata
const VERSION: &str = env!("RMQ_CRATE_VERSION");
const REPOSITORY: &str = env!("RMQ_CRATE_REPOSITORY");
/// the longest list a select is run on (Java's harness answers for any int: its list is virtual)
const MAX_QUEUES: i64 = 1 << 20;

type Strategy = Box<dyn AllocateMessageQueueStrategy>;
type Answer = Result<Value, String>; // Err: why the request is unsupported

fn main() {
    std::panic::set_hook(Box::new(|info| eprintln!("{CRATE} harness: panic: {info}")));
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { return };
        let lone = has_lone_surrogate(&line);
        let request: Value = match serde_json::from_str(&if lone { mask_surrogates(&line) } else { line.clone() }) {
            Ok(request) => request,
            Err(err) => {
                eprintln!("{CRATE} harness: not a request: {err}");
                std::process::exit(2);
            }
        };
        let id = request.get("id").cloned().unwrap_or(Value::Null);
        let cmd = request["cmd"].as_str().unwrap_or_default().to_string();
        let answer = match cmd.as_str() {
            "hello" => hello(),
            "bye" => return,
            _ if lone => unsupported(&id, "a lone UTF-16 surrogate in a string, which a Rust string cannot hold"),
            "allocate" => with_id(&id, allocate(&request)),
            "select" => with_id(&id, select(&request)),
            "trace" => unsupported(&id, FAULT_STRATEGY),
            _ => unsupported(&id, &format!("{CRATE} answers no {cmd}")),
        };
        let mut text = answer.to_string();
        text.push('\n');
        if out.write_all(text.as_bytes()).and_then(|()| out.flush()).is_err() {
            return;
        }
    }
}

fn hello() -> Value {
    json!({
        "protocol": 1,
        "implementation": {"name": CRATE, "language": "Rust", "version": VERSION, "homepage": REPOSITORY},
        "strategies": ["AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH", "CONFIG", "MACHINE_ROOM", "MACHINE_ROOM_NEARBY",
                       "SELECTOR_HASH", "SELECTOR_RANDOM", "FAULT_STRATEGY"],
        "sort": false,
    })
}

const FAULT_STRATEGY: &str = "MQFaultStrategy::select_one_message_queue takes a TopicPublishInfo, which the crate keeps \
private (src/lib.rs:78 mod producer; topic_route_data2topic_publish_info in src/lib.rs:70 mod factory), whose counter \
ThreadLocalIndex starts at a draw of a SmallRng seeded by rand::random() and has no setter \
(src/common/thread_local_index.rs:26,46), and whose fault table reads the system clock (SystemFaultClock, \
src/latency/latency_fault_tolerance_impl.rs:44): Java's pinned counter and clock cannot be given";

fn unsupported(id: &Value, why: &str) -> Value {
    json!({"id": id, "unsupported": why})
}

fn with_id(id: &Value, answer: Answer) -> Value {
    match answer {
        Ok(Value::Object(mut fields)) => {
            fields.insert("id".into(), id.clone());
            Value::Object(fields)
        }
        Ok(other) => other,
        Err(why) => unsupported(id, &why),
    }
}

// -- allocate ---------------------------------------------------------------------------------

fn queue(raw: &Value) -> Result<MessageQueue, String> {
    match raw.as_array().map(Vec::as_slice) {
        Some([Value::String(topic), Value::String(broker), id]) => {
            let id = id.as_i64().and_then(|id| i32::try_from(id).ok()).ok_or_else(|| format!("queueId {id} is not an int"))?;
            Ok(MessageQueue::from_parts(topic.as_str(), broker.as_str(), id))
        }
        _ => Err(format!("a queue is [topic, brokerName, queueId], not {raw}")),
    }
}

fn queues(raw: &Value, what: &str, takes: &str) -> Result<Vec<MessageQueue>, String> {
    match raw {
        Value::Null => Err(format!("a null {what}: {takes}, which has no null")),
        Value::Array(items) => items.iter().map(queue).collect(),
        _ => Err(format!("{what} is not a list")),
    }
}

fn text(raw: &Value, what: &str) -> Result<CheetahString, String> {
    match raw {
        Value::String(text) => Ok(CheetahString::from(text.as_str())),
        Value::Null => Err(format!("a null {what}: the crate's allocate takes a &CheetahString, which has no null")),
        _ => Err(format!("{what} is not a string")),
    }
}

fn queue_json(queues: &[MessageQueue]) -> Value {
    queues.iter().map(|mq| json!([mq.topic_str(), mq.broker_name().as_str(), mq.queue_id()])).collect()
}

/// The crate's strategy for a family and its params (Err: why there is none); a constructor that
/// refuses the params is Ok(Err(its error)), which every caller is then answered with.
fn strategy(family: &str, params: &Value) -> Result<Result<Strategy, Value>, String> {
    Ok(Ok(match family {
        "AVG" => Box::new(AllocateMessageQueueAveragely),
        "AVG_BY_CIRCLE" => Box::new(AllocateMessageQueueAveragelyByCircle),
        "CONSISTENT_HASH" => {
            let count = match &params["virtualNodeCnt"] {
                Value::Null => 10, // Java's default constructor's
                count => count.as_i64().and_then(|c| i32::try_from(c).ok()).ok_or("virtualNodeCnt is not an int")?,
            };
            match AllocateMessageQueueConsistentHash::try_new(count) {
                Ok(strategy) => Box::new(strategy),
                Err(err) => return Ok(Err(error(&err))),
            }
        }
        "CONFIG" => Box::new(AllocateMessageQueueByConfig::new(queues(&params["messageQueueList"], "messageQueueList", "AllocateMessageQueueByConfig::new takes a Vec")?)),
        "MACHINE_ROOM" => {
            let rooms = match &params["consumeridcs"] {
                Value::Array(rooms) => rooms,
                Value::Null => return Err("a null consumeridcs: AllocateMessageQueueByMachineRoom::new takes a HashSet, which has no null".into()),
                _ => return Err("consumeridcs is not a list".into()),
            };
            let rooms: HashSet<CheetahString> = rooms.iter().map(|room| text(room, "consumeridcs entry")).collect::<Result<_, _>>()?;
            Box::new(AllocateMessageQueueByMachineRoom::new(rooms))
        }
        "MACHINE_ROOM_NEARBY" => {
            let inner = &params["inner"];
            let inner = match strategy(inner["strategy"].as_str().unwrap_or_default(), &inner["params"])? {
                Ok(inner) => inner,
                Err(err) => return Ok(Err(err)),
            };
            Box::new(AllocateMessageQueueByMachineRoomNearby::new(inner, Box::new(Rooms::new(&params["resolver"])?)))
        }
        _ => return Err(format!("{CRATE} has no {family}")),
    }))
}

/// The request's machine-room resolver, as Java's harness builds it: a lookup in two maps, or the
/// part of the name before its first separator (Java's name.split(separator)[0]).
enum Rooms {
    Map(HashMap<String, String>, HashMap<String, String>),
    Split(char),
}

impl Rooms {
    fn new(spec: &Value) -> Result<Self, String> {
        let map = |raw: &Value| -> HashMap<String, String> {
            raw.as_object()
                .map(|entries| entries.iter().filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string()))).collect())
                .unwrap_or_default()
        };
        match spec["kind"].as_str() {
            Some("map") => Ok(Rooms::Map(map(&spec["brokerRoom"]), map(&spec["consumerRoom"]))),
            Some("split") => {
                let separator = spec["separator"].as_str().unwrap_or_default();
                let mut chars = separator.chars();
                match (chars.next(), chars.next()) {
                    // one character that is not a regex's: Java's split takes it literally
                    (Some(c), None) if !".$|()[{^?*+\\".contains(c) => Ok(Rooms::Split(c)),
                    _ => Err(format!("the harness splits on one literal character, not the regex {separator:?}")),
                }
            }
            _ => Err(format!("no resolver of kind {}", spec["kind"])),
        }
    }

    fn room(&self, name: &str, broker: bool) -> Option<CheetahString> {
        match self {
            Rooms::Map(brokers, consumers) => (if broker { brokers } else { consumers }).get(name).map(|room| room.as_str().into()),
            Rooms::Split(separator) => {
                // Java drops the trailing empty strings: a name of separators only leaves none,
                // and [0] throws ArrayIndexOutOfBoundsException (a panic here, inside the strategy)
                if !name.is_empty() && name.chars().all(|c| c == *separator) {
                    panic!("ArrayIndexOutOfBoundsException: Index 0 out of bounds for length 0");
                }
                Some(name.split(*separator).next().unwrap_or_default().into())
            }
        }
    }
}

impl MachineRoomResolver for Rooms {
    fn broker_deploy_in(&self, message_queue: &MessageQueue) -> Option<CheetahString> {
        self.room(message_queue.broker_name().as_str(), true)
    }

    fn consumer_deploy_in(&self, client_id: &CheetahString) -> Option<CheetahString> {
        self.room(client_id.as_str(), false)
    }
}

fn error(err: &dyn std::fmt::Display) -> Value {
    let message = err.to_string();
    let kind = if message.starts_with("core.argument.invalid") { "illegal-argument" } else { "other" };
    json!({"error": kind, "message": message})
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| panic.downcast_ref::<String>().cloned()).unwrap_or_else(|| "panic".into())
}

fn allocate(request: &Value) -> Answer {
    let family = request["strategy"].as_str().unwrap_or_default();
    let build = strategy(family, &request["params"])?;
    let group = text(&request["consumerGroup"], "consumerGroup")?;
    let mq_all = queues(&request["mqAll"], "mqAll", "the crate's allocate takes a slice")?;
    let cid_all = match &request["cidAll"] {
        Value::Array(items) => items.iter().map(|cid| text(cid, "cidAll entry")).collect::<Result<Vec<_>, _>>()?,
        Value::Null => return Err("a null cidAll: the crate's allocate takes a slice, which has no null".into()),
        _ => return Err("cidAll is not a list".into()),
    };
    let callers = request["callers"].as_array().ok_or("callers is not a list")?;
    let callers = callers.iter().map(|cid| text(cid, "currentCID")).collect::<Result<Vec<_>, _>>()?;
    let answers: Vec<Value> = callers
        .iter()
        .map(|cid| match &build {
            Err(refused) => refused.clone(),
            Ok(strategy) => {
                let (mqs, cids) = (mq_all.clone(), cid_all.clone()); // fresh copies for each call
                match catch_unwind(AssertUnwindSafe(|| strategy.allocate(&group, cid, &mqs, &cids))) {
                    Ok(Ok(got)) => json!({"queues": queue_json(&got)}),
                    Ok(Err(err)) => error(&err),
                    Err(panic) => json!({"error": "other", "message": panic_message(&*panic)}),
                }
            }
        })
        .collect();
    Ok(json!({"answers": answers}))
}

// -- select -----------------------------------------------------------------------------------

/// an object whose hashCode() returns the argument's value, as the crate lets a caller hand one
struct HashCodeOf(i32);

impl JavaHashCode for HashCodeOf {
    fn java_hash_code(&self) -> i32 {
        self.0
    }
}

enum Arg {
    Text(String),
    Int(i32),
    Long(i64),
    HashCode(HashCodeOf),
}

fn select(request: &Value) -> Answer {
    let counts = request["queueCounts"].as_array().ok_or("queueCounts is not a list")?;
    let arg = &request["arg"];
    let int = |value: &Value| value.as_i64().and_then(|v| i32::try_from(v).ok());
    let argument = match (arg["type"].as_str(), &arg["value"]) {
        (Some("string"), Value::String(text)) => Some(Arg::Text(text.clone())),
        (Some("integer"), value) => int(value).map(Arg::Int),
        (Some("long"), value) => value.as_i64().map(Arg::Long),
        (Some("hashCode"), value) => int(value).map(|v| Arg::HashCode(HashCodeOf(v))),
        _ => None,
    }
    .ok_or_else(|| format!("SelectMessageQueueByHash takes an &A where A: JavaHashCode, a reference: it cannot be given {arg}"));
    let answers: Vec<Value> = counts
        .iter()
        .map(|count| {
            if request["strategy"] == "SELECTOR_RANDOM" {
                return json!({"notRun": "SelectMessageQueueByRandom draws from rand::rng(), the thread's generator seeded by \
                    the system (src/producer/queue_selector/select_message_queue_by_random.rs:63): Java's Random seed cannot be given"});
            }
            let argument = match &argument {
                Ok(argument) => argument,
                Err(why) => return json!({"notRun": why}),
            };
            let Some(count) = count.as_i64().filter(|count| (0..=MAX_QUEUES).contains(count)) else {
                return json!({"notRun": format!("a Rust Vec holds every queue: lists up to {MAX_QUEUES} are run, not {count}")});
            };
            let mqs: Vec<MessageQueue> = (0..count as i32).map(|id| MessageQueue::from_parts("TopicTest", "broker-a", id)).collect();
            let msg = Message::builder().topic("TopicTest").build_unchecked();
            let selector = SelectMessageQueueByHash::new();
            let got = catch_unwind(AssertUnwindSafe(|| match argument {
                Arg::Text(text) => selector.select(&mqs, &msg, &text.as_str()),
                Arg::Int(value) => selector.select(&mqs, &msg, value),
                Arg::Long(value) => selector.select(&mqs, &msg, value),
                Arg::HashCode(value) => selector.select(&mqs, &msg, value),
            }));
            match got {
                Ok(Some(mq)) => json!({"index": mqs.iter().position(|q| *q == mq)}),
                Ok(None) => json!({"index": null}),
                Err(panic) => json!({"error": "other", "message": panic_message(&*panic)}),
            }
        })
        .collect();
    Ok(json!({"answers": answers}))
}

// -- lone surrogates --------------------------------------------------------------------------

fn hex4(bytes: &[u8]) -> Option<u16> {
    std::str::from_utf8(bytes.get(..4)?).ok().and_then(|hex| u16::from_str_radix(hex, 16).ok())
}

/// The positions of the \uXXXX escapes of surrogates that are not half of a pair.
fn lone_surrogates(line: &str) -> Vec<usize> {
    let bytes = line.as_bytes();
    let (mut lone, mut at) = (Vec::new(), 0);
    while at + 1 < bytes.len() {
        if bytes[at] == b'\\' && bytes[at + 1] == b'u' {
            match hex4(&bytes[at + 2..]) {
                Some(0xD800..=0xDBFF) if bytes.get(at + 6..at + 8) == Some(b"\\u") && matches!(hex4(&bytes[at + 8..]), Some(0xDC00..=0xDFFF)) => at += 12,
                Some(0xD800..=0xDFFF) => {
                    lone.push(at);
                    at += 6;
                }
                _ => at += 6,
            }
        } else {
            at += if bytes[at] == b'\\' { 2 } else { 1 };
        }
    }
    lone
}

fn has_lone_surrogate(line: &str) -> bool {
    !lone_surrogates(line).is_empty()
}

/// The line with each lone surrogate escape made U+FFFD, so that its id and command can be read.
fn mask_surrogates(line: &str) -> String {
    let mut masked = line.to_string();
    for at in lone_surrogates(line).into_iter().rev() {
        masked.replace_range(at..at + 6, "\\ufffd");
    }
    masked
}
