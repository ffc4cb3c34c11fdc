import type { ChannelResponse, Result } from "../../../../shared/contract/index.js";
import type { Core } from "../../compose/index.js";

type Channel = keyof Core["handlers"];

/** Asks one of the app's channels as a test host would: its answer, or an error naming the refusal. */
export type ChannelCall = <C extends Channel>(channel: C, request?: unknown) => Promise<ChannelResponse<C>>;

/**
 * The channel caller of the app `current` returns (read at each call, so a suite may open its app in
 * `beforeAll` after making the caller).
 */
export function channelCaller(current: () => Core): ChannelCall {
  return async (channel, request = {}) => {
    const result = (await current().handlers[channel](request, { host: "test" })) as Result<
      ChannelResponse<typeof channel>
    >;
    if (!result.ok) throw new Error(`${channel}: ${result.error.code}: ${result.error.message}`);
    return result.data;
  };
}

/** The job once it has stopped running, asked for every 50 ms. */
export async function finishedJob(call: ChannelCall, jobId: string): Promise<ChannelResponse<"jobs:get">> {
  let job = await call("jobs:get", { jobId });
  while (job.state === "running") {
    await new Promise((resolve) => setTimeout(resolve, 50));
    job = await call("jobs:get", { jobId });
  }
  return job;
}
