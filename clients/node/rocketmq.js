#!/usr/bin/env node
// npm rocketmq (a pure JavaScript remoting client of RocketMQ 4, forked from ali-ons; the version
// package.json pins) behind the suite's exec protocol: AVG, the consumer's rebalance sort and
// FAULT_STRATEGY are answered by the package's own classes. Nothing of their logic is written
// here. Run it as
//
//     npm ci --prefix clients/node && pytest --rmq-strategy="exec:node clients/node/rocketmq.js" --rmq-reference-version=4.9.8
//
// - allocate: the package's AllocateMessageQueueAveragely (its only strategy) on its own
//   MessageQueue objects; an Error whose message is one of Java's IllegalArgumentException
//   messages (the package throws the same texts) is illegal-argument, anything else other;
// - sort: the push consumer's own rebalanceByTopic, run (through co, as the package runs it) on
//   an object of its prototype whose topic table holds the request's mqAll and whose consumer-id
//   lookup answers its cidAll; the answer is the two lists as the method leaves them (it sorts
//   them in place, and returns before sorting when either is null or empty);
// - trace (FAULT_STRATEGY): the package has no fault strategy and no latency table (the hello
//   says latencyFaultTolerance: false). A route enters as in production: the name server's answer
//   read by the client's own getTopicRouteInfoFromNameServer (./nameserver.js: only the socket is
//   replaced; the package decodes the response, parses the body and sorts the brokers), then
//   MQClient._topicRouteData2TopicPublishInfo, and MQProducer.updateTopicPublishInfo, which keeps
//   the counter across a route step as the producer does; a select or tp_select is
//   TopicPublishInfo.selectOneMessageQueue(lastBroker), which is what the producer's send loop
//   calls (resetIndex has no counterpart); the counter (sendWhichQueue, read before it is
//   stepped) is aligned to Java's by the one rule of ./counter.js, as ali-ons's is; update,
//   advance, set_latency and detect change nothing the package keeps (an update leaves no item;
//   a detector round, which it has not, is answered as a step with nothing to show).
'use strict';

const path = require('node:path');
const readline = require('node:readline');
const { clientRoot } = require('./home');

const PACKAGE = 'rocketmq';
const ROOT = clientRoot(PACKAGE, 'clients/node/rocketmq.js'); // RMQ_CLIENT_HOME's install, else clients/node's
const co = require(require.resolve('co', { paths: [ROOT] })); // the co the package itself runs on
const MessageQueue = require(path.join(ROOT, 'lib/message_queue'));
const Averagely = require(path.join(ROOT, 'lib/consumer/rebalance/allocate_message_queue_averagely'));
const MQPushConsumer = require(path.join(ROOT, 'lib/consumer/mq_push_consumer'));
const MQClient = require(path.join(ROOT, 'lib/mq_client'));
const MQProducer = require(path.join(ROOT, 'lib/producer/mq_producer'));
const { routeReader } = require('./nameserver');
const counter = require('./counter');
const VERSION = require(path.join(ROOT, 'package.json')).version;

const QUIET = { info() {}, warn() {}, error() {}, debug() {} };
const ILLEGAL = new Set(['currentCID is empty', 'mqAll is null or mqAll empty', 'cidAll is null or cidAll empty']);

function errorAnswer(error) {
  const message = error && error.message !== undefined ? String(error.message) : String(error);
  if (ILLEGAL.has(message)) return { error: 'illegal-argument', message };
  const name = error && error.constructor ? error.constructor.name : 'thrown';
  return { error: 'other', message: `${name}: ${message}` };
}

const queues = (list) => (list === null ? null : list.map(([topic, broker, id]) => new MessageQueue(topic, broker, id)));
const triples = (list) => list.map((mq) => [mq.topic, mq.brokerName, mq.queueId]);

// -- allocate and sort ---------------------------------------------------------------------------

function allocate(request) {
  if (request.strategy !== 'AVG') return { unsupported: `${request.strategy}: the package has AllocateMessageQueueAveragely only` };
  const strategy = new Averagely();
  return {
    answers: request.callers.map((caller) => {
      try {
        const result = strategy.allocate(request.consumerGroup, caller, queues(request.mqAll), request.cidAll === null ? null : [...request.cidAll]);
        return result === null || result === undefined ? { null: true } : { queues: triples(result) };
      } catch (error) {
        return errorAnswer(error);
      }
    }),
  };
}

