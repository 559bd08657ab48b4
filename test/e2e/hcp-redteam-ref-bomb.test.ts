// A document's `$ref`s form a graph, and the schema hcp derives from it for a verb is a tree: 40 schemas each naming the
// next twice are 5 KB of document and 2^40 objects of tree. An agent that writes a pack can write such a document; the
// person who then looks at it (hcp validate, describe, trust), serves it or makes a pack from it must get an answer.

import assert from "node:assert/strict";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { hcp, mcpClient, tempDir } from "../transports/support.js";
import { isolatedEnv } from "./openapi-support.js";

/** Each of `count` entries names the next one twice, under `key` (a schema's properties, or an example's fields). */
function doubling(count: number, wrap: (next: object) => object, last: object): Record<string, object> {
  const out: Record<string, object> = {};
  for (let i = 0; i < count; i++) out[`N${i}`] = wrap({ $ref: `#/components/schemas/N${i + 1}` });
  out[`N${count}`] = last;
  return out;
}

const BOMB = {
  openapi: "3.0.3",
  info: { title: "Bomb", version: "1" },
  servers: [{ url: "https://api.example.com" }],
  paths: {
    "/a": { post: { operationId: "a.create", requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/N0" } } } }, responses: { "200": { description: "ok" } } } },
    // The same graph as an example's value: data, which a copy shares but whose written form unfolds it.
    "/b": { post: { operationId: "b.create", requestBody: { content: { "application/json": { schema: { type: "object", example: { $ref: "#/components/schemas/N0" } } } } }, responses: { "200": { description: "ok" } } } },
  },
  components: { schemas: doubling(40, (next) => ({ type: "object", properties: { x: next, y: next } }), { type: "string" }) },
};
const GUARD = { timeoutMs: 30_000 };

test("a 5 KB document whose $refs unfold to 2^40 objects: validate, describe, trust, a dry run, init and tools/list each answer in seconds with bounded output", async () => {
  const dir = tempDir("hcp-ref-bomb-");
  const env = isolatedEnv({});
  const doc = join(dir, "bomb.json");
  writeFileSync(doc, JSON.stringify(BOMB));
  assert.ok(statSync(doc).size < 8_000);
  const pack = join(dir, "agent-pack");
  mkdirSync(pack);
  writeFileSync(join(pack, "bomb.json"), JSON.stringify(BOMB));
  writeFileSync(join(pack, "surface.json"), JSON.stringify({ id: "bomb", kind: "openapi", openapi: { path: "bomb.json" }, binding: { mode: "public", hub: "none" }, verbs: { "a.create": { description: "A." }, "b.create": { description: "B." } } }));
  writeFileSync(join(pack, "HARNESS.md"), "---\nname: bomb\ndescription: The bomb pack.\n---\n\nThe bomb pack.\n");

  const v = await hcp(["validate", pack], { env, ...GUARD });
  assert.deepEqual([v.timedOut, v.code], [false, 0], v.stdout + v.stderr);
  const described = await hcp(["describe", pack, "--json"], { env, ...GUARD });
  assert.deepEqual([described.timedOut, described.code], [false, 0], described.stderr);
  assert.ok(described.stdout.length < 2_000_000, `describe wrote ${described.stdout.length} bytes`);
  // A dry run compiles the verb's schema and checks the body against it (hcp run trusts the pack first, as a person
  // would): its shallow levels as the document says, the deepest (cut) accepting anything.
  const flat = await hcp(["run", pack, "a.create", "--dry-run", "--args", JSON.stringify({ body: { x: "flat" } })], { env, ...GUARD });
  assert.deepEqual([flat.timedOut, flat.code, flat.stderr], [false, 1, `Error: invalid arguments for verb "a.create": argument "body.x": must be object (the schema is the OpenAPI document's: if the API takes what was sent, a person can loosen it in this verb's args in surface.json)\n`]);
  let deep: object = {};
  for (let i = 0; i < 30; i++) deep = { x: deep };
  const dry = await hcp(["run", pack, "a.create", "--dry-run", "--args", JSON.stringify({ body: deep })], { env, ...GUARD });
  assert.deepEqual([dry.timedOut, dry.code], [false, 0], dry.stderr);

  const out = join(dir, "made");
  const init = await hcp(["init", "--from-openapi", doc, "--out", out], { env, ...GUARD });
  assert.deepEqual([init.timedOut, init.code], [false, 0], init.stderr);
  assert.ok(statSync(join(out, "HARNESS.md")).size < 100_000);
  assert.equal((await hcp(["validate", out], { env, ...GUARD })).code, 0);

  const { client } = await mcpClient([pack], { env, allowWrite: true });
  try {
    const { tools } = await client.listTools();
    const sizes = tools.map((t) => JSON.stringify(t.inputSchema).length);
    assert.equal(tools.length, 2);
    assert.ok(Math.max(...sizes) < 2_000_000, `inputSchema of ${Math.max(...sizes)} bytes`);
    // The example that would unfold to 2^40 objects is left out; the body is still an object.
    const b = tools.find((t) => t.name === "bomb_b_create")!.inputSchema as unknown as { properties: { body: Record<string, unknown> } };
    assert.equal(b.properties.body["type"], "object");
    assert.equal(b.properties.body["example"], undefined);
  } finally {
    await client.close();
  }
  assert.ok(readFileSync(join(out, "surface.json"), "utf8").length < 100_000);
});

test("a 450 KB document whose body has 2,000 properties each naming one schema of 10,000 alternatives (20 million objects written out): hcp validate and describe answer in seconds", async () => {
  const properties = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`p${i}`, { $ref: "#/components/schemas/Wide" }]));
  const schemas = {
    Root: { type: "object", properties },
    Wide: { allOf: Array.from({ length: 10_000 }, () => ({ $ref: "#/components/schemas/Leaf" })) },
    Leaf: { type: "object", description: "A leaf." },
  };
  const wide = {
    ...BOMB,
    paths: { "/a": { post: { operationId: "a.create", requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/Root" } } } }, responses: { "200": { description: "ok" } } } } },
    components: { schemas },
  };
  const pack = tempDir("hcp-ref-wide-");
  writeFileSync(join(pack, "wide.json"), JSON.stringify(wide));
  writeFileSync(join(pack, "surface.json"), JSON.stringify({ id: "wide", kind: "openapi", openapi: { path: "wide.json" }, binding: { mode: "public", hub: "none" }, verbs: { "a.create": { description: "A." } } }));
  writeFileSync(join(pack, "HARNESS.md"), "---\nname: wide\ndescription: The wide pack.\n---\n\nThe wide pack.\n");
  const env = isolatedEnv({});
  // Bounded by what is copied, this took 47 s and 4.6 GB: each of the first 2,000 schemas queued all 10,000.
  for (const args of [["validate", pack], ["describe", pack, "a.create"]]) {
    const r = await hcp(args, { env, ...GUARD });
    assert.deepEqual([r.timedOut, r.code], [false, 0], `${args[0]}: ${r.stderr}`);
  }
});
