// The one mapping of hcp failures to framework errors: exit code by the transports' table, `code` in the machine error body.

import { DetailedError, RungradError } from "../../framework/index.js";
import { errorBody, exitCodeOf } from "../../transports/errors.js";
import { CliError } from "../errors.js";
import { redactText } from "../../runtime/secrets/redact.js";
import { packSecrets } from "../../runtime/secrets/secrets.js";

/** A thrown value as the framework error the App renders: `Error: <msg>`, or `{code, error, exit_code}` under --json. */
function hcpError(err: unknown): RungradError {
  if (err instanceof CliError) return new DetailedError(err.exitCode, err.message, { code: err.exitCode === 1 ? "usage" : "runtime" });
  if (err instanceof RungradError) return err;
  const body = errorBody(err);
  return new DetailedError(exitCodeOf(body.code), body.message, { code: body.code, ...(body.plan_id === undefined ? {} : { plan_id: body.plan_id }) });
}

/**
 * An error's message as hcp writes it (the App's maskError): the credential file's values, the keyrings' read and the
 * environment's secrets masked. A message may quote what the caller wrote (an unknown flag), or a pack that does not
 * load, named with the text it holds (a verb's key, a policy value copied from a CLI's help).
 */
export function maskedMessage(text: string): string {
  return redactText(text, packSecrets([], process.env));
}

/** A handler (or another of the App's hooks) whose failures reach the App already mapped. */
export function mapped<A extends unknown[], R>(hook: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args) => {
    try {
      return await hook(...args);
    } catch (err) {
      throw hcpError(err);
    }
  };
}
