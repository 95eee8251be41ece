#!/usr/bin/env node
// npm rocketmq-grpc (a Node.js client of RocketMQ 5's gRPC protocol written apart from the
// official one; the version package.json pins) behind the suite's exec protocol: GROUP_HASH,
// PUBLISH_ROUND_ROBIN and SUBSCRIBE_ROUND_ROBIN are answered by the package's own
// PublishingLoadBalancer and SubscriptionLoadBalancer on its own TopicRoute, built from its own
// protobuf classes. Nothing of their logic is written here. Run it as
//
//     npm ci --prefix clients/node && pytest --rmq-strategy="exec:node clients/node/rocketmq-grpc.js"
//
// What this file does besides calling them:
// - the start index goes in through the balancers' constructor argument;
// - the publishing balancer's kept queues and index are private fields (#messageQueues, #index),
//   read (never written) through Node's in-process inspector; the subscription balancer's are
//   public (messageQueues, index);
// - excluded endpoints are handed over as the producer keeps its isolated ones: a Map from each
//   Endpoints' facade (the package's own Endpoints class) to it;
// - a group's hash in the answer (sipHash24, for the failure report) is the package's own
//   util.calculateStringSipHash24 (an unsigned 64-bit BigInt), read as Java reads a long;
// - an Error whose message is the package's "No writable/readable message queue found" is
//   reported as illegal-argument, anything else it throws as other.
'use strict';

const inspector = require('node:inspector');
const path = require('node:path');
const readline = require('node:readline');
const { clientRoot } = require('./home');

const PACKAGE = 'rocketmq-grpc';
const ROOT = clientRoot(PACKAGE, 'clients/node/rocketmq-grpc.js'); // RMQ_CLIENT_HOME's install, else clients/node's
const pb = require(path.join(ROOT, 'lib/rpc/apache/rocketmq/v2/definition_pb'));
const { PublishingLoadBalancer } = require(path.join(ROOT, 'lib/producer/publish-load-balancer'));
const { SubscriptionLoadBalancer } = require(path.join(ROOT, 'lib/consumer/subscription-load-balancer'));
const { TopicRoute } = require(path.join(ROOT, 'lib/model/topic-route.model'));
const { Endpoints } = require(path.join(ROOT, 'lib/model/endpoint.model'));
const util = require(path.join(ROOT, 'lib/util'));
const VERSION = require(path.join(ROOT, 'package.json')).version;

// -- private fields, read through the inspector --------------------------------------------------

const session = new inspector.Session();
session.connect();

function post(method, params) {
  let answer;
  let failure;
  session.post(method, params, (error, result) => { failure = error; answer = result; });
  if (failure) throw failure;
  return answer;
}

function privateFields(object) {
  globalThis.__rmqProbe = object;
  try {
    const found = post('Runtime.evaluate', { expression: 'globalThis.__rmqProbe', objectGroup: 'rmq' });
    const properties = post('Runtime.getProperties', { objectId: found.result.objectId, ownProperties: true });
    const fields = {};
    for (const field of properties.privateProperties || []) {
      if (field.value.objectId) {
        post('Runtime.callFunctionOn', { objectId: field.value.objectId, functionDeclaration: 'function () { globalThis.__rmqOut = this; }' });
        fields[field.name] = globalThis.__rmqOut;
      } else {
        fields[field.name] = field.value.value;
      }
    }
    return fields;
  } finally {
    post('Runtime.releaseObjectGroup', { objectGroup: 'rmq' });
    delete globalThis.__rmqProbe;
    delete globalThis.__rmqOut;
  }
}

/** The queues a balancer kept and its index: private on the publishing one, public on the other. */
function state(balancer) {
  if (balancer instanceof SubscriptionLoadBalancer) return { queues: balancer.messageQueues, index: balancer.index };
  const fields = privateFields(balancer);
  return { queues: fields['#messageQueues'], index: fields['#index'] };
}

// -- routes as the package's own objects -----------------------------------------------------------

const SCHEMES = { IPv4: pb.AddressScheme.IPV4, IPv6: pb.AddressScheme.IPV6, DOMAIN_NAME: pb.AddressScheme.DOMAIN_NAME };

