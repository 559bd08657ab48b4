// A document as a pack binds it (packs.ts): its head, and each operation with the patterns hcp refuses in the arguments
// it derives. Made by parsing and dereferencing the document, or taken from the state directory's cache
// (document-cache.ts), where a command reads only the operations it uses.

import { patternProblems, type PatternProblem } from "../../pack/schema-patterns.js";
import { cachedDocument, keepDocument } from "./document-cache.js";
import { headOf, parseDocumentBytes, readDocumentBytes, textDigest, type DocumentHead, type DocumentLocation, type OpenApiDocument } from "./document.js";
import { operationsOf, type Operation, type OperationKey } from "./operations.js";
import { deriveOperationSchema } from "./schema.js";

/** An operation of a document: what finds it, what binding checks of it, and the operation itself. */
export interface OperationEntry extends OperationKey {
  /** The patterns hcp refuses (it cannot match them in linear time) in the arguments derived from the operation. */
  problems(): readonly PatternProblem[];
  operation(): Operation;
}

export interface BindableDocument {
  readonly head: DocumentHead;
  /** In document order. */
  readonly operations: readonly OperationEntry[];
}

/** The document's operations as entries; the patterns of each are checked when first asked. */
export function bindableOf(document: OpenApiDocument): BindableDocument {
  // Once, not per operation: a scan of GitHub's 13 MB document per verb was 230 ms of every load.
  const mayHavePatterns = document.text.includes("pattern");
  const entry = (op: Operation): OperationEntry => {
    let problems: readonly PatternProblem[] | undefined;
    return {
      method: op.method,
      path: op.path,
      ...(op.operationId !== undefined ? { operationId: op.operationId } : {}),
      problems: () => (problems ??= mayHavePatterns ? patternProblems(deriveOperationSchema(op, document.version), "args") : []),
      operation: () => op,
    };
  };
  return { head: headOf(document), operations: operationsOf(document.doc).map(entry) };
}

/**
 * Reads the document, and takes it from the cache in `cacheDir` when its text was parsed before; otherwise parses and
 * dereferences it, and keeps it there. Throws DocumentError.
 */
export async function loadBindable(at: DocumentLocation, cacheDir?: string): Promise<BindableDocument> {
  const read = await readDocumentBytes(at);
  const sha256 = textDigest(read.bytes);
  const cached = cacheDir === undefined ? undefined : cachedDocument(cacheDir, sha256, read);
  if (cached !== undefined) return cached;
  const bindable = bindableOf(await parseDocumentBytes(read, sha256));
  if (cacheDir !== undefined) keepDocument(cacheDir, bindable);
  return bindable;
}
