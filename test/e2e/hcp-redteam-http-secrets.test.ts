// Red team: an agent reading the pack's API credentials back out of hcp. The hostile API echoes every credential
// wherever a server might put it (JSON, text, an error, a Location, WWW-Authenticate, a body cut at the cap or by
// the deadline, a body declared JSON that is not), requests fail every way they can, and the test asserts that no
// form of any credential (raw, base64, URL-encoded, the basic password alone) appears in anything hcp outputs.

import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { execSession, hcp, mcpClient } from "../transports/support.js";
import { BASIC, CREDENTIALS, HEADER_KEY, TLS_CERT, TOKEN, hostileApi, hostileEnv, hostilePack, leakIn, type Hostile } from "./hcp-redteam-http-support.js";
import { closedPort, openapiPack } from "./openapi-support.js";
import { trustPack } from "./helpers.js";
import { approverScript, trustApprovers } from "./approvals-support.js";

const GUARD = { timeoutMs: 60_000 };
let api: Hostile;

before(async () => {
  api = await hostileApi();
});
after(async () => {
  await api.close();
});

/** Echoes cut at 4096 bytes, stalls ended after 1.5 s. */
const LIMITS = { verbs: { echo: { policy: "read", max_output_bytes: 4096, timeout_ms: 1500 }, basic: { policy: "read", max_output_bytes: 4096, timeout_ms: 1500 } } };
const MODES = ["json", "text", "error", "location", "login", "www", "cut", "stall"];


test("credentials echoed back anywhere (JSON, text, a 500, a Location, a login URL's next=, WWW-Authenticate, a body cut at the cap or by the deadline) are masked in every form on run, exec and MCP", async () => {
  const pack = hostilePack(api.origin, LIMITS);
  const env = hostileEnv();
  const outputs: string[] = [];
  const from = api.requests.length;
  // hcp run prints the body as it is (every mode), and with --json the result with its parsed `json` too.
  for (const [mode, extra] of [...MODES.map((m) => [m, []] as const), ...["json", "error", "www", "location", "login"].map((m) => [m, ["--json"]] as const)]) {
    const r = await hcp(["run", pack, "echo", "--arg", `mode=${mode}`, ...extra], { env, ...GUARD });
    outputs.push(r.stdout, r.stderr);
  }
  const calls = [...MODES.map((mode) => ["echo", mode]), ...["json", "text", "error"].map((mode) => ["basic", mode])];
  const s = await execSession([pack], calls.map(([verb, mode], i) => JSON.stringify({ id: i, pack: "notes", verb, args: { mode } })), [], { env, ...GUARD });
  assert.equal(s.responses.length, calls.length, s.stderr);
  outputs.push(s.stdout, s.stderr);
  const { client, stderr } = await mcpClient([pack], { env });
  try {
    for (const [verb, mode] of calls) outputs.push(JSON.stringify(await client.callTool({ name: `notes_${verb}`, arguments: { mode } })));
  } finally {
    await client.close();
  }
  outputs.push(stderr());
  // The server really received every credential: the echoes held them.
  const got = api.requests.slice(from);
  assert.ok(got.some((g) => g.headers.authorization === `Bearer ${TOKEN}` && g.headers["x-api-key"] === HEADER_KEY));
  assert.ok(got.some((g) => g.headers.authorization === `Basic ${Buffer.from(BASIC).toString("base64")}`));
  const all = outputs.join("\n");
  assert.ok(all.includes("***"), "the echoes came back masked");
  assert.equal(leakIn(all), undefined, `a credential came back: ${leakIn(all)}`);
  // The cut never shows the beginning of the token either.
  assert.equal(all.includes(TOKEN.slice(0, 8)), false, "a prefix of the token came back");
});

const str = { type: "string" };

/** A trusted pack (no credential) serving `doc`, whose operation `verb` is its one verb, with this policy. */
async function onePublicVerb(doc: object, verb: string, policy: unknown): Promise<{ pack: string; env: NodeJS.ProcessEnv }> {
  const pack = openapiPack({ ref: { path: "api.json" }, verbs: { [verb]: { description: `The ${verb} operation.` } }, binding: { mode: "public", hub: "none" }, policy: { verbs: { [verb]: policy } } });
  writeFileSync(join(pack, "api.json"), JSON.stringify(doc));
  const env = hostileEnv();
  await trustPack(pack, env);
  return { pack, env };
}

