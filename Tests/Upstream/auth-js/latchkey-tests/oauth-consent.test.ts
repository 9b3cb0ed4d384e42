/**
 * Written for Latchkey, not part of auth-js's suite: auth-js's tests call the OAuth 2.1
 * server's admin API (`admin.oauth`) but none of the consent calls an app's consent page makes
 * (`auth.oauth.*`). These drive those calls of auth-js's own client, as committed, through the
 * authorization code flow against the server run.sh starts (`--oauth-server`, consent path
 * /oauth/consent on the site URL): authorize, read the request, approve or deny, redeem the
 * code, list and revoke the grant. run.sh copies this folder into the exported package, beside
 * test/, so the imports below are auth-js's sources and the suite's own client set-up.
 */
import crypto from 'crypto'
import { GoTrueClient } from '../src/index'
import { GOTRUE_URL_SIGNUP_ENABLED_AUTO_CONFIRM_ON as AUTH_URL, SUPABASE_PUBLISHABLE_KEY, serviceRoleApiClient } from '../test/lib/clients'
import { mockUserCredentials } from '../test/lib/utils'

const SITE_URL = 'http://127.0.0.1:3000'
const CONSENT_PAGE = `${SITE_URL}/oauth/consent`

class MemoryStorage {
  private items = new Map<string, string>()
  async getItem(key: string) {
    return this.items.get(key) ?? null
  }
  async setItem(key: string, value: string) {
    this.items.set(key, value)
  }
  async removeItem(key: string) {
    this.items.delete(key)
  }
}

/** auth-js's client as a consent page makes it, with no one signed in yet. */
function consentPageClient() {
  return new GoTrueClient({
    url: AUTH_URL,
    headers: { apikey: SUPABASE_PUBLISHABLE_KEY },
    autoRefreshToken: false,
    persistSession: true,
    storage: new MemoryStorage(),
  })
}

/** A signed-in user of auth-js's client: the one whose consent page calls auth.oauth.*. */
async function signedInUser() {
  const auth = consentPageClient()
  const { email, password } = mockUserCredentials()
  const { data, error } = await auth.signUp({ email, password })
  expect(error).toBeNull()
  expect(data.session).not.toBeNull()
  return { auth, email, userId: data.user!.id }
}

/** A confidential client registered with the admin API, as auth-js's own OAuth Admin tests do. */
async function registeredClient(name: string) {
  const redirectUri = `https://app-${crypto.randomBytes(4).toString('hex')}.example.com/callback`
  const { data, error } = await serviceRoleApiClient.oauth.createClient({
    client_name: name,
    redirect_uris: [redirectUri],
  })
  expect(error).toBeNull()
  return { clientId: data!.client_id, clientSecret: data!.client_secret!, redirectUri }
}

/** The app sends the browser to /oauth/authorize; the server sends it on to the consent page. */
async function authorize(client: { clientId: string; redirectUri: string }, scope?: string) {
  const verifier = crypto.randomBytes(32).toString('base64url')
  const state = crypto.randomBytes(8).toString('hex')
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    state,
    code_challenge: crypto.createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    ...(scope ? { scope } : {}),
  })
  const response = await fetch(`${AUTH_URL}/oauth/authorize?${query}`, { redirect: 'manual' })
  expect(response.status).toBe(302)
  const location = new URL(response.headers.get('location')!)
  expect(`${location.origin}${location.pathname}`).toBe(CONSENT_PAGE)
  const authorizationId = location.searchParams.get('authorization_id')
  expect(authorizationId).toBeTruthy()
  return { authorizationId: authorizationId!, verifier, state }
}

/** The app redeems the code at /oauth/token with its secret (client_secret_basic) and verifier. */
async function redeem(
  client: { clientId: string; clientSecret: string; redirectUri: string },
  code: string,
  verifier: string
) {
  const response = await fetch(`${AUTH_URL}/oauth/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(
        `${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`
      ).toString('base64')}`,
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: client.redirectUri,
      code_verifier: verifier,
    }),
  })
  return { status: response.status, body: (await response.json()) as any }
}

