// Fetch wrappers for the REST API users script against. Paths are relative to the page, so
// the dashboard also works behind a reverse proxy that mounts the controller under a prefix.

export class ApiError extends Error {
  constructor(message, status, body) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
  }
}

async function request(method, path, { body, contentType } = {}) {
  const headers = { Accept: 'application/json' };
  if (contentType) headers['Content-Type'] = contentType;
  let response;
  try {
    response = await fetch(path, { method, headers, body, cache: 'no-store' });
  } catch (cause) {
    throw new ApiError(`${method} /${path}: cannot reach the controller (${cause.message})`, 0, null);
  }
  const text = await response.text();
  let parsed = null;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  if (!response.ok) {
    const detail = parsed && typeof parsed === 'object'
      ? (parsed.error ?? parsed.message ?? JSON.stringify(parsed))
      : (parsed || response.statusText);
    throw new ApiError(`${method} /${path} failed: ${response.status} ${detail}`, response.status, parsed);
  }
  return parsed;
}

export function listExperiments() {
  return request('GET', 'api/experiments');
}

export function getExperiment(id) {
  return request('GET', `api/experiments/${encodeURIComponent(id)}`);
}

export function listRuns(experimentId) {
  return request('GET', `api/experiments/${encodeURIComponent(experimentId)}/runs`);
}

/** One curve: y (a metric) against x (a run parameter), one series per value of `series`. */
export function getCurve(experimentId, { x, y, series }) {
  const query = new URLSearchParams({ x, y, series });
  return request('GET', `api/experiments/${encodeURIComponent(experimentId)}/curve?${query}`);
}

/** Cancels a queued or running experiment; 409 (ApiError) when it has already ended. */
export function cancelExperiment(id) {
  return request('POST', `api/experiments/${encodeURIComponent(id)}/cancel`);
}

/** Two experiments paired point by point; alpha and threshold (%) fall back to the server's defaults. */
export function compareExperiments(baseline, candidate, { alpha, threshold } = {}) {
  const query = new URLSearchParams({ baseline, candidate });
  if (alpha !== undefined && alpha !== null && alpha !== '') query.set('alpha', alpha);
  if (threshold !== undefined && threshold !== null && threshold !== '') query.set('threshold', threshold);
  return request('GET', `api/compare?${query}`);
}

/** JSON if the text looks like JSON, YAML otherwise (JSON is valid YAML, but say what it is). */
export function matrixContentType(text) {
  const start = text.trimStart()[0];
  return start === '{' || start === '[' ? 'application/json' : 'application/yaml';
}

/**
 * Submits a matrix. Resolves to {experiment} on success or {violations} when the server
 * rejects the matrix (400, normally with a violations list); any other failure throws ApiError.
 */
export async function submitMatrix(text) {
  try {
    const experiment = await request('POST', 'api/experiments', {
      body: text,
      contentType: matrixContentType(text),
    });
    return { experiment };
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) {
      const body = error.body && typeof error.body === 'object' ? error.body : {};
      return {
        violations: Array.isArray(body.violations) ? body.violations : [],
        message: body.error ?? (typeof error.body === 'string' ? error.body : 'invalid matrix'),
      };
    }
    throw error;
  }
}
