// The "Import perftest output" box: files chosen in a picker or dropped on its zone are POSTed one at a time to
// /api/import/perftest?file=NAME, as ./qplab import sends them; each file's line says what the server answered:
// the new experiment with any repair it warns of, or its refusal and every violation, in the server's own words.
import { importPerftest } from './api.js';
import { h } from './dom.js';

function violationItems(violations) {
  return violations.map((v) => h('li', {},
    v.field ? [h('code', { class: 'field' }, v.field), ': '] : null,
    h('span', { class: 'message' }, v.message)));
}

/** One file's line in the results: waiting, then uploading, then imported, refused or failed. */
function resultItem(file) {
  const state = h('span', { class: 'import-state' }, 'waiting');
  const item = h('li', { dataset: { file: file.name, state: 'waiting' } },
    h('code', { class: 'file-name' }, file.name), ': ', state);
  return {
    item,
    show(stateName, ...content) {
      item.dataset.state = stateName;
      state.replaceChildren(...content.flat().filter((part) => part != null)); // null: a part left out
    },
  };
}

async function upload(file, name, result, onImported) {
  result.show('uploading', 'uploading…');
  try {
    const answer = await importPerftest(file, { file: file.name, name });
    if (answer.experiment) {
      const { id, name: title, runs, tool, warnings = [] } = answer.experiment;
      // what the server repaired to read the file (damage perftest writes), in its own words, under the experiment
      result.show('imported', 'imported as ', h('a', { href: `#/experiments/${id}` }, `${title} (#${id})`),
        `: ${runs} ${runs === 1 ? 'run' : 'runs'} of ${tool}`,
        warnings.length ? h('ul', { class: 'warnings' }, violationItems(warnings)) : null);
      onImported(answer.experiment);
    } else {
      result.show('refused', h('span', { class: 'error' }, answer.message),
        answer.violations.length ? h('ul', { class: 'violations' }, violationItems(answer.violations)) : null);
    }
  } catch (error) {
    result.show('failed', h('span', { class: 'error' }, error.message));
  }
}

export function importBox({ onImported }) {
  const picker = h('input', { type: 'file', id: 'import-files', multiple: true });
  const name = h('input', { type: 'text', id: 'import-name', placeholder: 'default: TOOL (FILE) import' });
  const results = h('ul', { id: 'import-results', class: 'import-results', 'aria-live': 'polite' });
  const zone = h('div', { id: 'import-drop', class: 'drop-zone' },
    h('label', { for: 'import-files' }, 'perftest output: its text or its --out_json file'),
    picker,
    h('p', { class: 'drop-hint' }, 'or drop files here'));
  const box = h('section', { id: 'import-perftest', class: 'card import', 'data-needs': 'operator', 'aria-busy': 'false' },
    h('h2', {}, 'Import perftest output'), zone,
    h('label', { class: 'import-name' }, 'Name (optional) ', name),
    results);

  // Files wait their turn: one upload at a time, in the order chosen; files added meanwhile join the queue.
  const queue = [];
  let busy = false;
  async function drain() {
    busy = true;
    box.setAttribute('aria-busy', 'true');
    while (queue.length > 0) {
      const { file, title, result } = queue.shift();
      await upload(file, title, result, onImported);
    }
    busy = false;
    box.setAttribute('aria-busy', 'false');
  }

  function add(files) {
    if (files.length === 0) return;
    if (!busy) results.replaceChildren(); // a new batch: the last one's lines go
    for (const file of files) {
      const result = resultItem(file);
      results.append(result.item);
      queue.push({ file, title: name.value.trim(), result }); // the name as it was when the file was chosen
    }
    if (!busy) drain();
  }

  picker.addEventListener('change', () => {
    add([...picker.files]);
    picker.value = ''; // the same file may be chosen again
  });
  zone.addEventListener('dragover', (event) => {
    event.preventDefault(); // lets the drop happen here instead of the browser opening the file
    event.dataTransfer.dropEffect = 'copy';
    zone.classList.add('dragging');
  });
  zone.addEventListener('dragleave', (event) => {
    if (!zone.contains(event.relatedTarget)) zone.classList.remove('dragging'); // not when it moves onto a child
  });
  zone.addEventListener('drop', (event) => {
    event.preventDefault();
    zone.classList.remove('dragging');
    add([...(event.dataTransfer?.files ?? [])]);
  });
  return box;
}
