// Red team: a redirect re-sending a write. A person approves (or policy allows) a write to one URL; the API's
// own origin answers 307 or 308, which a client following redirects re-sends with the method, the body and the
// credentials to another path. The recording server counts what arrives: exactly one request per write.

import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { toolPlanIdOf } from "./approvals-support.js";
import { DOC, VERBS, hostileApi, hostileEnv, type Hostile } from "./hcp-redteam-http-support.js";
import { openapiPack } from "./openapi-support.js";
import { execSession, hcp, mcpClient } from "../transports/support.js";
import { trustPack } from "./helpers.js";

const GUARD = { timeoutMs: 60_000 };
let api: Hostile;
before(async () => (api = await hostileApi()));
after(() => api.close());

const str = { type: "string" };
const q = (name: string) => ({ name, in: "query", schema: str });
const answered = { "200": { description: "Done." } };
const body = { required: true, content: { "application/json": { schema: { type: "object", properties: { text: str } } } } };
/** The hostile API's /redirect (it answers `status` with Location `to`, whatever the method) as a write of each kind. */
const WRITES = {
  "redirect.post": { post: { operationId: "redirect.post", parameters: [q("status"), q("to")], requestBody: body, responses: answered } },
  "redirect.put": { put: { operationId: "redirect.put", parameters: [q("status"), q("to")], requestBody: body, responses: answered } },
  "redirect.delete": { delete: { operationId: "redirect.delete", parameters: [q("status"), q("to")], responses: answered } },
};

/** The hostile pack with the writes above; `redirect.post` is plan-checked, the others allowed with --allow-write. */
function writesPack(): string {
  const doc = structuredClone(DOC) as { paths: Record<string, Record<string, unknown>> };
  doc.paths["/redirect"] = { ...doc.paths["/redirect"], ...WRITES["redirect.post"], ...WRITES["redirect.put"], ...WRITES["redirect.delete"] };
  const verbs = { ...VERBS, ...Object.fromEntries(Object.keys(WRITES).map((k) => [k, { description: `The ${k} operation.` }])) };
  const policy = { openapi: { base_url: `${api.origin}/v1` }, verbs: { "redirect.post": { policy: "write", confirm: "plan" }, "redirect.put": "write", "redirect.delete": "write", redirect: "read" } };
  const dir = openapiPack({ ref: { path: "api.json" }, verbs, policy });
  writeFileSync(`${dir}/api.json`, JSON.stringify(doc, null, 2));
  return dir;
}

/** The requests the API received while `fn` ran. */
async function received<T>(fn: () => Promise<T>): Promise<{ got: Hostile["requests"]; value: T }> {
  const from = api.requests.length;
  const value = await fn();
  return { got: api.requests.slice(from), value };
}

interface Answer {
  status: number;
  ok: boolean;
  headers: Record<string, string>;
  request: { method: string; url: string };
}

test("an allowed PUT or DELETE answered 307 or 308 is sent once: the redirect is the answer (status, Location, exit 2), nothing is re-sent to the other path", async () => {
  const pack = writesPack();
  const env = hostileEnv();
  await trustPack(pack, env);
  for (const status of [307, 308]) {
    for (const [verb, method] of [["redirect.put", "PUT"], ["redirect.delete", "DELETE"]] as const) {
      const args = { status: String(status), to: "/v1/items/other", ...(method === "PUT" ? { body: { text: "pay 100" } } : {}) };
      const { got, value: r } = await received(() => hcp(["run", pack, verb, "--args", JSON.stringify(args), "--allow-write", "--json"], { env, ...GUARD }));
      assert.deepEqual(
        got.map((g) => `${g.method} ${g.url.replace(/[?&]api_key=[^&]*/, "")}`),
        [`${method} /v1/redirect?status=${status}&to=%2Fv1%2Fitems%2Fother`],
        `${method} answered ${status}: exactly one request`,
      );
      assert.equal(r.code, 2, r.stderr);
      const result = JSON.parse(r.stdout) as Answer;
      assert.deepEqual([result.status, result.ok, result.headers["location"], result.request.method], [status, false, "/v1/items/other", method]);
    }
  }
  // Over exec too; and a 303 or 302 does not turn the write into a GET of another path either.
  const lines = [303, 302, 308].map((status) => JSON.stringify({ id: String(status), pack: "notes", verb: "redirect.delete", args: { status: String(status), to: "/v1/items/other" } }));
  const { got, value: s } = await received(() => execSession([pack], lines, ["--allow-write"], { env, ...GUARD }));
  assert.equal(s.code, 0, s.stderr);
  assert.deepEqual(got.map((g) => g.method), ["DELETE", "DELETE", "DELETE"]);
  assert.deepEqual(s.responses.map((r) => r.result?.["status"]), [303, 302, 308]);
});

test("an approved POST (plan_id over MCP and hcp run) answered 307 or 308 sends exactly one request; a GET still follows a same-origin redirect", async () => {
  const pack = writesPack();
  const env = hostileEnv();
  await trustPack(pack, env);
  const { client } = await mcpClient([pack], { env, allowWrite: true });
  try {
    for (const status of ["307", "308"]) {
      const args = { status, to: "/v1/items", body: { text: "pay 100" } };
      const id = toolPlanIdOf(await client.callTool({ name: "notes_redirect_post", arguments: { ...args, dry_run: true } }));
      const { got, value: call } = await received(() => client.callTool({ name: "notes_redirect_post", arguments: { ...args, confirm: id } }));
      assert.equal(got.length, 1, `the approved POST answered ${status} was sent ${got.length} times`);
      assert.equal(got[0]?.method, "POST");
      assert.equal((call.structuredContent as Answer).status, Number(status));
    }
  } finally {
    await client.close();
  }
  const args = JSON.stringify({ status: "308", to: "/v1/items", body: { text: "pay 100" } });
  const dry = await hcp(["run", pack, "redirect.post", "--args", args, "--dry-run", "--json"], { env, ...GUARD });
  const id = (JSON.parse(dry.stdout) as { plan_id: string }).plan_id;
  const { got, value: r } = await received(() => hcp(["run", pack, "redirect.post", "--args", args, "--allow-write", "--confirm", id, "--json"], { env, ...GUARD }));
  assert.equal(r.code, 2, r.stderr);
  assert.equal(got.length, 1);
  // A read keeps following within the origin.
  const { got: read } = await received(() => hcp(["run", pack, "redirect", "--arg", "status=307", "--arg", "to=/v1/items/n1", "--json"], { env, ...GUARD }));
  assert.deepEqual(read.map((g) => `${g.method} ${new URL(g.url, "http://x").pathname}`), ["GET /v1/redirect", "GET /v1/items/n1"]);
});
