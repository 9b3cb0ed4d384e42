// Prints one service's environment from auth-js's infra/docker-compose.yml, one KEY=VALUE a
// line, for `latchkey serve` (which reads GoTrue's GOTRUE_* names). Left out: what belongs to
// the containers around GoTrue rather than to Auth: its PostgreSQL (DATABASE_URL, GOTRUE_DB_*,
// DB_NAMESPACE; latchkey uses a temporary SQLite database) and its mail server (GOTRUE_SMTP_*;
// latchkey writes the mails to its outbox), and the listening address (GOTRUE_API_HOST; run.sh
// picks it). ${NAME} takes the variable from the environment, empty when unset, as compose does.
// It reads only the shape that file has: `services:`, two-space indented names, `environment:`
// maps of KEY: 'value' or KEY: value; anything else in an environment map stops it.
// Usage: node compose-env.js COMPOSE_FILE SERVICE
'use strict'
const fs = require('node:fs')

const [file, service] = process.argv.slice(2)
const lines = fs.readFileSync(file, 'utf8').split('\n')
const dropped = /^(DATABASE_URL|DB_NAMESPACE|GOTRUE_DB_.*|GOTRUE_SMTP_.*|GOTRUE_API_HOST)$/

let inService = false
let inEnvironment = false
let found = false
const out = []
for (const line of lines) {
  if (/^ {2}\S/.test(line)) {
    inService = line.trim().replace(/:.*$/, '') === service
    found = found || inService
    inEnvironment = false
    continue
  }
  if (!inService) continue
  if (/^ {4}\S/.test(line)) {
    inEnvironment = line.trim() === 'environment:'
    continue
  }
  if (!inEnvironment || line.trim() === '' || line.trim().startsWith('#')) continue
  const match = /^ {6}([A-Z_][A-Z0-9_]*): (.*)$/.exec(line)
  if (!match) throw new Error(`compose-env: cannot read ${JSON.stringify(line)}`)
  let [, name, value] = match
  if (/^'.*'$/.test(value)) value = value.slice(1, -1).replace(/''/g, "'")
  else if (/^".*"$/.test(value) || /^[\[{'"]/.test(value)) throw new Error(`compose-env: cannot read ${name}`)
  value = value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, variable) => process.env[variable] || '')
  if (value.includes('\n')) throw new Error(`compose-env: ${name} spans lines`)
  if (!dropped.test(name)) out.push(`${name}=${value}`)
}
if (!found) throw new Error(`compose-env: no service ${service} in ${file}`)
process.stdout.write(out.join('\n') + '\n')
