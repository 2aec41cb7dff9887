/**
 * A server's lists kept current: when it says its tools, prompts or resources changed, they are
 * listed again (one list at a time, see rerun.ts) for as long as the SDK Client is the session's.
 */
import {
  type Client,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  type Tool,
  ToolListChangedNotificationSchema,
} from "../protocol/sdk.ts";
import { messageOf } from "../protocol/errors.ts";
import { listServerListing, listTools, type ServerListing } from "./listing.ts";
import { Rerun } from "./rerun.ts";

/** The session, as the watch of one of its Clients sees it. */
export interface ListingOwner {
  /** The Client is still the session's (a renewed session has another). */
  owns(client: Client): boolean;
  /** The session was lost: nothing more is listed. */
  readonly lost: boolean;
  readonly timeoutMs: number;
  toolsListed(tools: Tool[]): void;
  listingChanged(listing: ServerListing): void;
  resourceUpdated(uri: string): void;
  /** A line for the log, secrets masked. */
  log(text: string): void;
}

/** A server session as its listing owner is made of it: what a listing sets and tells. */
export interface WatchedSession {
  readonly lostReason?: string;
  readonly target: { readonly config: { readonly connectTimeoutMs: number } };
  tools: Tool[];
  listing: ServerListing;
  onToolsChanged?: () => void;
  onListingChanged?: () => void;
  onResourceUpdated?: (uri: string) => void;
}

/** The owner a session's watch sees: `owns` tells its current Client, `log` masks its secrets. */
export function listingOwnerOf(session: WatchedSession, owns: (client: Client) => boolean, log: (text: string) => void): ListingOwner {
  return {
    owns,
    get lost() {
      return session.lostReason !== undefined;
    },
    timeoutMs: session.target.config.connectTimeoutMs,
    toolsListed: (tools) => {
      // A new array: each toolbox's view made from the old one sees that it is stale.
      session.tools = tools;
      session.onToolsChanged?.();
    },
    listingChanged: (listing) => {
      session.listing = listing;
      session.onListingChanged?.();
    },
    resourceUpdated: (uri) => session.onResourceUpdated?.(uri),
    log,
  };
}

export class ListingWatch {
  readonly #tools: Rerun;

  /** Registers the Client's handlers: before it connects. */
  constructor(client: Client, owner: ListingOwner) {
    this.#tools = new Rerun(() => toolsChanged(client, owner));
    const listing = new Rerun(() => promptsOrResourcesChanged(client, owner));
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.#tools.request());
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => listing.request());
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => listing.request());
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      if (owner.owns(client)) owner.resourceUpdated(notification.params.uri);
    });
  }

  /** Resolves once the tools are listed as the server last said they changed. */
  settled(): Promise<void> {
    return this.#tools.settled();
  }
}

/** The server's tools changed: list them again; false once this client is no longer ours, or it failed. */
async function toolsChanged(client: Client, owner: ListingOwner): Promise<boolean> {
  if (!owner.owns(client) || owner.lost) return false;
  try {
    const tools = await listTools(client, owner.timeoutMs);
    if (!owner.owns(client)) return false;
    owner.toolsListed(tools);
    return !owner.lost;
  } catch (error) {
    owner.log(`listing the changed tools failed: ${messageOf(error)}`);
    return false;
  }
}

/** Prompts or resources changed: list them again; false once this client is no longer ours. */
async function promptsOrResourcesChanged(client: Client, owner: ListingOwner): Promise<boolean> {
  if (!owner.owns(client) || owner.lost) return false;
  const listing = await listServerListing(client, owner.timeoutMs, (text) => owner.log(text));
  if (!owner.owns(client)) return false;
  owner.listingChanged(listing);
  return !owner.lost;
}
