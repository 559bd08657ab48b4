// openapi verbs end to end (§6.7): the built hcp against a real loopback API, from a 3.0 YAML and a 3.1 JSON document.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { execSession, hcp, mcpClient, tempDir } from "../transports/support.js";
import { fixture, trustPack } from "./helpers.js";
import { notesApi, recorder, type Api } from "./notes-api.js";
import { closedPort, isolatedEnv, openapiPack } from "./openapi-support.js";

const TOKEN = "tok-Sec4et-0f-the-notes";
let api: Api;
let elsewhere: Api;

before(async () => {
  elsewhere = await recorder();
  api = await notesApi(elsewhere.origin);
});
after(async () => {
  await api.close();
  await elsewhere.close();
});

const VERBS = {
  "notes.list": { description: "List notes." },
  "notes.get": { description: "One note.", cli: ["GET", "/notes/{id}"] },
  "notes.create": { description: "Create a note." },
  "notes.delete": { description: "Delete a note." },
  whoami: { description: "Who the server thinks we are." },
  limited: { description: "Always 429." },
  "bad-json": { description: "Declares JSON, sends HTML." },
  big: { description: "A body that never ends." },
  stall: { description: "An answer that never finishes." },
  away: { description: "Redirects to another origin." },
  here: { description: "Redirects within the origin." },
  keyed: { description: "API key in the query." },
  basic: { description: "Basic credentials." },
};

function notesPack(doc = "notes.yaml", policy: Record<string, unknown> = {}): string {
  return openapiPack({ doc, verbs: VERBS, policy: { openapi: { base_url: `${api.origin}/v1` }, ...policy } });
}

/** The requests the API received while `fn` ran. */
async function received(fn: () => Promise<unknown>): Promise<Api["requests"]> {
  const from = api.requests.length;
  await fn();
  return api.requests.slice(from);
}

const HANG_GUARD = { timeoutMs: 60_000 };


test("an openapi verb sends its request to a real server, from a 3.0 YAML and a 3.1 JSON document", async () => {
  for (const doc of ["notes.yaml", "notes.json"]) {
    const pack = notesPack(doc);
    const env = isolatedEnv();
    await trustPack(pack, env);
    let r;
    const got = await received(async () => (r = await hcp(["run", pack, "notes.list", "--arg", "limit:=1", "--json"], { env, ...HANG_GUARD })));
    assert.equal(r!.code, 0, r!.stderr);
    const result = JSON.parse(r!.stdout);
    assert.equal(result.status, 200);
    assert.equal(result.ok, true);
    assert.deepEqual(result.request, { method: "GET", url: `${api.origin}/v1/notes?limit=1` });
    assert.deepEqual(result.json, [{ id: "n1", text: "first note" }]);
    assert.deepEqual(got.map((g) => `${g.method} ${g.url}`), ["GET /v1/notes?limit=1"]);
    assert.match(got[0]!.headers["user-agent"] ?? "", /^hcp\/\d+\.\d+\.\d+/, "hcp names itself");
    // How the API pages and what it still allows reach the agent; other headers do not.
    assert.deepEqual(result.headers, { "content-type": "application/json", link: `<${api.origin}/v1/notes?page=2>; rel="next"`, "x-ratelimit-remaining": "4999" });
    // Without --json, the next page is said on stderr, after the body on stdout.
    const plain = await hcp(["run", pack, "notes.list", "--arg", "limit:=1"], { env, ...HANG_GUARD });
    assert.equal(plain.stdout, '[{"id":"n1","text":"first note"}]\n');
    assert.equal(plain.stderr, `Note: link: <${api.origin}/v1/notes?page=2>; rel="next"\n`);
    // The derived schema checks arguments before anything is sent: limit is an integer of at least 1.
    const bad = await received(async () => (r = await hcp(["run", pack, "notes.list", "--arg", "limit:=0"], { env, ...HANG_GUARD })));
    assert.equal(r!.code, 1);
    assert.match(r!.stderr, /invalid_args|limit/);
    // The schema is the document's, which may be stricter than the API: the agent is told who can loosen it.
    assert.match(r!.stderr, /\(the schema is the OpenAPI document's: if the API takes what was sent, a person can loosen it in this verb's args in surface\.json\)/);
    assert.equal(bad.length, 0);
    // A verb bound by cli: [METHOD, path]; its header parameter is sent.
    const one = await received(async () => (r = await hcp(["run", pack, "notes.get", "--arg", "id=n1", "--arg", "X-Trace=t-1"], { env, ...HANG_GUARD })));
    assert.equal(r!.code, 0, r!.stderr);
    assert.deepEqual(JSON.parse(r!.stdout), { id: "n1", text: "first note" });
    assert.equal(one[0]?.headers["x-trace"], "t-1");
  }
});

