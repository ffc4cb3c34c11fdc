import { z } from "zod";
import type { ProviderSandbox } from "../../../shared/domain/inventory.js";
import { isValidSandboxId } from "../../../shared/domain/sandbox-id.js";

/**
 * CreateOS's SandboxView, read leniently: id and status must be there (an id must also pass the
 * plugin's pattern, since actions will put it into a path), every other field is taken when it has the
 * right type and dropped otherwise. The status is kept verbatim even when it is a value we do not know.
 */
const optionalString = z.string().optional().catch(undefined);
const optionalNumber = z.number().optional().catch(undefined);

const SandboxViewSchema = z.object({
  id: z.string().refine(isValidSandboxId),
  status: z.string().min(1).max(100),
  shape: optionalString,
  rootfs: optionalString,
  region: optionalString,
  vcpu: optionalNumber,
  mem_mib: optionalNumber,
  created_at: optionalString,
  name: optionalString,
  created_by: optionalString,
});

/**
 * Listed views → sandboxes: unreadable ones counted, repeats dropped (a row can reappear on the next page
 * when the list shifts between requests). `seen` carries the ids across parts of one listing.
 */
export function readSandboxViews(
  views: readonly unknown[],
  seen: Set<string> = new Set(),
): { sandboxes: ProviderSandbox[]; skipped: number } {
  const sandboxes: ProviderSandbox[] = [];
  let skipped = 0;
  for (const view of views) {
    const sandbox = readSandboxView(view);
    if (sandbox === null) skipped += 1;
    else if (!seen.has(sandbox.id)) {
      seen.add(sandbox.id);
      sandboxes.push(sandbox);
    }
  }
  return { sandboxes, skipped };
}

export function readSandboxView(view: unknown): ProviderSandbox | null {
  const parsed = SandboxViewSchema.safeParse(view);
  if (!parsed.success) return null;
  const { id, status, shape, rootfs, region, vcpu, mem_mib, created_at, name, created_by } = parsed.data;
  const sandbox: ProviderSandbox = { id, status };
  if (shape !== undefined) sandbox.shape = shape;
  if (rootfs !== undefined) sandbox.rootfs = rootfs;
  if (region !== undefined) sandbox.region = region;
  if (vcpu !== undefined) sandbox.vcpu = vcpu;
  if (mem_mib !== undefined) sandbox.memMib = mem_mib;
  if (created_at !== undefined) sandbox.createdAt = created_at;
  if (name !== undefined) sandbox.name = name;
  if (created_by !== undefined) sandbox.createdBy = created_by;
  return sandbox;
}
