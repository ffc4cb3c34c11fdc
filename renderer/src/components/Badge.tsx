import type { Headline } from "../../../shared/domain/codes";
import { formatCount } from "../lib/format";
import { Text } from "./Text";

export type Tone = Headline | "neutral";

interface BadgeProps {
  tone: Tone;
  label: string;
  count?: number;
  /** The count is of what was read, and more may exist: it reads "N+". */
  atLeast?: boolean;
  plain?: boolean;
  title?: string;
  testId?: string;
}

/** A coloured pill that always carries its meaning in text as well (never colour alone). */
export function Badge({ tone, label, count, atLeast, plain, title, testId }: BadgeProps) {
  return (
    <span
      className={`badge tone-${tone}${plain ? " badge-plain" : ""}`}
      title={title}
      data-testid={testId}
      data-tone={tone}
    >
      <Text value={label} title={false} />
      {count !== undefined && (
        <span className="count">
          {formatCount(count)}
          {atLeast && "+"}
        </span>
      )}
    </span>
  );
}

export function HeadlineBadge({ headline }: { headline: Headline }) {
  return <Badge tone={headline} label={headline} testId="headline-badge" />;
}
