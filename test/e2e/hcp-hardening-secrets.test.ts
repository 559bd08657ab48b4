// Secrets (§12) under attack: a truncation oracle, JSON re-encodings, cuts inside characters, secrets sent back in errors.

import assert from "node:assert/strict";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { execSession, hcp, mcpClient, tempDir } from "../transports/support.js";
import { isolatedEnv, probePack } from "./hardening.js";
import { trustPack } from "./helpers.js";

/** A credential file giving family `fam` the variable TOKEN. */
function credentials(token: string): string {
  const file = join(tempDir("hcp-cred-"), "credentials.json");
  writeFileSync(file, JSON.stringify({ fam: { env: { TOKEN: token } } }), { mode: 0o600 });
  return file;
}

const BINDING = { binding: { mode: "user", hub: "local-credential", family: "fam" } };

/** Every text an MCP client sees of a call: the text block and structuredContent (or the error). */
async function mcpOutputs(paths: string[], env: NodeJS.ProcessEnv, calls: { name: string; arguments: Record<string, unknown> }[]): Promise<string[]> {
  const { client, stderr } = await mcpClient(paths, { env });
  const out: string[] = [];
  try {
    for (const call of calls) {
      try {
        out.push(JSON.stringify(await client.callTool(call)));
      } catch (err) {
        out.push(String(err));
      }
    }
  } finally {
    await client.close();
  }
  out.push(stderr());
  return out;
}

test("no truncation oracle: echoing a guess at the cut shows the same bytes whether or not it begins the secret", async () => {
  const secret = "Zq9-tok3n-Xw7-abcdefgh"; // 22 characters
  const cap = 4096;
  const root = probePack("oracle", { echo: { description: "Echo stdin.", cli: ["probe", "run", "stdin"], policy: "read" } }, BINDING, {
    verbs: { echo: { policy: "read", max_output_bytes: cap } },
  });
  const env = isolatedEnv({ HCP_CREDENTIALS: credentials(secret) });
  // The guess ends exactly at the cap, raw or as a JSON encoder would write it; the rest overflows.
  const lines: string[] = [];
  const guesses: string[] = [];
  for (let k = 1; k < secret.length; k++) {
    for (const raw of [secret.slice(0, k), "#".repeat(k)]) {
      for (const guess of [raw, [...raw].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("")]) {
        guesses.push(guess);
        const stdin = "A".repeat(cap - guess.length) + guess + "B".repeat(100);
        lines.push(JSON.stringify({ id: guesses.length, pack: "oracle", verb: "echo", args: {}, stdin }));
      }
    }
  }
  const exec = await execSession([root], lines, [], { env });
  assert.equal(exec.responses.length, guesses.length);
  const expected = "A".repeat(cap - (6 * secret.length - 1));
  for (const r of exec.responses) {
    assert.equal(r.ok, true, JSON.stringify(r.error));
    assert.equal(r.result?.["stdout_truncated"], true);
    // Every answer is the same: the last 6 × 22 − 1 bytes are gone, whatever they were.
    assert.equal(r.result?.["stdout"], expected, `guess ${guesses[Number(r.id) - 1]}`);
  }
  assert.equal(exec.stdout.includes("***"), false, "nothing was masked: nothing was shown");
});

/** A program printing TOKEN the way common JSON encoders write it, one per line. */
function encoderProgram(): string {
  const file = join(tempDir("hcp-encoder-"), "encoder.mjs");
  writeFileSync(
    file,
    `#!/usr/bin/env node
const s = process.env.TOKEN;
const u = (c) => "\\\\u" + c.charCodeAt(0).toString(16).padStart(4, "0");
const units = (t) => [...t].flatMap((ch) => ch.length === 2 ? [ch[0], ch[1]] : [ch]);
const python = units(s).map((c) => c.charCodeAt(0) > 126 ? u(c) : JSON.stringify(c).slice(1, -1)).join("");
const go = JSON.stringify(s).slice(1, -1).replace(/[&<>]/g, u);
const php = python.replace(/\\//g, "\\\\/");
const upper = units(s).map((c) => u(c).toUpperCase().replace("\\\\U", "\\\\u")).join("");
const mixed = units(s).map((c, i) => (i % 2 ? u(c) : JSON.stringify(c).slice(1, -1))).join("");
for (const line of [python, go, php, upper, mixed]) process.stdout.write(JSON.stringify({ v: "" }).replace('""', '"' + line + '"') + "\\n");
`,
  );
  chmodSync(file, 0o755);
  return file;
}

