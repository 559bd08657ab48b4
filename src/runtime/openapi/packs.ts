// The documents of openapi packs: loaded once per pack (after the synchronous pack loader), their
// problems recorded as pack issues (§2, §6.7), each verb bound to its operation.

import { isAbsolute, join } from "node:path";
import { keyed } from "../../pack/issues.js";
import { shellWord } from "../../shell-word.js";
import type { LoadedPack } from "../../pack/types.js";
import { RuntimeError } from "../errors.js";
import { unfetchedBecause } from "../trust/trusted-files.js";
import { loadBindable, type BindableDocument, type OperationEntry } from "./bindable.js";
import { DocumentError, documentUrl, type DocumentHead } from "./document.js";
import { documentCacheOf } from "./document-cache.js";
import { findOperation, lookupOf, type Operation } from "./operations.js";

/** A pack's document with each verb's operation. */
export interface BoundDocument {
  readonly document: DocumentHead;
  readonly operations: ReadonlyMap<string, OperationEntry>;
}

/**
 * Throws DocumentError when `why` forbids fetching `url`, after the checks that need no request (they say more). `why`
 * is kept for withheldDocument.
 */
function refuseWithheld(pack: LoadedPack, url: string, why: string | undefined): void {
  if (why === undefined) return;
  withheld.set(pack, why);
  documentUrl(url);
  const root = pack.root;
  const trust = `hcp trust ${shellWord(root)}`;
  throw new DocumentError("io", `the OpenAPI document was not fetched: ${why}, and hcp sends a request an untrusted pack names only when a person asks for it (${trust} at a terminal; hcp serve; hcp exec)`);
}

/**
 * Who lets the loader fetch the document a pack names by `openapi.url`: a request whose host, port, path and query the
 * pack's writer chose, who may be the agent. Every caller names one, and anything else fetches nothing.
 * - `trusted-only`: the commands an agent can run alone (hcp run with nobody to ask, describe, validate, list,
 *   trust --list, mcp-config): only a pack a person trusted as its surface.json and policy.json are now, by the trust
 *   records in `stateDir` (trusted-files.ts unfetchedBecause).
 * - `command-line`: the command line that names the packs is a person's (hcp serve, hcp exec), or a person at a
 *   terminal is shown the pack before it runs (hcp trust; hcp run with a terminal to ask).
 */
export type DocumentFetch = { readonly fetch: "trusted-only"; readonly stateDir: string } | { readonly fetch: "command-line" };

/** Why `allowed` forbids fetching the pack's `openapi.url`; undefined when it permits it. No named permission, no request. */
function withheldBecause(pack: LoadedPack, allowed: DocumentFetch): string | undefined {
  // `?.`: a caller the compiler did not check (JavaScript, a cast) is refused too.
  if (allowed?.fetch === "command-line") return undefined;
  if (allowed?.fetch === "trusted-only" && typeof allowed.stateDir === "string") return unfetchedBecause(pack, allowed.stateDir);
  return "the command that loaded it did not say that it may be fetched";
}

const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

const bound = new WeakMap<LoadedPack, BoundDocument>();
/** Why the loader did not fetch a pack's document by its URL (DocumentFetch forbade it). */
const withheld = new WeakMap<LoadedPack, string>();

/**
 * Loads the document of every openapi pack that loaded without errors. A document that cannot be
 * read or parsed is an `io` error (a refused version `invalid_meta`) at `openapi.path` or
 * `openapi.url`; a verb without an operation is `missing_verb` at `verbs["key"]`. Never throws.
 * A document by `openapi.url` is fetched only as `allowed` permits (DocumentFetch); one it withholds is sent no request,
 * and is an `io` error at `openapi.url` saying why. With `stateDir` (every command passes its own), a document parsed
 * before is taken from the cache there, and one parsed now is kept (document-cache.ts).
 */
