// One HTTP exchange with Node's fetch: a deadline over the whole exchange, the body read up to a cap
// and then abandoned, and redirects followed only by reads and only within the origin the request was sent to.

import { monotonicMs } from "../clock.js";
import { RuntimeError } from "../errors.js";

export interface HttpRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** The whole exchange, body included. */
  readonly timeoutMs: number;
  /** Body bytes kept; reading stops there. */
  readonly maxBytes: number;
  /** Aborting rejects with `cancelled`. */
  readonly signal?: AbortSignal;
}

export interface HttpResponse {
  /** Null when the deadline passed before the response's head arrived. */
  readonly status: number | null;
  readonly headers: Headers;
  readonly body: Buffer;
  /** Bytes received before reading stopped: the whole body, or the cap reached. */
  readonly bytes: number;
  readonly truncated: boolean;
  readonly timedOut: boolean;
  readonly durationMs: number;
}

/** Redirects followed at most, all within the first URL's origin. */
const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/**
 * The methods that follow redirects. A write is sent once, to the URL its plan names (the one a person
 * approved): a 307/308 would re-send it, body and credentials, to another path. Its 3xx is the answer.
 */
const FOLLOWING = new Set(["GET", "HEAD"]);

/** Why fetch failed, from its cause (fetch itself only says "fetch failed"). */
function failure(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code !== undefined) return `${cause.message ?? cause.code} (${cause.code})`;
  return cause?.message ?? (err instanceof Error ? err.message : String(err));
}

/**
 * Sends the request. A redirect is followed only by a GET or HEAD, and only within the origin: otherwise
 * its response is the answer (so credentials never leave the origin, and a write is never re-sent). Rejects with `request_failed` when no response came
 * (refused, unresolvable) and `cancelled` when `signal` aborted; a passed deadline is a result.
 */
export async function send(req: HttpRequest): Promise<HttpResponse> {
  const started = monotonicMs();
  const deadline = AbortSignal.timeout(req.timeoutMs);
  const signal = req.signal === undefined ? deadline : AbortSignal.any([deadline, req.signal]);
  const done = (r: Omit<HttpResponse, "durationMs">): HttpResponse => ({ ...r, durationMs: Math.round(monotonicMs() - started) });
  const timedOut = () => done({ status: null, headers: new Headers(), body: Buffer.alloc(0), bytes: 0, truncated: false, timedOut: true });
  const { method, body } = req;
  const follows = FOLLOWING.has(method);
  let url = req.url;
  for (let hop = 0; ; hop++) {
    let res: Response;
    try {
      res = await fetch(url, { method, headers: req.headers, body, redirect: "manual", signal });
    } catch (err) {
      if (req.signal?.aborted) throw new RuntimeError("cancelled", `the request ${method} ${url.origin}${url.pathname} was cancelled`);
      if (deadline.aborted) return timedOut();
      throw new RuntimeError("request_failed", `${method} ${url.origin}${url.pathname}: no response: ${failure(err)}`);
    }
    const location = res.headers.get("location");
    if (follows && REDIRECTS.has(res.status) && location !== null && hop < MAX_REDIRECTS) {
      let next: URL | undefined;
      try {
        next = new URL(location, url);
      } catch {
        next = undefined;
      }
      if (next !== undefined && next.origin === req.url.origin) {
        await res.body?.cancel().catch(() => {});
        // A GET or HEAD stays itself (a 303 included), without a body.
        url = next;
        continue;
      }
    }
    const read = await readCapped(res, req.maxBytes, signal, `${method} ${url.origin}${url.pathname}`);
    if (req.signal?.aborted) throw new RuntimeError("cancelled", `the request ${method} ${url.origin}${url.pathname} was cancelled`);
    if (read === "aborted") {
      return done({ status: res.status, headers: res.headers, body: Buffer.alloc(0), bytes: 0, truncated: false, timedOut: true });
    }
    return done({ status: res.status, headers: res.headers, ...read, timedOut: read.timedOut });
  }
}

/** Reads the body up to `cap` bytes, then cancels the stream: an endless body cannot hold the call. `where` names the request in errors. */
async function readCapped(
  res: Response,
  cap: number,
  signal: AbortSignal,
  where: string,
): Promise<{ body: Buffer; bytes: number; truncated: boolean; timedOut: boolean } | "aborted"> {
  const chunks: Buffer[] = [];
  let kept = 0;
  let bytes = 0;
  let truncated = false;
  if (res.body === null) return { body: Buffer.alloc(0), bytes: 0, truncated: false, timedOut: false };
  const reader = res.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      const room = cap - kept;
      if (value.byteLength > room) {
        if (room > 0) chunks.push(Buffer.from(value.subarray(0, room)));
        kept = cap;
        truncated = true;
        break;
      }
      chunks.push(Buffer.from(value));
      kept += value.byteLength;
    }
  } catch (err) {
    // A connection that broke, or a body that does not decode (a gzip that is not gzip).
    if (kept === 0 && !signal.aborted) throw new RuntimeError("request_failed", `${where}: the response body could not be read: ${failure(err)}`);
    if (kept === 0) return "aborted";
    // A deadline (or a broken connection) in the middle of the body: what came is kept, marked cut.
    return { body: Buffer.concat(chunks, kept), bytes, truncated: true, timedOut: signal.aborted };
  } finally {
    reader.cancel().catch(() => {});
  }
  return { body: Buffer.concat(chunks, kept), bytes, truncated, timedOut: false };
}

/** UTF-8 text of bytes cut at a cap: a character split by the cut is dropped whole. */
export function utf8Text(bytes: Buffer, truncated: boolean): string {
  if (!truncated) return bytes.toString("utf8");
  let end = bytes.length;
  // Step back over continuation bytes to the lead byte of the last character, and drop it if incomplete.
  let i = end - 1;
  while (i >= 0 && i > end - 4 && (bytes[i]! & 0xc0) === 0x80) i--;
  if (i >= 0) {
    const lead = bytes[i]!;
    const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    if (end - i < need) end = i;
  }
  return bytes.subarray(0, end).toString("utf8");
}

/** True for hosts that stay on this machine: localhost, 127.0.0.0/8 and ::1. */
function isLoopback(url: URL): boolean {
  const host = url.hostname;
  return host === "localhost" || host === "[::1]" || /^127(\.\d{1,3}){3}$/.test(host);
}

/** Refuses a URL that is not https, or http to a loopback host: nothing secret crosses a network in clear. */
export function checkTransportSecurity(url: URL, what: string): string | undefined {
  if (url.protocol === "https:") return undefined;
  // Its path too (a base URL's `/v3`, which an operator copying it to https would lose), never its query.
  if (url.protocol === "http:") return isLoopback(url) ? undefined : `${what} ${url.origin}${url.pathname === "/" ? "" : url.pathname} uses http: to a host that is not loopback; use https:`;
  return `${what} ${JSON.stringify(url.href.slice(0, 80))} must be an http: or https: URL`;
}
