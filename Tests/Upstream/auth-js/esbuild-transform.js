// Jest transform for auth-js's TypeScript (its sources and its tests): Debian's esbuild strips
// the types and writes CommonJS, as ts-jest does for the suite upstream (without type checking).
// Class fields keep TypeScript's ES2017 semantics (useDefineForClassFields off), as auth-js's
// tsconfig.json (target ES2017) compiles them.
'use strict'
const { execFileSync } = require('node:child_process')

const esbuild = process.env.LATCHKEY_ESBUILD || 'esbuild'

module.exports = {
  process(sourceText, sourcePath) {
    const code = execFileSync(
      esbuild,
      [
        `--loader=${sourcePath.endsWith('x') ? 'tsx' : 'ts'}`,
        '--format=cjs',
        '--platform=node',
        '--target=node18',
        '--sourcemap=inline',
        `--sourcefile=${sourcePath}`,
        '--tsconfig-raw={"compilerOptions":{"useDefineForClassFields":false}}',
      ],
      { input: sourceText, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }
    )
    return { code }
  },
}
