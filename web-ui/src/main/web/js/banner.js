// The visible error banner. Messages are keyed by their source, so a refresh that succeeds
// again clears its own message without hiding someone else's.

const messages = new Map();

function banner() {
  return document.getElementById('error-banner');
}

function render() {
  const element = banner();
  const list = element.querySelector('.banner-messages');
  list.replaceChildren(...[...messages.values()].map((text) => {
    const item = document.createElement('li');
    item.textContent = text;
    return item;
  }));
  element.hidden = messages.size === 0;
}

export function showError(source, error) {
  messages.set(source, error instanceof Error ? error.message : String(error));
  render();
}

export function clearError(source) {
  if (messages.delete(source)) render();
}

export function initBanner() {
  banner().querySelector('.banner-close').addEventListener('click', () => {
    messages.clear();
    render();
  });
}
