// Validate: Go rungrad's manifest.Validate. The first failure wins; texts are exact.

import { hasGoSpace } from "../json/goquote.js";
import { ManifestError, UnsupportedVersionError } from "./errors.js";
import { isEmptyRecord, validateExtensionSet } from "./extensions.js";
import { MANIFEST_SCHEMA_VERSION, type Manifest, type ValidManifest } from "./types.js";

/**
 * Checks a decoded manifest. Throws UnsupportedVersionError for a present but
 * unsupported schema_version (checked before any structure), ManifestError otherwise.
 */
export function validateManifest(m: Manifest | null | undefined): asserts m is ValidManifest {
  if (m === null || m === undefined) throw new ManifestError("manifest is nil");
  if (!m.schema_version) throw new ManifestError("manifest is missing schema_version");
  if (m.schema_version !== MANIFEST_SCHEMA_VERSION) throw new UnsupportedVersionError(m.schema_version);
  if (!m.tool_name) throw new ManifestError("manifest is missing tool_name");
  // The wire contract uses arrays for empty collections: null (or no key) is not [].
  if (!Array.isArray(m.global_flags)) throw new ManifestError("manifest global_flags must be an array");
  if (!Array.isArray(m.commands)) throw new ManifestError("manifest commands must be an array");
  if (m.commands.length === 0) throw new ManifestError("manifest has no commands");

  const seen = new Set<string>();
  let hasRoot = false;
  const commands = m.commands;
  // forEach, not for: a hole in a (hand-built) array is skipped, as before.
  commands.forEach((c, i) => {
    // A null element (possible in hand-built values) is Go's zero Command: no path.
    if (!c || !Array.isArray(c.path)) throw new ManifestError(`manifest command ${i} has no path array`);
    const path = c.path;
    // Labels are built only once a check fails.
    if (!Array.isArray(c.examples)) throw commandError(path, " examples must be an array");
    if (!Array.isArray(c.related)) throw commandError(path, " related must be an array");
    if (!Array.isArray(c.output_modes)) throw commandError(path, " output_modes must be an array");
    if (!Array.isArray(c.local_flags)) throw commandError(path, " local_flags must be an array");
    const extensions = c.extensions;
    if (extensions && !isEmptyRecord(extensions)) {
      try {
        validateExtensionSet(extensions);
      } catch (err) {
        throw new ManifestError(`manifest command ${pathLabel(path)}: ${(err as Error).message}`, { cause: err });
      }
    }
    for (const seg of path) {
      if (seg === "") throw commandError(path, " has an empty path segment");
      if (hasGoSpace(String(seg))) throw commandError(path, " has a path segment with whitespace");
    }
    // Go keys paths by their NUL-joined segments; keep the same identity.
    const key = path.join("\0");
    if (seen.has(key)) throw new ManifestError(`manifest has duplicate command path ${pathLabel(path)}`);
    seen.add(key);
    if (c.path.length === 0) hasRoot = true;
  });
  if (!hasRoot) throw new ManifestError("manifest has no root command (path: [])");
}

function commandError(path: readonly string[], problem: string): ManifestError {
  return new ManifestError(`manifest command ${pathLabel(path)}${problem}`);
}

/** A command's label in error texts: its path joined by spaces, or "[]" for root. */
export function pathLabel(path: readonly string[]): string {
  return path.length === 0 ? "[]" : path.join(" ");
}

