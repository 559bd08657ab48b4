// Openapi packs for the e2e tests: a pack folder around a fixture document, an isolated environment, credentials.

import { chmodSync, copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { tempDir } from "../transports/support.js";
import { fixture } from "./helpers.js";

export interface PackSpec {
  /** A fixture under test/fixtures/openapi, copied into the pack. */
  doc?: string;
  /** surface.json `openapi` instead of the copied document. */
  ref?: Record<string, string>;
  verbs: Record<string, Record<string, unknown>>;
  binding?: Record<string, string>;
  policy?: Record<string, unknown>;
}

/** Writes an openapi pack (id `notes`) into a fresh folder and returns the folder. */
export function openapiPack(spec: PackSpec): string {
  const dir = tempDir("hcp-openapi-pack-");
  if (spec.doc !== undefined) copyFileSync(fixture(`openapi/${spec.doc}`), join(dir, spec.doc));
  const surface = {
    id: "notes",
    kind: "openapi",
    openapi: spec.ref ?? { path: spec.doc },
    binding: spec.binding ?? { mode: "local", hub: "local-credential", family: "notes" },
    verbs: spec.verbs,
  };
  writeFileSync(join(dir, "surface.json"), JSON.stringify(surface, null, 2));
  writeFileSync(join(dir, "policy.json"), JSON.stringify({ surface_id: "notes", ...spec.policy }, null, 2));
  writeFileSync(join(dir, "HARNESS.md"), "---\nname: notes\ndescription: The notes API.\n---\nUse the notes tools.\n");
  return dir;
}

/** An environment whose state, config, audit and credential file all live in a fresh folder; `credentials` is the file's content. */
export function isolatedEnv(credentials: unknown = { notes: { env: {} } }): NodeJS.ProcessEnv {
  const home = tempDir("hcp-openapi-home-");
  for (const d of ["state", "config"]) mkdirSync(join(home, d));
  const file = join(home, "credentials.json");
  writeFileSync(file, JSON.stringify(credentials));
  chmodSync(file, 0o600);
  return {
    ...process.env,
    HOME: home,
    XDG_STATE_HOME: join(home, "state"),
    XDG_CONFIG_HOME: join(home, "config"),
    HCP_CREDENTIALS: file,
    HCP_AUDIT: join(home, "audit.jsonl"),
  };
}

/** A loopback port nothing listens on: one the system just gave out and took back. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
