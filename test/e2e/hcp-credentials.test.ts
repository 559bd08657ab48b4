// `hcp credentials` with the credential file: values from stdin only, the file 0600 and written whole, shown masked.

import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { HCP, SECRET_PACK, hcp, tempDir } from "../transports/support.js";
import { notesApi, type Api } from "./notes-api.js";
import { isolatedEnv, openapiPack } from "./openapi-support.js";
import { trustPack } from "./helpers.js";

const VALUE = "cred-V4lue-from-stdin-42";
let api: Api;
before(async () => {
  api = await notesApi();
});
after(() => api.close());

/** An environment whose credential file does not exist yet, in a folder that does not either. */
function freshEnv(): NodeJS.ProcessEnv {
  const env = isolatedEnv();
  return { ...env, HCP_CREDENTIALS: join(tempDir("hcp-cred-home-"), "config", "hcp", "credentials.json") };
}

test("set reads the value from stdin into a new 0600 file; get masks it unless --reveal; run uses it; delete removes it", async () => {
  const env = freshEnv();
  const file = env["HCP_CREDENTIALS"]!;
  const set = await hcp(["credentials", "set", "secretfam", "SECRET_TOKEN"], { env, stdin: `${VALUE}\n` });
  assert.equal(set.code, 0, set.stderr);
  assert.equal(`${set.stdout}${set.stderr}`.includes(VALUE), false);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(statSync(join(file, "..")).mode & 0o777, 0o700);
  assert.deepEqual(JSON.parse(readFileSync(file, "utf8")), { secretfam: { env: { SECRET_TOKEN: VALUE } } });

  const get = await hcp(["credentials", "get", "secretfam", "SECRET_TOKEN"], { env });
  assert.equal(get.stdout, "***\n");
  const json = await hcp(["credentials", "get", "secretfam", "SECRET_TOKEN", "--json"], { env });
  assert.equal(JSON.parse(json.stdout).value, "***");
  const reveal = await hcp(["credentials", "get", "secretfam", "SECRET_TOKEN", "--reveal"], { env });
  assert.equal(reveal.stdout, `${VALUE}\n`);

  // The wrapped program gets it; its output shows it masked.
  await trustPack(SECRET_PACK, env);
  const run = await hcp(["run", SECRET_PACK, "show"], { env });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^\*\*\*\n/);

  // A security scheme's value beside it, used by an openapi pack; the other family's value is kept.
  const scheme = await hcp(["credentials", "set", "notes", "bearerAuth", "--scheme"], { env, stdin: "tok-scheme-9876" });
  assert.equal(scheme.code, 0, scheme.stderr);
  assert.deepEqual(JSON.parse(readFileSync(file, "utf8")), { secretfam: { env: { SECRET_TOKEN: VALUE } }, notes: { openapi: { bearerAuth: "tok-scheme-9876" } } });
  const pack = openapiPack({ doc: "notes.yaml", verbs: { whoami: { description: "Who." } }, policy: { openapi: { base_url: `${api.origin}/v1` } } });
  await trustPack(pack, env);
  const who = await hcp(["run", pack, "whoami"], { env, timeoutMs: 60_000 });
  assert.equal(who.code, 0, who.stderr);
  assert.equal(api.requests.at(-1)?.headers.authorization, "Bearer tok-scheme-9876");

  const del = await hcp(["credentials", "delete", "secretfam", "SECRET_TOKEN"], { env });
  assert.equal(del.code, 0, del.stderr);
  assert.equal((await hcp(["credentials", "get", "secretfam", "SECRET_TOKEN"], { env })).code, 5);
  assert.equal((await hcp(["credentials", "delete", "secretfam", "SECRET_TOKEN"], { env })).code, 5);
  assert.equal(statSync(file).mode & 0o777, 0o600, "rewritten 0600");
});

