// The agent writes a pack and hcp run's command line, without a terminal: an openapi pack whose document is fetched
// by `openapi.url` must not make hcp send a request of the agent's choosing (any https host, any loopback port and
// path: a probe of local services, data in the URL) before a person trusted the pack. Spawns the built hcp against a
// loopback server that records every request it receives.

import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { asAgentInThisFile, trustPack } from "./helpers.js";
import { scene } from "./trust-support.js";
import { hcp } from "../transports/support.js";

asAgentInThisFile();

/** A loopback server answering an OpenAPI document at /doc.json (its server itself) and `[]` elsewhere; it records each path asked. */
async function api(): Promise<{ origin: string; asked: string[]; close: () => void }> {
  const asked: string[] = [];
  let origin = "";
  const s = createServer((req, res) => {
    asked.push(req.url ?? "");
    res.setHeader("content-type", "application/json");
    if (!(req.url ?? "").startsWith("/doc.json")) return res.end("[]");
    res.end(
      JSON.stringify({
        openapi: "3.0.3",
        info: { title: "notes", version: "1" },
        servers: [{ url: origin }],
        paths: { "/notes": { get: { operationId: "notes.list", responses: { "200": { description: "ok" } } } } },
      }),
    );
  });
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  return { origin, asked, close: () => s.close() };
}

/** The agent's surface.json: an openapi pack fetching its document from `url`, reading no credential. */
const surface = (url: string) => JSON.stringify({ id: "remote", kind: "openapi", openapi: { url }, binding: { mode: "local", hub: "none" }, verbs: { "notes.list": { description: "List." } } });

/** The agent's pack in its workspace, fetching its document from the loopback server with data in the URL. */
function agentPack(ws: string, origin: string): string {
  const root = join(ws, "remote");
  mkdirSync(root);
  writeFileSync(join(root, "surface.json"), surface(`${origin}/doc.json?data=exfiltrated`));
  writeFileSync(join(root, "policy.json"), JSON.stringify({ surface_id: "remote", default: "read" }));
  return root;
}

