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
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
function javaUtf8(text) {
  return Buffer.from(text.replace(LONE_SURROGATE, '?'), 'utf8');
}

// the default ring hash: the first four MD5 bytes, big-endian, as a non-negative long;
// remembered, since a group asks the same client and queue names on every call
const ringKeys = new Map();
function md5Key(text) {
  let key = ringKeys.get(text);
  if (key === undefined) {
    if (ringKeys.size >= 1 << 20) ringKeys.clear();
    key = crypto.createHash('md5').update(javaUtf8(text)).digest().readUInt32BE(0);
    ringKeys.set(text, key);
  }
  return key;
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

// Java's MessageQueue.compareTo: topic, then broker name, then `this.queueId - o.queueId` in int
// arithmetic, which overflows for ids far apart (so 2147483647 sorts before -2147483648, and the
// order is not even transitive there: only a sort that makes Java's comparisons gives Java's order)
function compareQueues(p, q) {
  return compareStrings(p[0], q[0]) || compareStrings(p[1], q[1]) || (p[2] - q[2]) | 0;
}

// Java 17's ComparableTimSort (what Collections.sort runs), comparison for comparison: with a
// comparator that breaks its contract the result depends on every comparison the sort makes.
// `compare(a, b)` plays `a.compareTo(b)`; only its sign is used.
const MIN_MERGE = 32; // shorter arrays get a binary insertion sort only
const MIN_GALLOP = 7; // initial threshold for entering galloping mode
const CONTRACT_VIOLATION = 'Comparison method violates its general contract!';

// System.arraycopy: copies through a temporary, so overlapping ranges are fine
function arraycopy(src, srcPos, dest, destPos, length) {
  const part = src.slice(srcPos, srcPos + length);
  for (let i = 0; i < length; i++) dest[destPos + i] = part[i];
}

// sorts `a` in place; throws IllegalArgument where Java throws IllegalArgumentException
function timSort(a, compare) {
  const n = a.length;
  if (n < 2) return;
  if (n < MIN_MERGE) {
    binarySort(a, 0, n, countRunAndMakeAscending(a, 0, n, compare), compare);
    return;
  }
  const merger = new Merger(a, compare);
  const minRun = minRunLength(n);
  let lo = 0;
  let remaining = n;
  do {
    let run = countRunAndMakeAscending(a, lo, lo + remaining, compare);
    if (run < minRun) {
      // extend a short natural run to minRun elements (or to the end)
      const forced = Math.min(remaining, minRun);
      binarySort(a, lo, lo + forced, lo + run, compare);
      run = forced;
    }
    merger.pushRun(lo, run);
    merger.mergeCollapse();
    lo += run;
    remaining -= run;
  } while (remaining !== 0);
  merger.mergeForceCollapse();
}

// the top bits of n below MIN_MERGE, plus one if any lower bit is set
function minRunLength(n) {
  let extra = 0;
  while (n >= MIN_MERGE) {
    extra |= n & 1;
    n >>= 1;
  }
  return n + extra;
}

// the length of the run starting at lo; a strictly descending run is reversed to ascending
function countRunAndMakeAscending(a, lo, hi, compare) {
  let end = lo + 1;
  if (end === hi) return 1;
  if (compare(a[end++], a[lo]) < 0) {
    while (end < hi && compare(a[end], a[end - 1]) < 0) end++;
    for (let i = lo, j = end - 1; i < j; i++, j--) [a[i], a[j]] = [a[j], a[i]];
  } else {
    while (end < hi && compare(a[end], a[end - 1]) >= 0) end++;
  }
  return end - lo;
}

// binary insertion sort of a[lo, hi) where a[lo, start) is already sorted; an equal element
// goes after the ones already there (stable)
function binarySort(a, lo, hi, start, compare) {
  if (start === lo) start++;
  for (; start < hi; start++) {
    const pivot = a[start];
    let left = lo;
    let right = start;
    while (left < right) {
      const mid = (left + right) >>> 1;
      if (compare(pivot, a[mid]) < 0) right = mid;
      else left = mid + 1;
    }
    arraycopy(a, left, a, left + 1, start - left);
    a[left] = pivot;
  }
}

// the next probe offset, (ofs << 1) + 1, clamped to maxOfs where Java's int overflows
function nextOffset(ofs, maxOfs) {
  ofs = ((ofs << 1) + 1) | 0;
  return ofs <= 0 ? maxOfs : ofs;
}

// the leftmost place for key in sorted a[base, base + length): k with a[base+k-1] < key <= a[base+k];
// probes from base + hint outwards in growing steps, then searches binarily
function gallopLeft(key, a, base, length, hint, compare) {
  let lastOfs = 0;
  let ofs = 1;
  if (compare(key, a[base + hint]) > 0) {
    // probe right until a[base+hint+lastOfs] < key <= a[base+hint+ofs]
    const maxOfs = length - hint;
    while (ofs < maxOfs && compare(key, a[base + hint + ofs]) > 0) {
      lastOfs = ofs;
      ofs = nextOffset(ofs, maxOfs);
    }
    if (ofs > maxOfs) ofs = maxOfs;
    lastOfs += hint;
    ofs += hint;
  } else {
    // probe left until a[base+hint-ofs] < key <= a[base+hint-lastOfs]
    const maxOfs = hint + 1;
    while (ofs < maxOfs && compare(key, a[base + hint - ofs]) <= 0) {
      lastOfs = ofs;
      ofs = nextOffset(ofs, maxOfs);
    }
    if (ofs > maxOfs) ofs = maxOfs;
    [lastOfs, ofs] = [hint - ofs, hint - lastOfs];
  }
  // now a[base+lastOfs] < key <= a[base+ofs]: binary search in between
  lastOfs++;
  while (lastOfs < ofs) {
    const mid = lastOfs + ((ofs - lastOfs) >>> 1);
    if (compare(key, a[base + mid]) > 0) lastOfs = mid + 1;
    else ofs = mid;
  }
  return ofs;
}

// the rightmost place for key in sorted a[base, base + length): k with a[base+k-1] <= key < a[base+k]
function gallopRight(key, a, base, length, hint, compare) {
  let lastOfs = 0;
  let ofs = 1;
  if (compare(key, a[base + hint]) < 0) {
    // probe left until a[base+hint-ofs] <= key < a[base+hint-lastOfs]
    const maxOfs = hint + 1;
    while (ofs < maxOfs && compare(key, a[base + hint - ofs]) < 0) {
      lastOfs = ofs;
      ofs = nextOffset(ofs, maxOfs);
    }
    if (ofs > maxOfs) ofs = maxOfs;
    [lastOfs, ofs] = [hint - ofs, hint - lastOfs];
  } else {
    // probe right until a[base+hint+lastOfs] <= key < a[base+hint+ofs]
    const maxOfs = length - hint;
    while (ofs < maxOfs && compare(key, a[base + hint + ofs]) >= 0) {
      lastOfs = ofs;
      ofs = nextOffset(ofs, maxOfs);
    }
    if (ofs > maxOfs) ofs = maxOfs;
    lastOfs += hint;
    ofs += hint;
  }
  lastOfs++;
  while (lastOfs < ofs) {
    const mid = lastOfs + ((ofs - lastOfs) >>> 1);
    if (compare(key, a[base + mid]) < 0) ofs = mid;
    else lastOfs = mid + 1;
  }
  return ofs;
}

// the stack of pending runs and the adaptive gallop threshold of one sort
class Merger {
  constructor(a, compare) {
    this.a = a;
    this.compare = compare;
    this.minGallop = MIN_GALLOP;
    this.runBase = [];
    this.runLen = [];
  }

  pushRun(base, length) {
    this.runBase.push(base);
    this.runLen.push(length);
  }

  // merges until the run lengths keep their invariants (Java 11 and later also check the
  // fourth run from the top)
  mergeCollapse() {
    const len = this.runLen;
    while (len.length > 1) {
      let n = len.length - 2;
      if ((n > 0 && len[n - 1] <= len[n] + len[n + 1]) || (n > 1 && len[n - 2] <= len[n] + len[n - 1])) {
        if (len[n - 1] < len[n + 1]) n--;
      } else if (len[n] > len[n + 1]) {
        break;
      }
      this.mergeAt(n);
    }
  }

  // merges every pending run, once the whole array has been pushed
  mergeForceCollapse() {
    const len = this.runLen;
    while (len.length > 1) {
      let n = len.length - 2;
      if (n > 0 && len[n - 1] < len[n + 1]) n--;
      this.mergeAt(n);
    }
  }

  // merges the runs at stack entries i and i + 1, which lie next to each other in the array
  mergeAt(i) {
    const { a, compare } = this;
    let base1 = this.runBase[i];
    let len1 = this.runLen[i];
    const base2 = this.runBase[i + 1];
    let len2 = this.runLen[i + 1];
    this.runLen[i] = len1 + len2;
    this.runBase.splice(i + 1, 1);
    this.runLen.splice(i + 1, 1);

    // the elements of run 1 that go before run 2's first element stay where they are
    const k = gallopRight(a[base2], a, base1, len1, 0, compare);
    base1 += k;
    len1 -= k;
    if (len1 === 0) return;
    // and so do the elements of run 2 that go after run 1's last element
    len2 = gallopLeft(a[base1 + len1 - 1], a, base2, len2, len2 - 1, compare);
    if (len2 === 0) return;
    if (len1 <= len2) this.mergeLo(base1, len1, base2, len2);
    else this.mergeHi(base1, len1, base2, len2);
  }

  // merges left to right with a copy of run 1 (the shorter one)
  mergeLo(base1, len1, base2, len2) {
    const { a, compare } = this;
    const tmp = a.slice(base1, base1 + len1);
    let cursor1 = 0; // into tmp
    let cursor2 = base2; // into a
    let dest = base1; // into a

    a[dest++] = a[cursor2++];
    if (--len2 === 0) {
      arraycopy(tmp, cursor1, a, dest, len1);
      return;
    }
    if (len1 === 1) {
      arraycopy(a, cursor2, a, dest, len2);
      a[dest + len2] = tmp[cursor1];
      return;
    }

    let minGallop = this.minGallop;
    outer: for (;;) {
      let count1 = 0; // times in a row run 1 won
      let count2 = 0; // times in a row run 2 won
      // one element at a time, until one run keeps winning
      do {
        if (compare(a[cursor2], tmp[cursor1]) < 0) {
          a[dest++] = a[cursor2++];
          count2++;
          count1 = 0;
          if (--len2 === 0) break outer;
        } else {
          a[dest++] = tmp[cursor1++];
          count1++;
          count2 = 0;
          if (--len1 === 1) break outer;
        }
      } while ((count1 | count2) < minGallop);

      // galloping: copy whole stretches while that pays off
      do {
        count1 = gallopRight(a[cursor2], tmp, cursor1, len1, 0, compare);
        if (count1 !== 0) {
          arraycopy(tmp, cursor1, a, dest, count1);
          dest += count1;
          cursor1 += count1;
          len1 -= count1;
          if (len1 <= 1) break outer; // len1 is 0 only for a comparator that breaks its contract
        }
        a[dest++] = a[cursor2++];
        if (--len2 === 0) break outer;

        count2 = gallopLeft(tmp[cursor1], a, cursor2, len2, 0, compare);
        if (count2 !== 0) {
          arraycopy(a, cursor2, a, dest, count2);
          dest += count2;
          cursor2 += count2;
          len2 -= count2;
          if (len2 === 0) break outer;
        }
        a[dest++] = tmp[cursor1++];
        if (--len1 === 1) break outer;
        minGallop--;
      } while (count1 >= MIN_GALLOP || count2 >= MIN_GALLOP);
      if (minGallop < 0) minGallop = 0;
      minGallop += 2; // leaving galloping makes entering it again harder
    }
    this.minGallop = minGallop < 1 ? 1 : minGallop;

    if (len1 === 1) {
      arraycopy(a, cursor2, a, dest, len2);
      a[dest + len2] = tmp[cursor1]; // run 1's last element goes at the end
    } else if (len1 === 0) {
      throw new IllegalArgument(CONTRACT_VIOLATION);
    } else {
      arraycopy(tmp, cursor1, a, dest, len1);
    }
  }

  // merges right to left with a copy of run 2 (the shorter one); mergeLo's mirror image
  mergeHi(base1, len1, base2, len2) {
    const { a, compare } = this;
    const tmp = a.slice(base2, base2 + len2);
    let cursor1 = base1 + len1 - 1; // into a
    let cursor2 = len2 - 1; // into tmp
    let dest = base2 + len2 - 1; // into a

    a[dest--] = a[cursor1--];
    if (--len1 === 0) {
      arraycopy(tmp, 0, a, dest - (len2 - 1), len2);
      return;
    }
    if (len2 === 1) {
      dest -= len1;
      cursor1 -= len1;
      arraycopy(a, cursor1 + 1, a, dest + 1, len1);
      a[dest] = tmp[cursor2];
      return;
    }

    let minGallop = this.minGallop;
    outer: for (;;) {
      let count1 = 0;
      let count2 = 0;
      do {
        if (compare(tmp[cursor2], a[cursor1]) < 0) {
          a[dest--] = a[cursor1--];
          count1++;
          count2 = 0;
          if (--len1 === 0) break outer;
        } else {
          a[dest--] = tmp[cursor2--];
          count2++;
          count1 = 0;
          if (--len2 === 1) break outer;
        }
      } while ((count1 | count2) < minGallop);

      do {
        count1 = len1 - gallopRight(tmp[cursor2], a, base1, len1, len1 - 1, compare);
        if (count1 !== 0) {
          dest -= count1;
          cursor1 -= count1;
          len1 -= count1;
          arraycopy(a, cursor1 + 1, a, dest + 1, count1);
          if (len1 === 0) break outer;
        }
        a[dest--] = tmp[cursor2--];
        if (--len2 === 1) break outer;

        count2 = len2 - gallopLeft(a[cursor1], tmp, 0, len2, len2 - 1, compare);
        if (count2 !== 0) {
          dest -= count2;
          cursor2 -= count2;
          len2 -= count2;
          arraycopy(tmp, cursor2 + 1, a, dest + 1, count2);
          if (len2 <= 1) break outer; // len2 is 0 only for a comparator that breaks its contract
        }
        a[dest--] = a[cursor1--];
        if (--len1 === 0) break outer;
        minGallop--;
      } while (count1 >= MIN_GALLOP || count2 >= MIN_GALLOP);
      if (minGallop < 0) minGallop = 0;
      minGallop += 2;
    }
    this.minGallop = minGallop < 1 ? 1 : minGallop;

    if (len2 === 1) {
      dest -= len1;
      cursor1 -= len1;
      arraycopy(a, cursor1 + 1, a, dest + 1, len1);
      a[dest] = tmp[cursor2]; // run 2's first element goes at the front
    } else if (len2 === 0) {
      throw new IllegalArgument(CONTRACT_VIOLATION);
    } else {
      arraycopy(tmp, 0, a, dest - (len2 - 1), len2);
    }
  }
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
  // Collections.sort of each list, or the error it threw
  const sorted = (items, compare) => {
    if (items === null) return null;
    const copy = [...items];
    try {
      timSort(copy, compare);
    } catch (error) {
      if (error instanceof IllegalArgument) return { error: 'illegal-argument', message: error.message };
      throw error;
    }
    return copy;
  };
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
