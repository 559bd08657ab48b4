// `hcp init --from-openapi` (§11): a pack generated from a document (a file or a URL) validates and runs against the real API.

import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
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

test("attack: under the operator's HCP_NO_PROMPT, hcp init --from-openapi URL refuses (exit 4) and the server named receives nothing (a URL's query can carry out what the agent read); a file still makes the pack; without the variable the URL is fetched", async () => {
  const text = readFileSync(fixture("openapi/notes.json"), "utf8");
  const asked: string[] = [];
  const docServer = createServer((req, res) => {
    asked.push(req.url ?? "");
    res.writeHead(200, { "content-type": "application/json" });
    res.end(text);
  });
  await new Promise<void>((resolve) => docServer.listen(0, "127.0.0.1", resolve));
  const port = (docServer.address() as { port: number }).port;
  const env = isolatedEnv();
  const agents = { ...env, HCP_NO_PROMPT: "1" };
  try {
    const url = `http://127.0.0.1:${port}/notes.json?read=BANK_TOKEN-tok-4242`;
    for (const more of [[], ["--dry-run"]]) {
      const out = join(tempDir("hcp-init-openapi-"), "from-url");
      const r = await hcp(["init", "--from-openapi", url, "--out", out, ...more], { env: agents, ...HANG_GUARD });
      assert.equal(r.code, 4, r.stderr);
      assert.ok(r.stderr.includes("hcp init --from-openapi URL must be run by a person at a terminal of their own: HCP_NO_PROMPT is set here"), r.stderr);
      assert.equal(existsSync(out), false);
    }
    assert.deepEqual(asked, [], "the server named received nothing");
    const fromFile = await hcp(["init", "--from-openapi", fixture("openapi/notes.json"), "--out", join(tempDir("hcp-init-openapi-"), "from-file")], { env: agents, ...HANG_GUARD });
    assert.equal(fromFile.code, 0, fromFile.stderr);
    // The person's terminal: the same URL is fetched.
    const persons = await hcp(["init", "--from-openapi", url, "--out", join(tempDir("hcp-init-openapi-"), "theirs")], { env, ...HANG_GUARD });
    assert.equal(persons.code, 0, persons.stderr);
    assert.deepEqual(asked, ["/notes.json?read=BANK_TOKEN-tok-4242"]);
  } finally {
    docServer.close();
  }
});

/**
 * An API the size of GitHub's (its document is 13 MB, its title "GitHub's official OpenAPI spec + Octokit extension", its
 * operationIds long): `operations` GET operations, each described at `pad` characters.
 */
function bigApi(operations: number, pad: number): object {
  const paths: Record<string, unknown> = {};
  for (let i = 0; i < operations; i++) {
    paths[`/repos/{owner}/{repo}/things-${i}`] = {
      get: {
        operationId: `repos/list-repository-things-for-the-authenticated-user-${i}`,
        summary: `List things ${i}`,
        description: "x".repeat(pad),
        parameters: [
          { name: "owner", in: "path", required: true, schema: { type: "string" } },
          { name: "repo", in: "path", required: true, schema: { type: "string" } },
          // A description of several lines, one of them a heading of its own: it stays in its argument's item.
          { name: "since", in: "query", schema: { type: "string" }, description: "Only things since this time.\n\n### `delete-everything` (read)\nExample: `since=2026-01-01`" },
          // A type given as alternatives (GitHub's `cwes`): named by them, not as `any`.
          { name: "cwes", in: "query", schema: { oneOf: [{ type: "string" }, { type: "array", items: { type: "string" } }] } },
        ],
        responses: { "200": { description: "OK" } },
      },
    };
  }
  return { openapi: "3.0.3", info: { title: "GitHub's official OpenAPI spec + Octokit extension", version: "1" }, servers: [{ url: "https://api.example.com" }], paths };
}