export async function loadOpenApiDocuments(packs: readonly LoadedPack[], allowed: DocumentFetch, stateDir?: string): Promise<void> {
  const cacheDir = stateDir === undefined ? undefined : documentCacheOf(stateDir);
  await Promise.all(packs.map((pack) => loadOne(pack, allowed, cacheDir)));
}

async function loadOne(pack: LoadedPack, allowed: DocumentFetch, cacheDir: string | undefined): Promise<void> {
  const surface = pack.surface;
  if (!pack.ok || surface === null || surface.kind !== "openapi" || surface.openapi === undefined || bound.has(pack)) return;
  const ref = surface.openapi;
  const at = ref.path !== undefined ? "openapi.path" : "openapi.url";
  const fail = (code: LoadedPack["issues"][number]["code"], path: string, message: string) => {
    // After the other surface.json issues, before those of policy.json and HARNESS.md.
    const next = pack.issues.findIndex((i) => i.file !== "surface.json");
    pack.issues.splice(next < 0 ? pack.issues.length : next, 0, { severity: "error", code, path, message, file: "surface.json" });
    pack.ok = false;
  };
  let document: BindableDocument;
  try {
    const path = ref.path === undefined ? undefined : isAbsolute(ref.path) ? ref.path : join(pack.root, ref.path);
    if (path === undefined) refuseWithheld(pack, ref.url!, withheldBecause(pack, allowed));
    document = await loadBindable(path !== undefined ? { path } : { url: ref.url }, cacheDir);
  } catch (e) {
    if (e instanceof DocumentError) fail(e.code, at, e.message);
    else fail("io", at, `the OpenAPI document cannot be loaded: ${(e as Error).message}`);
    return;
  }
  const all = lookupOf(document.operations);
  const operations = new Map<string, OperationEntry>();
  for (const [key, verb] of Object.entries(surface.verbs)) {
    const op = findOperation(all, key, verb);
    if (typeof op === "string") fail("missing_verb", keyed("verbs", key), op);
    else {
      operations.set(key, op);
      // The method is the policy hint of a verb without one (§6.7); policy.json decides as for any verb.
      verb.policy ??= READ_METHODS.has(op.method) ? "read" : "write";
      // A pattern in the document hcp cannot match in linear time fails the pack, as one in a verb's own args does.
      if (verb.args === undefined) {
        for (const problem of op.problems()) {
          fail("invalid_meta", keyed("verbs", key), `the arguments the OpenAPI document gives it, at ${problem.path}: ${problem.message}`);
        }
      }
    }
  }
  if (pack.ok) bound.set(pack, { document: document.head, operations });
}

/** The document and operation of an openapi verb; loadOpenApiDocuments must have run. */
export function boundVerb(pack: LoadedPack, verbKey: string): { document: DocumentHead; operation: Operation } {
  const b = bound.get(pack);
  if (b === undefined) {
    throw new RuntimeError("not_executable", `the OpenAPI document of pack ${JSON.stringify(pack.surface?.id ?? pack.root)} is not loaded (call loadOpenApiDocuments first)`);
  }
  const operation = b.operations.get(verbKey);
  if (operation === undefined) throw new RuntimeError("unknown_verb", `pack ${JSON.stringify(pack.surface?.id)} has no operation for verb ${JSON.stringify(verbKey)}`);
  return { document: b.document, operation: operation.operation() };
}

/**
 * Why the loader did not fetch the pack's document by its `openapi.url`: a person has not trusted the pack as it is
 * (trusted-files.ts unfetchedBecause), or the caller named no permission. Undefined when it was not withheld.
 */
export function withheldDocument(pack: LoadedPack): string | undefined {
  return withheld.get(pack);
}

/** The head of an openapi pack's document as loaded (its digest is what trust binds); undefined when it is not loaded. */
export function boundDocument(pack: LoadedPack): DocumentHead | undefined {
  return bound.get(pack)?.document;
}

