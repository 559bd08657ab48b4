// The MCP client's roots, the folders it names as its workspace, taken as folders the agent works in
// (runtime/agent-folders.ts): asked for once the client is initialized, and again when it says they changed; each call
// waits for the answer. They only add to what hcp refuses (a program on PATH there, an approver, hcp's own files), so
// the client's word is taken; one that names none, or never answers, leaves the folders hcp knew.

import { addClientRoots, agentFolderHolding } from "../runtime/agent-folders.js";
import { stateDirFor } from "../runtime/approval/state.js";
import { namedPlace, rewritablePack, type ServedPack } from "./packs.js";

/** How long a call waits for the client's roots before going on without them. */
const ROOTS_TIMEOUT_MS = 5000;

/** What the roots need of the SDK's Server: its client's capabilities and the roots/list request. */
interface RootsServer {
  getClientCapabilities(): { roots?: object } | undefined;
  listRoots(params: undefined, options: { timeout: number; signal: AbortSignal }): Promise<{ roots: { uri: string }[] }>;
}

export interface ClientRoots {
  /** Asks the client for its roots, when it has any (and has not been asked, unless `again`: they changed). */
  ask(again?: boolean): void;
  /** Asks, then settles when the last answer asked for is in (or given up); then throws what the roots forbid (the state directory in one). */
  known(): Promise<void>;
}

/** The roots of one session's client. `warn` tells the operator and the client's log what a new root holds. */
export function clientRoots(server: RootsServer, packs: readonly ServedPack[], warn: (text: string) => void, stop: AbortSignal): ClientRoots {
  let answered: Promise<void> | undefined;
  let refusal: Error | undefined;
  async function learn(): Promise<void> {
    let roots: { uri: string }[];
    try {
      ({ roots } = await server.listRoots(undefined, { timeout: ROOTS_TIMEOUT_MS, signal: stop }));
    } catch {
      return;
    }
    const added = addClientRoots(roots.map((r) => r.uri));
    if (added.length === 0) return;
    try {
      stateDirFor(process.env, added);
    } catch (err) {
      refusal = err as Error;
      warn(refusal.message);
    }
    for (const pack of packs) {
      const root = agentFolderHolding(pack.root, added);
      if (root !== undefined) warn(rewritablePack(pack, namedPlace(root)));
    }
  }
  const roots: ClientRoots = {
    ask(again = false) {
      // Unknown until the SDK has handled `initialize`, which may come after `notifications/initialized` is.
      if ((again || answered === undefined) && server.getClientCapabilities()?.roots !== undefined) answered = learn();
    },
    async known() {
      roots.ask();
      await answered;
      if (refusal !== undefined) throw refusal;
    },
  };
  return roots;
}
