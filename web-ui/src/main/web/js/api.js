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

/** The CSRF token the controller keeps in the XSRF-TOKEN cookie; every change sends it back as a header. */
function csrfToken() {
  const cookie = document.cookie.split('; ').find((c) => c.startsWith('XSRF-TOKEN='));
  return cookie ? decodeURIComponent(cookie.slice('XSRF-TOKEN='.length)) : null;
}

async function request(method, path, { body, contentType } = {}) {
  const headers = { Accept: 'application/json' };
  if (contentType) headers['Content-Type'] = contentType;
  if (method !== 'GET' && csrfToken()) headers['X-XSRF-TOKEN'] = csrfToken();
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
  if (response.status === 401 && !path.startsWith('api/me')) {
    window.location.assign('login'); // the session ended: log in again
  }
  if (!response.ok) {
    const detail = parsed && typeof parsed === 'object'
      ? (parsed.error ?? parsed.message ?? JSON.stringify(parsed))
      : (parsed || response.statusText);
    throw new ApiError(`${method} /${path} failed: ${response.status} ${detail}`, response.status, parsed);
  }
  return parsed;
}

const id = (value) => encodeURIComponent(value);

/** Newest first; `status` (list of statuses) and `name` (substring, any case) filter when given. */
export function listExperiments({ status = [], name = '' } = {}) {
  const query = new URLSearchParams();
  if (status.length > 0) query.set('status', status.join(','));
  if (name) query.set('name', name);
  const text = query.toString();
  return request('GET', text ? `api/experiments?${text}` : 'api/experiments');
}

export function getExperiment(experimentId) {
  return request('GET', `api/experiments/${id(experimentId)}`);
}

export function listRuns(experimentId) {
  return request('GET', `api/experiments/${id(experimentId)}/runs`);
}

/**
 * One curve: y (a metric) against x (a run parameter), one series per value of `series`. `pins` ({name: value},
 * values as stored) fixes the other dimensions: each point is then one configuration; whatever still varies the
 * server splits into further lines (the response's `split`). `along`: with a metric on x, the parameter each line
 * moves along.
 */
export function getCurve(experimentId, { x, y, series, along, pins = {} }) {
  const query = new URLSearchParams({ x, y, series });
  if (along) query.set('along', along);
  for (const [name, value] of Object.entries(pins)) query.set(name, String(value));
  return request('GET', `api/experiments/${id(experimentId)}/curve?${query}`);
}

/** The experiment's host pairs judged against the best pair (GET /api/experiments/{id}/pairs). */
export function getPairs(experimentId) {
  return request('GET', `api/experiments/${id(experimentId)}/pairs`);
}

/** A search's points and result, or an anomaly search's report (GET /api/experiments/{id}/search). */
export function getSearch(experimentId) {
  return request('GET', `api/experiments/${id(experimentId)}/search`);
}

export function getRun(runId) {
  return request('GET', `api/runs/${id(runId)}`);
}

/**
 * A run over time from its stored intervals: {intervalNs (the slot width), points (per thread and slot, as the
 * live stream's progress events carry them), percentiles (per slot over every thread)}.
 */
export function getTimeline(runId, slots = 100) {
  return request('GET', `api/runs/${id(runId)}/timeline?slots=${slots}`);
}

/** What a run keeps: {intervals, trace, histogram: {rows, bytes}, totalBytes}. */
export function getStorage(runId) {
  return request('GET', `api/runs/${id(runId)}/storage`);
}

/** Deletes an ended run's per-cycle trace ({deleted: rows, runs}); 409 (ApiError) while it is queued or running. */
export function deleteTrace(runId) {
  return request('DELETE', `api/runs/${id(runId)}/trace`);
}

/** Every stored interval of a run as CSV, for download. */
export function intervalsCsvUrl(runId) {
  return `api/runs/${id(runId)}/intervals.csv`;
}

/** A run's cycle-time distribution: {cycles, binsPerOctave, bins: [{lowNs, highNs, count}]}. */
export function getHistogram(runId, binsPerOctave = 8) {
  return request('GET', `api/runs/${id(runId)}/histogram?binsPerOctave=${binsPerOctave}`);
}

/** The server-sent events of a run: status, progress (the intervals of each stored frame), end. */
export function liveRunUrl(runId) {
  return `api/runs/${id(runId)}/live`;
}

/** The server-sent events of an experiment: experiment (its state, on every change), end (once it and its runs ended). */
export function liveExperimentUrl(experimentId) {
  return `api/experiments/${id(experimentId)}/live`;
}

export function markBaseline(runId) {
  return request('PUT', `api/runs/${id(runId)}/baseline`);
}

export function unmarkBaseline(runId) {
  return request('DELETE', `api/runs/${id(runId)}/baseline`);
}

export function listBaselines() {
  return request('GET', 'api/baselines');
}

