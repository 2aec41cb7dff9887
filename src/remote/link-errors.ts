/** What a remote link throws, in a module of its own: the connection checks them without loading the SDK's HTTP code. */

/** The session the server gave is unknown to it now (it expired or the server restarted). */
export class SessionExpired extends Error {
  constructor() {
    super("the server ended the session (HTTP 404)");
    this.name = "SessionExpired";
  }
}

/** The server refused one message (an HTTP error status): that request fails, the link stays. */
export class MessageRefused extends Error {
  override readonly name = "MessageRefused";
}
