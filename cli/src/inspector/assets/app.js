// The memory inspector: a page over Engram's HTTP API. Every call carries
// the caller's key; the server scopes it to the key's principal, so the page
// can only ever see and change that principal's memories. Memory text is
// data: it is always inserted as text, never as markup.

const $ = (sel) => document.querySelector(sel);

/** Build an element: h('td', {class: 'x'}, 'text', child, …). */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

const state = { key: '', principal: null, memories: [], selected: null };

const INFERRED = new Set(['behavior', 'agent']);
const SOURCE_LABEL = {
  user: 'user-stated', system: 'system-of-record', document: 'document',
  tool: 'tool-output', behavior: 'behavior-inferred', agent: 'agent-inferred',
};

function say(text, isError = false) {
  const s = $('#status');
  s.textContent = text;
  s.classList.toggle('error', isError);
}

/** Call the API; throws with the server's message on a non-2xx answer. */
async function api(method, path, body) {
  const res = await fetch(path, {
    method,
    headers: {
      Authorization: `Bearer ${state.key}`,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = text; }
  if (!res.ok) {
    const msg = (data && (data.error || data.message)) || text || res.statusText;
    throw new Error(`${res.status}: ${typeof msg === 'string' ? msg : JSON.stringify(msg)}`);
  }
  return data;
}

/** The scope every call is made in: the key's principal. */
function scope() {
  const p = state.principal;
  return { tenant: p.tenant, user: p.user ?? null, project: p.project ?? null };
}

const day = (t) => (t ? String(t).slice(0, 10) : '—');
const minute = (t) => (t ? String(t).slice(0, 16).replace('T', ' ') : '—');
const num = (x, d = 2) => (typeof x === 'number' ? x.toFixed(d) : '—');
const sourceText = (s) => `${SOURCE_LABEL[s.kind] ?? s.kind}${s.ref ? ` · ${s.ref}` : ''}`;

// ------------------------------------------------------------------ tabs

function showTab(tab) {
  for (const t of document.querySelectorAll('[role=tab]')) {
    const on = t === tab;
    t.setAttribute('aria-selected', on);
    t.tabIndex = on ? 0 : -1;
    $(`#${t.getAttribute('aria-controls')}`).hidden = !on;
  }
  // The detail panel belongs to the memories view.
  if (tab.id !== 'tab-memories') closeDetail();
  if (tab.id !== 'tab-forget') dismissConfirm($('#forget-confirm'));
  if (tab.id === 'tab-review') loadReview();
}

function setupTabs() {
  const tabs = [...document.querySelectorAll('[role=tab]')];
  for (const [i, t] of tabs.entries()) {
    t.addEventListener('click', () => showTab(t));
    t.addEventListener('keydown', (e) => {
      const step = { ArrowRight: 1, ArrowLeft: -1 }[e.key];
      if (!step) return;
      const next = tabs[(i + step + tabs.length) % tabs.length];
      next.focus();
      showTab(next);
    });
  }
}

// ------------------------------------------------------------------ memories

function inferredMark(m) {
  if (!INFERRED.has(m.source.kind)) return null;
  const tip = `${SOURCE_LABEL[m.source.kind]} from ${m.source.ref ?? 'an unnamed source'}; ` +
    `confidence ${num(m.confidence)}; inferred ${minute(m.observed_at)}` +
    (m.valid_to ? `; expires ${minute(m.valid_to)} unless verified` : '');
  return h('span', { class: 'chip inferred', tabindex: 0, title: tip, 'data-tip': tip, 'aria-label': `inferred: ${tip}` },
    'inferred · ', h('span', { lang: 'zh' }, '推断'));
}

function memoryRow(m) {
  const tr = h('tr', {
    class: INFERRED.has(m.source.kind) ? 'inferred-row' : null,
    'data-id': m.id, 'data-revision': m.revision, 'data-status': m.status,
  },
  h('td', {}, h('span', { class: `kind ${m.kind}` }, m.kind)),
  h('td', {}, h('span', { class: `status ${m.status}` }, m.status)),
  h('td', { class: 'text' }, h('span', { class: 'memtext' }, m.text), ' ', inferredMark(m),
    h('div', { class: 'mid' }, `${m.id}#${m.revision}`)),
  h('td', { class: 'source' }, sourceText(m.source)),
  h('td', { class: 'num' }, num(m.confidence)),
  h('td', {}, h('span', { class: `sens ${m.sensitivity}` }, m.sensitivity)),
  h('td', { class: 'when' }, minute(m.observed_at).split(' ').map((part) => h('span', {}, part)).flatMap((x, i) => (i ? [' ', x] : [x]))),
  h('td', { class: 'actions' },
    h('button', { type: 'button', class: 'open', onclick: () => openDetail(m) }, 'History · 历史'),
    m.status === 'pending'
      ? [h('button', { type: 'button', class: 'approve', onclick: () => review(m, 'approve') }, 'Approve'),
        h('button', { type: 'button', class: 'reject', onclick: () => review(m, 'reject') }, 'Reject')]
      : null));
  return tr;
}

async function loadMemories() {
  const p = new URLSearchParams({ tenant: state.principal.tenant });
  if (state.principal.user) p.set('user', state.principal.user);
  if (state.principal.project) p.set('project', state.principal.project);
  const status = $('#f-status').value;
  if (status) p.set('status', status);
  state.memories = await api('GET', `/v1/memories?${p}`);
  renderMemories();
}

function renderMemories() {
  const kind = $('#f-kind').value;
  const sens = $('#f-sensitivity').value;
  const text = $('#f-text').value.trim().toLowerCase();
  const shown = state.memories.filter((m) => (!kind || m.kind === kind) &&
    (!sens || m.sensitivity === sens) && (!text || m.text.toLowerCase().includes(text)));
  const body = $('#memories tbody');
  body.replaceChildren(...shown.map(memoryRow));
  if (!shown.length) body.append(h('tr', {}, h('td', { colspan: 8, class: 'empty' }, 'No memories match · 没有匹配的记忆')));
  say(`${shown.length} of ${state.memories.length} memories shown`);
}

// ------------------------------------------------------------------ detail: history, correct, forget

/** Hide the detail panel; a pending forget confirmation there is a "no". */
function closeDetail() {
  dismissConfirm($('#detail-confirm'));
  $('#detail').hidden = true;
}

async function openDetail(m) {
  state.selected = m;
  state.valueEdited = false;
  $('#detail').hidden = false;
  $('#correct').hidden = false;
  dismissConfirm($('#detail-confirm'));
  $('#decision').replaceChildren();
  const semantic = m.kind === 'semantic';
  $('#correct-object-label').hidden = !semantic;
  $('#correct-hint-semantic').hidden = !semantic;
  $('#correct-hint-other').hidden = semantic;
  $('#correct-object').value = semantic ? m.payload.object : '';
  $('#correct-text').value = m.text;
  previewCorrection();
  await loadHistory(m.id);
  $('#history').focus();
}

const norm = (s) => String(s ?? '').split(/\s+/).filter(Boolean).join(' ').toLowerCase();

/**
 * The value a corrected text states, while the user has not edited the
 * value: the policy tells revisions of a fact apart by their value, so a
 * new text under the old value would count as the same fact (a duplicate
 * that reinforces it) — the opposite of a correction. When the old value
 * was the whole sentence, the new sentence is the new value; when the old
 * text wrapped the value ("以后请叫我" + "林工") and the new text keeps the
 * wrapping, the new value is what now sits in its place; a new text that
 * still states the old value keeps it (the form then says that this is no
 * correction); otherwise the whole new text is the value.
 */
function valueFromText(m, text) {
  const old = m.payload.object ?? '';
  const t = text.trim();
  if (norm(t) === norm(m.text)) return old;
  if (norm(old) === norm(m.text)) return t;
  const at = old ? m.text.indexOf(old) : -1;
  if (at >= 0) {
    const before = m.text.slice(0, at);
    const after = m.text.slice(at + old.length);
    const middle = t.length > before.length + after.length && t.startsWith(before) && t.endsWith(after)
      ? t.slice(before.length, t.length - after.length).trim() : '';
    if (middle) return middle;
  }
  if (old && t.includes(old)) return old;
  return t;
}

/** What saving the correction form will do, said before it is done. */
function correctionPlan(m) {
  const text = $('#correct-text').value.trim();
  const label = `${m.id}#${m.revision}`;
  if (!text) return { ok: false, say: 'The text is empty: write what is true now.' };
  if (m.kind !== 'semantic') {
    if (norm(text) === norm(m.text)) return { ok: false, say: 'Nothing changed yet: edit the text.' };
    return {
      ok: true,
      say: `Saving stores this text as a new user-stated ${m.kind} memory. ${label} is not changed: ` +
        'events and procedures are identified by their content, so forget it if it is wrong.',
    };
  }
  const value = $('#correct-object').value.trim();
  const old = m.payload.object ?? '';
  const fact = `${m.payload.subject} · ${m.payload.predicate}`;
  if (norm(value) === norm(old)) {
    if (norm(text) === norm(m.text)) return { ok: false, say: 'Nothing changed yet: edit the text or the value.' };
    return {
      ok: false,
      say: `The value is still “${old}”: the policy would count this as the same fact (a duplicate that ` +
        `raises ${label}'s confidence), not a correction. Change the value to correct it.`,
    };
  }
  // Whose word counts is the policy's (its authority table); the page
  // names the cases rather than copying the table.
  const who = SOURCE_LABEL[m.source.kind] ?? m.source.kind;
  const above = m.source.kind === 'user' ? ''
    : ` Unless ${who} ranks above you for this fact (a system of record does for a service’s facts): then ` +
      'the correction waits in Review.';
  if (!value) {
    return {
      ok: true,
      say: `Saving withdraws ${fact} (an empty value): ${label} becomes retracted, kept for audit.${above}`,
    };
  }
  const equal = m.source.kind === 'user' ? ''
    : ' If it ranks equal (a tool’s output on a world fact), both are kept as conflicted.';
  return {
    ok: true,
    say: `Saving sets ${fact} to “${value}” (was “${old}”) with you as the source: a new revision that ` +
      `supersedes ${label}, which is kept as history.${above}${equal}`,
  };
}

function previewCorrection() {
  const m = state.selected;
  if (!m) return;
  const plan = correctionPlan(m);
  $('#correct-preview').textContent = plan.say;
  $('#correct-preview').classList.toggle('blocked', !plan.ok);
  $('#correct-save').disabled = !plan.ok;
}

function correctTextInput() {
  const m = state.selected;
  if (m && m.kind === 'semantic' && !state.valueEdited) {
    $('#correct-object').value = valueFromText(m, $('#correct-text').value);
  }
  previewCorrection();
}

function correctValueInput() {
  state.valueEdited = true;
  previewCorrection();
}

async function loadHistory(id) {
  const revs = await api('GET', `/v1/memories/${encodeURIComponent(id)}/history`);
  $('#detail-title').replaceChildren(`History of ${id} · `, h('span', { lang: 'zh' }, '修订历史'));
  $('#history').replaceChildren(...revs.map((r) => h('li', {
    class: `rev ${r.status}`, 'data-revision': r.revision, 'data-status': r.status,
  },
  h('div', { class: 'rev-head' },
    h('strong', {}, `#${r.revision}`), ' ', h('span', { class: `status ${r.status}` }, r.status), ' ',
    h('span', {}, sourceText(r.source)), ' · confidence ', num(r.confidence)),
  h('div', { class: 'memtext' }, r.text),
  h('div', { class: 'rev-meta' },
    `valid ${minute(r.valid_from ?? r.observed_at)} → ${r.valid_to ? minute(r.valid_to) : 'now'}`,
    r.supersedes ? ` · supersedes #${r.supersedes.revision}` : '',
    r.superseded_by ? ` · superseded by #${r.superseded_by.revision}` : '',
    r.source_event_ids.length ? ` · events ${r.source_event_ids.join(', ')}` : ''))));
  $('#history').tabIndex = -1;
}

function gatesTable(d) {
  return h('table', { class: 'grid gates' },
    h('thead', {}, h('tr', {}, h('th', {}, 'Gate'), h('th', {}, 'Verdict'), h('th', {}, 'Why'))),
    h('tbody', {}, Object.entries(d.gates).map(([name, g]) => h('tr', { class: g.pass ? 'pass' : 'fail' },
      h('td', {}, name), h('td', {}, g.pass ? 'pass ✓' : 'fail ✗'), h('td', { title: g.reason.code }, g.reason.text)))));
}

function decisionView(d) {
  return h('div', { class: 'decision', 'data-disposition': d.disposition, 'data-action': d.action },
    h('p', {}, h('strong', {}, `${d.disposition} · ${d.action}`),
      d.memory_id ? ` → ${d.memory_id}#${d.revision}` : '', ` (${d.kind}, confidence ${num(d.confidence)})`),
    d.reasons.length ? h('ul', {}, d.reasons.map((r) => h('li', { title: r.code }, r.text))) : null,
    gatesTable(d));
}

async function correct(e) {
  e.preventDefault();
  const m = state.selected;
  const plan = correctionPlan(m);
  if (!plan.ok) { previewCorrection(); return; }
  const text = $('#correct-text').value.trim();
  const candidate = {
    id: `inspector-edit-${m.id}`,
    text,
    scope: m.scope,
    source: { kind: 'user', ref: `inspector:${state.principal.user ?? state.principal.tenant}` },
    kind_hint: m.kind,
    entities: m.entities,
  };
  if (m.kind === 'semantic') {
    Object.assign(candidate, {
      subject: m.payload.subject, predicate: m.payload.predicate,
      object: $('#correct-object').value.trim(), condition: m.payload.condition ?? undefined,
    });
  }
  try {
    const [d] = await api('POST', '/v1/remember', [candidate]);
    $('#decision').replaceChildren(h('h3', {}, 'Decision · ', h('span', { lang: 'zh' }, '决定')), decisionView(d));
    await loadMemories();
    await loadHistory(d.memory_id ?? m.id);
    // Further edits start from what is current now.
    const now = state.memories.find((x) => x.id === m.id && x.status !== 'pending');
    if (now) {
      state.selected = now;
      state.valueEdited = false;
      if (now.kind === 'semantic') $('#correct-object').value = now.payload.object;
      $('#correct-text').value = now.text;
    }
    previewCorrection();
    say(`Correction ${d.disposition}, ${d.action}`);
  } catch (err) { say(`Correction failed: ${err.message}`, true); }
}

// ------------------------------------------------------------------ search

function featureList(f) {
  return h('dl', { class: 'features' }, ['similarity', 'scope', 'freshness', 'authority', 'typefit', 'entity', 'risk', 'embedding']
    .filter((k) => f[k] !== null && f[k] !== undefined)
    .map((k) => [h('dt', {}, k), h('dd', {}, num(f[k]))]));
}

function admissionView(a) {
  return h('dl', { class: 'admission' },
    ['relevance', 'scope_ok', 'time_ok', 'task_applicable', 'conflict', 'safety_risk', 'admit'].map((k) =>
      [h('dt', {}, k), h('dd', {}, typeof a[k] === 'number' ? num(a[k]) : String(a[k]))]),
    a.reason ? [h('dt', {}, 'reason'), h('dd', { title: a.reason.code }, a.reason.text)] : null);
}

function resultView(r, i, admitted) {
  return h('details', { class: `result ${admitted ? 'admitted' : 'refused'}`, 'data-memory-id': r.memory_id },
    h('summary', {},
      h('span', { class: 'score' }, num(r.score, 3)), ' ',
      h('span', { class: `kind ${r.kind}` }, r.kind), ' ',
      h('span', { class: 'memtext' }, r.text), ' ',
      h('span', { class: 'admit' }, admitted ? 'admitted' : `not admitted: ${r.admission.reason?.text ?? ''}`)),
    h('div', { class: 'explain' },
      h('div', {}, h('h4', {}, 'Features · 特征'), featureList(r.features)),
      h('div', {}, h('h4', {}, 'Admission · 准入'), admissionView(r.admission)),
      h('p', { class: 'rev-meta' }, `${r.memory_id}#${r.revision} · ${sourceText(r.source)} · observed ${minute(r.observed_at)}`)));
}

async function search(e) {
  e.preventDefault();
  const query = { id: 'inspector', query: $('#q').value, scope: scope(), k: Number($('#k').value) || 10, explain: true };
  try {
    const [res] = await api('POST', '/v1/recall', [query]);
    $('#results').replaceChildren(
      h('p', { class: 'hint' }, `${res.results.length} results · ${res.candidates_read} candidates read from the store`),
      ...res.results.map((r, i) => resultView(r, i, true)),
      ...(res.not_admitted ?? []).map((r, i) => resultView(r, i, false)));
    say(`${res.results.length} results for “${query.query}”`);
  } catch (err) { say(`Recall failed: ${err.message}`, true); }
}

// ------------------------------------------------------------------ review

async function loadReview() {
  const p = new URLSearchParams({ tenant: state.principal.tenant, status: 'pending' });
  if (state.principal.user) p.set('user', state.principal.user);
  if (state.principal.project) p.set('project', state.principal.project);
  try {
    const pending = await api('GET', `/v1/memories?${p}`);
    $('#pending-count').textContent = pending.length ? String(pending.length) : '';
    $('#review-list').replaceChildren(...(pending.length ? pending.map((m) => h('div', {
      class: `card ${INFERRED.has(m.source.kind) ? 'inferred-row' : ''}`, 'data-id': m.id, 'data-revision': m.revision,
    },
    h('p', {}, h('span', { class: `kind ${m.kind}` }, m.kind), ' ', h('span', { class: 'memtext' }, m.text), ' ', inferredMark(m)),
    h('p', { class: 'rev-meta' }, `${m.id}#${m.revision} · ${sourceText(m.source)} · confidence ${num(m.confidence)} · ${m.sensitivity}`),
    h('div', { class: 'row' },
      h('button', { type: 'button', class: 'approve', onclick: () => review(m, 'approve') }, 'Approve · 批准'),
      h('button', { type: 'button', class: 'reject', onclick: () => review(m, 'reject') }, 'Reject · 拒绝'))))
      : [h('p', { class: 'empty' }, 'Nothing pending · 没有待审核的记忆')]));
  } catch (err) { say(`Loading pending memories failed: ${err.message}`, true); }
}

async function review(m, verdict) {
  const reference = `inspector:${state.principal.user ?? state.principal.tenant}`;
  try {
    const [o] = await api('POST', '/v1/review', [{ id: m.id, revision: m.revision, verdict, reference }]);
    $('#review-outcome').replaceChildren(h('p', { class: `review-result ${verdict}` }, o.reason.text));
    say(o.reason.text);
    await Promise.all([loadMemories(), loadReview()]);
  } catch (err) { say(`Review failed: ${err.message}`, true); }
}

// ------------------------------------------------------------------ forget

function forgetReport(r) {
  const list = (xs) => (xs.length ? xs.join(', ') : 'none');
  return h('dl', { class: 'report' },
    h('dt', {}, 'Deleted · 已删除'), h('dd', { class: 'deleted' }, list(r.deleted)),
    h('dt', {}, 'Cascaded · 级联删除'), h('dd', { class: 'cascaded' }, list(r.cascaded)),
    h('dt', {}, 'Tombstones · 墓碑指纹'), h('dd', { class: 'tombstones' }, String(r.tombstones)));
}

async function forget(selector, where) {
  try {
    const out = await api('POST', '/v1/forget', [selector]);
    const report = Array.isArray(out) ? out[0] : out;
    where.replaceChildren(h('h3', {}, 'Deletion report'), forgetReport(report));
    say(`Forgot ${report.deleted.length} memories (${report.cascaded.length} cascaded), ${report.tombstones} tombstones`);
    await loadMemories();
    return report;
  } catch (err) { say(`Forget failed: ${err.message}`, true); return null; }
}

const TOMBSTONE_NOTE = 'A tombstone is kept: a keyed fingerprint of the content and of its source ' +
  '(not the text itself), so the same content is not learnt again from the same or a derived source. ' +
  'Erasing cannot be undone.';

/** Close a pending confirmation in `where` (as a "no"), if there is one. */
function dismissConfirm(where) {
  if (where.cancelConfirm) where.cancelConfirm();
  where.replaceChildren();
}

/**
 * Ask before erasing: show in `where` what will be erased and wait for the
 * user's answer. Resolves true only when the erase button is pressed;
 * Cancel, Escape or another confirmation in its place resolves false.
 */
function confirmErase(where, title, lines) {
  dismissConfirm(where);
  return new Promise((resolve) => {
    const onKey = (e) => {
      if (e.key !== 'Escape') return;
      e.stopPropagation();
      done(false);
    };
    function done(yes) {
      document.removeEventListener('keydown', onKey, true);
      where.cancelConfirm = null;
      where.replaceChildren();
      resolve(yes);
    }
    const id = `${where.id}-title`;
    const cancel = h('button', { type: 'button', class: 'cancel', onclick: () => done(false) },
      'Cancel · ', h('span', { lang: 'zh' }, '取消'));
    where.replaceChildren(h('div', { class: 'confirm', role: 'alertdialog', 'aria-labelledby': id },
      h('p', { class: 'confirm-title', id }, title),
      h('ul', { class: 'erases' }, lines.map((l) => h('li', {}, l))),
      h('p', { class: 'tombstone-note' }, TOMBSTONE_NOTE),
      h('div', { class: 'row' },
        h('button', { type: 'button', class: 'danger erase', onclick: () => done(true) },
          'Erase for good · ', h('span', { lang: 'zh' }, '确认删除')),
        cancel)));
    where.cancelConfirm = () => done(false);
    document.addEventListener('keydown', onKey, true);
    where.scrollIntoView({ block: 'nearest' });
    cancel.focus();
  });
}

/** The memories on the page a forget selector names (what it will erase). */
function matching(by, value) {
  const v = value.toLowerCase();
  return state.memories.filter((m) => (by === 'memory_id' ? m.id === value
    : by === 'text' ? m.text.toLowerCase().includes(v)
      : m.source.ref === value || (m.source_event_ids ?? []).includes(value)));
}

const quoted = (m) => [h('code', {}, m.id), ` (${m.kind}): “`, h('span', { class: 'memtext' }, m.text), '”'];

async function forgetSubmit(e) {
  e.preventDefault();
  const by = new FormData(e.target).get('by');
  const value = $('#forget-value').value.trim();
  const selector = by === 'memory_id' ? { memory_id: value } : { scope: scope(), [by]: value };
  const what = {
    memory_id: 'the memory', text: 'every memory whose text contains', source_ref: 'everything derived from the source',
  }[by];
  const found = matching(by, value);
  const lines = [
    ...found.map(quoted),
    found.length ? null : 'No memory listed on this page matches.',
    by === 'memory_id' ? null : 'Revisions and memories not listed here (other statuses) are erased too if they match.',
    'Every revision of each, and the memories derived from them (cascaded).',
  ].filter(Boolean);
  const yes = await confirmErase($('#forget-confirm'), `Erase ${what} “${value}”?`, lines);
  if (!yes) { say('Nothing was erased'); return; }
  await forget(selector, $('#forget-report'));
}

async function forgetSelected() {
  const m = state.selected;
  const revisions = document.querySelectorAll('#history li.rev[data-revision]').length || m.revision;
  const yes = await confirmErase($('#detail-confirm'), `Erase ${m.id}?`, [
    quoted(m),
    `${revisions === 1 ? 'Its one revision' : `All ${revisions} revisions`}, and the memories derived from it (cascaded).`,
  ]);
  if (!yes) { say('Nothing was erased'); return; }
  const report = await forget({ memory_id: m.id }, $('#decision'));
  if (report) {
    $('#history').replaceChildren(h('li', { class: 'rev gone' }, `${m.id}: erased, every revision`));
    $('#correct').hidden = true;
  }
}

// ------------------------------------------------------------------ pack

async function pack(e) {
  e.preventDefault();
  const req = {
    budget: Number($('#pack-budget').value), scope: scope(),
    query: $('#pack-query').value, system: $('#pack-system').value,
    messages: [{ role: 'user', text: $('#pack-query').value, priority: 90 }],
  };
  try {
    const p = await api('POST', '/v1/pack', req);
    $('#pack-out').replaceChildren(
      h('p', { class: 'tokens' }, `${p.tokens} of ${p.budget} tokens`),
      h('pre', { class: 'packed' }, p.text),
      h('h3', {}, 'Sections · 分区'),
      h('table', { class: 'grid sections' },
        h('thead', {}, h('tr', {}, h('th', {}, 'Section'), h('th', {}, 'Tokens'), h('th', {}, 'Items'))),
        h('tbody', {}, p.sections.map((s) => h('tr', {}, h('td', {}, s.name), h('td', { class: 'num' }, s.tokens), h('td', {}, s.items.join(', ')))))),
      h('h3', {}, 'Manifest: dropped · 舍弃'),
      h('ul', { class: 'dropped' }, p.dropped.length ? p.dropped.map((d) => h('li', {}, `${d.ref} — ${d.reason}`)) : h('li', {}, 'nothing dropped')),
      h('h3', {}, 'Manifest: compressed · 压缩'),
      h('ul', { class: 'compressed' }, p.compressed.length ? p.compressed.map((c) => h('li', {}, `${c.ref} — ${c.summary}`)) : h('li', {}, 'nothing compressed')));
    say(`Packed ${p.tokens} of ${p.budget} tokens`);
  } catch (err) { say(`Pack failed: ${err.message}`, true); }
}

// ------------------------------------------------------------------ start

async function connect(e) {
  e?.preventDefault();
  state.key = $('#key').value.trim();
  try {
    state.principal = await api('GET', '/inspector/whoami');
    sessionStorage.setItem('engram-key', state.key);
    const p = state.principal;
    $('#principal').textContent = `tenant ${p.tenant}${p.user ? ` · user ${p.user}` : ''}${p.project ? ` · project ${p.project}` : ''}`;
    $('#app').hidden = false;
    $('#tab-memories').focus();
    await loadMemories();
    await loadReview();
  } catch (err) {
    $('#app').hidden = true;
    say(`Could not connect: ${err.message}`, true);
  }
}

function start() {
  setupTabs();
  $('#connect').addEventListener('submit', connect);
  $('#f-status').addEventListener('change', () => loadMemories().catch((err) => say(err.message, true)));
  $('#f-kind').addEventListener('change', renderMemories);
  $('#f-sensitivity').addEventListener('change', renderMemories);
  $('#filters').addEventListener('submit', (e) => e.preventDefault());
  $('#f-text').addEventListener('input', renderMemories);
  $('#search').addEventListener('submit', search);
  $('#correct').addEventListener('submit', correct);
  $('#correct-text').addEventListener('input', correctTextInput);
  $('#correct-object').addEventListener('input', correctValueInput);
  $('#detail-forget').addEventListener('click', forgetSelected);
  $('#detail-close').addEventListener('click', closeDetail);
  $('#forget-form').addEventListener('submit', forgetSubmit);
  $('#pack').addEventListener('submit', pack);
  document.addEventListener('keydown', (e) => { if (e.key === 'Escape') closeDetail(); });
  const saved = sessionStorage.getItem('engram-key');
  if (saved) { $('#key').value = saved; connect(); }
}

start();
