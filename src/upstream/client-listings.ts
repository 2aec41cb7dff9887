/**
 * What a client is told before any server starts, from the listing cache: the instructions'
 * figures and run_code's declarations. The local user's are read when serving starts (the figures
 * again when the configuration changes); another client's are read from its own cache files when
 * its first session opens (a server whose processes are each client's own lists for that client
 * alone, see ListingCache), kept for the configuration in force, for a bounded number of clients.
 */
import type { LiveConfig } from "../config/live.ts";
import type { ListingCache } from "../cache/listing-cache.ts";
import type { PinStore } from "../toolboxes/pin-store.ts";
import { LOCAL_CLIENT_NAME } from "../config/client-variable.ts";
import { liveFigures } from "./config-follow.ts";
import { cachedDeclarations } from "./code-declarations.ts";
import { type ClientListings, type FiguresFor, toolboxFigures } from "./toolbox-figures.ts";

/** How many other clients' listings are kept; the oldest goes first (it is read again when needed). */
const MAX_CLIENTS = 256;

interface Kept {
  figures: Promise<FiguresFor>;
  declarations: Promise<Record<string, string>>;
}

export async function clientListings(live: LiveConfig, cache: ListingCache, pins?: PinStore): Promise<ClientListings> {
  const localFigures = await liveFigures(live, cache, pins);
  const localDeclarations = await cachedDeclarations(live.current, cache, pins);
  const others = new Map<string, Kept>();
  live.onChange(() => others.clear());
  const kept = (client: string): Kept => {
    let entry = others.get(client);
    if (!entry) {
      const config = live.current;
      const none = (): Record<string, never> => ({});
      entry = {
        figures: toolboxFigures(config, cache, pins, client).catch(() => none),
        declarations: cachedDeclarations(config, cache, pins, client).catch(none),
      };
      if (others.size >= MAX_CLIENTS) others.delete(others.keys().next().value!);
      others.set(client, entry);
    }
    return entry;
  };
  return {
    figures: (client) => client === LOCAL_CLIENT_NAME ? Promise.resolve(localFigures) : kept(client).figures,
    declarations: (client) => client === LOCAL_CLIENT_NAME ? Promise.resolve(localDeclarations) : kept(client).declarations,
  };
}
