// Where a route enters a 4.x remoting client (ali-ons, npm rocketmq) in production: the name
// server's answer to GET_ROUTEINTO_BY_TOPIC, read by the package's own
// MQClientAPI.getTopicRouteInfoFromNameServer. The answer is written as RocketMQ's name server
// writes a TopicRouteData (fastjson: fields in name order, broker ids as bare numeric keys, no
// orderTopicConf when it is null) and handed over by a channel that answers every request with it:
// the package's RemotingCommand encodes and decodes the response, and its client API parses the
// body (JSON2) and sorts queueDatas and brokerDatas by broker name, as it does on the wire. Only
// the socket is replaced; every line of the package between the socket and the route runs.
'use strict';

const path = require('node:path');

const QUIET = { info() {}, warn() {}, error() {}, debug() {} };

// fastjson's text of a Java string: JSON's
const text = (value) => JSON.stringify(String(value));

/** The name server's answer (the response body) for a route of the suite's protocol. */
function routeBody(route) {
  const brokers = route.brokerDatas.map(([brokerName, ids], at) => {
    const addrs = ids.map((id) => `${id}:${text(`10.0.${at}.${Number(id) % 250}:10911`)}`).join(',');
    return `{"brokerAddrs":{${addrs}},"brokerName":${text(brokerName)},"cluster":"DefaultCluster"}`;
  });
  const queues = route.queueDatas.map(([brokerName, writeQueueNums, perm]) =>
    `{"brokerName":${text(brokerName)},"perm":${perm},"readQueueNums":${writeQueueNums},"topicSysFlag":0,"writeQueueNums":${writeQueueNums}}`);
  const order = route.orderTopicConf === null || route.orderTopicConf === undefined ? '' : `"orderTopicConf":${text(route.orderTopicConf)},`;
  return `{"brokerDatas":[${brokers.join(',')}],"filterServerTable":{},${order}"queueDatas":[${queues.join(',')}]}`;
}

const isGenerator = (value) => Boolean(value && typeof value.next === 'function' && typeof value.throw === 'function');

/**
 * A function (topic, route) -> Promise of the route data the package at `root` makes of the name
 * server's answer for `route`, or null when the package has no getTopicRouteInfoFromNameServer
 * (the harness then says so). A co generator (2.x) is run by the co the package itself depends on.
 */
function routeReader(root) {
  const lib = (file) => require(path.join(root, 'lib', file));
  const MQClientAPI = lib('mq_client_api');
  if (typeof MQClientAPI.prototype.getTopicRouteInfoFromNameServer !== 'function') return null;
  const RemotingCommand = lib('protocol/command/remoting_command');
  const ResponseCode = lib('protocol/response_code');
  let co = null;
  return async function read(topic, route) {
    const body = Buffer.from(routeBody(route), 'utf8');
    const channel = {
      isOK: true,
      async invoke(request) {
        const response = RemotingCommand.createResponseCommand(ResponseCode.SUCCESS, request.opaque);
        response.body = body;
        return RemotingCommand.decode(response.encode());
      },
    };
    const api = Object.create(MQClientAPI.prototype);
    Object.assign(api, {
      options: { logger: QUIET },
      projectGroupPrefix: null,
      _inited: true,
      _namesrvAddrList: ['127.0.0.1:9876'],
      _channels: new Map(),
      getAndCreateChannel: () => channel, // the socket, and only it
    });
    const got = api.getTopicRouteInfoFromNameServer(topic, 3000);
    if (!isGenerator(got)) return got;
    co = co || require(require.resolve('co', { paths: [root] }));
    return co(got);
  };
}

module.exports = { routeBody, routeReader };
