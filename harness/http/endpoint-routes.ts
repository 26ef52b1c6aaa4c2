// Where the AHP routes of an HTTP endpoint live. Servers in the wild advertise their `endpoint` either
// as a base URL (`http://127.0.0.1:PORT`, maybe with a path prefix) or as the intercept route itself
// (`http://127.0.0.1:PORT/intercept`); clients resolve `/capabilities`, `/intercept` and `/observe`
// beside it. Everything of ours that builds a URL from an endpoint (the reference client, the auth
// probes, the harness proxy) goes through here, so both forms work everywhere.

export interface EndpointRoutes {
  /** The base every route resolves against, always ending in `/`. */
  base: string;
  intercept: string;
  capabilities: string;
  observe: string;
}

/** The routes beside `endpoint`; a trailing `/intercept` (and any trailing slash) is stripped first. */
export function endpointRoutes(endpoint: string): EndpointRoutes {
  const url = new URL(endpoint);
  url.search = '';
  url.hash = '';
  const trimmed = url.pathname.replace(/\/+$/, '').replace(/\/intercept$/, '');
  url.pathname = `${trimmed}/`;
  const base = url.href;
  return {
    base,
    intercept: new URL('intercept', base).href,
    capabilities: new URL('capabilities', base).href,
    observe: new URL('observe', base).href,
  };
}

/**
 * The same endpoint form on another origin: what a forwarding proxy advertises for a server, so a
 * client sees exactly the shape the server wrote (a base URL stays a base URL, `/intercept` stays).
 */
export function withOrigin(endpoint: string, origin: string): string {
  const source = new URL(endpoint);
  const target = new URL(origin);
  source.protocol = target.protocol;
  source.host = target.host;
  return source.href === `${source.origin}/` && !endpoint.endsWith('/') ? source.origin : source.href;
}