test("hcp run of an agent-written openapi pack fetched by openapi.url sends no request before a person trusted it (verb, --json, dry run; a trusted pack edited); trusted, it runs", async () => {
  const s = scene();
  const server = await api();
  try {
    const root = agentPack(s.ws, server.origin);
    for (const args of [["run", root, "notes.list"], ["run", root, "notes.list", "--json"], ["run", root, "notes.list", "--dry-run", "--json"]]) {
      const r = await s.hcp(args);
      assert.equal(r.code, 4, `${args.join(" ")}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /a person has never trusted it/);
      assert.match(r.stderr, /hcp trust /);
    }
    assert.deepEqual(server.asked, [], "no request was sent for a pack nobody trusted");

    // A person trusts it (which fetches the document they review); then it runs, and fetches it again.
    await trustPack(root, s.env);
    const trusted = server.asked.length;
    const ok = await s.hcp(["run", root, "notes.list"]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.deepEqual(server.asked.slice(trusted), ["/doc.json?data=exfiltrated", "/notes"]);

    // The agent edits the trusted surface.json to fetch another URL: refused before anything is fetched.
    writeFileSync(join(root, "surface.json"), surface(`${server.origin}/doc.json?data=more`));
    const before = server.asked.length;
    const edited = await s.hcp(["run", root, "notes.list"]);
    assert.equal(edited.code, 4, edited.stderr);
    assert.match(edited.stderr, /it changed since a person trusted it \(surface\.json\)/);
    assert.deepEqual(server.asked.slice(before), [], "no request for the edited pack");
  } finally {
    server.close();
  }
});

test("the pack commands an agent can run alone (describe, run VERB --help, validate, list, trust --list, mcp-config) never fetch the document of an openapi pack nobody trusted, nor of a trusted one edited; each says why; trusted, they fetch it", async () => {
  const s = scene();
  const server = await api();
  try {
    const root = agentPack(s.ws, server.origin);
    const untrusted = async (why: RegExp) => {
      const describe = await s.hcp(["describe", root]);
      assert.equal(describe.code, 4, `describe: ${describe.stdout}${describe.stderr}`);
      assert.match(describe.stderr, why);
      assert.match(describe.stderr, /its OpenAPI document was not fetched/);
      // A verb's help reads the pack as describe does.
      const help = await s.hcp(["run", root, "notes.list", "--help"]);
      assert.deepEqual([help.code, help.stdout], [4, ""], `run --help: ${help.stderr}`);
      assert.match(help.stderr, why);
      assert.match(help.stderr, /its OpenAPI document was not fetched/);
      for (const args of [["validate", root], ["validate", s.ws]]) {
        const validate = await s.hcp(args);
        assert.equal(validate.code, 1, `${args.join(" ")}: ${validate.stdout}${validate.stderr}`);
        assert.match(validate.stdout, /openapi\.url: io: the OpenAPI document was not fetched: /);
        assert.match(validate.stdout, why);
        assert.match(validate.stdout, /hcp trust /);
      }
      const list = await s.hcp(["list", s.ws]);
      assert.notEqual(list.code, 0, list.stdout);
      assert.match(list.stderr, /the OpenAPI document was not fetched/);
      // Printing a client's configuration is no person's decision to serve the pack.
      const config = await s.hcp(["mcp-config", root]);
      assert.notEqual(config.code, 0, config.stdout);
      assert.match(config.stderr, /the OpenAPI document was not fetched/);
      assert.match(config.stderr, why);
    };
    await untrusted(/a person has never trusted it/);
    assert.deepEqual(server.asked, [], "no request was sent for a pack nobody trusted");

    // Trusted (a person reviews the document, fetched for them), the same commands fetch it.
    await trustPack(root, s.env);
    let seen = server.asked.length;
    const describe = await s.hcp(["describe", root]);
    assert.equal(describe.code, 0, describe.stderr);
    assert.match(describe.stdout, /notes\.list/);
    const help = await s.hcp(["run", root, "notes.list", "--help"]);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /^notes\.list \(read\)/m);
    assert.equal((await s.hcp(["validate", root])).code, 0);
    assert.match((await s.hcp(["trust", "--list"])).stdout, /matches/);
    assert.equal((await s.hcp(["mcp-config", root])).code, 0);
    assert.deepEqual(new Set(server.asked.slice(seen)), new Set(["/doc.json?data=exfiltrated"]));

    // The agent edits the trusted surface.json to fetch another URL: nothing is fetched, and --list says why.
    writeFileSync(join(root, "surface.json"), surface(`${server.origin}/doc.json?data=more`));
    seen = server.asked.length;
    await untrusted(/it changed since a person trusted it \(surface\.json\)/);
    const listed = JSON.parse((await s.hcp(["trust", "--list", "--json"])).stdout) as { packs: { matches: boolean; why?: string }[] };
    assert.deepEqual(
      listed.packs.map((p) => [p.matches, p.why]),
      [[false, "it changed since a person trusted it (surface.json)"]],
    );
    assert.deepEqual(server.asked.slice(seen), [], "no request for the edited pack");
  } finally {
    server.close();
  }
});

test("under the operator's HCP_NO_PROMPT, hcp exec and hcp serve run by the agent on an openapi pack it wrote send no request (its openapi.url carries data out): refused before fetching; trusted, the document is fetched", async () => {
  const s = scene();
  const server = await api();
  try {
    const root = agentPack(s.ws, server.origin);
    const env = { ...s.env, HCP_NO_PROMPT: "1" };
    const exec = await hcp(["exec", root], { env, stdin: "" });
    const serve = await hcp(["serve", "--mcp", root], { env, stdin: "" });
    for (const r of [exec, serve]) {
      assert.notEqual(r.code, 0, r.stderr);
      assert.match(r.stderr, /remote/);
    }
    assert.deepEqual(server.asked, [], "no request was sent for a pack nobody trusted");
    await trustPack(root, s.env);
    const trusted = server.asked.length;
    const ok = await hcp(["exec", root], { env, stdin: JSON.stringify({ id: 1, pack: "remote", verb: "notes.list", args: {} }) + "\n" });
    assert.equal(ok.code, 0, ok.stderr);
    assert.deepEqual(server.asked.slice(trusted), ["/doc.json?data=exfiltrated", "/notes"]);
  } finally {
    server.close();
  }
});
