/** The delivery view against the real engine: failure reasons first, stages, destinations, run details, states. */
import { flushPromises } from '@vue/test-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { nextTick } from 'vue';
import { lateness } from '../../../../renderer/src/lib/schedule';
import { type RpcClient, RpcError } from '../../../../shared/rpc';
import type { DatasetRecord, DeliveryEvent, TasksRecord } from '../../../../shared/schemas';
import { STAGES } from '../../../../shared/status';
import { ENGINE_ORG, type EngineClient, engineClient } from '../../../helpers/engineClient';
import { type MountedView, countCalls, mountView } from './mountView';
// Loaded with the file, not inside the first test: the router imports it lazily, and its first
// transform (naive-ui included) takes seconds.
import '../../../../renderer/src/views/DeliveryView.vue';

let engine: EngineClient;
let view: MountedView | null = null;

beforeEach(async () => {
  engine = await engineClient();
});
afterEach(async () => {
  view?.wrapper.unmount();
  view = null;
  await engine.close();
});

/** A FAILED dataset (its latest delivery has tasks) and the record. */
async function failedDataset(): Promise<DatasetRecord> {
  const page = await engine.client.call('datasets.rows', {
    orgId: ENGINE_ORG,
    filters: ['deliveryStatus.eq.FAILED'],
    search: '',
    sort: '',
    pageToken: null,
    pageSize: 1,
  });
  return (await engine.client.call('dataset.get', {
    orgId: ENGINE_ORG,
    datasetId: page.rows[0]!.datasetId,
  }))!;
}

async function tasksOf(deliveryId: string, includeRunDetails = false): Promise<TasksRecord> {
  const answer = await engine.client.call('delivery.tasks', {
    orgId: ENGINE_ORG,
    deliveryId,
    includeRunDetails,
  });
  return answer.tasks!;
}

const at = (dataset: DatasetRecord, deliveryId: string) => ({
  name: 'delivery',
  params: { orgId: ENGINE_ORG, datasetId: dataset.datasetId, deliveryId },
});

async function open(dataset: DatasetRecord, event: DeliveryEvent, client: RpcClient = engine.client) {
  view = await mountView(client, at(dataset, event.deliveryId!));
  await vi.waitFor(() => expect(view!.wrapper.find('h1').exists()).toBe(true));
  return view;
}

const failuresSection = (mounted: MountedView) =>
  mounted.wrapper.find('section[aria-label="Failure reasons"]');
const stageSection = (mounted: MountedView, stage: string) =>
  mounted.wrapper.get(`section[data-stage="${stage}"]`);
const runDetailsSwitch = (mounted: MountedView) => mounted.wrapper.get('[role="switch"]');

