// The login page: the form carries the CSRF token the controller set in its cookie, and says why it is shown.
// It posts the form itself so that a throttled try (429: too many failed logins for the account or from this
// address) can say how long to wait instead of showing the controller's bare answer.
const form = document.getElementById('login-form');
const message = document.getElementById('login-message');

function csrf() {
  const cookie = document.cookie.split('; ').find((c) => c.startsWith('XSRF-TOKEN='));
  return cookie ? decodeURIComponent(cookie.slice('XSRF-TOKEN='.length)) : '';
}

document.getElementById('csrf').value = csrf();
const query = new URLSearchParams(window.location.search);
if (query.has('error')) message.textContent = 'Wrong account or password.';
else if (query.has('logout')) message.textContent = 'Logged out.';

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  document.getElementById('csrf').value = csrf();
  let response;
  try {
    response = await fetch('login', { method: 'POST', body: new URLSearchParams(new FormData(form)), cache: 'no-store' });
  } catch (cause) {
    message.textContent = `Cannot reach the controller (${cause.message}).`;
    return;
  }
  if (response.status === 429) {
    message.textContent = `Too many failed logins for this account or from this address: try again in ${
      response.headers.get('Retry-After') ?? 'a few'} s.`;
    return;
  }
  if (!response.ok) {
    message.textContent = `The controller answered ${response.status}: reload the page and try again.`;
    return;
  }
  // a login answers a redirect (followed here): to the dashboard, or back to this page with ?error
  const landed = new URL(response.url);
  if (landed.pathname.endsWith('/login') && landed.searchParams.has('error')) {
    message.textContent = 'Wrong account or password.';
    document.getElementById('password').value = '';
    return;
  }
  window.location.assign(response.url);
});
