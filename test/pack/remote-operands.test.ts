// Which operands are rclone's remotes, and which of them carry a remote's options (real rclone usage lines).

import { test } from "node:test";
import assert from "node:assert/strict";
import { REMOTE_OPTIONS, namesRemotes } from "../../src/pack/remote-operands.js";

test("rclone's usage lines name remotes; other CLIs' operands do not", () => {
  for (const usage of ["rclone lsf remote:path [flags]", "rclone about remote: [flags]", "rclone check source:path dest:path [flags]", "rclone cryptcheck remote:path cryptedremote:path [flags]"]) {
    assert.equal(namesRemotes(usage), true, usage);
  }
  for (const usage of ["kubectl get [(-o|--output=)json|yaml] (TYPE[.VERSION][.GROUP] [NAME | -l label] | TYPE[.VERSION][.GROUP]/NAME ...) [flags]", "skopeo inspect [command options] IMAGE-NAME", "gh repo view [<repository>] [flags]"]) {
    assert.equal(namesRemotes(usage), false, usage);
  }
});

test("an operand that makes a remote on the fly or gives one options is refused; a remote's path, with commas or colons in it, and a local path are not", () => {
  const refused = new RegExp(REMOTE_OPTIONS.pattern as string);
  for (const operand of [":webdav,url='http://x',bearer_token_command='id':", ":local:/etc", "myremote,bearer_token_command=id:docs", "my remote,ssh=id:"]) {
    assert.equal(refused.test(operand), true, operand);
  }
  for (const operand of ["myremote:docs/a,b", "myremote:a:b", "/home/you/a,b", "./a,b:c", "docs"]) {
    assert.equal(refused.test(operand), false, operand);
  }
});