/** Every form a value may take in a URL or an echo of one: raw, percent-encoded (either hex case), form-encoded, twice. */
function urlForms(value: string): string[] {
  const once = [value, encodeURIComponent(value), new URLSearchParams({ v: value }).toString().slice(2)];
  const forms = [...once, ...once.slice(1).map(encodeURIComponent)];
  return [...forms, ...forms.map((f) => f.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()))];
}

test("attack: the agent's own secret arguments (a format: password query parameter; parameters named access_token, X-Auth-Token and a path's session_token) are masked in every form the request and its echoes take, percent-encoded included, on run, exec and MCP, and in mock mode's request URL", async () => {
  const doc = {
    openapi: "3.1.0",
    info: { title: "Sign-in", version: "1" },
    servers: [{ url: `${api.origin}/v1` }],
    paths: {
      "/sign-in/{session_token}": {
        get: {
          operationId: "signin",
          parameters: [
            { name: "session_token", in: "path", required: true, schema: str },
            { name: "mode", in: "query", schema: str },
            { name: "user", in: "query", schema: str },
            { name: "password", in: "query", schema: { type: "string", format: "password" } },
            { name: "access_token", in: "query", schema: str },
            { name: "X-Auth-Token", in: "header", schema: str },
            { name: "page_token", in: "query", schema: str },
          ],
          responses: { "200": { description: "What the server received.", content: { "application/json": { example: { signed_in: true } } } } },
        },
      },
    },
  };
  const { pack, env } = await onePublicVerb(doc, "signin", "read");
  // Values that percent-encoding changes: `/`, `+`, `=`, `&`, a space, `%`, `@`.
  const secrets = { session_token: "st/4Qx+y z", password: "pw/9+Kx=&y Z%@", access_token: "at:7/Qm+w==", "X-Auth-Token": "hdr-6Tg2-auth-secret" };
  const forms = Object.values(secrets).flatMap(urlForms);
  const args = (mode: string) => ({ ...secrets, mode, user: "alice", page_token: "pg-next-2" });
  const described = await hcp(["describe", pack, "signin"], { env });
  for (const name of Object.keys(secrets)) assert.match(described.stdout, new RegExp(`\\n {4}${name} \\(string, (required|optional), secret: masked in every output\\)`));
  assert.match(described.stdout, /\n {4}page_token \(string, optional\)\n/, "a listing's token is no secret");

  const outputs: string[] = [];
  const from = api.requests.length;
  const modes = ["json", "text", "location", "login", "error", "www"];
  for (const mode of modes) {
    for (const extra of [[], ["--json"]]) {
      const r = await hcp(["run", pack, "signin", "--args", JSON.stringify(args(mode)), ...extra], { env, ...GUARD });
      outputs.push(r.stdout, r.stderr);
    }
  }
  const s = await execSession([pack], modes.map((mode, i) => JSON.stringify({ id: i, pack: "notes", verb: "signin", args: args(mode) })), [], { env, ...GUARD });
  assert.equal(s.responses.length, modes.length, s.stderr);
  outputs.push(s.stdout, s.stderr);
  const { client, stderr } = await mcpClient([pack], { env });
  try {
    for (const mode of modes) outputs.push(JSON.stringify(await client.callTool({ name: "notes_signin", arguments: args(mode) })));
  } finally {
    await client.close();
  }
  outputs.push(stderr());
  // The server got them, percent-encoded in its URL.
  const got = api.requests.slice(from);
  assert.ok(got.some((g) => g.url.includes(encodeURIComponent(secrets.session_token)) && g.url.includes(new URLSearchParams({ p: secrets.password }).toString().slice(2)) && g.headers["x-auth-token"] === secrets["X-Auth-Token"]), JSON.stringify(got.at(-1)));
  const all = outputs.join("\n");
  assert.ok(all.includes("***") && all.includes("pg-next-2") && all.includes("alice"), "the rest of the request shows");
  const leak = forms.find((f) => all.includes(f));
  assert.equal(leak, undefined, `a secret argument came back as ${leak}`);

  // Mock mode sends nothing and answers with the document's example: its request URL holds the arguments too.
  const surface = JSON.parse(readFileSync(join(pack, "surface.json"), "utf8"));
  writeFileSync(join(pack, "surface.json"), JSON.stringify({ ...surface, binding: { mode: "mock", hub: "none" } }));
  await trustPack(pack, env);
  const sent = api.requests.length;
  const mock = await hcp(["run", pack, "signin", "--args", JSON.stringify(args("json")), "--json"], { env, ...GUARD });
  assert.equal(mock.code, 0, mock.stderr);
  assert.equal(JSON.parse(mock.stdout).mock, true);
  assert.equal(api.requests.length, sent, "mock mode sends nothing");
  const mockLeak = forms.find((f) => mock.stdout.includes(f));
  assert.equal(mockLeak, undefined, `mock mode showed ${mockLeak}: ${mock.stdout}`);
});

