// A client-credentials access token from the run's local OAuth issuer: what the auth probes and the
// receiver probes send in oauth mode, as a client of that mode would.

import { boundedRequest, RequestFailure } from '../http/bounded-request.ts';
import { isJsonObject } from '../protocol/json.ts';
import { AUDIENCE, OAUTH_CLIENT_ID, OAUTH_CLIENT_SECRET } from './constants.ts';

/** One access token from the run's local OAuth issuer (client credentials; redirects are never followed). */
export async function acquireToken(tokenEndpoint: string | undefined): Promise<string> {
  if (!tokenEndpoint) throw new Error('auth probes: mode oauth needs the run\'s OAuth issuer, which is not running');
  const response = await boundedRequest(tokenEndpoint, {
    method: 'POST',
    timeoutMs: 5000,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: OAUTH_CLIENT_ID, client_secret: OAUTH_CLIENT_SECRET, audience: AUDIENCE }).toString(),
  }).catch((error: unknown) => {
    if (!(error instanceof RequestFailure)) throw error;
    throw new Error(`auth probes: the local OAuth issuer gave no answer to the token request (${error.kind === 'timeout' ? 'no answer within 5000 ms' : error.code})`, { cause: error });
  });
  if (response.status !== 200) throw new Error(`auth probes: the local OAuth issuer refused the token request (HTTP ${response.status})`);
  const body = JSON.parse(response.text) as unknown;
  if (!isJsonObject(body) || typeof body.access_token !== 'string') throw new Error('auth probes: the local OAuth issuer answered without an access_token');
  return body.access_token;
}
