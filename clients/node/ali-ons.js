#!/usr/bin/env node
// npm ali-ons (Aliyun's Node.js client of RocketMQ's 4.x remoting protocol) behind the suite's
// exec protocol. Every answer comes from the package's own code, required from its lib/:
// - allocation: each strategy of lib/consumer/rebalance/ (3.12.0 ships AllocateMessageQueueAveragely,
//   named AVG), its `allocate` on the lists as the request gives them, on the package's MessageQueue;
// - the rebalance sort (`sort`): MQPushConsumer.prototype.rebalanceByTopic, run on a stand-in
//   consumer whose name server answers the request's lists; the lists it hands its strategy are
//   the answer (its module-private `compare` and `cidAll.sort()` do the sorting);
// - FAULT_STRATEGY (`trace`): a route enters as in production, as the name server's answer read by
//   MQClientAPI.prototype.getTopicRouteInfoFromNameServer (./nameserver.js: only the socket is
//   replaced; the package decodes the response, parses its body and sorts queueDatas and
//   brokerDatas by broker name); MQClient.prototype._topicRouteData2TopicPublishInfo turns that
//   into a TopicPublishInfo, whose selectOneMessageQueue(lastBrokerName) answers each select
//   (ali-ons has no latency fault tolerance: the hello says "latencyFaultTolerance": false); a
//   route step goes through MQProducer.prototype.updateTopicPublishInfo, which keeps the counter;
// - SELECTOR_HASH (`select`): selectOneMessageQueue(undefined, {shardingKey}) on a publish info of
//   queues broker-a/0..n-1 (3.12.0 hashes the sharding key with MD5; a version whose
//   selectOneMessageQueue takes no message does not serve it).
// Nothing of their logic is written here. What this file does besides calling them:
// - the package is resolved from $RMQ_CLIENT_HOME when set, else from clients/node/node_modules,
//   and its version read from that package.json; a family the version lacks is left out of the hello;
// - the counter is aligned to Java's by the one rule of ./counter.js (every harness's): set to
//   Java's stored value + 1 (ali-ons reads `sendWhichQueue++`, Java steps first) and reported less
//   1; an unset counter starts where Java's seeded java.util.Random starts it, not at Math.random();
// - a sharding key's selection pins the counter at 1 (the package starts it at Math.random()):
//   the counter is read only where the key does not settle the queue;
// - a plain Error whose message is one of the strategy's argument checks is reported as
//   illegal-argument (Java's IllegalArgumentException), anything else thrown as other;
// - update and advance steps change nothing: ali-ons keeps no fault table ({"item": null});
//   a select's resetIndex (5.x's argument) is not passed at 4.x, whose select has none either;
//   a route step's counter pin is not applied (ali-ons keeps its counter across routes);
// - notRun, never a made-up answer, for what its API cannot be given: a selector argument that is
//   not a string (the sharding key is one), the empty key (read as none), lists over MAX_QUEUES
//   (4,096) queues (its queue-id scan is quadratic).
// Run it as
//
//     npm ci --prefix clients/node --ignore-scripts && pytest --rmq-strategy="exec:node clients/node/ali-ons.js" --rmq-reference-version=4.9.8
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline');

const PACKAGE = 'ali-ons';
const ROOT = require('./home').clientRoot(PACKAGE, 'ali-ons.js');
const META = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const lib = (file) => require(path.join(ROOT, 'lib', file));
const optional = (file) => {
  try {
    return lib(file);
  } catch (error) {
    process.stderr.write(`ali-ons ${META.version}: lib/${file} not loaded: ${error.message}\n`);
    return null;
  }
};

const MessageQueue = lib('message_queue');
const TopicPublishInfo = optional('producer/topic_publish_info');
const MQClient = optional('mq_client');
const MQProducer = optional('producer/mq_producer');
const MQPushConsumer = optional('consumer/mq_push_consumer');
const { routeReader } = require('./nameserver');

// -- what this version serves -------------------------------------------------------------------

