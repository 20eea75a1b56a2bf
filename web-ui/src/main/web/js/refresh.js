// Periodic refresh of one page's data, without overlapping requests.
import { clearError, showError } from './banner.js';

/**
 * Calls `load` now, then again every `intervalMs` for as long as it resolves to true.
 * A failure goes to the banner under `source` and is retried after `retryMs`; the next
 * success clears it. `now()` refreshes at once (after a submit, say); `stop()` ends it.
 */
export function refreshLoop(source, load, { intervalMs = 2000, retryMs = 5000 } = {}) {
  let timer = null;
  let stopped = false;
  let loading = false;
  let again = false;

  async function tick() {
    timer = null;
    if (stopped) return;
    if (loading) {
      again = true;
      return;
    }
    loading = true;
    let delay = null;
    try {
      delay = (await load()) ? intervalMs : null;
      clearError(source);
    } catch (error) {
      if (!stopped) showError(source, error);
      delay = retryMs;
    } finally {
      loading = false;
    }
    if (stopped) return;
    if (again) {
      again = false;
      delay = 0;
    }
    if (delay !== null) timer = setTimeout(tick, delay);
  }

  tick();
  return {
    now() {
      clearTimeout(timer);
      tick();
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      clearError(source);
    },
  };
}
