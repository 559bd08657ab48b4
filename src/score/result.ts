// A probe's outcome: pass, fail, or not applicable, with its reason.

export type ResultKind = "pass" | "fail" | "not_applicable";

export interface ProbeResult {
  result: ResultKind;
  reason: string;
}

export const pass = (reason: string): ProbeResult => ({ result: "pass", reason });
export const fail = (reason: string): ProbeResult => ({ result: "fail", reason });
export const na = (reason: string): ProbeResult => ({ result: "not_applicable", reason });