test("attack: under the operator's HCP_NO_PROMPT, an agent running hcp credentials cannot put its own token in place of the person's, delete theirs, or read it with --reveal (exit 4); the file is left as it was; the masked get still answers", async () => {
  const env = freshEnv();
  const file = env["HCP_CREDENTIALS"]!;
  assert.equal((await hcp(["credentials", "set", "secretfam", "SECRET_TOKEN"], { env, stdin: VALUE })).code, 0);
  const persons = readFileSync(file, "utf8");
  const agents = { ...env, HCP_NO_PROMPT: "1" };
  const attempts: [string[], string | undefined][] = [
    [["credentials", "set", "secretfam", "SECRET_TOKEN"], "agents-own-token"],
    [["credentials", "delete", "secretfam", "SECRET_TOKEN"], undefined],
    [["credentials", "get", "secretfam", "SECRET_TOKEN", "--reveal"], undefined],
  ];
  for (const [args, stdin] of attempts) {
    const r = await hcp(args, { env: agents, ...(stdin === undefined ? {} : { stdin }) });
    assert.equal(r.code, 4, `${args.join(" ")}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, /must be run by a person at a terminal of their own: HCP_NO_PROMPT is set here/);
    assert.ok(!`${r.stdout}${r.stderr}`.includes(VALUE), "the value never shows");
  }
  assert.equal(readFileSync(file, "utf8"), persons, "the credential file is as the person left it");
  assert.equal((await hcp(["credentials", "get", "secretfam", "SECRET_TOKEN"], { env: agents })).stdout, "***\n");
  // Where the variable is not set (the person's terminal), the same commands work.
  assert.equal((await hcp(["credentials", "get", "secretfam", "SECRET_TOKEN", "--reveal"], { env })).stdout, `${VALUE}\n`);
});

test("a value is never taken from argv, and nothing is written for a refused value", async () => {
  const env = freshEnv();
  const file = env["HCP_CREDENTIALS"]!;
  const argv = await hcp(["credentials", "set", "fam", "TOKEN", VALUE], { env, stdin: "" });
  assert.equal(argv.code, 1);
  assert.equal(`${argv.stdout}${argv.stderr}`.includes(VALUE), false, "the refusal does not echo it");
  for (const stdin of ["", "a\nb", "nul\0x"]) {
    const r = await hcp(["credentials", "set", "fam", "TOKEN"], { env, stdin });
    assert.notEqual(r.code, 0, JSON.stringify(stdin));
  }
  const bad = await hcp(["credentials", "set", "fam", "NOT-A-VAR"], { env, stdin: VALUE });
  assert.equal(bad.code, 1, "a bad argument is a usage error");
  assert.match(bad.stderr, /--scheme for a security scheme/);
  assert.equal(existsSync(file), false, "nothing was written");
});

test("hcp credentials without a command is a usage error: its usage on stderr, exit 1, nothing on stdout; --help still succeeds", async () => {
  const env = freshEnv();
  const bare = await hcp(["credentials"], { env });
  assert.equal(bare.code, 1, bare.stderr);
  assert.equal(bare.stdout, "");
  assert.match(bare.stderr, /Usage:\n {2}hcp credentials \[command\]/);
  assert.match(bare.stderr, /Error: hcp credentials needs a command: set, get, delete\n$/);
  // Machine output: stderr is the one JSON error, no help text around it.
  const json = await hcp(["credentials", "--json"], { env });
  assert.equal(json.code, 1, json.stderr);
  assert.equal(json.stdout, "");
  assert.deepEqual(JSON.parse(json.stderr), { error: "hcp credentials needs a command: set, get, delete", exit_code: 1 });
  const help = await hcp(["credentials", "--help"], { env });
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /Available Commands:/);
  assert.equal(existsSync(env["HCP_CREDENTIALS"]!), false, "nothing was written");
});

test("every hcp credentials error names what is wrong, with the spec's exit code (1 bad input, 3 unusable file, 5 none stored) and no stack trace", async () => {
  const dir = tempDir("hcp-cred-errors-");
  const file = (name: string, text: string, mode = 0o600) => {
    const path = join(dir, name);
    writeFileSync(path, text, { mode });
    chmodSync(path, mode);
    return path;
  };
  const fifo = join(dir, "fifo");
  spawnSync("mkfifo", ["-m", "600", fifo]);
  const good = file("good.json", JSON.stringify({ fam: { env: { TOKEN: VALUE } } }));
  const cases: { what: string; args: string[]; stdin?: string; at?: string; code: number; message: RegExp }[] = [
    { what: "bad family", args: ["set", "bad fam", "TOKEN"], stdin: VALUE, code: 1, message: /FAMILY "bad fam" must be 1 to 128 letters/ },
    { what: "bad family on get", args: ["get", "../x", "TOKEN"], code: 1, message: /FAMILY "\.\.\/x"/ },
    { what: "bad variable name", args: ["set", "fam", "bad-name"], stdin: VALUE, code: 1, message: /NAME "bad-name" is not a variable name.*--scheme/ },
    { what: "bad scheme name", args: ["delete", "fam", "a\tb", "--scheme"], code: 1, message: /NAME "a\\tb" is not a credential name/ },
    { what: "no value on stdin", args: ["set", "fam", "TOKEN"], stdin: "", code: 1, message: /no value given.*standard input/ },
    { what: "a value of two lines", args: ["set", "fam", "TOKEN"], stdin: "a\nb", code: 1, message: /contains NUL, CR or LF/ },
    // Refused before anything is read, and never echoed: it is a secret.
    { what: "a value given as an argument", args: ["set", "fam", "TOKEN", "tok-9f2c"], stdin: "", code: 1, message: /^(?![\s\S]*tok-9f2c)[\s\S]*takes FAMILY and NAME only, never the value.*type it at the prompt, or pipe it/ },
    { what: "no NAME", args: ["set", "fam"], stdin: VALUE, code: 1, message: /give FAMILY and NAME: hcp credentials set FAMILY NAME, where FAMILY is the pack's binding\.family/ },
    { what: "no FAMILY on delete", args: ["delete"], code: 1, message: /give FAMILY and NAME: hcp credentials delete FAMILY NAME/ },
    { what: "unreadable file (a path through a file)", args: ["get", "fam", "TOKEN"], at: join(good, "x"), code: 3, message: /cannot read credential file .*good\.json\/x: a part of the path is not a directory/ },
    { what: "a directory", args: ["set", "fam", "TOKEN"], stdin: VALUE, at: dir, code: 3, message: /credential file .*: it is a directory, not a regular file/ },
    { what: "a FIFO", args: ["get", "fam", "TOKEN"], at: fifo, code: 3, message: /it is a FIFO, not a regular file/ },
    { what: "wrong mode", args: ["get", "fam", "TOKEN"], at: file("open.json", "{}", 0o640), code: 3, message: /has mode 0640; only its owner may read or write it \(chmod 600 / },
    { what: "not JSON", args: ["delete", "fam", "TOKEN"], at: file("broken.json", "{oops"), code: 3, message: /is not valid JSON \(at line 1, column 2\)/ },
    { what: "a family that is not an object", args: ["get", "fam", "TOKEN"], at: file("fam.json", '{"fam": "tok"}'), code: 3, message: /family "fam" is not an object/ },
    { what: "none stored", args: ["get", "fam", "OTHER"], at: good, code: 5, message: /no OTHER for fam in the credential file/ },
  ];
  for (const c of cases) {
    const env = { ...freshEnv(), ...(c.at === undefined ? {} : { HCP_CREDENTIALS: c.at }) };
    for (const json of [false, true]) {
      const r = await hcp(["credentials", ...c.args, ...(json ? ["--json"] : [])], { env, stdin: c.stdin ?? "", timeoutMs: 30_000 });
      assert.equal(r.code, c.code, `${c.what}: ${r.stderr}`);
      assert.equal(r.stdout, "", c.what);
      assert.doesNotMatch(r.stderr, /\n\s+at |RuntimeError|CredentialError/, `${c.what}: no stack trace`);
      if (json) {
        const err = JSON.parse(r.stderr) as { error: string; exit_code: number };
        assert.equal(err.exit_code, c.code, c.what);
        assert.match(err.error, c.message, c.what);
      } else {
        assert.match(r.stderr, /^Error: [^\n]+\n$/, `${c.what}: one line`);
        assert.match(r.stderr, c.message, c.what);
      }
      assert.equal(r.stderr.includes(VALUE), false, c.what);
    }
  }
  assert.equal(readFileSync(good, "utf8"), JSON.stringify({ fam: { env: { TOKEN: VALUE } } }), "nothing was changed");
});

test("set never loosens or bypasses the file's protection: a readable file or a planted link is refused and left as it was", async () => {
  const env = freshEnv();
  const file = env["HCP_CREDENTIALS"]!;
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, JSON.stringify({ other: { env: { A: "keep-me" } } }));
  chmodSync(file, 0o644);
  const open = await hcp(["credentials", "set", "fam", "TOKEN", "--json"], { env, stdin: VALUE });
  assert.equal(open.code, 3);
  assert.match(open.stderr, /credentials_insecure/);
  assert.equal(readFileSync(file, "utf8"), JSON.stringify({ other: { env: { A: "keep-me" } } }));
  assert.equal(statSync(file).mode & 0o777, 0o644);

  const env2 = freshEnv();
  const linked = env2["HCP_CREDENTIALS"]!;
  mkdirSync(join(linked, ".."), { recursive: true });
  const elsewhere = join(tempDir("hcp-cred-target-"), "target.json");
  writeFileSync(elsewhere, "{}");
  chmodSync(elsewhere, 0o600);
  symlinkSync(elsewhere, linked);
  const r = await hcp(["credentials", "set", "fam", "TOKEN"], { env: env2, stdin: VALUE });
  assert.notEqual(r.code, 0);
  assert.equal(readFileSync(elsewhere, "utf8"), "{}", "the link's target is untouched");
  assert.ok(lstatSync(linked).isSymbolicLink());
});

test("no keyring available: a clear error naming the credential file as the alternative", async () => {
  const env = { ...freshEnv(), DBUS_SESSION_BUS_ADDRESS: "unix:path=/nonexistent/bus" };
  const r = await hcp(["credentials", "set", "fam", "TOKEN", "--keyring", "--json"], { env, stdin: VALUE });
  assert.equal(r.code, 3);
  assert.match(r.stderr, /credentials_unavailable/);
  assert.match(r.stderr, /no system keyring is available.*hub local-credential/);
  assert.equal(r.stderr.includes(VALUE), false);
});

test("on a terminal the value is typed at a prompt that does not echo it", { skip: spawnSync("sh", ["-c", "command -v script"]).status === 0 ? false : "util-linux script is not installed" }, async () => {
  const env = freshEnv();
  // script(1) gives hcp a real pseudo-terminal; the value is typed only once the prompt is there.
  const child = spawn("script", ["-qec", `${JSON.stringify(process.execPath)} ${JSON.stringify(HCP)} credentials set fam TOKEN`, "/dev/null"], { env, stdio: ["pipe", "pipe", "pipe"] });
  let transcript = "";
  const typed = "tty-Typed-S3cret";
  const done = new Promise<number | null>((resolve) => child.on("close", resolve));
  const guard = setTimeout(() => child.kill("SIGKILL"), 60_000);
  child.stdout.on("data", (c: Buffer) => {
    const seen = transcript;
    transcript += c.toString("utf8");
    if (!seen.includes("(not shown): ") && transcript.includes("(not shown): ")) child.stdin.write(`${typed}\r`);
  });
  const code = await done;
  clearTimeout(guard);
  assert.equal(code, 0, transcript);
  assert.match(transcript, /stored TOKEN for fam/);
  assert.equal(transcript.includes(typed), false, "the terminal never showed the value");
  assert.deepEqual(JSON.parse(readFileSync(env["HCP_CREDENTIALS"]!, "utf8")), { fam: { env: { TOKEN: typed } } });
});
