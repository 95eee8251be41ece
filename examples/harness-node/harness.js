#!/usr/bin/env node
// A harness for pytest-rmq-conformance, in Node.js with no dependencies:
// AVG, AVG_BY_CIRCLE and CONSISTENT_HASH, and the rebalance sort, written from
// the Java client's behaviour. Run the suite against it with
//
//     pytest --rmq-strategy="exec:node examples/harness-node/harness.js"
//
// --broken=VARIANT (or RMQ_HARNESS_BROKEN) selects a deliberately wrong variant, which the suite must reject:
//   codepoint-sort  sorts strings by code point (Python's order), not by UTF-16 unit (Java's)
//   ring-after      routes a key to the first ring node strictly after it (> instead of >=)
//   off-by-one      AVG gives the extra queues to the clients after the first `mod`, not the first
'use strict';

const crypto = require('crypto');
const readline = require('readline');

const flag = process.argv.slice(2).find((arg) => arg.startsWith('--broken='));
const BROKEN = flag ? flag.slice('--broken='.length) : process.env.RMQ_HARNESS_BROKEN || '';

class IllegalArgument extends Error {}

function checkArguments(currentCid, mqAll, cidAll) {
  if (!currentCid) throw new IllegalArgument('currentCID is empty');
  if (!mqAll || mqAll.length === 0) throw new IllegalArgument('mqAll is null or mqAll empty');
  if (!cidAll || cidAll.length === 0) throw new IllegalArgument('cidAll is null or cidAll empty');
  return cidAll.includes(currentCid);
}

function averagely(params, currentCid, mqAll, cidAll) {
  if (!checkArguments(currentCid, mqAll, cidAll)) return [];
  const index = cidAll.indexOf(currentCid);
  const n = mqAll.length;
  const c = cidAll.length;
  const mod = n % c;
  const extra = BROKEN === 'off-by-one' ? mod > 0 && index >= c - mod : mod > 0 && index < mod;
  const size = n <= c ? 1 : extra ? Math.floor(n / c) + 1 : Math.floor(n / c);
  const start = extra ? index * size : index * size + mod;
  const out = [];
  for (let k = 0; k < Math.min(size, n - start); k++) out.push(mqAll[(start + k) % n]);
  return out;
}

function byCircle(params, currentCid, mqAll, cidAll) {
  if (!checkArguments(currentCid, mqAll, cidAll)) return [];
  const out = [];
  for (let p = cidAll.indexOf(currentCid); p < mqAll.length; p += cidAll.length) out.push(mqAll[p]);
  return out;
}

// Java's String.getBytes(UTF_8): a surrogate pair is one 4-byte character, a lone surrogate is '?'
function javaUtf8(text) {
  const bytes = [];
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
    if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      bytes.push(...Buffer.from(text.slice(i, i + 2), 'utf8'));
      i++;
    } else if (unit >= 0xd800 && unit <= 0xdfff) {
      bytes.push(0x3f);
    } else {
      bytes.push(...Buffer.from(text[i], 'utf8'));
    }
  }
  return Buffer.from(bytes);
}

// the default ring hash: the first four MD5 bytes, big-endian, as a non-negative long
function md5Key(text) {
  return crypto.createHash('md5').update(javaUtf8(text)).digest().readUInt32BE(0);
}

function queueText(mq) {
  return `MessageQueue [topic=${mq[0]}, brokerName=${mq[1]}, queueId=${mq[2]}]`;
}

function consistentHash(params, currentCid, mqAll, cidAll) {
  const virtualNodeCnt = params.virtualNodeCnt === undefined ? 10 : params.virtualNodeCnt;
  if (!Number.isInteger(virtualNodeCnt) || virtualNodeCnt < 0) {
    throw new IllegalArgument(`illegal virtualNodeCnt :${virtualNodeCnt}`);
  }
  if (!checkArguments(currentCid, mqAll, cidAll)) return [];
  const owners = new Map(); // ring key -> client id; a later node with the same key replaces the earlier
  const onRing = new Map(); // client id -> its nodes on the ring (a replica number continues from there)
  for (const cid of cidAll) {
    const first = onRing.get(cid) || 0;
    for (let replica = first; replica < first + virtualNodeCnt; replica++) {
      const key = md5Key(`${cid}-${replica}`);
      const previous = owners.get(key);
      if (previous !== undefined) onRing.set(previous, onRing.get(previous) - 1);
      owners.set(key, cid);
      onRing.set(cid, (onRing.get(cid) || 0) + 1);
    }
  }
  const keys = [...owners.keys()].sort((a, b) => a - b);
  const route = (text) => {
    const hash = md5Key(text);
    let low = 0; // binary search: the first key at (or, when broken, strictly after) the hash
    let high = keys.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (BROKEN === 'ring-after' ? keys[middle] > hash : keys[middle] >= hash) high = middle;
      else low = middle + 1;
    }
    return owners.get(keys[low === keys.length ? 0 : low]);
  };
  return keys.length === 0 ? [] : mqAll.filter((mq) => route(queueText(mq)) === currentCid);
}

const STRATEGIES = { AVG: averagely, AVG_BY_CIRCLE: byCircle, CONSISTENT_HASH: consistentHash };

// Java's String.compareTo: UTF-16 code units, which is what JavaScript's < compares
function compareStrings(a, b) {
  if (BROKEN === 'codepoint-sort') {
    const x = [...a].map((ch) => ch.codePointAt(0));
    const y = [...b].map((ch) => ch.codePointAt(0));
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
    return x.length - y.length;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareQueues(p, q) {
  return compareStrings(p[0], q[0]) || compareStrings(p[1], q[1]) || p[2] - q[2];
}

function allocate(request) {
  const strategy = STRATEGIES[request.strategy];
  if (!strategy) return { unsupported: `${request.strategy} is not implemented in this harness` };
  const answers = request.callers.map((caller) => {
    try {
      const queues = strategy(request.params, caller, request.mqAll, request.cidAll);
      return { queues };
    } catch (error) {
      if (error instanceof IllegalArgument) return { error: 'illegal-argument', message: error.message };
      return { error: 'other', message: String(error) };
    }
  });
  return { answers };
}

function sort(request) {
  // Array.prototype.sort is stable, like Java's TimSort on a consistent order
  const sorted = (items, compare) => (items === null ? null : [...items].sort(compare));
  return { mqAll: sorted(request.mqAll, compareQueues), cidAll: sorted(request.cidAll, compareStrings) };
}

const HELLO = {
  protocol: 1,
  implementation: {
    name: 'node-example' + (BROKEN ? `-${BROKEN}` : ''),
    language: `JavaScript (Node.js ${process.versions.node})`,
    version: '1.0.0',
  },
  strategies: Object.keys(STRATEGIES),
  sort: true,
};

const lines = readline.createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (!line.trim()) return;
  const request = JSON.parse(line);
  let answer;
  if (request.cmd === 'hello') answer = HELLO;
  else if (request.cmd === 'bye') process.exit(0);
  else if (request.cmd === 'allocate') answer = { id: request.id, ...allocate(request) };
  else if (request.cmd === 'sort') answer = { id: request.id, ...sort(request) };
  else answer = { id: request.id, unsupported: `unknown command ${request.cmd}` };
  process.stdout.write(JSON.stringify(answer) + '\n');
});
