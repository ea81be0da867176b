/**
 * Which rule decides an event: each match field, each event, first match wins, disabled rules skipped,
 * and the default set deciding as the app did before rules.
 */
import { describe, expect, it } from 'vitest';
import { type Rule, type RuleEvent, defaultRuleSet } from '../../../shared/rules';
import { ruleOf } from '../../helpers/rules';
import { RuleMatcher, type RuleSubject, namePattern } from '../../../electron/rules/match';

const subject = (event: RuleEvent, fields: Partial<RuleSubject> = {}): RuleSubject => ({
  event,
  lateMinutes: null,
  datasetId: 'ds-1',
  datasetName: 'FX rates EOD',
  supplierId: 'sup-bbg',
  supplierName: 'Bloomberg',
  dataProductId: 'dp-fx',
  dataProductName: 'FX',
  stage: null,
  shortCode: null,
  ...fields,
});

const rule = ruleOf;

const decide = (rules: Rule[], event: RuleSubject): string | null =>
  new RuleMatcher(rules).decide(event)?.id ?? null;

describe('a rule matches', () => {
  const cases: { name: string; rule: Partial<Rule>; event: RuleSubject; matches: boolean }[] = [
    { name: 'its event', rule: { event: 'missing' }, event: subject('missing'), matches: true },
    { name: 'not another event', rule: { event: 'missing' }, event: subject('failed'), matches: false },
    {
      name: 'a supplier by id',
      rule: { match: { suppliers: ['SUP-BBG'] } },
      event: subject('failed'),
      matches: true,
    },
    {
      name: 'a supplier by name',
      rule: { match: { suppliers: ['bloomberg'] } },
      event: subject('failed'),
      matches: true,
    },
    {
      name: 'not another supplier',
      rule: { match: { suppliers: ['Refinitiv'] } },
      event: subject('failed'),
      matches: false,
    },
    {
      name: 'no supplier when the dataset has none',
      rule: { match: { suppliers: ['Bloomberg'] } },
      event: subject('failed', { supplierId: null, supplierName: null }),
      matches: false,
    },
    {
      name: 'a data product by id or name',
      rule: { match: { dataProducts: ['x', 'fx'] } },
      event: subject('failed'),
      matches: true,
    },
    {
      name: 'not another data product',
      rule: { match: { dataProducts: ['Rates'] } },
      event: subject('failed'),
      matches: false,
    },
    {
      name: 'a dataset by id',
      rule: { match: { datasets: ['ds-1'] } },
      event: subject('failed'),
      matches: true,
    },
    {
      name: 'a dataset by name pattern',
      rule: { match: { datasets: ['fx *'] } },
      event: subject('failed'),
      matches: true,
    },
    {
      name: 'a pattern with ?',
      rule: { match: { datasets: ['FX rates EO?'] } },
      event: subject('failed'),
      matches: true,
    },
    {
      name: 'a pattern matches the whole name',
      rule: { match: { datasets: ['rates'] } },
      event: subject('failed'),
      matches: false,
    },
    {
      name: 'a failed stage',
      rule: { match: { causes: [{ stage: 'normalize' }] } },
      event: subject('failed', { stage: 'normalize', shortCode: 'E_SCHEMA' }),
      matches: true,
    },
    {
      name: 'a shortCode',
      rule: { match: { causes: [{ shortCode: 'e_schema' }] } },
      event: subject('failed', { stage: 'normalize', shortCode: 'E_SCHEMA' }),
      matches: true,
    },
    {
      name: 'stage and shortCode together',
      rule: { match: { causes: [{ stage: 'ingest', shortCode: 'E_SCHEMA' }] } },
      event: subject('failed', { stage: 'normalize', shortCode: 'E_SCHEMA' }),
      matches: false,
    },
    {
      name: 'no cause while tasks are unknown',
      rule: { match: { causes: [{ stage: 'ingest' }] } },
      event: subject('failed'),
      matches: false,
    },
    {
      name: 'late by more than N',
      rule: { event: 'late', lateByMinutes: 30 },
      event: subject('late', { lateMinutes: 31 }),
      matches: true,
    },
    {
      name: 'not late by exactly N',
      rule: { event: 'late', lateByMinutes: 30 },
      event: subject('late', { lateMinutes: 30 }),
      matches: false,
    },
    { name: 'recovered', rule: { event: 'recovered' }, event: subject('recovered'), matches: true },
    {
      name: 'lost contact, about no dataset',
      rule: { event: 'contact-lost' },
      event: subject('contact-lost', {
        datasetId: null,
        datasetName: null,
        supplierId: null,
        supplierName: null,
      }),
      matches: true,
    },
    {
      name: 'every field given, all fitting',
      rule: { match: { suppliers: ['Bloomberg'], dataProducts: ['FX'], datasets: ['FX*'] } },
      event: subject('failed'),
      matches: true,
    },
    {
      name: 'every field given, one not fitting',
      rule: { match: { suppliers: ['Bloomberg'], dataProducts: ['Rates'], datasets: ['FX*'] } },
      event: subject('failed'),
      matches: false,
    },
  ];
  it.each(cases)('$name', ({ rule: fields, event, matches }) => {
    expect(decide([rule('r', fields)], event)).toBe(matches ? 'r' : null);
  });
});