test("the exit code follows the status: 404 → 5, 401 → 3, 429 → 6, another origin's redirect → 2", async () => {
  const pack = notesPack();
  const env = isolatedEnv();
  await trustPack(pack, env);
  const cases: [string[], number][] = [
    [["notes.get", "--arg", "id=missing"], 5],
    [["whoami"], 3],
    [["limited"], 6],
    [["notes.list"], 0],
  ];
  for (const [args, code] of cases) {
    const r = await hcp(["run", pack, ...args], { env, ...HANG_GUARD });
    assert.equal(r.code, code, `${args.join(" ")}: ${r.stderr}`);
    const j = await hcp(["run", pack, ...args, "--json"], { env, ...HANG_GUARD });
    assert.equal(j.code, code);
  }
  const r = await hcp(["run", pack, "limited"], { env, ...HANG_GUARD });
  assert.match(r.stderr, /answered 429/);
  // A 401 to a request that went out with no credential says so, and who can store one: the agent could not tell.
  const anonymous = await hcp(["run", pack, "whoami"], { env, ...HANG_GUARD });
  assert.match(anonymous.stderr, /\nNote: hcp sent no credential: none is stored for its security scheme bearerAuth in family "notes"; a person stores one with: hcp credentials set notes bearerAuth --scheme\n/, anonymous.stderr);
  // The note is masked as all output is: a credential file value equal to a word of it shows as ***.
  const other = isolatedEnv({ notes: { env: {} }, other: { env: { OTHER_TOKEN: "bearerAuth" } } });
  await trustPack(pack, other);
  const masked = await hcp(["run", pack, "whoami"], { env: other, ...HANG_GUARD });
  assert.match(masked.stderr, /none is stored for its security scheme \*\*\* in family "notes"/, masked.stderr);
});

test("a path parameter stays one segment: '/' is encoded, '.' and '..' are refused, CR/LF never reach a header", async () => {
  const pack = notesPack();
  const env = isolatedEnv();
  await trustPack(pack, env);
  const got = await received(async () => {
    await hcp(["run", pack, "notes.get", "--arg", "id=../admin"], { env, ...HANG_GUARD });
    await hcp(["run", pack, "notes.get", "--arg", "id=a/b?c#d"], { env, ...HANG_GUARD });
  });
  assert.deepEqual(got.map((g) => g.url), ["/v1/notes/..%2Fadmin", "/v1/notes/a%2Fb%3Fc%23d"]);
  const refused = await received(async () => {
    for (const id of ["..", ".", ""]) {
      const r = await hcp(["run", pack, "notes.get", "--arg", `id=${id}`], { env, ...HANG_GUARD });
      assert.equal(r.code, 1, `id ${JSON.stringify(id)}: ${r.stderr}`);
    }
    const r = await hcp(["run", pack, "notes.get", "--args", JSON.stringify({ id: "n1", "X-Trace": "a\r\nX-Admin: yes" })], { env, ...HANG_GUARD });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /CR, LF or NUL/);
  });
  assert.equal(refused.length, 0, "nothing was sent");
});

test("a redirect to another origin is not followed: its target receives nothing, credentials included", async () => {
  const pack = notesPack();
  const env = isolatedEnv({ notes: { openapi: { bearerAuth: TOKEN } } });
  await trustPack(pack, env);
  const r = await hcp(["run", pack, "away", "--json"], { env, ...HANG_GUARD });
  assert.equal(r.code, 2);
  const result = JSON.parse(r.stdout);
  assert.equal(result.status, 302);
  assert.equal(result.headers.location, `${elsewhere.origin}/stolen`);
  assert.equal(elsewhere.requests.length, 0, "the other origin received nothing");
  // Within the origin a redirect is followed.
  const here = await hcp(["run", pack, "here", "--json"], { env, ...HANG_GUARD });
  assert.equal(here.code, 0, here.stderr);
  assert.equal(JSON.parse(here.stdout).status, 200);
});

