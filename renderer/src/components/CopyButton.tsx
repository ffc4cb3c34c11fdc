import { useEffect, useState } from "react";

/** Copies a value (a sandbox id) to the clipboard and says so for a moment. */
export function CopyButton({ value, label = "Copy" }: { value: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 1500);
    return () => clearTimeout(timer);
  }, [copied]);
  return (
    <button
      type="button"
      className="icon-btn"
      aria-label={`${label} ${value.length > 80 ? "value" : value}`}
      title={copied ? "Copied" : label}
      data-testid="copy-button"
      tabIndex={-1}
      onClick={(event) => {
        event.stopPropagation();
        void copyText(value).then((ok) => setCopied(ok));
      }}
    >
      {copied ? (
        "✓"
      ) : (
        <svg width="13" height="13" viewBox="0 0 16 16" aria-hidden="true" focusable="false">
          <rect
            x="5"
            y="5"
            width="9"
            height="9"
            rx="1.5"
            fill="none"
            stroke="currentColor"
            strokeWidth="1.5"
          />
          <path d="M3 11V3.5A1.5 1.5 0 0 1 4.5 2H11" fill="none" stroke="currentColor" strokeWidth="1.5" />
        </svg>
      )}
    </button>
  );
}

export async function copyText(value: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(value);
    return true;
  } catch {
    // Clipboard access can be refused (insecure context, permissions); fall back to a hidden textarea.
    const area = document.createElement("textarea");
    area.value = value;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    const ok = document.execCommand("copy");
    area.remove();
    return ok;
  }
}
