#!/usr/bin/env node
// The `docs-chat` command. Plain CommonJS in old syntax on purpose: it must run on any Node to
// say which version is needed, before loading the CLI (modern ES modules that older Node
// versions cannot even parse).
'use strict';
var required = [20, 19];
var found = process.versions.node.split('.').map(Number);
if (found[0] < required[0] || (found[0] === required[0] && found[1] < required[1])) {
  process.stderr.write(
    'docs-chat: Node.js ' +
      required.join('.') +
      ' or newer is required; this is Node.js ' +
      process.versions.node +
      '. Install Node 20 LTS or newer (https://nodejs.org) and run the command again.\n',
  );
  process.exit(1);
}
var path = require('path');
var url = require('url');
// Through Function so that Node versions without dynamic import() still reach the message above.
var load = new Function('specifier', 'return import(specifier)');
var cliPath = path.join(__dirname, '..', 'lib', 'cli.js');
if (!require('fs').existsSync(cliPath)) {
  // Only in a checkout of the repository: the published package always has lib/.
  process.stderr.write(
    'docs-chat: ' +
      cliPath +
      ' is missing; in the docs-chat repository run `npx -y pnpm@10.34.9 build`, or use `pnpm docs-chat`, which runs the sources.\n',
  );
  process.exit(2);
}
load(url.pathToFileURL(cliPath).href)
  .then(function (cli) {
    return cli.main(process.argv.slice(2));
  })
  .then(
    function (code) {
      process.exitCode = code;
    },
    function (error) {
      process.stderr.write('docs-chat: ' + ((error && error.stack) || String(error)) + '\n');
      process.exitCode = 1;
    },
  );
