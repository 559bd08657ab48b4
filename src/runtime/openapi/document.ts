// An OpenAPI document (§6.7): read from a file (64 MiB) or fetched (10 MiB, https or loopback http), parsed as
// JSON or YAML, Swagger 2.0 refused, and dereferenced by @readme/openapi-parser (internal $refs only:
// a document never makes hcp read another file or URL).

import type { ParserOptions } from "@readme/openapi-parser";
import { isUtf8 } from "node:buffer";
import { createHash } from "node:crypto";
import { isObject, show } from "../../pack/issues.js";
import { jsonSyntax } from "../../json/parse-error.js";
import { openApiDereference } from "../../pack/lazy-modules.js";
import { jsonErrorAt } from "../../pack/load.js";
import { FileReadError, readRegularFile } from "../../read-regular.js";
import { checkTransportSecurity, send } from "./http.js";

/** What a pack's runtime uses of a document beyond its operations: its version, servers and security schemes. */
export interface DocumentHead {
  readonly version: "3.0" | "3.1";
  /** The file path or URL it came from, for messages. */
  readonly source: string;
  /** The URL it was fetched from: relative server URLs resolve against it. */
  readonly url?: URL;
  /** The SHA-256 (hex) of the text's UTF-8: what trust binds of the document. */
  readonly sha256: string;
  /** `servers`, as in the document. */
  readonly servers: unknown;
  /** `components.securitySchemes`, as in the document (undefined when components is not an object). */
  readonly securitySchemes: unknown;
}

/** A parsed, dereferenced OpenAPI 3.0 or 3.1 document. */
export interface OpenApiDocument extends Omit<DocumentHead, "servers" | "securitySchemes"> {
  /** Dereferenced: every internal `$ref` replaced by its target (cycles are shared objects). */
  readonly doc: Record<string, unknown>;
  /** The text as read. */
  readonly text: string;
}

/** The head of a parsed document. */
export function headOf(document: OpenApiDocument): DocumentHead {
  const { version, source, url, sha256, doc } = document;
  const components = doc["components"];
  return { version, source, ...(url ? { url } : {}), sha256, servers: doc["servers"], securitySchemes: isObject(components) ? components["securitySchemes"] : undefined };
}

/** Why a document cannot be used; `io` when it cannot be read or parsed. */
export class DocumentError extends Error {
  override name = "DocumentError";
  constructor(
    readonly code: "io" | "invalid_meta",
    message: string,
  ) {
    super(message);
  }
}

/** A fetched document: at most 10 MiB (§6.7). */
const MAX_FETCHED_BYTES = 10 * 1024 * 1024;
/** A document file: at most 64 MiB, as real APIs' documents are larger than a fetch may be (GitHub's is 13 MB). */
const MAX_FILE_BYTES = 64 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 15_000;

export interface DocumentLocation {
  /** An absolute file path. */
  readonly path?: string;
  readonly url?: string;
}

/** A document's text as read or fetched, with where it came from, before it is parsed. */
export interface DocumentText {
  readonly text: string;
  readonly source: string;
  readonly url?: URL;
}

/** A document's bytes as read or fetched, with where they came from. */
export interface DocumentBytes {
  readonly bytes: Buffer;
  readonly source: string;
  readonly url?: URL;
}

/** Reads a document file, or fetches a document URL. Throws DocumentError. */
export async function readDocumentBytes(at: DocumentLocation, opts: { timeoutMs?: number } = {}): Promise<DocumentBytes> {
  if (at.path !== undefined) return { bytes: readBytes(at.path), source: at.path };
  const url = documentUrl(at.url ?? "");
  return { bytes: await fetchBytes(url, opts.timeoutMs ?? FETCH_TIMEOUT_MS), source: url.href, url };
}

/** Reads a document file, or fetches a document URL. Throws DocumentError. */
export async function readDocumentText(at: DocumentLocation, opts: { timeoutMs?: number } = {}): Promise<DocumentText> {
  const { bytes, ...from } = await readDocumentBytes(at, opts);
  return { text: bytes.toString("utf8"), ...from };
}

/** The SHA-256 of the bytes decoded as UTF-8 (trust's): the bytes' own, unless decoding replaces a malformed sequence. */
export function textDigest(bytes: Buffer): string {
  return sha256Of(isUtf8(bytes) ? bytes : bytes.toString("utf8"));
}

const sha256Of = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

/** Parses and dereferences the bytes read (`sha256`: their textDigest). Throws DocumentError. */
export function parseDocumentBytes({ bytes, source, url }: DocumentBytes, sha256: string): Promise<OpenApiDocument> {
  return parseText(bytes.toString("utf8"), source, url, sha256);
}

/** Without a leading byte order mark. */
export const withoutBom = (text: string): string => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

/** JSON when it looks like JSON (after blanks, an object or an array), else YAML, JSON's superset. */
export const looksLikeJson = (text: string): boolean => /^\s*[{[]/.test(text);

/** The document's URL, parsed and checked (https, or http to a loopback host); throws DocumentError `io`. Sends nothing. */
export function documentUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new DocumentError("io", `${JSON.stringify(text)} is not a URL`);
  }
  const refused = checkTransportSecurity(url, "the OpenAPI document URL");
  if (refused !== undefined) throw new DocumentError("io", refused);
  return url;
}

