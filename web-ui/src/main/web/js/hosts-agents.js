// One agent as the hosts page shows it: status, host facts, its RDMA devices with their caps
// and ports (or why it has none), and what it lacks to be an NVMe-oF target or initiator (its hello's
// nvmeof facts). Device fields are rendered as reported, whatever they are.
import { h } from './dom.js';
import { formatBytes, formatTime } from './format.js';

/** "12 s ago", "3 min ago" from an ISO time; the absolute time is the title. */
export function ago(iso) {
  if (!iso) return h('span', { class: 'muted' }, 'never');
  const seconds = Math.max(0, Math.round((Date.now() - new Date(iso).getTime()) / 1000));
  const text = seconds < 90 ? `${seconds} s ago` : seconds < 5400 ? `${Math.round(seconds / 60)} min ago`
    : `${Math.round(seconds / 3600)} h ago`;
  return h('span', { class: 'time', title: formatTime(iso) }, text);
}

export function connectedBadge(connected) {
  return h('span', { class: `badge ${connected ? 'badge-finished' : 'badge-cancelled'}` }, connected ? 'connected' : 'disconnected');
}

const DEVICE_ORDER = ['transport', 'fw_ver', 'node_guid', 'vendor_id', 'vendor_part_id', 'max_qp', 'max_qp_wr', 'max_sge', 'max_cq',
  'max_cqe', 'max_mr', 'max_srq', 'max_srq_wr', 'max_qp_rd_atom', 'max_inline_data', 'xrc', 'device_cap_flags'];
const PORT_ORDER = ['port', 'state', 'link_layer', 'active_mtu', 'max_mtu', 'lid'];

function scalarKeys(object, preferred, skip) {
  const keys = Object.keys(object).filter((key) => !skip.includes(key)
    && (object[key] === null || typeof object[key] !== 'object'));
  return [...preferred.filter((key) => keys.includes(key)), ...keys.filter((key) => !preferred.includes(key)).sort()];
}

function value(v) {
  if (v === null || v === undefined) return '–';
  return typeof v === 'boolean' ? (v ? 'yes' : 'no') : String(v);
}

function gidList(gids) {
  if (!Array.isArray(gids) || gids.length === 0) return '–';
  return h('ul', { class: 'gids' }, gids.map((g) => h('li', {},
    h('code', {}, `[${g.index}] ${g.gid}`), g.type ? ` ${g.type}` : '')));
}

function portsTable(ports) {
  if (!Array.isArray(ports) || ports.length === 0) return h('p', { class: 'muted' }, 'No ports reported.');
  const keys = [...new Set(ports.flatMap((p) => scalarKeys(p, PORT_ORDER, ['gids'])))];
  return h('table', { class: 'grid ports' },
    h('thead', {}, h('tr', {}, keys.map((key) => h('th', {}, key)), h('th', {}, 'gids'))),
    h('tbody', {}, ports.map((p) => h('tr', { dataset: { port: p.port } },
      keys.map((key) => h('td', {}, value(p[key]))), h('td', {}, gidList(p.gids))))));
}

/** The inventory's odp entry in a line: "no", or "yes (implicit) · rc: send, recv, write · ud: send". */
function odpText(odp) {
  if (odp === null || typeof odp !== 'object' || Array.isArray(odp)) return null;
  if (!odp.supported) return 'no';
  const ops = ['rc', 'uc', 'ud', 'xrc'].filter((t) => Array.isArray(odp[t]) && odp[t].length > 0)
    .map((t) => `${t}: ${odp[t].join(', ')}`);
  return [odp.implicit ? 'yes (implicit)' : 'yes', ...ops].join(' · ');
}

function deviceBlock(device) {
  const keys = scalarKeys(device, DEVICE_ORDER, ['name', 'ports']);
  const odp = odpText(device.odp);
  return h('div', { class: 'device', dataset: { device: device.name } },
    h('h4', {}, h('code', {}, device.name ?? '(unnamed device)')),
    h('table', { class: 'grid caps' },
      h('tbody', {}, keys.map((key) => h('tr', { dataset: { cap: key } }, h('th', {}, key), h('td', { class: 'num' }, value(device[key])))),
        odp === null ? [] : h('tr', { dataset: { cap: 'odp' } }, h('th', {}, 'odp'), h('td', {}, odp)))),
    portsTable(device.ports));
}

