#!/usr/bin/env node
// A producer-side harness for pytest-rmq-conformance, in Node.js with no dependencies:
// RocketMQ 5.3.3's MQFaultStrategy (FAULT_STRATEGY, answered through `trace`) and
// SelectMessageQueueByHash (SELECTOR_HASH, answered through `select`, as in 4.7.1, 4.9.8 and
// 5.3.3), written from the Java client's behaviour. Run the suite against it with
//
//     pytest --rmq-strategy="exec:node examples/producer-harness-node/harness.js"
//
// --broken=VARIANT (or RMQ_HARNESS_BROKEN) selects a deliberately wrong variant, which the suite must reject:
//   python-modulo       SELECTOR_HASH takes a floored remainder (sign of the divisor), not Java's truncated one
//   no-min-value-quirk  SELECTOR_HASH at 4.7.1 turns Integer.MIN_VALUE positive, where Math.abs leaves it negative
//   counter-extra-step  every fault-strategy select moves the round-robin counter one step more than Java
//   penalty-off-by-one  a penalised broker is available again at startTimestamp - 1, one millisecond early
'use strict';

const readline = require('readline');

const VARIANTS = ['python-modulo', 'no-min-value-quirk', 'counter-extra-step', 'penalty-off-by-one'];
const flag = process.argv.slice(2).find((arg) => arg.startsWith('--broken='));
const BROKEN = flag ? flag.slice('--broken='.length) : process.env.RMQ_HARNESS_BROKEN || '';
if (BROKEN && !VARIANTS.includes(BROKEN)) {
  process.stderr.write(`unknown variant ${JSON.stringify(BROKEN)}; known: ${VARIANTS.join(', ')}\n`);
  process.exit(2);
}

const TRACE_RELEASES = ['5.3.3'];
const HASH_RELEASES = ['4.7.1', '4.9.8', '5.3.3'];

// ---------------------------------------------------------------------------------------------
// JSON with Java longs. JSON.parse turns every number into a double, which loses the low bits
// of a long past 2^53 (random seeds, Long arguments); this reader keeps such integers as BigInt.

function parseJson(text) {
  let at = 0;
  const fail = (what) => {
    throw new SyntaxError(`${what} at offset ${at} of ${JSON.stringify(text.slice(0, 80))}`);
  };
  const skipSpace = () => {
    while (at < text.length && ' \t\r\n'.includes(text[at])) at++;
  };
  const value = () => {
    skipSpace();
    const c = text[at];
    if (c === '{') {
      at++;
      const object = Object.create(null); // a key "__proto__" stays an ordinary key
      skipSpace();
      if (text[at] === '}') return at++, object;
      for (;;) {
        skipSpace();
        if (text[at] !== '"') fail('expected a key');
        const key = string();
        skipSpace();
        if (text[at++] !== ':') fail('expected ":"');
        object[key] = value();
        skipSpace();
        const next = text[at++];
        if (next === '}') return object;
        if (next !== ',') fail('expected "," or "}"');
      }
    }
    if (c === '[') {
      at++;
      const array = [];
      skipSpace();
      if (text[at] === ']') return at++, array;
      for (;;) {
        array.push(value());
        skipSpace();
        const next = text[at++];
        if (next === ']') return array;
        if (next !== ',') fail('expected "," or "]"');
      }
    }
    if (c === '"') return string();
    for (const [word, meaning] of [['true', true], ['false', false], ['null', null]]) {
      if (text.startsWith(word, at)) return (at += word.length), meaning;
    }
    const number = /^-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(at, at + 400));
    if (number === null) fail('unexpected character');
    at += number[0].length;
    if (number[1] !== undefined || number[2] !== undefined) return Number(number[0]);
    const whole = BigInt(number[0]);
    const small = Number(whole);
    return Number.isSafeInteger(small) ? small : whole;
  };
  const string = () => {
    const start = at++;
    while (text[at] !== '"') {
      if (at >= text.length) fail('unterminated string');
      at += text[at] === '\\' ? 2 : 1;
    }
    at++;
    return JSON.parse(text.slice(start, at)); // the escapes, a surrogate pair among them
  };
  const result = value();
  skipSpace();
  if (at !== text.length) fail('trailing text');
  return result;
}

