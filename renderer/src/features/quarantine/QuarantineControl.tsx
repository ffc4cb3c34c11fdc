import { useMutation } from "@tanstack/react-query";
import { useId, useState } from "react";
import type { ChannelResponse } from "../../../../shared/contract";
import { type Quarantine, timeLeft } from "../../../../shared/domain/quarantine";
import { api } from "../../api";
import { errorMessage } from "../../lib/errors";
import { type Subject, useSubjectAnswer, useSubjectAnswers } from "../../state/subject-answers";
import { quarantineStanding } from "./quarantine-standing";
import { useMainNow, useQuarantines, useReconcileQuarantines } from "./use-quarantines";
import "./quarantine.css";

/**
 * What is quarantined: a row's sandbox, or a sandbox no row names. `forced` says its destroy would be a
 * forced one, so its sandbox id is asked for up front (main's plan still decides, and says so if not).
 */
export type QuarantineTarget =
  | { kind: "lease"; leaseId: string; sourceId: string; sandboxId: string; forced: boolean }
  | { kind: "untracked"; sandboxId: string; origin: string; forced: boolean };

type Outcome = ChannelResponse<"quarantine:create">["outcomes"][number];
type Refusal = Extract<Outcome, { ok: false }> | { ok: false; reason: "error"; message: string };

function subjectOf(target: QuarantineTarget): Subject {
  return target.kind === "lease"
    ? { kind: "lease", leaseId: target.leaseId, sourceId: target.sourceId }
    : { kind: "untracked", sandboxId: target.sandboxId, origin: target.origin };
}

/**
 * "Pause now, destroy after N hours unless claimed", or, for a sandbox already quarantined, its countdown
 * with cancel (and cancel-and-resume), each asked for again before it is sent. Main decides everything:
 * a refusal comes back with its sentence and is kept under this target's own subject; a forced destroy
 * is quarantined only with its sandbox id typed back, which the form asks for before the first click.
 */
export function QuarantineControl({ target }: { target: QuarantineTarget }) {
  const quarantines = useQuarantines();
  const now = useMainNow(quarantines.data);
  const standing = quarantineStanding(quarantines, target.sandboxId);
  const open = standing.kind === "open" ? standing.quarantine : null;
  const reconcile = useReconcileQuarantines();
  const subject = subjectOf(target);
  const put = useSubjectAnswers((state) => state.put);
  const drop = useSubjectAnswers((state) => state.drop);
  const refusal = useSubjectAnswer<Refusal>("quarantine", subject);
  const [hours, setHours] = useState("24");
  const [typed, setTyped] = useState("");
  const hoursId = useId();
  const typedId = useId();

  const create = useMutation({
    mutationFn: (asked: { subject: Subject; typed: string }) =>
      api.invoke("quarantine:create", {
        ...(asked.subject.kind === "lease"
          ? { leases: [{ leaseId: asked.subject.leaseId, sourceId: asked.subject.sourceId }] }
          : { untracked: [{ sandboxId: asked.subject.sandboxId, origin: asked.subject.origin }] }),
        hours: Number(hours),
        confirmSandboxIds: asked.typed === "" ? [] : [asked.typed],
      }),
    onSuccess: ({ outcomes }, asked) => {
      const refused = outcomes.find((outcome): outcome is Extract<Outcome, { ok: false }> => !outcome.ok);
      if (refused) put("quarantine", asked.subject, refused);
      else drop("quarantine", asked.subject);
      reconcile();
    },
    onError: (error, asked) =>
      put("quarantine", asked.subject, { ok: false, reason: "error", message: errorMessage(error) }),
  });

  if (open !== null) {
    return (
      <div className="quarantine-control" data-testid="quarantine-control" data-state={open.state}>
        <span data-testid="quarantine-countdown">
          Quarantined: paused,{" "}
          {open.state === "waiting" ? `destroyed in ${timeLeft(open.dueAt, now)}` : open.state} unless
          claimed.
        </span>
        <CancelQuarantine quarantine={open} />
      </div>
    );
  }

  const needsTyping = target.forced || refusal?.value.reason === "not-confirmed";
  const typedRight = !needsTyping || typed === target.sandboxId;
  const hoursValid = Number(hours) > 0;
  // Offered only when the list says the sandbox is not quarantined; otherwise what is not known is said.
  const unknown = standing.kind === "reading" || standing.kind === "unread";
  return (
    <form
      className="quarantine-control"
      data-testid="quarantine-control"
      data-state={unknown ? standing.kind : "none"}
      onSubmit={(event) => {
        event.preventDefault();
        if (!unknown && hoursValid && typedRight) create.mutate({ subject, typed: needsTyping ? typed : "" });
      }}
    >
      {standing.kind === "reading" && (
        <span className="quarantine-message muted" data-testid="quarantine-reading">
          Reading quarantines…
        </span>
      )}
      {standing.kind === "unread" && (
        <span className="quarantine-message match-no" data-testid="quarantine-unread">
          {standing.sentence}
        </span>
      )}
      <label htmlFor={hoursId}>Pause now, destroy after</label>
      <input
        id={hoursId}
        type="number"
        min="0.1"
        step="any"
        value={hours}
        disabled={unknown}
        onChange={(event) => setHours(event.target.value)}
        data-testid="quarantine-hours"
      />
      <span>hours unless claimed</span>
      {needsTyping && (
        <span className="quarantine-typed">
          <label htmlFor={typedId}>
            Its destroy would be forced: type the sandbox id <bdi className="mono">{target.sandboxId}</bdi> to
            confirm
          </label>
          <input
            id={typedId}
            className="mono"
            value={typed}
            disabled={unknown}
            onChange={(event) => setTyped(event.target.value)}
            data-testid="quarantine-typed-id"
            autoComplete="off"
            spellCheck={false}
          />
        </span>
      )}
      <button
        type="submit"
        className="btn btn-small"
        disabled={unknown || create.isPending || !hoursValid || !typedRight}
        data-testid="quarantine-start"
      >
        {create.isPending ? "Pausing…" : "Quarantine"}
      </button>
      {refusal && (
        <span
          className="quarantine-message match-no"
          data-testid="quarantine-refusal"
          data-reason={refusal.value.reason}
          data-subject={refusal.subject}
        >
          {refusal.value.message}
        </span>
      )}
    </form>
  );
}

