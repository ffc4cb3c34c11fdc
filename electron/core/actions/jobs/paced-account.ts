import type { CreateosClient } from "../../createos/client.js";
import { isCreateosError } from "../../createos/errors.js";
import { pacerFor } from "../../createos/pacer.js";
import type { AccountClient, PauseAnswer } from "../ports.js";

/**
 * The engine's view of one account over the core's CreateOS client; a quarantine's last look before its
 * pause reads the sandbox through it too, as a job does.
 */
export class PacedAccount implements AccountClient {
  readonly origin: string;
  readonly credential: string;
  readonly #client: CreateosClient;

  constructor(client: CreateosClient, credential: string) {
    this.#client = client;
    this.origin = client.origin;
    this.credential = credential;
  }

  get requestsPerMinute(): number {
    return pacerFor(this.origin).requestsPerMinute;
  }

  async whoami() {
    return (await this.#client.whoami()).userId;
  }

  async listSandboxes() {
    return (await this.#client.listAllSandboxes()).sandboxes;
  }

  async getSandbox(sandboxId: string) {
    try {
      return (await this.#client.getSandbox(sandboxId)).sandbox;
    } catch (error) {
      if (isCreateosError(error) && error.code === "not-found") return null;
      throw error;
    }
  }

  async deleteSandbox(sandboxId: string) {
    const result = await this.#client.deleteSandbox(sandboxId);
    return { httpStatus: result.outcome === "already-gone" ? 404 : result.httpStatus };
  }

  async pauseSandbox(sandboxId: string): Promise<{ answer: PauseAnswer; httpStatus: number }> {
    try {
      const result = await this.#client.pauseSandbox(sandboxId);
      return {
        answer: result.outcome === "accepted" ? "accepted" : "already",
        httpStatus: result.httpStatus,
      };
    } catch (error) {
      if (isCreateosError(error) && error.code === "conflict") return { answer: "conflict", httpStatus: 409 };
      if (isCreateosError(error) && error.code === "not-found")
        return { answer: "not-found", httpStatus: 404 };
      throw error;
    }
  }
}
