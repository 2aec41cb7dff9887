/**
 * Watching the configuration file while serving: its text is read every POLL_MS through the
 * platform's readTextFile (no file-system watch, so the core stays runtime-free, an editor's
 * save by rename is seen like any other, and nothing differs between Bun, Deno and the OSes). A
 * change is acted on once the text has read the same for SETTLE_MS: an editor that saves by
 * rename, or truncates and then writes, makes one change, not two. The settled text is loaded
 * exactly as at start (loadConfig: JSON, schema, `${VAR}`), so an invalid file gives the text
 * `check` gives.
 */
import type { Environment } from "./expand.ts";
import { loadConfig } from "./load.ts";
import type { WorkbenchConfig } from "./types.ts";

/** How often the file is read: a read of a small file, four times a second. */
export const POLL_MS = 250;
/** How long the text must stay the same before it is loaded: longer than an editor's two writes. */
export const SETTLE_MS = 300;

export interface ConfigWatchOptions {
  path: string;
  readTextFile: (path: string) => Promise<string>;
  /** The variables for `${NAME}`, as at start. */
  env: Environment;
  /** A settled text loaded whole; it may be the configuration in force already (the caller compares). */
  onValid: (config: WorkbenchConfig) => void;
  /** A settled text that did not load (the ConfigError, or the file is gone): the caller keeps what runs. */
  onInvalid: (error: Error) => void;
  pollMs?: number;
  settleMs?: number;
}

export interface ConfigWatch {
  stop(): void;
}

/** A text that cannot be a file's: the file could not be read, and why. */
interface Unreadable {
  error: unknown;
  key: string;
}

/** Starts reading the file at once; the first settled text is handled like any later one. */
export function watchConfigFile(options: ConfigWatchOptions): ConfigWatch {
  const pollMs = options.pollMs ?? POLL_MS;
  const settleMs = options.settleMs ?? SETTLE_MS;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** The last text handled (loaded or reported), and the one waiting to settle. */
  let handled: string | undefined;
  let candidate: string | undefined;
  let since = 0;

  const read = async (): Promise<string | Unreadable> => {
    try {
      return await options.readTextFile(options.path);
    } catch (error) {
      // Keyed by the error's name: a file missing for a moment, then back with the same text, is no change.
      return { error, key: `\0unreadable:${error instanceof Error ? error.name : "?"}` };
    }
  };

  const handle = async (read: string | Unreadable): Promise<void> => {
    const readTextFile = typeof read === "string" ? () => Promise.resolve(read) : () => Promise.reject(read.error);
    let config: WorkbenchConfig;
    try {
      ({ config } = await loadConfig({ path: options.path, env: options.env, readTextFile }));
    } catch (error) {
      options.onInvalid(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    options.onValid(config);
  };

  const tick = async (): Promise<void> => {
    try {
      const now = await read();
      if (stopped) return;
      const key = typeof now === "string" ? now : now.key;
      if (key !== candidate) {
        candidate = key;
        since = Date.now();
      } else if (key !== handled && Date.now() - since >= settleMs) {
        handled = key;
        await handle(now);
      }
    } finally {
      // One read at a time, whatever happened: the watch never stops by itself.
      if (!stopped) timer = setTimeout(() => void tick().catch(() => {}), pollMs);
    }
  };

  void tick().catch(() => {});
  return {
    stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}