test("attack: a body's secret fields (named password or client_secret, or marked format: password inside the allOf that composes the body) are masked in their places in the plan a person approves, and in the result, an exec answer and the audit log, while the API gets them", async () => {
  const body = {
    type: "object",
    properties: { user: str, password: str, client_secret: str, next_page_token: str },
    allOf: [{ properties: { recovery: { type: "object", properties: { code: { type: "string", format: "password" } } } } }],
  };
  const doc = {
    openapi: "3.1.0",
    info: { title: "Accounts", version: "1" },
    servers: [{ url: `${api.origin}/v1` }],
    paths: { "/accounts": { post: { operationId: "signup", parameters: [{ name: "mode", in: "query", schema: str }], requestBody: { required: true, content: { "application/json": { schema: body } } }, responses: { "201": { description: "What the server received." } } } } },
  };
  const { pack, env } = await onePublicVerb(doc, "signup", { policy: "write", confirm: true });
  const secrets = { password: "pw-4Rt7-body-secret", client_secret: "cs-8Yu2-body-secret", code: "rc-1Qa9-body-secret" };
  const args = { mode: "json", body: { user: "alice", password: secrets.password, client_secret: secrets.client_secret, next_page_token: "pg-3", recovery: { code: secrets.code } } };
  const outputs: string[] = [];
  // The plan a person approves shows each secret field as *** in its place, and everything else as sent.
  const dry = await hcp(["run", pack, "signup", "--args", JSON.stringify(args), "--allow-write", "--dry-run", "--json"], { env, ...GUARD });
  assert.equal(dry.code, 0, dry.stderr);
  const plan = JSON.parse(dry.stdout) as { plan: { body: unknown }; plan_id: string };
  assert.deepEqual(plan.plan.body, { user: "alice", password: "***", client_secret: "***", next_page_token: "pg-3", recovery: { code: "***" } });
  outputs.push(dry.stdout, dry.stderr);
  const from = api.requests.length;
  const asked = join(env["HOME"]!, "approver.jsonl");
  const approver = approverScript(env["HOME"]!, asked, 0);
  trustApprovers(env["HOME"]!, [approver]);
  const ran = await hcp(["run", pack, "signup", "--args", JSON.stringify(args), "--allow-write", "--approver", approver, "--json"], { env, ...GUARD });
  assert.equal(ran.code, 0, ran.stderr);
  outputs.push(ran.stdout, ran.stderr, readFileSync(asked, "utf8"));
  const s = await execSession([pack], [JSON.stringify({ id: 1, pack: "notes", verb: "signup", args, dry_run: true })], ["--allow-write"], { env, ...GUARD });
  assert.equal(s.responses.length, 1, s.stderr);
  outputs.push(s.stdout, s.stderr, readFileSync(env["HCP_AUDIT"]!, "utf8"));
  const sent = JSON.parse(api.requests[from]!.body) as typeof args.body;
  assert.deepEqual(sent.recovery, { code: secrets.code }, "the API got them");
  assert.equal(sent.password, secrets.password);
  const all = outputs.join("\n");
  assert.ok(all.includes("alice") && all.includes("pg-3"), "the rest shows");
  const leak = Object.values(secrets).find((v) => all.includes(v));
  assert.equal(leak, undefined, `a secret field came back: ${leak}`);
});

