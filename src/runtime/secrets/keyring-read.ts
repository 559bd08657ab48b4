// Every keyring value this process has read, a secret in every pack's output whichever pack reads it. A pack's
// program holds its credentials in its environment while it runs, and any program of the same user can read that
// (`/proc/<pid>/environ`): a read verb of another pack served beside it, one that prints a file the agent names, would
// print the value. Unlike the credential file, which every hcp reads whole (stored-secrets.ts), the keyring cannot be
// listed: only the values this process read are known here.

const read = new Set<string>();

/** Notes values read from the keyring. */
export function noteKeyringValues(values: readonly string[]): void {
  for (const v of values) read.add(v);
}

/** Every keyring value read so far by this process. */
export function keyringValuesRead(): string[] {
  return [...read];
}