// Real engine and naive-ui: a first render on a slow machine can take seconds.
describe('DeliveryView', { timeout: 15_000 }, () => {
  it('puts every failed task first, as an alert with its stage, code, message, details and task', async () => {
    const dataset = await failedDataset();
    const event = dataset.deliveryEventList[0]!;
    const tasks = await tasksOf(event.deliveryId!);
    const failed = STAGES.flatMap((stage) =>
      tasks[stage].tasks.filter((task) => task.status === 'FAILED').map((task) => ({ stage, task })),
    );
    expect(failed.length).toBeGreaterThan(0);

    const mounted = await open(dataset, event);
    const alerts = failuresSection(mounted).findAll('[role="alert"]');
    expect(alerts).toHaveLength(failed.length);
    failed.forEach(({ stage, task }, index) => {
      const alert = alerts[index]!;
      const stageName = stage.charAt(0).toUpperCase() + stage.slice(1);
      expect(alert.get('.n-alert-body__title').text()).toBe(`${stageName} failed: ${task.shortCode}`);
      expect(alert.text()).toContain(task.message);
      expect(alert.text()).toContain(task.codeDetails);
      expect(alert.text()).toContain(task.taskName);
      expect(alert.text()).toContain(task.taskId);
    });
    // Before the stages in the page: the first thing read after the title.
    const failures = failuresSection(mounted).element;
    const firstStage = stageSection(mounted, 'ingest').element;
    expect(failures.compareDocumentPosition(firstStage) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });

  it('shows the four stages in order with their status and a table of their tasks', async () => {
    const dataset = await failedDataset();
    const event = dataset.deliveryEventList[0]!;
    const tasks = await tasksOf(event.deliveryId!);
    const mounted = await open(dataset, event);

    const order = mounted.wrapper.findAll('section[data-stage]').map((s) => s.attributes('data-stage'));
    expect(order).toEqual([...STAGES]);
    for (const stage of STAGES) {
      const section = stageSection(mounted, stage);
      expect(section.get('h3 + [data-status]').attributes('data-status')).toBe(tasks[stage].status);
      const rows = section.findAll('tbody tr');
      expect(rows).toHaveLength(tasks[stage].tasks.length);
      tasks[stage].tasks.forEach((task, index) => {
        expect(rows[index]!.text()).toContain(task.taskName);
        expect(rows[index]!.get('[data-status]').attributes('data-status')).toBe(task.status);
        if (task.shortCode) expect(rows[index]!.text()).toContain(task.shortCode);
      });
    }
  });

  it('lists the dispatch destinations, and shows the identifiers and the way back to the dataset', async () => {
    const dataset = await failedDataset();
    const event = dataset.deliveryEventList[0]!;
    const tasks = await tasksOf(event.deliveryId!);
    const mounted = await open(dataset, event);

    const rows = mounted.wrapper.get('section[aria-labelledby="destinations-title"]').findAll('tbody tr');
    expect(rows).toHaveLength(tasks.dispatch.tasks.length);
    tasks.dispatch.tasks.forEach(({ details }, index) => {
      const cells = rows[index]!.findAll('td').map((cell) => cell.text());
      expect(cells.slice(0, 4)).toEqual([
        details.destinationName,
        details.destinationType,
        details.destinationId,
        details.subscriberOrgId,
      ]);
    });

    expect(mounted.wrapper.get('h1').text()).toBe(`Delivery ${event.deliveryId}`);
    for (const label of ['Delivery ID', 'Dataset ID']) {
      expect(mounted.wrapper.find(`button[aria-label="Copy ${label}"]`).exists()).toBe(true);
    }
    const back = mounted.wrapper.get('a.back');
    expect(back.text()).toContain(dataset.datasetName);
    expect(back.attributes('href')).toBe(`/orgs/${ENGINE_ORG}/datasets/${dataset.datasetId}`);
    const summary = mounted.wrapper.get('section[aria-label="Delivery summary"]');
    expect(summary.get('[data-status]').attributes('data-status')).toBe(event.status);
    expect(summary.get('[data-lateness]').text()).toBe('not delivered');
  });

  it('"Show run details" fetches the tasks with their run ids and shows the runs of each stage', async () => {
    const dataset = await failedDataset();
    const event = dataset.deliveryEventList[0]!;
    const withRuns = await tasksOf(event.deliveryId!, true);
    const mounted = await open(dataset, event);
    const lastTasksCall = () =>
      engine.calls.filter((c) => c.name === 'delivery.tasks').at(-1)!.request as {
        includeRunDetails: boolean;
      };

    expect(lastTasksCall().includeRunDetails).toBe(false);
    expect(stageSection(mounted, 'ingest').text()).not.toContain('Run ID');
    expect(mounted.wrapper.find('section[aria-labelledby="runs-title"]').exists()).toBe(false);

    expect(runDetailsSwitch(mounted).attributes('aria-labelledby')).toBe('run-details-label');
    expect(mounted.wrapper.get('#run-details-label').text()).toBe('Show run details');
    await runDetailsSwitch(mounted).trigger('click');
    await vi.waitFor(() => expect(lastTasksCall().includeRunDetails).toBe(true));
    const runId = withRuns.ingest.tasks[0]!.details.runId!;
    await vi.waitFor(() => expect(stageSection(mounted, 'ingest').text()).toContain(runId));
    expect(stageSection(mounted, 'ingest').text()).toContain('Run ID');

    const runs = mounted.wrapper.get('section[aria-labelledby="runs-title"]').findAll('tbody tr');
    expect(runs.map((row) => row.attributes('data-stage'))).toEqual(
      event.runDetails!.map((run) => run.stage),
    );
    event.runDetails!.forEach((run, index) => {
      expect(runs[index]!.text()).toContain(run.runId ?? '—');
      expect(runs[index]!.get('[data-status]').attributes('data-status')).toBe(run.status);
    });
  });

  it('explains tasks that are not stored yet, and still shows what the history knows', async () => {
    const dataset = await failedDataset();
    const late = dataset.deliveryEventList.find((e) => e.status === 'DELIVERED_LATE')!;
    expect(
      (
        await engine.client.call('delivery.tasks', {
          orgId: ENGINE_ORG,
          deliveryId: late.deliveryId!,
          includeRunDetails: false,
        })
      ).missing,
    ).toBe('tasks-not-synced');

    const mounted = await open(dataset, late);
    expect(mounted.wrapper.text()).toContain(
      'Tasks of this delivery are not stored yet and the remote could not be asked now; they are fetched at the next sync.',
    );
    expect(failuresSection(mounted).exists()).toBe(false);
    expect(mounted.wrapper.find('section[data-stage]').exists()).toBe(false);
    const summary = mounted.wrapper.get('section[aria-label="Delivery summary"]');
    expect(summary.get('[data-status]').attributes('data-status')).toBe('DELIVERED_LATE');
    expect(summary.get('[data-lateness]').text()).toBe(lateness(late.deliveryDeadline, late.deliveredAt));
    expect(summary.get('[data-lateness]').text()).toMatch(/ late$/);
  });

  it('says plainly when the delivery does not exist, with a way back to the dataset', async () => {
    const dataset = await failedDataset();
    view = await mountView(engine.client, at(dataset, 'dlv-nope'));
    await vi.waitFor(() =>
      expect(view!.wrapper.text()).toContain(`No delivery dlv-nope in org ${ENGINE_ORG}`),
    );
    const back = view.wrapper.findAll('a').find((a) => a.text() === 'Back to the dataset')!;
    expect(back.attributes('href')).toBe(`/orgs/${ENGINE_ORG}/datasets/${dataset.datasetId}`);
  });

  it('shows why loading failed, and Retry loads again', async () => {
    const dataset = await failedDataset();
    const event = dataset.deliveryEventList[0]!;
    let failing = true;
    const flaky: RpcClient = {
      on: engine.client.on,
      call: (name, request) =>
        failing && name === 'delivery.tasks'
          ? Promise.reject(new RpcError('unavailable', 'The engine is not running.'))
          : engine.client.call(name, request),
    };
    view = await mountView(flaky, at(dataset, event.deliveryId!));
    await vi.waitFor(() => expect(view!.wrapper.text()).toContain('The engine is not running.'));
    expect(view.wrapper.text()).toContain('The delivery could not be loaded');
    failing = false;
    await view.wrapper
      .findAll('button')
      .find((b) => b.text() === 'Retry')!
      .trigger('click');
    await vi.waitFor(() => expect(view!.wrapper.find('h1').text()).toBe(`Delivery ${event.deliveryId}`));
  });

  it('loads the other delivery when the route changes, and reloads quietly after a sync', async () => {
    const dataset = await failedDataset();
    const [newest, ...older] = dataset.deliveryEventList.filter((e) => e.status === 'FAILED');
    const other = older[0]!;
    const mounted = await open(dataset, newest!);

    await mounted.router.push(at(dataset, other.deliveryId!));
    await vi.waitFor(() => expect(mounted.wrapper.get('h1').text()).toBe(`Delivery ${other.deliveryId}`));
    const otherTasks = await tasksOf(other.deliveryId!);
    const failedCodes = STAGES.flatMap((s) => otherTasks[s].tasks.filter((t) => t.status === 'FAILED')).map(
      (t) => t.shortCode,
    );
    const titles = failuresSection(mounted)
      .findAll('.n-alert-body__title')
      .map((t) => t.text());
    expect(titles.map((title) => title.split(': ')[1])).toEqual(failedCodes);

    const loads = countCalls(engine.calls, 'delivery.tasks');
    mounted.syncChanged(ENGINE_ORG);
    await nextTick();
    expect(mounted.wrapper.find('.n-spin-body').exists()).toBe(false);
    expect(mounted.wrapper.get('h1').text()).toBe(`Delivery ${other.deliveryId}`);
    await flushPromises();
    await vi.waitFor(() => expect(countCalls(engine.calls, 'delivery.tasks')).toBe(loads + 1));
  });
});
