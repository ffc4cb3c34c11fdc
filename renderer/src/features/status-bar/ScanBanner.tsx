import { useState } from "react";
import { useNow } from "../../lib/now";
import { useRefreshInventory } from "../../state/use-inventory";
import { failedListings, listingFailedSentence, scanFailedSentence } from "./scan-words";
import { useStatus } from "./use-status";
import "./status-bar.css";

const SHOWN = 3;

/**
 * Said above every view while the last scan failed or could not list an account: what, why and when, and
 * what is shown instead, with Retry. It goes away on its own once a scan reads everything again.
 */
export function ScanBanner() {
  const now = useNow();
  const status = useStatus();
  const refresh = useRefreshInventory();
  const [retrying, setRetrying] = useState(false);
  const scan = status.data?.scan ?? null;
  if (scan === null) return null;
  const nowMs = Math.max(now, Date.now());
  const listings = failedListings(scan);
  const sentences =
    scan.outcome === "failed"
      ? [scanFailedSentence(scan, nowMs), ...listings.map((listing) => listingFailedSentence(listing, nowMs))]
      : listings.map((listing) => listingFailedSentence(listing, nowMs));
  if (sentences.length === 0) return null;
  const retry = () => {
    setRetrying(true);
    void refresh()
      .catch(() => undefined)
      .finally(() => setRetrying(false));
  };
  return (
    <div className="scan-banner" role="alert" data-testid="scan-banner" data-outcome={scan.outcome}>
      <div className="scan-banner-text">
        {sentences.slice(0, SHOWN).map((sentence) => (
          <p key={sentence} data-testid="scan-banner-sentence">
            {sentence}
          </p>
        ))}
        {sentences.length > SHOWN && (
          <p className="muted">
            And {sentences.length - SHOWN} more {sentences.length - SHOWN === 1 ? "account" : "accounts"}{" "}
            could not be listed.
          </p>
        )}
      </div>
      <button
        type="button"
        className="btn btn-small"
        data-testid="scan-banner-retry"
        disabled={retrying || status.data?.refreshing === true}
        onClick={retry}
      >
        {retrying ? "Retrying…" : "Retry"}
      </button>
    </div>
  );
}
