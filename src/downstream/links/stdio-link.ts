/** A server started as a child process, spoken to over its stdin and stdout. */
import type { StdioServerConfig } from "../../config/index.ts";
import type { ChildProcess, ExitStatus } from "../../platform/types.ts";
import type { RequestId } from "../../protocol/sdk.ts";
import { StreamTransport } from "../../transport/stream-transport.ts";
import type { SignalSource } from "../../transport/write-queue.ts";
import { messageOf } from "../../protocol/errors.ts";
import { type LinkHost, logPrefix, type ServerLink, type ServerTarget } from "./link.ts";
import { childEnvironment, withheldHint } from "./child-env.ts";
import { relayStderr, StderrTail } from "./stderr-relay.ts";
import { memberValuesOf } from "../../config/member-secrets.ts";
import { Redactor } from "../../address/redact.ts";
import type { ByteRoom } from "../../transport/byte-room.ts";

/** How long a child gets after its stdin closes, and again after SIGTERM. */
const GRACE_MS = 2_000;
/** How long a failure waits for an exited child's last stderr lines to be read. */
const STDERR_REPORT_MS = 500;

export class StdioLink implements ServerLink {
  readonly transport: StreamTransport;
  onLost?: (reason: string) => void;
  readonly #child: ChildProcess;
  readonly #log: (text: string) => void;
  #status?: ExitStatus;
  #closing = false;
  /** What the server last wrote to stderr, for the message of a failed start. */
  readonly #stderrTail = new StderrTail();
  readonly #stderrDone: Promise<void>;
  /** The configured env values: a server that prints its key must not show it to the client. */
  readonly #redactor: Redactor;
  readonly #messageRedactor: Redactor;
  readonly #config: StdioServerConfig;
  readonly #hostEnv: Record<string, string>;
  readonly #windows: boolean;

  private constructor(
    child: ChildProcess,
    target: ServerTarget & { config: StdioServerConfig },
    host: LinkHost,
    log: (text: string) => void,
    room: ByteRoom,
  ) {
    const config = target.config;
    this.#config = config;
    this.#hostEnv = host.env;
    this.#windows = host.windows ?? false;
    this.#child = child;
    this.#log = log;
    // A member's values (${client:NAME}) are masked wherever they appear, in args too.
    this.#redactor = Redactor.forEnv(config.env).with(memberValuesOf(config));
    this.#messageRedactor = Redactor.forEnvMessages(config.env).with(memberValuesOf(config));
    const redact = (text: string) => this.#redactor.redact(text);
    this.#stderrDone = relayStderr(child.stderr, logPrefix(target), host.writeStderr, this.#stderrTail, redact);
    this.transport = new StreamTransport(child.stdout, child.stdin, {
      maxMessageBytes: config.maxMessageBytes,
      readGate: host.readGate,
      // What is not yet written to its stdin counts in the server's room.
      backlog: room,
      drainAfterClose: true,
    });
    child.exited.then((status) => this.#onExit(status));
  }

  /**
   * Spawns the server; throws if it cannot start. A command not on the child's PATH is looked for
   * as the user's shell would find it (host.commandSearch), which takes a moment: a promise then.
   */
  static spawn(
    target: ServerTarget & { config: StdioServerConfig },
    host: LinkHost,
    log: (text: string) => void,
    room: ByteRoom,
  ): StdioLink | Promise<StdioLink> {
    const { command, args, env, cwd, inheritEnv, withheldEnv = [] } = target.config;
    const inherited = () => Object.fromEntries(Object.entries(host.env).filter(([name]) => !withheldEnv.includes(name)));
    const childEnv = inheritEnv ? { ...inherited(), ...env } : childEnvironment(host.env, env, host.windows);
    const start = (childEnv: Record<string, string>) =>
      new StdioLink(host.spawn(command, args, { env: childEnv, cwd }), target, host, log, room);
    if (!host.commandSearch) return start(childEnv);
    return host.commandSearch.start(command, childEnv, env, `[${target.toolbox}/${target.server}]`, start);
  }

  set claim(claim: StreamTransport["claim"]) {
    this.transport.claim = claim;
  }

  /** What its messages are masked with: its env's secrets, not every setting (see Redactor.forEnvMessages). */
  get redactor(): Redactor {
    return this.#messageRedactor;
  }

  redact(text: string): string {
    return this.#redactor.redact(text);
  }

  whenRoom(go: () => void, signal: SignalSource): void {
    this.transport.writes.whenRoom(go, signal);
  }

  withdraw(id: RequestId): boolean {
    return this.transport.writes.withdraw(id);
  }

  /** A child that exited has usually said why on stderr: its last lines are read first. */
  async explain(reason: string): Promise<string> {
    if (this.#status) await within(STDERR_REPORT_MS, this.#stderrDone);
    return this.#stderrTail.explain(reason) + this.#withheld();
  }

  /** The variables its stderr names that it was not given (the workbench passes few by default). */
  #withheld(): string {
    const { env, inheritEnv } = this.#config;
    if (inheritEnv) return "";
    return withheldHint(this.#stderrTail.variables(), this.#hostEnv, childEnvironment(this.#hostEnv, env, this.#windows));
  }

  async saidAnything(): Promise<boolean> {
    if (this.#status) await within(STDERR_REPORT_MS, this.#stderrDone);
    return this.#stderrTail.text() !== "";
  }

  async endedWithin(ms: number): Promise<string | undefined> {
    const status = await this.#exitWithin(ms);
    return status && describeExit(status);
  }

  /**
   * Called as the SDK Client closes stdin: waits for the child to leave, then escalates to SIGTERM and SIGKILL (of the child's
   * process group) if it does not leave. A server that failed to start is not waited for after
   * its stdin closes: it has no work to finish, so SIGTERM comes at once.
   */
  async close({ graceful }: { graceful: boolean }): Promise<void> {
    this.#closing = true;
    const left = graceful && await this.#exitWithin(GRACE_MS);
    if (!left) {
      this.#signal("SIGTERM");
      await this.#exitWithin(GRACE_MS);
    }
    // SIGKILL for a server that ignored SIGTERM, and for anything it left behind in its group.
    this.#signal("SIGKILL");
    await this.#child.exited;
  }

  /** A crash: report it and take down what the server left behind. */
  #onExit(status: ExitStatus): void {
    this.#status = status;
    // What a grandchild still writes to the inherited stdout is not waited for.
    this.transport.stopDraining();
    if (this.#closing) return;
    const reason = describeExit(status);
    this.#log(reason);
    this.onLost?.(reason);
    this.#signal("SIGKILL");
  }

  async #exitWithin(ms: number): Promise<ExitStatus | undefined> {
    if (this.#status) return this.#status;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
    const status = await Promise.race([this.#child.exited, expired]);
    clearTimeout(timer);
    return status;
  }

  /** A signal that cannot be sent (EPERM from a setuid helper in the group) is logged, not thrown. */
  #signal(signal: "SIGTERM" | "SIGKILL"): void {
    try {
      this.#child.kill(signal);
    } catch (error) {
      this.#log(`could not send ${signal}: ${messageOf(error)}`);
    }
  }
}

/** Waits for `promise`, but no longer than `ms`. */
async function within(ms: number, promise: Promise<unknown>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

function describeExit(status: ExitStatus): string {
  return status.signal ? `server exited on signal ${status.signal}` : `server exited with code ${status.code}`;
}
