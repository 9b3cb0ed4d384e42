// Jest configuration for auth-js's own tests against Latchkey (run.sh): auth-js's
// jest.config.cli.js less what Debian does not package (ts-jest's preset from npm, Prettier,
// coverage), with esbuild for the TypeScript. LATCHKEY_AUTHJS_DIR is the exported
// packages/core/auth-js.
'use strict'
const path = require('node:path')

module.exports = {
  rootDir: process.env.LATCHKEY_AUTHJS_DIR,
  testEnvironment: 'node',
  transform: { '^.+\\.tsx?$': path.join(__dirname, 'esbuild-transform.js') },
  testPathIgnorePatterns: ['/node_modules/', '/docker-tests/', '/example/'],
  cacheDirectory: path.join(process.env.LATCHKEY_AUTHJS_DIR, '.jest-cache'),
  collectCoverage: false,
  silent: true,
  forceExit: true,
}
