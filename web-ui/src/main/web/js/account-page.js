// #/account: my API tokens (made and shown once, briefly; revoked after a confirmation) and my password; for admins
// also the accounts and the audit log (who did what, and when: audit.js).
import { changePassword, createToken, createUser, deleteUser, listTokens, listUsers, revokeToken, setUserRole } from './api.js';
import { auditCard } from './audit.js';
import { h } from './dom.js';
import { formatTime } from './format.js';

/** How long a new token's value stays on screen, at most: it is hidden sooner once copied or the page is left. */
const REVEAL_SECONDS = 60;

function message(error) {
  const violations = error.body?.violations;
  return violations?.length ? violations.map((v) => `${v.field}: ${v.message}`).join('; ')
    : (typeof error.body === 'object' && error.body?.error) || error.message;
}

/**
 * Where a new token's value is shown: until it is copied (the Copy button, or the browser's own copy of it), hidden
 * with Hide, REVEAL_SECONDS have passed, or the page is left (hide(), from the page's teardown). Then only a note
 * stays: the value is on screen nowhere, and in no element.
 */
function tokenReveal() {
  const slot = h('div', { id: 'new-token', class: 'token-reveal', role: 'status', hidden: true });
  let timer = null;
  function hide(note) {
    clearInterval(timer);
    timer = null;
    slot.replaceChildren(...(note ? [h('p', { id: 'token-hidden' }, note)] : []));
    slot.hidden = !note;
  }
  function show(made) {
    hide();
    let left = REVEAL_SECONDS;
    const countdown = h('span', { class: 'token-countdown' }, `hidden in ${left} s`);
    const copied = () => hide(`Token "${made.name}" copied and hidden: it is not shown again.`);
    const value = h('code', { id: 'token-value' }, made.token);
    const copy = h('button', { type: 'button', class: 'secondary', id: 'copy-token', onclick: async () => {
      try {
        if (!navigator.clipboard) throw new Error('no clipboard on this page (it is not a secure context)');
        await navigator.clipboard.writeText(made.token);
        copied();
      } catch {
        window.getSelection()?.selectAllChildren(value); // the browser's own copy (Ctrl+C) hides it too
        countdown.textContent = 'the browser refused the clipboard: press Ctrl+C to copy the selected token';
      }
    } }, 'Copy');
    slot.replaceChildren(
      h('p', {}, `Token "${made.name}" — copy it now, it is not shown again. Scripts send it as `,
        h('code', {}, 'Authorization: Bearer …'), ' (./qplab: ', h('code', {}, 'QPLAB_TOKEN'), ').'),
      h('div', { class: 'token-value-row', oncopy: () => setTimeout(copied, 100) }, value, copy,
        h('button', { type: 'button', class: 'secondary', id: 'hide-token',
          onclick: () => hide(`Token "${made.name}" hidden: it is not shown again.`) }, 'Hide'),
        countdown));
    slot.hidden = false;
    timer = setInterval(() => {
      left -= 1;
      if (left > 0) {
        countdown.textContent = `hidden in ${left} s`;
      } else {
        hide(`Token "${made.name}" hidden after ${REVEAL_SECONDS} s: it is not shown again.`);
      }
    }, 1000);
  }
  return { slot, show, hide };
}

