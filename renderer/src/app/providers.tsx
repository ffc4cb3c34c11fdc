import * as RadixTooltip from "@radix-ui/react-tooltip";
import { QueryClientProvider } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";
import { Toaster } from "sonner";
import { createQueryClient } from "./query-client";
import { useTheme } from "./use-theme";

function ThemedToaster() {
  const theme = useTheme();
  return <Toaster theme={theme} position="bottom-left" closeButton visibleToasts={3} offset={40} />;
}

/** react-query for main-side data, Radix's tooltip timing, and the one toaster. */
export function Providers({ children }: { children: ReactNode }) {
  const [client] = useState(createQueryClient);
  return (
    <QueryClientProvider client={client}>
      <RadixTooltip.Provider delayDuration={250} skipDelayDuration={100}>
        {children}
        <ThemedToaster />
      </RadixTooltip.Provider>
    </QueryClientProvider>
  );
}
