import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";

/**
 * A pass-through HTTP proxy between a process and the simulator that can kill the process at an exact
 * point of its conversation with CreateOS: when a request arrives (the request then never reaches
 * CreateOS), or when its answer is back from CreateOS but not yet relayed (CreateOS acted; the process
 * never learns it did). Those are the two windows a crash can open that a timer alone would rarely hit.
 */

/**
 * Which request: the n-th since the trigger was armed (for a flow whose requests are counted), or the
 * first of a route (for a flow whose request count is not fixed).
 */
export type KillTrigger =
  | { on: "request" | "answer"; n: number }
  | { on: "request" | "answer"; method: string; path: RegExp };

export interface KillProxy {
  readonly url: string;
  /** Arms a trigger; `fire` is called (once) at that point, before the request goes on or the answer is relayed. */
  arm(trigger: KillTrigger, fire: () => void): void;
  disarm(): void;
  /** Whether the last armed trigger fired. */
  readonly fired: boolean;
  close(): Promise<void>;
}

export async function startKillProxy(upstream: string): Promise<KillProxy> {
  const target = new URL(upstream);
  let armed: { trigger: KillTrigger; fire: () => void } | null = null;
  let fired = false;
  let seen = 0;
  let answered = 0;

  /** Fires the armed trigger if `req` is its point, and says so; the request's connection is then cut. */
  const killedAt = (req: IncomingMessage, on: KillTrigger["on"], count: number): boolean => {
    const current = armed;
    if (current === null || current.trigger.on !== on) return false;
    const trigger = current.trigger;
    const hit =
      "n" in trigger
        ? on === "request"
          ? count === trigger.n
          : count >= trigger.n
        : trigger.method === req.method &&
          trigger.path.test(new URL(req.url ?? "/", "http://proxy").pathname);
    if (!hit) return false;
    armed = null;
    fired = true;
    current.fire();
    req.socket.destroy();
    return true;
  };

  const server: Server = createServer((req, res) => {
    seen += 1;
    if (killedAt(req, "request", seen)) return;
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const forward = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: target.host },
        },
        (upstreamResponse) => {
          const body: Buffer[] = [];
          upstreamResponse.on("data", (chunk: Buffer) => body.push(chunk));
          upstreamResponse.on("end", () => {
            answered += 1;
            if (killedAt(req, "answer", answered)) return;
            const headers = { ...upstreamResponse.headers };
            delete headers["transfer-encoding"];
            const payload = Buffer.concat(body);
            headers["content-length"] = String(payload.length);
            res.writeHead(upstreamResponse.statusCode ?? 502, headers);
            res.end(payload);
          });
        },
      );
      forward.on("error", () => req.socket.destroy());
      forward.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    arm(trigger, fire) {
      seen = 0;
      answered = 0;
      fired = false;
      armed = { trigger, fire };
    },
    disarm() {
      armed = null;
    },
    get fired() {
      return fired;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