test("every JSON string encoding of a secret is masked on run, exec and MCP (text and structuredContent)", async () => {
  const secret = 'k3y&<>/"é😀-Zq9Xw7';
  const program = encoderProgram();
  const root = probePack("encoded", { show: { description: "Show.", cli: ["probe"], policy: "read" } }, { ...BINDING, wrap: { bin: program } });
  const env = isolatedEnv({ HCP_CREDENTIALS: credentials(secret) });
  await trustPack(root, env);
  const outputs: string[] = [];
  for (const extra of [[], ["--json"]]) {
    const r = await hcp(["run", root, "show", ...extra], { env });
    assert.equal(r.code, 0, r.stderr);
    outputs.push(r.stdout, r.stderr);
  }
  const plain = await hcp(["run", root, "show"], { env });
  assert.equal(plain.stdout, '{"v":"***"}\n'.repeat(5), "each of the five encodings is masked whole");
  const exec = await execSession([root], [JSON.stringify({ id: 1, pack: "encoded", verb: "show", args: {} })], [], { env });
  outputs.push(exec.stdout, exec.stderr);
  outputs.push(...(await mcpOutputs([root], env, [{ name: "encoded_show", arguments: {} }])));
  const all = outputs.join("\n");
  assert.ok(all.includes("***"));
  for (const fragment of ["Zq9Xw7", "k3y", "\\u005a", "\\u005A"]) assert.equal(all.includes(fragment), false, fragment);
});

test("a cut inside a non-ASCII secret shows none of it and never half a character", async () => {
  const secret = "ñáéíóúü€漢字ΩЖ😀"; // 13 characters, 2 to 4 bytes each
  const cap = 1000;
  const root = probePack("cut", { echo: { description: "Echo stdin.", cli: ["probe", "run", "stdin"], policy: "read" } }, BINDING, {
    verbs: { echo: { policy: "read", max_output_bytes: cap } },
  });
  const env = isolatedEnv({ HCP_CREDENTIALS: credentials(secret) });
  const bytes = Buffer.byteLength(secret);
  const lines = [];
  // the cap falls at every byte of the secret in turn
  for (let inside = 1; inside < bytes; inside++) {
    lines.push(JSON.stringify({ id: inside, pack: "cut", verb: "echo", args: {}, stdin: "a".repeat(cap - inside) + secret + "z".repeat(50) }));
  }
  const exec = await execSession([root], lines, [], { env });
  assert.equal(exec.responses.length, bytes - 1);
  for (const r of exec.responses) {
    const out = String(r.result?.["stdout"]);
    assert.match(out, /^a+$/, `cut ${r.id} bytes into the secret: ${JSON.stringify(out.slice(-20))}`);
  }
});