test("a 2xx body declared JSON that is the token itself: the error never quotes the body (no first characters of the token) on run, exec and MCP", async () => {
  const pack = hostilePack(api.origin);
  const env = hostileEnv();
  await trustPack(pack, env);
  const r = await hcp(["run", pack, "echo", "--arg", "mode=raw"], { env, ...GUARD });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /answered 200 with Content-Type application\/json, but its body is not JSON/);
  const s = await execSession([pack], [JSON.stringify({ id: 1, pack: "notes", verb: "echo", args: { mode: "raw" } })], [], { env, ...GUARD });
  assert.equal(s.responses[0]?.error?.code, "invalid_response");
  const { client } = await mcpClient([pack], { env });
  let mcp: string;
  try {
    mcp = JSON.stringify(await client.callTool({ name: "notes_echo", arguments: { mode: "raw" } }));
  } finally {
    await client.close();
  }
  for (const out of [r.stdout + r.stderr, s.stdout + s.stderr, mcp]) {
    for (let n = 4; n <= TOKEN.length; n++) assert.equal(out.includes(TOKEN.slice(0, n)), false, `the first ${n} characters of the token came back: ${out}`);
  }
});

test("a credential with spaces around it is masked as sent (trimmed); one that cannot travel in a header, or is not valid Unicode, is refused, showing none of it, and nothing is sent", async () => {
  const pack = hostilePack(api.origin);
  const padded = hostileEnv({ notes: { openapi: { ...CREDENTIALS.notes.openapi, bearer: `  ${TOKEN}\t`, keyHeader: ` ${HEADER_KEY} ` } } });
  const from = api.requests.length;
  await trustPack(pack, padded);
  const r = await hcp(["run", pack, "echo", "--json"], { env: padded, ...GUARD });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(api.requests.at(-1)!.headers.authorization, `Bearer   ${TOKEN}`, "sent trimmed at the end");
  assert.equal(leakIn(r.stdout + r.stderr), undefined, r.stdout);
  // A character outside Latin-1: fetch's own error would name the character and where it stands.
  // And a lone surrogate (a JSON credential file can hold one): encoding it for the query would throw.
  const bad: [string, string, RegExp][] = [
    ["bearer", `${TOKEN.slice(0, 10)}€${TOKEN.slice(10)}`, /the credential for security scheme "bearer" cannot be sent in a header/],
    ["bearer", `${TOKEN}\u0007`, /the credential for security scheme "bearer" cannot be sent in a header/],
    ["keyQuery", `${TOKEN.slice(0, 10)}\ud800${TOKEN.slice(10)}`, /the credential for security scheme "keyQuery" is not valid Unicode text/],
  ];
  for (const [scheme, value, message] of bad) {
    const env = hostileEnv({ notes: { openapi: { ...CREDENTIALS.notes.openapi, [scheme]: value } } });
    await trustPack(pack, env);
    const sent = api.requests.length;
    const b = await hcp(["run", pack, "echo"], { env, ...GUARD });
    assert.equal(b.code, 3, b.stderr);
    assert.match(b.stderr, message);
    assert.doesNotMatch(b.stderr, /index|8364|€|\\u0007/);
    assert.equal(b.stderr.includes(TOKEN.slice(0, 10)), false);
    assert.equal(api.requests.length, sent, "nothing was sent");
  }
  assert.equal(api.requests.length, from + 1);
});

