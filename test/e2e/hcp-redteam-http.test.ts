// Red team: an agent using openapi verbs to change where a request goes, to send the pack's credentials
// elsewhere, or to turn a read into a write. The built hcp (run, exec, MCP through the SDK client) against a
// hostile loopback API that records every request it gets; each test asserts what reached it, and where.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { execSession, hcp, mcpClient } from "../transports/support.js";
import { recorder, type Api } from "./notes-api.js";
import { METHOD_OVERRIDES, OWNED_HEADERS, QUERY_KEY, hostileApi, hostileEnv, hostilePack, leakIn, type Hostile } from "./hcp-redteam-http-support.js";
import { trustPack } from "./helpers.js";

const GUARD = { timeoutMs: 60_000 };
let api: Hostile;
let elsewhere: Api;

before(async () => {
  api = await hostileApi();
  elsewhere = await recorder();
});
after(async () => {
  await api.close();
  await elsewhere.close();
});

/** The requests the API received while `fn` ran. */
async function received<T>(fn: () => Promise<T>): Promise<{ got: Hostile["requests"]; value: T }> {
  const from = api.requests.length;
  const value = await fn();
  return { got: api.requests.slice(from), value };
}

/** A value as a query string writes it (form encoding). */
const form = (v: string) => new URLSearchParams({ v }).toString().slice(2);
const line = (id: string, verb: string, args: unknown) => JSON.stringify({ id, pack: "notes", verb, args });

test("a parameter value never changes the request's target: ../, %2e%2e/, ?, #, /, @, backslash, CR/LF, NUL, an absolute URL, //host in a path; &x= in a query; nothing reaches another host", async () => {
  const pack = hostilePack(api.origin);
  const env = hostileEnv();
  const ids = ["../admin", "%2e%2e/admin", "..%2fadmin", "a?x=1", "a#frag", "a/b", `@${elsewhere.origin.slice(7)}`, "a\\..\\b", "a\r\nHost: evil", "a\0b", `${elsewhere.origin}/x`, `//${elsewhere.origin.slice(7)}/x`, "..;/admin", ". ."];
  const queries = ["a&api_key=mine&x=1", "a#b", "?q=1", "a\r\nX-Injected: 1"];
  const { got, value: s } = await received(() =>
    execSession(
      [pack],
      [...ids.map((id, i) => line(`p${i}`, "item.get", { id })), ...queries.map((q, i) => line(`q${i}`, "item.get", { id: "n1", q }))],
      [],
      { env, ...GUARD },
    ),
  );
  assert.equal(s.code, 0, s.stderr);
  assert.ok(s.responses.every((r) => r.ok), JSON.stringify(s.responses.filter((r) => !r.ok)));
  // One request per call, each to /v1/items/<the whole value as one percent-encoded segment>.
  const key = `api_key=${form(QUERY_KEY)}`;
  const expected = [...ids.map((id) => `/v1/items/${encodeURIComponent(id)}?${key}`), ...queries.map((q) => `/v1/items/n1?q=${form(q)}&${key}`)];
  assert.deepEqual(got.map((g) => g.url).sort(), expected.sort());
  for (const g of got) {
    assert.equal(g.headers.host, api.origin.slice("http://".length), "the Host is the API's");
    assert.equal(g.headers["x-injected"], undefined);
    assert.deepEqual(new URL(g.url, "http://x").searchParams.getAll("api_key"), [QUERY_KEY], "one api_key, the credential");
  }
  assert.equal(elsewhere.requests.length, 0, "no other host received anything");
  assert.equal(leakIn(s.stdout + s.stderr), undefined);
});

