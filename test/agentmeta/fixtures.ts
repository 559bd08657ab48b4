// Shared test helpers: the rungrad example fixtures and manifests decoded the way Go decodes them.

import { readFileSync } from "node:fs";
import { parseManifest } from "../../src/manifest/decode.js";
import type { Flag, Manifest } from "../../src/manifest/types.js";

const ROOT = new URL("../../../test/fixtures/examples/rungrad/", import.meta.url);

/** A fixture file under test/fixtures/examples/rungrad, parsed. */
export function loadExample<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(name, ROOT), "utf8")) as T;
}

/** A manifest from its wire JSON value, through the real decoder (dictionaries, JsonNumber). */
export function manifestOf(wire: unknown): Manifest {
  return parseManifest(JSON.stringify(wire));
}

/** A canonical machine global: bool, default "false". */
export function boolFlag(name: string): Flag {
  return { name, shorthand: "", usage: "", default: "false", type: "bool", required: false };
}

/** A minimal valid manifest: canonical globals and the given commands after a root. */
export function demoManifest(commands: Record<string, unknown>[], tool = "demo"): Manifest {
  return manifestOf({
    schema_version: "rungrad-manifest/1",
    spec_version: "rungrad-spec/1",
    tool_name: tool,
    tool_version: "v1.0.0",
    global_flags: [boolFlag("dry-run"), boolFlag("json"), boolFlag("no-prompt")],
    commands: [{ path: [], use: tool }, ...commands].map((c) => ({ ...command(), ...c })),
  });
}

/** A command with every slice present and every boolean false. */
export function command(): Record<string, unknown> {
  return {
    path: [],
    use: "",
    short: "",
    examples: [],
    related: [],
    output_modes: [],
    requires_auth: false,
    mutates: false,
    supports_dry_run: false,
    destructive: false,
    requires_confirmation: false,
    supports_meta: false,
    local_flags: [],
  };
}
