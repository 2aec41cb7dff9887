/** Figures 1, 2 and 6: start-up, open_toolbox, and the workbench's resident memory. */
import { performance } from "node:perf_hooks";
import { RpcClient } from "./rpc-client.ts";
import { type BenchSetup, EIGHT, MIXED, ONE, openToolbox, startWorkbench } from "./setup.ts";
import { fixtureCommand, type Target, workbenchCommand } from "./targets.ts";
import { BUDGET_MS, type Plan } from "./plan.ts";
import { median, MiB } from "./stats.ts";
import { residentBytes } from "./memory.ts";

export interface StartupFigures {
  workbenchMs: number;
  /** Spawn to the server/discover answer: a 2026-07-28 client's start. */
  modernMs?: number;
  fixtureMs: number;
  workbenchSamples: number[];
  fixtureSamples: number[];
}

/**
 * Time from spawn to the initialize response, for fresh processes of the workbench and the fixture,
 * alternately; and to the server/discover response, the 2026-07-28 opening, for the workbench.
 */
export async function measureStartup(target: Target, setup: BenchSetup, plan: Plan): Promise<StartupFigures> {
  const workbenchSamples: number[] = [];
  const fixtureSamples: number[] = [];
  const modernSamples: number[] = [];
  const workbench = { ...workbenchCommand(target, setup.configPath), cwd: setup.dir, env: setup.workbenchEnv };
  for (let run = 0; run < plan.startupRuns; run++) {
    workbenchSamples.push(await spawnToInitialize(() => RpcClient.start(workbench)));
    fixtureSamples.push(await spawnToInitialize(() => RpcClient.start(fixtureCommand("s1"))));
    modernSamples.push(await spawnToInitialize(() => RpcClient.start(workbench), "discover"));
  }
  return {
    workbenchMs: median(workbenchSamples),
    fixtureMs: median(fixtureSamples),
    modernMs: median(modernSamples),
    workbenchSamples,
    fixtureSamples,
  };
}

async function spawnToInitialize(start: () => RpcClient, opening: "initialize" | "discover" = "initialize"): Promise<number> {
  const began = performance.now();
  const client = start();
  try {
    await (opening === "initialize" ? client.initialize() : client.discover());
    return performance.now() - began;
  } finally {
    await client.close();
  }
}

export interface OpenFigures {
  oneServerMs: number;
  eightServersMs: number;
  /** VmRSS of the workbench process alone (its children are separate processes). */
  rssAfterInitializeMiB: number;
  rssAfterOpenEightMiB: number;
  /** Then `mixed` opened in the same process: the three reference servers and five fixtures. */
  rssAfterOpenReferenceMiB?: number;
}

/**
 * open_toolbox on a fresh workbench each time; the memory figures come from the same processes:
 * after initialize, after opening `eight`, then after opening `mixed` as well (not timed).
 */
export async function measureOpenToolbox(target: Target, setup: BenchSetup, plan: Plan): Promise<OpenFigures> {
  const one: number[] = [];
  const eight: number[] = [];
  const rssInitialized: number[] = [];
  const rssOpenEight: number[] = [];
  const rssOpenReference: number[] = [];
  for (let run = 0; run < plan.openRuns; run++) {
    for (const toolbox of [ONE, EIGHT]) {
      const client = await startWorkbench(target, setup);
      try {
        rssInitialized.push(residentBytes(client.pid));
        const began = performance.now();
        await openToolbox(client, toolbox, BUDGET_MS.openToolbox);
        (toolbox === ONE ? one : eight).push(performance.now() - began);
        if (toolbox === EIGHT) {
          rssOpenEight.push(residentBytes(client.pid));
          await openToolbox(client, MIXED, BUDGET_MS.openToolbox);
          rssOpenReference.push(residentBytes(client.pid));
        }
      } finally {
        await client.close();
      }
    }
  }
  return {
    oneServerMs: median(one),
    eightServersMs: median(eight),
    rssAfterInitializeMiB: median(rssInitialized) / MiB,
    rssAfterOpenEightMiB: median(rssOpenEight) / MiB,
    rssAfterOpenReferenceMiB: median(rssOpenReference) / MiB,
  };
}
