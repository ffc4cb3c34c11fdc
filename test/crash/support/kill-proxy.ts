import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";

/**
 * A pass-through HTTP proxy between a job process and the simulator that can kill the job process at an
 * exact point of its conversation with CreateOS: when its n-th request arrives (the request then never
 * reaches CreateOS), or when the answer to its n-th request is back from CreateOS but not yet relayed
 * (CreateOS acted; the process never learns it did). Those are the two windows a crash can open that a
 * timer alone would rarely hit.
 */

export type ProxyTrigger = { on: "request" | "answer"; n: number };

export interface KillProxy {
  readonly url: string;
  /** Arms a trigger; `fire` is called (once) at that point, before the request goes on or the answer is relayed. */
  arm(trigger: ProxyTrigger, fire: () => void): void;
  disarm(): void;
  /** Requests seen since the last `arm`. */
  readonly seen: number;
  close(): Promise<void>;
}

export async function startKillProxy(upstream: string): Promise<KillProxy> {
  const target = new URL(upstream);
  let armed: { trigger: ProxyTrigger; fire: () => void } | null = null;
  let seen = 0;
  let answered = 0;

  const cut = (req: IncomingMessage) => {
    req.socket.destroy();
  };

  const server: Server = createServer((req, res) => {
    seen += 1;
    const current = armed;
    if (current?.trigger.on === "request" && seen === current.trigger.n) {
      armed = null;
      current.fire();
      cut(req);
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
            answered += 1;
            const now = armed;
            if (now?.trigger.on === "answer" && answered >= now.trigger.n) {
              armed = null;
              now.fire();
              cut(req);
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
      forward.on("error", () => cut(req));
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
      armed = { trigger, fire };
    },
    disarm() {
      armed = null;
    },
    get seen() {
      return seen;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