describe('auth.oauth (Latchkey: the consent calls of auth-js against the OAuth 2.1 server)', () => {
  test('getAuthorizationDetails, approveAuthorization, the code redeemed, listGrants, revokeGrant', async () => {
    const client = await registeredClient('Consent Test App')
    const { auth, email, userId } = await signedInUser()
    const request = await authorize(client, 'email')

    const { data: details, error: detailsError } = await auth.oauth.getAuthorizationDetails(
      request.authorizationId
    )
    expect(detailsError).toBeNull()
    expect(details).toMatchObject({
      authorization_id: request.authorizationId,
      redirect_uri: client.redirectUri,
      client: { id: client.clientId, name: 'Consent Test App' },
      user: { id: userId, email },
      scope: 'email',
    })

    const { data: approved, error: approveError } = await auth.oauth.approveAuthorization(
      request.authorizationId,
      { skipBrowserRedirect: true }
    )
    expect(approveError).toBeNull()
    const back = new URL(approved!.redirect_url)
    expect(`${back.origin}${back.pathname}`).toBe(client.redirectUri)
    expect(back.searchParams.get('state')).toBe(request.state)
    const code = back.searchParams.get('code')
    expect(code).toBeTruthy()

    const tokens = await redeem(client, code!, request.verifier)
    expect(tokens.status).toBe(200)
    expect(tokens.body).toMatchObject({ token_type: 'bearer' })
    expect(typeof tokens.body.access_token).toBe('string')
    // The app's token is the user's: the server answers /user with it.
    const { data: appUser, error: appUserError } = await auth.getUser(tokens.body.access_token)
    expect(appUserError).toBeNull()
    expect(appUser.user?.id).toBe(userId)
    // A code is spent by its first use.
    expect((await redeem(client, code!, request.verifier)).status).toBe(400)

    const { data: grants, error: grantsError } = await auth.oauth.listGrants()
    expect(grantsError).toBeNull()
    expect(grants).toHaveLength(1)
    expect(grants![0]).toMatchObject({ client: { id: client.clientId }, scopes: ['email'] })

    // The consent is remembered: the next request for the same scope is approved at once.
    const again = await authorize(client, 'email')
    const { data: remembered, error: rememberedError } = await auth.oauth.getAuthorizationDetails(
      again.authorizationId
    )
    expect(rememberedError).toBeNull()
    expect(remembered).not.toHaveProperty('authorization_id')
    expect(new URL((remembered as { redirect_url: string }).redirect_url).searchParams.get('code')).toBeTruthy()

    const { error: revokeError } = await auth.oauth.revokeGrant({ clientId: client.clientId })
    expect(revokeError).toBeNull()
    const { data: afterRevoke } = await auth.oauth.listGrants()
    expect(afterRevoke).toEqual([])
    // Revoking ends the app's sessions: its refresh token no longer works.
    const refresh = await fetch(`${AUTH_URL}/token?grant_type=refresh_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', apikey: SUPABASE_PUBLISHABLE_KEY },
      body: JSON.stringify({ refresh_token: tokens.body.refresh_token }),
    })
    expect(refresh.status).toBe(400)
  })

  test('denyAuthorization sends the browser back with access_denied and grants nothing', async () => {
    const client = await registeredClient('Denied App')
    const { auth } = await signedInUser()
    const request = await authorize(client)
    // The consent page reads the request first (which ties it to the signed-in user); a decision
    // on a request nobody has read is 404, as in GoTrue.
    const { error: unreadError } = await auth.oauth.denyAuthorization(request.authorizationId, {
      skipBrowserRedirect: true,
    })
    expect(unreadError?.status).toBe(404)
    const { error: readError } = await auth.oauth.getAuthorizationDetails(request.authorizationId)
    expect(readError).toBeNull()

    const { data: denied, error } = await auth.oauth.denyAuthorization(request.authorizationId, {
      skipBrowserRedirect: true,
    })
    expect(error).toBeNull()
    const back = new URL(denied!.redirect_url)
    expect(`${back.origin}${back.pathname}`).toBe(client.redirectUri)
    expect(back.searchParams.get('error')).toBe('access_denied')
    expect(back.searchParams.get('state')).toBe(request.state)
    expect(back.searchParams.get('code')).toBeNull()

    const { data: grants } = await auth.oauth.listGrants()
    expect(grants).toEqual([])
    // A decided request cannot be approved afterwards.
    const { data: late, error: lateError } = await auth.oauth.approveAuthorization(
      request.authorizationId,
      { skipBrowserRedirect: true }
    )
    expect(late).toBeNull()
    expect(lateError).not.toBeNull()
  })

  test('another user cannot read or answer a request someone else opened', async () => {
    const client = await registeredClient('Contested App')
    const owner = await signedInUser()
    const request = await authorize(client)
    const { error: ownerError } = await owner.auth.oauth.getAuthorizationDetails(request.authorizationId)
    expect(ownerError).toBeNull()

    const intruder = await signedInUser()
    const { data: read, error: readError } = await intruder.auth.oauth.getAuthorizationDetails(
      request.authorizationId
    )
    expect(read).toBeNull()
    expect(readError).not.toBeNull()
    const { data: approved, error: approveError } = await intruder.auth.oauth.approveAuthorization(
      request.authorizationId,
      { skipBrowserRedirect: true }
    )
    expect(approved).toBeNull()
    expect(approveError).not.toBeNull()
  })

  test('without a session the consent calls answer AuthSessionMissingError', async () => {
    const auth = consentPageClient()
    const { data, error } = await auth.oauth.listGrants()
    expect(data).toBeNull()
    expect(error?.name).toBe('AuthSessionMissingError')
  })
})
