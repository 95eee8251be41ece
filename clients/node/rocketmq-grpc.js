#!/usr/bin/env node
// npm rocketmq-grpc (a Node.js client of RocketMQ 5's gRPC protocol written apart from the
// official one; the version package.json pins) behind the suite's exec protocol: GROUP_HASH,
// PUBLISH_ROUND_ROBIN and SUBSCRIBE_ROUND_ROBIN are answered by the package's own
// PublishingLoadBalancer and SubscriptionLoadBalancer on its own TopicRoute, built from its own
// protobuf classes. Nothing of their logic is written here. Run it as
//
//     npm ci --prefix clients/node && pytest --rmq-strategy="exec:node clients/node/rocketmq-grpc.js"
//
// What this file does besides calling them (the shared part in grpc-common.js, which harness.js
// also uses):
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

const path = require('node:path');
const { privateState, serve } = require('./grpc-common');
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

/** The queues a balancer kept and its index: private on the publishing one, public on the other. */
function state(balancer) {
  if (balancer instanceof SubscriptionLoadBalancer) return { queues: balancer.messageQueues, index: balancer.index };
  return privateState(balancer);
}

serve({
  name: PACKAGE, version: VERSION, pb, PublishingLoadBalancer, SubscriptionLoadBalancer,
  RouteData: TopicRoute, Endpoints, util, state,
});