test("secrets the agent sends back (confirm, pack id, request id, arguments, tool name) are masked in every error", async () => {
  const secret = "Zq9-tok3n-Xw7";
  const root = probePack(
    "errs",
    {
      show: { description: "Show.", cli: ["probe", "{{target}}"], policy: "read" },
      pay: { description: "Pay.", cli: ["probe", "pay", "{{to}}"], policy: "write" },
    },
    BINDING,
    { verbs: { show: "read", pay: { policy: "write", confirm: true } } },
  );
  const env = isolatedEnv({ HCP_CREDENTIALS: credentials(secret) });
  const outputs: string[] = [];
  const runs = [
    ["run", root, "pay", "--arg", "to=bob", "--allow-write", "--confirm", secret],
    ["run", root, "show", "--arg", `target=-${secret}`],
    // longer than a message shows: never cut, so no part of the secret appears
    ["run", root, "show", "--arg", `target=-${"x".repeat(30)}${secret}`],
    ["run", root, secret],
    ["run", root, "show", "--args", `{"target": ${secret}}`],
    ["run", root, "show", "--arg", `${secret}=x`],
  ];
  for (const args of runs) {
    for (const json of [[], ["--json"]]) {
      const r = await hcp([...args, ...json], { env });
      assert.notEqual(r.code, 0, args.join(" "));
      outputs.push(r.stdout, r.stderr);
    }
  }
  const requests = [
    { id: secret, pack: secret, verb: "show", args: {} },
    { id: 2, pack: "errs", verb: secret, args: {} },
    { id: 3, pack: "errs", verb: "pay", args: { to: "bob" }, confirm: secret },
    { id: 4, pack: "errs", verb: "show", args: { target: `-${secret}` } },
    { id: 5, pack: "errs", verb: "show", args: { [secret]: "x" } },
    { id: 6, [secret]: 1 },
  ];
  const exec = await execSession([root], [...requests.map((r) => JSON.stringify(r)), `{"id": 7, "pack": ${secret}}`], ["--allow-write"], { env });
  assert.equal(exec.responses.length, requests.length + 1);
  assert.ok(exec.responses.every((r) => r.ok === false));
  assert.equal(exec.responses[0]?.id, "***", "the request id itself is masked");
  assert.match(exec.responses[0]?.error?.message ?? "", /no pack "\*\*\*" is loaded/);
  outputs.push(exec.stdout, exec.stderr);
  outputs.push(
    ...(await mcpOutputs([root], { ...env }, [
      { name: secret, arguments: {} },
      { name: "errs_show", arguments: { target: `-${secret}` } },
      { name: "errs_show", arguments: { [secret]: "x" } },
    ])),
  );
  const all = outputs.join("\n");
  assert.ok(all.includes("***"));
  for (const fragment of [secret, "Zq9", "Xw7"]) assert.equal(all.includes(fragment), false, `${fragment} in:\n${all}`);
});

test("secret-looking policy env variables and writeOnly / password arguments are masked like credentials", async () => {
  const apiToken = "env-Zq9Xw7-value";
  const password = "pw-Kk4Jj2-value";
  const args = {
    type: "object",
    properties: { user: { type: "string" }, password: { type: "string", writeOnly: true }, pin: { type: "string", format: "password" } },
    required: ["user", "password"],
    additionalProperties: false,
  };
  const root = probePack(
    "masked",
    {
      login: { description: "Log in.", cli: ["probe", "{{user}}", "--password={{password}}", "--pin={{pin}}"], args, policy: "read" },
      // The same as a write: a dry run shows its plan.
      signup: { description: "Sign up.", cli: ["probe", "{{user}}", "--password={{password}}", "--pin={{pin}}"], args, policy: "write" },
      env: { description: "Show the env.", cli: ["probe", "run", "env:API_TOKEN", "env:PLAIN_HOME"], policy: "read" },
    },
    {},
    { verbs: { login: "read", signup: "write", env: "read" }, env: ["API_TOKEN", "PLAIN_HOME"] },
  );
  const env = isolatedEnv({ API_TOKEN: apiToken, PLAIN_HOME: "/plain/home" });
  const outputs: string[] = [];
  const login = ["run", root, "login", "--arg", "user=bob", "--arg", `password=${password}`, "--arg", "pin=8642"];
  const signup = ["run", root, "signup", ...login.slice(3)];
  for (const command of [login, [...login, "--json"], [...signup, "--dry-run"], [...signup, "--json", "--dry-run"]]) {
    const r = await hcp(command, { env });
    assert.equal(r.code, 0, r.stderr);
    outputs.push(r.stdout, r.stderr);
  }
  const shownEnv = await hcp(["run", root, "env"], { env });
  assert.equal(shownEnv.stdout, "***\n/plain/home\n", "a name with TOKEN is secret; PLAIN_HOME is not");
  const exec = await execSession([root], [JSON.stringify({ id: 1, pack: "masked", verb: "login", args: { user: "bob", password, pin: "8642" } })], [], { env });
  assert.equal(exec.responses[0]?.ok, true);
  assert.deepEqual((exec.responses[0]!.result!["json"] as { argv: string[] }).argv, ["bob", "--password=***", "--pin=***"]);
  outputs.push(exec.stdout);
  outputs.push(...(await mcpOutputs([root], env, [{ name: "masked_login", arguments: { user: "bob", password, pin: "8642" } }, { name: "masked_env", arguments: {} }])));
  const all = outputs.join("\n");
  for (const fragment of [apiToken, password, "8642", "Zq9Xw7", "Kk4Jj2"]) assert.equal(all.includes(fragment), false, fragment);
  assert.ok(all.includes("bob"), "what is not secret is shown");
});