const STRATEGIES = new Map(); // family -> its strategy class
const REBALANCE = path.join(ROOT, 'lib', 'consumer', 'rebalance');
for (const file of fs.existsSync(REBALANCE) ? fs.readdirSync(REBALANCE).sort() : []) {
  if (!file.endsWith('.js') || file === 'allocate_message_queue_strategy.js') continue;
  const Strategy = optional(path.join('consumer', 'rebalance', file));
  try {
    const name = new Strategy().name;
    if (typeof name === 'string' && !STRATEGIES.has(name)) STRATEGIES.set(name, Strategy);
  } catch (error) {
    process.stderr.write(`ali-ons ${META.version}: ${file} has no name: ${error.message}\n`);
  }
}
const CAN_SORT = Boolean(MQPushConsumer && MQPushConsumer.prototype.rebalanceByTopic);
const MQClientAPI = optional('mq_client_api');
// a route enters through the name server's answer (MQClientAPI.getTopicRouteInfoFromNameServer, in
// every version the trend runs): a version without it is not traced, and its trace answer says so
const CAN_READ_ROUTE = Boolean(MQClientAPI && MQClientAPI.prototype.getTopicRouteInfoFromNameServer);
const CAN_TRACE = Boolean(CAN_READ_ROUTE && TopicPublishInfo && MQClient && MQClient.prototype._topicRouteData2TopicPublishInfo);
// the sharding key arrived with a second parameter of selectOneMessageQueue (message)
const CAN_HASH = Boolean(TopicPublishInfo && TopicPublishInfo.prototype.selectOneMessageQueue.length >= 2);
const FAMILIES = [...STRATEGIES.keys(), ...(CAN_TRACE ? ['FAULT_STRATEGY'] : []), ...(CAN_HASH ? ['SELECTOR_HASH'] : [])];

// -- helpers ------------------------------------------------------------------------------------

// the argument checks of ali-ons's strategies, which Java makes with IllegalArgumentException
const ILLEGAL = /^(currentCID is empty|mqAll is null or mqAll empty|cidAll is null or cidAll empty)$/;

function errorAnswer(error) {
  const message = error && error.message !== undefined ? String(error.message) : String(error);
  const kind = error instanceof Error && ILLEGAL.test(message) ? 'illegal-argument' : 'other';
  const name = error && error.constructor ? error.constructor.name : 'thrown';
  return { error: kind, message: kind === 'other' ? `${name}: ${message}` : message };
}

const queueJson = (mq) => [mq.topic, mq.brokerName, mq.queueId];
const queuesOf = (list) => (list === null ? null : list.map(([topic, broker, id]) => new MessageQueue(topic, broker, id)));

// drives a method that is async (3.x) or a co generator (2.x) to its end
async function finish(result) {
  if (result && typeof result.next === 'function' && typeof result.throw === 'function') {
    let step = result.next();
    while (!step.done) step = result.next(await step.value);
    return step.value;
  }
  return result;
}

// -- allocation ---------------------------------------------------------------------------------

function allocate(request) {
  const Strategy = STRATEGIES.get(request.strategy);
  if (!Strategy) return { unsupported: `ali-ons ${META.version} ships no ${request.strategy} strategy` };
  const answers = request.callers.map((caller) => {
    try {
      const got = new Strategy().allocate(request.consumerGroup, caller, queuesOf(request.mqAll), request.cidAll === null ? null : [...request.cidAll]);
      return got === null || got === undefined ? { null: true } : { queues: got.map(queueJson) };
    } catch (error) {
      return errorAnswer(error);
    }
  });
  return { answers };
}

