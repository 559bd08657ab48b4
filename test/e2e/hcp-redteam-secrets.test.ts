// Red team: a credential leaking through what the MCP SDK itself answers. The agent makes the server (or the SDK
// inside it) refuse requests that quote a secret — as a prompt name, a resource URI, a line that is not JSON, the
// MCP-Protocol-Version header — and the test asserts the secret appears nowhere in what comes back.

import assert from "node:assert/strict";
import { test } from "node:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { SECRET_PACK, credentialFile, execSession, hcp, mcpClient, rawHttp, serveHttp, tempDir } from "../transports/support.js";
import { isolatedEnv } from "./hardening.js";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { isolatedEnv as openapiEnv, openapiPack } from "./openapi-support.js";

const SECRET = "sdk-leak-Zq8TVw3mN5";

const frame = (message: object) => JSON.stringify({ jsonrpc: "2.0", ...message });
const INIT = [
  frame({ id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } }),
  frame({ method: "notifications/initialized" }),
];

test("over stdio, errors the SDK and the handlers make from the agent's request never quote a secret: a prompt name, a resource URI, a line that is not JSON", async () => {
  const env = isolatedEnv({ HCP_CREDENTIALS: credentialFile(SECRET) });
  const lines = [
    ...INIT,
    frame({ id: 2, method: "prompts/get", params: { name: SECRET } }),
    frame({ id: 3, method: "resources/read", params: { uri: `hcp://${SECRET}/HARNESS.md` } }),
    SECRET,
    `{"jsonrpc":"2.0","id":4,"method":"${SECRET}`,
    frame({ id: 5, method: "tools/call", params: { name: "hcp-secret_show", arguments: {} } }),
  ];
  const r = await hcp(["serve", "--mcp", SECRET_PACK], { env, stdin: lines.join("\n") + "\n", timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  const answers = r.stdout
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as { id?: number; error?: { code: number; message: string }; result?: unknown });
  const byId = new Map(answers.map((a) => [a.id, a]));
  assert.match(byId.get(2)?.error?.message ?? "", /no prompt "\*\*\*"/, "the prompt name is masked");
  assert.match(byId.get(3)?.error?.message ?? "", /no resource "hcp:\/\/\*\*\*\/HARNESS\.md"/, "the URI is masked");
  assert.equal(answers.filter((a) => a.error?.code === -32700).length, 2, "each line that is not JSON is answered");
  assert.ok(byId.get(5)?.result !== undefined, "the server went on");
  assert.equal(r.stdout.includes(SECRET), false, r.stdout);
  assert.equal(r.stderr.includes(SECRET), false, r.stderr);
});

test("over HTTP, a secret sent as the MCP-Protocol-Version header or a prompt name is never quoted back", async () => {
  const env = isolatedEnv({ HCP_CREDENTIALS: credentialFile(SECRET) });
  const served = await serveHttp([SECRET_PACK], { env });
  try {
    const version = await rawHttp(served.url, { headers: { "mcp-protocol-version": SECRET }, body: frame({ id: 1, method: "tools/list" }) });
    assert.equal(version.status, 400);
    assert.match(version.body, /unsupported MCP-Protocol-Version/);
    const prompt = await rawHttp(served.url, { body: frame({ id: 2, method: "prompts/get", params: { name: SECRET } }) });
    assert.match(prompt.body, /no prompt \\"\*\*\*\\"/);
    const listed = await rawHttp(served.url, { headers: { "mcp-protocol-version": "2025-06-18" }, body: frame({ id: 3, method: "tools/list" }) });
    assert.match(listed.body, /hcp-secret_show/, "a supported version still gets its answer");
    for (const body of [version.body, prompt.body]) assert.equal(body.includes(SECRET), false, body);
    assert.equal(served.stderr().includes(SECRET), false);
  } finally {
    await served.stop();
  }
});

for (const args of [[], ["--stateful"]]) {
  const mode = args.length === 0 ? "stateless" : "--stateful";
  test(`over HTTP (${mode}), no response body or header quotes a secret the agent sent in a request crafted to be refused: Host, Origin, session id, version, path, Accept, Content-Type, body`, async () => {
    const env = isolatedEnv({ HCP_CREDENTIALS: credentialFile(SECRET) });
    const served = await serveHttp([SECRET_PACK], { env, args });
    try {
      const { host } = new URL(served.url);
      const body = frame({ id: 9, method: "tools/list", params: { cursor: SECRET } });
      const attempts: [string, Parameters<typeof rawHttp>[1]][] = [
        ["Host", { headers: { host: `${SECRET}.example:${new URL(served.url).port}` }, body }],
        ["Origin", { headers: { origin: `http://${SECRET}.example` }, body }],
        ["Mcp-Session-Id", { headers: { "mcp-session-id": SECRET }, body }],
        ["DELETE with Mcp-Session-Id", { method: "DELETE", headers: { "mcp-session-id": SECRET } }],
        ["MCP-Protocol-Version", { headers: { "mcp-protocol-version": `${SECRET}` }, body }],
        ["a path", { method: "GET", headers: { host }, body: "" }],
        ["Accept", { headers: { accept: `application/json; ${SECRET}` }, body }],
        ["Content-Type", { headers: { "content-type": `text/plain; ${SECRET}` }, body }],
        ["a body that is not JSON", { body: `{"jsonrpc":"2.0","id":1,"method":"${SECRET}` }],
        ["a body that is not JSON-RPC", { body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: 42, params: { x: SECRET } }) }],
        ["a batch", { body: JSON.stringify([{ jsonrpc: "2.0", id: 1, method: SECRET }, { jsonrpc: "2.0", id: 2, method: "ping", params: { x: SECRET } }]) }],
        ["an unknown method", { body: frame({ id: 3, method: SECRET }) }],
        ["a bad cursor", { body }],
      ];
      const url = (name: string) => (name === "a path" ? served.url.replace(/\/mcp$/, `/mcp/${SECRET}`) : served.url);
      let refused = 0;
      for (const [name, request] of attempts) {
        const r = await rawHttp(url(name), request);
        if (r.status >= 400 || /"error"/.test(r.body)) refused++;
        assert.equal(r.body.includes(SECRET), false, `${name}: ${r.status} ${r.body}`);
        assert.equal(JSON.stringify(r.headers).includes(SECRET), false, `${name}: ${JSON.stringify(r.headers)}`);
        if (name === "Host") assert.match(r.body, /forbidden: Host \\"\*\*\*\.example:\d+\\"/, "the refusal is masked, not dropped");
      }
      assert.equal(refused, attempts.length, "every crafted request was refused");
      assert.equal(served.stderr().includes(SECRET), false);
    } finally {
      await served.stop();
    }
  });
}

