import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import type { ChannelResponse } from "../../../../shared/contract";
import { timeLeft } from "../../../../shared/domain/quarantine";
import { api } from "../../api";
import { errorMessage } from "../../lib/errors";
import { queryKeys } from "../../state/query-keys";
import { openQuarantineOf, QUARANTINES_ALL, useMainNow, useQuarantines } from "./use-quarantines";
import "./quarantine.css";

/** What is quarantined: a row's sandbox, or a sandbox no row names. */
export type QuarantineTarget =
  | { kind: "lease"; leaseId: string; sourceId: string; sandboxId: string }
  | { kind: "untracked"; sandboxId: string; origin: string };

type Outcome = ChannelResponse<"quarantine:create">["outcomes"][number];

/**
 * "Pause now, destroy after N hours unless claimed", or, for a sandbox already quarantined, its countdown
 * with cancel (and cancel-and-resume). Main decides everything: a refusal comes back with its sentence;
 * a forced destroy is quarantined only with its sandbox id typed back.
 */
export function QuarantineControl({ target }: { target: QuarantineTarget }) {
  const client = useQueryClient();
  const quarantines = useQuarantines();
  const now = useMainNow(quarantines.data);
  const open = openQuarantineOf(quarantines.data, target.sandboxId);
  const [hours, setHours] = useState("24");
  const [typed, setTyped] = useState("");
  const [refusal, setRefusal] = useState<Extract<Outcome, { ok: false }> | null>(null);
  const hoursId = useId();
  const typedId = useId();
  const changed = () => {
    void client.invalidateQueries({ queryKey: QUARANTINES_ALL });
    void client.invalidateQueries({ queryKey: queryKeys.inventory });
  };

  const create = useMutation({
    mutationFn: () =>
      api.invoke("quarantine:create", {
        ...(target.kind === "lease"
          ? { leases: [{ leaseId: target.leaseId, sourceId: target.sourceId }] }
          : { untracked: [{ sandboxId: target.sandboxId, origin: target.origin }] }),
        hours: Number(hours),
        confirmSandboxIds: typed === "" ? [] : [typed],
      }),
    onSuccess: ({ outcomes }) => {
      const refused = outcomes.find((outcome): outcome is Extract<Outcome, { ok: false }> => !outcome.ok);
      setRefusal(refused ?? null);
      if (!refused) setTyped("");
      changed();
    },
  });
  const cancel = useMutation({
    mutationFn: (resume: boolean) =>
      api.invoke("quarantine:cancel", { quarantineId: open?.quarantineId ?? "", resume }),
    onSuccess: changed,
  });

  if (open !== null) {
    return (
      <div className="quarantine-control" data-testid="quarantine-control" data-state={open.state}>
        <span data-testid="quarantine-countdown">
          Quarantined: paused,{" "}
          {open.state === "waiting" ? `destroyed in ${timeLeft(open.dueAt, now)}` : open.state} unless
          claimed.
        </span>
        <button
          type="button"
          className="btn btn-small"
          data-testid="quarantine-cancel"
          disabled={cancel.isPending || open.state === "destroying"}
          onClick={() => cancel.mutate(false)}
        >
          Cancel quarantine
        </button>
        <button
          type="button"
          className="btn btn-small"
          data-testid="quarantine-cancel-resume"
          disabled={cancel.isPending || open.state === "destroying"}
          onClick={() => cancel.mutate(true)}
        >
          Cancel and resume
        </button>
        {cancel.isError && <span className="quarantine-message match-no">{errorMessage(cancel.error)}</span>}
      </div>
    );
  }

  const needsTyping = refusal?.reason === "not-confirmed";
  const hoursValid = Number(hours) > 0;
  return (
    <form
      className="quarantine-control"
      data-testid="quarantine-control"
      onSubmit={(event) => {
        event.preventDefault();
        if (hoursValid) create.mutate();
      }}
    >
      <label htmlFor={hoursId}>Pause now, destroy after</label>
      <input
        id={hoursId}
        type="number"
        min="0.1"
        step="any"
        value={hours}
        onChange={(event) => setHours(event.target.value)}
        data-testid="quarantine-hours"
      />
      <span>hours unless claimed</span>
      {needsTyping && (
        <>
          <label htmlFor={typedId}>Type the sandbox id to confirm</label>
          <input
            id={typedId}
            className="mono"
            value={typed}
            onChange={(event) => setTyped(event.target.value)}
            data-testid="quarantine-typed-id"
            autoComplete="off"
          />
        </>
      )}
      <button
        type="submit"
        className="btn btn-small"
        disabled={create.isPending || !hoursValid}
        data-testid="quarantine-start"
      >
        {create.isPending ? "Pausing…" : "Quarantine"}
      </button>
      {refusal && (
        <span
          className="quarantine-message match-no"
          data-testid="quarantine-refusal"
          data-reason={refusal.reason}
        >
          {refusal.message}
        </span>
      )}
      {create.isError && <span className="quarantine-message match-no">{errorMessage(create.error)}</span>}
    </form>
  );
}
