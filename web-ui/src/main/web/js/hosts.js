// Hosts, #/hosts: the SSH inventory with each agent's status and the Deploy / Upgrade / Stop / Remove
// buttons (their errors shown as the server words them), the controllers on the database (which one
// leads the background jobs, how many agents each has), and every agent that has registered with
// its host facts, RDMA devices and what it lacks for NVMe-oF.
import { addHost, hostAction, listAgents, listControllers, listHosts, removeHost } from './api.js';
import { agentCard, ago, connectedBadge } from './hosts-agents.js';
import { h, statusBadge } from './dom.js';
import { formatTime } from './format.js';
import { refreshLoop } from './refresh.js';

const ACTIONS = [
  ['deploy', 'Deploy', (host) => !host.deployedAt],
  ['upgrade', 'Upgrade', (host) => Boolean(host.deployedAt)],
  ['stop', 'Stop', (host) => host.state !== 'ADDED'],
  ['remove', 'Remove', (host) => host.state !== 'DEPLOYING'],
];

/** Asks before an action that cannot be undone; true when there is nothing to ask or the answer is yes. */
function confirmed(name, action) {
  if (action !== 'remove') return true;
  return window.confirm(`Remove host ${name} from the inventory? Its deploy state is forgotten; `
    + 'the runs of its agent stay. (A host whose agent is connected is refused: stop the agent first.)');
}

/** The server's own words for a failed action: the body's error, else the request's message. */
function verbatim(error) {
  return typeof error.body === 'object' && error.body?.error ? error.body.error : error.message;
}

function hostRow(host, pending, act) {
  const mine = pending.get(host.name);
  return h('tr', { id: `host-${host.name}`, dataset: { state: host.state, connected: String(host.agentConnected) } },
    h('td', {}, h('strong', {}, host.name)),
    h('td', {}, h('code', {}, `${host.sshUser}@${host.address}:${host.sshPort}`), h('div', { class: 'muted' }, host.remoteDir)),
    h('td', { class: 'host-state' }, statusBadge(host.state),
      host.detail && host.detail !== mine?.error && h('div', { class: 'host-detail' }, host.detail)),
    h('td', {}, connectedBadge(host.agentConnected)),
    h('td', {}, ago(host.lastHeartbeat)),
    h('td', { class: 'time' }, formatTime(host.deployedAt)),
    h('td', { class: 'actions host-actions' }, ACTIONS.filter(([, , shown]) => shown(host)).map(([action, label]) =>
      h('button', {
        type: 'button',
        class: `secondary host-${action}`,
        'data-needs': 'admin',
        disabled: Boolean(mine?.running),
        onclick: () => act(host.name, action),
      }, mine?.running === action ? `${label}…` : label))),
    h('td', { class: 'error-text host-error' }, mine?.error ?? ''));
}

function hostsTable(hosts, pending, act) {
  if (hosts.length === 0) return h('p', { class: 'empty' }, 'No hosts in the inventory: add one below.');
  return h('div', { class: 'table-scroll' }, h('table', { id: 'hosts', class: 'grid' },
    h('thead', {}, h('tr', {}, ['Host', 'SSH', 'State', 'Agent', 'Last heartbeat', 'Deployed', '', 'Error']
      .map((text) => h('th', {}, text)))),
    h('tbody', {}, hosts.map((host) => hostRow(host, pending, act)))));
}

/** The controllers that share the database: alive or gone, the leader, the agents on each, this one marked. */
function controllersTable(controllers) {
  if (controllers.length === 0) return h('p', { class: 'empty' }, 'No controller listed.');
  return h('div', { class: 'table-scroll' }, h('table', { id: 'controllers', class: 'grid' },
    h('thead', {}, h('tr', {}, ['Controller', 'URL', 'State', 'Background jobs', 'Agents', 'Last heartbeat', 'Started']
      .map((text) => h('th', {}, text)))),
    h('tbody', {}, controllers.map((c) => h('tr', {
      id: `controller-${c.id}`,
      dataset: { alive: String(c.alive), leader: String(c.leader), self: String(c.self) },
    },
    h('td', {}, h('strong', {}, c.name), ' ', h('code', { class: 'muted' }, c.id),
      c.self && h('span', { class: 'muted controller-self' }, ' (this one)')),
    h('td', {}, c.url ? h('code', {}, c.url) : '–'),
    h('td', {}, h('span', { class: `badge ${c.alive ? 'badge-finished' : 'badge-cancelled'}` },
      c.alive ? 'alive' : c.stoppedAt ? 'stopped' : 'gone')),
    h('td', { class: 'controller-leader' }, c.leader ? h('span', { class: 'badge badge-running' }, 'leader') : ''),
    h('td', { class: 'num' }, String(c.agents)),
    h('td', {}, ago(c.lastSeen)),
    h('td', { class: 'time' }, formatTime(c.startedAt)))))));
}