// writes BigInts as plain integers; everything else as JSON.stringify would
function toJson(value) {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  if (typeof value === 'object') {
    const fields = Object.keys(value).filter((key) => value[key] !== undefined);
    return `{${fields.map((key) => `${JSON.stringify(key)}:${toJson(value[key])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

// ---------------------------------------------------------------------------------------------
// Java's int and long arithmetic, and java.util.Random

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;
const long = (x) => BigInt.asIntN(64, x); // wraps as a Java long does

// a Java exception: its simple class name and its getMessage()
class JavaException extends Error {
  constructor(name, message) {
    super(message);
    this.javaName = name;
  }
}
const divisionByZero = () => new JavaException('ArithmeticException', '/ by zero');
const nullPointer = (what) => new JavaException('NullPointerException', what);

function intRem(a, n) {
  // Java's %: truncated, the result has the sign of the dividend (JavaScript's % agrees on ints)
  if (n === 0) throw divisionByZero();
  return a % n;
}

function flooredRem(a, n) {
  // Python's %: the result has the sign of the divisor
  if (n === 0) throw divisionByZero();
  return ((a % n) + n) % n;
}

function intAbs(x) {
  return x === INT_MIN ? INT_MIN : Math.abs(x); // Math.abs(Integer.MIN_VALUE) stays negative
}

// List.get(index) of a list of `size` elements, which is here just the index
function checkIndex(index, size) {
  if (index < 0 || index >= size) {
    throw new JavaException('IndexOutOfBoundsException', `Index ${index} out of bounds for length ${size}`);
  }
  return index;
}

// String.hashCode: 31 * h + c over the UTF-16 code units, which charCodeAt gives
function stringHash(text) {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (Math.imul(31, h) + text.charCodeAt(i)) | 0;
  return h;
}

// String.compareTo: UTF-16 code units, as JavaScript's < compares strings
function compareJavaStrings(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

const MULTIPLIER = 0x5deece66dn;
const MASK_48 = (1n << 48n) - 1n;

// java.util.Random: the 48-bit linear congruential generator
class JavaRandom {
  constructor(seed) {
    this.seed = (BigInt(seed) ^ MULTIPLIER) & MASK_48;
  }

  next(bits) {
    this.seed = (this.seed * MULTIPLIER + 0xbn) & MASK_48;
    return Number(BigInt.asIntN(32, this.seed >> BigInt(48 - bits)));
  }

  nextInt(bound) {
    if (bound === undefined) return this.next(32);
    if (bound <= 0) throw new JavaException('IllegalArgumentException', 'bound must be positive');
    let r = this.next(31);
    const m = bound - 1;
    if ((bound & m) === 0) return Number((BigInt(bound) * BigInt(r)) >> 31n);
    for (let u = r; ((u - (r = u % bound) + m) | 0) < 0; u = this.next(31));
    return r;
  }
}

// ---------------------------------------------------------------------------------------------
// SELECTOR_HASH

// arg.hashCode() of the argument the suite describes
function argumentHash(arg) {
  if (arg === null || arg.type === 'null') throw nullPointer('the argument is null');
  switch (arg.type) {
    case 'string':
      return stringHash(arg.value);
    case 'integer': // Integer.hashCode
    case 'hashCode': // an object whose hashCode() returns the value
      return Number(arg.value) | 0;
    case 'long': {
      // Long.hashCode: (int) (v ^ (v >>> 32))
      const bits = BigInt.asUintN(64, BigInt(arg.value));
      return Number(BigInt.asIntN(32, bits ^ (bits >> 32n)));
    }
    default:
      throw new Error(`unknown argument type ${arg.type}`);
  }
}

// SelectMessageQueueByHash.select with n queues: the position of the queue it returns
function hashPosition(release, hash, n) {
  const rem = BROKEN === 'python-modulo' ? flooredRem : intRem;
  if (release === '4.7.1') {
    // value = Math.abs(hashCode) when negative, then value % size
    let value = hash;
    if (value < 0) value = BROKEN === 'no-min-value-quirk' ? -value : intAbs(value);
    return checkIndex(rem(value, n), n);
  }
  // 4.9.8 and later: value = hashCode % size, then Math.abs when negative
  let value = rem(hash, n);
  if (value < 0) value = intAbs(value);
  return checkIndex(value, n);
}

function select(request) {
  if (request.strategy !== 'SELECTOR_HASH') return { unsupported: `${request.strategy} is not implemented in this harness` };
  if (!HASH_RELEASES.includes(request.release)) {
    return { unsupported: `SELECTOR_HASH is implemented as RocketMQ ${HASH_RELEASES.join(', ')}, not ${request.release}` };
  }
  const answers = request.queueCounts.map((count) => {
    try {
      return { index: hashPosition(request.release, argumentHash(request.arg), Number(count)) };
    } catch (error) {
      return errorAnswer(error);
    }
  });
  return { answers };
}

function errorAnswer(error) {
  if (!(error instanceof JavaException)) throw error; // a bug of this harness: let it crash, loudly
  const kind = error.javaName === 'IllegalArgumentException' ? 'illegal-argument' : 'other';
  return { error: kind, message: `${error.javaName}: ${error.message}` };
}

// ---------------------------------------------------------------------------------------------
// FAULT_STRATEGY at 5.3.3

// ThreadLocalIndex, as the one sending thread sees it: the stored int (null until first used)
class SendIndex {
  constructor(stored, seed) {
    this.stored = stored === null ? null : Number(stored) | 0;
    this.random = new JavaRandom(seed);
  }

  incrementAndGet() {
    const start = this.stored === null ? this.random.nextInt() : this.stored;
    this.stored = (start + 1) | 0;
    return this.stored & INT_MAX;
  }

  reset() {
    this.stored = this.random.nextInt(INT_MAX);
  }
}

// TopicPublishInfo: the publish list ([brokerName, queueId] each) and its counter; a select
// answers a position in the list
class PublishInfo {
  constructor(queues, counter) {
    this.queues = queues;
    this.counter = counter;
  }

  // selectOneMessageQueue(): one counter step (then / by zero for an empty list)
  nextPosition() {
    return intRem(this.counter.incrementAndGet(), this.queues.length);
  }

  // selectOneMessageQueue(QueueFilter...): one step per probe, every filter asked, null when none passes
  firstAccepted(...filters) {
    if (this.queues.length === 0) return null;
    for (let i = 0; i < this.queues.length; i++) {
      const position = this.nextPosition();
      const verdicts = filters.map((accepts) => accepts(this.queues[position]));
      if (verdicts.every(Boolean)) return position;
    }
    return null;
  }

  // selectOneMessageQueue(lastBrokerName): a step per probe for another broker, then a plain step
  avoiding(lastBroker) {
    if (lastBroker !== null) {
      for (let i = 0; i < this.queues.length; i++) {
        const position = this.nextPosition();
        if (this.queues[position][0] !== lastBroker) return position;
      }
    }
    return this.nextPosition();
  }
}

// Integer.parseInt
function parseJavaInt(text) {
  if (text === undefined) throw new JavaException('ArrayIndexOutOfBoundsException', 'Index 1 out of bounds for length 1');
  const value = /^[+-]?\d+$/.test(text) ? Number(text) : NaN;
  if (!(value >= INT_MIN && value <= INT_MAX)) throw new JavaException('NumberFormatException', `For input string: "${text}"`);
  return value;
}

// String.split(separator) for a one-character separator: trailing empty strings dropped
function javaSplit(text, separator) {
  const parts = text.split(separator);
  while (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  return parts.length === 1 && parts[0] === '' && text !== '' ? [] : parts;
}

// MQClientInstance.topicRouteData2TopicPublishInfo: the publish list of a route
function publishList(route) {
  const queues = [];
  const conf = route.orderTopicConf;
  if (conf !== null && conf.length > 0) {
    for (const entry of javaSplit(conf, ';')) {
      const item = javaSplit(entry, ':');
      const count = parseJavaInt(item[1]);
      for (let i = 0; i < count; i++) queues.push([item[0], i]);
    }
    return queues;
  }
  const datas = [...route.queueDatas].sort((a, b) => compareJavaStrings(a[0], b[0])); // stable, as Collections.sort
  for (const [broker, writeQueueNums, perm] of datas) {
    if ((Number(perm) & 2) === 0) continue; // PermName.PERM_WRITE
    const brokerData = route.brokerDatas.find((data) => data[0] === broker);
    if (brokerData === undefined || !brokerData[1].some((id) => BigInt(id) === 0n)) continue; // no master
    for (let i = 0; i < Number(writeQueueNums); i++) queues.push([broker, i]);
  }
  return queues;
}

// ConcurrentHashMap<String, FaultItem> as far as its iteration order goes: bins walked in
// index order, insertion order within a bin, bin = spread(String.hashCode) & (bins - 1)
class FaultTable {
  constructor() {
    this.bins = Array.from({ length: 32 }, () => []); // new ConcurrentHashMap<>(16) has 32
    this.items = new Map();
  }

  static spread(name) {
    const h = stringHash(name);
    return (h ^ (h >>> 16)) & INT_MAX;
  }

  binOf(name) {
    return this.bins[FaultTable.spread(name) & (this.bins.length - 1)];
  }

  get(name) {
    if (name === null) throw nullPointer('ConcurrentHashMap takes no null key');
    return this.items.get(name) || null;
  }

  put(name, item) {
    if (!this.items.has(name)) this.binOf(name).push(name);
    this.items.set(name, item);
    if (this.items.size >= (this.bins.length * 3) / 4) this.grow();
  }

  remove(name) {
    if (!this.items.delete(name)) return;
    const bin = this.binOf(name);
    bin.splice(bin.indexOf(name), 1);
  }

  // Java's transfer: of each bin, the longest tail bound for one half keeps its order, and the
  // keys before it are pushed to the front of their half one by one (so they come reversed)
  grow() {
    const n = this.bins.length;
    const bins = Array.from({ length: 2 * n }, () => []);
    this.bins.forEach((keys, i) => {
      if (keys.length === 0) return;
      const high = keys.map((key) => (FaultTable.spread(key) & n) !== 0);
      let tail = keys.length - 1;
      while (tail > 0 && high[tail - 1] === high[keys.length - 1]) tail--;
      bins[high[keys.length - 1] ? i + n : i].push(...keys.slice(tail));
      for (let k = 0; k < tail; k++) bins[high[k] ? i + n : i].unshift(keys[k]);
    });
    this.bins = bins;
  }

  names() {
    return this.bins.flat();
  }

  toJson() {
    const table = Object.create(null);
    for (const name of this.names()) table[name] = itemJson(this.items.get(name));
    return table;
  }
}

function itemJson(item) {
  if (item === null) return null;
  const { latency, startTimestamp, reachable, checkStamp } = item;
  return { latency, startTimestamp, reachable, checkStamp };
}

const LATENCY_MAX = [50n, 100n, 550n, 1800n, 3000n, 5000n, 15000n];
const NOT_AVAILABLE_DURATION = [0n, 0n, 2000n, 5000n, 6000n, 10000n, 30000n];
const ISOLATION_LATENCY = 10000n;
const DETECT_INTERVAL = 2000n;

// MQFaultStrategy with its LatencyFaultToleranceImpl, as of 5.3.3, on a clock of its own
class FaultStrategy {
  constructor(params, clockMs) {
    this.latencyFaultEnable = params.sendLatencyFaultEnable;
    this.latencyMax = (params.latencyMax === null ? LATENCY_MAX : params.latencyMax).map(BigInt);
    this.notAvailableDuration = (params.notAvailableDuration === null ? NOT_AVAILABLE_DURATION : params.notAvailableDuration).map(BigInt);
    this.table = new FaultTable();
    this.now = BigInt(clockMs);
  }

  isAvailable(broker) {
    const item = this.table.get(broker);
    if (item === null) return true;
    const until = BROKEN === 'penalty-off-by-one' ? long(item.startTimestamp - 1n) : item.startTimestamp;
    return this.now >= until;
  }

  isReachable(broker) {
    const item = this.table.get(broker);
    return item === null || item.reachable;
  }

  // selectOneMessageQueue(tpInfo, lastBrokerName, resetIndex): a position in the list
  select(info, lastBroker, resetIndex) {
    if (BROKEN === 'counter-extra-step') info.counter.incrementAndGet();
    const otherBroker = (queue) => lastBroker === null || queue[0] !== lastBroker;
    let position;
    if (this.latencyFaultEnable) {
      if (resetIndex) info.counter.reset();
      position = info.firstAccepted((queue) => this.isAvailable(queue[0]), otherBroker);
      if (position === null) position = info.firstAccepted((queue) => this.isReachable(queue[0]), otherBroker);
    } else {
      position = info.firstAccepted(otherBroker);
    }
    return position === null ? info.nextPosition() : position;
  }

  // the penalty of the last latencyMax step the latency reaches
  notAvailableFor(latency) {
    for (let i = this.latencyMax.length - 1; i >= 0; i--) {
      if (latency >= this.latencyMax[i]) {
        if (i >= this.notAvailableDuration.length) {
          throw new JavaException('ArrayIndexOutOfBoundsException', `Index ${i} out of bounds for length ${this.notAvailableDuration.length}`);
        }
        return this.notAvailableDuration[i];
      }
    }
    return 0n;
  }

  // updateFaultItem(brokerName, currentLatency, isolation, reachable)
  update(broker, latency, isolation, reachable) {
    if (!this.latencyFaultEnable) return;
    const duration = this.notAvailableFor(isolation ? ISOLATION_LATENCY : latency);
    let item = this.table.get(broker);
    if (item === null) {
      item = { latency, startTimestamp: 0n, reachable, checkStamp: 0n };
      this.table.put(broker, item);
    }
    item.latency = latency;
    const until = long(this.now + duration);
    if (duration > 0n && until > item.startTimestamp) item.startTimestamp = until; // a penalty only grows
    item.reachable = reachable;
  }

  // detectByOneRound(), the resolver reading `resolve` and the detector `reachableAddrs`
  detect(resolve, reachableAddrs) {
    for (const name of this.table.names()) {
      const item = this.table.items.get(name);
      if (long(this.now - item.checkStamp) < 0n) continue;
      item.checkStamp = long(this.now + DETECT_INTERVAL);
      const address = Object.prototype.hasOwnProperty.call(resolve, name) ? resolve[name] : null;
      if (address === null) {
        this.table.remove(name);
      } else if (reachableAddrs.includes(address)) {
        item.reachable = true;
      }
    }
  }
}

function selectOutcome(info, position) {
  return {
    queue: position === null ? null : info.queues[position],
    listIndex: position,
    storedIndexAfter: info.counter.stored,
  };
}

// one step of a trace and what can be observed after it
function play(strategy, state, step) {
  switch (step.op) {
    case 'advance':
      strategy.now = long(strategy.now + BigInt(step.ms));
      return null;
    case 'set_index':
      state.info.counter.stored = Number(step.value) | 0;
      return null;
    case 'set_latency':
      strategy.latencyFaultEnable = step.enable;
      return null;
    case 'route':
      state.info = new PublishInfo(publishList(step.route), new SendIndex(step.sendIndex, step.sendIndexSeed));
      return { publishList: state.info.queues };
    case 'update':
      strategy.update(step.broker, BigInt(step.latency), step.isolation, step.reachable);
      return { item: step.broker === null ? null : itemJson(strategy.table.get(step.broker)) };
    case 'detect':
      strategy.detect(step.resolve, step.reachableAddrs);
      return { tableAfter: strategy.table.toJson() };
    case 'select':
      return selectOutcome(state.info, strategy.select(state.info, step.lastBroker, step.resetIndex));
    case 'tp_select':
      return selectOutcome(state.info, state.info.avoiding(step.lastBroker));
    default:
      throw new Error(`unknown step ${step.op}`);
  }
}

function trace(request) {
  if (request.strategy !== 'FAULT_STRATEGY') return { unsupported: `${request.strategy} is not implemented in this harness` };
  if (!TRACE_RELEASES.includes(request.release)) {
    return { unsupported: `FAULT_STRATEGY is implemented as RocketMQ ${TRACE_RELEASES.join(', ')} only, not ${request.release}` };
  }
  const { initial } = request;
  const strategy = new FaultStrategy(request.params, initial.clockMs);
  const outcomes = request.steps.map(() => null);
  const state = {};
  try {
    state.info = new PublishInfo(publishList(request.route), new SendIndex(initial.sendIndex, initial.sendIndexSeed));
  } catch (error) {
    outcomes[0] = errorAnswer(error); // no publish list to play the steps on: said at the first step
    return { publishList: [], outcomes };
  }
  const built = state.info.queues; // 5.3.3 never rewrites a list entry
  request.steps.forEach((step, index) => {
    try {
      outcomes[index] = play(strategy, state, step);
    } catch (error) {
      outcomes[index] = errorAnswer(error);
    }
  });
  return { publishList: built, outcomes };
}

// ---------------------------------------------------------------------------------------------
// the protocol

const HELLO = {
  protocol: 1,
  implementation: {
    name: 'producer-node-example' + (BROKEN ? `-${BROKEN}` : ''),
    language: `JavaScript (Node.js ${process.versions.node})`,
    version: '1.0.0',
  },
  strategies: ['FAULT_STRATEGY', 'SELECTOR_HASH'],
  sort: false,
};

let saidBye = false;
const lines = readline.createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (saidBye || !line.trim()) return;
  const request = parseJson(line);
  let answer;
  if (request.cmd === 'hello') answer = HELLO;
  else if (request.cmd === 'bye') {
    // exit once every answer written has left: a pipe that was full holds them in Node's buffer
    saidBye = true;
    lines.close();
    process.stdout.write('', () => process.exit(0));
    return;
  } else if (request.cmd === 'trace') answer = { id: request.id, ...trace(request) };
  else if (request.cmd === 'select') answer = { id: request.id, ...select(request) };
  else answer = { id: request.id, unsupported: `${request.cmd} is not served by this harness` };
  process.stdout.write(toJson(answer) + '\n');
});
