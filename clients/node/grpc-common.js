// What the harnesses of the two Node.js clients of RocketMQ 5's gRPC protocol (harness.js for
// rocketmq-client-nodejs and its beta, rocketmq-grpc.js) share: routes built from the package's
// own protobuf classes, excluded endpoints as the producer keeps them, private fields read through
// Node's in-process inspector, errors as answers, the group and balance requests and the protocol
// loop. Each harness loads its package's modules and hands them to serve(); nothing of the
// balancers' logic is written here.
'use strict';

const inspector = require('node:inspector');
const readline = require('node:readline');

const ALL = ['GROUP_HASH', 'PUBLISH_ROUND_ROBIN', 'SUBSCRIBE_ROUND_ROBIN'];

let session;

function post(method, params) {
  if (session === undefined) {
    session = new inspector.Session();
    session.connect();
  }
  let answer;
  let failure;
  session.post(method, params, (error, result) => { failure = error; answer = result; });
  if (failure) throw failure;
  return answer;
}

/** An object's private fields (#name -> value), read, never written, through the inspector. */
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

/** The queues a balancer kept and its index, from its private #messageQueues and #index. */
function privateState(balancer) {
  const fields = privateFields(balancer);
  return { queues: fields['#messageQueues'], index: fields['#index'] };
}

function errorAnswer(error) {
  const message = error && error.message !== undefined ? String(error.message) : String(error);
  const kind = /^No (writable|readable) message queue found/.test(message) ? 'illegal-argument' : 'other';
  const name = error && error.constructor ? error.constructor.name : 'thrown';
  return { error: kind, message: kind === 'other' ? `${name}: ${message}` : message };
}

function signedLong(unsigned) {
  return BigInt.asIntN(64, unsigned).toString();
}

/**
 * Answers the exec protocol on stdin/stdout with one package's classes:
 * name and version (the hello), pb (its definition_pb module), PublishingLoadBalancer,
 * SubscriptionLoadBalancer, RouteData (the route class built from a list of pb.MessageQueue),
 * Endpoints (its facade class), util (with calculateStringSipHash24), served (the families it can
 * answer, default all three) and state (a balancer's kept queues and index, default privateState).
 */
function serve(client) {
  const { name, version, pb, PublishingLoadBalancer, SubscriptionLoadBalancer, RouteData, Endpoints, util } = client;
  const served = client.served || ALL;
  const state = client.state || privateState;
  const schemes = pb && { IPv4: pb.AddressScheme.IPV4, IPv6: pb.AddressScheme.IPV6, DOMAIN_NAME: pb.AddressScheme.DOMAIN_NAME };

  function endpoints(data) {
    const built = new pb.Endpoints().setScheme(schemes[data.scheme]);
    for (const [host, port] of data.addresses) built.addAddresses(new pb.Address().setHost(host).setPort(port));
    return built;
  }

  function route(queues) {
    return new RouteData(queues.map((queue) => new pb.MessageQueue()
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

  const groupRoutes = new Map(); // a group's route depends on its queue count only

  function groupRoute(count) {
    if (!groupRoutes.has(count)) {
      const broker = { name: 'broker-a', id: 0, endpoints: { scheme: 'IPv4', addresses: [['10.0.0.1', 8081]] } };
      groupRoutes.set(count, route(Array.from({ length: count }, (_, id) => ({ queueId: id, permission: 'READ_WRITE', broker }))));
    }
    return groupRoutes.get(count);
  }

  function group(request) {
    if (!served.includes('GROUP_HASH')) return { unsupported: `${name} ${version} does not serve GROUP_HASH` };
    const data = groupRoute(request.queues);
    const where = positions(data);
    return {
      answers: request.groups.map((key) => {
        try {
          const balancer = new PublishingLoadBalancer(data, 0);
          return { index: where(balancer.takeMessageQueueByMessageGroup(key)), sipHash24: signedLong(util.calculateStringSipHash24(key)) };
        } catch (error) {
          return errorAnswer(error);
        }
      }),
    };
  }

  function balance(request) {
    if (!served.includes(request.strategy)) return { unsupported: `${name} ${version} does not serve ${request.strategy}` };
    if (!served.includes('GROUP_HASH') && request.steps.some((step) => step.op === 'group')) {
      return { unsupported: `${name} ${version} has no takeMessageQueueByMessageGroup (a group step)` };
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

  const hello = {
    protocol: 1,
    implementation: { name, language: 'JavaScript (Node.js)', version, homepage: `https://www.npmjs.com/package/${name}` },
    strategies: served,
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
    if (request.cmd === 'hello') answer = hello;
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
}

module.exports = { serve, privateFields, privateState };
