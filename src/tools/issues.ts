/** Turns zod issues into the one-line messages of the spec. */
import * as z from "zod";

export function formatIssues(error: z.ZodError): string {
  // An unknown key first: it usually explains the rest (the old {toolbox, server, tool} form).
  const unknownFirst = [...error.issues].sort((a, b) => rank(a) - rank(b));
  return unknownFirst.map(formatIssue).join("; ");
}

const rank = (issue: z.core.$ZodIssue) => (issue.code === "unrecognized_keys" ? 0 : 1);

function formatIssue(issue: z.core.$ZodIssue): string {
  const message = issue.code === "unrecognized_keys"
    ? `Unrecognized key${issue.keys.length > 1 ? "s" : ""}: ${issue.keys.map((k) => `'${k}'`).join(", ")}`
    : issue.message;
  // A message that already names its field (open_toolbox's style) gets no path prefix.
  const path = issue.path.map(String).join(".");
  return path === "" || message.startsWith(path) ? message : `${path}: ${message}`;
}

/**
 * A required, non-blank string whose errors read `<label> cannot be empty`, `<label> is required`
 * or `<label> must be a string`. minLength shows in the JSON Schema; the refine adds "not only
 * spaces" and stays quiet for "" (already reported once).
 */
export function nonBlank(label: string) {
  return z.string({ error: nameErrors(label) })
    .min(1, { error: `${label} cannot be empty` })
    .refine((value) => value.length === 0 || value.trim() !== "", { error: `${label} cannot be empty` });
}

function nameErrors(label: string) {
  return (issue: { input?: unknown; code?: string }) => {
    if (issue.input === undefined) return `${label} is required`;
    if (typeof issue.input !== "string") return `${label} must be a string`;
    return `${label} cannot be empty`;
  };
}
