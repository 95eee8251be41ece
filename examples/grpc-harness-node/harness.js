#!/usr/bin/env node
// A harness for pytest-rmq-conformance, in Node.js with no dependencies: the load balancers of
// RocketMQ 5's gRPC Java client (apache/rocketmq-clients), written from that client's behaviour.
// GROUP_HASH (PublishingLoadBalancer.takeMessageQueueByMessageGroup, answered through `group`),
// PUBLISH_ROUND_ROBIN (PublishingLoadBalancer.takeMessageQueues, through `balance`) and
// SUBSCRIBE_ROUND_ROBIN (SubscriptionLoadBalancer.takeMessageQueue, through `balance`). Run the
// suite against it with
//
//     pytest --rmq-strategy="exec:node examples/grpc-harness-node/harness.js"
//
// The index is kept as Java's AtomicInteger stores it (getAndIncrement), so no indexOffsets.
//
// --broken=VARIANT (or RMQ_HARNESS_BROKEN) selects a deliberately wrong variant, which the suite must reject:
//   unsigned-modulo  the hash taken as an unsigned 64-bit number before the modulo (Go's uint64, Rust's u64)
//   byte-order       the 8 bytes of the SipHash output read big-endian (still signed)
//   code-points      hashes the UTF-32LE code points (4 bytes each) instead of Java's UTF-8
//   keeps-slaves     the balancers' filter keeps the queues of slave brokers (broker id != 0) too
'use strict';

const readline = require('readline');

const VARIANTS = ['unsigned-modulo', 'byte-order', 'code-points', 'keeps-slaves'];
const flag = process.argv.slice(2).find((arg) => arg.startsWith('--broken='));
const BROKEN = flag ? flag.slice('--broken='.length) : process.env.RMQ_HARNESS_BROKEN || '';
if (BROKEN && !VARIANTS.includes(BROKEN)) {
  process.stderr.write(`unknown variant ${JSON.stringify(BROKEN)}; known: ${VARIANTS.join(', ')}\n`);
  process.exit(2);
}

const TOPIC = 'TopicTest';
const MASTER_BROKER_ID = 0;

// ---------------------------------------------------------------------------------------------
// JSON. Every number of these requests fits a double exactly (indexes are Java ints, ports and
// queue ids small), so JSON.parse will do; it keeps a lone surrogate ("\ud800") as the one UTF-16
// code unit it is, and joins an escaped surrogate pair into one character, as a Java string has
// them. JSON.stringify escapes a lone surrogate on the way back, so strings return as sent.

// ---------------------------------------------------------------------------------------------
// Java's int arithmetic and exceptions

const int = (x) => x | 0; // wraps as a Java int does: MAX_VALUE + 1 is MIN_VALUE

// a Java exception: its simple class name and its getMessage()
class JavaException extends Error {
  constructor(name, message) {
    super(message);
    this.javaName = name;
  }
}
const illegalArgument = (message) => new JavaException('IllegalArgumentException', message);

// Guava's IntMath.mod: the remainder in [0, n), whatever the sign of x
function intMod(x, n) {
  if (n <= 0) throw new JavaException('ArithmeticException', `Modulus ${n} must be > 0`);
  const r = x % n;
  return r < 0 ? r + n : r;
}

// Guava's LongMath.mod(long, int), on a BigInt long
function longMod(x, n) {
  if (n <= 0) throw new JavaException('ArithmeticException', `Modulus ${n} must be > 0`);
  const m = BigInt(n);
  const r = x % m; // BigInt's % truncates, as Java's does
  return Number(r < 0n ? r + m : r);
}

// ---------------------------------------------------------------------------------------------
// Guava's Hashing.sipHash24() over String.getBytes(UTF_8)