test("failures never show a credential: connection refused, TLS refused, a deadline, a body over the cap; nor do dry-run plans or audit lines", async () => {
  const env = hostileEnv();
  const outputs: string[] = [];
  const refusedPack = hostilePack(`http://127.0.0.1:${await closedPort()}`);
  const tls = await hostileApi({ tls: true });
  try {
    // No NODE_EXTRA_CA_CERTS: the certificate is not trusted, so the request never leaves hcp.
    const untrusted = hostilePack(tls.origin);
    for (const [pack, code] of [[refusedPack, /request_failed/], [untrusted, /request_failed/]] as const) {
      const r = await hcp(["run", await trustPack(pack, env), "echo", "--json"], { env, ...GUARD });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, code);
      outputs.push(r.stdout, r.stderr);
      const s = await execSession([pack], [JSON.stringify({ id: 1, pack: "notes", verb: "keyed", args: {} })], [], { env, ...GUARD });
      assert.equal(s.responses[0]?.error?.code, "request_failed");
      outputs.push(s.stdout, s.stderr);
      const { client } = await mcpClient([pack], { env });
      try {
        const call = await client.callTool({ name: "notes_basic", arguments: {} });
        assert.equal(call.isError, true);
        outputs.push(JSON.stringify(call));
      } finally {
        await client.close();
      }
    }
    assert.equal(tls.requests.length, 0, "an untrusted TLS server receives no request, so no credential");
    assert.ok(tls.tlsErrors >= 1);
  } finally {
    await tls.close();
  }
  // A deadline mid-body, and a body over the cap: both after the server echoed the token.
  const limited = hostilePack(api.origin, { verbs: { "slow-body": { policy: "read", timeout_ms: 800 }, echo: { policy: "read", max_output_bytes: 4096 } } });
  await trustPack(limited, env);
  for (const args of [["slow-body"], ["echo", "--arg", "mode=cut"]]) {
    const r = await hcp(["run", limited, ...args, "--json"], { env, ...GUARD });
    assert.equal(r.timedOut, false);
    outputs.push(r.stdout, r.stderr);
    const result = JSON.parse(r.stdout);
    assert.ok(result.timed_out || result.body_truncated, r.stdout);
  }
  // A write's dry run (its plan, its id) and the audit lines of a write that ran and echoed the credentials.
  const pack = await trustPack(hostilePack(api.origin), env);
  const dry = await hcp(["run", pack, "item.create", "--args", '{"body":{"text":"x"}}', "--dry-run", "--json"], { env, ...GUARD });
  assert.equal(dry.code, 0, dry.stderr);
  assert.ok(JSON.parse(dry.stdout).plan.credentials, "the plan covers the credentials (as digests)");
  outputs.push(dry.stdout, dry.stderr);
  const ran = await hcp(["run", pack, "item.create", "--args", '{"body":{"text":"x"}}', "--allow-write", "--json"], { env, ...GUARD });
  assert.equal(ran.code, 0, ran.stderr);
  outputs.push(ran.stdout, ran.stderr);
  const audit = readFileSync(env["HCP_AUDIT"]!, "utf8");
  assert.match(audit, /"decision":"ran"/);
  outputs.push(audit);
  const all = outputs.join("\n");
  assert.equal(leakIn(all), undefined, `a credential came back: ${leakIn(all)}`);
});

test("over https, credentials go only to a server whose certificate is trusted, and never down to http on a redirect", async () => {
  const tls = await hostileApi({ tls: true });
  try {
    const pack = hostilePack(tls.origin);
    const env = hostileEnv(undefined, { NODE_EXTRA_CA_CERTS: TLS_CERT });
    await trustPack(pack, env);
    const ok = await hcp(["run", pack, "echo", "--json"], { env, ...GUARD });
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(tls.requests.at(-1)!.headers.authorization, `Bearer ${TOKEN}`, "the trusted server got the credential");
    const port = new URL(tls.origin).port;
    const errors = tls.tlsErrors;
    const requests = tls.requests.length;
    for (const status of ["301", "302", "307", "308"]) {
      const r = await hcp(["run", pack, "redirect", "--arg", `status=${status}`, "--arg", `to=http://127.0.0.1:${port}/v1/echo`, "--json"], { env, ...GUARD });
      assert.equal(JSON.parse(r.stdout).status, Number(status), r.stderr);
      assert.equal(leakIn(r.stdout + r.stderr), undefined);
    }
    assert.equal(tls.requests.length, requests + 4, "only the redirecting requests arrived");
    assert.equal(tls.tlsErrors, errors, "no plaintext request came to the port");
  } finally {
    await tls.close();
  }
});