test("policy env variables named like passwords, PATs and keys (MYSQL_PWD, SMTP_PASS, GITHUB_PAT, API_KEY) are masked; KEYBOARD_LAYOUT is shown", async () => {
  const values = { MYSQL_PWD: "mysql-Hh3Pq8", SMTP_PASS: "smtp-Tt6Yy1", GITHUB_PAT: "ghp-Rr5Ww2", API_KEY: "key-Mm2Nn7" };
  const names = [...Object.keys(values), "KEYBOARD_LAYOUT"];
  const root = probePack(
    "pwds",
    {
      env: { description: "Show the env.", cli: ["probe", "run", ...names.map((n) => `env:${n}`)], policy: "read" },
      // The same as a write: a dry run shows its plan.
      envw: { description: "Show the env, as a write.", cli: ["probe", "run", ...names.map((n) => `env:${n}`)], policy: "write" },
    },
    {},
    { verbs: { env: "read", envw: "write" }, env: names },
  );
  const env = isolatedEnv({ ...values, KEYBOARD_LAYOUT: "dvorak" });
  const shown = await hcp(["run", root, "env"], { env });
  assert.equal(shown.code, 0, shown.stderr);
  assert.equal(shown.stdout, "***\n***\n***\n***\ndvorak\n");
  const outputs = [shown.stdout, shown.stderr];
  for (const command of [["env", "--json"], ["envw", "--dry-run", "--json"]]) {
    const r = await hcp(["run", root, ...command], { env });
    assert.equal(r.code, 0, r.stderr);
    outputs.push(r.stdout, r.stderr);
  }
  const plan = JSON.parse(outputs.at(-2)!) as { plan: { env: Record<string, string> } };
  assert.match(plan.plan.env["MYSQL_PWD"]!, /^hmac-sha256:/, "the plan names the password by its keyed digest");
  assert.equal(plan.plan.env["KEYBOARD_LAYOUT"], "dvorak");
  outputs.push(...(await mcpOutputs([root], env, [{ name: "pwds_env", arguments: {} }])));
  const all = outputs.join("\n");
  for (const value of Object.values(values)) assert.equal(all.includes(value), false, value);
});

test("the password of a URL in a policy env variable (DATABASE_URL) is masked; the rest of the URL is shown", async () => {
  const url = "postgres://app:pw-Vv8Cc3%21@db.example:5432/app";
  const root = probePack(
    "dburl",
    {
      env: { description: "Show the env.", cli: ["probe", "run", "env:DATABASE_URL", "env:HOME_URL"], policy: "read" },
      // The same as a write: a dry run shows its plan.
      envw: { description: "Show the env, as a write.", cli: ["probe", "run", "env:DATABASE_URL", "env:HOME_URL"], policy: "write" },
    },
    {},
    { verbs: { env: "read", envw: "write" }, env: ["DATABASE_URL", "HOME_URL"] },
  );
  const env = isolatedEnv({ DATABASE_URL: url, HOME_URL: "https://example.org/" });
  const shown = await hcp(["run", root, "env"], { env });
  assert.equal(shown.code, 0, shown.stderr);
  assert.equal(shown.stdout, "postgres://app:***@db.example:5432/app\nhttps://example.org/\n");
  const outputs = [shown.stdout, shown.stderr];
  for (const command of [["env", "--json"], ["envw", "--dry-run", "--json"]]) {
    const r = await hcp(["run", root, ...command], { env });
    assert.equal(r.code, 0, r.stderr);
    outputs.push(r.stdout, r.stderr);
  }
  outputs.push(...(await mcpOutputs([root], env, [{ name: "dburl_env", arguments: {} }])));
  const all = outputs.join("\n");
  assert.equal(all.includes("Vv8Cc3"), false, all);
  assert.ok(all.includes("db.example:5432/app"), "what is not secret is shown");
});

