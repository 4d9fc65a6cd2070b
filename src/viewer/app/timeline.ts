/* revloop view: one trajectory as a story — the case and its prompt, then every round: the draft
   with a word diff against the previous one, the exact verifier report the model received, the
   recurrence markers (repeat of an earlier draft, inside the terminal fixed point or cycle) and
   every provider attempt of that generation, failed ones with their kind, latency and tokens. */
import type { AttemptRow, TimelineRound, TrajectoryResponse } from '../api.ts';
import { draftPane } from '../../html/client/word-diff.ts';
import { caseIdNode, el, energyText, energyTitle, modelCell, NO_LABELS, num, outcomeBadge, type Child, type Labels } from './dom.ts';

const REPEAT_TEXT: Record<string, string> = {
  terminal_fixed_point: 'terminal fixed point: the last three drafts are identical',
  terminal_cycle: 'terminal cycle',
  other_repeat: 'some draft repeats an earlier one (no terminal fixed point or cycle)',
  no_repeat: 'no draft repeats an earlier one',
};

function tokens(a: AttemptRow): string {
  const parts: string[] = [];
  if (a.prompt_tokens != null) parts.push(`${a.prompt_tokens} in`);
  if (a.completion_tokens != null) parts.push(`${a.completion_tokens} out`);
  if (!parts.length && a.total_tokens != null) parts.push(`${a.total_tokens} total`);
  return parts.length ? parts.join(' / ') + ' tokens' : 'tokens n/a';
}

function attemptsList(attempts: AttemptRow[]): HTMLElement | null {
  if (!attempts.length) return null;
  const failed = attempts.filter((a) => !a.ok).length;
  return el('details', { className: 'attempts' + (failed ? ' has-failed' : ''), open: failed > 0 }, [
    el('summary', { text: `Provider attempts: ${attempts.length}${failed ? ` (${failed} failed)` : ''}` }),
    el(
      'ol',
      null,
      attempts.map((a) =>
        el('li', { className: a.ok ? 'ok' : 'failed', 'data-kind': a.error_kind || null }, [
          el('span', { className: 'badge ' + (a.ok ? 'ok' : 'bad'), text: a.ok ? 'ok' : `failed: ${a.error_kind || 'error'}` }),
          ` attempt ${a.attempt} \u00b7 ${num(a.latency_ms, 0)} ms \u00b7 ${tokens(a)}`,
          a.status != null ? ` \u00b7 HTTP ${a.status}` : null,
          a.finish_reason ? ` \u00b7 finish ${a.finish_reason}` : null,
          a.error ? el('div', { className: 'attempt-error', text: a.error }) : null,
        ]),
      ),
    ),
  ]);
}

function draft(t: TrajectoryResponse, k: number): HTMLElement {
  const r = t.rounds[k];
  const prev = k > 0 ? t.rounds[k - 1] : null;
  return draftPane({ text: r.text, prev: prev && { text: prev.text, revision: prev.revision }, diff: r.diff, imported: t.imported });
}

function reportPane(t: TrajectoryResponse, r: TimelineRound): HTMLElement {
  if (r.joint)
    return el('div', { className: 'pane' }, [
      el('div', { className: 'pane-title', text: 'Verifier' }),
      el('p', { text: 'Joint success: every constraint holds. The loop stops here.' }),
    ]);
  if (r.report == null)
    return el('div', { className: 'pane' }, [
      el('div', { className: 'pane-title', text: 'Verifier report' }),
      el('p', { className: 'empty', text: r.report_error || 'not available' }),
    ]);
  // An import's reports were never sent by revloop: they are its rendering of the stored state.
  if (t.imported)
    return el('div', { className: 'pane' }, [
      el('div', {
        className: 'pane-title',
        text: 'Verifier report \u2014 revloop\u2019s rendering of this state (imported: not sent by revloop)',
      }),
      el('pre', { className: 'feedback unsent', text: r.report }),
    ]);
  const how = r.report_source === 'recorded' ? 'exactly as recorded' : 'rendered from the stored state';
  return el('div', { className: 'pane' }, [
    el('div', {
      className: 'pane-title',
      text: r.report_sent ? `Verifier report \u2014 sent to the model (${how})` : `Verifier report \u2014 not sent (${how})`,
    }),
    el('pre', { className: 'feedback' + (r.report_sent ? '' : ' unsent'), text: r.report }),
  ]);
}

/** The sequence of states as letters (A B A B …): a fixed point or cycle is visible at a glance. */
function stateStrip(t: TrajectoryResponse): HTMLElement {
  const letter = (id: number) => (id < 26 ? String.fromCharCode(65 + id) : `S${id}`);
  return el(
    'ol',
    { className: 'states', 'aria-label': 'draft states in order (equal letters: identical drafts)' },
    t.rounds.map((r) =>
      el('li', { className: (r.joint ? 'joint ' : '') + (r.in_terminal_repeat ? 'terminal' : ''), title: `revision ${r.revision}` }, [
        el('span', { className: 'rev', text: `r${r.revision}` }),
        el('span', { className: 'state', text: letter(r.state_id) }),
      ]),
    ),
  );
}

/**
 * The timeline element of a trajectory (the /api/runs/:id/trajectories/:case response).
 * options.labels: display names; options.heading: extra heading content (compare).
 */
