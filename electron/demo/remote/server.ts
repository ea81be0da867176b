/** Listens with the simulator app on 127.0.0.1 (the app itself never listens) and closes it. */
import type { AddressInfo } from 'node:net';
import type { SimClock } from './clock';
import { type RequestLogEntry, type SimulatorOptions, buildSimulatorApp } from './app';
import type { FaultQueue } from './faults';
import type { SimulatedOrg } from './org';

export interface RemoteSimulator {
  url: string;
  port: number;
  org: SimulatedOrg;
  clock: SimClock;
  faults: FaultQueue;
  requests: RequestLogEntry[];
  /** Stops listening; requests held by a `hang` fault are dropped, not waited for. */
  close(): Promise<void>;
}

export async function startRemoteSimulator(
  options: SimulatorOptions & { port: number },
): Promise<RemoteSimulator> {
  const app = buildSimulatorApp(options);
  try {
    await app.listen({ host: '127.0.0.1', port: options.port });
  } catch (error) {
    await app.close();
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new Error(`port ${options.port} is in use on 127.0.0.1; pass --port 0 to pick a free one`);
    throw error;
  }
  const { port } = app.server.address() as AddressInfo;
  const { org, clock, faults, requests } = app.simulator;
  return { url: `http://127.0.0.1:${port}`, port, org, clock, faults, requests, close: () => app.close() };
}
