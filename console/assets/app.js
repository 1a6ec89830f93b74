// actbridge operator console: polls /console/api/state every second and
// renders it; every action is one POST to /console/api/<action>.
'use strict';

const TOKEN_KEY = 'actbridge-operator-token';
const POLL_MS = 1000;
const ui = { token: sessionStorage.getItem(TOKEN_KEY) || '', role: '', mode: '', estopEvent: 0 };

const $ = (id) => document.getElementById(id);

// el builds an element; strings become text nodes, never markup.
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('data-')) e.setAttribute(k, v);
    else e[k] = v;
  }
  for (const k of kids) if (k != null) e.append(k);
  return e;
}

async function api(path, body) {
  const headers = {};
  if (ui.token) headers.Authorization = 'Bearer ' + ui.token;
  const init = { method: 'GET', headers, cache: 'no-store' };
  if (body !== undefined) {
    init.method = 'POST';
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path.startsWith('/') ? path : '/console/api/' + path, init);
  let data = null;
  try { data = await res.json(); } catch (_) { /* empty body */ }
  return { ok: res.ok, status: res.status, data };
}

let toastTimer = 0;
function toast(text, bad) {
  const t = $('toast');
  t.textContent = text;
  t.className = 'show' + (bad ? ' bad' : '');
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.className = ''; }, 6000);
}

function errorText(data, status) {
  if (!data) return 'HTTP ' + status;
  let s = (data.code ? data.code + ': ' : '') + (data.message || '');
  if (data.hint) s += ' (' + data.hint + ')';
  return s;
}

// The STOP button: no dialog, no token needed, never disabled. It posts
// to /stop, the endpoint hardware buttons and watchdogs use.
async function stop() {
  try {
    const r = await api('/stop', { reason: 'operator pressed STOP' });
    if (r.ok) toast('STOPPED. E-stop event ' + r.data.estop_event + ' latched.', true);
    else toast('STOP failed: ' + errorText(r.data, r.status), true);
  } catch (e) {
    toast('STOP failed: ' + e, true);
  }
  poll();
}

async function act(path, body, done) {
  const r = await api(path, body);
  if (r.ok) done(r.data);
  else toast(errorText(r.data, r.status), true);
  poll();
}

// busy disables a card's buttons while its action is in flight.
async function busy(card, action) {
  card.dataset.busy = '1';
  card.querySelectorAll('button').forEach((b) => { b.disabled = true; });
  try { await action(); } finally { delete card.dataset.busy; }
}

function approve(id, card) {
  busy(card, () => act('approve', { preview_id: id }, (m) => toast('Approved: motion ' + m.motion_id + ' is ' + m.state)));
}

function deny(id, card) {
  busy(card, () => act('deny', { preview_id: id }, () => toast('Denied: that preview can never run.')));
}

function askReset() {
  // The event shown is the event reset: a newer stop is never released by it.
  $('reset-event').textContent = String(ui.estopEvent);
  $('reset-dialog').dataset.event = String(ui.estopEvent);
  $('reset-dialog').returnValue = '';
  $('reset-dialog').showModal();
}

function resetConfirmed() {
  const ev = Number($('reset-dialog').dataset.event);
  act('estop_reset', { event: ev }, () => toast('E-stop event ' + ev + ' reset.'));
}

function renderAuth(state, status) {
  const auth = $('auth');
  const form = $('token-form');
  if (status === 401 || status === 403) {
    auth.textContent = status === 401 ? 'Enter the operator token to see the robot. STOP works without it.' : errorText(state, status);
    form.hidden = status !== 401;
    return;
  }
  ui.role = state.auth.role;
  ui.mode = state.auth.mode;
  if (ui.role === 'operator') {
    auth.textContent = 'Signed in as the operator.';
    form.hidden = true;
  } else if (ui.mode === 'demo') {
    auth.textContent = 'Demo mode (loopback, no tokens configured): read-only. Approve, deny and e-stop reset need the operator token the bridge wrote to operator.token in its data directory.';
    form.hidden = false;
  } else {
    auth.textContent = 'Read-only (planner token): approve, deny and e-stop reset need the operator token.';
    form.hidden = false;
  }
}