test("credentials follow the security schemes and are masked, even echoed back, on run, exec and MCP", async () => {
  const pack = notesPack();
  const BASIC = "notes-user:Pa55-w0rd-basic";
  const KEY = "key/with+odd chars&=";
  const env = isolatedEnv({ notes: { openapi: { bearerAuth: TOKEN, basicAuth: BASIC, apiKeyQuery: KEY } } });
  await trustPack(pack, env);
  const outputs: string[] = [];
  const got = await received(async () => {
    for (const verb of ["whoami", "basic", "keyed"]) {
      for (const extra of [[], ["--json"]]) {
        const r = await hcp(["run", pack, verb, ...extra], { env, ...HANG_GUARD });
        assert.equal(r.code, 0, r.stderr);
        outputs.push(r.stdout, r.stderr);
      }
    }
    const exec = await execSession([pack], ["whoami", "basic", "keyed"].map((verb) => JSON.stringify({ id: verb, pack: "notes", verb, args: {} })), [], { env, ...HANG_GUARD });
    assert.equal(exec.responses.length, 3);
    assert.ok(exec.responses.every((x) => x.ok));
    outputs.push(exec.stdout, exec.stderr);
    const { client, stderr } = await mcpClient([pack], { env });
    try {
      for (const name of ["notes_whoami", "notes_basic", "notes_keyed"]) outputs.push(JSON.stringify(await client.callTool({ name, arguments: {} })));
    } finally {
      await client.close();
    }
    outputs.push(stderr());
  });
  // The server really received each credential in the form its scheme says.
  assert.ok(got.some((g) => g.headers.authorization === `Bearer ${TOKEN}`));
  assert.ok(got.some((g) => g.headers.authorization === `Basic ${Buffer.from(BASIC).toString("base64")}`));
  assert.ok(got.some((g) => new URL(g.url, "http://x").searchParams.get("api_key") === KEY));
  const all = outputs.join("\n");
  assert.ok(all.includes("***"));
  for (const form of [TOKEN, BASIC, Buffer.from(BASIC).toString("base64"), KEY, encodeURIComponent(KEY), new URLSearchParams({ k: KEY }).toString().slice(2)]) {
    assert.equal(all.includes(form), false, `${form} appears in an output`);
  }
});

