import type { Route } from "./routes/context.js";

export type RouteMatch =
  | { kind: "found"; route: Route; params: Record<string, string> }
  | { kind: "wrong-method"; template: string; allowed: string[] }
  | { kind: "none" };

/** Matches a pathname against route templates segment by segment; `:name` captures one segment. */
export class Router {
  constructor(private readonly routes: readonly Route[]) {}

  match(method: string, pathname: string): RouteMatch {
    const segments = pathname.split("/").slice(1);
    const allowed: string[] = [];
    let template: string | undefined;
    for (const route of this.routes) {
      const params = matchTemplate(route.template, segments);
      if (!params) continue;
      if (route.method === method) return { kind: "found", route, params };
      allowed.push(route.method);
      template ??= route.template;
    }
    return template ? { kind: "wrong-method", template, allowed } : { kind: "none" };
  }
}

function matchTemplate(template: string, segments: string[]): Record<string, string> | undefined {
  const parts = template.split("/").slice(1);
  if (parts.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as string;
    const segment = segments[i] as string;
    if (part.startsWith(":")) {
      const value = decodeSegment(segment);
      if (value === "") return undefined;
      params[part.slice(1)] = value;
    } else if (part !== segment) {
      return undefined;
    }
  }
  return params;
}

/** A segment that is not valid percent-encoding is kept as sent, and fails id validation later. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