/** A regular file of at most 64 MiB (a FIFO or a device is refused without blocking). */
function readBytes(path: string): Buffer {
  try {
    return readRegularFile(path, MAX_FILE_BYTES);
  } catch (e) {
    if (!(e instanceof FileReadError)) throw e;
    throw new DocumentError("io", `cannot read the OpenAPI document ${path}: ${e.code === "ENOENT" ? "no such file" : e.reason}`);
  }
}

async function fetchBytes(url: URL, timeoutMs: number): Promise<Buffer> {
  let res;
  try {
    res = await send({ method: "GET", url, headers: { accept: "application/json, application/yaml, text/yaml, */*" }, timeoutMs, maxBytes: MAX_FETCHED_BYTES });
  } catch (e) {
    throw new DocumentError("io", `cannot fetch the OpenAPI document ${url.href}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (res.timedOut) throw new DocumentError("io", `cannot fetch the OpenAPI document ${url.href}: no complete answer within ${timeoutMs} ms`);
  if (res.status === null || res.status < 200 || res.status > 299) {
    throw new DocumentError("io", `cannot fetch the OpenAPI document ${url.href}: HTTP status ${res.status}`);
  }
  if (res.truncated) throw new DocumentError("io", `the OpenAPI document ${url.href} is larger than ${MAX_FETCHED_BYTES} bytes, the most hcp fetches: save it and give its path (a file may be up to ${MAX_FILE_BYTES >> 20} MiB)`);
  return res.body;
}

/** JSON when it looks like JSON, else YAML (a superset). Throws DocumentError (io) with the position. */
async function parseValue(text: string, source: string): Promise<unknown> {
  const src = withoutBom(text);
  if (looksLikeJson(src)) {
    try {
      return JSON.parse(src);
    } catch (e) {
      const { line, column } = jsonErrorAt(src, (e as Error).message);
      // Not V8's excerpt of the text: openapi.path may lead out of the pack to any file of the person's.
      throw new DocumentError("io", `the OpenAPI document ${source} is not valid JSON at line ${line}, column ${column}: ${jsonSyntax(e)}`);
    }
  }
  const yaml = await import("yaml");
  const doc = yaml.parseDocument(src, { uniqueKeys: true });
  const first = doc.errors[0];
  if (first !== undefined) {
    const where = first.linePos?.[0];
    throw new DocumentError("io", `the OpenAPI document ${source} is not valid YAML${where ? ` at line ${where.line}, column ${where.col}` : ""}: ${yamlReason(first.message)}`);
  }
  try {
    return doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    throw new DocumentError("io", `the OpenAPI document ${source} cannot be read: ${(e as Error).message}`);
  }
}

/** Options that keep dereferencing inside the document: no file, no URL is ever read for a `$ref`. */
const INTERNAL_ONLY: ParserOptions = { resolve: { external: false, file: false }, dereference: { circular: true }, timeoutMs: 10_000 };

/** Parses and dereferences document text. Throws DocumentError. */
export function parseDocument(text: string, source: string, url?: URL): Promise<OpenApiDocument> {
  return parseText(text, source, url, sha256Of(text));
}

async function parseText(text: string, source: string, url: URL | undefined, sha256: string): Promise<OpenApiDocument> {
  const value = await parseValue(text, source);
  if (!isObject(value)) throw new DocumentError("io", `the OpenAPI document ${source} must be an object`);
  if (value["swagger"] !== undefined) {
    throw new DocumentError(
      "invalid_meta",
      `the document ${source} is Swagger ${show(value["swagger"])}: hcp runs OpenAPI 3.0 and 3.1 documents only; convert it to OpenAPI 3 first (for example with swagger2openapi)`,
    );
  }
  const declared = value["openapi"];
  const version = typeof declared === "string" ? /^3\.(0|1)\.\d+/.exec(declared)?.[1] : undefined;
  if (version === undefined) {
    throw new DocumentError("invalid_meta", `the document ${source} declares openapi ${show(declared ?? null)}: hcp runs OpenAPI 3.0.x and 3.1.x documents`);
  }
  if (!isObject(value["paths"]) && value["paths"] !== undefined) throw new DocumentError("invalid_meta", `the OpenAPI document ${source}: paths must be an object`);
  let doc: unknown;
  try {
    doc = await openApiDereference()(value as never, INTERNAL_ONLY);
  } catch (e) {
    throw new DocumentError("io", `the OpenAPI document ${source} cannot be dereferenced: ${(e as Error).message.split("\n")[0]}`);
  }
  return { version: version === "0" ? "3.0" : "3.1", doc: doc as Record<string, unknown>, source, ...(url ? { url } : {}), sha256, text };
}

/** The yaml library's message without the position it appends (said once, before it) and the excerpt after it. */
function yamlReason(message: string): string {
  return message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
}