test("policy and confirmation apply as to CLI verbs: writes need --allow-write, a gated verb its plan_id; dry runs send nothing", async () => {
  const pack = notesPack("notes.yaml", { verbs: { "notes.delete": { policy: "write", confirm: "plan" } } });
  const env = isolatedEnv();
  await trustPack(pack, env);
  const refused = await received(async () => {
    const w = await hcp(["run", pack, "notes.create", "--args", '{"body": {"text": "hi"}}', "--json"], { env, ...HANG_GUARD });
    assert.equal(w.code, 4);
    assert.match(w.stderr, /write_not_allowed/);
    const g = await hcp(["run", pack, "notes.delete", "--arg", "id=n1", "--allow-write", "--no-prompt", "--json"], { env, ...HANG_GUARD });
    assert.equal(g.code, 4);
    assert.match(g.stderr, /confirmation_required/);
  });
  assert.equal(refused.length, 0);
  let plan: { plan: Record<string, unknown>; plan_id: string } | undefined;
  const dry = await received(async () => {
    const d = await hcp(["run", pack, "notes.delete", "--arg", "id=n1", "--allow-write", "--dry-run", "--json"], { env, ...HANG_GUARD });
    assert.equal(d.code, 0, d.stderr);
    plan = JSON.parse(d.stdout);
    const text = await hcp(["run", pack, "notes.create", "--args", '{"body": {"text": "hi"}}', "--allow-write", "--dry-run"], { env, ...HANG_GUARD });
    assert.match(text.stdout, /request: POST http:\/\/127\.0\.0\.1:\d+\/v1\/notes\n {2}body: {4}\{"text":"hi"\}/);
  });
  assert.equal(dry.length, 0, "a dry run sends nothing");
  assert.equal(plan!.plan["method"], "DELETE");
  assert.equal(plan!.plan["url"], `${api.origin}/v1/notes/n1`);
  // The plan names the pack files it was made from, after the request, as a CLI verb's plan does.
  const sha256 = (file: string) => createHash("sha256").update(readFileSync(join(pack, file))).digest("hex");
  assert.deepEqual(Object.keys(plan!.plan).slice(-3), ["root", "surface_sha256", "policy_sha256"]);
  assert.deepEqual([plan!.plan["surface_sha256"], plan!.plan["policy_sha256"]], [sha256("surface.json"), sha256("policy.json")]);
  const sent = await received(async () => {
    const other = await hcp(["run", pack, "notes.delete", "--arg", "id=n2", "--allow-write", "--confirm", plan!.plan_id], { env, ...HANG_GUARD });
    assert.equal(other.code, 4, "the plan_id confirms only its own plan");
    const ok = await hcp(["run", pack, "notes.delete", "--arg", "id=n1", "--allow-write", "--confirm", plan!.plan_id], { env, ...HANG_GUARD });
    assert.equal(ok.code, 0, ok.stderr);
  });
  assert.deepEqual(sent.map((g) => `${g.method} ${g.url}`), ["DELETE /v1/notes/n1"]);
});

test("bad answers: a 2xx body that is not JSON though JSON is declared is invalid_response; an endless body stops at the cap", async () => {
  const pack = notesPack("notes.yaml", { verbs: { big: { policy: "read", max_output_bytes: 5000 } } });
  const env = isolatedEnv();
  await trustPack(pack, env);
  const bad = await hcp(["run", pack, "bad-json", "--json"], { env, ...HANG_GUARD });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /"code": "invalid_response"/);
  assert.match(bad.stderr, /not JSON/);
  const big = await hcp(["run", pack, "big", "--json"], { env, ...HANG_GUARD });
  assert.equal(big.timedOut, false);
  assert.equal(big.code, 0, big.stderr);
  const result = JSON.parse(big.stdout);
  assert.equal(result.body_truncated, true);
  assert.equal(Buffer.byteLength(result.body), 5000);
  const text = await hcp(["run", pack, "big"], { env, ...HANG_GUARD });
  assert.match(text.stderr, /body truncated/);
  // A deadline inside a body that never ends: what came is kept, the result says timed_out, exit 2, nothing hangs.
  const slow = notesPack("notes.yaml", { verbs: { stall: { policy: "read", timeout_ms: 500 } } });
  await trustPack(slow, env);
  const late = await hcp(["run", slow, "stall", "--json"], { env, ...HANG_GUARD });
  assert.equal(late.timedOut, false);
  assert.equal(late.code, 2);
  const stalled = JSON.parse(late.stdout);
  assert.deepEqual([stalled.timed_out, stalled.status, stalled.body], [true, 200, "partial\n"]);
});

