import { type SandboxView, toView } from "./view.js";
import type { World } from "./world.js";

export interface AccountSandboxes {
  /** The account's user id. */
  account: string;
  /** The last four characters of its key: enough to tell keys apart, never enough to use one. */
  apiKeyHint: string;
  sandboxes: (SandboxView & { files?: string[] })[];
}

/** Every account's sandboxes as the API would show them, plus which files each holds. */
export function snapshot(world: World): AccountSandboxes[] {
  return world.allAccounts().map((account) => ({
    account: account.userId,
    apiKeyHint: account.apiKey.slice(-4),
    sandboxes: world.list(account).map((sandbox) => {
      const files = sandbox.workspace.filePaths();
      return files.length > 0 ? { ...toView(sandbox), files } : toView(sandbox);
    }),
  }));
}