describe('the rule that decides', () => {
  it('is the first that matches, in the order of the list', () => {
    const rules = [
      rule('noisy', { match: { suppliers: ['Bloomberg'] }, action: 'timeline', routes: [] }),
      rule('all', {}),
    ];
    expect(decide(rules, subject('failed'))).toBe('noisy');
    expect(decide(rules, subject('failed', { supplierId: 'other', supplierName: 'Other' }))).toBe('all');
    expect(decide([...rules].reverse(), subject('failed'))).toBe('all');
  });

  it('is never a disabled rule', () => {
    expect(decide([rule('off', { enabled: false }), rule('on', {})], subject('failed'))).toBe('on');
    expect(decide([rule('off', { enabled: false })], subject('failed'))).toBeNull();
  });

  it('of the default set: failures and lost contact told in the tray, recoveries only when asked, nothing else', () => {
    for (const recoveryNotices of [false, true]) {
      const { rules, routes } = defaultRuleSet({ recoveryNotices });
      expect(routes).toEqual([]);
      const matcher = new RuleMatcher(rules);
      const told = (event: RuleSubject) => {
        const decided = matcher.decide(event);
        return decided ? `${decided.action}:${decided.routes.join(',')}` : null;
      };
      expect(told(subject('failed'))).toBe('notify:tray');
      expect(told(subject('contact-lost'))).toBe('notify:tray');
      expect(told(subject('recovered'))).toBe(recoveryNotices ? 'notify:tray' : null);
      expect(told(subject('missing'))).toBeNull();
      expect(told(subject('late', { lateMinutes: 600 }))).toBeNull();
    }
  });
});

describe('a name pattern', () => {
  it('answers at once however many stars it has (no backtracking blow-up)', () => {
    // As a regular expression this pattern does not finish on that name within the test's timeout.
    const pattern = namePattern(`${'*a'.repeat(40)}*b`);
    expect(pattern.test('a'.repeat(5000))).toBe(false);
    expect(pattern.test(`${'a'.repeat(60)}b`)).toBe(true);
  });

  it('matches case aside, ? as one character, * as any run, the whole name', () => {
    expect(namePattern('fx*EOD').test('FX rates eod')).toBe(true);
    expect(namePattern('fx?').test('fx')).toBe(false);
    expect(namePattern('fx?').test('fx1')).toBe(true);
    expect(namePattern('*').test('')).toBe(true);
    expect(namePattern('a*').test('ba')).toBe(false);
  });

  it('takes regular-expression characters as written', () => {
    expect(namePattern('a.b (x)+').test('a.b (x)+')).toBe(true);
    expect(namePattern('a.b').test('axb')).toBe(false);
    expect(namePattern('prices/*').test('prices/eod/us')).toBe(true);
  });
});
