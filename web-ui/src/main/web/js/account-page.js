// #/account: my API tokens (made and shown once, revoked) and my password; for admins also the accounts and the
// audit log (who did what, and when).
import { changePassword, createToken, createUser, deleteUser, listAudit, listTokens, listUsers, revokeToken, setUserRole } from './api.js';
import { h } from './dom.js';
import { formatTime } from './format.js';

function message(error) {
  const violations = error.body?.violations;
  return violations?.length ? violations.map((v) => `${v.field}: ${v.message}`).join('; ')
    : (typeof error.body === 'object' && error.body?.error) || error.message;
}

function tokensCard() {
  const box = h('div', {});
  const shown = h('p', { id: 'new-token', class: 'validation', role: 'status' });
  const name = h('input', { id: 'token-name', placeholder: 'e.g. lab scripts', required: true, maxlength: 64 });
  async function render() {
    const tokens = await listTokens();
    box.replaceChildren(tokens.length === 0 ? h('p', { class: 'empty' }, 'No API tokens yet.')
      : h('table', { id: 'tokens' }, h('thead', {}, h('tr', {}, h('th', {}, 'Name'), h('th', {}, 'Made'), h('th', {}, 'Revoked'), h('th', {}))),
        h('tbody', {}, tokens.map((t) => h('tr', { id: `token-${t.id}` }, h('td', {}, t.name), h('td', { class: 'time' }, formatTime(t.createdAt)),
          h('td', { class: 'time' }, t.revokedAt ? formatTime(t.revokedAt) : '—'),
          h('td', {}, !t.revokedAt && h('button', { type: 'button', class: 'secondary revoke-token',
            onclick: async () => { await revokeToken(t.id); render(); } }, 'Revoke')))))));
  }
  const form = h('form', { id: 'create-token', class: 'inline-form', onsubmit: async (event) => {
    event.preventDefault();
    try {
      const made = await createToken(name.value);
      shown.replaceChildren('Token "', made.name, '": ', h('code', { id: 'token-value' }, made.token),
        ' — copy it now, it is not shown again. Scripts send it as "Authorization: Bearer …" (./qplab: QPLAB_TOKEN).');
      form.reset();
      render();
    } catch (error) {
      shown.textContent = message(error);
    }
  } }, name, h('button', { type: 'submit' }, 'Make a token'));
  render();
  return h('section', { class: 'card' }, h('h2', {}, 'API tokens'), box, form, shown);
}

function passwordCard() {
  const outcome = h('p', { class: 'validation', role: 'status' });
  const current = h('input', { type: 'password', id: 'current-password', autocomplete: 'current-password', required: true });
  const password = h('input', { type: 'password', id: 'new-password', autocomplete: 'new-password', minlength: 8, required: true });
  const form = h('form', { id: 'change-password', class: 'inline-form', onsubmit: async (event) => {
    event.preventDefault();
    try {
      await changePassword(current.value, password.value);
      outcome.textContent = 'Password changed. Your other sessions are logged out.';
      form.reset();
    } catch (error) {
      outcome.textContent = message(error);
    }
  } }, h('label', { for: 'current-password' }, 'Current password'), current,
  h('label', { for: 'new-password' }, 'New password'), password, h('button', { type: 'submit' }, 'Change'));
  return h('section', { class: 'card' }, h('h2', {}, 'Password'), form, outcome);
}

function usersCard() {
  const box = h('div', {});
  const outcome = h('p', { class: 'validation', role: 'status' });
  async function render() {
    const users = await listUsers();
    box.replaceChildren(h('table', { id: 'users' }, h('thead', {}, h('tr', {}, h('th', {}, 'Account'), h('th', {}, 'Role'), h('th', {}, 'Made'), h('th', {}))),
      h('tbody', {}, users.map((u) => h('tr', { id: `user-${u.name}` }, h('td', {}, u.name), h('td', {}, roleSelect(u)),
        h('td', { class: 'time' }, formatTime(u.createdAt)),
        h('td', {}, h('button', { type: 'button', class: 'secondary', onclick: async () => {
          if (!window.confirm(`Delete the account ${u.name} and its tokens?`)) return;
          try { await deleteUser(u.name); render(); } catch (error) { outcome.textContent = message(error); }
        } }, 'Delete')))))));
  }
  // the account's sessions and tokens act with the new role from their next request
  function roleSelect(u) {
    return h('select', { class: 'user-role', 'aria-label': `role of ${u.name}`, onchange: async (event) => {
      try { await setUserRole(u.name, event.target.value); outcome.textContent = ''; } catch (error) { outcome.textContent = message(error); }
      render();
    } }, ['viewer', 'operator', 'admin'].map((r) => h('option', { value: r, selected: r === u.role }, r)));
  }
  const name = h('input', { name: 'name', placeholder: 'account', required: true });
  const password = h('input', { name: 'password', type: 'password', placeholder: 'password (8+)', required: true, autocomplete: 'new-password' });
  const role = h('select', { name: 'role' }, ['viewer', 'operator', 'admin'].map((r) => h('option', { value: r }, r)));
  const form = h('form', { id: 'create-user', class: 'inline-form', onsubmit: async (event) => {
    event.preventDefault();
    try {
      await createUser({ name: name.value, password: password.value, role: role.value });
      outcome.textContent = '';
      form.reset();
      render();
    } catch (error) {
      outcome.textContent = message(error);
    }
  } }, name, password, role, h('button', { type: 'submit' }, 'Add account'));
  render();
  return h('section', { class: 'card', 'data-needs': 'admin' }, h('h2', {}, 'Accounts'), box, form, outcome);
}

function auditCard() {
  const box = h('div', {}, h('p', { class: 'empty' }, 'Loading…'));
  listAudit().then((events) => box.replaceChildren(h('table', { id: 'audit' },
    h('thead', {}, h('tr', {}, ['When', 'Who', 'What', 'Target', 'Status', 'From', 'Times'].map((t) => h('th', {}, t)))),
    h('tbody', {}, events.map((e) => h('tr', {}, h('td', { class: 'time' }, formatTime(e.at)), h('td', {}, e.actor ?? '—'),
      h('td', {}, e.action), h('td', {}, h('code', {}, e.target ?? '')), h('td', { class: 'num' }, e.status ?? ''),
      h('td', {}, e.remote ?? ''), h('td', { class: 'num', title: 'failed logins are counted per address and minute' },
        e.times ?? 1)))))));
  return h('section', { class: 'card', 'data-needs': 'admin' }, h('h2', {}, 'Audit log (newest first)'), box);
}

/** Renders the page into `container`; returns the function that tears it down. */
export function mountAccount(container) {
  const admin = document.body.dataset.role === 'admin';
  container.replaceChildren(h('section', { id: 'account-page' }, tokensCard(), passwordCard(),
    admin && usersCard(), admin && auditCard()));
  return () => {};
}
