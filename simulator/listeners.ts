import { createServer, type RequestListener, type Server } from "node:http";

/**
 * The loopback ports one world is served on: the main port and its aliases (an API domain that was
 * renamed keeps answering for the same accounts). Closing them makes new connections fail with
 * ECONNREFUSED, as an unreachable control plane does; reopening takes the very same ports.
 */
export class Listeners {
  private servers: Server[] = [];

  constructor(
    private readonly listener: RequestListener,
    private readonly host: string,
    private ports: number[],
  ) {}

  get boundPorts(): readonly number[] {
    return this.ports;
  }

  get isOpen(): boolean {
    return this.servers.length > 0;
  }

  async open(): Promise<void> {
    if (this.isOpen) return;
    const opened: Server[] = [];
    try {
      for (const [index, port] of this.ports.entries()) {
        const server = createServer(this.listener);
        await listen(server, port, this.host);
        opened.push(server);
        // Port 0 means "any free port"; remember which, so a resume comes back on it.
        this.ports[index] = boundPort(server);
      }
    } catch (cause) {
      await Promise.all(opened.map(close));
      throw cause;
    }
    this.servers = opened;
  }

  /** Refuses new connections and cuts open ones, including any a fault left hanging. */
  async close(): Promise<void> {
    const closing = this.servers;
    this.servers = [];
    await Promise.all(closing.map(close));
  }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (cause: Error) => reject(cause);
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolve();
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

function boundPort(server: Server): number {
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the simulator is not on a TCP port");
  return address.port;
}
