// Shared by the scaffold tests: the example files, Go option names → ours, and Go file names → the TypeScript project's.

import { readFileSync } from "node:fs";
import { compareBytes } from "../../src/json/stable.js";
import type { ScaffoldOptions } from "../../src/scaffold/index.js";
import { fixture } from "../e2e/helpers.js";

export const example = (file: string) => JSON.parse(readFileSync(fixture(`examples/rungrad/${file}`), "utf8"));

/** Go's scaffold.Options (JSON) as ours; Go's Module becomes our npm --package. */
export function fromGo(o: Record<string, unknown>): ScaffoldOptions {
  const keys: Record<string, keyof ScaffoldOptions> = {
    Name: "name", Module: "package", ProductProfile: "productProfile", Skill: "skill", EnvPrefix: "envPrefix",
    ProductName: "productName", Description: "description", DocsLabel: "docsLabel", Services: "services",
    MetadataNamespace: "metadataNamespace", Surface: "surface", ReleaseOwner: "releaseOwner", ReleaseRepo: "releaseRepo", Examples: "examples",
  };
  const out: Record<string, unknown> = { name: "" };
  for (const [k, v] of Object.entries(o)) {
    if (!(k in keys)) throw new Error(`unmapped Go option ${k}`);
    out[keys[k]!] = v;
  }
  return out as unknown as ScaffoldOptions;
}

/** Go's project files → ours: go.mod → package.json + tsconfig.json + .gitignore (the npm project's files), main.go → src/main.ts, main_test.go → test/main.test.ts. */
export function tsFiles(goFiles: readonly string[]): string[] {
  const map: Record<string, string[]> = {
    "go.mod": [".gitignore", "package.json", "tsconfig.json"],
    "main.go": ["src/main.ts"],
    "main_test.go": ["test/main.test.ts"],
  };
  return goFiles.flatMap((f) => map[f] ?? [f]).sort(compareBytes);
}

/** The options of Go's TestProductManifestMatchesRuntimeAgentMetadata (scaffold/skillmeta_test.go @ a598b9d), our names. */
export const SKILL_TEST_OPTIONS: ScaffoldOptions = {
  name: "acmectl",
  productProfile: true,
  skill: true,
  envPrefix: "ACME",
  productName: "Acme Control",
  description: "Manage Acme services",
  services: ["api=https://api.example.invalid", "billing-api=https://billing.example.invalid"],
  metadataNamespace: "example.com/acme",
  surface: "host",
  releaseOwner: "example",
  releaseRepo: "acmectl",
  docsLabel: "Acme CLI",
  examples: ["acmectl widget list", "acmectl widget create delta --dry-run", "acmectl widget delete delta --dry-run", "acmectl update --check"],
};
