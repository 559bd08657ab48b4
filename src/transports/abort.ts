// One signal that aborts when any of its sources does, and that can be let go of. Node 20's AbortSignal.any
// never forgets a signal it made: every call of a server linked to the server's stop signal left an entry in
// it for the server's whole life (about 60 bytes a call, measured: 10,000 calls, 0.6 MB; a million, 60 MB).

/** A signal following `sources`, and `release`, which detaches it from them (it then never aborts). */
export interface LinkedSignal {
  readonly signal: AbortSignal;
  release(): void;
}

export function linkSignals(sources: readonly AbortSignal[]): LinkedSignal {
  const controller = new AbortController();
  const already = sources.find((s) => s.aborted);
  if (already !== undefined) {
    controller.abort(already.reason);
    return { signal: controller.signal, release: () => {} };
  }
  const followers = sources.map((source) => {
    const follow = () => {
      release();
      controller.abort(source.reason);
    };
    source.addEventListener("abort", follow, { once: true });
    return { source, follow };
  });
  function release(): void {
    for (const { source, follow } of followers) source.removeEventListener("abort", follow);
  }
  return { signal: controller.signal, release };
}
