// The door's refusals over HTTP: JSON-RPC error answers made outside the SDK (no token, a foreign Host, an unknown
// session…), each with the code the SDK's own transport answers with in the same situation.

import type { ServerResponse } from "node:http";

/**
 * The JSON-RPC error codes of the door's refusals: those the SDK's own transport (and, for an internal error, its
 * example servers) answer with in the same situation, so that a client tells them apart the same way.
 */
export const REFUSAL_CODES = { refused: -32000, sessionNotFound: -32001, internalError: -32603 } as const;

export interface Refusal {
  /** -32000 (REFUSAL_CODES.refused) unless told. */
  code?: number;
  headers?: Record<string, string>;
}

/** A JSON-RPC error answer outside the SDK (the door's refusals). */
export function refuse(res: ServerResponse, status: number, message: string, { code = REFUSAL_CODES.refused, headers = {} }: Refusal = {}): void {
  if (res.headersSent) return;
  const body = JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null });
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(body);
}

/**
 * A body the SDK is not given, answered as on stdio: not JSON is -32700 Parse error; JSON that is not a JSON-RPC
 * message is -32600 Invalid Request, with the message's id when it has one (the SDK would say -32700 either way), and
 * so are a batch and a request under the id of one still unanswered in its session.
 */
export function badMessage(res: ServerResponse, code: -32700 | -32600, message: string, id?: unknown): void {
  res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", ...(id !== undefined && { id }), error: { code, message } }));
}
