// JSON-RPC 2.0 error envelopes the reference server produces for requests it cannot answer with a
// scripted response. Scripted responses themselves are never built here: they are sent as scripted.

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;

export type JsonRpcId = string | number | null;

/** The id to answer with: the request's own id when it is a valid JSON-RPC id, else null. */
export function replyId(message: unknown): JsonRpcId {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return null;
  const id = (message as Record<string, unknown>).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

export function errorEnvelope(id: JsonRpcId, code: number, message: string, data?: unknown): string {
  const error: Record<string, unknown> = { code, message };
  if (data !== undefined) error.data = data;
  return JSON.stringify({ jsonrpc: '2.0', id, error });
}
