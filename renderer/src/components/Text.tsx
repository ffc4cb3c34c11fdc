import type { CSSProperties } from "react";
import { clip } from "../lib/format";

interface TextProps {
  value: string | null | undefined;
  /** Shown (muted) when the value is null or empty. */
  placeholder?: string;
  mono?: boolean;
  className?: string;
  style?: CSSProperties;
  /** Adds the full value (capped) as a hover title; on by default because the text may be cut. */
  title?: boolean;
  testId?: string;
}

/**
 * Every string that came from a lease, an environment or the provider goes through here: rendered as
 * text (never HTML), isolated from the surrounding direction (an RTL override cannot reorder the UI),
 * and cut with an ellipsis by CSS so a 100 kB name cannot stretch the layout.
 */
export function Text({ value, placeholder = "—", mono, className, style, title = true, testId }: TextProps) {
  if (value === null || value === undefined || value === "") {
    return <span className={`text muted ${className ?? ""}`}>{placeholder}</span>;
  }
  return (
    <bdi
      className={`text${mono ? " mono" : ""}${className ? ` ${className}` : ""}`}
      style={style}
      title={title ? clip(value, 500) : undefined}
      data-testid={testId}
    >
      {value.length > 2000 ? clip(value, 2000) : value}
    </bdi>
  );
}
