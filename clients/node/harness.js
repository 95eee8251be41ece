#!/usr/bin/env node
// The real Node.js client of RocketMQ 5 (npm rocketmq-client-nodejs, the version package.json
// pins) behind the suite's exec protocol: GROUP_HASH, PUBLISH_ROUND_ROBIN and
// SUBSCRIBE_ROUND_ROBIN are answered by the package's own PublishingLoadBalancer,
// SubscriptionLoadBalancer and TopicRouteData, on routes built from its own protobuf classes.
// Nothing of their logic is written here. Run it as
//
//     npm ci --prefix clients/node && pytest --rmq-strategy="exec:node clients/node/harness.js"
//
// What this file does besides calling them:
// - the start index goes in through the balancers' public constructor argument;
// - the queues a balancer kept and its index after the steps are private fields (#messageQueues,
//   #index): they are read, never written, through Node's in-process inspector;
// - excluded endpoints are handed over as the producer hands its isolated endpoints: a Map from
//   each Endpoints' facade to it;
// - a group's hash in the answer (sipHash24, for the failure report) is the package's own
//   util.calculateStringSipHash24, read as Java reads a long (the low 64 bits, signed);
// - an Error whose message is the client's "No writable/readable message queue found" is
//   reported as illegal-argument (the condition Java's IllegalArgumentException stands for),
//   anything else it throws as other.
//
// Another version (the trend, clients/trend.py): RMQ_CLIENT_HOME names a folder that version is
// installed in (npm install --prefix); the package is resolved from there and every module of it
// relative to the package's root. A family whose classes or methods that version lacks is left
// out of the hello (the suite reports it not implemented), never crashed on.
'use strict';

const fs = require('node:fs');
const inspector = require('node:inspector');
const path = require('node:path');
const readline = require('node:readline');

// which build of the package: rocketmq-client-nodejs-beta.js sets the beta's name before requiring this file
const PACKAGE = globalThis.RMQ_NODE_CLIENT || 'rocketmq-client-nodejs';
const HOME = process.env.RMQ_CLIENT_HOME;
if (HOME && !fs.existsSync(HOME)) {
  process.stderr.write(`clients/node/harness.js: RMQ_CLIENT_HOME=${HOME} does not exist\n`);
  process.exit(2);
}

function packageRoot() {
  let dir = path.dirname(HOME ? require.resolve(PACKAGE, { paths: [HOME] }) : require.resolve(PACKAGE));
  while (!(path.basename(dir) === PACKAGE && fs.existsSync(path.join(dir, 'package.json')))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`clients/node/harness.js: no root folder of ${PACKAGE} above ${require.resolve(PACKAGE, HOME ? { paths: [HOME] } : undefined)}`);
    dir = up;
  }
  return dir;
}

const ROOT = packageRoot();
const VERSION = require(path.join(ROOT, 'package.json')).version;
const LACKS = []; // what this version has not, for the hello's stderr note

function load(relative, name) {
  try {
    const found = require(path.join(ROOT, relative));
    if (name === undefined) return found;
    if (found[name] === undefined) throw new Error(`exports no ${name}`);
    return found[name];
  } catch (error) {
    LACKS.push(`${relative}${name ? ` (${name})` : ''}: ${error.message.split('\n')[0]}`);
    return undefined;
  }
}

const pb = load('proto/apache/rocketmq/v2/definition_pb');
const PublishingLoadBalancer = load('dist/producer/PublishingLoadBalancer', 'PublishingLoadBalancer');
const SubscriptionLoadBalancer = load('dist/consumer/SubscriptionLoadBalancer', 'SubscriptionLoadBalancer');
const TopicRouteData = load('dist/route/TopicRouteData', 'TopicRouteData');
const Endpoints = load('dist/route/Endpoints', 'Endpoints');
const util = load('dist/util');

function has(Class, method) {
  return Class !== undefined && typeof Class.prototype[method] === 'function';
}

// what this version can serve: the routes need pb and TopicRouteData, each family its balancer
const ROUTES = pb !== undefined && TopicRouteData !== undefined;
const SERVED = [
  ROUTES && has(PublishingLoadBalancer, 'takeMessageQueueByMessageGroup') && util && util.calculateStringSipHash24 && 'GROUP_HASH',
  ROUTES && Endpoints !== undefined && has(PublishingLoadBalancer, 'takeMessageQueues') && 'PUBLISH_ROUND_ROBIN',
  ROUTES && has(SubscriptionLoadBalancer, 'takeMessageQueue') && 'SUBSCRIBE_ROUND_ROBIN',
].filter(Boolean);
if (LACKS.length) process.stderr.write(`clients/node/harness.js: ${PACKAGE} ${VERSION} lacks ${LACKS.join('; ')}\n`);

// -- the private fields, read through the inspector ---------------------------------------------

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

// -- routes as the package's own objects ----------------------------------------------------------

const SCHEMES = pb && { IPv4: pb.AddressScheme.IPV4, IPv6: pb.AddressScheme.IPV6, DOMAIN_NAME: pb.AddressScheme.DOMAIN_NAME };

function endpoints(data) {
  const built = new pb.Endpoints().setScheme(SCHEMES[data.scheme]);
  for (const [host, port] of data.addresses) built.addAddresses(new pb.Address().setHost(host).setPort(port));
  return built;
}

function route(queues) {
  return new TopicRouteData(queues.map((queue) => new pb.MessageQueue()
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

// -- the requests -------------------------------------------------------------------------------

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
  if (!SERVED.includes('GROUP_HASH')) return { unsupported: `${PACKAGE} ${VERSION} does not serve GROUP_HASH` };
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
  if (!SERVED.includes(request.strategy)) return { unsupported: `${PACKAGE} ${VERSION} does not serve ${request.strategy}` };
  if (!SERVED.includes('GROUP_HASH') && request.steps.some((step) => step.op === 'group')) {
    return { unsupported: `${PACKAGE} ${VERSION} has no takeMessageQueueByMessageGroup (a group step)` };
  }
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
  const filtered = privateFields(balancer)['#messageQueues'].map(where);
  const outcomes = request.steps.map((step) => {
    try {
      if (step.op === 'take' && publishing) return { queues: balancer.takeMessageQueues(excludedMap(step.excluded), step.count).map(where) };
      if (step.op === 'take') return { queue: where(balancer.takeMessageQueue()) };
      if (step.op === 'group') return { queue: where(balancer.takeMessageQueueByMessageGroup(step.group)) };
      const next = route(step.route);
      balancer = balancer.update(next);
      data = next;
      where = positions(data);
      return { filtered: privateFields(balancer)['#messageQueues'].map(where) };
    } catch (error) {
      return errorAnswer(error);
    }
  });
  return { filtered, outcomes, indexAfter: privateFields(balancer)['#index'] };
}

// -- the protocol -------------------------------------------------------------------------------

const HELLO = {
  protocol: 1,
  implementation: { name: PACKAGE, language: 'JavaScript (Node.js)', version: VERSION,
    homepage: `https://www.npmjs.com/package/${PACKAGE}` },
  strategies: SERVED,
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
