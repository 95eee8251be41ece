// The one rule by which a harness lines a client's round-robin counter up with Java's, written once:
// every harness whose client keeps such a counter requires this module, and clients/report.py
// prints RULE on the report page (clients.json holds it).
//
// Java 4.x's producer (ThreadLocalIndex) steps its stored counter and then reads the new value;
// the 4.x remoting clients of npm (ali-ons, rocketmq) read `sendWhichQueue++`: the stored value,
// then step it. So the client's counter is set to Java's stored value + 1, and reported less 1.
// A counter the case leaves unset starts where Java's does (the first nextInt() of
// java.util.Random(seed), made non-negative by Math.abs, 4.7.1 turning MIN_VALUE into 0), never at
// the client's own start (0 in rocketmq, Math.random() in ali-ons), which is as arbitrary as
// Java's. After a route update the counter is what the client's own producer keeps.
'use strict';

const RULE = 'A client\'s round-robin counter is set so that the next value it reads is the one Java\'s next '
  + 'select reads. RocketMQ 4.x\'s producer steps its stored counter and then reads it; ali-ons and npm '
  + '`rocketmq` read `sendWhichQueue++`, the stored value before the step: their counter is set to Java\'s '
  + 'stored value + 1 and reported less 1 (`clients/node/counter.js`, used by both harnesses). A case that '
  + 'leaves the counter unset gives both the start Java draws (the first `nextInt()` of '
  + '`java.util.Random(sendIndexSeed)`, made non-negative), not the client\'s own (0 in `rocketmq`, '
  + '`Math.random()` in ali-ons), which is as arbitrary as Java\'s. After a route update the counter is '
  + 'what the client\'s own producer keeps (`updateTopicPublishInfo`). The 5.x gRPC balancers read and '
  + 'then step their index as their Java twin does: their harnesses give them the case\'s index unchanged, '
  + 'but the Go 5.x client\'s, which steps its index and then reads one further (`Inc()`, then '
  + '`Mod(next+1, n)`): its harness gives it the case\'s index less 2 and reads it back plus 2 '
  + '(`indexOffsets` in its hello).';

const INT = 2n ** 32n;
const toInt = (value) => BigInt.asIntN(32, BigInt(value));

/** Java's stored counter of a pin: the value itself, or where Java's unset counter starts. */
function javaStored(value, seed, release) {
  if (value !== null && value !== undefined) return Number(value);
  const MASK = (1n << 48n) - 1n;
  let state = (BigInt(seed) ^ 0x5DEECE66Dn) & MASK;
  state = (state * 0x5DEECE66Dn + 0xBn) & MASK;
  const first = toInt(state >> 16n);
  if (first === -(INT / 2n)) return String(release) === '4.7.1' ? 0 : Number(first); // Math.abs(MIN_VALUE)
  return Number(first < 0n ? -first : first);
}

/** The value a read-then-step client holds where Java holds `stored`. */
const clientValue = (stored) => Number(stored) + 1;

/** Java's stored value for a read-then-step client's `held`. */
const javaValue = (held) => held - 1;

/** The client's counter for a case's pin ({sendIndex, sendIndexSeed} of `initial`) at `release`. */
const clientStart = (initial, release) => clientValue(javaStored(initial.sendIndex, initial.sendIndexSeed, release));

module.exports = { RULE, javaStored, clientValue, javaValue, clientStart };
