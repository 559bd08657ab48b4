// rclone's operands (`remote:path`) carry a remote's configuration as well as its path: `:webdav,url=…:` makes a remote
// on the fly and `myremote,opt=…:` overrides a configured one's options, and an option can name a program rclone runs
// (webdav's `bearer_token_command`; sftp's `ssh` in later versions) or a file it reads (sftp's `key_file`). On a read,
// which runs without a person, such an operand would let the agent run what it likes as the person. Pure.

import type { JsonSchema } from "./types.js";

/**
 * Whether a usage line names rclone's operands: `rclone lsf remote:path`, `rclone about remote:`, `rclone check
 * source:path dest:path`.
 */
export function namesRemotes(usage: string): boolean {
  return /\b\w*(remote|source|dest):/.test(usage);
}

/**
 * What an operand may not be: one that starts with `:` (a remote made on the fly), or has a `,` before its first `:`
 * or `/` (a remote's options); in words that follow "not" (HARNESS.md, `hcp describe`) and "must not be" (the error).
 */
export const REMOTE_OPTIONS: JsonSchema = {
  pattern: "^:|^[^:/]*,",
  description: 'a remote made on the fly or given options (":backend,…:", "remote,…:", whose options can name a program rclone runs, which a read may not)',
};
