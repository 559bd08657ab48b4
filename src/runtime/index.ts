// The HCP runtime: argv templates, the child process and environment, credentials, plans, verb execution.

export { RuntimeError, ArgvError, CredentialError, type RuntimeErrorCode } from "./errors.js";
export {
  parseTemplate,
  templateIssues,
  placeholdersOf,
  deriveArgsSchema,
  substitute,
  type Args,
  type Placeholder,
  type TemplateIssue,
  type TemplateOptions,
  type TemplateToken,
  type SubstituteOptions,
} from "./argv.js";
export { runProcess, type ProcessRequest, type ProcessResult } from "./process/process.js";
export { childEnv, BASE_ENV_NAMES, type ChildEnvInput } from "./env.js";
export { loadCredentials, readLocalCredentials, credentialFilePath, NO_CREDENTIALS, type Credentials, type CredentialOptions } from "./secrets/credentials.js";
export { redact, redactText, cutTruncatedTail, secretSet, MASK, type SecretSet } from "./secrets/redact.js";
export { isSecretName } from "./secrets/secret-name.js";
export { argSecrets, maskError, maskResult, packSecrets, policyEnvSecrets } from "./secrets/secrets.js";
export { canonicalPlanJSON, planDigest, subjectOf, type Plan, type PlanPolicy } from "./plan.js";
export { ApprovalSession, authorize, issuePlan, listPendingPlans, pendingForApproval, recordApproval, type Gate } from "./approval/gate.js";
export { commandApprover, terminalApprover, type Answer, type ApprovalPath, type ApprovalRequest, type PersonApprover } from "./approval/approvers.js";
export { escapeForPerson, planText, visibleJSON } from "./approval/show.js";
export { stateDirOf } from "./approval/state.js";
export { AuditLog, auditPathOf, readAudit, type AuditEntry, type AuditDecision, type AuditTransport } from "./audit.js";
export { resolveProgram } from "./resolve.js";
export {
  planVerb,
  executeVerb,
  planPassThrough,
  runPassThrough,
  argsSchemaOf,
  isDryRun,
  type ExecuteOptions,
  type PlanOptions,
  type ExecResult,
  type DryRun,
} from "./execute.js";
export { Limiter } from "./limiter.js";