test("values that cannot be sent as given are refused before anything is sent: empty, . and .. segments, CR/LF/NUL and controls in a header, non-Latin-1 in a header, a lone surrogate anywhere", async () => {
  const pack = hostilePack(api.origin);
  const env = hostileEnv();
  await trustPack(pack, env);
  const cases: [string, unknown, RegExp][] = [
    ["item.get", { id: "" }, /cannot be empty/],
    ["item.get", { id: "." }, /cannot be "\."/],
    ["item.get", { id: ".." }, /cannot be "\.\."/],
    ["item.get", { id: "n1", "X-Trace": "a\r\nX-Admin: yes" }, /CR, LF or NUL/],
    ["item.get", { id: "n1", "X-Trace": "a\nb" }, /CR, LF or NUL/],
    ["item.get", { id: "n1", "X-Trace": "a\0b" }, /CR, LF or NUL/],
    ["item.get", { id: "n1", "X-Trace": "a\u001bb" }, /control character/],
    ["item.get", { id: "n1", "X-Trace": "price €" }, /only hold Latin-1/],
    ["item.get", { id: "\ud800" }, /argument "id": holds a lone UTF-16 surrogate/],
    ["item.get", { id: "n1", q: "a\udc00" }, /argument "q": holds a lone UTF-16 surrogate/],
    ["item.get", { id: "n1", "X-Trace": "\ud83d" }, /argument "X-Trace": holds a lone UTF-16 surrogate/],
  ];
  const { got, value: s } = await received(() => execSession([pack], cases.map(([verb, args], i) => line(String(i), verb, args)), [], { env, ...GUARD }));
  assert.equal(s.code, 0, s.stderr);
  for (const [i, [, args, message]] of cases.entries()) {
    const r = s.responses.find((x) => x.id === String(i));
    assert.equal(r?.ok, false, `${JSON.stringify(args)} was accepted`);
    assert.equal(r?.error?.code, "invalid_argument", JSON.stringify(r));
    assert.match(r?.error?.message ?? "", message);
  }
  assert.equal(got.length, 0, "nothing was sent");
  // hcp run says the same, exit 1 (a usage error), no stack trace.
  const run = await hcp(["run", pack, "item.get", "--args", '{"id":"\\ud800"}'], { env, ...GUARD });
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stderr, /holds a lone UTF-16 surrogate/);
  assert.doesNotMatch(run.stderr, /internal|at .*\.js:\d+/);
});

test("attack: a request body holding a lone UTF-16 surrogate (a plan a person approves shows every one as U+FFFD, while the request would carry each as its own escape, so one approval would send 2,048 other strings) is refused before any plan: no plan id, nothing sent, on exec, run and MCP", async () => {
  const pack = hostilePack(api.origin, { verbs: { "item.create": { policy: "write", confirm: true } } });
  const env = hostileEnv();
  await trustPack(pack, env);
  const bodies: [unknown, RegExp][] = [
    [{ text: "alice\ud800" }, /argument "body": the value at "\/text" holds a lone UTF-16 surrogate/],
    [{ text: "ok", "to\udfff": "bob" }, /argument "body": the key at "\/to\\udfff" holds a lone UTF-16 surrogate/],
    [{ text: "ok", list: [{ "a/b": ["x", "\udc00y"] }] }, /argument "body": the value at "\/list\/0\/a~1b\/1" holds a lone UTF-16 surrogate/],
  ];
  const lines = bodies.flatMap(([body], i) => [
    JSON.stringify({ id: `d${i}`, pack: "notes", verb: "item.create", args: { body }, dry_run: true }),
    JSON.stringify({ id: `r${i}`, pack: "notes", verb: "item.create", args: { body } }),
  ]);
  const { got, value: s } = await received(async () => {
    const exec = await execSession([pack], lines, ["--allow-write"], { env, ...GUARD });
    const run = await hcp(["run", pack, "item.create", "--args", '{"body":{"text":"alice\\ud800"}}', "--dry-run"], { env, ...GUARD });
    const { client } = await mcpClient([pack, "--allow-write"], { env });
    try {
      const mcp = await client.callTool({ name: "notes_item_create", arguments: { body: { text: "alice\ud800" }, dry_run: true } });
      return { exec, run, mcp: JSON.stringify(mcp) };
    } finally {
      await client.close();
    }
  });
  for (const [i, [, message]] of bodies.entries()) {
    for (const id of [`d${i}`, `r${i}`]) {
      const r = s.exec.responses.find((x) => x.id === id);
      assert.equal(r?.error?.code, "invalid_argument", JSON.stringify(r));
      assert.match(r?.error?.message ?? "", message);
    }
  }
  assert.equal(s.run.code, 1, s.run.stderr);
  assert.match(s.run.stderr, /argument "body": the value at "\/text" holds a lone UTF-16 surrogate/);
  assert.match(s.mcp, /invalid_argument/);
  for (const out of [s.exec.stdout, s.run.stdout, s.run.stderr, s.mcp]) assert.doesNotMatch(out, /plan_id|hcp approve/, "no plan id is issued");
  assert.equal(got.length, 0, "nothing was sent");
});