function addHostForm(onAdded) {
  const field = (name, label, attributes = {}) => h('label', {}, h('span', {}, label), h('input', { name, ...attributes }));
  const outcome = h('span', { class: 'error-text', id: 'add-host-error' });
  const form = h('form', {
    'data-needs': 'admin',
    id: 'add-host',
    class: 'add-host',
    onsubmit: async (event) => {
      event.preventDefault();
      const data = Object.fromEntries(new FormData(form).entries());
      const body = { name: data.name, address: data.address, sshUser: data.sshUser || undefined,
        sshPort: data.sshPort ? Number(data.sshPort) : undefined };
      try {
        await addHost(body);
        outcome.textContent = '';
        form.reset();
        onAdded();
      } catch (error) {
        const violations = error.body?.violations;
        outcome.textContent = violations?.length
          ? violations.map((v) => `${v.field}: ${v.message}`).join('; ') : verbatim(error);
      }
    },
  },
  field('name', 'Name', { required: true, placeholder: 'node1' }),
  field('address', 'Address', { required: true, placeholder: '198.18.0.11' }),
  field('sshUser', 'SSH user', { placeholder: 'root' }),
  field('sshPort', 'SSH port', { type: 'number', min: 1, max: 65535, placeholder: '22' }),
  h('button', { type: 'submit', class: 'secondary' }, 'Add host'), outcome);
  return form;
}

/** Renders the page into `container`; returns the function that tears it down. */
export function mountHosts(container) {
  let mounted = true;
  const pending = new Map(); // host → {running: action} or {error: text}
  const hostsBox = h('div', {}, h('p', { class: 'empty' }, 'Loading…'));
  const agentsBox = h('div', {}, h('p', { class: 'empty' }, 'Loading…'));
  const controllersBox = h('div', {}, h('p', { class: 'empty' }, 'Loading…'));
  let loop = null;
  const refresh = () => loop?.now();
  let lastHosts = [];
  const render = () => hostsBox.replaceChildren(hostsTable(lastHosts, pending, act));

  async function act(name, action) {
    if (!confirmed(name, action)) return;
    pending.set(name, { running: action });
    render();
    refresh(); // shows the DEPLOYING step while the request runs
    try {
      if (action === 'remove') {
        await removeHost(name);
        lastHosts = lastHosts.filter((host) => host.name !== name);
      } else {
        await hostAction(name, action);
      }
      pending.delete(name);
    } catch (error) {
      pending.set(name, { error: verbatim(error) });
    }
    if (mounted) {
      render();
      refresh();
    }
  }

  container.replaceChildren(h('section', { id: 'hosts-page', class: 'hosts-view' },
    h('section', { class: 'card' }, h('h2', {}, 'Hosts (SSH inventory)'), hostsBox, addHostForm(refresh)),
    h('section', { class: 'card' }, h('h2', {}, 'Controllers'), controllersBox),
    h('section', { class: 'card' }, h('h2', {}, 'Agents'), agentsBox)));

  loop = refreshLoop('hosts', async () => {
    const [hosts, agents, controllers] = await Promise.all([listHosts(), listAgents(), listControllers()]);
    if (!mounted) return false;
    lastHosts = hosts;
    render();
    controllersBox.replaceChildren(controllersTable(controllers));
    agentsBox.replaceChildren(...(agents.length === 0
      ? [h('p', { class: 'empty' }, 'No agent has registered yet.')]
      : agents.map(agentCard)));
    return true;
  }, { intervalMs: 3000 });
  return () => {
    mounted = false;
    loop.stop();
  };
}