/** A program printing TOKEN and its last operand in links, the ways URL encoders write a value, one per line. */
function linkProgram(): string {
  const file = join(tempDir("hcp-links-"), "links.mjs");
  writeFileSync(
    file,
    `#!/usr/bin/env node
// Python's urllib.parse.quote, byte by byte: every byte but A-Z a-z 0-9 _ . - ~ and those of safe as %XX.
const quote = (s, safe) => [...Buffer.from(s)].map((b) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) || safe.includes(String.fromCharCode(b)) ? String.fromCharCode(b) : "%" + b.toString(16).toUpperCase().padStart(2, "0"))).join("");
for (const s of [process.env.TOKEN, process.argv.at(-1)]) {
  const percent = encodeURIComponent(s);
  const forms = [
    percent, // JavaScript
    percent.replace(/%2F/g, "/"), // JavaScript, / kept
    new URLSearchParams({ v: s }).toString().slice(2), // a form: spaces as +
    quote(s, "/"), // Python's quote
    quote(s, ""), // Python's quote(s, safe=""), PHP's rawurlencode
    s.split(" ").map((w) => quote(w, "")).join("+"), // Python's quote_plus and urlencode, Go's QueryEscape
    s.split(" ").map((w) => quote(w, "").replace(/~/g, "%7E")).join("+"), // PHP's urlencode
    percent.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()), // lower-case hex
    encodeURIComponent("https://api.example/login?t=" + percent), // the link inside another one's next=
  ];
  for (const form of forms) process.stdout.write("https://git.example/repo?next=" + form + "&user=alice\\n");
}
`,
  );
  chmodSync(file, 0o755);
  return file;
}

test("attack: a secret a program prints in a link (percent-encoded as JavaScript, Python and PHP write it, form-encoded, lower-case hex, inside another link) is masked on run, exec and MCP", async () => {
  // `*!'()` JavaScript keeps and Python encodes; `~` PHP's urlencode encodes.
  const token = "tk/Zq9+Xw7=@ é&1*!~'()";
  const password = "pw:Kk4 Jj2/ü?*(~";
  const args = { type: "object", properties: { password: { type: "string", writeOnly: true } }, required: ["password"], additionalProperties: false };
  const root = probePack("links", { show: { description: "Show links.", cli: ["probe", "--", "{{password}}"], args, policy: "read" } }, { ...BINDING, wrap: { bin: linkProgram() } });
  const env = isolatedEnv({ HCP_CREDENTIALS: credentials(token) });
  await trustPack(root, env);
  const plain = await hcp(["run", root, "show", "--arg", `password=${password}`], { env });
  assert.equal(plain.code, 0, plain.stderr);
  // Each link keeps its own parts: only the secret's form is gone, whole.
  const lines = plain.stdout.split("\n").slice(0, -1);
  assert.equal(lines.length, 18);
  const nested = "https://git.example/repo?next=https%3A%2F%2Fapi.example%2Flogin%3Ft%3D***&user=alice";
  assert.deepEqual(lines, [0, 1].flatMap(() => [...Array(8).fill("https://git.example/repo?next=***&user=alice"), nested]));
  const outputs = [plain.stdout, plain.stderr];
  const json = await hcp(["run", root, "show", "--arg", `password=${password}`, "--json"], { env });
  assert.equal(json.code, 0, json.stderr);
  outputs.push(json.stdout, json.stderr);
  const exec = await execSession([root], [JSON.stringify({ id: 1, pack: "links", verb: "show", args: { password } })], [], { env });
  assert.equal(exec.responses[0]?.ok, true, exec.stdout);
  outputs.push(exec.stdout, exec.stderr);
  outputs.push(...(await mcpOutputs([root], env, [{ name: "links_show", arguments: { password } }])));
  const all = outputs.join("\n");
  for (const fragment of ["Zq9", "Xw7", "Kk4", "Jj2"]) assert.equal(all.includes(fragment), false, `${fragment} in:\n${all}`);
  assert.ok(all.includes("&user=alice"));
});