export function timeline(t: TrajectoryResponse, options?: { labels?: Labels | null }): HTMLElement {
  const labels = options?.labels || NO_LABELS;
  const rc = t.recurrence.repeat_class;
  const facts: Array<[string, string | HTMLElement]> = [
    ['run', t.run_id],
    ['family', t.family],
    ['source', t.source],
    ['outcome', outcomeBadge(t.label.outcome, labels)],
    ['status', t.status + (t.incomplete_reason ? `: ${t.incomplete_reason}` : '')],
    ['revisions used', `${Math.max(0, t.rounds.length - 1)} of ${t.budget}`],
  ];
  if (rc) facts.push(['repeat class', labels.repeat?.[rc] || rc]);
  if (t.label.category) facts.push(['failure category', labels.category?.[t.label.category] || t.label.category]);
  if (typeof t.case.target === 'number') facts.push(['target words', String(t.case.target)]);
  if (Array.isArray(t.case.anchors)) facts.push(['anchors', (t.case.anchors as unknown[]).join('; ')]);
  const failedAttempts = t.attempts.filter((a) => !a.ok).length;
  facts.push(['provider attempts', `${t.attempts.length}${failedAttempts ? ` (${failedAttempts} failed)` : ''}`]);
  const dl = el('dl', { className: 'facts' });
  for (const [k, v] of facts) dl.append(el('dt', { text: k }), typeof v === 'string' ? el('dd', { text: v }) : el('dd', null, [v]));

  const parts: Child[] = [
    el('h3', { className: 'timeline-title' }, ['Case ', caseIdNode(t.case_id), ' \u00b7 ', ...modelCell(t.controller, t.simulated)]),
  ];
  if (t.simulated)
    parts.push(
      el('p', { className: 'note sim-note' }, [
        el('span', { className: 'badge sim', text: 'SIMULATED' }),
        ' These drafts come from a simulated controller, not a language model.',
      ]),
    );
  if (t.imported)
    parts.push(
      el('p', { className: 'note import-note' }, [
        el('span', { className: 'badge neutral', text: 'IMPORTED' }),
        ` Imported trajectory (${t.import_format || 'import'}): its drafts are as logged by its source. revloop verified them and sent nothing to any model; the prompt and verifier reports below are revloop\u2019s renderings for this case and these states, not a record of what the source sent.`,
      ]),
    );
  parts.push(dl);
  if (rc === 'terminal_cycle' || rc === 'terminal_fixed_point') {
    parts.push(
      el('p', { className: 'recurrence', 'data-repeat': rc }, [
        el('strong', { text: rc === 'terminal_cycle' ? `Terminal cycle of period ${t.recurrence.cycle_period}` : 'Terminal fixed point' }),
        ': ',
        rc === 'terminal_cycle'
          ? `the last ${t.recurrence.cycle_period} drafts repeat the ${t.recurrence.cycle_period} before them byte for byte (marked below).`
          : 'the last three drafts are identical (marked below).',
      ]),
    );
  } else if (rc) parts.push(el('p', { className: 'recurrence', 'data-repeat': rc, text: REPEAT_TEXT[rc] || rc }));
  if (t.rounds.length) parts.push(stateStrip(t));
  if (t.prompt != null)
    parts.push(
      el('details', { className: 'more' }, [
        el('summary', {
          text: t.imported
            ? 'Initial prompt (revloop\u2019s rendering of this case; imported run: not sent by revloop)'
            : 'Initial prompt (exactly as sent)',
        }),
        el('pre', { className: 'prompt', text: t.prompt }),
      ]),
    );
  else if (t.prompt_error) parts.push(el('p', { className: 'note', text: t.prompt_error }));

  const byRevision = new Map<number, AttemptRow[]>();
  for (const a of t.attempts) {
    const key = a.revision == null ? -1 : a.revision;
    if (!byRevision.has(key)) byRevision.set(key, []);
    byRevision.get(key)!.push(a);
  }
  t.rounds.forEach((r, k) => {
    const badges = [
      el('strong', { text: `Revision ${r.revision}` }),
      r.joint ? el('span', { className: 'badge ok', text: 'joint success' }) : el('span', { className: 'badge bad', text: 'violations' }),
      el('span', { className: 'muted', text: `energy ${energyText(r.energy)}`, title: energyTitle(r.energy) }),
    ];
    if (r.repeat_of != null) badges.push(el('span', { className: 'badge neutral repeat', text: `repeats revision ${r.repeat_of}` }));
    if (r.in_terminal_repeat)
      badges.push(
        el('span', {
          className: 'badge cycle',
          text: rc === 'terminal_cycle' ? `in terminal cycle (p = ${t.recurrence.cycle_period})` : 'in terminal fixed point',
        }),
      );
    parts.push(
      el('div', { className: 'round' + (r.in_terminal_repeat ? ' terminal' : ''), 'data-revision': r.revision }, [
        el('div', { className: 'round-head' }, badges),
        el('div', { className: 'cols' }, [draft(t, k), reportPane(t, r)]),
        attemptsList(byRevision.get(r.revision) || []),
      ]),
    );
  });
  // Generations that never produced a draft (a protocol-incomplete end, or attempts in flight).
  const lastRevision = t.rounds.length ? t.rounds[t.rounds.length - 1].revision : -1;
  for (const [rev, list] of byRevision) {
    if (rev <= lastRevision && rev !== -1) continue;
    parts.push(
      el('div', { className: 'round no-draft', 'data-revision': rev }, [
        el('div', { className: 'round-head' }, [
          el('strong', { text: `Revision ${rev}` }),
          el('span', { className: 'badge bad', text: 'no draft accepted' }),
        ]),
        attemptsList(list),
      ]),
    );
  }
  if (!t.rounds.length && !t.attempts.length)
    parts.push(el('p', { className: 'empty', text: 'Nothing recorded yet for this trajectory.' }));
  return el('article', { className: 'timeline', 'data-case': t.case_id, 'data-run': t.run_id }, parts);
}
