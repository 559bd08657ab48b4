import assert from "node:assert/strict";
import { test } from "node:test";
import { closestNames, verbsHint } from "../../src/runtime/verb-names.js";

const GITHUB_LIKE = ["meta-root", "meta-get", "meta-get-octocat", "meta-get-zen", "repos-get", "repos-get-branch", "repos-list-for-org", "issues-create", "issues-update"];

test("closest verbs: the same words with other separators or case first, then a few edits away, then those containing what was typed", () => {
  assert.deepEqual(closestNames(GITHUB_LIKE, "Meta.Get_Zen"), ["meta-get-zen", "meta-get"]);
  assert.deepEqual(closestNames(GITHUB_LIKE, "repos.gte"), ["repos-get"]);
  assert.deepEqual(closestNames(GITHUB_LIKE, "get-zen"), ["meta-get-zen"]);
  assert.deepEqual(closestNames(GITHUB_LIKE, "issues.creat"), ["issues-create"]);
  assert.deepEqual(closestNames(GITHUB_LIKE, "repos-get-brnach"), ["repos-get-branch", "repos-get"]);
  assert.deepEqual(closestNames(GITHUB_LIKE, "zzz"), []);
  // A long start shared by every name (a pack's name in its tools' names) makes no unlike verb close.
  const tools = ["hcp-probe_echo", "hcp-probe_fail", "hcp-probe_quick"];
  assert.deepEqual(closestNames(tools, "hcp-probe_writ"), []);
  assert.deepEqual(closestNames(tools, "hcp-probe_ecoh"), ["hcp-probe_echo"]);
  assert.deepEqual(closestNames(tools, "hcp-probe_fial"), ["hcp-probe_fail"]);
  // A word in another's place is no slip of the keys: rm is not ls, whatever its length.
  assert.deepEqual(closestNames(["docker_container_ls", "docker_container_rm"], "docker_container_rn"), ["docker_container_rm"]);
  assert.deepEqual(closestNames(["docker_container_ls"], "docker_container_rm"), []);
  assert.deepEqual(closestNames(["api.v1", "api.v2"], "api.v3"), ["api.v1", "api.v2"]);
  // What an agent may send is compared only when it could be a name: a verb of 10,000 characters matches none, at once.
  assert.deepEqual(closestNames(GITHUB_LIKE, "meta-get".repeat(1250)), []);
});

test("verbs hint: a pack of up to 30 verbs names them all; past that, the closest five and how many there are", () => {
  assert.equal(verbsHint(["a", "b"], "c", "p"), "verbs: a, b");
  assert.equal(verbsHint([], "c"), "verbs: none");
  const many = Array.from({ length: 31 }, (_, i) => `verb.v${i}`);
  assert.equal(verbsHint(many, "verb.v3", "p"), "closest: verb.v3, verb.v0, verb.v1, verb.v2, verb.v4; 31 verbs in all; hcp describe p lists them");
  assert.equal(verbsHint(many, "nothing-like-it"), "31 verbs in all");
  assert.equal(verbsHint(many), "31 verbs in all");
});
