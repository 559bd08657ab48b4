// Manifest discovery: run `<target> __rungrad_manifest` once and classify it (present, missing, invalid, unsupported).

import { parseManifest } from "../manifest/decode.js";
import { UnsupportedVersionError } from "../manifest/errors.js";
import { MANIFEST_ENDPOINT, type Manifest, type ValidManifest } from "../manifest/types.js";
import { validateManifest } from "../manifest/validate.js";
import { goQuote } from "../json/goquote.js";
import type { Invocation, Runner } from "./runner.js";
import { REASON_DISCOVERY_DISABLED, summaryOf, type ManifestSummary } from "./summary.js";
import { normalizeManifestMode, TargetError } from "./target.js";
import { goTrimSpace } from "./text.js";

/** Copies the diagnostic fields of a decoded manifest (which need not be valid). */
function withManifestFields(s: ManifestSummary, m: Manifest): ManifestSummary {
  return { ...s, schema_version: m.schema_version, tool_name: m.tool_name, tool_version: m.tool_version, command_count: m.commands?.length ?? 0 };
}

function tryDecode(text: string): Manifest | null {
  try {
    return parseManifest(text);
  } catch {
    return null;
  }
}

/** Classifies one endpoint run; the manifest comes back only when the status is `present`. */
export function classifyManifest(inv: Invocation): { manifest: ValidManifest | null; summary: ManifestSummary } {
  // A timeout also has exit -1: classify it first so the reason says so.
  if (inv.timedOut) return { manifest: null, summary: summaryOf("invalid", "manifest endpoint timed out") };
  if (inv.exit < 0) return { manifest: null, summary: summaryOf("invalid", goTrimSpace(inv.err) || "target exited without an exit code") };
  const trimmed = goTrimSpace(inv.stdout);
  if (inv.exit !== 0) {
    if (!trimmed.startsWith("{")) {
      return { manifest: null, summary: summaryOf("missing", `manifest endpoint not found: exit ${inv.exit} with no manifest JSON on stdout`) };
    }
    const summary = summaryOf("invalid", `manifest endpoint returned manifest-shaped output but exited ${inv.exit}`);
    const decoded = tryDecode(inv.stdout);
    return { manifest: null, summary: decoded ? withManifestFields(summary, decoded) : summary };
  }
  let m: Manifest;
  try {
    m = parseManifest(inv.stdout);
  } catch (err) {
    return { manifest: null, summary: summaryOf("invalid", `manifest JSON did not parse: ${(err as Error).message}`) };
  }
  try {
    validateManifest(m);
  } catch (err) {
    const status = err instanceof UnsupportedVersionError ? "unsupported" : "invalid";
    return { manifest: null, summary: withManifestFields(summaryOf(status, (err as Error).message), m) };
  }
  return { manifest: m, summary: withManifestFields(summaryOf("present", ""), m) };
}

/**
 * Runs discovery once per runner (mode from the target: auto, off, required) and caches the result.
 * Throws TargetError for an unknown mode, or when the mode is required and no supported manifest was found.
 */
export async function discoverManifest(runner: Runner): Promise<void> {
  const mode = normalizeManifestMode(runner.target.manifestMode);
  if (runner.summary === null) {
    if (mode === "off") {
      runner.summary = summaryOf("disabled", REASON_DISCOVERY_DISABLED);
    } else {
      const { manifest, summary } = classifyManifest(await runner.exec([MANIFEST_ENDPOINT]));
      runner.manifest = manifest;
      runner.summary = summary;
    }
  }
  if (mode === "required" && runner.summary.status !== "present") {
    const reason = runner.summary.reason === "" ? "" : `: ${runner.summary.reason}`;
    throw new TargetError(`manifest required but discovery reported status ${goQuote(runner.summary.status)}${reason}`);
  }
}
