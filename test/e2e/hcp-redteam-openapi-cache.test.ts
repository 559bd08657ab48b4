// hcp run keeps the OpenAPI documents it parses in the state directory (document-cache.ts), by the digest of their
// text. Against the built hcp and real loopback servers: what the agent writes in the pack after a run has cached its
// document is read as it is now, and refused as an edit of a trusted pack is; a cache that cannot be written fails nothing.

import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { hcp } from "../transports/support.js";
import { asAgentInThisFile, fixture, trustPack } from "./helpers.js";
import { notesApi, recorder, type Api } from "./notes-api.js";
import { isolatedEnv, openapiPack } from "./openapi-support.js";

asAgentInThisFile();

let api: Api;
let agents: Api;

before(async () => {
  agents = await recorder();
  api = await notesApi(agents.origin);
});
after(async () => {
  await api.close();
  await agents.close();
});

const HANG_GUARD = { timeoutMs: 60_000 };
const TOKEN = "tok-cached-d0cument-t0ken";

/** The notes pack, its document's first server the given origin (no base URL in policy.json: the document's is used). */
function packServedAt(origin: string): string {
  const pack = openapiPack({ doc: "notes.json", verbs: { "notes.list": { description: "List notes." } } });
  writeDocumentServer(pack, origin);
  return pack;
}

function writeDocumentServer(pack: string, origin: string): void {
  const doc = JSON.parse(readFileSync(fixture("openapi/notes.json"), "utf8"));
  doc.servers = [{ url: `${origin}/v1` }];
  writeFileSync(join(pack, "notes.json"), JSON.stringify(doc, null, 2));
}

test("the agent rewrites a trusted pack's document after a run cached it (its server the agent's): hcp run refuses it (exit 4) and nothing reaches either server; the trusted text runs from the cache", async () => {
  const env = isolatedEnv({ notes: { openapi: { bearerAuth: TOKEN } } });
  const pack = packServedAt(api.origin);
  await trustPack(pack, env);
  const first = await hcp(["run", pack, "notes.list", "--json"], { env, ...HANG_GUARD });
  assert.equal(first.code, 0, first.stderr);
  const documents = join(env["XDG_STATE_HOME"]!, "hcp", "documents");
  assert.equal(readdirSync(documents).length, 1, "the run kept its parsed document");
  assert.equal(statSync(join(documents, readdirSync(documents)[0]!)).mode & 0o777, 0o600);

  const sent = { api: api.requests.length, agents: agents.requests.length };
  writeDocumentServer(pack, agents.origin);
  const r = await hcp(["run", pack, "notes.list", "--json"], { env, ...HANG_GUARD });
  assert.equal(r.code, 4, r.stdout + r.stderr);
  assert.equal(r.stdout, "", "nothing ran");
  const refusal = JSON.parse(r.stderr);
  assert.equal(refusal.code, "pack_untrusted");
  assert.match(refusal.error, /changed since a person trusted it \(its OpenAPI document\)/);
  assert.equal(agents.requests.length, sent.agents, "the agent's server got nothing");
  assert.equal(api.requests.length, sent.api);

  // Put back as trusted: it runs again, from the cache, to the trusted server, with the credential.
  writeDocumentServer(pack, api.origin);
  const again = await hcp(["run", pack, "notes.list", "--json"], { env, ...HANG_GUARD });
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(JSON.parse(again.stdout).json, JSON.parse(first.stdout).json);
  assert.equal(api.requests.at(-1)?.headers.authorization, `Bearer ${TOKEN}`);
  assert.equal(agents.requests.length, sent.agents);
});

test("a cache that cannot be written (its folder is a file) fails no run: the document is parsed each time", async () => {
  const env = isolatedEnv({ notes: { openapi: { bearerAuth: TOKEN } } });
  const pack = packServedAt(api.origin);
  await trustPack(pack, env);
  const documents = join(env["XDG_STATE_HOME"]!, "hcp", "documents");
  writeFileSync(documents, "not a folder");
  for (let i = 0; i < 2; i++) {
    const r = await hcp(["run", pack, "notes.list", "--json"], { env, ...HANG_GUARD });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).status, 200);
  }
  assert.equal(readFileSync(documents, "utf8"), "not a folder");
});
