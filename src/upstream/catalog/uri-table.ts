/**
 * Which server a resource URI belongs to. URIs reach the client verbatim (never rewritten), so
 * resources/read, resources/subscribe and completions are routed by this table, fed by each
 * server's resources/list, its resource templates (an expanded URI matches the template) and the
 * URIs its tools return. A URI several servers claim goes to the first in configuration order;
 * a URI listed exactly beats a template that matches it.
 */

export interface UriOwner {
  toolbox: string;
  server: string;
  /** Position in the configuration: lower wins a conflict. */
  rank: number;
}

interface TemplateEntry {
  template: string;
  pattern: RegExp;
  owner: UriOwner;
}

/** More URIs than this learned from tool results forgets the oldest: a long session stays bounded. */
export const MAX_LEARNED_URIS = 10_000;

export class UriTable {
  /** Each server's listed URIs, in configuration order: the first that has a URI owns it. */
  #listed: { owner: UriOwner; uris: Set<string> }[] = [];
  readonly #learned = new Map<string, UriOwner>();
  #templates: TemplateEntry[] = [];

  /** The URIs a server listed (resources/list), replacing what it listed before. */
  setListed(owner: UriOwner, uris: string[]): void {
    const kept = this.#listed.filter((entry) => !same(entry.owner, owner));
    this.#listed = [...kept, { owner, uris: new Set(uris) }].sort((x, y) => x.owner.rank - y.owner.rank);
  }

  /** The templates a server listed (resources/templates/list), replacing what it listed before. */
  setTemplates(owner: UriOwner, templates: string[]): void {
    const kept = this.#templates.filter((entry) => !same(entry.owner, owner));
    const added = templates.map((template) => ({ template, pattern: templatePattern(template), owner }));
    this.#templates = [...kept, ...added].sort((x, y) => x.owner.rank - y.owner.rank);
  }

  /** The configuration changed: owners are positions in it, so all is learned again. */
  clear(): void {
    this.#listed = [];
    this.#learned.clear();
    this.#templates = [];
  }

  /** A URI a server's tool returned (a resource_link or an embedded resource). */
  learn(owner: UriOwner, uri: string): void {
    const known = this.#learned.get(uri);
    if (known && known.rank <= owner.rank) return;
    if (!known && this.#learned.size >= MAX_LEARNED_URIS) this.#learned.delete(this.#learned.keys().next().value!);
    this.#learned.set(uri, owner);
  }

  /** The server a URI goes to: listed or learned exactly first, then the first matching template. */
  ownerOf(uri: string): UriOwner | undefined {
    const exact = earliest(this.#listed.find((entry) => entry.uris.has(uri))?.owner, this.#learned.get(uri));
    if (exact) return exact;
    return this.#templates.find((entry) => entry.pattern.test(uri))?.owner;
  }

  /** The server that listed a template (for completions of a template's variables). */
  ownerOfTemplate(template: string): UriOwner | undefined {
    return this.#templates.find((entry) => entry.template === template)?.owner;
  }
}

const same = (a: UriOwner, b: UriOwner) => a.toolbox === b.toolbox && a.server === b.server;

function earliest(a: UriOwner | undefined, b: UriOwner | undefined): UriOwner | undefined {
  if (!a || !b) return a ?? b;
  return b.rank < a.rank ? b : a;
}

/**
 * A regular expression for the URIs an RFC 6570 template expands to. Simple `{x}` stops at `/`,
 * `?` and `#`; reserved `{+x}` and fragment `{#x}` take anything; `{/x}`, `{.x}`, `{;x}` take any
 * number of their segments; `{?x}` and `{&x}` any query.
 */
export function templatePattern(template: string): RegExp {
  let source = "";
  let rest = template;
  for (let guard = 0; rest.length > 0 && guard <= template.length; guard++) {
    const open = rest.indexOf("{");
    const close = open === -1 ? -1 : rest.indexOf("}", open);
    if (open === -1 || close === -1) {
      source += escape(rest);
      break;
    }
    source += escape(rest.slice(0, open)) + expression(rest.slice(open + 1, close));
    rest = rest.slice(close + 1);
  }
  return new RegExp(`^${source}$`);
}

function expression(body: string): string {
  switch (body[0]) {
    case "+":
    case "#":
      return "(.*)";
    case "/":
      return "((?:/[^/?#]*)*)";
    case ".":
      return "((?:\\.[^/?#]*)*)";
    case ";":
      return "((?:;[^/?#]*)*)";
    case "?":
    case "&":
      return "((?:[?&][^#]*)?)";
    default:
      return "([^/?#]*)";
  }
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
