// A stand-in for the `jsonwebtoken` package (written for Latchkey, not the real one), which
// auth-js's test helpers use only to make tokens: `sign(payload, key, options?)` with HS256 (the
// default, a shared secret) or RS256 (a PEM private key), and the `keyid` option. It signs with
// node:crypto. Like jsonwebtoken, it adds `iat` (seconds) unless the payload has one or
// `noTimestamp` is set. Anything else it does not know about is refused, so a new use in the
// suite fails loudly instead of signing something else.
'use strict'
const crypto = require('node:crypto')

const base64url = (value) => Buffer.from(value).toString('base64url')

function sign(payload, key, options = {}) {
  if (typeof options === 'function' || typeof arguments[3] === 'function') {
    throw new Error('jsonwebtoken stand-in: callbacks are not supported')
  }
  const known = new Set(['algorithm', 'keyid', 'noTimestamp'])
  for (const name of Object.keys(options)) {
    if (!known.has(name)) throw new Error(`jsonwebtoken stand-in: option ${name} is not supported`)
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    throw new Error('jsonwebtoken stand-in: the payload must be an object')
  }
  const algorithm = options.algorithm || 'HS256'
  const header = { alg: algorithm, typ: 'JWT' }
  if (options.keyid !== undefined) header.kid = options.keyid
  const claims = { ...payload }
  if (claims.iat === undefined && !options.noTimestamp) claims.iat = Math.floor(Date.now() / 1000)
  const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`
  let signature
  if (algorithm === 'HS256') {
    signature = crypto.createHmac('sha256', key).update(input).digest()
  } else if (algorithm === 'RS256') {
    signature = crypto.sign('sha256', Buffer.from(input), key)
  } else {
    throw new Error(`jsonwebtoken stand-in: algorithm ${algorithm} is not supported`)
  }
  return `${input}.${signature.toString('base64url')}`
}

module.exports = { sign }
