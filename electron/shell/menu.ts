import { Menu, type MenuItemConstructorOptions } from "electron";
import type { z } from "zod";
import type { AppCommandSchema } from "../../shared/contract/index.js";
import { openExternalIfAllowed } from "./security.js";

type AppCommand = z.infer<typeof AppCommandSchema>["command"];

/**
 * The usual menus (app, file, edit, view, window, help) with Leasekeeper's two shortcuts, forwarded to
 * the UI as `app:command` events: Ctrl/Cmd-R refreshes the inventory (not a page reload), Ctrl/Cmd-K
 * opens the command palette. Reload and developer tools exist in development only.
 */
export function buildMenuTemplate(options: {
  platform: NodeJS.Platform;
  dev: boolean;
  command: (command: AppCommand) => void;
}): MenuItemConstructorOptions[] {
  const mac = options.platform === "darwin";
  const template: MenuItemConstructorOptions[] = [];
  if (mac) template.push({ role: "appMenu" });
  template.push({
    label: "File",
    submenu: [
      {
        label: "Refresh inventory",
        accelerator: "CmdOrCtrl+R",
        click: () => options.command("refresh-inventory"),
      },
      { label: "Command palette…", accelerator: "CmdOrCtrl+K", click: () => options.command("open-palette") },
      { type: "separator" },
      mac ? { role: "close" } : { role: "quit" },
    ],
  });
  template.push({ role: "editMenu" });
  template.push({
    label: "View",
    submenu: [
      ...(options.dev
        ? ([
            { role: "reload", accelerator: "CmdOrCtrl+Shift+R" },
            { role: "toggleDevTools" },
            { type: "separator" },
          ] satisfies MenuItemConstructorOptions[])
        : []),
      { role: "resetZoom" },
      { role: "zoomIn" },
      { role: "zoomOut" },
      { type: "separator" },
      { role: "togglefullscreen" },
    ],
  });
  template.push({ role: "windowMenu" });
  template.push({
    role: "help",
    submenu: [
      { label: "CreateOS sandbox API", click: () => openExternalIfAllowed("https://docs.createos.sh/") },
      { label: "Paperclip", click: () => openExternalIfAllowed("https://github.com/paperclipai/paperclip") },
    ],
  });
  return template;
}

export function installMenu(options: Parameters<typeof buildMenuTemplate>[0]): void {
  Menu.setApplicationMenu(Menu.buildFromTemplate(buildMenuTemplate(options)));
}
