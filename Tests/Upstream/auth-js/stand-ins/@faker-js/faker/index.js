// A stand-in for `@faker-js/faker` (written for Latchkey, not the real one): random test data
// for auth-js's test helpers, only the calls they make. Every value is random (node:crypto), so
// tests that create accounts or clients do not collide across runs. A call the suite starts to
// make that is not here fails with a TypeError naming it.
'use strict'
const crypto = require('node:crypto')

const lower = 'abcdefghijklmnopqrstuvwxyz'
const alphanumerics = lower + lower.toUpperCase() + '0123456789'

function pick(alphabet, length) {
  let text = ''
  for (let i = 0; i < length; i++) text += alphabet[crypto.randomInt(alphabet.length)]
  return text
}

const faker = {
  string: {
    // faker.string.alphanumeric(length): letters of both cases and digits.
    alphanumeric: (length = 1) => pick(alphanumerics, typeof length === 'number' ? length : length.length),
  },
  internet: {
    // A syntactically ordinary address at a reserved example domain.
    email: () => `${pick(lower, 8)}.${pick(lower + '0123456789', 8)}@example.com`,
    // faker's default: 15 characters, letters and digits.
    password: () => pick(alphanumerics, 15),
    domainName: () => `${pick(lower, 10)}.example.com`,
  },
  image: {
    // Shaped as faker's: GitHub's avatar host (the suite matches /^https:\/\/avatars\..+/).
    avatarGitHub: () => `https://avatars.githubusercontent.com/u/${crypto.randomInt(1, 100000000)}`,
    url: () => `https://picsum.photos/seed/${pick(alphanumerics, 10)}/640/480`,
  },
}

module.exports = { faker }
