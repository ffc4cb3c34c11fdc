import { useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { api } from "../api";
import { queryKeys } from "./query-keys";

/** main rescanned (on its own schedule, or after an action): re-read what depends on the inventory. */
export function useMainEvents(): void {
  const client = useQueryClient();
  useEffect(
    () =>
      api.on("inventory:changed", () => {
        void client.invalidateQueries({ queryKey: queryKeys.inventory });
        void client.invalidateQueries({ queryKey: queryKeys.detailAll });
        void client.invalidateQueries({ queryKey: queryKeys.untrackedAll });
        void client.invalidateQueries({ queryKey: queryKeys.status });
      }),
    [client],
  );
}
