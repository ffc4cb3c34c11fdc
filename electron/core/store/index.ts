export { DATABASE_FILE_NAME, migrate, openDatabase, openMemoryDatabase } from "./database.js";
export { type BackgroundSaveResult, InventoryStore, type StoredInventory } from "./inventory-store.js";
export { SqliteJanitorTaken, type TakenRecord } from "./janitor-taken-store.js";
export { JudgedInventoryStore } from "./judged-inventory-store.js";
export { SqliteQuarantineStore } from "./quarantine-store.js";
export { type Database, MIGRATIONS, type Migration } from "./sqlite/migrations/index.js";
