import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { fromManifest } from "../../src/agentmeta/index.js";
import { stableJSON } from "../../src/json/stable.js";
import { ManifestError } from "../../src/manifest/errors.js";
import type { Command, ExtensionValue, Flag, Manifest } from "../../src/manifest/types.js";

const segment = fc.oneof(
  { weight: 40, arbitrary: fc.constantFrom("a", "b", "c", "d", "item", "list", "get", "x-y", "\u00e9", "a\u0000") },
  { weight: 1, arbitrary: fc.constantFrom("", " ", "a\tb") },
);
const path: fc.Arbitrary<string[]> = fc.oneof({ weight: 20, arbitrary: fc.array(segment, { minLength: 1, maxLength: 3 }) }, { weight: 1, arbitrary: fc.constant<string[]>([]) });
const maybeNull = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 40, arbitrary: arb }, { weight: 1, arbitrary: fc.constant(null) });
const flag: fc.Arbitrary<Flag> = fc.record({
  name: fc.constantFrom("json", "no-prompt", "dry-run", "quiet", "check", "confirm", "id"),
  shorthand: fc.constantFrom("", "j"),
  usage: fc.string({ maxLength: 8 }),
  default: fc.constantFrom("false", "true", ""),
  type: fc.constantFrom("bool", "string", "stringArray"),
  required: fc.boolean(),
});
const extensionValue: fc.Arbitrary<ExtensionValue> = fc.letrec<{ value: ExtensionValue }>((tie) => ({
  value: fc.oneof({ depthSize: "small" }, fc.string({ maxLength: 4 }), fc.boolean(), fc.integer(), fc.array(tie("value"), { maxLength: 2 }), fc.dictionary(fc.constantFrom("k", "path", "z"), tie("value"), { maxKeys: 2 })),
})).value;
const extensions = fc.dictionary(
  fc.oneof({ weight: 10, arbitrary: fc.constantFrom("example.com/x", "a.io/b") }, { weight: 1, arbitrary: fc.constantFrom("rungrad/x", "bad") }),
  fc.oneof({ weight: 30, arbitrary: fc.dictionary(fc.constantFrom("owner", "status", "tags"), extensionValue, { maxKeys: 2 }) }, { weight: 1, arbitrary: fc.constantFrom(null, { use: "x" }) }),
  { maxKeys: 2 },
);

const commandArb = (tool: string): fc.Arbitrary<Command> =>
  fc
    .record(
      {
        path: maybeNull(path),
        use: fc.oneof({ weight: 40, arbitrary: fc.constantFrom("<last>", "<last> <id>", " <last>\t[flags]\u00a0<x> ") }, { weight: 1, arbitrary: fc.constantFrom("", " ", "other", "item <id>") }),
        short: fc.string({ maxLength: 8 }),
        examples: maybeNull(fc.array(fc.string({ maxLength: 8 }), { maxLength: 2 })),
        related: maybeNull(fc.array(fc.string({ maxLength: 8 }), { maxLength: 2 })),
        output_modes: maybeNull(fc.subarray(["human", "json", "table"])),
        requires_auth: fc.boolean(),
        mutates: fc.boolean(),
        supports_dry_run: fc.boolean(),
        destructive: fc.boolean(),
        requires_confirmation: fc.boolean(),
        supports_meta: fc.boolean(),
        local_flags: maybeNull(fc.array(flag, { maxLength: 3 })),
        extensions,
      },
      { requiredKeys: ["path", "use", "short", "examples", "related", "output_modes", "requires_auth", "mutates", "supports_dry_run", "destructive", "requires_confirmation", "supports_meta", "local_flags"] },
    )
    // Mostly a use whose first field is the last path segment, so that many manifests get through to a document.
    .map((c) => ({ ...c, use: c.use.replace("<last>", c.path?.[c.path.length - 1] ?? tool) }));

const manifestArb: fc.Arbitrary<Manifest> = fc.constantFrom("demo", "acmectl", "acmectl", "").chain((tool) =>
  fc.record({
    schema_version: fc.oneof({ weight: 20, arbitrary: fc.constant("rungrad-manifest/1") }, { weight: 1, arbitrary: fc.constantFrom("rungrad-manifest/2", "") }),
    spec_version: fc.oneof({ weight: 20, arbitrary: fc.constant("rungrad-spec/1") }, { weight: 1, arbitrary: fc.constantFrom("rungrad-spec/0", "") }),
    tool_name: fc.constant(tool),
    tool_version: fc.constantFrom("", "v1.0.0"),
    global_flags: maybeNull(fc.array(flag, { maxLength: 4 })),
    commands: maybeNull(
      fc
        .tuple(commandArb(tool), fc.array(commandArb(tool), { maxLength: 6 }), fc.oneof({ weight: 20, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }))
        .map(([root, rest, rootFirst]) => {
          const r = { ...root, path: [], use: tool };
          return rootFirst ? [r, ...rest] : [...rest, r];
        }),
    ),
  }),
);

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** Go's hasChildren, quadratic, as the reference for the prefix-set implementation. */
function referenceHasChildren(paths: string[][], p: string[]): boolean {
  return paths.some((o) => o.length > p.length && p.every((s, i) => o[i] === s));
}

test("fromManifest is total, pure and deterministic on random valid-ish manifests", () => {
  let documents = 0;
  fc.assert(
    fc.property(manifestArb, (m) => {
      const before = stableJSON(m);
      deepFreeze(m);
      let first: string;
      try {
        first = stableJSON(fromManifest(m));
      } catch (err) {
        assert.ok(err instanceof ManifestError, `typed error, got ${String(err)}`);
        assert.throws(() => fromManifest(m), { message: err.message });
        assert.equal(stableJSON(m), before);
        return;
      }
      documents++;
      assert.equal(stableJSON(fromManifest(m)), first, "same input, same bytes");
      assert.equal(stableJSON(m), before, "input unchanged");

      const doc = fromManifest(m);
      const paths = m.commands!.map((c) => c.path!);
      assert.deepEqual(
        doc.commands.map((c) => c.path),
        paths,
        "manifest order, no synthesised commands",
      );
      doc.commands.forEach((c, i) => {
        assert.equal(c.has_children, referenceHasChildren(paths, c.path));
        assert.equal(c.is_root, c.path.length === 0);
        assert.equal(c.command_template, [m.tool_name, ...c.path].join(" "));
        assert.ok(c.usage_template.startsWith(c.command_template));
        assert.ok(c.machine_usage_template === "" || (!c.mutates && !c.destructive));
        assert.ok(c.dry_run_usage_template === "" || c.supports_dry_run);
        assert.deepEqual(c.required_local_flags, m.commands![i]!.local_flags!.filter((f) => f.required).map((f) => ({ ...f })));
      });
    }),
    { numRuns: 600 },
  );
  assert.ok(documents > 100, `only ${documents} manifests produced a document`);
});