// String.getBytes(StandardCharsets.UTF_8), from the UTF-16 code units (charCodeAt): a surrogate
// pair is one character of four bytes, a lone surrogate becomes '?' (Buffer.from would write
// U+FFFD's three bytes instead)
function javaUtf8(text) {
  const bytes = [];
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) {
      bytes.push(unit);
    } else if (unit < 0x800) {
      bytes.push(0xc0 | (unit >> 6), 0x80 | (unit & 0x3f));
    } else if (unit >= 0xd800 && unit <= 0xdfff) {
      const low = i + 1 < text.length ? text.charCodeAt(i + 1) : -1;
      if (unit <= 0xdbff && low >= 0xdc00 && low <= 0xdfff) {
        const point = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
        bytes.push(0xf0 | (point >> 18), 0x80 | ((point >> 12) & 0x3f), 0x80 | ((point >> 6) & 0x3f), 0x80 | (point & 0x3f));
        i++;
      } else {
        bytes.push(0x3f); // '?'
      }
    } else {
      bytes.push(0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f));
    }
  }
  return bytes;
}

// the broken `code-points` variant: UTF-32LE of the code points (a pair joined, a lone
// surrogate kept as its own value)
function utf32le(text) {
  const bytes = [];
  for (const char of text) {
    const point = char.codePointAt(0);
    bytes.push(point & 0xff, (point >> 8) & 0xff, (point >> 16) & 0xff, (point >>> 24) & 0xff);
  }
  return bytes;
}

const MASK_64 = (1n << 64n) - 1n;
const rotl = (x, b) => ((x << b) | (x >> (64n - b))) & MASK_64;

// Guava's key: the bytes 00..0f, read little-endian
const K0 = 0x0706050403020100n;
const K1 = 0x0f0e0d0c0b0a0908n;

// SipHash-2-4 of `bytes` under Guava's key: the 64-bit output as an unsigned BigInt (its 8
// bytes, little-endian)
function sipHash24(bytes) {
  let v0 = K0 ^ 0x736f6d6570736575n;
  let v1 = K1 ^ 0x646f72616e646f6dn;
  let v2 = K0 ^ 0x6c7967656e657261n;
  let v3 = K1 ^ 0x7465646279746573n;
  const round = () => {
    v0 = (v0 + v1) & MASK_64;
    v1 = rotl(v1, 13n) ^ v0;
    v0 = rotl(v0, 32n);
    v2 = (v2 + v3) & MASK_64;
    v3 = rotl(v3, 16n) ^ v2;
    v0 = (v0 + v3) & MASK_64;
    v3 = rotl(v3, 21n) ^ v0;
    v2 = (v2 + v1) & MASK_64;
    v1 = rotl(v1, 17n) ^ v2;
    v2 = rotl(v2, 32n);
  };
  const compress = (m) => {
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  };
  const whole = bytes.length - (bytes.length % 8);
  for (let at = 0; at < whole; at += 8) {
    let m = 0n;
    for (let k = 7; k >= 0; k--) m = (m << 8n) | BigInt(bytes[at + k]);
    compress(m);
  }
  let last = BigInt(bytes.length & 0xff) << 56n; // the length's low byte, then the tail
  for (let k = bytes.length - 1; k >= whole; k--) last |= BigInt(bytes[k]) << BigInt(8 * (k - whole));
  compress(last);
  v2 ^= 0xffn;
  round();
  round();
  round();
  round();
  return v0 ^ v1 ^ v2 ^ v3;
}

// reverses the 8 bytes of a 64-bit value
function swapBytes(x) {
  let out = 0n;
  for (let k = 0; k < 8; k++) out = (out << 8n) | ((x >> BigInt(8 * k)) & 0xffn);
  return out;
}

// takeMessageQueueByMessageGroup's choice among n queues: LongMath.mod(sipHash24(group's UTF-8
// bytes).asLong(), n); with the hash it took the modulo of (decimal)
function groupPosition(group, n) {
  const bytes = BROKEN === 'code-points' ? utf32le(group) : javaUtf8(group);
  const raw = sipHash24(bytes);
  let hash = BigInt.asIntN(64, BROKEN === 'byte-order' ? swapBytes(raw) : raw); // HashCode.asLong()
  if (BROKEN === 'unsigned-modulo') hash = BigInt.asUintN(64, hash);
  return { index: longMod(hash, n), sipHash24: hash.toString() };
}

