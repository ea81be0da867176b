/**
 * Where a source's remote API key comes from. The app seals keys with Electron's safeStorage (the shell
 * provides that store); headless, keys come from the environment, so they never sit in a file.
 */
import type { Source } from '../store/tables/sources';

export interface SecretKeeper {
  /** The plain key for the source, or null when none is available. */
  apiKeyFor(source: Source): string | null;
  /** Where the user should put a key (for "no API key" messages). */
  readonly hint: string;
  /**
   * Seals a key for `sources.api_key_sealed` (the app, with safeStorage); absent headless, where keys
   * come from the environment and are never written anywhere.
   */
  seal?(apiKey: string): string;
  /** Opens what `seal` sealed (a team token kept in the store); null when it cannot (another machine). */
  unseal?(sealed: string): string | null;
}

export const REMOTE_KEY_ENV = 'DATASET_HEALTH_REMOTE_KEY';

/** `DATASET_HEALTH_REMOTE_KEY_<SOURCE ID>` (upper-cased, other characters as `_`), then the shared one. */
export function sourceKeyEnv(sourceId: string): string {
  return `${REMOTE_KEY_ENV}_${sourceId.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/**
 * Keys from the environment. The shared variable serves only when one remote is synced (`shared`):
 * with several, each needs its own, so one org's key is never sent to another org's remote.
 */
export function envSecretKeeper(
  env: NodeJS.ProcessEnv,
  options: { shared: boolean } = { shared: true },
): SecretKeeper {
  return {
    apiKeyFor: (source) =>
      env[sourceKeyEnv(source.id)] || (options.shared ? env[REMOTE_KEY_ENV] : undefined) || null,
    hint: options.shared
      ? `set ${REMOTE_KEY_ENV} (or ${REMOTE_KEY_ENV}_<SOURCE ID>)`
      : `with several sources, set ${REMOTE_KEY_ENV}_<SOURCE ID> for each`,
  };
}
