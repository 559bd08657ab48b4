// The rungrad program's document commands: manifest validate/fmt and agentmeta.

import { fromManifest } from "../../agentmeta/project.js";
import type { AgentMetaDocument } from "../../agentmeta/types.js";
import { parseManifest } from "../../manifest/decode.js";
import { ManifestError } from "../../manifest/errors.js";
import type { Manifest, ValidManifest } from "../../manifest/types.js";
import { validateManifest } from "../../manifest/validate.js";
import { CliError } from "../errors.js";
import { readInputText, readManifestFromExe } from "../input.js";

/** Where a manifest comes from: a file (or `-`), or a program's __rungrad_manifest endpoint. */
export interface ManifestSource {
  file?: string;
  fromExe?: string;
}

export async function readManifestText(source: ManifestSource): Promise<string> {
  if (source.fromExe !== undefined && source.file !== undefined) {
    throw new CliError("give either FILE or --from-exe, not both");
  }
  if (source.fromExe !== undefined) return readManifestFromExe(source.fromExe);
  if (source.file === undefined) throw new CliError("a manifest FILE (or - for standard input) is required");
  return readInputText(source.file);
}

/** Every manifest failure as a usage error with the spec's exact text. */
function asUsageError<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof ManifestError) throw new CliError(err.message);
    throw err;
  }
}

export interface ValidationReport {
  valid: true;
  schema_version: string;
  tool_name: string;
  tool_version: string;
  command_count: number;
}

export function validateText(text: string): ValidationReport {
  const manifest = parseText(text);
  asUsageError(() => validateManifest(manifest));
  const valid = manifest as ValidManifest;
  return {
    valid: true,
    schema_version: valid.schema_version,
    tool_name: valid.tool_name,
    tool_version: valid.tool_version,
    command_count: valid.commands.length,
  };
}

export function renderValidation(report: ValidationReport): string {
  const version = report.tool_version ? ` ${report.tool_version}` : "";
  return `valid ${report.schema_version}: ${report.tool_name}${version}, ${report.command_count} commands\n`;
}

/**
 * The decoded manifest, not validated: its StableJSON is the canonical form (wire order, unknown
 * fields dropped, extension literals kept). A decode failure is a usage error.
 */
export function parseText(text: string): Manifest {
  return asUsageError(() => parseManifest(text));
}

export function projectText(text: string): AgentMetaDocument {
  const manifest = parseText(text);
  return asUsageError(() => fromManifest(manifest));
}
