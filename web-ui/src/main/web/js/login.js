// The login page: the form carries the CSRF token the controller set in its cookie, and says why it is shown.
const cookie = document.cookie.split('; ').find((c) => c.startsWith('XSRF-TOKEN='));
document.getElementById('csrf').value = cookie ? decodeURIComponent(cookie.slice('XSRF-TOKEN='.length)) : '';
const query = new URLSearchParams(window.location.search);
const message = document.getElementById('login-message');
if (query.has('error')) message.textContent = 'Wrong account or password.';
else if (query.has('logout')) message.textContent = 'Logged out.';