function renderRobot(robot) {
  const es = $('estop');
  es.replaceChildren();
  const chips = $('actuators');
  chips.replaceChildren();
  if (!robot) return;
  const e = robot.estop || {};
  ui.estopEvent = e.event || 0;
  if (e.latched) {
    es.className = 'estop latched';
    es.append(el('span', { class: 'what', text: 'E-STOP LATCHED, event ' + e.event + (e.reason ? ': ' + e.reason : '') }));
    const b = el('button', { class: 'danger', id: 'reset', type: 'button', text: 'Reset e-stop…' });
    b.disabled = ui.role !== 'operator';
    b.addEventListener('click', askReset);
    es.append(b);
  } else {
    es.className = 'estop clear';
    es.append(el('span', { class: 'what', text: 'E-stop clear' + (e.event ? ' (last event ' + e.event + ')' : '') }));
  }
  renderDescription(robot.urdf);
  chips.append(el('span', { class: 'chip ' + (robot.master_reachable ? 'up' : 'down'), text: 'ROS master' }));
  for (const a of robot.actuators || []) {
    const policy = robot.policy && robot.policy[a.name] ? robot.policy[a.name].confirmed_by : '';
    chips.append(el('span', { class: 'chip ' + (a.connected && !a.ambiguous ? 'up' : 'down'), 'data-actuator': a.name, title: a.action || '' },
      a.name + ' (' + a.kind + ')', policy ? el('span', { class: 'detail', text: 'confirmed by ' + policy }) : null,
      a.detail ? el('span', { class: 'detail', text: a.detail }) : null,
      a.ambiguous ? el('span', { class: 'detail', text: 'refused, ambiguous: ' + a.ambiguous }) : null));
  }
}

// renderDescription shows a robot description that changed while the
// bridge ran: motions are held until the operator accepts it (only when
// its limits are those in force) or the bridge restarts.
function renderDescription(u) {
  const box = $('urdf');
  const c = u && u.changed;
  const amb = u && u.ambiguous;
  // Rebuilt only when what it shows changes, so a click never lands on a
  // button the once-a-second refresh just replaced.
  const key = amb ? 'ambiguous|' + amb : c ? [c.published_sha256, c.acceptable, ui.role].join('|') : '';
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  box.replaceChildren();
  box.hidden = !amb && !c;
  if (amb) {
    box.append(el('span', { class: 'what', text: 'MORE THAN ONE PUBLISHER OF THE ROBOT DESCRIPTION: motions are held until one is left, or the config names it (description_node). ' + amb }));
    return;
  }
  if (!c) return;
  box.append(el('span', { class: 'what', text: 'ROBOT DESCRIPTION CHANGED (' + c.source + ', ' + c.at + '): motions are held. ' +
    (c.acceptable ? 'Its limits are those in force.' : c.unreadable ? 'It cannot be read: ' + c.unreadable + '. Restart the bridge once it is fixed.'
      : 'It changes the limits of ' + (c.changed_joints || []).join(', ') + ': restart the bridge to load them.') }));
  if (c.acceptable) {
    const b = el('button', { class: 'danger', id: 'accept-urdf', type: 'button', text: 'Accept new description' });
    b.disabled = ui.role !== 'operator';
    b.addEventListener('click', () => act('description_accept', { urdf_sha256: c.published_sha256 },
      () => toast('Robot description ' + c.published_sha256.slice(0, 12) + ' accepted.')));
    box.append(b);
  }
}

function fmt(x, d) { return typeof x === 'number' ? x.toFixed(d === undefined ? 3 : d) : '–'; }

function renderJoints(joints, robot) {
  const body = $('joint-table').tBodies[0];
  body.replaceChildren();
  if (!joints) { $('joints-age').textContent = 'no joint states'; return; }
  $('joints-age').textContent = (joints.stale ? 'STALE, ' : '') + fmt(joints.age_s, 2) + ' s old';
  const limits = {};
  for (const j of (robot && robot.joints) || []) limits[j.name] = j;
  for (const g of (robot && robot.grippers) || []) limits[g.joint] = { lower: g.min, upper: g.max };
  for (const j of joints.joints || []) {
    const l = limits[j.name];
    let range = el('span', { text: '' });
    if (l && typeof l.lower === 'number' && typeof l.upper === 'number' && l.upper > l.lower) {
      const pct = Math.min(100, Math.max(0, 100 * (j.position - l.lower) / (l.upper - l.lower)));
      const mark = el('span', { class: 'mark' });
      mark.style.left = 'calc(' + pct.toFixed(1) + '% - 2px)';
      range = el('div', { class: 'range', title: fmt(l.lower, 2) + ' … ' + fmt(l.upper, 2) }, mark);
    }
    body.append(el('tr', { 'data-joint': j.name }, el('td', { text: j.name }), el('td', { class: 'num position', text: fmt(j.position) }),
      el('td', { class: 'num', text: fmt(j.velocity) }), el('td', {}, range)));
  }
}