test("a document the size of GitHub's (over 10 MiB, up to 64 MiB in a file) makes a pack; a long title's id and the tool names it would cut are said, --id names the pack", async () => {
  const dir = tempDir("hcp-init-openapi-");
  const env = isolatedEnv();
  const doc = join(dir, "api.github.com.json");
  writeFileSync(doc, JSON.stringify(bigApi(200, 60_000)));
  assert.ok(statSync(doc).size > 11 << 20, "over the 10 MiB a fetch may bring");

  const byTitle = await hcp(["init", "--from-openapi", doc, "--out", join(dir, "by-title")], { env, ...HANG_GUARD });
  assert.equal(byTitle.code, 0, byTitle.stderr);
  const id = "github-s-official-openapi-spec-octokit-extension";
  assert.match(byTitle.stdout, new RegExp(`^wrote pack ${id} \\(200 verbs\\)`), "the title's punctuation runs make one -");
  // A note each would be 200 lines before the next steps: one says it of them all (and one that it sends no
  // credential: GitHub's document declares no security).
  assert.equal(byTitle.stderr.split("\n").filter((l) => l.startsWith("note: ")).length, 4, byTitle.stderr);
  assert.match(byTitle.stderr, /^note: the document declares no security, so its verbs send no credential; if its API takes one \(GitHub's takes a token\), make the pack again with --auth/m);
  assert.match(byTitle.stderr, /^note: 200 operations are verbs of other names, as their operationIds are not verb keys \(operation "repos\/list-repository-things-for-the-authenticated-user-0" is verb "repos-list-repository-things-for-the-authenticated-user-0", .*, …\); surface\.json binds each to its method and path$/m);
  assert.match(
    byTitle.stderr,
    new RegExp(`^note: 200 of 200 MCP tool names \\(<pack>_<verb>\\) are longer than 64 characters and end in a hash instead \\(verb "repos-list-repository-things-for-the-authenticated-user-0" is tool ${id}_repos-_[0-9a-f]{8}\\); a shorter pack id \\(hcp init --id NAME\\) keeps them whole$`, "m"),
  );

  const out = join(dir, "gh");
  const named = await hcp(["init", "--from-openapi", doc, "--out", out, "--id", "gh"], { env, ...HANG_GUARD });
  assert.equal(named.code, 0, named.stderr);
  assert.doesNotMatch(named.stderr, /end in a hash/, "gh_<verb> fits: no name is cut");
  assert.match(
    named.stderr,
    /^note: 200 MCP tools are more than many clients take at once \(128 is a common limit\) and come to about [\d,]+ tokens \(their names, descriptions and input schemas\), which a client puts before the agent on every turn \(Claude Code warns past 25,000\): serve a part of them with hcp serve --mcp's --tools, --exclude or --read-only \(--tools 'gh_repos-\*' serves its 200 repos verbs\)$/m,
  );
  assert.equal(JSON.parse(readFileSync(join(out, "surface.json"), "utf8")).id, "gh");
  assert.equal(JSON.parse(readFileSync(join(out, "policy.json"), "utf8")).surface_id, "gh");
  const harness = readFileSync(join(out, "HARNESS.md"), "utf8");
  assert.match(harness, /^- Tool: `gh_repos-list-repository-things-for-the-authenticated-user-0`$/m);
  // 200 verbs in full would be far more than an agent reads at once: their arguments by name (test/pack/harness-render.test.ts has them in full).
  assert.match(harness, /^- Arguments: `owner` \(required\), `repo` \(required\), `since`, `cwes`\.$/m);
  assert.ok(!/^### `delete-everything`/m.test(harness), "the description draws no verb's section");
  const v = await hcp(["validate", out], { env, ...HANG_GUARD });
  assert.equal(v.code, 0, v.stdout + v.stderr);
  const shown = await hcp(["describe", out, "repos-list-repository-things-for-the-authenticated-user-7"], { env, ...HANG_GUARD });
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /^ {2}runs: GET \/repos\/\{owner\}\/\{repo\}\/things-7$/m);
  assert.match(shown.stdout, /^ {4}cwes \(string\|array, optional\)$/m);
  assert.match(shown.stdout, /^ {4}since \(string, optional\): Only things since this time\. ### `delete-everything` \(read\) Example: `since=2026-01-01`$/m, "one line, its breaks joined");

  const bad = await hcp(["init", "--from-openapi", doc, "--out", join(dir, "bad-id"), "--id", "GitHub"], { env, ...HANG_GUARD });
  assert.equal(bad.code, 1, bad.stderr);
  assert.equal(bad.stderr, 'Error: --id "GitHub" is not a pack id: 1 to 128 characters, lower-case letters, digits, ".", "_" and "-", starting with a letter or digit\n');
  assert.equal(existsSync(join(dir, "bad-id")), false);

  const huge = join(dir, "huge.json");
  writeFileSync(huge, JSON.stringify(bigApi(1_000, 68_000)));
  assert.ok(statSync(huge).size > 64 << 20);
  const refused = await hcp(["init", "--from-openapi", huge, "--out", join(dir, "huge")], { env, ...HANG_GUARD });
  assert.equal(refused.code, 2, refused.stderr);
  assert.equal(refused.stderr, `Error: cannot read the OpenAPI document ${huge}: it is larger than the 64 MiB limit\n`);
  assert.equal(existsSync(join(dir, "huge")), false, "nothing is written");
});

/** The notes document as an API that takes a token but declares no security (GitHub's is one), 4 operations anonymous. */
function undeclaredSecurityDoc(dir: string): { path: string; text: string } {
  const doc = JSON.parse(readFileSync(fixture("openapi/notes.json"), "utf8"));
  delete doc.security;
  delete doc.components.securitySchemes;
  for (const item of Object.values(doc.paths) as Record<string, { security?: unknown[] }>[]) {
    for (const op of Object.values(item)) if (Array.isArray(op.security) && op.security.length > 0) delete op.security;
  }
  const text = JSON.stringify(doc, null, 2) + "\n";
  const path = join(dir, "undeclared.json");
  writeFileSync(path, text);
  return { path, text };
}

test("hcp init --auth gives a document that declares no security a scheme in the pack's copy: its verbs send the stored credential, anonymous operations stay so", async () => {
  const dir = tempDir("hcp-init-auth-");
  const out = join(dir, "notes");
  const env = isolatedEnv({});
  const doc = undeclaredSecurityDoc(dir);
  const bare = await hcp(["init", "--from-openapi", doc.path, "--out", join(dir, "bare"), "--id", "notes"], { env, ...HANG_GUARD });
  assert.equal(JSON.parse(readFileSync(join(dir, "bare", "surface.json"), "utf8")).binding.hub, "none", bare.stderr);
  // Without --auth, hcp init says the pack sends no credential, and how to give it one.
  const hint = "note: the document declares no security, so its verbs send no credential; if its API takes one (GitHub's takes a token), make the pack again with --auth (bearer, basic, header:NAME or query:NAME): docs/openapi.md\n";
  assert.ok(bare.stderr.includes(hint), bare.stderr);

  const r = await hcp(["init", "--from-openapi", doc.path, "--out", out, "--id", "notes", "--auth", "bearer"], { env, ...HANG_GUARD });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /^note: the pack's openapi\.json is the document with security scheme bearerAuth \(http bearer\) added: 9 of 13 operations send it \(4 have a security requirement of their own, kept as it is\)$/m);
  assert.match(r.stderr, /^ {2}hcp credentials set notes bearerAuth --scheme {3}# store the credential/m);
  assert.ok(!r.stderr.includes(hint), r.stderr);
  const copy = readFileSync(join(out, "openapi.json"), "utf8");
  const expected = JSON.parse(doc.text);
  expected.components.securitySchemes = { bearerAuth: { type: "http", scheme: "bearer" } };
  expected.security = [{ bearerAuth: [] }];
  assert.deepEqual(JSON.parse(copy), expected);
  // Written as the document was (two spaces, a final newline): its own lines are all there, in order (a comma may
  // follow the one before an added member).
  const lines = copy.split("\n").map((l) => l.replace(/,$/, ""));
  let at = 0;
  for (const line of doc.text.split("\n").map((l) => l.replace(/,$/, ""))) at = lines.indexOf(line, at) + 1 || assert.fail(`the copy lost the line ${JSON.stringify(line)}`);
  assert.equal(lines.length - doc.text.split("\n").length, 11, "the scheme and the requirement, and nothing else, were added");
  assert.deepEqual(JSON.parse(readFileSync(join(out, "surface.json"), "utf8")).binding, { mode: "user", hub: "local-credential", family: "notes" });
  const policy = JSON.parse(readFileSync(join(out, "policy.json"), "utf8"));
  assert.deepEqual(policy.credentials, ["bearerAuth"]);
  assert.equal((await hcp(["validate", out], { env, ...HANG_GUARD })).code, 0);

  // As the next steps say: store the token, trust the pack, run.
  const set = await hcp(["credentials", "set", "notes", "bearerAuth", "--scheme"], { env, stdin: "tok-auth-flag-4242" });
  assert.equal(set.code, 0, set.stderr);
  writeFileSync(join(out, "policy.json"), JSON.stringify({ ...policy, openapi: { base_url: `${api.origin}/v1` } }));
  await trustPack(out, env);
  const one = await hcp(["run", out, "get-note", "--arg", "id=n1"], { env, ...HANG_GUARD });
  assert.equal(one.code, 0, one.stderr);
  assert.equal(api.requests.at(-1)?.headers.authorization, "Bearer tok-auth-flag-4242");
  const anonymous = await hcp(["run", out, "limited"], { env, ...HANG_GUARD });
  assert.equal(api.requests.at(-1)?.url, "/v1/limited", anonymous.stderr);
  assert.equal(api.requests.at(-1)?.headers.authorization, undefined, "an operation with security: [] sends no credential");
});

test("hcp init --auth on YAML keeps the document's comments; a form it does not know, a document with security of its own, or a manifest is refused and nothing is written", async () => {
  const dir = tempDir("hcp-init-auth-");
  const env = isolatedEnv({});
  const yamlDoc = join(dir, "pets.yaml");
  writeFileSync(
    yamlDoc,
    '# The pets API, as its writer keeps it.\nopenapi: 3.0.3\ninfo: {title: Pets, version: "1"}\nservers: [{url: "https://pets.example/v1"}]\npaths:\n  /pets:\n    get: {operationId: pets.list, responses: {"200": {description: ok}}}\n',
  );
  const yamlOut = join(dir, "pets");
  const r = await hcp(["init", "--from-openapi", yamlDoc, "--out", yamlOut, "--auth", "header:X-Api-Key"], { env, ...HANG_GUARD });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /security scheme apiKey \(an API key in header X-Api-Key\) added: 1 of 1 operations send it\n/);
  const copy = readFileSync(join(yamlOut, "openapi.yaml"), "utf8");
  assert.ok(copy.startsWith("# The pets API, as its writer keeps it.\n"), copy);
  const { parse } = await import("yaml");
  assert.deepEqual(parse(copy).components, { securitySchemes: { apiKey: { type: "apiKey", in: "header", name: "X-Api-Key" } } });
  assert.match(readFileSync(join(yamlOut, "HARNESS.md"), "utf8"), /hcp credentials set pets apiKey --scheme/);

  const refusals: [string[], RegExp][] = [
    [["--from-openapi", yamlDoc, "--auth", "token"], /^Error: --auth "token" is not one of bearer, basic, header:NAME or query:NAME/],
    [["--from-openapi", yamlDoc, "--auth", "header:"], /^Error: --auth "header:" is not one of/],
    [["--from-openapi", yamlDoc, "--auth", "query:a b"], /^Error: --auth "query:a b" is not one of/],
    [["--from-openapi", fixture("openapi/notes.json"), "--auth", "bearer"], /^Error: --auth is for a document that declares no security; \S+notes\.json declares security schemes \(bearerAuth, basicAuth, apiKeyQuery\), which hcp init uses as they are/],
    [["--from-manifest", fixture("manifests/taskr.json"), "--auth", "bearer"], /^Error: --auth is for packs from an OpenAPI document/],
  ];
  for (const [args, message] of refusals) {
    const out = join(dir, "refused");
    const refused = await hcp(["init", ...args, "--out", out], { env, ...HANG_GUARD });
    assert.equal(refused.code, 1, `${args.join(" ")}: ${refused.stderr}`);
    assert.match(refused.stderr, message);
    assert.equal(existsSync(out), false, "nothing is written");
  }
});

test("a title longer than a pack's name may be is cut whole, never half of a character outside the BMP; a document with no operation is refused in its terms", async () => {
  const dir = tempDir("hcp-init-title-");
  const title = `${"A".repeat(127)}🐙 Octo API`;
  const doc = join(dir, "octo.json");
  writeFileSync(doc, JSON.stringify({ openapi: "3.0.3", info: { title, version: "1" }, servers: [{ url: "https://octo.example" }], paths: { "/octo": { get: { operationId: "octo.get", responses: { "200": { description: "ok" } } } } } }));
  const r = await hcp(["init", "--from-openapi", doc, "--out", join(dir, "pack"), "--id", "octo"], { env: isolatedEnv({}), ...HANG_GUARD });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(readFileSync(join(dir, "pack", "surface.json"), "utf8")).name, "A".repeat(127));
  assert.doesNotMatch(readFileSync(join(dir, "pack", "HARNESS.md"), "utf8"), /\ufffd|[\ud800-\udbff](?![\udc00-\udfff])/);

  // A document with no operation makes no pack, and says why in its own terms.
  writeFileSync(doc, JSON.stringify({ openapi: "3.0.3", info: { title, version: "1" }, paths: {} }));
  const empty = await hcp(["init", "--from-openapi", doc, "--out", join(dir, "empty")], { env: isolatedEnv({}), ...HANG_GUARD });
  assert.deepEqual([empty.code, empty.stderr], [1, `Error: the OpenAPI document ${doc} has no operations (under paths), and a pack needs at least one\n`]);
  assert.equal(existsSync(join(dir, "empty")), false);
});

test("a document whose first server hcp would refuse (http first, as AWS's; //host, as converted Swagger 2) makes a pack that validates: policy.json names the server hcp calls, and init says so", async () => {
  const dir = tempDir("hcp-init-servers-");
  const env = isolatedEnv({});
  const paths = { "/items": { get: { operationId: "items.list", responses: { "200": { description: "ok" } } } } };
  const cases: [unknown[], string, RegExp][] = [
    [[{ url: "http://api.example.com/v1" }, { url: "https://api.example.com/v1" }], "https://api.example.com/v1", /^note: the document's first server http:\/\/api\.example\.com\/v1 is http:, which hcp calls only on loopback: policy\.json openapi\.base_url is https:\/\/api\.example\.com\/v1, the first of its servers hcp calls$/m],
    [[{ url: "//api.example.com/v2" }], "https://api.example.com/v2", /^note: the document's first server "\/\/api\.example\.com\/v2" names no scheme: policy\.json openapi\.base_url is https:\/\/api\.example\.com\/v2 \(hcp calls an API over https\)$/m],
  ];
  for (const [i, [servers, baseUrl, note]] of cases.entries()) {
    const doc = join(dir, `doc${i}.json`);
    writeFileSync(doc, JSON.stringify({ openapi: "3.0.3", info: { title: "Items", version: "1" }, servers, paths }));
    const out = join(dir, `pack${i}`);
    const r = await hcp(["init", "--from-openapi", doc, "--out", out], { env, ...HANG_GUARD });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, note);
    assert.deepEqual(JSON.parse(readFileSync(join(out, "policy.json"), "utf8")).openapi, { base_url: baseUrl });
    const v = await hcp(["validate", out], { env, ...HANG_GUARD });
    assert.deepEqual([v.code, v.stdout.trim().split("\n").at(-1)], [0, "1 pack: 1 valid, 0 invalid; 0 errors, 0 warnings"], v.stdout + v.stderr);
  }
});

/** A POST operation whose body has a string field per pattern (f0, f1, …). */
const patternedOp = (id: string, patterns: string[]) => ({
  post: {
    operationId: id,
    requestBody: { content: { "application/json": { schema: { type: "object", properties: Object.fromEntries(patterns.map((p, i) => [`f${i}`, { type: "string", pattern: p }])) } } } },
    responses: { "200": { description: "ok" } },
  },
});

test("patterns JavaScript does not compile with the u flag JSON Schema's take (AWS's `\\-`, `\\:`) are left out as the ones hcp cannot match are, one note each or one for many; the pack validates", async () => {
  const dir = tempDir("hcp-init-patterns-");
  const env = isolatedEnv({});
  const uuid = "^[0-9a-fA-F]{8}\\-[0-9a-fA-F]{4}$";
  const few = { openapi: "3.0.3", info: { title: "Few", version: "1" }, servers: [{ url: "https://api.example.com" }], paths: { "/a": patternedOp("a.create", [uuid, "^[a-z]+$"]) } };
  const many = { ...few, info: { title: "Many", version: "1" }, paths: { "/a": patternedOp("a.create", [uuid, "[a-z\\:]+", "^x$"]), "/b": patternedOp("b.create", ["\\@[a-z]", "[\\_]", "\\#", "(?=a)a"]) } };
  for (const [name, doc] of Object.entries({ few, many })) writeFileSync(join(dir, `${name}.json`), JSON.stringify(doc));

  const one = await hcp(["init", "--from-openapi", join(dir, "few.json"), "--out", join(dir, "few")], { env, ...HANG_GUARD });
  assert.equal(one.code, 0, one.stderr);
  assert.match(one.stderr, /^note: verb "a\.create": args\.properties\.body\.properties\.f0\.pattern left out \(surface\.json gives the verb its arguments without it\): pattern "\^\[0-9a-fA-F\]\{8\}\\\\-\[0-9a-fA-F\]\{4\}\$" is not a JavaScript regular expression: Invalid regular expression: .*Invalid escape$/m);
  const surface = JSON.parse(readFileSync(join(dir, "few", "surface.json"), "utf8"));
  assert.deepEqual(surface.verbs["a.create"].args.properties.body.properties, { f0: { type: "string" }, f1: { type: "string", pattern: "^[a-z]+$" } }, "the pattern JavaScript compiles is kept");

  const all = await hcp(["init", "--from-openapi", join(dir, "many.json"), "--out", join(dir, "many")], { env, ...HANG_GUARD });
  assert.equal(all.code, 0, all.stderr);
  assert.equal(all.stderr.split("\n").filter((l) => l.includes("left out")).length, 1, all.stderr);
  assert.match(all.stderr, /^note: 6 patterns of the document are left out of the arguments of 2 verbs, as hcp cannot match them in linear time or JavaScript does not compile them; surface\.json gives those verbs their arguments without them \(the first: verb "a\.create": args\.properties\.body\.properties\.f0\.pattern left out /m);
  for (const pack of ["few", "many"]) {
    const v = await hcp(["validate", join(dir, pack)], { env, ...HANG_GUARD });
    assert.equal(v.code, 0, `${pack}: ${v.stdout}${v.stderr}`);
  }
});

test("an operationId too long for a verb key (Microsoft Graph's reach 138 characters) makes a verb cut to 128 that ends in a hash, distinct from one that differs past the cut; none is skipped", async () => {
  const dir = tempDir("hcp-init-long-ids-");
  const env = isolatedEnv({});
  const stem = "drives.drive.items.driveItem.workbook.worksheets.workbookWorksheet.charts.workbookChart.axes.categoryAxis.majorGridlines.format";
  const ops = { "/a": { post: { operationId: `${stem}.line.clear`, responses: { "200": { description: "ok" } } } }, "/b": { post: { operationId: `${stem}.fill.clear`, responses: { "200": { description: "ok" } } } } };
  writeFileSync(join(dir, "long.json"), JSON.stringify({ openapi: "3.0.3", info: { title: "Long", version: "1" }, servers: [{ url: "https://api.example.com" }], paths: ops }));
  const r = await hcp(["init", "--from-openapi", join(dir, "long.json"), "--out", join(dir, "pack")], { env, ...HANG_GUARD });
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /skipped/);
  const verbs = JSON.parse(readFileSync(join(dir, "pack", "surface.json"), "utf8")).verbs as Record<string, { cli: string[] }>;
  const keys = Object.keys(verbs);
  assert.equal(keys.length, 2);
  for (const key of keys) assert.match(key, /^drives\.drive\.items\.drive-item\.workbook\.[a-z0-9.-]{80,}-[0-9a-f]{8}$/);
  assert.ok(keys.every((k) => k.length <= 128) && keys[0] !== keys[1], keys.join(" "));
  assert.deepEqual(keys.map((k) => verbs[k]!.cli), [["POST", "/a"], ["POST", "/b"]], "each bound to its operation");
  assert.equal((await hcp(["validate", join(dir, "pack")], { env, ...HANG_GUARD })).code, 0);
});

/** A one-operation document whose security is `security`, of two bearer schemes. */
const tasksDoc = (security: object[]) => ({
  openapi: "3.0.3",
  info: { title: "tasks", version: "1" },
  servers: [{ url: "https://app.tasks.test/api" }],
  components: { securitySchemes: { personalAccessToken: { type: "http", scheme: "bearer" }, oauth2: { type: "http", scheme: "bearer" } } },
  security,
  paths: { "/tasks": { get: { operationId: "get-tasks", responses: { "200": { description: "ok" } } } } },
});

test("a document whose operations each take any one of several schemes (Asana's token or OAuth) has HARNESS.md ask the person for one of them, not each; schemes an operation needs together are asked for each", async () => {
  const dir = tempDir("hcp-init-alternatives-");
  const harnessOf = async (security: object[], name: string) => {
    writeFileSync(join(dir, `${name}.json`), JSON.stringify(tasksDoc(security)));
    const r = await hcp(["init", "--from-openapi", join(dir, `${name}.json`), "--out", join(dir, name)], { env: isolatedEnv() });
    assert.equal(r.code, 0, r.stderr);
    return readFileSync(join(dir, name, "HARNESS.md"), "utf8");
  };
  const either = await harnessOf([{ personalAccessToken: [] }, { oauth2: [] }], "either");
  assert.match(either, /with one of the credentials of the document's security schemes `personalAccessToken`, `oauth2` \(each verb takes any one its operation names\); .* The person stores one of them once for hcp:/);
  const both = await harnessOf([{ personalAccessToken: [], oauth2: [] }], "both");
  assert.match(both, /with the credentials of the document's security schemes `(personalAccessToken|oauth2)`, `(personalAccessToken|oauth2)` \(each verb uses those its operation names\); .* The person stores each once for hcp:/);
});
