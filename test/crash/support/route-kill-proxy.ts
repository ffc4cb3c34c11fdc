import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";

/**
 * A pass-through HTTP proxy in front of the simulator that kills a process at one exact request of a
 * given route: when it arrives (it then never reaches CreateOS), or when CreateOS has answered it but the
 * answer is not yet relayed (CreateOS acted; the process never learns it did). Where `kill-proxy.ts`
 * counts every request, this one names the request, for flows whose request count is not fixed.
 */

export interface RouteTrigger {
  on: "request" | "answer";
  method: string;
  path: RegExp;
}

export interface RouteKillProxy {
  readonly url: string;
  /** Arms one trigger; `fire` runs once, before the request goes on or its answer is relayed. */
  arm(trigger: RouteTrigger, fire: () => void): void;
  readonly fired: boolean;
  close(): Promise<void>;
}

export async function startRouteKillProxy(upstream: string): Promise<RouteKillProxy> {
  const target = new URL(upstream);
  let armed: { trigger: RouteTrigger; fire: () => void } | null = null;
  let fired = false;
  const matches = (req: IncomingMessage, on: RouteTrigger["on"]) =>
    armed !== null &&
    armed.trigger.on === on &&
    armed.trigger.method === req.method &&
    armed.trigger.path.test(new URL(req.url ?? "/", "http://proxy").pathname);
  const fire = (req: IncomingMessage) => {
    const current = armed!;
    armed = null;
    fired = true;
    current.fire();
    req.socket.destroy();
  };

  const server: Server = createServer((req, res) => {
    if (matches(req, "request")) {
      fire(req);
      return;
    }
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
            if (matches(req, "answer")) {
              fire(req);
              return;
            }
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
    arm(trigger, onFire) {
      fired = false;
      armed = { trigger, fire: onFire };
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
