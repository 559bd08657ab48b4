// Property tests: random and mutated manifest JSON never crashes the decoder or the validator.

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { parseManifest } from "../../src/manifest/decode.js";
import { validateManifest } from "../../src/manifest/validate.js";
import { ManifestError } from "../../src/manifest/errors.js";
import { stableJSON } from "../../src/json/stable.js";
import { loadExample } from "../agentmeta/fixtures.js";

const cases = loadExample<{ cases: { manifest?: unknown; manifest_raw?: string }[] }>("manifest_validate.json").cases;
const seeds = cases.map((c) => c.manifest_raw ?? JSON.stringify(c.manifest ?? null));

/** Decode and validate; anything thrown must be a ManifestError with a message. */
function survives(text: string): void {
  try {
    const m = parseManifest(text);
    stableJSON(m);
    validateManifest(m);
  } catch (err) {
    assert.ok(err instanceof ManifestError, `${String(err)} for ${text}`);
    assert.ok(err.message.length > 0);
  }
}

/** A structural edit of a parsed JSON value: delete a key, swap a type, insert null, or duplicate a key (in text). */
type Edit = { at: number; kind: number; seed: number };

const serialize = (v: unknown) => JSON.stringify(v);

function mutate(text: string, edits: Edit[]): string {
  let value: unknown = JSON.parse(text);
  const nodes: unknown[] = [];
  const collect = (v: unknown) => {
    if (v !== null && typeof v === "object") {
      nodes.push(v);
      Object.values(v).forEach(collect);
    }
  };
  collect(value);
  let out: string | null = null;
  for (const { at, kind, seed } of edits) {
    const node = nodes[at % Math.max(nodes.length, 1)] as Record<string, unknown> | undefined;
    if (node === undefined) continue;
    const keys = Object.keys(node);
    const key = keys[seed % Math.max(keys.length, 1)];
    if (key === undefined) continue;
    const replacements = [null, 1, "x", true, [], {}, [null], { "a.com/b": null }, { "a.com/b": { k: [1, null] } }];
    if (kind === 0) delete node[key];
    else if (kind === 1) node[key] = replacements[seed % replacements.length] as unknown;
    else if (kind === 2) value = node === value ? null : value;
    else out = serialize(value).replace(`"${key}":`, `"${key}":null,"${key}":`);
  }
  return out ?? serialize(value);
}

test("mutated example manifests decode and validate to a result or a ManifestError", () => {
  const edit = fc.record({ at: fc.nat(), kind: fc.nat({ max: 3 }), seed: fc.nat() });
  fc.assert(
    fc.property(fc.constantFrom(...seeds), fc.array(edit, { maxLength: 4 }), fc.nat(), fc.boolean(), (seed, edits, cut, truncate) => {
      const text = mutate(seed, edits);
      survives(text);
      if (truncate) survives(text.slice(0, cut % (text.length + 1)));
    }),
    { numRuns: 1500 },
  );
});

test("arbitrary text and arbitrary JSON values never crash the decoder", () => {
  fc.assert(fc.property(fc.string(), survives), { numRuns: 1000 });
  fc.assert(fc.property(fc.json(), survives), { numRuns: 1000 });
  fc.assert(
    fc.property(fc.dictionary(fc.constantFrom("schema_version", "tool_name", "global_flags", "commands", "COMMANDS", "x"), fc.jsonValue()), (v) => survives(JSON.stringify(v))),
    { numRuns: 1000 },
  );
});
