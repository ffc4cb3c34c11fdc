import { QueryClient } from "@tanstack/react-query";

/**
 * Main-side data is cheap to re-ask (it is served from main's own cache) but never polled blindly:
 * the inventory refreshes on its own schedule (see useAutoRefresh) and on inventory:changed.
 * Structural sharing (on by default) keeps an unchanged inventory the same object, so the table does
 * not re-render for a refresh that changed nothing.
 */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        gcTime: 5 * 60_000,
        retry: 1,
        refetchOnWindowFocus: false,
      },
      mutations: { retry: 0 },
    },
  });
}