function devices(facts) {
  const list = Array.isArray(facts.rdma_devices) ? facts.rdma_devices.filter((d) => d && typeof d === 'object') : [];
  if (list.length > 0) return h('div', { class: 'devices' }, list.map(deviceBlock));
  return h('p', { class: 'rdma-unavailable' }, 'No RDMA device',
    facts.rdma_unavailable ? [' (rdma_unavailable): ', h('code', {}, String(facts.rdma_unavailable))] : ' reported.');
}

function factsLine(facts) {
  const engine = facts.engine ? `engine ${facts.engine.version ?? JSON.stringify(facts.engine)}` : facts.engine_unavailable
    && `engine unavailable: ${facts.engine_unavailable}`;
  return h('p', { class: 'fixed-params' }, [
    facts.kernel && `kernel ${facts.kernel}`,
    facts.cpu_model && `${facts.cpu_model}${facts.cpus ? ` × ${facts.cpus}` : ''}`,
    facts.memory_kib && `${formatBytes(facts.memory_kib * 1024)} memory`,
    facts.java, engine, facts.rdma_core, facts.data_address && `data address ${facts.data_address}`,
  ].filter(Boolean).join(' · '));
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The hello's nvmeof.missing ({target: {rdma: [...], tcp: [...], local: [...]}, initiator: {...}}: what each side
 * lacks over each transport, "module nvmet-rdma", "fio", "not root", ...) as a table, and the kernel modules' states
 * (loaded, loadable, missing); null when the agent reported no nvmeof facts.
 */
function nvmeofBlock(nvmeof) {
  if (!isObject(nvmeof)) return null;
  const sides = Object.entries(isObject(nvmeof.missing) ? nvmeof.missing : {}).filter(([, byTransport]) => isObject(byTransport));
  const transports = [...new Set(sides.flatMap(([, byTransport]) => Object.keys(byTransport)))];
  const modules = Object.entries(isObject(nvmeof.modules) ? nvmeof.modules : {}).sort(([a], [b]) => a.localeCompare(b));
  const missingModules = modules.filter(([, state]) => state === 'missing').map(([name]) => name);
  return h('div', { class: 'nvmeof', dataset: { missingModules: missingModules.join(' ') } },
    h('h4', {}, 'NVMe-oF', missingModules.length > 0
      && h('span', { class: 'nvmeof-lacks' }, ` · modules missing: ${missingModules.join(', ')}`)),
    sides.length > 0 && h('table', { class: 'grid nvmeof-missing' },
      h('thead', {}, h('tr', {}, h('th', {}, 'side'), transports.map((t) => h('th', {}, t)))),
      h('tbody', {}, sides.map(([side, byTransport]) => h('tr', { dataset: { side } }, h('th', {}, side),
        transports.map((t) => {
          const lacks = byTransport[t];
          if (!Array.isArray(lacks)) return h('td', { class: 'muted' }, '–');
          return h('td', { dataset: { transport: t }, class: lacks.length > 0 ? 'nvmeof-lacks' : 'nvmeof-ready' },
            lacks.length > 0 ? `missing ${lacks.join(', ')}` : 'ready');
        }))))),
    modules.length > 0 && h('p', { class: 'fixed-params nvmeof-modules' }, 'modules: ',
      modules.map(([name, state], i) => [i > 0 && ' · ', h('code', {}, name), ' ',
        h('span', { class: state === 'missing' ? 'nvmeof-lacks' : 'muted' }, String(state))])));
}

export function agentCard(agent) {
  const facts = agent.facts ?? {};
  return h('div', { class: 'agent', id: `agent-${agent.id}`, dataset: { connected: String(agent.connected) } },
    h('div', { class: 'summary-line' }, h('strong', {}, agent.id), h('span', { class: 'muted' }, agent.hostname),
      connectedBadge(agent.connected), h('span', {}, 'last heartbeat ', ago(agent.lastHeartbeat))),
    factsLine(facts),
    devices(facts),
    nvmeofBlock(facts.nvmeof));
}
