/**
 * Sources in the settings window: list, save (the API key write-only, sealed by the app's secret keeper;
 * headless, keys come from the environment), remove, and "Test connection" against the remote itself.
 */
import { type RpcHandlers, RpcError, type RpcRequest } from '../../shared/rpc';
import { type SourceView } from '../../shared/views';
import type { Store } from '../store/database';
import {
  type Source,
  SourceError,
  getSource,
  listSources,
  normalizeBaseUrl,
  removeSource,
  saveSource,
} from '../store/tables/sources';
import { type FetchLike, RemoteClient, RemoteError } from '../sync/client';
import { REMOTE_PATHS } from '../sync/remote';
import type { SecretKeeper } from '../sync/secrets';

export interface SourceDeps {
  store: Store;
  secrets: SecretKeeper;
  now: () => Date;
  fetch?: FetchLike;
  reloadSync(): Promise<void>;
}

/** "Test connection" answers while the user waits: one try, no retries, ten seconds at most. */
const TEST_TIMEOUT_MS = 10_000;

/** The last four characters of a key, enough to tell which one is stored; short keys show nothing. */
export function maskKey(key: string | null): string | null {
  if (key === null) return null;
  return key.length >= 12 ? `…${key.slice(-4)}` : '…';
}

function view(source: Source, secrets: SecretKeeper): SourceView {
  const key = secrets.apiKeyFor(source);
  return {
    id: source.id,
    orgId: source.orgId,
    name: source.name,
    baseUrl: source.baseUrl,
    enabled: source.enabled,
    hasKey: key !== null,
    keyHint: maskKey(key),
    createdAt: source.createdAt,
  };
}

/** A source id from its name: lower-case letters, digits and dashes, unique among the sources. */
function newSourceId(store: Store, name: string): string {
  const base =
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 48) || 'source';
  let id = base;
  for (let n = 2; getSource(store, id); n += 1) id = `${base}-${n}`;
  return id;
}

type SourceInput = RpcRequest<'sources.save'>;

export function sourceHandlers(
  deps: SourceDeps,
): Pick<RpcHandlers, 'sources.list' | 'sources.save' | 'sources.remove' | 'sources.test'> {
  const { store, secrets } = deps;
  const idle = <T>(fn: () => T): Promise<T> => store.whenIdle(fn);

  const sealedKey = (input: SourceInput): string | null => {
    if (input.apiKey === null) return null;
    if (!secrets.seal) {
      throw new RpcError('invalid-argument', `API keys cannot be stored here: ${secrets.hint}, then restart`);
    }
    return secrets.seal(input.apiKey);
  };

  /**
   * The stored key goes only to the address it was given for: a changed base URL needs the key again,
   * or a typo'd or hostile URL would receive it.
   */
  const assertKeyStaysHome = (stored: Source | undefined, baseUrl: string, apiKey: string | null): void => {
    if (
      stored &&
      apiKey === null &&
      normalizeBaseUrl(baseUrl) !== stored.baseUrl &&
      secrets.apiKeyFor(stored)
    ) {
      throw new RpcError(
        'invalid-argument',
        `the address changed from ${stored.baseUrl}: enter the API key again, so it is only sent where you mean`,
      );
    }
  };

  return {
    'sources.list': () => idle(() => listSources(store).map((source) => view(source, secrets))),
    'sources.save': async (input) => {
      const saved = await idle(() => {
        const stored = input.id === null ? undefined : getSource(store, input.id);
        if (input.id !== null && !stored) throw new RpcError('not-found', `no source '${input.id}'`);
        assertKeyStaysHome(stored, input.baseUrl, input.apiKey);
        return saveSource(
          store,
          {
            id: input.id ?? newSourceId(store, input.name),
            orgId: input.orgId,
            name: input.name,
            baseUrl: input.baseUrl,
            enabled: input.enabled,
            apiKeySealed: sealedKey(input),
          },
          deps.now(),
        );
      });
      await deps.reloadSync();
      return view(saved, secrets);
    },
    'sources.remove': async ({ id }) => {
      const removed = await idle(() => removeSource(store, id));
      if (removed) await deps.reloadSync();
      return { removed };
    },
    'sources.test': async (input) => {
      const baseUrl = normalizeBaseUrl(input.baseUrl);
      const stored = input.id === null ? undefined : await idle(() => getSource(store, input.id!));
      assertKeyStaysHome(stored, baseUrl, input.apiKey);
      const apiKey = input.apiKey ?? (stored ? secrets.apiKeyFor(stored) : null);
      if (apiKey === null) return { ok: false, message: `no API key: enter one (${secrets.hint})` };
      const client = new RemoteClient({
        baseUrl,
        apiKey,
        fetch: deps.fetch,
        timeoutMs: TEST_TIMEOUT_MS,
        retry: { retries: 0, baseDelayMs: 0, maxRetryAfterMs: 0 },
      });
      try {
        const page = (await client.getJson(REMOTE_PATHS.list, [
          ['pageSize', '1'],
          ['latestDeliveriesCount', '1'],
        ])) as { items?: unknown };
        if (!Array.isArray(page?.items)) {
          return { ok: false, message: `${client.host} answered, but not with a v2 dataset list` };
        }
        return {
          ok: true,
          message: `Connected to ${client.host}: the key is accepted and datasets can be listed`,
        };
      } catch (error) {
        if (error instanceof RemoteError || error instanceof SourceError)
          return { ok: false, message: error.message };
        throw error;
      }
    },
  };
}
