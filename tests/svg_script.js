// Runs the SVG flame graph's inline script (lib/convert/svg-page.c) on a
// small stand-in for the browser's DOM, for tests/svg_check.py where no
// browser is at hand. Reads on stdin a JSON array of pictures, each an
// object {root: attributes of <svg>, frames: [[attributes of g.f,
// attributes of its rect, label or null], ...], script: the script's text,
// hash: the URL's fragment, click: a frame index to click afterwards, or
// -1}. Writes a JSON array with, for each picture, an object {frames:
// [{shown, x, width, classes, label}], matched, hash, clicked: the same
// after the click}, or {error: the exception} when its script threw. One
// node process for every picture: its start-up is most of the time.
'use strict';

class El {
  constructor(tag, attrs) {
    this.tag = tag;
    this.attrs = Object.assign({}, attrs || {});
    this.children = [];
    this.parent = null;
    this.style = {display: ''};
    this.textContent = '';
    this.handlers = {};
    const cls = new Set((this.attrs.class || '').split(' ').filter(Boolean));
    this.classList = {
      add: (c) => cls.add(c), remove: (c) => cls.delete(c),
      toggle: (c, on) => (on ? cls.add(c) : cls.delete(c)), contains: (c) => cls.has(c),
      list: () => [...cls].sort(),
    };
  }
  getAttribute(k) { return k in this.attrs ? String(this.attrs[k]) : null; }
  setAttribute(k, v) { this.attrs[k] = String(v); }
  appendChild(c) { c.parent = this; this.children.push(c); return c; }
  querySelector(tag) { return this.children.find((c) => c.tag === tag) || null; }
  addEventListener(ev, fn) { this.handlers[ev] = fn; }
  closest(sel) {
    for (let e = this; e; e = e.parent)
      if (sel === 'g.f' && e.tag === 'g' && e.classList.contains('f')) return e;
    return null;
  }
}

function run(input) {
  const svg = new El('svg', input.root);
  svg.namespaceURI = 'http://www.w3.org/2000/svg';
  const frames = input.frames.map(([g, rect, label, title]) => {
    const e = svg.appendChild(new El('g', g));
    e.appendChild(new El('title')).textContent = title;
    e.appendChild(new El('rect', rect));
    if (label !== null) e.appendChild(new El('text')).textContent = label;
    return e;
  });
  const byId = {};
  for (const id of ['search', 'reset', 'matched', 'details']) byId[id] = svg.appendChild(new El('text', {id}));
  svg.querySelectorAll = (sel) => (sel === 'g.f' ? frames : []);
  const location = {hash: input.hash ? '#' + input.hash : '', pathname: '/x.svg', search: ''};
  const win = {handlers: {}, addEventListener(ev, fn) { this.handlers[ev] = fn; }};
  const document = {
    documentElement: svg,
    getElementById: (id) => byId[id] || null,
    createElementNS: (ns, tag) => new El(tag),
  };
  const history = {replaceState(s, t, url) { location.hash = url.startsWith('#') ? url : ''; }};

  function state() {
    return {
      frames: frames.map((g) => {
        const r = g.querySelector('rect'), t = g.querySelector('text');
        return {shown: g.style.display !== 'none', x: +r.getAttribute('x'), width: +r.getAttribute('width'),
                classes: g.classList.list(), label: t ? t.textContent : ''};
      }),
      matched: byId.matched.textContent,
      hash: location.hash,
    };
  }

  new Function('document', 'window', 'location', 'history', 'prompt', input.script)(
    document, win, location, history, () => null);
  const out = state();
  if (input.click >= 0) {
    svg.handlers.click({target: frames[input.click].querySelector('rect')});
    out.clicked = state();
  }
  return out;
}

const jobs = JSON.parse(require('fs').readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(jobs.map((job) => {
  try {
    return run(job);
  } catch (e) {
    return {error: String(e && e.stack || e)};
  }
})));