test("the agent cannot set or override the credential or the target: Authorization, Cookie, hop-by-hop, framing and routing headers and a base URL are not arguments; a declared api_key or X-API-Key parameter given a value is refused, never sent beside the credential nor shown in a plan and replaced by it", async () => {
  const pack = hostilePack(api.origin);
  const env = hostileEnv();
  const refused: [string, Record<string, unknown>][] = [
    // Each of these the document declares as a header parameter.
    ...OWNED_HEADERS.map((name): [string, Record<string, unknown>] => ["echo", { [name]: name === "Connection" ? "X-API-Key" : `${elsewhere.origin.slice(7)}` }]),
    ["echo", { authorization: "Bearer agent-token" }],
    ["echo", { base_url: elsewhere.origin }],
    ["echo", { servers: [{ url: elsewhere.origin }] }],
    ["echo", { url: `${elsewhere.origin}/x` }],
  ];
  const { got, value: s } = await received(() =>
    execSession(
      [pack],
      [...refused.map(([verb, args], i) => line(`r${i}`, verb, args)), line("keyed", "keyed", { api_key: "agent-key", "X-API-Key": "agent-header-key" })],
      [],
      { env, ...GUARD },
    ),
  );
  assert.equal(s.code, 0, s.stderr);
  for (const [i] of refused.entries()) {
    const r = s.responses.find((x) => x.id === `r${i}`);
    assert.equal(r?.error?.code, "invalid_args", JSON.stringify(r));
  }
  // A value the plan would show where the credential then goes (or beside it) is refused: the person would approve it.
  assert.match(s.responses.find((x) => x.id === "keyed")?.error?.message ?? "", /argument "(api_key|X-API-Key)" would be sent as the (query parameter "api_key"|header "X-API-Key"), where hcp puts the credential of security scheme "key(Query|Header)" \(or beside it\) when the request is sent/);
  assert.equal(got.length, 0, "nothing was sent");
  assert.equal(elsewhere.requests.length, 0);
  assert.equal(leakIn(s.stdout + s.stderr), undefined);
  // Over MCP the tool does not even offer them.
  const { client } = await mcpClient([pack], { env });
  try {
    const { tools } = await client.listTools();
    const props = Object.keys(tools.find((t) => t.name === "notes_echo")!.inputSchema.properties ?? {});
    assert.deepEqual(props.sort(), ["X-Trace", "mode", "q"]);
    const call = await client.callTool({ name: "notes_echo", arguments: { Authorization: "Bearer agent-token" } });
    assert.equal(call.isError, true);
  } finally {
    await client.close();
  }
});

const REDIRECTS = [301, 302, 303, 307, 308];

test("credentials never reach another origin through a redirect: 301, 302, 303, 307, 308, //host, a backslash path, user@host, another host name for the same server, https", async () => {
  const pack = hostilePack(api.origin);
  const env = hostileEnv();
  const other = elsewhere.origin.slice("http://".length);
  const port = new URL(api.origin).port;
  const targets = [
    ...REDIRECTS.map((status) => [status, `${elsewhere.origin}/stolen`] as const),
    [302, `//${other}/stolen`],
    [302, `/\\${other}/stolen`],
    [307, `http://127.0.0.1:${port}@${other}/stolen`],
    [308, `http://localhost:${port}/v1/echo`],
    [301, `https://127.0.0.1:${port}/v1/echo`],
  ] as const;
  const { got, value: s } = await received(() => execSession([pack], targets.map(([status, to], i) => line(String(i), "redirect", { status: String(status), to })), [], { env, ...GUARD }));
  assert.equal(s.code, 0, s.stderr);
  for (const [i, [status]] of targets.entries()) {
    const r = s.responses.find((x) => x.id === String(i));
    assert.equal(r?.ok, true, JSON.stringify(r));
    assert.equal(r?.result?.["status"], status, "the redirect itself is the answer");
  }
  assert.equal(got.length, targets.length, "each call reached the API once: no redirect was followed, not even to its other name");
  assert.equal(elsewhere.requests.length, 0, "the other origin received nothing");
  assert.equal(leakIn(s.stdout + s.stderr), undefined);
});

