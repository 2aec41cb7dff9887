/** The parts of login support that are the same on every runtime. */
import type { LoginSupport } from "./types.ts";

export function operatingSystem(name: string): LoginSupport["os"] {
  if (name === "win32" || name === "windows") return "windows";
  if (name === "darwin") return "darwin";
  if (name === "linux") return "linux";
  return "other";
}

/** The system's own opener: `start` is a cmd built-in, and its first quoted argument is a title. */
export function browserCommand(os: LoginSupport["os"], url: string): { command: string; args: string[] } {
  if (os === "windows") return { command: "cmd", args: ["/c", "start", '""', url.replaceAll("&", "^&")] };
  if (os === "darwin") return { command: "open", args: [url] };
  return { command: "xdg-open", args: [url] };
}

/** A new name next to `path`, so that the rename stays on one file system. */
export function temporaryPath(path: string): string {
  return `${path}.${crypto.randomUUID()}.tmp`;
}