function sort(request) {
  const topic = request.mqAll && request.mqAll.length ? request.mqAll[0][0] : 'TopicTest';
  const mqAll = queues(request.mqAll);
  const cidAll = request.cidAll === null ? null : [...request.cidAll];
  const consumer = Object.create(MQPushConsumer.prototype);
  Object.assign(consumer, {
    options: { consumerGroup: 'g', isBroadcast: false, logger: QUIET, allocateMessageQueueStrategy: { allocate() { return []; } } },
    _topicSubscribeInfoTable: new Map(mqAll === null ? [] : [[topic, mqAll]]),
    _mqClient: { clientId: 'harness@0', * findConsumerIdList() { return cidAll; } },
    * updateProcessQueueTableInRebalance() { return false; },
    emit() {},
  });
  // the lists as the rebalance leaves them: sorted in place, or untouched where it returned first
  return co(consumer.rebalanceByTopic(topic)).then(
    () => ({ mqAll: mqAll === null ? null : triples(mqAll), cidAll }),
    (error) => ({ mqAll: errorAnswer(error), cidAll: errorAnswer(error) }));
}

// -- trace ---------------------------------------------------------------------------------------

const TOPIC = 'TopicTest';
const readRoute = routeReader(ROOT);

// the route as production reads it: the name server's answer, through the package's own client API
function* publishInfo(route) {
  const data = yield readRoute(TOPIC, route);
  return MQClient.prototype._topicRouteData2TopicPublishInfo.call(null, TOPIC, data);
}

function selected(info, queue) {
  const at = queue ? info.messageQueueList.indexOf(queue) : -1;
  return {
    queue: queue ? [queue.brokerName, queue.queueId] : null,
    listIndex: at < 0 ? null : at,
    storedIndexAfter: counter.javaValue(info.sendWhichQueue),
  };
}

function* trace(request) {
  if (request.strategy !== 'FAULT_STRATEGY') return { unsupported: `${request.strategy} is not the package's` };
  const outcomes = request.steps.map(() => null);
  const producer = { _topicPublishInfoTable: new Map(), logger: QUIET };
  let info;
  try {
    info = yield publishInfo(request.route);
  } catch (error) {
    outcomes[0] = errorAnswer(error);
    return { publishList: [], outcomes };
  }
  MQProducer.prototype.updateTopicPublishInfo.call(producer, TOPIC, info);
  info.sendWhichQueue = counter.clientStart(request.initial, request.release);
  const built = info.messageQueueList.map((mq) => [mq.brokerName, mq.queueId]);
  for (const [index, step] of request.steps.entries()) {
    try {
      switch (step.op) {
        case 'select':
        case 'tp_select':
          outcomes[index] = selected(info, info.selectOneMessageQueue(step.lastBroker === null ? undefined : step.lastBroker));
          break;
        case 'set_index':
          info.sendWhichQueue = counter.clientValue(step.value);
          break;
        case 'route': {
          const next = yield publishInfo(step.route);
          MQProducer.prototype.updateTopicPublishInfo.call(producer, TOPIC, next); // keeps the counter
          info = next;
          outcomes[index] = { publishList: info.messageQueueList.map((mq) => [mq.brokerName, mq.queueId]) };
          break;
        }
        case 'update':
          outcomes[index] = { item: null };
          break;
        default: // advance, set_latency, detect: nothing the package keeps, no table to show
          break;
      }
    } catch (error) {
      outcomes[index] = errorAnswer(error);
    }
  }
  return { publishList: built, outcomes };
}

// -- the protocol ----------------------------------------------------------------------------------

const HELLO = {
  protocol: 1,
  implementation: { name: PACKAGE, language: 'JavaScript (Node.js)', version: VERSION,
    homepage: 'https://www.npmjs.com/package/rocketmq' },
  strategies: ['AVG', 'FAULT_STRATEGY'],
  sort: true,
  latencyFaultTolerance: false,
};

function answer(request) {
  switch (request.cmd) {
    case 'hello': return Promise.resolve(HELLO);
    case 'allocate': return Promise.resolve({ id: request.id, ...allocate(request) });
    case 'sort': return sort(request).then((sorted) => ({ id: request.id, ...sorted }));
    case 'trace': return co(trace(request)).then((traced) => ({ id: request.id, ...traced }));
    default: return Promise.resolve({ id: request.id, unsupported: `${request.cmd} is not served for this package` });
  }
}

let queue = Promise.resolve();
let leaving = false;
const lines = readline.createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (leaving || !line.trim()) return;
  const request = JSON.parse(line);
  if (request.cmd === 'bye') {
    leaving = true;
    lines.close();
    queue.then(() => process.stdout.write('', () => process.exit(0)));
    return;
  }
  queue = queue.then(() => answer(request)).then((reply) => { process.stdout.write(JSON.stringify(reply) + '\n'); });
});
lines.on('close', () => { if (!leaving) queue.then(() => process.exit(0)); });