/** A program printing the request header a verbose HTTP client shows (`curl -v`), with TOKEN in it. */
function verboseProgram(): string {
  const file = join(tempDir("hcp-verbose-"), "verbose.mjs");
  writeFileSync(file, `#!/usr/bin/env node\nprocess.stdout.write("> GET /user\\n> Authorization: Bearer " + process.env.TOKEN + "\\n< 200 OK\\n");\n`);
  chmodSync(file, 0o755);
  return file;
}

/** Guesses one call can try: a first character after the text before the secret, or a known prefix; one of them is right. */
const guesses = (token: string) => [..."abcdefgh"].map((c) => `r ${c}`).concat(["Bearer ghp_", `Authorization: Bearer ${token.slice(0, token.length - 9)}`]);

test("attack: an agent's secret value that begins before a credential in the output and ends inside it (Bearer g, r g) leaves none of the credential shown, short or long, on run, exec and MCP", async () => {
  const short = "ghp_Zq9Xw7Kp2LmN8vB4tR6yU1";
  const long = `ghp_${"Lq7Vb3Nm".repeat(40)}Zz`; // past 256 characters: found as whole strings, not by the pattern
  const args = { type: "object", properties: { guesses: { type: "array", items: { type: "string", writeOnly: true } } }, required: ["guesses"], additionalProperties: false };
  const root = probePack("verbose", { call: { description: "Call.", cli: ["probe", "--", "{{guesses}}"], args, policy: "read" } }, { ...BINDING, wrap: { bin: verboseProgram() } });
  for (const token of [short, long]) {
    const env = isolatedEnv({ HCP_CREDENTIALS: credentials(token) });
    await trustPack(root, env);
    // One call a guess (exec), then one with them all: a wrong guess masks the credential alone; a right one the stretch
    // from the guess's start to the credential's end; all at once, the last, from "Authorization", covers the most.
    const line = `> Authorization: Bearer ${token}`;
    const shown = (g: string) => (line.includes(g) ? `${line.slice(0, line.indexOf(g))}***` : "> Authorization: Bearer ***");
    const each = [...guesses(token).map((g) => [g]), guesses(token)];
    const exec = await execSession([root], each.map((g, id) => JSON.stringify({ id, pack: "verbose", verb: "call", args: { guesses: g } })), [], { env });
    for (const [id, g] of each.entries()) {
      const response = exec.responses.find((r) => r.id === id);
      assert.equal(response?.result?.["stdout"], `> GET /user\n${g.length === 1 ? shown(g[0]!) : "> ***"}\n< 200 OK\n`, `guesses ${JSON.stringify(g)}`);
    }
    const outputs = [exec.stdout, exec.stderr];
    const plain = await hcp(["run", root, "call", "--args", JSON.stringify({ guesses: ["r g"] })], { env });
    assert.equal(plain.stdout, `> GET /user\n${shown("r g")}\n< 200 OK\n`, plain.stderr);
    const json = await hcp(["run", root, "call", "--args", JSON.stringify({ guesses: guesses(token) }), "--json"], { env });
    assert.equal(json.code, 0, json.stderr);
    outputs.push(plain.stdout, plain.stderr, json.stdout, json.stderr);
    outputs.push(...(await mcpOutputs([root], env, [{ name: "verbose_call", arguments: { guesses: guesses(token) } }])));
    const all = outputs.join("\n");
    // No stretch of the credential's end shows, however little of it.
    assert.equal(all.includes(token.slice(-6)), false, `the end of the credential shows in:\n${all}`);
  }
});
