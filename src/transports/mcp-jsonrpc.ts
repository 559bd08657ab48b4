// The JSON-RPC errors of hcp's MCP server (every transport), with the codes JSON-RPC and MCP give them where the SDK's
// Server would not: -32602 for params that fail the method's schema (the SDK says -32603, typescript-sdk #2284) and for a
// cursor hcp never gave, and messages sent as written (the SDK's McpError puts "MCP error <code>: " in front, and the
// client puts it there again).

import { constants } from "node:buffer";

/** The -32600 answer to a JSON-RPC batch (an array of messages), on every transport: hcp takes one message at a time. */
export const BATCH_REFUSED = "Invalid Request: batches are not supported; send one message at a time";

/** The -32600 answer to a request under the id of one still unanswered (stdio, or an HTTP session): two could not be told apart. */
export const DUPLICATE_ID_REFUSED = "Invalid Request: a request with this id is still unanswered; each request in flight needs its own id";

/**
 * Unknown names (tool, prompt, resource) and bad params are the caller's error: -32602 Invalid params, an error the SDK
 * answers with exactly this code and message.
 */
export function invalidParams(message: string): Error & { code: number } {
  return Object.assign(new Error(message), { code: -32602 });
}

/** The longest result hcp answers as one message: the longest string JavaScript holds, less room for the envelope. */
export const MAX_ANSWER_CHARS = constants.MAX_STRING_LENGTH - 4096;

/** What answers a request whose answer is longer than the longest string JavaScript holds (about 512 MiB). */
export const ANSWER_TOO_LARGE =
  "the answer is too large to send as one message; for tools/list, serve fewer tools (hcp serve --mcp with --tools GLOB, --exclude GLOB or --read-only)";

/** That answer's JSON-RPC error: -32603 Internal error, the message as written. */
export const TOO_LARGE_ERROR = { code: -32603, message: ANSWER_TOO_LARGE } as const;

/** That error as a handler throws it. */
export function answerTooLarge(): Error & { code: number } {
  return Object.assign(new Error(TOO_LARGE_ERROR.message), { code: TOO_LARGE_ERROR.code });
}

/** hcp lists everything at once and gives no cursor, so any cursor is one it never gave: -32602 (MCP pagination). */
export function onePage(params: { cursor?: string } | undefined): void {
  if (params?.cursor !== undefined) throw invalidParams("invalid cursor: hcp lists everything in one page and gives no cursors");
}

interface Issue {
  path: PropertyKey[];
  message: string;
}

/** The problems a schema found, when err is the SDK's schema library's error (`$ZodError` from zod/mini, `ZodError`). */
function schemaIssues(err: unknown): Issue[] | undefined {
  if (!(err instanceof Error) || !/^\$?ZodError$/.test(err.name)) return undefined;
  const { issues } = err as Error & { issues?: unknown };
  return Array.isArray(issues) ? (issues as Issue[]) : undefined;
}

type Handler = (request: unknown, extra: unknown) => Promise<unknown>;

/**
 * Makes a request whose params fail the method's schema (`logging/setLevel` with an unknown level, `tools/call` without
 * a name) answered -32602 naming each problem, not -32603 with the schema library's dump. The SDK checks the params
 * before the handler runs, in a wrapper it keeps in a private map; hcp's handlers and the SDK's own throw no schema
 * errors, so one escaping a handler is that check's. Call it once every handler is set.
 */
export function answerInvalidParams(server: object): void {
  // oxlint-disable-next-line eslint/no-underscore-dangle -- the SDK's own (private) name
  const handlers = (server as { _requestHandlers?: unknown })._requestHandlers;
  if (!(handlers instanceof Map)) return;
  for (const [method, handler] of handlers as Map<string, Handler>) {
    handlers.set(method, async (request: unknown, extra: unknown) => {
      try {
        return await handler(request, extra);
      } catch (err) {
        const issues = schemaIssues(err);
        if (issues === undefined) throw err;
        throw invalidParams(`invalid params for ${method}: ${issues.map((i) => `${i.path.map(String).join(".")}: ${i.message}`).join("; ")}`);
      }
    });
  }
}
