// The programs a pack names (wrap.bin, or each composite verb's cli[0]) and how trust binds each: one inside the
// pack folder is bound by the folder's digest (pack-tree.ts); one named by a path that leads outside it (after
// every link) is bound by the SHA-256 of its real file; one looked up on PATH is shown but not bound.

import { sep } from "node:path";
import type { Surface } from "../../pack/types.js";
import { FileReadError, sha256OfRegularFile } from "../../read-regular.js";
import { realOrSelf } from "./pack-links.js";
import { MAX_TREE_BYTES, TreeError } from "./pack-tree.js";
import { resolveProgram } from "../resolve.js";
import { commandOf } from "../verb-lookup.js";

export type ProgramBinding =
  /** In the pack folder: `path` is its real path, bound with the folder. */
  | { readonly bin: string; readonly where: "pack"; readonly path: string }
  /** Outside it: `path` is its real path, `sha256` its content's (null: it does not exist). */
  | { readonly bin: string; readonly where: "outside"; readonly path: string; readonly sha256: string | null }
  /** A bare name, found on PATH when run: not bound. */
  | { readonly bin: string; readonly where: "path" };

/** The distinct program names of the pack's surface, in order. */
export function namedPrograms(surface: Surface): string[] {
  if (surface.kind === "wrap") return surface.wrap === undefined ? [] : [surface.wrap.bin];
  if (surface.kind !== "composite") return [];
  const bins = new Set<string>();
  for (const [key, verb] of Object.entries(surface.verbs)) {
    try {
      bins.add(commandOf(surface, key, verb).bin);
    } catch {
      // a verb that cannot run names no program
    }
  }
  return [...bins];
}

function outsideDigest(path: string, bin: string): string | null {
  try {
    return sha256OfRegularFile(path, MAX_TREE_BYTES);
  } catch (err) {
    if (err instanceof FileReadError && err.code === "ENOENT") return null;
    throw new TreeError(`the program ${JSON.stringify(bin)} (${path}, outside the pack folder) cannot be read to bind it: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** How trust binds each program of the pack whose real folder is `root`. Throws TreeError when an outside program cannot be read. */
export function programBindings(surface: Surface, root: string): ProgramBinding[] {
  return namedPrograms(surface).map((bin): ProgramBinding => {
    if (!bin.startsWith(".") && !bin.includes("/")) return { bin, where: "path" };
    const real = realOrSelf(resolveProgram(bin, root, undefined));
    if (real.startsWith(root + sep)) return { bin, where: "pack", path: real };
    return { bin, where: "outside", path: real, sha256: outsideDigest(real, bin) };
  });
}

/** The outside programs as a trust record keeps them: real path → SHA-256 (null: absent). */
export function outsideDigests(bindings: readonly ProgramBinding[]): Record<string, string | null> {
  const out: Record<string, string | null> = Object.create(null) as Record<string, string | null>;
  for (const b of bindings) if (b.where === "outside") out[b.path] = b.sha256;
  return out;
}
