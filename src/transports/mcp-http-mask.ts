// Every HTTP response body `hcp serve --mcp --http` sends passes the redactor (§12). The SDK's Streamable HTTP
// transport writes some error bodies straight into its response, past `transport.send` (mcp-mask.ts), and one of them
// quotes a caught error; the door's own refusals quote the caller's Host and Origin. So the Node response itself masks
// what it sends: a body that is not an event stream is held until it ends, masked, and sent with its new length. An
// event stream (SSE) passes as written: each of its events is a message `transport.send` already masked. A body that
// is a JSON-RPC message keeps its structure unmasked, as `transport.send` does (mcp-mask.ts).

import type { OutgoingHttpHeaders, ServerResponse } from "node:http";
import { isObject } from "../pack/issues.js";
import { redactEnvelope, redactText, type SecretSet } from "../runtime/secrets/redact.js";
import { MCP_MESSAGE } from "./mcp-mask.js";

type Callback = (error?: Error | null) => void;
type Head = [status: number, message: string | undefined, headers: OutgoingHttpHeaders];

const isEventStream = (type: unknown) => String(type ?? "").toLowerCase().includes("text/event-stream");

/** Headers as one object, whatever form writeHead was given them in (an object, or a flat array of names and values). */
function headerObject(headers: unknown): OutgoingHttpHeaders {
  if (!Array.isArray(headers)) return { ...(headers as OutgoingHttpHeaders | undefined) };
  const out: OutgoingHttpHeaders = {};
  for (let i = 0; i + 1 < headers.length; i += 2) out[String(headers[i])] = headers[i + 1] as string;
  return out;
}

/** The header's value, its name in any case. */
const headerOf = (headers: OutgoingHttpHeaders, name: string) => Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1];

const toBuffer = (chunk: unknown, encoding?: unknown) =>
  Buffer.isBuffer(chunk) ? chunk : chunk instanceof Uint8Array ? Buffer.from(chunk) : Buffer.from(String(chunk), typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8");

/** A body that is a JSON object (a JSON-RPC message: the SDK's and the door's errors) masked by its layout; any other text whole. */
function maskedBody(text: string, secrets: SecretSet): string {
  if (secrets.secrets.length === 0) return text;
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return redactText(text, secrets);
  }
  return isObject(message) ? JSON.stringify(redactEnvelope(message, secrets, MCP_MESSAGE)) : redactText(text, secrets);
}

/** Makes `res` mask every body it sends, other than an event stream, with `secrets()` (read when the body ends). */
export function maskResponses(res: ServerResponse, secrets: () => SecretSet): void {
  const original = { writeHead: res.writeHead.bind(res), write: res.write.bind(res), end: res.end.bind(res), flushHeaders: res.flushHeaders.bind(res) };
  let head: Head | undefined;
  let chunks: Buffer[] = [];
  let streaming = false;

  res.writeHead = ((status: number, ...rest: unknown[]) => {
    const message = typeof rest[0] === "string" ? rest[0] : undefined;
    const headers = headerObject(typeof rest[0] === "string" ? rest[1] : rest[0]);
    if (isEventStream(headerOf(headers, "content-type") ?? res.getHeader("content-type"))) {
      streaming = true;
      return message === undefined ? original.writeHead(status, headers) : original.writeHead(status, message, headers);
    }
    // Held until the body ends; a second head (an error after a first one) starts the answer over.
    head = [status, message, headers];
    chunks = [];
    return res;
  }) as ServerResponse["writeHead"];

  res.write = ((chunk: unknown, encoding?: unknown, cb?: unknown) => {
    if (streaming || (head === undefined && isEventStream(res.getHeader("content-type")))) {
      streaming = true;
      return original.write(chunk as string, encoding as BufferEncoding, cb as Callback);
    }
    chunks.push(toBuffer(chunk, encoding));
    const done = [encoding, cb].find((f) => typeof f === "function") as Callback | undefined;
    if (done !== undefined) process.nextTick(done);
    return true;
  }) as ServerResponse["write"];

  // Node sends a held head early on a flush: held bodies wait for their end.
  res.flushHeaders = () => {
    if (streaming) original.flushHeaders();
  };

  res.end = ((chunk?: unknown, encoding?: unknown, cb?: unknown) => {
    const done = [chunk, encoding, cb].find((f) => typeof f === "function") as (() => void) | undefined;
    const data = typeof chunk === "function" || chunk === undefined || chunk === null ? undefined : chunk;
    if (streaming) return data === undefined ? original.end(done) : original.end(data as string, encoding as BufferEncoding, done);
    if (data !== undefined) chunks.push(toBuffer(data, encoding));
    const body = Buffer.from(maskedBody(Buffer.concat(chunks).toString("utf8"), secrets()), "utf8");
    chunks = [];
    if (res.headersSent) return original.end(body, done);
    const [status, message, headers]: Head = head ?? [res.statusCode, undefined, {}];
    head = undefined;
    res.removeHeader("content-length");
    for (const name of Object.keys(headers)) if (name.toLowerCase() === "content-length") delete headers[name];
    headers["content-length"] = body.length;
    if (message === undefined) original.writeHead(status, headers);
    else original.writeHead(status, message, headers);
    return original.end(body, done);
  }) as ServerResponse["end"];
}
