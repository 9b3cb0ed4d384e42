// The Supabase API gateway's part in auth-js's suite, for Latchkey: the suite reaches Auth at
// http://127.0.0.1:54321/auth/v1 (the Supabase CLI's Kong), and Kong passes /auth/v1/<path> on to
// GoTrue's /<path> unchanged. This does only that routing: every method, header and body goes
// through as sent, both ways; any other path is answered 404. It checks no API key (GoTrue
// checks the tokens; Kong's key check is not what the suite tests).
// Usage: node gateway.js LISTEN_PORT UPSTREAM_PORT
'use strict'
const http = require('node:http')

const [listenPort, upstreamPort] = process.argv.slice(2).map(Number)
const prefix = '/auth/v1'

const server = http.createServer((request, response) => {
  if (request.url !== prefix && !request.url.startsWith(prefix + '/') && !request.url.startsWith(prefix + '?')) {
    response.writeHead(404, { 'content-type': 'application/json' })
    response.end(JSON.stringify({ message: 'no Route matched with those values' }))
    return
  }
  const path = request.url.slice(prefix.length) || '/'
  const upstream = http.request(
    { host: '127.0.0.1', port: upstreamPort, method: request.method, path: path.startsWith('/') ? path : '/' + path, headers: request.headers },
    (answer) => {
      response.writeHead(answer.statusCode, answer.rawHeaders)
      answer.pipe(response)
    }
  )
  upstream.on('error', (error) => {
    response.writeHead(502, { 'content-type': 'application/json' })
    response.end(JSON.stringify({ message: `gateway: ${error.message}` }))
  })
  request.pipe(upstream)
})
server.listen(listenPort, '127.0.0.1')