export function getFingerprint(runId) {
  return request('GET', `api/runs/${id(runId)}/fingerprint`);
}

/**
 * A fingerprint's run-level metric over time, oldest first: {fingerprint, metric, unit, params, host, runs: [{runId,
 * experimentId, experimentName, finishedAt, value}], experiments: [{experimentId, experimentName, finishedAt, n,
 * median, min, max}]}; metric falls back to the server's default for its runs.
 */
/** What needs a person's eye now (GET /api/alerts). */
export function getAlerts() {
  return request('GET', 'api/alerts');
}

/** The webhook's deliveries of the alerts about one schedule, newest first (GET /api/alerts/deliveries?schedule=). */
export function listScheduleDeliveries(scheduleId) {
  return request('GET', `api/alerts/deliveries?${new URLSearchParams({ schedule: scheduleId })}`);
}

/** Every recurring experiment, newest first, each with its latest occurrence (GET /api/schedules). */
export function listSchedules() {
  return request('GET', 'api/schedules');
}

/** One recurring experiment with its occurrences, newest first. */
export function getSchedule(scheduleId) {
  return request('GET', `api/schedules/${id(scheduleId)}`);
}

/**
 * Makes a recurring experiment from {name, cron or everyHours, matrix (its text), contentType}. Resolves to {schedule}
 * or, when the server refuses it (400), {violations, message} in its own words; any other failure throws ApiError.
 */
export async function createSchedule(body) {
  try {
    return { schedule: await request('POST', 'api/schedules', { body: JSON.stringify(body), contentType: 'application/json' }) };
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) return refusal(error, 'invalid schedule');
    throw error;
  }
}

/** Enables (from its next time after now) or disables a schedule; resolves to the schedule as it is then. */
export function setScheduleEnabled(scheduleId, enabled) {
  return request('POST', `api/schedules/${id(scheduleId)}/${enabled ? 'enable' : 'disable'}`);
}

/** Deletes a schedule and its occurrences' history (its experiments stay); 403 (ApiError) unless admin or its owner. */
export function deleteSchedule(scheduleId) {
  return request('DELETE', `api/schedules/${id(scheduleId)}`);
}

/** Change points of a status (open, confirmed, dismissed), newest first (GET /api/changes). */
export function listChanges(status = 'open') {
  return request('GET', `api/changes?${new URLSearchParams({ status })}`);
}

/** Confirms or dismisses a change point (how: confirm | dismiss), with the reason kept with the decision. */
export function decideChange(changeId, how, reason) {
  return request('POST', `api/changes/${id(changeId)}/${how}`, {
    body: JSON.stringify({ reason }), contentType: 'application/json',
  });
}

export function getFingerprintHistory(fingerprint, metric) {
  const query = metric ? `?${new URLSearchParams({ metric })}` : '';
  return request('GET', `api/fingerprints/${id(fingerprint)}/history${query}`);
}

export function listHosts() {
  return request('GET', 'api/hosts');
}

export function listAgents() {
  return request('GET', 'api/agents');
}

export function listControllers() {
  return request('GET', 'api/controllers');
}

export function addHost(host) {
  return request('POST', 'api/hosts', { body: JSON.stringify(host), contentType: 'application/json' });
}

/** Removes a host from the inventory; 409 (ApiError, naming the agent) while its agent is connected or deploying. */
export function removeHost(name) {
  return request('DELETE', `api/hosts/${id(name)}`);
}

/** action: deploy, upgrade or stop. Answers when it is done; errors carry the server's message verbatim. */
export function hostAction(name, action) {
  return request('POST', `api/hosts/${id(name)}/${action}`);
}

/** Cancels a queued or running experiment; 409 (ApiError) when it has already ended. */
export function cancelExperiment(experimentId) {
  return request('POST', `api/experiments/${id(experimentId)}/cancel`);
}

/** Deletes an ended experiment with its runs; 409 (ApiError) while it is queued or running, 404 when it is gone. */
export function deleteExperiment(experimentId) {
  return request('DELETE', `api/experiments/${id(experimentId)}`);
}

function compareQuery(params, settings) {
  const query = new URLSearchParams(params);
  for (const name of ['alpha', 'threshold', 'across', 'metric']) {
    const value = settings[name];
    if (value !== undefined && value !== null && String(value).trim() !== '') query.set(name, String(value).trim());
  }
  return query;
}

/**
 * Two experiments paired point by point; alpha, threshold (%) and metric fall back to the server's defaults.
 * `across` (parameter names, comma-separated) pairs points that differ only in those.
 */
export function compareExperiments(baseline, candidate, settings = {}) {
  return request('GET', `api/compare?${compareQuery({ baseline, candidate }, settings)}`);
}

/** Two runs, whatever their parameters (paramMismatches lists those that differ). */
export function compareRuns(baseline, candidate, settings = {}) {
  return request('GET', `api/compare/runs?${compareQuery({ baseline, candidate }, settings)}`);
}