// ---------------------------------------------------------------------------------------------
// the route and the balancers

const isWritable = (permission) => permission === 'WRITE' || permission === 'READ_WRITE';
const isReadable = (permission) => permission === 'READ' || permission === 'READ_WRITE';

// Endpoints.equals: the same scheme and the same (host, port) list, in order, as one key
const endpointsKey = (endpoints) => JSON.stringify([endpoints.scheme, endpoints.addresses.map(([host, port]) => [host, Number(port)])]);

// TopicRouteData.toString(), as the exception messages embed it
function routeText(route) {
  return `TopicRouteData{messageQueueImpls=[${route.map((q) => `${q.broker.name}.${TOPIC}.${q.queueId}`).join(', ')}]}`;
}

// Java's AtomicInteger: one object shared by a balancer and those its update() makes
class AtomicIndex {
  constructor(value) {
    this.value = int(value);
  }

  getAndIncrement() {
    const value = this.value;
    this.value = int(value + 1);
    return value;
  }
}

// the positions (in `route`) of the queues a balancer keeps: the right permission, a master
// broker; IllegalArgumentException when none is left
function keep(route, usable, what) {
  const kept = [];
  route.forEach((queue, position) => {
    const master = BROKEN === 'keeps-slaves' || Number(queue.broker.id) === MASTER_BROKER_ID;
    if (usable(queue.permission) && master) kept.push(position);
  });
  if (kept.length === 0) throw illegalArgument(`No ${what} message queue found, topiRouteData=${routeText(route)}`);
  return kept;
}

// PublishingLoadBalancer; every queue it answers is a position in its route
class PublishingLoadBalancer {
  constructor(route, index) {
    this.route = route;
    this.index = index;
    this.kept = keep(route, isWritable, 'writable');
  }

  update(route) {
    return new PublishingLoadBalancer(route, this.index);
  }

  takeMessageQueueByMessageGroup(group) {
    return this.kept[groupPosition(group, this.kept.length).index];
  }

  // takeMessageQueues(excluded, count): round robin from the index, one queue per broker name,
  // passing over excluded endpoints; checked against count after every probe; if nothing was
  // kept, the same scan goes on ignoring excluded
  takeMessageQueues(excluded, count) {
    const n = this.kept.length;
    const skip = new Set(excluded.map(endpointsKey));
    let next = this.index.getAndIncrement();
    const candidates = [];
    const names = new Set();
    for (let i = 0; i < n; i++) {
      const position = this.kept[intMod(next, n)];
      next = int(next + 1);
      const broker = this.route[position].broker;
      if (!skip.has(endpointsKey(broker.endpoints)) && !names.has(broker.name)) {
        names.add(broker.name);
        candidates.push(position);
      }
      if (candidates.length >= count) return candidates;
    }
    if (candidates.length === 0) {
      // every broker is excluded
      for (let i = 0; i < n; i++) {
        const position = this.kept[intMod(next, n)];
        next = int(next + 1);
        const broker = this.route[position].broker;
        if (!names.has(broker.name)) {
          names.add(broker.name);
          candidates.push(position);
        }
        if (candidates.length >= count) break;
      }
    }
    return candidates;
  }
}

// SubscriptionLoadBalancer
class SubscriptionLoadBalancer {
  constructor(route, index) {
    this.route = route;
    this.index = index;
    this.kept = keep(route, isReadable, 'readable');
  }

  update(route) {
    return new SubscriptionLoadBalancer(route, this.index);
  }

  takeMessageQueue() {
    return this.kept[intMod(this.index.getAndIncrement(), this.kept.length)];
  }
}

function errorAnswer(error) {
  if (!(error instanceof JavaException)) throw error; // a bug of this harness: let it crash, loudly
  if (error.javaName === 'IllegalArgumentException') return { error: 'illegal-argument', message: error.message };
  return { error: 'other', message: `${error.javaName}: ${error.message}` };
}

