import * as RadixTooltip from "@radix-ui/react-tooltip";
import { type ReactElement, type ReactNode, useState } from "react";

/**
 * A hover/focus hint. A disabled button gets no pointer events, so the trigger is wrapped in a span that
 * can take focus: the reason an action is refused stays reachable by mouse and keyboard.
 */
export function Tooltip({
  content,
  children,
  wrapDisabled,
}: {
  content: ReactNode;
  children: ReactElement;
  wrapDisabled?: boolean;
}) {
  if (content === null || content === undefined || content === "") return children;
  return (
    <RadixTooltip.Root delayDuration={250}>
      <RadixTooltip.Trigger asChild>
        {wrapDisabled ? (
          <span
            // biome-ignore lint/a11y/noNoninteractiveTabindex: a disabled control's reason must be reachable by keyboard
            tabIndex={0}
            className="tooltip-wrap"
            data-testid="refusal-hint"
            style={{ display: "inline-flex" }}
          >
            {children}
          </span>
        ) : (
          children
        )}
      </RadixTooltip.Trigger>
      <RadixTooltip.Portal>
        <RadixTooltip.Content className="tooltip" sideOffset={4} data-testid="tooltip">
          {content}
        </RadixTooltip.Content>
      </RadixTooltip.Portal>
    </RadixTooltip.Root>
  );
}

/**
 * A tooltip for a disabled control that costs nothing until asked for: the Radix tooltip (and whatever
 * its content fetches) mounts on the first hover. Used in table rows, where dozens are mounted; keyboard
 * users read the same reasons in the drawer.
 */
export function LazyTooltip({ content, children }: { content: () => ReactNode; children: ReactElement }) {
  const [armed, setArmed] = useState(false);
  if (!armed) {
    return (
      // biome-ignore lint/a11y/noStaticElementInteractions: arming the tooltip is not an action
      <span
        tabIndex={-1}
        className="tooltip-wrap"
        data-testid="refusal-hint"
        style={{ display: "inline-flex" }}
        onPointerEnter={() => setArmed(true)}
        onFocus={() => setArmed(true)}
      >
        {children}
      </span>
    );
  }
  return (
    <RadixTooltip.Root delayDuration={0} defaultOpen>
      <RadixTooltip.Trigger asChild>
        <span
          tabIndex={-1}
          className="tooltip-wrap"
          data-testid="refusal-hint"
          style={{ display: "inline-flex" }}
        >
          {children}
        </span>
      </RadixTooltip.Trigger>
      <RadixTooltip.Portal>
        <RadixTooltip.Content className="tooltip" sideOffset={4} data-testid="tooltip">
          {content()}
        </RadixTooltip.Content>
      </RadixTooltip.Portal>
    </RadixTooltip.Root>
  );
}