/** target: {experiment: ID} or {run: ID}, against the baselines of its fingerprints. */
export function compareWithBaselines(target, settings = {}) {
  return request('GET', `api/compare/baselines?${compareQuery(target, settings)}`);
}

/** JSON if the text looks like JSON, YAML otherwise (JSON is valid YAML, but say what it is). */
export function matrixContentType(text) {
  const start = text.trimStart()[0];
  return start === '{' || start === '[' ? 'application/json' : 'application/yaml';
}

/** A 400's {violations, message} as the server worded them; `fallback` only when it sent no words at all. */
function refusal(error, fallback) {
  const body = error.body && typeof error.body === 'object' ? error.body : {};
  return {
    violations: Array.isArray(body.violations) ? body.violations : [],
    message: body.error ?? (typeof error.body === 'string' ? error.body : fallback),
  };
}

/**
 * Validates a matrix without storing it. Resolves to {check: {name, runs, points, warnings, estimate}} or
 * {violations, message} as a submit would answer; any other failure throws ApiError.
 */
export async function validateMatrix(text) {
  try {
    const check = await request('POST', 'api/experiments/validate', { body: text, contentType: matrixContentType(text) });
    return { check };
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) return refusal(error, 'invalid matrix');
    throw error;
  }
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
    if (error instanceof ApiError && error.status === 400) return refusal(error, 'invalid matrix');
    throw error;
  }
}

/** How the CLI sends a file (./qplab import): *.json as application/json (perftest's --out_json), the rest as text. */
export function perftestContentType(fileName) {
  return /\.json$/i.test(fileName) ? 'application/json' : 'text/plain';
}

/**
 * Imports one file of perftest output (a File or Blob, sent as it is). Resolves to {experiment: {id, name, tool,
 * runs}} or, when the server refuses the file (400), {violations, message} in its own words; any other failure
 * throws ApiError.
 */
export async function importPerftest(body, { file, name } = {}) {
  const query = new URLSearchParams();
  if (name) query.set('name', name);
  if (file) query.set('file', file);
  const text = query.toString();
  try {
    const experiment = await request('POST', text ? `api/import/perftest?${text}` : 'api/import/perftest', {
      body,
      contentType: perftestContentType(file ?? ''),
    });
    return { experiment };
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) return refusal(error, 'invalid perftest output');
    throw error;
  }
}

/** Who is logged in: {name, role, anonymousRead}; null when nobody is (a lab's read-only dashboard). */
export async function getMe() {
  try {
    return await request('GET', 'api/me');
  } catch (error) {
    if (error.status === 401) return null;
    throw error;
  }
}

/** Ends the session (POST /logout with the CSRF token), then shows the login page. */
export async function logout() {
  await fetch('logout', { method: 'POST', headers: { 'X-XSRF-TOKEN': csrfToken() ?? '' } });
  window.location.assign('login?logout');
}

/** The caller's API tokens (never their values): [{id, name, createdAt, revokedAt}]. */
export function listTokens() {
  return request('GET', 'api/tokens');
}

/** A new API token: {id, name, token}; its value is in this answer only. */
export function createToken(name) {
  return request('POST', 'api/tokens', { body: JSON.stringify({ name }), contentType: 'application/json' });
}

export function revokeToken(tokenId) {
  return request('DELETE', `api/tokens/${id(tokenId)}`);
}

/** My password, given the current one; my other sessions end (and my tokens, with revokeTokens). */
export function changePassword(currentPassword, password, revokeTokens = false) {
  return request('PUT', 'api/me/password', { body: JSON.stringify({ currentPassword, password, revokeTokens }),
    contentType: 'application/json' });
}

/** Admins: the accounts [{name, role, createdAt}]. */
export function listUsers() {
  return request('GET', 'api/users');
}

export function createUser(user) {
  return request('POST', 'api/users', { body: JSON.stringify(user), contentType: 'application/json' });
}

/** Admins: another role for an account (409 for the last admin). */
export function setUserRole(name, role) {
  return request('PUT', `api/users/${id(name)}/role`, { body: JSON.stringify({ role }), contentType: 'application/json' });
}

export function deleteUser(name) {
  return request('DELETE', `api/users/${id(name)}`);
}

/**
 * Admins: a page of audit events, newest first. `before` (an event id: the last one of the page before) is the cursor;
 * actor (exactly), action (a part of it), status (403 or 4xx), since and until (ISO 8601) filter when given.
 */
export function listAudit({ limit = 200, before, actor, action, status, since, until } = {}) {
  const query = new URLSearchParams({ limit: String(limit) });
  for (const [name, value] of Object.entries({ before, actor, action, status, since, until })) {
    if (value !== undefined && value !== null && value !== '') query.set(name, String(value));
  }
  return request('GET', `api/audit?${query}`);
}
