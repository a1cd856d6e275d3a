// In an export opened from a folder (file:// or a static host): each answer the server
// would give is a script under data/, loaded when the page first asks for it. Loaded
// before app.js, whose api() asks here instead of the server when MLAB_EXPORT is set.
"use strict";

window.MLAB_EXPORT = true;
window.MLAB_DATA = window.MLAB_DATA || {};

// export.py's request_key and file_name: the query with its keys sorted, and its FNV-1a.
function exportKey(path, params) {
  const sorted = Object.entries(params).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${path}?${new URLSearchParams(sorted).toString()}`;
}

function exportFile(key) {
  let digest = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(key)) digest = Math.imul(digest ^ byte, 0x01000193) >>> 0;
  return `data/${key.split("?")[0]}-${digest.toString(16).padStart(8, "0")}.js`;
}

function exported(path, params) {
  const key = exportKey(path, params);
  const found = () => (key in window.MLAB_DATA ? Promise.resolve(window.MLAB_DATA[key])
    : Promise.reject(new Error(`not in this export (it holds the pages written when it was made): ${key}`)));
  if (key in window.MLAB_DATA) return found();
  return new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = exportFile(key);
    script.onload = () => { script.remove(); found().then(resolve, reject); };
    script.onerror = () => { script.remove(); found().then(resolve, reject); };
    document.head.append(script);
  });
}
