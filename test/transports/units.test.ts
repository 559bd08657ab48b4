// Pure parts of the transports: tool names, --arg parsing, exec request checks, the error mapping.

import assert from "node:assert/strict";
import { test } from "node:test";
import { RuntimeError } from "../../src/runtime/errors.js";
import { cliArgs } from "../../src/transports/cli.js";
import { TransportError, childExitCode, errorBody, exitCodeOf } from "../../src/transports/errors.js";
import { checkRequest } from "../../src/transports/exec.js";
import { connectionsBound } from "../../src/transports/http-connections.js";
import { MAX_TOOL_NAME, toolName } from "../../src/pack/fields.js";

test("tool names: <pack>_<verb>, other characters as _, at most 64 characters (a longer one cut to 55 and a digest of the whole)", () => {
  assert.equal(toolName("ledger", "setup.status"), "ledger_setup_status");
  assert.equal(toolName("my.pack", "a-b_c"), "my_pack_a-b_c");
  const long = toolName("p".repeat(60), "verb.long");
  assert.equal(long.length, MAX_TOOL_NAME);
  assert.match(long, /^p{55}_[0-9a-f]{8}$/);
  // Two names that differ only past the cut stay two names; the same verb always gets the same one.
  const [a, b] = ["attachments", "reactions"].map((end) => toolName("my-company-platform-api", `post.projects.project.issues.number.comments.${end}`));
  assert.notEqual(a, b);
  assert.equal(a, toolName("my-company-platform-api", "post.projects.project.issues.number.comments.attachments"));
  assert.equal(toolName("p".repeat(54), "v"), `${"p".repeat(54)}_v`, "64 characters or fewer: as is");
});

test("--arg NAME=VALUE is a string, NAME:=JSON any value, over --args", () => {
  assert.deepEqual(cliArgs('{"a": 1, "b": "x"}', ["b=y", "c:=[1,2]", "d=e=f", "n:=null"]), { a: 1, b: "y", c: [1, 2], d: "e=f", n: null });
  assert.throws(() => cliArgs(undefined, ["novalue"]), (e: TransportError) => e.code === "usage");
  assert.throws(() => cliArgs("[1]"), /--args must be a JSON object/);
  assert.throws(() => cliArgs(undefined, ["x:=nope"]), /not valid JSON/);
  // A repeated name is refused, in either form, rather than one value silently winning.
  assert.throws(() => cliArgs(undefined, ["a=1", "a=2"]), (e: TransportError) => e.code === "usage" && e.message === `--arg a is given more than once (an array is one JSON value: --arg a:='["a","b"]')`);
  assert.throws(() => cliArgs(undefined, ["a=1", "a:=2"]), /--arg a is given more than once/);
});

test("--arg __proto__ is an argument named __proto__, as in --args: it never sets the arguments' prototype", () => {
  for (const arg of ['__proto__:={"v":["-rf"]}', "__proto__=x", "constructor=x"]) {
    const args = cliArgs(undefined, ["w=x", arg]);
    assert.equal(Object.getPrototypeOf(args), Object.prototype, arg);
    assert.equal(args["v"], undefined, arg);
    const name = arg.slice(0, arg.search(/:?=/));
    assert.deepEqual(Object.keys(args), ["w", name], arg);
    assert.deepEqual(args, cliArgs(JSON.stringify({ w: "x", [name]: args[name] })), arg);
  }
});

test("exec requests: shape checked field by field, args defaulting to {}", () => {
  assert.deepEqual(checkRequest({ id: 1, pack: "p", verb: "v" }), { id: 1, pack: "p", verb: "v", args: {} });
  for (const v of [null, [], { pack: "p", verb: "v" }, { id: {}, pack: "p", verb: "v" }, { id: 1, verb: "v" }, { id: 1, pack: "p", verb: "v", dry_run: "yes" }, { id: 1, pack: "p", verb: "v", confirm: 1 }]) {
    assert.throws(() => checkRequest(v), (e: TransportError) => e.code === "invalid_request", JSON.stringify(v));
  }
});

test("errors: one {code, message} form and one exit code per code; internal errors carry no stack", () => {
  assert.deepEqual(errorBody(new RuntimeError("denied", "no")), { code: "denied", message: "no" });
  const internal = errorBody(new Error("boom\n    at somewhere"));
  assert.deepEqual(internal, { code: "internal", message: "internal error: boom" });
  assert.deepEqual(
    ["invalid_args", "spawn_failed", "credentials_insecure", "write_not_allowed", "unknown_verb", "something_new"].map(exitCodeOf),
    [1, 2, 3, 4, 5, 2],
  );
  const signals = { SIGTERM: 15, SIGKILL: 9 };
  assert.equal(childExitCode({ exit_code: 7, signal: null, timed_out: false }, signals), 7);
  assert.equal(childExitCode({ exit_code: null, signal: "SIGTERM", timed_out: true }, signals), 124);
  assert.equal(childExitCode({ exit_code: null, signal: "SIGKILL", timed_out: false }, signals), 137);
});

test("HTTP connections kept at once: 1,024, or a quarter of the open files limit when that is fewer (16 at least)", () => {
  assert.equal(connectionsBound(1_048_576), 1024);
  assert.equal(connectionsBound(1024), 256);
  assert.equal(connectionsBound(20), 16);
  assert.equal(connectionsBound(undefined), 1024);
});
