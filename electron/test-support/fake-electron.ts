/**
 * A recording stand-in for the `electron` module, for tests that run main.ts, preload.ts and
 * security.ts in plain Node (the Electron binary is not needed, and must never be imported by a test).
 * Use it as `vi.mock("electron", () => import("./test-support/fake-electron.js"))` and inspect `fake`.
 */

type Listener = (...args: never[]) => unknown;

class Emitter {
  readonly listeners = new Map<string, Listener[]>();
  on(event: string, listener: Listener): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }
  once(event: string, listener: Listener): this {
    const wrapped = ((...args: never[]) => {
      this.removeListener(event, wrapped);
      return listener(...args);
    }) as Listener;
    return this.on(event, wrapped);
  }
  removeListener(event: string, listener: Listener): this {
    this.listeners.set(
      event,
      (this.listeners.get(event) ?? []).filter((entry) => entry !== listener),
    );
    return this;
  }
  emit(event: string, ...args: unknown[]): unknown[] {
    return (this.listeners.get(event) ?? []).map((listener) =>
      (listener as (...a: unknown[]) => unknown)(...args),
    );
  }
  listenerCount(event: string): number {
    return this.listeners.get(event)?.length ?? 0;
  }
}

export interface FakeEvent {
  defaultPrevented: boolean;
  url?: string;
  preventDefault(): void;
}

export function fakeEvent(extra: Record<string, unknown> = {}): FakeEvent {
  return {
    defaultPrevented: false,
    preventDefault() {
      this.defaultPrevented = true;
    },
    ...extra,
  };
}

let nextContentsId = 1;

