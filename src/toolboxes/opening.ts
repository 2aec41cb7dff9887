/**
 * A toolbox's servers being started by an open, and how long an open waits for them: every
 * server, but no longer than a grace after the first one answered.
 */
import type { ToolboxConfig } from "../config/index.ts";
import type { ServerSlot } from "./server-slot.ts";

/**
 * How long an open waits for a toolbox's other servers once one answered: servers that start
 * together (two cold npx starts) are listed together; one that hangs at start holds no longer.
 */
export const OPEN_GRACE_MS = 3_000;

/** An opened toolbox: its configuration and its servers. */
export interface OpenToolbox {
  name: string;
  config: ToolboxConfig;
  /** In configuration order. */
  servers: ServerSlot[];
}

/** A toolbox's servers being started (from a configuration generation): each one's attempt, and all settled. */
export interface Opening {
  toolbox: OpenToolbox;
  generation: number;
  /** Set when no server needed starting. */
  done?: Promise<OpenToolbox>;
  all: Promise<OpenToolbox>;
  settled: Map<ServerSlot, Promise<void>>;
}


/** Resolves `graceMs` after the first server of the opening is connected (never if none connects, or for Infinity). */
export function graceAfterFirst(opening: Opening, graceMs: number): Promise<void> {
  if (graceMs === Infinity) return new Promise(() => {});
  let first: Promise<void> | undefined;
  return new Promise((resolve) => {
    for (const [slot, settled] of opening.settled) {
      void settled.then(() => slot.serverSession && (first ??= new Promise<void>((after) => setTimeout(after, graceMs)).then(resolve)));
    }
  });
}