test("pack validation: Swagger 2.0 refused, a verb without an operation is missing_verb, a broken document is io, an unreachable URL is io", async () => {
  const swagger = openapiPack({ doc: "swagger.json", verbs: { x: { description: "x" } } });
  const s = await hcp(["validate", swagger], { ...HANG_GUARD, env: isolatedEnv() });
  assert.equal(s.code, 1);
  assert.match(s.stdout, /surface\.json: openapi\.path: invalid_meta: the document .*swagger\.json is Swagger "2\.0": hcp runs OpenAPI 3\.0 and 3\.1 documents only/);
  const run = await hcp(["run", swagger, "x"], { ...HANG_GUARD, env: isolatedEnv() });
  assert.equal(run.code, 1);
  assert.match(run.stderr, /Swagger/);

  const missing = openapiPack({ doc: "notes.json", verbs: { "notes.list": { description: "ok" }, "notes.archive": { description: "no such operation" } } });
  const m = await hcp(["validate", missing], { ...HANG_GUARD, env: isolatedEnv() });
  assert.equal(m.code, 1);
  assert.match(m.stdout, /surface\.json: verbs\["notes\.archive"\]: missing_verb: the document has no operation with operationId "notes\.archive"/);

  const broken = openapiPack({ doc: "notes.yaml", verbs: { "notes.list": { description: "ok" } } });
  writeFileSync(`${broken}/notes.yaml`, "openapi: 3.0.3\npaths: {\n  /x: [\n");
  const b = await hcp(["validate", broken, "--json"], { ...HANG_GUARD, env: isolatedEnv() });
  assert.equal(b.code, 1);
  const issue = JSON.parse(b.stdout).packs[0].issues.find((i: { severity: string }) => i.severity === "error");
  assert.equal(issue.code, "io");
  assert.equal(issue.path, "openapi.path");
  assert.match(issue.message, /not valid YAML at line \d+, column \d+/);

  // A loopback port just closed: nothing listens, the connection is refused at once.
  const port = await closedPort();
  const unreachable = openapiPack({ ref: { url: `http://127.0.0.1:${port}/notes.json` }, verbs: { "notes.list": { description: "ok" } } });
  // hcp validate fetches no URL of a pack nobody trusted (hcp-redteam-fetch-before-trust); hcp exec, the person's, does.
  const u = await hcp(["validate", unreachable], { ...HANG_GUARD, env: isolatedEnv() });
  assert.equal(u.code, 1);
  assert.match(u.stdout, /openapi\.url: io: the OpenAPI document was not fetched: a person has never trusted it/);
  const served = await execSession([unreachable], [], [], { ...HANG_GUARD, env: isolatedEnv() });
  assert.notEqual(served.code, 0);
  assert.match(served.stderr, /io: cannot fetch the OpenAPI document http:\/\/127\.0\.0\.1:\d+\/notes\.json: .*ECONNREFUSED/);
});

test("an openapi document served by URL is loaded once and its verbs run; http to a host that is not loopback is refused", async () => {
  const { createServer } = await import("node:http");
  const text = readFileSync(fixture("openapi/notes.json"), "utf8");
  let fetched = 0;
  const docServer = createServer((_req, res) => {
    fetched++;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(text);
  });
  await new Promise<void>((resolve) => docServer.listen(0, "127.0.0.1", resolve));
  try {
    const port = (docServer.address() as { port: number }).port;
    const pack = openapiPack({ ref: { url: `http://127.0.0.1:${port}/notes.json` }, verbs: VERBS, policy: { openapi: { base_url: `${api.origin}/v1` } } });
    const env = isolatedEnv();
    const exec = await execSession([pack], ["notes.list", "limited"].map((verb) => JSON.stringify({ id: verb, pack: "notes", verb, args: {} })), [], { env, ...HANG_GUARD });
    assert.equal(fetched, 1, "fetched once, at load");
    assert.deepEqual(exec.responses.map((x) => [x.id, x.ok, x.result?.["status"]]), [["notes.list", true, 200], ["limited", true, 429]]);
  } finally {
    docServer.close();
  }
  const clear = openapiPack({ ref: { url: "http://example.invalid/notes.json" }, verbs: { "notes.list": { description: "ok" } } });
  const c = await hcp(["validate", clear], { ...HANG_GUARD, env: isolatedEnv() });
  assert.match(c.stdout, /the OpenAPI document URL http:\/\/example\.invalid\/notes\.json uses http: to a host that is not loopback; use https:/, "its path said too");
});