export class FakeWebContents extends Emitter {
  readonly id = nextContentsId++;
  windowOpenHandler: ((details: { url: string }) => { action: string }) | null = null;
  readonly sent: Array<{ channel: string; payload: unknown }> = [];
  destroyed = false;
  readonly mainFrame: { url: string; parent: null };
  constructor(url = "") {
    super();
    this.mainFrame = { url, parent: null };
  }
  setWindowOpenHandler(handler: (details: { url: string }) => { action: string }): void {
    this.windowOpenHandler = handler;
  }
  send(channel: string, payload: unknown): void {
    this.sent.push({ channel, payload });
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
}

class FakeApp extends Emitter {
  isPackaged = false;
  lockGranted = true;
  lockRequests = 0;
  quits = 0;
  userData = "/tmp/leasekeeper-fake-user-data";
  readyCalls = 0;
  requestSingleInstanceLock(): boolean {
    this.lockRequests += 1;
    return this.lockGranted;
  }
  quit(): void {
    this.quits += 1;
  }
  whenReady(): Promise<void> {
    this.readyCalls += 1;
    return Promise.resolve();
  }
  getVersion(): string {
    return "0.1.0-test";
  }
  getPath(_name: string): string {
    return this.userData;
  }
}

export class BrowserWindow extends Emitter {
  static instances: BrowserWindow[] = [];
  readonly options: Record<string, unknown>;
  readonly webContents: FakeWebContents;
  shown = false;
  focused = false;
  destroyed = false;
  minimized = false;
  loadedUrl: string | null = null;
  constructor(options: Record<string, unknown>) {
    super();
    this.options = options;
    this.webContents = new FakeWebContents();
    BrowserWindow.instances.push(this);
    app.emit("web-contents-created", fakeEvent(), this.webContents);
  }
  show(): void {
    this.shown = true;
  }
  focus(): void {
    this.focused = true;
  }
  restore(): void {
    this.minimized = false;
  }
  isMinimized(): boolean {
    return this.minimized;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  loadURL(url: string): Promise<void> {
    this.loadedUrl = url;
    (this.webContents.mainFrame as { url: string }).url = url;
    return Promise.resolve();
  }
}

export const app = new FakeApp();

type IpcHandler = (event: unknown, payload: unknown) => unknown;
export const ipcMain = {
  handlers: new Map<string, IpcHandler>(),
  handle(channel: string, handler: IpcHandler): void {
    if (this.handlers.has(channel))
      throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.handlers.set(channel, handler);
  },
  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  },
};

export const ipcRenderer = {
  invocations: [] as Array<{ channel: string; payload: unknown }>,
  emitter: new Emitter(),
  /** What main answers, when a test sets it (e.g. main's own handler, its answer cloned as IPC would). */
  answer: null as ((channel: string, payload: unknown) => Promise<unknown>) | null,
  invoke(channel: string, payload: unknown): Promise<unknown> {
    this.invocations.push({ channel, payload });
    return this.answer ? this.answer(channel, payload) : Promise.resolve({ ok: true, data: { channel } });
  },
  on(channel: string, listener: Listener) {
    this.emitter.on(channel, listener);
    return this;
  },
  removeListener(channel: string, listener: Listener) {
    this.emitter.removeListener(channel, listener);
    return this;
  },
};

export const contextBridge = {
  exposed: new Map<string, unknown>(),
  exposeInMainWorld(key: string, api: unknown): void {
    this.exposed.set(key, api);
  },
};

type HeadersListener = (
  details: { responseHeaders?: Record<string, string[]> },
  callback: (response: { responseHeaders?: Record<string, string[]> }) => void,
) => void;

export const session = {
  defaultSession: {
    headersListener: null as HeadersListener | null,
    permissionRequestHandler: null as
      | ((contents: unknown, permission: string, callback: (granted: boolean) => void) => void)
      | null,
    permissionCheckHandler: null as ((...args: unknown[]) => boolean) | null,
    devicePermissionHandler: null as ((...args: unknown[]) => boolean) | null,
    webRequest: {
      onHeadersReceived(listener: HeadersListener): void {
        session.defaultSession.headersListener = listener;
      },
    },
    setPermissionRequestHandler(
      handler: (contents: unknown, permission: string, callback: (granted: boolean) => void) => void,
    ): void {
      this.permissionRequestHandler = handler;
    },
    setPermissionCheckHandler(handler: (...args: unknown[]) => boolean): void {
      this.permissionCheckHandler = handler;
    },
    setDevicePermissionHandler(handler: (...args: unknown[]) => boolean): void {
      this.devicePermissionHandler = handler;
    },
  },
};

export const shell = {
  opened: [] as string[],
  openExternal(url: string): Promise<void> {
    this.opened.push(url);
    return Promise.resolve();
  },
};

export interface FakeMenuItem {
  label?: string;
  role?: string;
  accelerator?: string;
  type?: string;
  click?: () => void;
  submenu?: FakeMenuItem[];
}

export const Menu = {
  applied: null as { template: FakeMenuItem[] } | null,
  buildFromTemplate(template: FakeMenuItem[]): { template: FakeMenuItem[] } {
    return { template };
  },
  setApplicationMenu(menu: { template: FakeMenuItem[] }): void {
    this.applied = menu;
  },
};

export const safeStorage = {
  available: true,
  backend: "gnome_libsecret",
  isEncryptionAvailable(): boolean {
    return this.available;
  },
  encryptString(text: string): Buffer {
    return Buffer.concat([Buffer.from("v11"), Buffer.from(text, "utf8").map((byte) => byte ^ 0x33)]);
  },
  decryptString(buffer: Buffer): string {
    return Buffer.from(buffer.subarray(3).map((byte) => byte ^ 0x33)).toString("utf8");
  },
  getSelectedStorageBackend(): string {
    return this.backend;
  },
};

export const dialog = {
  errors: [] as Array<{ title: string; message: string }>,
  showErrorBox(title: string, message: string): void {
    this.errors.push({ title, message });
  },
};

export const protocol = {
  privileged: [] as Array<{ scheme: string; privileges: Record<string, boolean> }>,
  handlers: new Map<string, (request: { url: string; method: string }) => Promise<Response>>(),
  registerSchemesAsPrivileged(schemes: Array<{ scheme: string; privileges: Record<string, boolean> }>): void {
    this.privileged.push(...schemes);
  },
  handle(scheme: string, handler: (request: { url: string; method: string }) => Promise<Response>): void {
    this.handlers.set(scheme, handler);
  },
};

/** Puts every fake back to its first state (call in beforeEach). */
export function resetFakeElectron(): void {
  app.listeners.clear();
  app.isPackaged = false;
  app.lockGranted = true;
  app.lockRequests = 0;
  app.quits = 0;
  app.readyCalls = 0;
  BrowserWindow.instances = [];
  ipcMain.handlers.clear();
  ipcRenderer.invocations = [];
  ipcRenderer.emitter = new Emitter();
  ipcRenderer.answer = null;
  contextBridge.exposed.clear();
  session.defaultSession.headersListener = null;
  session.defaultSession.permissionRequestHandler = null;
  session.defaultSession.permissionCheckHandler = null;
  session.defaultSession.devicePermissionHandler = null;
  shell.opened = [];
  Menu.applied = null;
  safeStorage.available = true;
  safeStorage.backend = "gnome_libsecret";
  dialog.errors = [];
  protocol.privileged = [];
  protocol.handlers.clear();
}

export default {
  app,
  BrowserWindow,
  ipcMain,
  ipcRenderer,
  contextBridge,
  session,
  shell,
  Menu,
  safeStorage,
  dialog,
  protocol,
};
