// What an operation's operationId says it does, when its method says it only reads: some APIs change things by GET
// (AWS's Query APIs, `GET_TerminateInstances`, `GET_RunInstances`; etherpad's `deletePadUsingGET`; zoomconnect's
// `send`, an SMS; Slack's `auth_revoke`; a Google API's `….operations.cancel`; the petstore's `logoutUser`).
// `hcp init --from-openapi` takes such a name at its word, and one without an operationId by its path. Pure.

/** Verbs that name a change and are seldom a noun at the head of an id; the first five remove what they name. */
const REMOVES = new Set(["delete", "remove", "destroy", "purge", "erase"]);
const CHANGES = new Set([
  ...REMOVES,
  "create", "update", "set", "add", "insert", "modify", "edit", "put", "save", "write", "move", "rename", "cancel", "revoke", "reset",
  "approve", "reject", "publish", "unpublish", "restore", "enable", "disable", "activate", "deactivate", "start", "stop", "restart", "reboot",
  "kill", "terminate", "execute", "fork", "merge", "invite", "assign", "unassign", "subscribe", "unsubscribe", "invalidate", "send", "lock", "unlock",
  "associate", "disassociate", "attach", "detach", "untag", "register", "deregister", "deauthorize", "accept", "import", "replace", "failover",
  "allocate", "deallocate", "provision", "deprovision", "release", "promote", "resume", "rollback", "confirm", "increase", "decrease", "switchover",
  "suspend", "rebuild", "withdraw", "rebalance", "abort", "swap", "configure", "clone", "resync", "pause", "resize", "rotate", "regenerate",
  "upgrade", "reimage", "redeploy", "renew", "copy", "logout", "install", "uninstall", "share", "unshare", "archive", "unarchive", "kick", "unpin",
  "reopen", "mute", "unmute", "ban", "unban", "unblock", "unstar", "upsert", "deploy", "dispatch",
]);
/**
 * Verbs that are as often a noun at an id's head (dracoon's `requestNodes`, airflow's `get_dag_run`, a trading API's
 * `openOrders`): a change only where the id's style puts its verb: after the method an id starts with (AWS's
 * `GET_RunInstances`, `GET_RequestSpotInstances`, `GET_AuthorizeSecurityGroupIngress`), or as the last part of a
 * snake_case or dotted id (Slack's `views_open`, `views_push`; Google's `….jobs.run`).
 */
const ACTIONS = new Set([
  "run", "request", "authorize", "purchase", "upload", "index", "record", "change", "bundle", "generate", "tag", "apply", "define", "signal", "build",
  "advertise", "monitor", "unmonitor", "backtrack", "reorder", "opt", "enter", "exit", "continue", "complete", "receive", "verify", "assume", "refresh",
  "open", "close", "push", "post", "mark", "pin", "star", "block", "trigger", "join", "leave", "patch", "snooze", "react", "invoke", "notify", "sync",
]);
/** Words that name a read: a snake_case id with one reads (`functions_get_trigger`), as a dotted id that starts with one. */
const READS = new Set(["get", "list", "describe", "search", "show", "view", "retrieve", "fetch", "find", "query", "read", "check", "count"]);
/** A word that only says the next one is done to many (AWS's BatchDeleteScheduledAction, BatchGetItem). */
const MANY = "batch";

/** An id's words, lower case: `deletePadUsingGET` → delete, pad, using, get. */
function wordsOf(id: string): string[] {
  return id
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "");
}

/**
 * The word of an id that names what the operation does, by the id's style, and whether it stands where that style puts
 * its verb (`verbPlace`): a dotted id's first part when that is a known word (Graph's `Get.Count.updatePolicies-27c8`),
 * else its last part's first word (Google's `datalabeling.projects.operations.cancel`); the part after `_` of a
 * method's id (AWS's `GET_DeleteStack`) or an Azure one (`UpdateRuns_List`); the last part's first word of a snake_case
 * id (Slack's `auth_revoke`, `workflows_updateStep`) with no word of a read; else its first word (`deletePadUsingGET`).
 */
function operationWord(id: string): { word: string | undefined; verbPlace: boolean } {
  const parts = id.split(".");
  if (parts.length > 1) {
    const [first, ...more] = wordsOf(parts[0]!);
    const known = more.length === 0 && first !== undefined && (READS.has(first) || CHANGES.has(first));
    return known ? { word: first, verbPlace: false } : { word: wordsOf(parts.at(-1)!)[0], verbPlace: true };
  }
  const pair = /^([A-Za-z][A-Za-z0-9]*)_([A-Z][A-Za-z0-9]*)$/.exec(id);
  if (pair !== null && /^(get|head|options)$/i.test(pair[1]!)) return { word: wordsOf(pair[2]!)[0], verbPlace: true };
  if (pair !== null && /^[A-Z]/.test(pair[1]!)) return { word: wordsOf(pair[2]!)[0], verbPlace: false };
  const snake = id.split("_");
  if (snake.length > 1 && /^[a-z][A-Za-z0-9]*$/.test(snake.at(-1)!)) {
    return { word: wordsOf(id).some((w) => READS.has(w)) ? undefined : wordsOf(snake.at(-1)!)[0], verbPlace: true };
  }
  return { word: wordsOf(id)[0], verbPlace: false };
}

/** What the id names: a change that removes, another change, or none hcp knows (a read, or another word). */
export function namedChange(operationId: string | undefined): "removes" | "changes" | undefined {
  if (operationId === undefined) return undefined;
  const { word, verbPlace } = operationWord(operationId);
  if (word === MANY) return namedChange(operationId.replace(/batch_?/i, ""));
  if (word === undefined || !(CHANGES.has(word) || (verbPlace && ACTIONS.has(word)))) return undefined;
  return REMOVES.has(word) ? "removes" : "changes";
}

/**
 * What a path names, for an operation without an operationId (its path is then its only name): its last segment with
 * words outside `{…}` (`/pads/{padID}/delete`, `/v1/{name}:cancel`, `/auth.revoke`, `/deletePad`), by the first of
 * its words that names a read or a change (`/getAndReset` reads, `/send_message` changes).
 */
export function pathChange(path: string): "removes" | "changes" | undefined {
  const named = path
    .split("/")
    .map((segment) => segment.replace(/\{[^}]*\}/g, " "))
    .findLast((segment) => /[A-Za-z]/.test(segment));
  const word = wordsOf(named ?? "").find((w) => READS.has(w) || CHANGES.has(w));
  if (word === undefined || READS.has(word)) return undefined;
  return REMOVES.has(word) ? "removes" : "changes";
}
