// Follows an experiment's event stream (GET /api/experiments/{id}/live): the page reads the experiment
// and its runs again on each change the server reports, and once more at the end. One stream per page,
// closed when the page is left or its tab goes to the background (a browser has few connections per host:
// background tabs that held theirs would starve the one in front).
import { liveExperimentUrl } from './api.js';

/**
 * Calls `onChange(experiment)` whenever experiment `id` changes (and once as the stream opens, with the experiment as
 * it is then), and `onEnd()` once it and all its runs have ended.
 * If the stream cannot be opened (or is closed by the server before the end), `onLost()` is called: the
 * page falls back to reading on a timer. Returns { stop() }.
 */
export function followExperiment(id, { onChange, onEnd, onLost }) {
  let source = null;
  let stopped = false;
  let ended = false;

  function open() {
    source = new EventSource(liveExperimentUrl(id));
    source.addEventListener('experiment', (event) => onChange(JSON.parse(event.data)));
    source.addEventListener('end', () => {
      ended = true;
      source.close();
      onEnd();
    });
    source.onerror = () => {
      // CONNECTING: the browser reconnects by itself, and the first event after it triggers a read
      if (stopped || ended || source.readyState !== EventSource.CLOSED) return;
      onLost();
    };
  }

  function visibility() {
    if (stopped || ended) return;
    if (document.hidden) {
      source?.close();
      source = null;
    } else if (source === null) {
      open(); // its first event is the experiment as it is now: the page reads what changed meanwhile
    }
  }

  open();
  document.addEventListener('visibilitychange', visibility);
  return {
    stop() {
      stopped = true;
      source?.close();
      document.removeEventListener('visibilitychange', visibility);
    },
  };
}