test("a read verb stays a read: method override headers are not arguments, a 303/307/308 redirect of a GET stays a GET without a body, lookalike verb names are unknown", async () => {
  const pack = hostilePack(api.origin);
  const env = hostileEnv();
  const lines = [
    ...[...METHOD_OVERRIDES, "x-http-method-override"].map((h, i) => line(`o${i}`, "echo", { [h]: "DELETE" })),
    ...[303, 307, 308].map((status) => line(`r${status}`, "redirect", { status: String(status), to: "/v1/items/n1" })),
    ...["Item.delete", "item.delete\u200b", "item.delet\u0435", "item_delete", "item.delete ", "ITEM.DELETE"].map((verb, i) => line(`v${i}`, verb, { id: "n1" })),
  ];
  // Writes are allowed here: a lookalike must still not reach the delete.
  const { got, value: s } = await received(() => execSession([pack], lines, ["--allow-write"], { env, ...GUARD }));
  assert.equal(s.code, 0, s.stderr);
  for (const r of s.responses.filter((x) => String(x.id).startsWith("o"))) assert.equal(r.error?.code, "invalid_args", JSON.stringify(r));
  for (const r of s.responses.filter((x) => String(x.id).startsWith("v"))) assert.ok(["unknown_verb", "invalid_request"].includes(r.error?.code ?? ""), JSON.stringify(r));
  assert.equal(got.filter((g) => g.method !== "GET").length, 0, `only GETs reached the API: ${got.map((g) => g.method).join(" ")}`);
  assert.deepEqual(got.filter((g) => g.url.startsWith("/v1/items/")).map((g) => [g.method, g.body]), [["GET", ""], ["GET", ""], ["GET", ""]]);
  for (const g of got) for (const h of ["x-http-method-override", "x-http-method", "x-method-override"]) assert.equal(g.headers[h], undefined);
});

test("a write verb needs --allow-write and its approval on every transport; a refused or dry-run write sends nothing", async () => {
  const pack = hostilePack(api.origin, { verbs: { "item.delete": { policy: "write", confirm: true } } });
  const env = hostileEnv();
  const { got } = await received(async () => {
    const r = await hcp(["run", pack, "item.create", "--args", '{"body":{"text":"x"}}'], { env, ...GUARD });
    assert.equal(r.code, 4, r.stderr);
    const d = await hcp(["run", pack, "item.delete", "--arg", "id=n1", "--allow-write", "--no-prompt"], { env, ...GUARD });
    assert.equal(d.code, 4, d.stderr);
    const s = await execSession([pack], [line("c", "item.create", { body: { text: "x" } }), line("d", "item.delete", { id: "n1" }), JSON.stringify({ id: "dry", pack: "notes", verb: "item.delete", args: { id: "n1" }, dry_run: true })], [], { env, ...GUARD });
    assert.deepEqual(s.responses.map((x) => [x.id, x.ok]).sort(), [["c", false], ["d", false], ["dry", true]]);
    const { client } = await mcpClient([pack], { env });
    try {
      const c = await client.callTool({ name: "notes_item_create", arguments: { body: { text: "x" } } });
      assert.equal(c.isError, true);
      const del = await client.callTool({ name: "notes_item_delete", arguments: { id: "n1", dry_run: false } });
      assert.equal(del.isError, true);
    } finally {
      await client.close();
    }
  });
  assert.equal(got.length, 0, "no write reached the API");
});