// confirmer says who confirmed a motion and how (motion_status's
// confirmed_by and confirmed_via).
function confirmer(m) {
  if (!m.confirmed_by) return '';
  if (m.confirmed_by === 'planner') return 'the planner';
  const via = { console: 'at the console', elicitation: 'by MCP elicitation', mcp: 'over MCP (operator token)' }[m.confirmed_via];
  return 'the ' + m.confirmed_by + (via ? ' ' + via : '');
}

function motionRow(m) {
  const who = confirmer(m);
  const row = el('div', { class: 'motion', 'data-motion-id': m.motion_id },
    el('span', {}, el('b', { text: m.tool || m.actuator }), ' on ' + m.actuator,
      who ? el('span', { class: 'confirmer', 'data-confirmed-via': m.confirmed_via || '', text: ' · confirmed by ' + who }) : null),
    el('span', { class: 'state ' + m.state, text: m.state }),
    el('span', { class: 'id', text: m.motion_id + (m.error ? ' · ' + m.error : '') }));
  if (!m.terminal) row.append(el('progress', { max: 1, value: m.progress || 0 }));
  return row;
}

function renderMotions(inFlight, recent) {
  $('no-motions').hidden = inFlight.length > 0;
  $('motion-list').replaceChildren(...inFlight.map(motionRow));
  $('recent-list').replaceChildren(...recent.map(motionRow));
}

// movesTable lists what each joint (or the base) does, and adds a plot per
// joint to plots.
function movesTable(p, plots) {
  const joints = p.kind === 'joints';
  const head = el('tr', {}, el('th', { text: 'moves' }), el('th', { text: 'from' }), el('th', { text: 'to' }));
  if (joints) head.append(el('th', { text: 'change' }), el('th', { text: 'limits used' }));
  const table = el('table', { class: 'moves' }, head);
  for (const m of p.moves) {
    const row = el('tr', { 'data-joint': m.name }, el('td', { text: m.name }), el('td', { text: m.from }), el('td', { text: m.to }));
    if (joints) row.append(el('td', { text: m.delta || '' }), el('td', { class: 'limit-use', text: m.limit_use || '' }));
    table.append(row);
    if (m.plot_svg) {
      const fig = el('figure', {});
      const holder = el('div', {});
      holder.innerHTML = m.plot_svg; // built and escaped by the bridge (console/plot.go)
      const use = m.limit_use || (m.percent_of_velocity_limit != null ? 'velocity ' + fmt(m.percent_of_velocity_limit, 0) + '% of limit' : '');
      fig.append(holder, el('figcaption', { text: m.name + (use ? ' · ' + use : '') }));
      plots.append(fig);
    }
  }
  if (p.workspace_svg) {
    const fig = el('figure', {});
    const holder = el('div', {});
    holder.innerHTML = p.workspace_svg; // built and escaped by the bridge (console/workspace.go)
    fig.append(holder, el('figcaption', { text: 'tool path and workspace, side and top view, to scale' }));
    plots.append(fig);
  }
  return table;
}

// serviceTable shows the service, its type and the request it would send.
function serviceTable(s) {
  return el('table', { class: 'service' },
    el('tr', {}, el('th', { text: 'service' }), el('td', { class: 'service-name', text: s.name })),
    el('tr', {}, el('th', { text: 'type' }), el('td', { class: 'service-type', text: s.type })),
    el('tr', {}, el('th', { text: 'request' }), el('td', {}, el('pre', { class: 'service-request', text: s.request }))));
}

// Preview cards are keyed by preview id and built once, so a click never
// lands on a card being replaced; only the countdown changes.
// recoveryList names each joint (or base axis) outside its limit and by how much.
function recoveryList(out) {
  return el('ul', { class: 'out-of-range' }, ...(out || []).map((o) =>
    el('li', { text: o.joint + ' at ' + o.position + ', limit ' + o.limit + ', out by ' + o.by })));
}

