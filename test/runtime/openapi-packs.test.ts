// The OpenAPI document loader is where hcp refuses to fetch the `openapi.url` an untrusted pack names (a request the
// pack's writer, maybe the agent, chose): each command names what allows fetching, and a caller that names nothing
// (a new command, a refactor) fetches nothing. Against a loopback server that records every request it receives.

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { loadPack } from "../../src/pack/load.js";
import type { LoadedPack } from "../../src/pack/types.js";
import { boundDocument, loadOpenApiDocuments, type DocumentFetch } from "../../src/runtime/openapi/packs.js";
import { trustPack } from "../../src/runtime/trust/trust.js";

/** A loopback server answering an OpenAPI document on every path; it records each path asked. */
async function documentServer(): Promise<{ origin: string; asked: string[]; close: () => void }> {
  const asked: string[] = [];
  const s = createServer((req, res) => {
    asked.push(req.url ?? "");
    res.setHeader("content-type", "application/json");
    res.end(
      JSON.stringify({
        openapi: "3.0.3",
        info: { title: "notes", version: "1" },
        servers: [{ url: "https://api.example.com" }],
        paths: { "/notes": { get: { operationId: "notes.list", responses: { "200": { description: "ok" } } } } },
      }),
    );
  });
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, asked, close: () => s.close() };
}

/** Writes an openapi pack fetching its document from `url` (reading no credential) into `root`. */
function writePack(root: string, url: string): void {
  writeFileSync(join(root, "surface.json"), JSON.stringify({ id: "remote", kind: "openapi", openapi: { url }, binding: { mode: "local", hub: "none" }, verbs: { "notes.list": { description: "List." } } }));
  writeFileSync(join(root, "policy.json"), JSON.stringify({ surface_id: "remote", default: "read" }));
}

/** The issue the loader records at `openapi.url`, if any. */
const urlIssue = (pack: LoadedPack) => pack.issues.find((i) => i.path === "openapi.url");

test("the OpenAPI loader fetches a pack's openapi.url only when its caller names a permission: named none, or trusted-only for a pack nobody trusted (or edited since), no request is sent and the io issue says why; command-line and a trusted pack fetch it", async () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "hcp-openapi-packs-")));
  const stateDir = join(dir, "state");
  const root = join(dir, "remote");
  mkdirSync(stateDir, { mode: 0o700 });
  mkdirSync(root);
  const server = await documentServer();
  try {
    writePack(root, `${server.origin}/doc.json?data=exfiltrated`);
    // A caller the compiler did not check (the parameter is required): no permission, or one without its state directory.
    for (const forgot of [undefined, { fetch: "trusted-only" }] as unknown as DocumentFetch[]) {
      const pack = loadPack(root);
      await loadOpenApiDocuments([pack], forgot);
      assert.equal(pack.ok, false, JSON.stringify(forgot));
      assert.equal(urlIssue(pack)?.code, "io");
      assert.match(urlIssue(pack)?.message ?? "", /the OpenAPI document was not fetched: the command that loaded it did not say that it may be fetched/);
    }
    const untrusted = loadPack(root);
    await loadOpenApiDocuments([untrusted], { fetch: "trusted-only", stateDir });
    assert.equal(untrusted.ok, false);
    assert.equal(urlIssue(untrusted)?.code, "io");
    assert.match(urlIssue(untrusted)?.message ?? "", /the OpenAPI document was not fetched: a person has never trusted it.*hcp trust /);
    assert.deepEqual(server.asked, [], "no request without a permission, nor for a pack nobody trusted");

    // A person's command line (hcp serve, hcp exec, hcp trust at a terminal): fetched, and the person trusts it.
    const reviewed = loadPack(root);
    await loadOpenApiDocuments([reviewed], { fetch: "command-line" });
    assert.equal(reviewed.ok, true, JSON.stringify(reviewed.issues));
    assert.notEqual(boundDocument(reviewed), undefined);
    assert.deepEqual(server.asked, ["/doc.json?data=exfiltrated"]);
    trustPack(reviewed, stateDir);
    const trusted = loadPack(root);
    await loadOpenApiDocuments([trusted], { fetch: "trusted-only", stateDir });
    assert.equal(trusted.ok, true, JSON.stringify(trusted.issues));
    assert.deepEqual(server.asked, ["/doc.json?data=exfiltrated", "/doc.json?data=exfiltrated"]);

    // Edited since it was trusted (another URL): not fetched again.
    writePack(root, `${server.origin}/doc.json?data=more`);
    const edited = loadPack(root);
    await loadOpenApiDocuments([edited], { fetch: "trusted-only", stateDir });
    assert.equal(edited.ok, false);
    assert.match(urlIssue(edited)?.message ?? "", /it changed since a person trusted it \(surface\.json\)/);
    assert.equal(server.asked.length, 2, "no request for the edited pack");
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
