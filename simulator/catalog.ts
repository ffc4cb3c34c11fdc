// What this control plane offers: statuses, shapes, rootfs images and its one region.

export const SANDBOX_STATUSES = [
  "creating",
  "running",
  "pausing",
  "paused",
  "resuming",
  "forking",
  "error",
  "destroying",
  "destroyed",
  "failed",
] as const;

export type SandboxStatus = (typeof SANDBOX_STATUSES)[number];

export function isSandboxStatus(value: string): value is SandboxStatus {
  return (SANDBOX_STATUSES as readonly string[]).includes(value);
}

export interface Shape {
  id: string;
  vcpu: number;
  mem_mib: number;
  default_disk_mib: number;
  cpu_quota_pct?: number;
}

// The catalog as published at /v1/shapes on 2026-09-08.
export const SHAPE_IDS = [
  "s-1vcpu-256mb",
  "s-0.25vcpu-512mb",
  "s-0.5vcpu-1gb",
  "s-1vcpu-1gb",
  "s-1vcpu-2gb",
  "s-2vcpu-2gb",
  "s-2vcpu-4gb",
  "s-4vcpu-4gb",
  "s-4vcpu-8gb",
  "s-8vcpu-8gb",
  "s-8vcpu-16gb",
] as const;

const DEFAULT_DISK_MIB = 10_240;

// Fractional shapes are whole-vCPU VMs capped by a cgroup quota; the id carries the numbers [I].
function shapeFromId(id: string): Shape {
  const match = /^s-([\d.]+)vcpu-(\d+)(mb|gb)$/.exec(id);
  if (!match) throw new Error(`shape id ${id} does not follow s-<vcpu>vcpu-<mem><mb|gb>`);
  const cpus = Number(match[1]);
  const mem = Number(match[2]) * (match[3] === "gb" ? 1024 : 1);
  const shape: Shape = {
    id,
    vcpu: Math.max(1, Math.floor(cpus)),
    mem_mib: mem,
    default_disk_mib: DEFAULT_DISK_MIB,
  };
  if (cpus < 1) shape.cpu_quota_pct = Math.round(cpus * 100);
  return shape;
}

export const SHAPES: readonly Shape[] = SHAPE_IDS.map(shapeFromId);

const shapesById = new Map(SHAPES.map((shape) => [shape.id, shape]));

export function findShape(id: string): Shape | undefined {
  return shapesById.get(id);
}

export const ROOTFS_IMAGES = ["devbox:1", "node"] as const;
export const DEFAULT_ROOTFS = "devbox:1";

export function isCatalogRootfs(name: string): boolean {
  return (ROOTFS_IMAGES as readonly string[]).includes(name);
}

export const DEFAULT_REGION = "eu";

// Default bandwidth quota a new sandbox gets.
export const DEFAULT_BANDWIDTH_QUOTA_BYTES = 5 * 1024 ** 3;
