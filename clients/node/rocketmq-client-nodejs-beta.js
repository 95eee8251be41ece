#!/usr/bin/env node
// npm rocketmq-client-nodejs-beta (an earlier build of rocketmq-client-nodejs, published under
// its own name; the version package.json pins) behind the suite's exec protocol: the same
// harness as the official package's (harness.js), pointed at the beta's own classes. Run it as
//
//     npm ci --prefix clients/node && pytest --rmq-strategy="exec:node clients/node/rocketmq-client-nodejs-beta.js"
'use strict';

globalThis.RMQ_NODE_CLIENT = 'rocketmq-client-nodejs-beta';
require('./harness.js');