test("attack: a masked credential's length is not told by the byte counts beside it: stdout_bytes (hcp exec, MCP), body_bytes (an API that echoes the token) are those of the text shown, the same for a short and a long credential, and the server's content-length is not shown", async () => {
  const counts: string[] = [];
  for (const secret of ["short-Zq8TVw3m", `long-${"Zq8TVw3mN5".repeat(6)}`]) {
    const env = isolatedEnv({ HCP_CREDENTIALS: credentialFile(secret) });
    const exec = await execSession([SECRET_PACK], [JSON.stringify({ id: 1, pack: "hcp-secret", verb: "show" })], [], { env });
    assert.equal(exec.responses.length, 1, exec.stderr);
    const r = exec.responses[0]!.result as { stdout: string; stdout_bytes: number };
    assert.match(r.stdout, /\*\*\*/);
    assert.equal(r.stdout_bytes, Buffer.byteLength(r.stdout), "hcp exec: the bytes of the text shown");
    let mcpBytes = 0;
    const { client } = await mcpClient([SECRET_PACK], { env });
    try {
      const called = (await client.callTool({ name: "hcp-secret_show", arguments: {} })) as unknown as { structuredContent: { stdout: string; stdout_bytes: number } };
      mcpBytes = called.structuredContent.stdout_bytes;
      assert.equal(mcpBytes, Buffer.byteLength(called.structuredContent.stdout), "MCP: the bytes of the text shown");
    } finally {
      await client.close();
    }
    // An API that echoes its token, with the length and an ETag of what it sends, as Express does.
    const api = createServer((req, res) => {
      const body = JSON.stringify({ token: (req.headers.authorization ?? "").replace(/^Bearer /, "") });
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body), etag: `W/"${Buffer.byteLength(body).toString(16)}-x"` });
      res.end(body);
    });
    await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
    try {
      const origin = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
      const pack = openapiPack({ doc: "notes.yaml", verbs: { whoami: { description: "Who the server thinks we are." } }, policy: { openapi: { base_url: `${origin}/v1` } } });
      const http = await execSession([pack], [JSON.stringify({ id: 1, pack: "notes", verb: "whoami" })], [], { env: openapiEnv({ notes: { openapi: { bearerAuth: secret } } }) });
      const body = http.responses[0]!.result as { body: string; body_bytes: number; headers: Record<string, string> };
      assert.match(body.body, /"token":"\*\*\*"/, JSON.stringify(body));
      assert.equal(body.body_bytes, Buffer.byteLength(body.body), "the bytes of the body shown");
      assert.deepEqual(Object.keys(body.headers), ["content-type"], "not the server's content-length (nor an ETag) of the body it sent");
      counts.push(`${r.stdout_bytes} ${mcpBytes} ${body.body_bytes}`);
    } finally {
      await new Promise<void>((resolve) => api.close(() => resolve()));
    }
  }
  assert.equal(counts[0], counts[1], "the same counts whatever the credential's length");
});

