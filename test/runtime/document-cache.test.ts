// The cache of parsed OpenAPI documents (document-cache.ts): a document is taken from it only for the very text it was
// made from, as parsing that text makes it, and an entry that is damaged, not private or of another text is not used.

import assert from "node:assert/strict";
import { chmodSync, copyFileSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { serialize } from "node:v8";
import { test } from "node:test";
import { loadPack } from "../../src/pack/load.js";
import { bindableOf, loadBindable, type BindableDocument } from "../../src/runtime/openapi/bindable.js";
import { EACH_MAX_BYTES, KEPT_DOCUMENTS, keepDocument } from "../../src/runtime/openapi/document-cache.js";
import { parseDocument, textDigest } from "../../src/runtime/openapi/document.js";
import { boundVerb, loadOpenApiDocuments } from "../../src/runtime/openapi/packs.js";
import { RuntimeError } from "../../src/runtime/errors.js";
import { tempDir } from "../temp.js";

const FIXTURE = join(import.meta.dirname, "../../../test/fixtures/openapi/notes.json");

/** What a bindable document holds, each operation read: comparable with deepEqual. */
const contents = (d: BindableDocument) => ({
  head: d.head,
  operations: d.operations.map((e) => ({ method: e.method, path: e.path, operationId: e.operationId, problems: e.problems(), operation: e.operation() })),
});

const entries = (dir: string) => readdirSync(dir).filter((n) => n.endsWith(".v8"));

/** The name of the entry of the document at `path`. */
const entryName = (path: string) => `${textDigest(readFileSync(path))}.v8`;

test("a document is parsed once: the second load takes it from the cache as the first made it, under the digest of its text, private", async () => {
  const dir = join(tempDir("hcp-doc-cache-"), "documents");
  const parsed = await loadBindable({ path: FIXTURE }, dir);
  const digest = textDigest(readFileSync(FIXTURE));
  assert.deepEqual(entries(dir), [`${digest}.v8`]);
  assert.equal(statSync(dir).mode & 0o777, 0o700);
  assert.equal(statSync(join(dir, `${digest}.v8`)).mode & 0o777, 0o600);
  const cached = await loadBindable({ path: FIXTURE }, dir);
  assert.deepEqual(contents(cached), contents(parsed));
  // Without the cache, as parsing makes it.
  assert.deepEqual(contents(cached), contents(bindableOf(await parseDocument(readFileSync(FIXTURE, "utf8"), FIXTURE))));
  assert.equal(cached.head.sha256, digest);
});

test("an entry is read for the text whose digest names it: where the text is now named from, another text never takes it", async () => {
  const dir = join(tempDir("hcp-doc-cache-"), "documents");
  const parsed = await loadBindable({ path: FIXTURE }, dir);
  // The cache is read: an entry kept under the text's digest with other servers is what the load answers.
  keepDocument(dir, { ...parsed, head: { ...parsed.head, servers: [{ url: "https://kept.example" }] } });
  assert.deepEqual((await loadBindable({ path: FIXTURE }, dir)).head.servers, [{ url: "https://kept.example" }]);
  // The same text elsewhere: its own path in messages.
  const copy = join(tempDir("hcp-doc-cache-"), "copy.json");
  copyFileSync(FIXTURE, copy);
  assert.equal((await loadBindable({ path: copy }, dir)).head.source, copy);
  // Another text (one byte more): parsed, with its own servers, and kept beside.
  const edited = JSON.parse(readFileSync(FIXTURE, "utf8"));
  edited.servers = [{ url: "https://edited.example" }];
  writeFileSync(copy, JSON.stringify(edited));
  assert.deepEqual((await loadBindable({ path: copy }, dir)).head.servers, [{ url: "https://edited.example" }]);
  assert.equal(entries(dir).length, 2);
});

test("an entry that is damaged, not private, or of another digest is not used: the document is parsed again", async () => {
  const dir = join(tempDir("hcp-doc-cache-"), "documents");
  const parsed = contents(await loadBindable({ path: FIXTURE }, dir));
  const entry = join(dir, entryName(FIXTURE));
  const planted = async () => {
    const real = await loadBindable({ path: FIXTURE });
    keepDocument(dir, { ...real, head: { ...real.head, servers: [{ url: "https://planted.example" }] } });
  };
  const loadsAsParsed = async (why: string) => assert.deepEqual(contents(await loadBindable({ path: FIXTURE }, dir)), parsed, why);

  await planted();
  chmodSync(entry, 0o644);
  await loadsAsParsed("an entry others can read");
  await planted();
  chmodSync(entry, 0o620);
  await loadsAsParsed("an entry others can write");

  await planted();
  const whole = readFileSync(entry);
  writeFileSync(entry, whole.subarray(0, whole.length - 1), { mode: 0o600 });
  await loadsAsParsed("a truncated entry");
  writeFileSync(entry, Buffer.from("not an entry at all"), { mode: 0o600 });
  await loadsAsParsed("garbage");

  // Another text's entry copied under this text's name.
  const other = join(tempDir("hcp-doc-cache-"), "other.json");
  writeFileSync(other, JSON.stringify({ ...JSON.parse(readFileSync(FIXTURE, "utf8")), servers: [{ url: "https://other.example" }] }));
  await loadBindable({ path: other }, dir);
  copyFileSync(join(dir, entryName(other)), entry);
  await loadsAsParsed("another text's entry");
  // Each time, the entry parsed again replaced the one not used.
  assert.deepEqual(contents(await loadBindable({ path: FIXTURE }, dir)), parsed);
});

test("an operation whose serialized form is damaged is refused with a sentence, and the entry removed: the next load parses the document", async () => {
  const dir = join(tempDir("hcp-doc-cache-"), "documents");
  await loadBindable({ path: FIXTURE }, dir);
  const entry = join(dir, entryName(FIXTURE));
  const bytes = readFileSync(entry);
  // The last operation's blob ends the file: its last bytes overwritten, the head intact.
  bytes.fill(0xff, bytes.length - 8);
  writeFileSync(entry, bytes, { mode: 0o600 });
  const cached = await loadBindable({ path: FIXTURE }, dir);
  const last = cached.operations.at(-1)!;
  assert.throws(
    () => last.operation(),
    (e: unknown) => e instanceof RuntimeError && e.code === "not_executable" && e.message === `hcp's parsed copy of the OpenAPI document ${FIXTURE} (${entry}) is damaged: it has been removed, and the document is parsed again at the next call`,
  );
  assert.deepEqual(entries(dir), []);
  await loadBindable({ path: FIXTURE }, dir);
  assert.equal(entries(dir).length, 1);
});

test(`the cache keeps the ${KEPT_DOCUMENTS} documents used last`, async () => {
  const dir = join(tempDir("hcp-doc-cache-"), "documents");
  const base = JSON.parse(readFileSync(FIXTURE, "utf8"));
  const docs = join(tempDir("hcp-doc-cache-"));
  const paths = Array.from({ length: KEPT_DOCUMENTS + 1 }, (_, i) => {
    const path = join(docs, `doc-${i}.json`);
    writeFileSync(path, JSON.stringify({ ...base, info: { ...base.info, version: String(i) } }));
    return path;
  });
  for (const [i, path] of paths.slice(0, KEPT_DOCUMENTS).entries()) {
    await loadBindable({ path }, dir);
    // Kept in this order, a second apart: the first is the oldest.
    const at = new Date(Date.now() - (KEPT_DOCUMENTS - i) * 1000);
    utimesSync(join(dir, entryName(path)), at, at);
  }
  // The first is used again (a cache hit): now the second is the least recently used.
  await loadBindable({ path: paths[0]! }, dir);
  await loadBindable({ path: paths[KEPT_DOCUMENTS]! }, dir);
  assert.deepEqual(entries(dir).sort(), paths.filter((_, i) => i !== 1).map(entryName).sort());
});

test("a pattern hcp refuses fails the pack whether its document is parsed or taken from the cache", async () => {
  const root = tempDir("hcp-doc-cache-pack-");
  const stateDir = tempDir("hcp-doc-cache-state-");
  const doc = {
    openapi: "3.0.3",
    info: { title: "users", version: "1" },
    paths: {
      "/users/{name}": { get: { operationId: "users.get", parameters: [{ name: "name", in: "path", required: true, schema: { type: "string", pattern: "^(?=[^@]+@).+$" } }], responses: { "200": { description: "ok" } } } },
      "/users": { get: { operationId: "users.list", responses: { "200": { description: "ok" } } } },
    },
  };
  writeFileSync(join(root, "api.json"), JSON.stringify(doc));
  writeFileSync(join(root, "surface.json"), JSON.stringify({ id: "users", kind: "openapi", openapi: { path: "api.json" }, binding: { mode: "public", hub: "none" }, verbs: { "users.get": { description: "One." }, "users.list": { description: "All." } } }));
  writeFileSync(join(root, "policy.json"), JSON.stringify({ surface_id: "users" }));
  writeFileSync(join(root, "HARNESS.md"), "---\nname: users\ndescription: The users API.\n---\n\nThe users API.\n");
  const issues = [];
  for (let i = 0; i < 2; i++) {
    const pack = loadPack(root);
    await loadOpenApiDocuments([pack], { fetch: "command-line" }, stateDir);
    assert.equal(pack.ok, false);
    issues.push(pack.issues.filter((x) => x.path === 'verbs["users.get"]').map((x) => `${x.code}: ${x.message}`));
  }
  assert.equal(entries(join(stateDir, "documents")).length, 1, "the second load read the cache");
  assert.deepEqual(issues[1], issues[0]);
  assert.match(issues[0]![0]!, /^invalid_meta: the arguments the OpenAPI document gives it, at args\.properties\.name\.pattern: pattern "\^\(\?=\[\^@\]\+@\)\.\+\$" cannot be matched in linear time/);
  // A verb that takes its own arguments does not take the document's: the pack loads, from the cache too.
  const surface = JSON.parse(readFileSync(join(root, "surface.json"), "utf8"));
  surface.verbs["users.get"].args = { type: "object", properties: { name: { type: "string" } }, required: ["name"] };
  writeFileSync(join(root, "surface.json"), JSON.stringify(surface));
  const pack = loadPack(root);
  await loadOpenApiDocuments([pack], { fetch: "command-line" }, stateDir);
  assert.equal(pack.ok, true, JSON.stringify(pack.issues));
  assert.equal(boundVerb(pack, "users.list").operation.path, "/users");
});

test("a document whose operations share schemas too large to write apart is kept with them together, each shared schema written once, and read back as parsing made it", async () => {
  // 150 operations each taking a 500 KB schema: 75 MB written apart (past EACH_MAX_BYTES), under 1 MB together.
  const properties = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`field${i}`, { type: "string", description: `The field numbered ${i}, described at some length.` }]));
  const paths = Object.fromEntries(
    Array.from({ length: 150 }, (_, i) => [`/things${i}`, { post: { operationId: `make${i}`, requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } } }, responses: { "200": { description: "ok" } } } }]),
  );
  const doc = join(tempDir("hcp-doc-cache-"), "big.json");
  writeFileSync(doc, JSON.stringify({ openapi: "3.0.3", info: { title: "big", version: "1" }, paths, components: { schemas: { Thing: { type: "object", properties } } } }));
  const dir = join(tempDir("hcp-doc-cache-"), "documents");
  const parsed = contents(await loadBindable({ path: doc }, dir));
  const kept = statSync(join(dir, entryName(doc))).size;
  assert.ok(kept < 2 * 2 ** 20, `kept together: ${kept} bytes`);
  const apart = parsed.operations.reduce((sum, e) => sum + serialize(e.operation).length, 0);
  assert.ok(apart > EACH_MAX_BYTES, `written apart it passes the bound: ${apart} bytes`);
  const cached = await loadBindable({ path: doc }, dir);
  assert.equal(cached.operations[149]!.operation().path, "/things149");
  assert.deepEqual(contents(cached), parsed);
});
