// A system call whose error is its usual answer (a process gone, a group empty, a file closed) runs here: the error
// is made without a stack trace, which would cost more than the call itself, and which nobody reads.

/** Runs fn with errors made stack-less meanwhile; returns what it returns, throws what it throws. */
export function withoutStack<T>(fn: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return fn();
  } finally {
    Error.stackTraceLimit = limit;
  }
}
