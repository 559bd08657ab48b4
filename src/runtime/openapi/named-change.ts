// What an operation's operationId says it does, when its method says it only reads: some APIs change things by GET
// (AWS's Query APIs, `GET_TerminateInstances`; etherpad's `deletePadUsingGET`; zoomconnect's `send`, an SMS; Slack's
// `auth_revoke`; a Google API's `….operations.cancel`). `hcp init --from-openapi` takes such a name at its word. Pure.

/** Verbs that name a change, and are seldom a noun at the head of an id; the first five remove what they name. */
const REMOVES = new Set(["delete", "remove", "destroy", "purge", "erase"]);
const CHANGES = new Set([
  ...REMOVES,
  "create", "update", "set", "add", "insert", "modify", "edit", "put", "save", "write", "move", "rename", "cancel", "revoke", "reset",
  "approve", "reject", "publish", "unpublish", "restore", "enable", "disable", "activate", "deactivate", "start", "stop", "restart", "reboot",
  "kill", "terminate", "execute", "fork", "merge", "invite", "assign", "unassign", "subscribe", "unsubscribe", "invalidate", "send", "lock", "unlock",
]);
const METHODS = /^(get|head|options)$/i;
/** Words that name a read, where a dotted id's first part may name its operation (Graph's `Get.Count.…`). */
const READS = new Set(["get", "list"]);

/** An id's words, lower case: `deletePadUsingGET` → delete, pad, using, get. */
function wordsOf(id: string): string[] {
  return id
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "");
}

/**
 * The word of an id that names what the operation does, by the id's style: a dotted id's last part (Google's
 * `datalabeling.projects.operations.cancel`, Graph's `users.user.ListUser`), but its first when that is one such word
 * (Graph's `Get.Count.updatePolicies-27c8`); the part after `_` of a method's (AWS's `GET_DeleteStack`) or an Azure
 * id (`UpdateRuns_List`); the last part of a snake_case id when it is one word (Slack's `auth_revoke`); else its first
 * word (`deletePadUsingGET`).
 */
function operationWord(id: string): string | undefined {
  const parts = id.split(".");
  if (parts.length > 1) {
    const [first, ...more] = wordsOf(parts[0]!);
    return more.length === 0 && first !== undefined && (READS.has(first) || CHANGES.has(first)) ? first : wordsOf(parts.at(-1)!)[0];
  }
  const pair = /^([A-Za-z][A-Za-z0-9]*)_([A-Z][A-Za-z0-9]*)$/.exec(id);
  if (pair !== null && (METHODS.test(pair[1]!) || /^[A-Z]/.test(pair[1]!))) return wordsOf(pair[2]!)[0];
  const snake = id.split("_");
  if (snake.length > 1 && /^[a-z]+$/.test(snake.at(-1)!)) return snake.at(-1);
  return wordsOf(id)[0];
}

/** What the id names: a change that removes, another change, or none hcp knows (a read, or another word). */
export function namedChange(operationId: string | undefined): "removes" | "changes" | undefined {
  const word = operationId === undefined ? undefined : operationWord(operationId);
  if (word === undefined || !CHANGES.has(word)) return undefined;
  return REMOVES.has(word) ? "removes" : "changes";
}