// the lists rebalanceByTopic hands its strategy, once it has sorted them
async function rebalanceSort(mqAll, cidAll) {
  const topic = 'TopicTest';
  let seen = null;
  const quiet = { info() {}, warn() {}, error() {}, debug() {} };
  const consumer = {
    logger: quiet,
    options: { isBroadcast: false },
    consumerGroup: 'rmq-conformance',
    messageModel: 'CLUSTERING',
    _topicSubscribeInfoTable: new Map([[topic, mqAll]]),
    _mqClient: { clientId: cidAll[0], findConsumerIdList: async () => cidAll },
    allocateMessageQueueStrategy: { name: 'RECORD', allocate: (group, cid, mqs, cids) => { seen = { mqs, cids }; return []; } },
    updateProcessQueueTableInRebalance: async () => false,
    emit() {},
  };
  await finish(MQPushConsumer.prototype.rebalanceByTopic.call(consumer, topic));
  return seen;
}

async function sort(request) {
  const answer = {};
  // each list alone: rebalanceByTopic sorts nothing when either is empty, nor a null one
  if (request.mqAll === null) answer.mqAll = null;
  else if (request.mqAll.length === 0) answer.mqAll = [];
  else {
    try {
      answer.mqAll = (await rebalanceSort(queuesOf(request.mqAll), ['rmq@1'])).mqs.map(queueJson);
    } catch (error) {
      answer.mqAll = errorAnswer(error);
    }
  }
  if (request.cidAll === null) answer.cidAll = null;
  else if (request.cidAll.length === 0) answer.cidAll = [];
  else {
    try {
      answer.cidAll = (await rebalanceSort([new MessageQueue('TopicTest', 'broker-a', 0)], [...request.cidAll])).cids;
    } catch (error) {
      answer.cidAll = errorAnswer(error);
    }
  }
  return answer;
}

// -- producer -----------------------------------------------------------------------------------

const counter = require('./counter');
const readRoute = CAN_TRACE ? routeReader(ROOT) : null;

// the route as production reads it: the name server's answer, through the package's own client API
async function publishInfo(topic, route) {
  return MQClient.prototype._topicRouteData2TopicPublishInfo.call(null, topic, await readRoute(topic, route));
}

async function trace(request) {
  if (request.strategy === 'FAULT_STRATEGY' && !CAN_READ_ROUTE) {
    return { unsupported: `ali-ons ${META.version} has no MQClientAPI.getTopicRouteInfoFromNameServer, where a route enters the client` };
  }
  if (request.strategy !== 'FAULT_STRATEGY' || !CAN_TRACE) return { unsupported: `ali-ons ${META.version} has no ${request.strategy}` };
  // resetIndex is an argument of 5.x's select only: 4.x's has none, as ali-ons's
  const reset = !String(request.release).startsWith('4.');
  const asks = (step) => (reset && step.op === 'select' && step.resetIndex) || step.op === 'detect' || (step.op === 'set_latency' && step.enable);
  if (request.params.sendLatencyFaultEnable || request.steps.some(asks)) {
    return { unsupported: 'ali-ons has no latency fault tolerance, no resetIndex and no detector' };
  }
  const producer = { _topicPublishInfoTable: new Map(), logger: { warn() {}, info() {} } };
  let info;
  try {
    info = await publishInfo(request.topic, request.route);
  } catch (error) {
    return { publishList: [], outcomes: request.steps.map((step, at) => (at === 0 ? errorAnswer(error) : null)) };
  }
  MQProducer.prototype.updateTopicPublishInfo.call(producer, request.topic, info);
  info.sendWhichQueue = counter.clientStart(request.initial, request.release);
  const listOf = (it) => it.messageQueueList.map((mq) => [mq.brokerName, mq.queueId]);
  const publishList = listOf(info);
  const outcomes = [];
  for (const step of request.steps) {
    switch (step.op) {
      case 'advance':
      case 'set_latency':
        outcomes.push(null);
        break;
      case 'set_index':
        info.sendWhichQueue = counter.clientValue(step.value);
        outcomes.push(null);
        break;
      case 'update':
        outcomes.push({ item: null });
        break;
      case 'route': {
        try {
          const next = await publishInfo(request.topic, step.route);
          MQProducer.prototype.updateTopicPublishInfo.call(producer, request.topic, next); // keeps the counter
          info = next;
          outcomes.push({ publishList: listOf(info) });
        } catch (error) {
          outcomes.push(errorAnswer(error));
        }
        break;
      }
      default: { // select, tp_select: the same call, the publish info's own
        try {
          const mq = info.selectOneMessageQueue(step.lastBroker === null ? undefined : step.lastBroker);
          const at = mq ? info.messageQueueList.indexOf(mq) : -1;
          outcomes.push({
            queue: mq ? [mq.brokerName, mq.queueId] : null,
            listIndex: at < 0 ? null : at,
            storedIndexAfter: counter.javaValue(info.sendWhichQueue),
          });
        } catch (error) {
          outcomes.push(errorAnswer(error));
        }
      }
    }
  }
  return { publishList, outcomes };
}