test("MCP: one tool per operation with the derived input schema and the §6.7 result as structuredContent", async () => {
  const pack = notesPack();
  const { client } = await mcpClient([pack], { env: isolatedEnv() });
  try {
    const { tools } = await client.listTools();
    const list = tools.find((t) => t.name === "notes_notes_list")!;
    assert.deepEqual((list.inputSchema.properties as Record<string, { type: unknown }>)["limit"]!.type, "integer");
    assert.deepEqual((list.inputSchema.properties as Record<string, { type: unknown }>)["tag"]!.type, ["string", "null"]);
    assert.equal(list.annotations?.readOnlyHint, true);
    assert.ok(list.outputSchema !== undefined, "an outputSchema");
    const create = tools.find((t) => t.name === "notes_notes_create")!;
    assert.deepEqual(create.inputSchema.required, ["body"]);
    const r = await client.callTool({ name: "notes_notes_list", arguments: { limit: 1 } });
    const result = r.structuredContent as { status: number; body?: string; json: unknown[] };
    assert.equal(result.status, 200);
    assert.ok(Array.isArray(result.json));
    assert.ok(!("body" in result), "the body goes once, as json: a client that gives the model structuredContent gave it twice");
    assert.equal((r.content as { text: string }[])[0]!.text, `${JSON.stringify(result.json)}\n[link: <${api.origin}/v1/notes?page=2>; rel="next"]`, "the agent reads the body as is, then how to get the next page");
    const nf = await client.callTool({ name: "notes_notes_get", arguments: { id: "nope" } });
    assert.equal(nf.isError, true);
    assert.match((nf.content as { text: string }[])[0]!.text, /answered 404/);
  } finally {
    await client.close();
  }
});

test("a $ref to another file or URL is never read: the document cannot make hcp open a file or send a request", async () => {
  const doc = JSON.parse(readFileSync(fixture("openapi/notes.json"), "utf8"));
  doc.paths["/notes"].get.parameters.push(
    { name: "stolen", in: "query", schema: { $ref: "file:///etc/passwd" } },
    { name: "fetched", in: "query", schema: { $ref: `${elsewhere.origin}/schema.json` } },
  );
  const pack = openapiPack({ doc: "notes.json", verbs: VERBS, policy: { openapi: { base_url: `${api.origin}/v1` } } });
  writeFileSync(`${pack}/notes.json`, JSON.stringify(doc));
  const v = await hcp(["validate", pack], { env: isolatedEnv(), ...HANG_GUARD });
  assert.equal(v.code, 0, v.stdout);
  const { client } = await mcpClient([pack], { env: isolatedEnv() });
  try {
    const { tools } = await client.listTools();
    const props = tools.find((t) => t.name === "notes_notes_list")!.inputSchema.properties as Record<string, unknown>;
    assert.deepEqual(props["stolen"], {}, "left as any value, never inlined");
    assert.deepEqual(props["fetched"], {});
  } finally {
    await client.close();
  }
  assert.equal(elsewhere.requests.length, 0, "no request for the $ref");
});

test("binding mode mock answers from the operation's examples, sends nothing and reads no credentials", async () => {
  const pack = openapiPack({
    doc: "notes.yaml",
    verbs: VERBS,
    binding: { mode: "mock", hub: "local-credential", family: "notes" },
    policy: { openapi: { base_url: `${api.origin}/v1` } },
  });
  // The credential file is unreadable (mode 0644): a real binding would be refused, mock never reads it.
  const env = isolatedEnv({ notes: { openapi: { bearerAuth: TOKEN } } });
  chmodSync(env["HCP_CREDENTIALS"]!, 0o644);
  const got = await received(async () => {
    const r = await hcp(["run", pack, "notes.list", "--json"], { env, ...HANG_GUARD });
    assert.equal(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout);
    assert.equal(result.mock, true);
    assert.equal(result.status, 200);
    assert.deepEqual(result.json, [{ id: "n1", text: "first note" }]);
    const created = await hcp(["run", pack, "notes.create", "--args", '{"body": {"text": "x"}}', "--allow-write", "--json"], { env, ...HANG_GUARD });
    assert.equal(created.code, 0, created.stderr);
    assert.deepEqual(JSON.parse(created.stdout).json, { id: "n9", text: "made up" });
    const { client } = await mcpClient([pack], { env });
    try {
      const { tools } = await client.listTools();
      assert.equal(tools.find((t) => t.name === "notes_notes_list")!.annotations?.openWorldHint, false);
      const call = await client.callTool({ name: "notes_notes_list", arguments: {} });
      assert.equal((call.structuredContent as { mock: boolean }).mock, true);
    } finally {
      await client.close();
    }
  });
  assert.equal(got.length, 0, "the API received nothing");
});

