#!/usr/bin/env node
// The real Node.js client of RocketMQ 5 (npm rocketmq-client-nodejs, the version package.json
// pins) behind the suite's exec protocol: GROUP_HASH, PUBLISH_ROUND_ROBIN and
// SUBSCRIBE_ROUND_ROBIN are answered by the package's own PublishingLoadBalancer,
// SubscriptionLoadBalancer and TopicRouteData, on routes built from its own protobuf classes.
// Nothing of their logic is written here. Run it as
//
//     npm ci --prefix clients/node && pytest --rmq-strategy="exec:node clients/node/harness.js"
//
// What this file does besides calling them (the shared part in grpc-common.js, which
// rocketmq-grpc.js also uses):
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

const path = require('node:path');
const { serve } = require('./grpc-common');
const { clientRoot } = require('./home');

// which build of the package: rocketmq-client-nodejs-beta.js sets the beta's name before requiring this file
const PACKAGE = globalThis.RMQ_NODE_CLIENT || 'rocketmq-client-nodejs';
const ROOT = clientRoot(PACKAGE, 'clients/node/harness.js'); // RMQ_CLIENT_HOME's install, else clients/node's
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

// both balancers keep their queues and index in private fields (#messageQueues, #index): serve's default
serve({
  name: PACKAGE, version: VERSION, pb, PublishingLoadBalancer, SubscriptionLoadBalancer,
  RouteData: TopicRouteData, Endpoints, util, served: SERVED,
});