function previewCard(p) {
  const card = el('article', { class: 'preview ' + (p.kind || 'joints') + (p.recovery ? ' recovery' : ''), 'data-preview-id': p.preview_id });
  card.append(el('header', {},
    ...(p.recovery ? [el('span', { class: 'recovery-mark', text: 'RECOVERY' })] : []),
    el('span', { class: 'tool', text: p.tool }),
    el('span', { class: 'meta', text: p.actuator + ' · ' + fmt(p.duration_s, 1) + ' s · confirmed by ' + (p.confirmed_by || '?') }),
    el('span', { class: 'expires' })));
  if (p.recovery) {
    card.append(el('p', { class: 'recovery-note', text: 'Recovery from outside a limit: only an operator approves it.' }), recoveryList(p.out_of_range));
  }
  const plots = el('div', { class: 'plots' });
  if (p.kind === 'service') card.append(serviceTable(p.service));
  else card.append(movesTable(p, plots));
  if (p.base) {
    const fig = el('figure', { class: 'base-map' });
    const holder = el('div', {});
    holder.innerHTML = p.base.map_svg; // built and escaped by the bridge (console/basemap.go)
    fig.append(holder, el('figcaption', { class: 'fence-note', text: p.base.note }));
    plots.append(fig);
  }
  if (p.detail) card.append(el('p', { class: 'meta', text: p.detail }));
  if (p.holds.length) card.append(el('p', { class: 'holds', text: 'holds: ' + p.holds.join(', ') }));
  if (p.warnings.length) card.append(el('ul', { class: 'warnings' }, ...p.warnings.map((w) => el('li', { text: '⚠ ' + w }))));
  card.append(plots);
  const ok = el('button', { class: 'approve', type: 'button', text: 'Approve' });
  const no = el('button', { class: 'deny', type: 'button', text: 'Deny' });
  ok.addEventListener('click', () => approve(p.preview_id, card));
  no.addEventListener('click', () => deny(p.preview_id, card));
  card.append(el('div', { class: 'actions' }, ok, no), el('div', { class: 'id', text: p.preview_id }));
  return card;
}

function renderPreviews(previews) {
  const list = $('preview-list');
  const keep = new Set(previews.map((p) => p.preview_id));
  for (const card of [...list.children]) if (!keep.has(card.dataset.previewId)) card.remove();
  const have = new Set([...list.children].map((c) => c.dataset.previewId));
  for (const p of previews) {
    if (!have.has(p.preview_id)) list.append(previewCard(p));
    const card = list.querySelector('[data-preview-id="' + CSS.escape(p.preview_id) + '"]');
    const exp = card.querySelector('.expires');
    exp.textContent = 'expires in ' + Math.ceil(p.expires_in_s) + ' s';
    exp.classList.toggle('soon', p.expires_in_s < 10);
    if (!card.dataset.busy) card.querySelectorAll('.actions button').forEach((b) => { b.disabled = ui.role !== 'operator'; });
  }
  $('pending-count').textContent = previews.length ? '(' + previews.length + ')' : '';
  $('no-previews').hidden = previews.length > 0;
}

let polling = false;
async function poll() {
  if (polling) return;
  polling = true;
  try {
    const r = await api('state');
    $('link').textContent = 'live';
    $('link').className = 'pill live';
    renderAuth(r.data, r.status);
    if (!r.ok) return;
    const s = r.data;
    renderRobot(s.robot);
    renderJoints(s.joints, s.robot);
    renderMotions(s.motions || [], s.recent || []);
    renderPreviews(s.previews || []);
    $('problems').hidden = !(s.errors && s.errors.length);
    $('errors').replaceChildren(...(s.errors || []).map((e) => el('li', { text: e })));
  } catch (e) {
    $('link').textContent = 'bridge unreachable';
    $('link').className = 'pill down';
  } finally {
    polling = false;
  }
}

document.addEventListener('DOMContentLoaded', () => {
  $('stop').addEventListener('click', stop);
  $('token-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    ui.token = $('token').value.trim();
    sessionStorage.setItem(TOKEN_KEY, ui.token);
    $('token').value = '';
    poll();
  });
  $('reset-dialog').addEventListener('close', () => {
    if ($('reset-dialog').returnValue === 'reset') resetConfirmed();
  });
  poll();
  setInterval(poll, POLL_MS);
});