/** A Jira-like document on `servers`, whose one operation needs basic credentials. */
const jiraDoc = (servers: object[]) => ({
  openapi: "3.0.3",
  info: { title: "jira", version: "1" },
  servers,
  components: { securitySchemes: { basicAuth: { type: "http", scheme: "basic" } } },
  security: [{ basicAuth: [] }],
  paths: { "/issue/{key}": { get: { operationId: "get-issue", parameters: [{ name: "key", in: "path", required: true, schema: { type: "string" } }], responses: { "200": { description: "ok" } } } } },
});

test("attack: a document whose server stands for the reader's own host (Jira's https://your-domain.atlassian.net, a {tenant} left at its default) is never called as it is: the call is refused before any request (not_executable, saying to set openapi.base_url), hcp init and validate say so; once the person sets base_url, the credential goes there", async () => {
  const site = await recorder();
  try {
    const dir = join(tempDir("hcp-openapi-placeholder-"));
    const credentials = { jira: { openapi: { basicAuth: "me@example.com:tok-5e3a" } } };
    const placeholders = [
      [{ url: "https://your-domain.atlassian.net/rest/api/3" }],
      [{ url: "https://{tenant}.service-now.com/api", variables: { tenant: { default: "instance" } } }],
      // Where hcp init would write a base URL of its own: a server without a scheme, an http server's https sibling.
      [{ url: "//your-domain.atlassian.net/rest/api/3" }],
      [{ url: "http://api.jiraish.example.org/rest/api/3" }, { url: "https://your-domain.atlassian.net/rest/api/3" }],
    ];
    for (const servers of placeholders) {
      writeFileSync(join(dir, "jira.json"), JSON.stringify(jiraDoc(servers)));
      const out = join(dir, `pack-${Math.random().toString(36).slice(2)}`);
      const init = await hcp(["init", "--from-openapi", join(dir, "jira.json"), "--out", out, "--id", "jira"]);
      assert.equal(init.code, 0, init.stderr);
      assert.match(init.stderr, /^note: store each credential as the API takes it: basicAuth: user:password \(hcp sends it base64-encoded\)$/m, "the person learns the value's form");
      assert.match(init.stderr, /note: the document's server https:\/\/[^ ]+ stands for your own host \("(your-domain|instance)"\): no verb runs until you give the API's base URL in policy\.json/);
      const written = JSON.parse(readFileSync(join(out, "policy.json"), "utf8")) as { openapi?: unknown };
      assert.equal(written.openapi, undefined, "hcp init writes no base URL that stands for your own host");
      const validated = await hcp(["validate", out]);
      assert.match(validated.stdout + validated.stderr, /no verb of this pack can run: .*(stands for your own host, not one to call|uses http: to a host that is not loopback|is not an absolute URL)/);
      const env = isolatedEnv(credentials);
      const r = await execSession([out], [JSON.stringify({ id: 1, pack: "jira", verb: "get-issue", args: { key: "PROJ-1" } })], [], { env });
      assert.equal(r.responses[0]!.ok, false);
      assert.equal(r.responses[0]!.error!.code, "not_executable", "refused before any request (a request would have failed to resolve: request_failed)");
      assert.match(r.responses[0]!.error!.message, /give the API's base URL in policy\.json|use https:/);
      // The person names their own: the call goes there, with the credential.
      const policy = JSON.parse(readFileSync(join(out, "policy.json"), "utf8")) as Record<string, unknown>;
      writeFileSync(join(out, "policy.json"), JSON.stringify({ ...policy, openapi: { base_url: `${site.origin}/rest/api/3` } }));
      const sent = await execSession([out], [JSON.stringify({ id: 2, pack: "jira", verb: "get-issue", args: { key: "PROJ-1" } })], [], { env });
      assert.equal(sent.responses[0]!.ok, true, JSON.stringify(sent.responses[0]));
      assert.equal(site.requests.at(-1)!.url, "/rest/api/3/issue/PROJ-1");
      assert.equal(site.requests.at(-1)!.headers.authorization, `Basic ${Buffer.from("me@example.com:tok-5e3a").toString("base64")}`);
    }
  } finally {
    await site.close();
  }
});