// ---------------------------------------------------------------------------------------------
// the requests

// `group`: a publishing balancer on `queues` READ_WRITE queues of broker-a (id 0), positions
// being queue ids, asked each group in turn
function group(request) {
  if (request.strategy !== 'GROUP_HASH') return { unsupported: `group is served for GROUP_HASH, not ${request.strategy}` };
  const n = Number(request.queues);
  const answers = request.groups.map((name) => {
    try {
      if (!(n > 0)) throw illegalArgument(`No writable message queue found, topiRouteData=TopicRouteData{messageQueueImpls=[]}`);
      return groupPosition(name, n);
    } catch (error) {
      return errorAnswer(error);
    }
  });
  return { answers };
}

// one step on the balancer held in `state`: its outcome
function step(state, publishing, item) {
  switch (item.op) {
    case 'update': {
      const balancer = state.balancer.update(item.route); // if it throws, the old balancer stays
      state.balancer = balancer;
      return { filtered: balancer.kept };
    }
    case 'group':
      if (!publishing) throw new JavaException('UnsupportedOperationException', 'a subscription balancer routes no message group');
      return { queue: state.balancer.takeMessageQueueByMessageGroup(item.group) };
    case 'take':
      if (publishing) return { queues: state.balancer.takeMessageQueues(item.excluded || [], Number(item.count)) };
      return { queue: state.balancer.takeMessageQueue() };
    default:
      throw new JavaException('UnsupportedOperationException', `no step ${JSON.stringify(item.op)}`);
  }
}

// `balance`: a balancer on `route` with its index at `index`, every step taken in order
function balance(request) {
  const publishing = request.strategy === 'PUBLISH_ROUND_ROBIN';
  if (!publishing && request.strategy !== 'SUBSCRIBE_ROUND_ROBIN') {
    return { unsupported: `balance is served for PUBLISH_ROUND_ROBIN and SUBSCRIBE_ROUND_ROBIN, not ${request.strategy}` };
  }
  const Balancer = publishing ? PublishingLoadBalancer : SubscriptionLoadBalancer;
  const state = {};
  try {
    state.balancer = new Balancer(request.route, new AtomicIndex(Number(request.index)));
  } catch (error) {
    return errorAnswer(error); // the constructor threw: that is the whole answer
  }
  const filtered = state.balancer.kept;
  const outcomes = request.steps.map((item) => {
    try {
      return step(state, publishing, item);
    } catch (error) {
      return errorAnswer(error);
    }
  });
  return { filtered, outcomes, indexAfter: state.balancer.index.value };
}

// ---------------------------------------------------------------------------------------------
// the protocol

const HELLO = {
  protocol: 1,
  implementation: {
    name: 'grpc-node-example' + (BROKEN ? `-${BROKEN}` : ''),
    language: `JavaScript (Node.js ${process.versions.node})`,
    version: '1.0.0',
  },
  strategies: ['GROUP_HASH', 'PUBLISH_ROUND_ROBIN', 'SUBSCRIBE_ROUND_ROBIN'],
  sort: false,
};

// exit once every answer written has left: a pipe that was full holds them in Node's buffer
let leaving = false;
function leave() {
  if (leaving) return;
  leaving = true;
  process.stdout.write('', () => process.exit(0));
}

const lines = readline.createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (leaving || !line.trim()) return;
  const request = JSON.parse(line);
  let answer;
  if (request.cmd === 'hello') answer = HELLO;
  else if (request.cmd === 'bye') {
    lines.close();
    leave();
    return;
  } else if (request.cmd === 'group') answer = { id: request.id, ...group(request) };
  else if (request.cmd === 'balance') answer = { id: request.id, ...balance(request) };
  else answer = { id: request.id, unsupported: `${request.cmd} is not served by this harness` };
  process.stdout.write(JSON.stringify(answer) + '\n');
});
lines.on('close', leave); // end of input: as bye
