// Jest configuration for auth-js's own tests against Latchkey (in-namespace.sh): auth-js's
// jest.config.cli.js, or with LATCHKEY_AUTHJS_PART=docker its jest.config.docker.js, less what
// Debian does not package (ts-jest's preset from npm, Prettier, coverage), with esbuild for the
// TypeScript. LATCHKEY_AUTHJS_DIR is the exported packages/core/auth-js.
'use strict'
const path = require('node:path')

// Left out, each for the reason given (README.md lists them too):
// - test/fetch.test.ts: needs jest-mock-server (npm only; Debian does not package it), and it
//   checks auth-js's fetch wrapper against that mock server, never the Auth server.
// - "signInWithOtp() with PKCE flow should return error": it expects GoTrue's 422 otp_disabled
//   for create_user: false and an address without an account; Latchkey answers {} and sends
//   nothing instead, so the answer does not tell which addresses have accounts (README.md).
// - "Docker: Phone Resend resend with phone with empty options": it resends to the number the
//   test before it used (both take it from the clock at once), a number without an account,
//   within the 60 s between two SMS; GoTrue answers {} at once when there is nothing to resend,
//   Latchkey limits such a request as one that sends (429), so the limit does not tell which
//   numbers have accounts (Documentation/Server.md, phone sign-in).
const deselectedTests = [
  'GoTrueClient signInWithOtp signInWithOtp() with PKCE flow should return error',
  'Docker: Phone Resend resend with phone with empty options',
]
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

const docker = process.env.LATCHKEY_AUTHJS_PART === 'docker'

module.exports = {
  rootDir: process.env.LATCHKEY_AUTHJS_DIR,
  // As upstream: the CLI part is every test but docker-tests/, the docker part only those.
  ...(docker ? { testMatch: ['**/docker-tests/**/*.test.ts'] } : {}),
  testEnvironment: 'node',
  transform: { '^.+\\.tsx?$': path.join(__dirname, 'esbuild-transform.js') },
  testPathIgnorePatterns: docker
    ? ['/node_modules/']
    : ['/node_modules/', '/docker-tests/', '/example/', '/test/fetch\\.test\\.ts$'],
  testNamePattern: `^(?!(${deselectedTests.map(escape).join('|')})$)`,
  cacheDirectory: path.join(process.env.LATCHKEY_AUTHJS_DIR, '.jest-cache'),
  collectCoverage: false,
  silent: true,
  forceExit: true,
}