/**
 * Cancel, asked for again before it is sent: "Cancel the quarantine of <sandbox>?", with cancel (the
 * sandbox stays paused), cancel and resume, or keep it. What follows is read again at once.
 */
export function CancelQuarantine({ quarantine }: { quarantine: Quarantine }) {
  const [asking, setAsking] = useState(false);
  const reconcile = useReconcileQuarantines();
  const cancel = useMutation({
    mutationFn: (resume: boolean) =>
      api.invoke("quarantine:cancel", { quarantineId: quarantine.quarantineId, resume }),
    onSuccess: () => {
      setAsking(false);
      reconcile();
    },
    onError: reconcile,
  });
  const destroying = quarantine.state === "destroying";
  if (!asking) {
    return (
      <>
        <button
          type="button"
          className="btn btn-small"
          data-testid="quarantine-cancel"
          disabled={destroying}
          title={destroying ? "Its destroy is under way; it can no longer be cancelled." : undefined}
          onClick={() => {
            cancel.reset();
            setAsking(true);
          }}
        >
          Cancel quarantine…
        </button>
        {cancel.isError && (
          <span className="quarantine-message match-no" data-testid="quarantine-cancel-error">
            {errorMessage(cancel.error)}
          </span>
        )}
      </>
    );
  }
  return (
    <fieldset className="quarantine-confirm" data-testid="quarantine-cancel-confirm">
      <legend>
        Cancel the quarantine of <bdi className="mono">{quarantine.sandboxId}</bdi>? It is not destroyed; it
        stays paused unless you resume it.
      </legend>
      <span className="row-flex">
        <button
          type="button"
          className="btn btn-small"
          data-testid="quarantine-cancel-yes"
          disabled={cancel.isPending}
          onClick={() => cancel.mutate(false)}
          // biome-ignore lint/a11y/noAutofocus: the question just asked is the one thing to answer next
          autoFocus
        >
          Cancel quarantine
        </button>
        <button
          type="button"
          className="btn btn-small"
          data-testid="quarantine-cancel-resume"
          disabled={cancel.isPending}
          onClick={() => cancel.mutate(true)}
        >
          Cancel and resume
        </button>
        <button
          type="button"
          className="btn btn-small btn-ghost"
          data-testid="quarantine-cancel-keep"
          disabled={cancel.isPending}
          onClick={() => setAsking(false)}
        >
          Keep it quarantined
        </button>
      </span>
    </fieldset>
  );
}
