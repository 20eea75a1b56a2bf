// Who is logged in, shown in the header with a "Log out" button. The body's data-role hides what that role
// may not do (elements marked data-needs="operator" or "admin", see app.css); the controller refuses it anyway.
import { showError } from './banner.js';
import { getMe, logout } from './api.js';
import { h } from './dom.js';

export async function initAccount() {
  const slot = document.getElementById('account');
  let me;
  try {
    me = await getMe();
  } catch (error) {
    showError('account', error);
    return;
  }
  if (me === null) { // a read-only dashboard (qplab.security.anonymous-read): nobody logged in
    document.body.dataset.role = 'anonymous';
    slot.replaceChildren(h('a', { href: 'login', id: 'login-link' }, 'Log in'));
    return;
  }
  document.body.dataset.role = me.role;
  slot.replaceChildren(
    h('a', { id: 'who', href: '#/account', title: `logged in as ${me.name}, role ${me.role}: tokens, password` }, `${me.name} (${me.role})`),
    h('button', { type: 'button', id: 'logout', class: 'secondary', onclick: () => logout() }, 'Log out'));
}