test("attack: a credential written into a pack's own text (a verb's description, an argument's default, HARNESS.md, as hcp init copies a CLI's help) is masked wherever hcp shows that text: MCP's instructions, tools, resources and prompts, and hcp describe, run --help, list, meta, skill and validate; the tool is still called by its arguments' names", async () => {
  const secret = "s3cr3tTOKENvalue9876";
  const root = tempDir("hcp-pack-text-");
  const who = { type: "string", description: `Whom to greet (default: ${secret}).`, default: secret };
  const verbs = { say: { description: `Say it; the token is ${secret}.`, cli: ["echo", "{{who}}"], args: { type: "object", properties: { who }, required: ["who"] }, policy: "read" } };
  writeFileSync(join(root, "surface.json"), JSON.stringify({ id: "texts", name: `Texts ${secret}`, kind: "wrap", cliBin: "echo", wrap: { bin: "/bin/echo" }, binding: { mode: "local", hub: "none" }, verbs }));
  writeFileSync(join(root, "policy.json"), JSON.stringify({ surface_id: "texts", verbs: { say: "read" } }));
  writeFileSync(join(root, "HARNESS.md"), `---\nname: texts\ndescription: Uses the token ${secret}.\n---\n\nThe token is ${secret}.\n`);
  const env = isolatedEnv({ HCP_CREDENTIALS: credentialFile(secret) });
  const { client } = await mcpClient([root], { env });
  try {
    const uri = (await client.listResources()).resources[0]!.uri;
    const shown = JSON.stringify([client.getInstructions(), await client.listTools(), await client.listResources(), await client.readResource({ uri }), await client.listPrompts(), await client.getPrompt({ name: "texts" })]);
    assert.ok(shown.includes("***"), "the text is there, masked");
    assert.ok(!shown.includes(secret), "no credential in MCP's listings");
    const r = await client.callTool({ name: "texts_say", arguments: { who: "alice" } });
    assert.equal((r.content as { text: string }[])[0]!.text, "alice\n", "the argument keeps its name");
  } finally {
    await client.close();
  }
  for (const command of [["describe", root], ["describe", root, "--json"], ["run", root, "say", "--help"], ["list", root], ["list", root, "--json"], ["meta", root], ["skill", root], ["validate", root], ["validate", root, "--json"]]) {
    const r = await hcp(command, { env });
    assert.equal(r.code, 0, `${command.join(" ")}: ${r.stderr}`);
    assert.ok(!(r.stdout + r.stderr).includes(secret), `hcp ${command[0]} ${command.slice(2).join(" ")} shows no credential`);
  }
});

test("attack: a pack that does not load is named with the text it holds (a verb's policy value, its key) by every command an agent runs on it, and a command line's error quotes what it was given: the credential written there is masked in each error, --json too", async () => {
  const secret = "s3cr3ttokenvalue9876";
  const root = tempDir("hcp-pack-bad-text-");
  const verbs = { say: { description: "Say.", cli: ["echo", "hi"], policy: secret }, [`k${secret}`]: { description: "Odd.", cli: ["echo", "{{"] } };
  writeFileSync(join(root, "surface.json"), JSON.stringify({ id: "bad", kind: "wrap", cliBin: "echo", wrap: { bin: "/bin/echo" }, binding: { mode: "local", hub: "none" }, verbs }));
  const env = isolatedEnv({ HCP_CREDENTIALS: credentialFile(secret) });
  // And the errors of the command line itself, which quote what the caller wrote: an unknown flag, command or value.
  const parsing = [["run", root, "say", `--${secret}`], ["describe", root, "say", `--json=${secret}`], [secret], [`--${secret}`], ["exec", root, `--${secret}`]];
  for (const command of [["validate", root], ["describe", root], ["describe", root, "--json"], ["run", root, "say", "--help"], ["run", root, "say"], ["list", root, "--json"], ["meta", root], ["skill", root], ...parsing]) {
    const r = await hcp(command, { env });
    assert.notEqual(r.code, 0, `hcp ${command[0]} refuses the pack`);
    assert.ok(!(r.stdout + r.stderr).includes(secret), `hcp ${command.filter((w) => w !== root).join(" ")}: ${r.stdout}${r.stderr}`);
  }
  const exec = await execSession([root], [JSON.stringify({ id: 1, pack: "bad", verb: "say", args: {} })], [], { env });
  assert.ok(!(exec.stdout + exec.stderr).includes(secret), exec.stdout + exec.stderr);
});