function tokensCard(reveal) {
  const box = h('div', {});
  const outcome = h('p', { class: 'validation', role: 'status' });
  const name = h('input', { id: 'token-name', placeholder: 'what it is for, e.g. lab scripts', required: true, maxlength: 64, size: 28 });
  async function revoke(t) {
    if (!window.confirm(`Revoke the API token "${t.name}"? Scripts that use it are refused from their next request; `
      + 'this cannot be undone.')) return;
    try {
      await revokeToken(t.id);
      outcome.textContent = `Token "${t.name}" revoked.`;
    } catch (error) {
      outcome.textContent = message(error);
    }
    render();
  }
  async function render() {
    const tokens = await listTokens();
    box.replaceChildren(tokens.length === 0 ? h('p', { class: 'empty' }, 'No API tokens yet.')
      : h('div', { class: 'table-scroll' }, h('table', { id: 'tokens', class: 'grid' },
        h('thead', {}, h('tr', {}, h('th', {}, 'Name'), h('th', {}, 'Made'), h('th', {}, 'Revoked'), h('th', {}))),
        h('tbody', {}, tokens.map((t) => h('tr', { id: `token-${t.id}`, class: t.revokedAt ? 'revoked' : '' },
          h('td', {}, t.name), h('td', { class: 'time' }, formatTime(t.createdAt)),
          h('td', { class: 'time' }, t.revokedAt ? formatTime(t.revokedAt) : '—'),
          h('td', { class: 'actions' }, !t.revokedAt && h('button', { type: 'button', class: 'secondary danger revoke-token',
            onclick: () => revoke(t) }, 'Revoke'))))))));
  }
  const form = h('form', { id: 'create-token', class: 'inline-form', onsubmit: async (event) => {
    event.preventDefault();
    try {
      const made = await createToken(name.value);
      outcome.textContent = '';
      reveal.show(made);
      form.reset();
      render();
    } catch (error) {
      outcome.textContent = message(error);
    }
  } }, name, h('button', { type: 'submit', class: 'primary' }, 'Make a token'));
  render();
  return h('section', { class: 'card' }, h('h2', {}, 'API tokens'),
    h('p', { class: 'muted card-hint' }, 'For scripts and the CLI: a token acts with your role until it is revoked.'),
    box, form, reveal.slot, outcome);
}

function passwordCard() {
  const outcome = h('p', { class: 'validation', role: 'status' });
  const current = h('input', { type: 'password', id: 'current-password', autocomplete: 'current-password', required: true });
  const password = h('input', { type: 'password', id: 'new-password', autocomplete: 'new-password', minlength: 8, required: true });
  const form = h('form', { id: 'change-password', class: 'stacked-form', onsubmit: async (event) => {
    event.preventDefault();
    try {
      await changePassword(current.value, password.value);
      outcome.textContent = 'Password changed. Your other sessions are logged out.';
      form.reset();
    } catch (error) {
      outcome.textContent = message(error);
    }
  } }, h('label', { for: 'current-password' }, 'Current password'), current,
  h('label', { for: 'new-password' }, 'New password (8 characters or more)'), password,
  h('button', { type: 'submit', class: 'primary' }, 'Change'));
  return h('section', { class: 'card' }, h('h2', {}, 'Password'), form, outcome);
}

function usersCard() {
  const box = h('div', {});
  const outcome = h('p', { class: 'validation', role: 'status' });
  async function render() {
    const users = await listUsers();
    box.replaceChildren(h('div', { class: 'table-scroll' }, h('table', { id: 'users', class: 'grid' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Account'), h('th', {}, 'Role'), h('th', {}, 'Made'), h('th', {}))),
      h('tbody', {}, users.map((u) => h('tr', { id: `user-${u.name}` }, h('td', {}, u.name), h('td', {}, roleSelect(u)),
        h('td', { class: 'time' }, formatTime(u.createdAt)),
        h('td', { class: 'actions' }, h('button', { type: 'button', class: 'secondary danger', onclick: async () => {
          if (!window.confirm(`Delete the account ${u.name} and its tokens?`)) return;
          try { await deleteUser(u.name); render(); } catch (error) { outcome.textContent = message(error); }
        } }, 'Delete'))))))));
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
  const role = h('select', { name: 'role', 'aria-label': 'role' }, ['viewer', 'operator', 'admin'].map((r) => h('option', { value: r }, r)));
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
  } }, name, password, role, h('button', { type: 'submit', class: 'primary' }, 'Add account'));
  render();
  return h('section', { class: 'card', 'data-needs': 'admin' }, h('h2', {}, 'Accounts'), box, form, outcome);
}

/** Renders the page into `container`; returns the function that tears it down (and hides a token on screen). */
export function mountAccount(container) {
  const admin = document.body.dataset.role === 'admin';
  const reveal = tokenReveal();
  container.replaceChildren(h('section', { id: 'account-page', class: 'account-view' },
    h('div', { class: 'account-columns' }, tokensCard(reveal), passwordCard()),
    admin && usersCard(), admin && auditCard(message)));
  return () => reveal.hide();
}
