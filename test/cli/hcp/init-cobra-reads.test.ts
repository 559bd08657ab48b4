// Which commands of a cobra CLI `hcp init --from-cobra` makes reads by their names alone: the rest are writes a person
// approves, so a name taken for a read must be one no CLI uses for a change.

import assert from "node:assert/strict";
import { test } from "node:test";
import { readsByName } from "../../../src/cli/hcp/init-cobra.js";

test("reads by name: gh's pr diff and pr checks and the commands of its search group, helm's search repo, kubectl's get and diff, docker's ps and search", () => {
  const reads = [["pr", "diff"], ["pr", "checks"], ["search", "issues"], ["search", "repos"], ["search", "repo"], ["get"], ["diff"], ["ps"], ["search"], ["config", "view"], ["apply", "view-last"]];
  for (const path of reads) assert.equal(readsByName(path), true, path.join(" "));
});

test("writes: every other name, a group's own name, and a command below a search group's subgroup", () => {
  const writes = [["pr", "merge"], ["pr", "create"], ["repo", "delete"], ["secret", "set"], ["pr"], ["apply"], ["search", "index", "create"], ["index", "search", "delete", "all"], ["login"]];
  for (const path of writes) assert.equal(readsByName(path), false, path.join(" "));
});
