// The generated README.md: build, run, endpoints and env vars, scoring, and the release placeholder.

import { toolEnvVar } from "../../framework/index.js";
import type { ScaffoldSettings } from "../options.js";

export function readmeSource(s: ScaffoldSettings): string {
  const n = s.name;
  const run = `node dist/src/main.js`;
  const intro = s.product
    ? `${s.productName} is a command-line tool built on rungrad (TypeScript), so it speaks the agent-ready CLI spec:
stable \`--json\` output, \`--dry-run\` previews, destructive confirmation, deterministic results,
self-describing help, and an offline-checkable self-update.`
    : `${n} is a starter CLI built on rungrad (TypeScript): stable \`--json\` output, \`--dry-run\` previews,
destructive confirmation, deterministic results, self-describing help, and an offline-checkable self-update.`;
  const endpoints = s.product
    ? `
## Configure endpoints

Service endpoints resolve from flags, environment variables, profile config, global config, and the
built-in defaults below.

| Service | Flag | Environment | Config key | Default |
| --- | --- | --- | --- | --- |
${s.services.map((v) => `| \`${v.name}\` | \`--${v.flag}\` | \`${v.envVar}\` | \`${v.configKey}\` | \`${v.default}\` |\n`).join("")}
The credential is read from \`${s.envVar}\`, then from the profile's entry in the credentials file.
Profile, auth-file, and config paths can be set with \`${toolEnvVar(n, "PROFILE")}\`, \`${toolEnvVar(n, "AUTH_FILE")}\`, and
\`${toolEnvVar(n, "CONFIG")}\`.
`
    : "";
  return `# ${s.docsLabel}

${intro}

## Build and run

\`\`\`bash
npm install
npm run build
npm test
${run} widget list
${run} widget list --json
${run} widget create gamma --dry-run
${run} widget delete alpha --dry-run
${run} update --check
\`\`\`
${endpoints}
## Score it against the spec

\`\`\`bash
rungrad score ./dist/src/main.js \\
  --read        "widget list" \\
  --mutate      "widget create demo" \\
  --destructive "widget delete alpha" \\
  --update
\`\`\`

The scaffold implements read output, a mutating dry-run, a safe destructive command, manifest metadata,
and an offline update, so those rules score. It omits the auth, name-resolution, missing-resource,
backend-error, forbidden, rate-limit, and credential-secret fixtures, which the scorer reports as
not applicable rather than as failures.

> The generated \`update\` command reports a fixed release so the project can be scored without network
> access. Before distributing real releases, replace its \`fetchLatest\` with a fetcher for the GitHub
> releases of \`${s.releaseOwner}/${s.releaseRepo}\` or equivalent release wiring.
`;
}