function endpoints(data) {
  const built = new pb.Endpoints().setScheme(SCHEMES[data.scheme]);
  for (const [host, port] of data.addresses) built.addAddresses(new pb.Address().setHost(host).setPort(port));
  return built;
}

function route(queues) {
  return new TopicRoute(queues.map((queue) => new pb.MessageQueue()
    .setTopic(new pb.Resource().setName('TopicTest'))
    .setId(queue.queueId)
    .setPermission(pb.Permission[queue.permission])
    .setBroker(new pb.Broker().setName(queue.broker.name).setId(queue.broker.id).setEndpoints(endpoints(queue.broker.endpoints)))));
}

function excludedMap(list) {
  const isolated = new Map();
  for (const data of list) {
    const item = new Endpoints(endpoints(data).toObject());
    isolated.set(item.facade, item);
  }
  return isolated;
}

function positions(data) {
  const index = new Map(data.messageQueues.map((queue, position) => [queue, position]));
  return (queue) => (index.has(queue) ? index.get(queue) : null);
}

function errorAnswer(error) {
  const message = error && error.message !== undefined ? String(error.message) : String(error);
  const kind = /^No (writable|readable) message queue found/.test(message) ? 'illegal-argument' : 'other';
  const name = error && error.constructor ? error.constructor.name : 'thrown';
  return { error: kind, message: kind === 'other' ? `${name}: ${message}` : message };
}

// -- the requests ----------------------------------------------------------------------------------

const GROUP_ROUTES = new Map(); // a group's route depends on its queue count only

function groupRoute(count) {
  if (!GROUP_ROUTES.has(count)) {
    const broker = { name: 'broker-a', id: 0, endpoints: { scheme: 'IPv4', addresses: [['10.0.0.1', 8081]] } };
    GROUP_ROUTES.set(count, route(Array.from({ length: count }, (_, id) => ({ queueId: id, permission: 'READ_WRITE', broker }))));
  }
  return GROUP_ROUTES.get(count);
}

function signedLong(unsigned) {
  return BigInt.asIntN(64, unsigned).toString();
}

function group(request) {
  const data = groupRoute(request.queues);
  const where = positions(data);
  return {
    answers: request.groups.map((name) => {
      try {
        const balancer = new PublishingLoadBalancer(data, 0);
        return { index: where(balancer.takeMessageQueueByMessageGroup(name)), sipHash24: signedLong(util.calculateStringSipHash24(name)) };
      } catch (error) {
        return errorAnswer(error);
      }
    }),
  };
}

function balance(request) {
  const publishing = request.strategy === 'PUBLISH_ROUND_ROBIN';
  const Balancer = publishing ? PublishingLoadBalancer : SubscriptionLoadBalancer;
  let data = route(request.route);
  let balancer;
  try {
    balancer = new Balancer(data, request.index);
  } catch (error) {
    return errorAnswer(error);
  }
  let where = positions(data);
  const filtered = state(balancer).queues.map(where);
  const outcomes = request.steps.map((step) => {
    try {
      if (step.op === 'take' && publishing) return { queues: balancer.takeMessageQueues(excludedMap(step.excluded), step.count).map(where) };
      if (step.op === 'take') return { queue: where(balancer.takeMessageQueue()) };
      if (step.op === 'group') return { queue: where(balancer.takeMessageQueueByMessageGroup(step.group)) };
      const next = route(step.route);
      balancer = balancer.update(next);
      data = next;
      where = positions(data);
      return { filtered: state(balancer).queues.map(where) };
    } catch (error) {
      return errorAnswer(error);
    }
  });
  return { filtered, outcomes, indexAfter: state(balancer).index };
}

// -- the protocol ----------------------------------------------------------------------------------

const HELLO = {
  protocol: 1,
  implementation: { name: PACKAGE, language: 'JavaScript (Node.js)', version: VERSION,
    homepage: 'https://www.npmjs.com/package/rocketmq-grpc' },
  strategies: ['GROUP_HASH', 'PUBLISH_ROUND_ROBIN', 'SUBSCRIBE_ROUND_ROBIN'],
  sort: false,
};

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
  else answer = { id: request.id, unsupported: `${request.cmd} is not a request of the gRPC balancers` };
  process.stdout.write(JSON.stringify(answer) + '\n');
});
lines.on('close', leave);