const MAX_QUEUES = 4096; // the largest list run: the sharding scan is quadratic (65,536 queues take 3-5 s a call)

function select(request) {
  if (request.strategy !== 'SELECTOR_HASH' || !CAN_HASH) return { unsupported: `ali-ons ${META.version} has no ${request.strategy}` };
  const arg = request.arg;
  const answers = request.queueCounts.map((count) => {
    if (!arg || arg.type !== 'string') {
      return { notRun: `ali-ons hashes a message's sharding key, a string; it takes no ${arg ? arg.type : 'null'} argument` };
    }
    // Array.includes over the ids collected so far: quadratic (65,536 queues take seconds)
    if (count > MAX_QUEUES) return { notRun: `ali-ons's sharding scan is quadratic in the list: ${count} queues would take seconds to hours a call (lists up to ${MAX_QUEUES} are run)` };
    if (arg.value === '') return { notRun: 'ali-ons reads an empty sharding key as none: the message is sent round robin, not hashed' };
    try {
      const info = new TopicPublishInfo();
      info.messageQueueList = Array.from({ length: count }, (_, id) => new MessageQueue('TopicTest', 'broker-a', id));
      info.sendWhichQueue = 1;
      const mq = info.selectOneMessageQueue(undefined, { shardingKey: arg.value });
      const at = mq ? info.messageQueueList.indexOf(mq) : -1;
      return { index: at < 0 ? null : at };
    } catch (error) {
      return errorAnswer(error);
    }
  });
  return { answers };
}

// -- the protocol -------------------------------------------------------------------------------

const HELLO = {
  protocol: 1,
  implementation: { name: PACKAGE, language: 'JavaScript (Node.js)', version: META.version, homepage: 'https://www.npmjs.com/package/ali-ons' },
  strategies: FAMILIES,
  sort: CAN_SORT,
  latencyFaultTolerance: false,
};

// long integers (seeds, clocks, Long arguments) kept exact: quoted before JSON.parse rounds them
const LONGS = /("(?:sendIndexSeed|worstIndexSeed|clockMs|sendIndex|value|ms)"\s*:\s*)(-?\d{16,})/g;

async function answer(request) {
  switch (request.cmd) {
    case 'hello': return HELLO;
    case 'allocate': return { id: request.id, ...allocate(request) };
    case 'sort': return CAN_SORT ? { id: request.id, ...(await sort(request)) } : { id: request.id, unsupported: 'no rebalanceByTopic' };
    case 'trace': return { id: request.id, ...(await trace(request)) };
    case 'select': return { id: request.id, ...select(request) };
    default: return { id: request.id, unsupported: `ali-ons answers no ${request.cmd}` };
  }
}

let leaving = false;
function leave() {
  if (leaving) return;
  leaving = true;
  process.stdout.write('', () => process.exit(0));
}

let queue = Promise.resolve(); // answers in request order
const lines = readline.createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (leaving || !line.trim()) return;
  const request = JSON.parse(line.replace(LONGS, '$1"$2"'));
  if (request.cmd === 'bye') {
    lines.close(); // leaves once the answers before it are written
    return;
  }
  queue = queue.then(async () => {
    if (!leaving) process.stdout.write(JSON.stringify(await answer(request)) + '\n');
  });
});
lines.on('close', () => queue.then(leave));
