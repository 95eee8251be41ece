// Where a harness finds the package it calls: the folder RMQ_CLIENT_HOME names when it is set (the
// trend, clients/trend.py, installs each version there with npm install --prefix), else
// clients/node's own install. Every module of the package is then required relative to the root
// this returns, so that nothing of another install is mixed in.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

function clientRoot(name, who) {
  const home = process.env.RMQ_CLIENT_HOME;
  if (home && !fs.existsSync(home)) {
    process.stderr.write(`${who}: RMQ_CLIENT_HOME=${home} does not exist\n`);
    process.exit(2);
  }
  const main = home ? require.resolve(name, { paths: [home] }) : require.resolve(name);
  for (let dir = path.dirname(main); ; dir = path.dirname(dir)) {
    if (path.basename(dir) === name && fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`${who}: no root folder of ${name} above ${main}`);
  }
}

module.exports = { clientRoot };
