// Loaded with `node --require` before Debian's jest. Debian's jest-config lists the module
// directories from two build variables of Debian's own nodejs (node_prefix and
// node_relative_path: where Debian's node-* packages live). A nodejs built elsewhere (this
// machine's) lacks node_relative_path and jest-config stops with a TypeError; this gives
// process.config Debian's values. Nothing else reads them.
'use strict'
const config = process.config
if (config.variables.node_relative_path === undefined) {
  Object.defineProperty(process, 'config', {
    value: Object.freeze({
      ...config,
      variables: Object.freeze({
        ...config.variables,
        node_prefix: '/usr',
        node_relative_path: 'lib/x86_64-linux-gnu/nodejs:share/nodejs:lib/nodejs',
      }),
    }),
    enumerable: true,
    configurable: true,
    writable: false,
  })
}
