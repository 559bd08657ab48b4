// `hcp init --from-openapi` (§11): a pack generated from a document (a file or a URL) validates and runs against the real API.

import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { hcp, tempDir } from "../transports/support.js";
import { fixture, trustPack } from "./helpers.js";
import { notesApi, type Api } from "./notes-api.js";
import { isolatedEnv } from "./openapi-support.js";

let api: Api;
before(async () => {
  api = await notesApi();
});
after(() => api.close());

const HANG_GUARD = { timeoutMs: 60_000 };

test("a pack from an OpenAPI file: one verb per operation, policy by method, binding from the security schemes; it runs", async () => {
  const out = join(tempDir("hcp-init-openapi-"), "notes");
  const env = isolatedEnv({ notes: { openapi: { bearerAuth: "tok-init-0123456789" } } });
  const r = await hcp(["init", "--from-openapi", fixture("openapi/notes.yaml"), "--out", out], { env, ...HANG_GUARD });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(readdirSync(out).sort(), ["HARNESS.md", "openapi.yaml", "policy.json", "surface.json"]);
  assert.equal(readFileSync(join(out, "openapi.yaml"), "utf8"), readFileSync(fixture("openapi/notes.yaml"), "utf8"), "the document is copied as is");
  const surface = JSON.parse(readFileSync(join(out, "surface.json"), "utf8"));
  const policy = JSON.parse(readFileSync(join(out, "policy.json"), "utf8"));
  assert.equal(surface.kind, "openapi");
  assert.deepEqual(surface.binding, { mode: "user", hub: "local-credential", family: "notes" });
  assert.equal(Object.keys(surface.verbs).length, 13);
  // An operationId that is not a verb key (getNote) becomes one, bound by method and path.
  assert.deepEqual(surface.verbs["get-note"].cli, ["GET", "/notes/{id}"]);
  assert.equal(surface.verbs["notes.list"].cli, undefined);
  assert.equal(policy.verbs["notes.list"], "read");
  assert.equal(policy.verbs["notes.create"], "write");
  assert.deepEqual(policy.verbs["notes.delete"], { policy: "write", confirm: true });
  assert.deepEqual(policy.credentials, ["bearerAuth", "apiKeyQuery", "basicAuth"]);
  const harness = readFileSync(join(out, "HARNESS.md"), "utf8");
  assert.match(harness, /hcp credentials set notes bearerAuth --scheme/);
  assert.match(harness, /### `notes\.delete` \(write, needs a person's approval, needs credentials\)/);
  assert.match(harness, /`limit` \(integer, optional\): At most this many notes\./);
  assert.doesNotMatch(harness, /program|shell instead/);

  const v = await hcp(["validate", out], { env, ...HANG_GUARD });
  assert.equal(v.code, 0, v.stdout);
  // The document's server is a placeholder port: point the pack at the running API, then use it.
  writeFileSync(join(out, "policy.json"), JSON.stringify({ ...policy, openapi: { base_url: `${api.origin}/v1` } }));
  await trustPack(out, env);
  const one = await hcp(["run", out, "get-note", "--arg", "id=n1"], { env, ...HANG_GUARD });
  assert.equal(one.code, 0, one.stderr);
  assert.deepEqual(JSON.parse(one.stdout), { id: "n1", text: "first note" });
  assert.equal(api.requests.at(-1)?.headers.authorization, "Bearer tok-init-0123456789");
  const del = await hcp(["run", out, "notes.delete", "--arg", "id=n1", "--allow-write", "--no-prompt", "--json"], { env, ...HANG_GUARD });
  assert.equal(del.code, 4, "DELETE is confirm-gated");

  // Not over a pack already there, unless --force.
  const again = await hcp(["init", "--from-openapi", fixture("openapi/notes.json"), "--out", out], { env, ...HANG_GUARD });
  assert.equal(again.code, 2, "already exists: exit 2, as in rungrad");
  assert.match(again.stderr, /not empty/);
});

test("a pack from an OpenAPI URL; Swagger 2.0 and an unreachable URL are refused and nothing is written", async () => {
  const text = readFileSync(fixture("openapi/notes.json"), "utf8");
  const docServer = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(text);
  });
  await new Promise<void>((resolve) => docServer.listen(0, "127.0.0.1", resolve));
  const port = (docServer.address() as { port: number }).port;
  const env = isolatedEnv();
  try {
    const out = join(tempDir("hcp-init-openapi-"), "from-url");
    const r = await hcp(["init", "--from-openapi", `http://127.0.0.1:${port}/notes.json`, "--out", out, "--json"], { env, ...HANG_GUARD });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).pack_id, "notes");
    assert.ok(existsSync(join(out, "openapi.json")));
    assert.equal((await hcp(["validate", out], { env, ...HANG_GUARD })).code, 0);
  } finally {
    docServer.close();
  }
  const swagger = join(tempDir("hcp-init-openapi-"), "swagger");
  const s = await hcp(["init", "--from-openapi", fixture("openapi/swagger.json"), "--out", swagger], { env, ...HANG_GUARD });
  assert.equal(s.code, 1);
  assert.match(s.stderr, /Swagger "2\.0": hcp runs OpenAPI 3\.0 and 3\.1 documents only/);
  assert.equal(existsSync(swagger), false);
  const gone = join(tempDir("hcp-init-openapi-"), "gone");
  const u = await hcp(["init", "--from-openapi", `http://127.0.0.1:${port}/notes.json`, "--out", gone], { env, ...HANG_GUARD });
  assert.equal(u.code, 2);
  assert.match(u.stderr, /cannot fetch the OpenAPI document/);
  assert.equal(existsSync(gone), false);
});
